"""The one stderr line that says a game's rules are being compiled (envs/core/compiled.py,
``_CompileNotice``): printed when numba's on-disk cache misses, never when it loads from it.

A tiny compiled "game" (written to a temporary package) keeps the compile to about a second;
each run is a fresh process with ``NUMBA_CACHE_DIR`` a temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

RULES = '''
import dataclasses

import numpy as np
from numba import njit

from cardzoo.envs.core.compiled import arrays_type


@dataclasses.dataclass
class State:
    done: np.ndarray
    rewards: np.ndarray
    count: np.ndarray

    @property
    def batch_size(self):
        return self.done.shape[0]


Arrays = arrays_type(State, "Arrays", __name__)


@njit(cache=True)
def step_one(S, b, action, P):
    S.count[b] += action + P[0]
    return 0


@njit(cache=True)
def deal_one(S, b, code, P):
    S.count[b] = code


@njit(cache=True)
def legal_one(S, b, P, out):
    out[0] = 3


@njit(cache=True)
def observe_one(S, b, seat, P, out):
    out[0] = S.count[b] + seat


@njit(cache=True)
def global_one(S, b, P, out):
    out[0] = S.count[b]
'''

RUN = '''
import numpy as np
from tinygame import rules
from cardzoo.envs.core.compiled import drivers_for

d = drivers_for(rules.Arrays, rules)
st = rules.State(np.zeros(2, bool), np.zeros((2, 2)), np.zeros(2, np.int64))
P = np.array([10], dtype=np.int64)
d.step(st, np.array([1, 2]), np.ones(2, bool), P)
words = d.legal(st, P, 1)
obs = d.observe(st, np.array([0, 1]), P, 1)
print(st.count.tolist(), words[:, 0].tolist(), obs[:, 0].tolist())
'''


def _run(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path / "src"))
    return subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True, timeout=300)


def test_compile_line_on_a_cache_miss_only(tmp_path):
    pkg = tmp_path / "src" / "tinygame"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "rules.py").write_text(textwrap.dedent(RULES))
    first = _run(tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout == "[11, 12] [3, 3] [11, 13]\n"
    # three drivers compiled (step, legal, observe): one line for the game, before the compile
    assert first.stderr == "compiling the tinygame rules (first use, about 15-35 s; cached after that)\n"
    second = _run(tmp_path)  # every driver now loads from numba's cache
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert second.stderr == ""


# A rule that calls a plain (not inlined) compiled helper with the row ``b``. The drivers pass
# ``b`` as a run-time int64 everywhere, the AEC env's B = 1 path included: were it the literal 0
# there, numba would compile the helper (and everything it calls) a second time, for
# ``Literal[int](0)``: the duplicate that made every game's first use take seconds longer.
PLAIN_CALL_RULES = RULES.replace(
    '''@njit(cache=True)
def step_one(S, b, action, P):
    S.count[b] += action + P[0]
    return 0''',
    '''@njit(cache=True)
def _bump(S, b, k):
    S.count[b] += k


@njit(cache=True)
def step_one(S, b, action, P):
    _bump(S, b, action + P[0])
    return 0''',
).replace("    count: np.ndarray\n", "    count: np.ndarray\n    current_player: np.ndarray\n")

RUN_PLAIN_CALL = '''
import numpy as np
from tinygame import rules
from cardzoo.envs.core.compiled import drivers_for

d = drivers_for(rules.Arrays, rules)
P = np.array([10], dtype=np.int64)
st = rules.State(np.zeros(2, bool), np.zeros((2, 2)), np.zeros(2, np.int64), np.zeros(2, np.int8))
d.step(st, np.array([1, 2]), np.ones(2, bool), P)  # the batched driver
one = rules.State(np.zeros(1, bool), np.zeros((1, 2)), np.zeros(1, np.int64), np.zeros(1, np.int8))
code = d._single_play(d.arrays(one), 5, P, np.zeros(1, np.uint64), np.zeros(2, np.int8), np.zeros(1, np.uint8), 0)
print(st.count.tolist(), one.count.tolist(), code, len(rules._bump.signatures))
'''


def test_a_plain_call_helper_compiles_once_for_the_batch_and_the_single_game(tmp_path):
    pkg = tmp_path / "src" / "tinygame"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    assert "_bump(S, b, action + P[0])" in PLAIN_CALL_RULES and "current_player" in PLAIN_CALL_RULES
    (pkg / "rules.py").write_text(textwrap.dedent(PLAIN_CALL_RULES))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path / "src"))
    res = subprocess.run([sys.executable, "-c", RUN_PLAIN_CALL], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    # batch: 1 + 10 and 2 + 10; B = 1: 5 + 10, viewed seat 0 (code 1 << 2), no reward; one signature
    assert res.stdout == "[11, 12] [15] 4 1\n"

"""Golden playthroughs of every game, one generic writer and replayer (in the style of OpenSpiel's playthroughs).

A playthrough is a text file ``tests/golden/playthrough_<name>.txt``: a header naming the game,
its options and seeds, then one line per agent step::

    step 12 | player_3 | obs hand=0,7,19 trump=2 score=3,1 | legal 2C 7C | action 7C | rewards 0 0 0 0 | h 1a2b3c4d

``obs`` lists the acting seat's observation slices that are not all zero (positions set for 0/1
slices, values for counts), ``h`` is a hash of every seat's observation and the perfect-information
``global_state`` (so a change anywhere in any view shows), and the last line gives the returns.

The replayer (:func:`replay`) reads the actions from the file and plays them again (it does not
re-draw them), comparing line by line; it reports the first step that differs, or the step whose
recorded action is no longer legal. Regenerate after an intended rules or observation change and
review the diff::

    python tests/playthrough.py --update            # every playthrough
    python tests/playthrough.py --update all_fours  # one game's
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from cardzoo import envs

GOLDEN = Path(__file__).parent / "golden"

#: name -> (game, options, seed): the games of every playthrough (default options and one variant per game)
PLAYTHROUGHS: dict[str, tuple[str, dict, int]] = {
    "all_fours": ("all_fours", {}, 0),
    "all_fours_match7": ("all_fours", {"episode": "match", "target_score": 7, "undertrump": "forbidden"}, 1),
    "avinas": ("avinas", {}, 0),
    "avinas_variants": (
        "avinas",
        {"facedown_signal": "free", "honesty": "mask", "knock_back": "always", "trump_lead_rule": "every_lead"},
        1,
    ),
    "ottocento": ("ottocento", {}, 0),
    "ottocento_auto_captured": ("ottocento", {"declaration_mode": "auto_all", "matto_rule": "captured"}, 1),
    "aluette": ("aluette", {}, 0),
    "aluette_free_surrender": ("aluette", {"signals": "free", "surrender": True, "episode": "match", "match_deals": 2}, 1),
    "pyanitsa": ("pyanitsa", {}, 0),
    "pyanitsa_3p_chooses": ("pyanitsa", {"num_players": 3, "collect_order": "winner_chooses", "max_battles": 60}, 1),
}


def path_of(name: str) -> Path:
    return GOLDEN / f"playthrough_{name}.txt"


def _obs_text(layout, obs: np.ndarray) -> str:
    parts = []
    for e in layout.entries:
        v = obs[e.start : e.stop]
        if not v.any():
            continue
        if e.high <= 1:
            parts.append(f"{e.name}=" + ",".join(str(int(i)) for i in np.flatnonzero(v)))
        else:
            parts.append(f"{e.name}=" + ",".join(str(int(x)) for x in v))
    return " ".join(parts) or "-"


def _views_hash(env) -> str:
    k, st = env.kernel, env.game_state
    h = hashlib.sha1()
    for seat in range(k.num_players):
        h.update(k.observe(st, seat).tobytes())
    h.update(k.global_state(st).tobytes())
    return h.hexdigest()[:8]


def _header(name: str) -> list[str]:
    game, options, seed = PLAYTHROUGHS[name]
    return [
        f"# cardzoo playthrough {name}: game {game}, options {json.dumps(options, sort_keys=True)}, "
        f"reset(seed={seed}), actions default_rng({seed}).choice(legal)",
        "# step | agent | obs (acting seat, non-zero slices) | legal | action | rewards | h (hash of every view)",
    ]


def play(name: str, actions: list[str] | None = None) -> list[str]:
    """The lines of playthrough ``name``: actions drawn by ``default_rng(seed)``, or the recorded
    ``actions`` (names) replayed. A recorded action that is not legal ends the list with a line saying so."""
    game, options, seed = PLAYTHROUGHS[name]
    env = envs.make(game, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lay = env.kernel.obs_layout
    lines = _header(name)
    step = 0
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        agent = env.agent_selection
        o = env.observe(agent)
        legal = np.flatnonzero(o["action_mask"])
        names = [env.action_name(int(a)) for a in legal]
        if actions is None:
            action = int(rng.choice(legal))
        else:
            if step >= len(actions):
                lines.append(f"step {step} | the recording ended but the episode goes on")
                break
            if actions[step] not in names:
                lines.append(f"step {step} | recorded action {actions[step]} is not legal now; legal: {' '.join(names)}")
                break
            action = int(legal[names.index(actions[step])])
        head = f"step {step} | {agent} | obs {_obs_text(lay, o['observation'])} | legal {' '.join(names)}"
        env.step(action)
        rewards = " ".join(f"{env.rewards[a]:g}" for a in env.possible_agents)
        lines.append(f"{head} | action {env.action_name(action)} | rewards {rewards} | h {_views_hash(env)}")
        step += 1
    returns = " ".join(f"{env._cumulative_rewards[a]:g}" for a in env.possible_agents)
    lines.append(
        f"end after {step} steps | terminated {any(env.terminations.values())} truncated {any(env.truncations.values())}"
        f" | returns {returns}"
    )
    return lines


def recorded_actions(text: str) -> list[str]:
    """The action names of a playthrough file, in order."""
    out = []
    for line in text.splitlines():
        if line.startswith("step ") and " | action " in line:
            out.append(line.split(" | action ")[1].split(" | ")[0])
    return out


def replay(name: str) -> None:
    """Replay the recorded playthrough ``name``; ``AssertionError`` at the first line that differs."""
    expected = path_of(name).read_text().splitlines()
    got = play(name, recorded_actions("\n".join(expected)))
    for i, (e, g) in enumerate(zip(expected, got)):
        if e != g:
            raise AssertionError(
                f"playthrough {name} differs at line {i + 1}:\n  recorded: {e[:600]}\n  now:      {g[:600]}\n"
                f"(regenerate with `python tests/playthrough.py --update {PLAYTHROUGHS[name][0]}` if intended)"
            )
    assert len(expected) == len(got), f"playthrough {name}: {len(expected)} recorded lines, {len(got)} now"


def update(names) -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name in names:
        lines = play(name)
        assert lines == play(name), f"playthrough {name} is not deterministic"
        path_of(name).write_text("\n".join(lines) + "\n")
        print(f"wrote {path_of(name)} ({len(lines) - 3} steps)")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--update"]
    chosen = [n for n in PLAYTHROUGHS if not args or PLAYTHROUGHS[n][0] in args or n in args]
    if "--update" in sys.argv[1:]:
        update(chosen)
    else:
        for n in chosen:
            print("\n".join(play(n)))

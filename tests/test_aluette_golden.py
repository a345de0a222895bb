"""Golden playthrough of one seeded Aluette game (``tests/golden/aluette_seed0.txt``).

The game: ``aluette_v0.env(episode="match", match_deals=2, surrender=True)``, ``reset(seed=0)``,
each action drawn uniformly from the legal actions by ``numpy.random.default_rng(0)``. Every
step records the agent, a summary decoded from that agent's observation (hand, current trick,
signals heard from the partner, trick results, score as mine-theirs), the legal action names,
the action and the rewards.

Regenerate after an intended rules or observation change, and review the diff::

    python -m tests.test_aluette_golden --update
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from cardzoo.envs import aluette_v0
from cardzoo.envs.aluette.constants import SIGNALS

from env_util import check_golden

GOLDEN = Path(__file__).parent / "golden" / "aluette_seed0.txt"
OPTIONS = {"episode": "match", "match_deals": 2, "surrender": True}


def _cards(env, vec) -> str:
    names = [env.action_name(int(c)) for c in np.flatnonzero(vec)]
    return " ".join(names) if names else "-"


def generate() -> str:
    env = aluette_v0.env(**OPTIONS)
    lay = env.kernel.obs_layout
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    lines = [
        f"# Aluette golden playthrough: aluette_v0.env(**{OPTIONS}), reset(seed=0), actions rng=default_rng(0).choice(legal)",
        "# step agent | hand | trick | partner's signals | trick results (me/next/partner/previous/X) | score | legal | action | rewards",
    ]
    step = 0
    rel = "mnpqX"
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        agent = env.agent_selection
        o = env.observe(agent)
        obs, mask = o["observation"], o["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.tolist() == env.legal_actions()
        action = int(rng.choice(legal))
        res = obs[lay["trick_results"]].reshape(9, 5)
        results = "".join(rel[int(r.argmax())] if r.any() else "." for r in res)
        sig = " ".join(SIGNALS[i] for i in np.flatnonzero(obs[lay["signals[partner]"]])) or "-"
        sc = obs[lay["score"]]
        summary = f"hand {_cards(env, obs[lay['hand']])} | trick {_cards(env, obs[lay['trick']])} | heard {sig} | {results} | {sc[0]}-{sc[1]}"
        env.step(action)
        rewards = " ".join(f"{env.rewards[a]:g}" for a in env.possible_agents)
        lines.append(f"{step:3d} {agent} | {summary} | legal {' '.join(env.action_name(a) for a in legal)}"
                     f" | action {env.action_name(action)} | rewards {rewards}")
        step += 1
    lines.append(f"end: info {env.infos['player_0']}")
    return "\n".join(lines) + "\n"


def update() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(generate())


def test_golden_playthrough():
    check_golden(generate, GOLDEN, "tests.test_aluette_golden")


if __name__ == "__main__":
    if "--update" in sys.argv[1:]:
        update()
        print(f"wrote {GOLDEN}")
    else:
        sys.stdout.write(generate())

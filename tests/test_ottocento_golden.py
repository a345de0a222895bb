"""Golden playthrough of one seeded Ottocento deal (``tests/golden/ottocento_seed0.txt``).

The game: ``ottocento_v0.env()``, ``reset(seed=0)``, each action drawn uniformly from the legal
actions by ``numpy.random.default_rng(0)``. Every step records the agent, a summary decoded from
that agent's observation (hand, current trick, led suit, declaration points per seat), the legal
action names, the action and the rewards; the last line is the end-of-deal info.

Regenerate after an intended rules or observation change, and review the diff::

    python -m tests.test_ottocento_golden --update
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from cardzoo.envs import ottocento_v0

from env_util import check_golden

GOLDEN = Path(__file__).parent / "golden" / "ottocento_seed0.txt"
LED = ("S", "B", "C", "D", "trumps", "-")


def _cards(env, vec) -> str:
    names = [env.action_name(int(c)) for c in np.flatnonzero(vec)]
    return " ".join(names) if names else "-"


def generate() -> str:
    env = ottocento_v0.env()
    lay = env.kernel.obs_layout
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    lines = [
        "# Ottocento golden playthrough: ottocento_v0.env(), reset(seed=0), actions rng=default_rng(0).choice(legal)",
        "# step agent | hand | trick (me next partner previous) | led | declaration points (rel) | legal | action | rewards p0..p3",
    ]
    step = 0
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        agent = env.agent_selection
        o = env.observe(agent)
        obs, mask = o["observation"], o["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.tolist() == env.legal_actions()
        action = int(rng.choice(legal))
        trick = " ".join(_cards(env, obs[lay[f"trick_by[{r}]"]]) for r in ("me", "next", "partner", "previous"))
        led = LED[int(np.flatnonzero(obs[lay["led_suit"]])[0])]
        summary = f"hand {_cards(env, obs[lay['hand']])} | trick {trick} | led {led} | decl {obs[lay['declaration_points']].tolist()}"
        env.step(action)
        rewards = " ".join(f"{env.rewards[a]:g}" for a in env.possible_agents)
        lines.append(f"{step:3d} {agent} | {summary} | legal {' '.join(env.action_name(a) for a in legal)} | action {env.action_name(action)} | rewards {rewards}")
        step += 1
    lines.append(f"end: info {env.infos['player_0']}")
    return "\n".join(lines) + "\n"


def update() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(generate())


def test_golden_playthrough():
    check_golden(generate, GOLDEN, "tests.test_ottocento_golden")


if __name__ == "__main__":
    if "--update" in sys.argv[1:]:
        update()
        print(f"wrote {GOLDEN}")
    else:
        sys.stdout.write(generate())

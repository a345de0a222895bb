"""Golden playthrough of one seeded All Fours game (``tests/golden/all_fours_seed0.txt``).

The game: ``all_fours_v0.env()``, ``reset(seed=0)``, each action drawn uniformly from the
legal actions by ``numpy.random.default_rng(0)``. Every step records the agent, a summary
decoded from that agent's observation (hand, current trick, trump, hand points and match
score as mine-theirs), the legal action names, the action and the rewards.

Regenerate after an intended rules or observation change, and review the diff::

    python -m tests.test_all_fours_golden --update
    # or
    CARDZOO_UPDATE_GOLDEN=1 python -m pytest tests/test_all_fours_golden.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from cardzoo.envs import all_fours_v0

from env_util import check_golden

GOLDEN = Path(__file__).parent / "golden" / "all_fours_seed0.txt"
SUITS = "CDHS"


def _cards(env, vec) -> str:
    names = [env.action_name(int(c)) for c in np.flatnonzero(vec)]
    return " ".join(names) if names else "-"


def _pair(v) -> str:
    return f"{int(v[0])}-{int(v[1])}"


def generate() -> str:
    env = all_fours_v0.env()
    lay = env.kernel.obs_layout
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    lines = [
        "# All Fours golden playthrough: all_fours_v0.env(), reset(seed=0), "
        "actions rng=default_rng(0).choice(legal)",
        "# step agent | hand | trick | trump | hand points (mine-theirs) | score (mine-theirs) "
        "| legal | action | rewards p0..p3",
    ]
    step = 0
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        agent = env.agent_selection
        o = env.observe(agent)
        obs, mask = o["observation"], o["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.tolist() == env.legal_actions()
        action = int(rng.choice(legal))
        trump = SUITS[int(np.flatnonzero(obs[lay["trump"]])[0])]
        summary = (
            f"hand {_cards(env, obs[lay['hand']])} | trick {_cards(env, obs[lay['trick']])} | trump {trump}"
            f" | pts {_pair(obs[lay['hand_points']])} | score {_pair(obs[lay['score']])}"
        )
        env.step(action)
        rewards = " ".join(f"{env.rewards[a]:g}" for a in env.possible_agents)
        lines.append(
            f"{step:3d} {agent} | {summary} | legal {' '.join(env.action_name(a) for a in legal)}"
            f" | action {env.action_name(action)} | rewards {rewards}"
        )
        step += 1
    st = env.game_state
    lines.append(
        f"end: terminations {sorted(set(env.terminations.values()))}"
        f" truncations {sorted(set(env.truncations.values()))}"
        f" | hand points A-B {_pair(st.points[0])} | items High,Low,Jack,Game {st.items[0].tolist()}"
        f" hang {bool(st.hang[0])} | info {env.infos['player_0']}"
    )
    return "\n".join(lines) + "\n"


def update() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(generate())


def test_golden_playthrough():
    check_golden(generate, GOLDEN, "tests.test_all_fours_golden")


if __name__ == "__main__":
    if "--update" in sys.argv[1:]:
        update()
        print(f"wrote {GOLDEN}")
    else:
        sys.stdout.write(generate())

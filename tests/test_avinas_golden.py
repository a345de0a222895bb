"""Golden playthrough of seeded Avinas games (``tests/golden/avinas_seed0.txt``).

The games: ``avinas_v0.env(episode="match", pip_limit=4)``, ``reset(seed=0)``, each action
drawn uniformly from the legal actions by ``numpy.random.default_rng(0)`` (a match, so both the
sevens and the no-sevens game appear). Every step records the agent, a summary decoded from that
agent's observation (hand, visible trick, trumps, calls, card points and pips as mine-theirs), the
legal action names, the action and the rewards.

Regenerate after an intended rules or observation change, and review the diff::

    python -m tests.test_avinas_golden --update
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from cardzoo.envs import avinas_v0

from env_util import check_golden

GOLDEN = Path(__file__).parent / "golden" / "avinas_seed0.txt"


def _cards(env, vec) -> str:
    names = [env.action_name(int(c)) for c in np.flatnonzero(vec)]
    return " ".join(names) if names else "-"


def _pair(v) -> str:
    return f"{int(v[0])}-{int(v[1])}"


def generate() -> str:
    env = avinas_v0.env(episode="match", pip_limit=4)
    lay = env.kernel.obs_layout
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    lines = [
        "# Avinas golden playthrough: avinas_v0.env(episode='match', pip_limit=4), reset(seed=0), "
        "actions rng=default_rng(0).choice(legal)",
        "# step agent | game | hand | trick | trump | calls (me,next,partner,prev) | card points | pips "
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
        t = np.flatnonzero(obs[lay["trump"]])
        game = "sevens" if obs[lay["game"]][0] else "no-sevens"
        summary = (
            f"{game} | hand {_cards(env, obs[lay['hand']])} | trick {_cards(env, obs[lay['trick']])}"
            f" | trump {'CDHS'[int(t[0])] if t.size else '-'} | calls {obs[lay['calls']].tolist()}"
            f" | pts {_pair(obs[lay['card_points']])} | pips {_pair(obs[lay['pips']])}"
        )
        env.step(action)
        rewards = " ".join(f"{env.rewards[a]:g}" for a in env.possible_agents)
        lines.append(
            f"{step:3d} {agent} | {summary} | legal {' '.join(env.action_name(a) for a in legal)}"
            f" | action {env.action_name(action)} | rewards {rewards}"
        )
        step += 1
    lines.append(f"end: info {env.infos['player_0']}")
    return "\n".join(lines) + "\n"


def update() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(generate())


def test_golden_playthrough():
    check_golden(generate, GOLDEN, "tests.test_avinas_golden")


if __name__ == "__main__":
    if "--update" in sys.argv[1:]:
        update()
        print(f"wrote {GOLDEN}")
    else:
        sys.stdout.write(generate())

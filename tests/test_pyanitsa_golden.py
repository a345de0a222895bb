"""Golden playthrough of one seeded P'yanitsa game (``tests/golden/pyanitsa_seed0.txt``).

The game: ``pyanitsa_v0.env(num_players=3, collect_order="winner_chooses", objective="first_out_loses")``, ``reset(seed=0)``,
each action drawn uniformly from the legal actions by ``numpy.random.default_rng(0)``. Every
step records the agent, a summary decoded from that agent's observation (pile sizes me-first,
last battle's face-up cards me-first, the pot it orders), the legal actions, the action and the
rewards; every battle's piles (omniscient) are recorded too.

Regenerate after an intended rules or observation change, and review the diff::

    python -m tests.test_pyanitsa_golden --update
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from cardzoo.envs import pyanitsa_v0

from env_util import check_golden

GOLDEN = Path(__file__).parent / "golden" / "pyanitsa_seed0.txt"


def _cards(env, vec) -> str:
    names = [env.kernel.deck.names[int(c)] for c in np.flatnonzero(vec)]
    return " ".join(names) if names else "-"


def generate() -> str:
    env = pyanitsa_v0.env(num_players=3, collect_order="winner_chooses", objective="first_out_loses")
    k = env.kernel
    lay = k.obs_layout
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    lines = [
        "# P'yanitsa golden playthrough: pyanitsa_v0.env(num_players=3, collect_order='winner_chooses', objective='first_out_loses'), "
        "reset(seed=0), actions rng=default_rng(0).choice(legal)",
        "# step agent | sizes (me first) | face up (me first) | pot | legal | action | rewards p0..p2",
    ]
    step = 0
    battles = 0
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        agent = env.agent_selection
        o = env.observe(agent)
        obs, mask = o["observation"], o["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.tolist() == env.legal_actions()
        action = int(rng.choice(legal))
        sizes = "-".join(str(int(obs[lay[f"pile_size[{r}]"]][0])) for r in ("me", "me+1", "me+2"))
        up = " / ".join(_cards(env, obs[lay[f"face_up[{r}]"]]) for r in ("me", "me+1", "me+2"))
        env.step(action)
        rewards = " ".join(f"{env.rewards[a]:g}" for a in env.possible_agents)
        lines.append(
            f"{step:4d} {agent} | {sizes} | {up} | pot {_cards(env, obs[lay['pot']])}"
            f" | legal {' '.join(env.action_name(a) for a in legal)} | action {env.action_name(action)} | rewards {rewards}"
        )
        st = env.game_state
        if int(st.battles[0]) != battles:
            battles = int(st.battles[0])
            piles = [" ".join(k.deck.names[c] for c in p) or "-" for p in k.piles(st, 0)]
            lines.append(f"     battle {battles} won by S{int(st.winner[0])}: piles " + " | ".join(piles))
        step += 1
    lines.append(
        f"end: terminations {sorted(set(env.terminations.values()))} truncations {sorted(set(env.truncations.values()))}"
        f" | info {env.infos['player_0']}"
    )
    return "\n".join(lines) + "\n"


def update() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(generate())


def test_golden_playthrough():
    check_golden(generate, GOLDEN, "tests.test_pyanitsa_golden")


if __name__ == "__main__":
    if "--update" in sys.argv[1:]:
        update()
        print(f"wrote {GOLDEN}")
    else:
        sys.stdout.write(generate())

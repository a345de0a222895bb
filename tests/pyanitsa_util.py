"""Helpers for the P'yanitsa tests: constructed positions, battle-by-battle play, readable piles.

Positions are given as pile lists top -> bottom (card names), exactly as RULES.md §10 lists them.
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs import pyanitsa_v0
from cardzoo.envs.core.cards import FRENCH36


def names(cards) -> list[str]:
    return [FRENCH36.names[int(c)] for c in cards]


def new_env(piles=None, seed=0, **options):
    """A reset env (``render_mode="ansi"``) on the constructed ``piles`` (lists of names) or a seeded deal."""
    env = pyanitsa_v0.env(render_mode="ansi", **options)
    env.reset(seed=seed, options=None if piles is None else {"piles": [p.split() if isinstance(p, str) else p for p in piles]})
    return env


def piles(env) -> list[list[str]]:
    """Every seat's pile, top -> bottom, as card names (the omniscient view)."""
    return [names(p) for p in env.unwrapped.kernel.piles(env.game_state, 0)]


def flip_battle(env) -> list[str]:
    """Take ``FLIP`` for every active seat of one battle; returns the agents that flipped, in order."""
    st = env.game_state
    start = int(st.battles[0])
    flipped = []
    while int(st.battles[0]) == start and not st.done[0]:
        assert env.legal_actions() == [env.unwrapped.kernel.FLIP]
        flipped.append(env.agent_selection)
        env.step(env.unwrapped.kernel.FLIP)
    return flipped


def final_rewards(env) -> list[float]:
    return [env._cumulative_rewards[a] for a in env.possible_agents]


def run_battles(env, n: int) -> None:
    for _ in range(n):
        if env.game_state.done[0]:
            return
        if int(env.game_state.phase[0]) == 1:
            raise AssertionError("ORDER phase: choose explicitly")
        flip_battle(env)


def random_batch_play(kernel, batch: int, rng, max_steps: int = 100_000, check=None):
    """Play ``batch`` games with random legal actions through the batched kernel until all are done.

    ``check(state, kernel)`` runs after every step. Returns the final state and the summed rewards.
    """
    from cardzoo.envs.core.cards import random_set_bit

    st = kernel.init(rng, batch)
    total = np.zeros((batch, kernel.num_players))
    for _ in range(max_steps):
        if st.done.all():
            break
        a = random_set_bit(kernel.legal_bitboard(st), rng)
        kernel.step(st, a, rng)
        total += st.rewards
        if check is not None:
            check(st, kernel)
    assert st.done.all()
    return st, total


def random_positions(kernel, rng, steps: int, restart: bool = False):
    """Yield the state (``B = 1``, the same object, stepped in place) before each of ``steps``
    uniformly random legal moves. A finished game ends the walk, or with ``restart`` a new one is dealt."""
    from cardzoo.envs.core.cards import random_set_bit

    st = kernel.init(rng, 1)
    for _ in range(steps):
        if st.done[0]:
            if not restart:
                return
            st = kernel.init(rng, 1)
        yield st
        kernel.step(st, random_set_bit(kernel.legal_bitboard(st), rng), rng)

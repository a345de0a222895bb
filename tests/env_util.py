"""Helpers shared by the env tests of every game."""

from __future__ import annotations


def random_steps(env, rng, n):
    """Take up to ``n`` uniformly random legal steps in a PettingZoo env (stops when the episode
    ends); returns the actions taken."""
    taken = []
    for _ in range(n):
        if any(env.terminations.values()) or any(env.truncations.values()):
            break
        a = int(rng.choice(env.legal_actions()))
        env.step(a)
        taken.append(a)
    return taken

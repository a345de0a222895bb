"""cardzoo environments: five traditional card games as PettingZoo AEC envs over batched kernels.

``GAMES`` maps a game name to its entry module name; :func:`make` builds an env by name,
:func:`kernel` a batched kernel by name, :func:`warm_up` compiles a game's rules before first use. Each game's PettingZoo module is
``cardzoo.envs.<game>_v0`` with ``env()`` and ``raw_env()`` (e.g. ``from cardzoo.envs import
all_fours_v0``). Importing this package needs only numpy, gymnasium and pettingzoo.
"""

from __future__ import annotations

import importlib

#: game name -> entry module (under ``envs``); games land here as they are implemented
GAMES: dict[str, str] = {
    "all_fours": "all_fours_v0",
    "ottocento": "ottocento_v0",
    "avinas": "avinas_v0",
    "aluette": "aluette_v0",
    "pyanitsa": "pyanitsa_v0",
}


def _entry(game: str):
    if not isinstance(game, str) or game not in GAMES:  # a list or dict raised "unhashable type: 'list'"
        raise ValueError(f"unknown game {game!r}; available games: {sorted(GAMES)}")
    return importlib.import_module(f"cardzoo.envs.{GAMES[game]}")


def make(game: str, **options):
    """``env(**options)`` of ``game``; ``ValueError`` for an unknown game or option."""
    return _entry(game).env(**options)


def kernel(game: str, **options):
    """The batched kernel of ``game`` built with ``options``."""
    return _entry(game).KERNEL(**options)


def kernel_class(game: str):
    """The kernel class of ``game`` (not built); ``ValueError`` for an unknown game."""
    return _entry(game).KERNEL


def warm_up(game: str) -> None:
    """Compile ``game``'s rules, or load them from numba's on-disk cache, by playing its first steps:
    the batched kernel's first mask, observation, step and state vector (a batch of 2 games, seed 0)
    and the first three agent steps of :func:`make`'s env (default options). Call it before timing
    anything, or before work that must not pause for the compiler (about 20-30 s per game on a
    2-core machine with an empty cache, under a second from the cache). ``ValueError`` for an
    unknown game."""
    import numpy as np

    k = kernel(game)
    rng = np.random.default_rng(0)
    st = k.init(rng, 2)
    mask = k.legal_actions(st)
    k.observe(st, st.current_player)
    k.step(st, mask.argmax(axis=1), rng)
    k.global_state(st)
    env = make(game)
    env.reset(seed=0)
    for _ in range(3):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


def __getattr__(name: str):
    """``cardzoo.envs.<game>_v0`` without importing it first (imported on first use)."""
    if name in GAMES.values():
        return importlib.import_module(f"cardzoo.envs.{name}")
    raise AttributeError(f"module 'cardzoo.envs' has no attribute {name!r}")

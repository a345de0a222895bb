"""Differential testing against a plain-Python reference model of a game's rules: the lockstep
loop that every ``tests/test_<game>_reference.py`` shares (the models are ``tests/<game>_reference.py``)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np


def play_in_lockstep(
    kernel,
    st,
    rng: np.random.Generator,
    models: Sequence[Any],
    choose: Callable[[int, Any, list[int]], int],
    advance: Callable[[int, Any, int], None],
    player: Callable[[Any], int] = lambda m: m.to_act(),
    before_step: Callable[[np.ndarray, np.ndarray], None] | None = None,
    after_step: Callable[[np.ndarray], None] | None = None,
) -> int:
    """Play the games of the batch ``st`` until every model is done; return the agent steps played.

    Each round, for every game ``b`` whose model is not done: the kernel's player to act and legal
    actions (ids, ascending) must be the model's (``player(models[b])``, ``models[b].legal()``), and
    ``choose(b, model, legal)`` picks the action. ``before_step(rows, actions)`` may look at the
    states before the step (``rows``: the live games); the kernel steps the live games together
    (``kernel.step(..., active=live)``, chance from ``rng``); then ``advance(b, model, action)``
    steps the model and compares it with the kernel, and ``after_step(rows)`` sees the stepped games.
    """
    B = st.batch_size
    live = np.array([not m.done for m in models], dtype=bool)
    steps = 0
    while live.any():
        legal = kernel.legal_actions(st)
        actions = np.zeros(B, np.int64)
        rows = np.flatnonzero(live)
        for b in rows:
            m = models[b]
            expected = m.legal()
            assert int(st.current_player[b]) == player(m), f"game {b}: player to act"
            assert np.flatnonzero(legal[b]).tolist() == expected, f"game {b}: legal actions"
            actions[b] = choose(b, m, expected)
        if before_step is not None:
            before_step(rows, actions)
        kernel.step(st, actions, rng, active=live.copy())
        for b in rows:
            advance(b, models[b], int(actions[b]))
            live[b] = not models[b].done
        steps += rows.size
        if after_step is not None:
            after_step(rows)
    return steps

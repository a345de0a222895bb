"""P'yanitsa observation and state vector layouts (``RULES.md`` §7 Information); the compiled
``rules.py`` writes them.

Observations are seat-relative: ``me``, ``me+1`` (the next seat up), ``me+2``, ``me+3``
(as many as there are players). Everything in them is public except ``pot`` (the cards the
observing seat is ordering, face-down ones included) and ``my_known_*`` (the bottom part of
its own pile whose order it fixed itself with ``ORDER``); both are all zero outside
``collect_order="winner_chooses"``. Pile contents never appear, except with
``observe_history=True``: ``remembered[r]`` then gives, for every card shown face up in an
earlier battle, where in which pile it lies as far as a seat that remembers every battle knows
(RULES.md §7; the same knowledge ``determinize`` keeps).
"""

from __future__ import annotations

from ..core.kernel import Layout


def rel_names(n: int) -> list[str]:
    """``["me", "me+1", ...]`` for ``n`` players."""
    return ["me"] + [f"me+{r}" for r in range(1, n)]


def _public(L: Layout, N: int, C: int) -> None:
    for r in rel_names(N):
        L.add(f"pile_size[{r}]", 1, f"cards in the pile of {r}", high=C)
    L.add("out", N, "seats with no card (me, me+1, ...)")
    L.add("to_act", N, "seat to act, seat-relative")
    L.add("phase", 2, "flip / order the pot (all 0 when the game is over)")
    L.add("battle_winner", N, "winner of the last battle, seat-relative (all 0: none yet or dead battle)")
    for r in rel_names(N):
        L.add(f"face_down[{r}]", 1, f"face-down cards {r} put down in the last battle", high=C)
    L.add("battles", 2, "battles completed: low byte, high byte", high=255)


def observation_layout(k) -> Layout:
    """Named slices of the observation vector of kernel ``k`` (print with ``Layout.table()``)."""
    N, C = k.num_players, k.C
    L = Layout()
    _public(L, N, C)
    for r in rel_names(N):
        L.add(f"face_up[{r}]", C, f"cards {r} showed face up in the last battle")
    L.add("pot", C, "cards I am ordering under my pile (winner_chooses; face-down ones included)")
    L.add("my_known_set", C, "cards of the bottom part of my pile whose order I fixed myself")
    L.add("my_known_order", C, "that part top -> bottom as card id + 1 (0 = none)", high=C)
    L.add("my_known_count", 1, "length of that part", high=C)
    if k.options["observe_history"]:
        for r in rel_names(N):
            L.add(f"remembered[{r}]", C, f"cards remembered in the pile of {r} (observe_history): 1 + the offset "
                  "from its top of the card's place, or of its pot's first place where the order inside the pot "
                  "is not known; 0 = not remembered", high=C)
    return L


def state_layout(k) -> Layout:
    """Named slices of the perfect-information ``state()`` vector (absolute seats: me = S0)."""
    N, C = k.num_players, k.C
    L = Layout()
    _public(L, N, C)
    for s in range(N):
        L.add(f"face_up[S{s}]", C, f"cards seat {s} showed face up in the last battle")
    L.add("pot", C, "cards on the table not yet under a pile")
    for s in range(N):
        L.add(f"pile[S{s}]", C, f"seat {s}'s pile top -> bottom as card id + 1 (0 = none)", high=C)
    return L

"""All Fours observation and state vectors (``RULES.md`` §7 Information).

Observations are seat-relative: index 0 = me, 1 = next (my right, acts after me),
2 = partner, 3 = previous. Teams are "mine" then "theirs". Values are small non-negative
integers stored as ``uint8``; each slice's ``high`` bounds it (counts are clipped there).

This module names the slices; the compiled writers that fill them are
:func:`cardzoo.envs.all_fours.rules.observe_one` and :func:`~cardzoo.envs.all_fours.rules.global_one`.
"""

from __future__ import annotations

from ..core.kernel import Layout

REL = ("me", "next", "partner", "previous")


def observation_layout(target: int) -> Layout:
    """Named slices of the observation vector (print with ``Layout.table()``)."""
    L = Layout()
    L.add("hand", 52, "cards I hold")
    for r in REL:
        L.add(f"played_by[{r}]", 52, f"cards played this deal by {r} (current trick included)")
    L.add("trick", 52, "cards in the current trick")
    L.add("kicked", 52, "every card turned up this deal (out of play)")
    _public(L, target)
    return L


def _public(L: Layout, target: int) -> None:
    L.add("trump", 4, "trump suit (during the beg decision: the proposed suit) C D H S")
    L.add("led_suit", 4, "suit led to the current trick, C D H S (all 0 when leading)")
    L.add("phase", 3, "beggar decides / dealer decides / trick play")
    L.add("dealer", 4, "dealer, seat-relative (me, next, partner, previous)")
    L.add("leader", 4, "leader of the current trick, seat-relative")
    L.add("to_act", 4, "seat to act, seat-relative")
    L.add("trick_winner", 4, "seat winning the current trick so far, seat-relative")
    L.add("begged", 1, "the beggar begged this deal")
    L.add("gave_one", 1, "the dealer gave one")
    L.add("runs", 1, "runs of the pack this deal (0-2)", high=2)
    L.add("hand_size", 1, "cards dealt to each player this deal (6, 9, 12)", high=12)
    L.add("tricks_done", 1, "tricks completed this deal", high=12)
    L.add("game_captured", 2, "Game value captured: my team, their team", high=80)
    L.add("hand_points", 2, "points scored this hand: my team, their team (clipped)", high=40)
    L.add("score", 2, "match score: my team, their team (clipped)", high=min(target + 40, 255))  # uint8


def state_layout(target: int) -> Layout:
    """Named slices of the perfect-information ``state()`` vector (absolute seats)."""
    L = Layout()
    for s in range(4):
        L.add(f"hand[S{s}]", 52, f"cards seat {s} holds")
    for s in range(4):
        L.add(f"played_by[S{s}]", 52, f"cards seat {s} played this deal")
    L.add("trick", 52, "cards in the current trick")
    L.add("kicked", 52, "cards turned up this deal")
    L.add("stock", 52, "cards still in the stock (undealt)")
    _public(L, target)
    return L

"""Ottocento observation and state vector layouts (``RULES.md`` §7 Information); the compiled
``rules.py`` (``observe_one``) writes them.

Observations are seat-relative: index 0 = me, 1 = next (my right, plays after me),
2 = partner, 3 = previous. Teams are "mine" then "theirs". Values are small non-negative
integers stored as ``uint8``; each slice's ``high`` bounds it (points are clipped there).
Card sets are 62 entries each, in card-id order (:data:`cardzoo.envs.core.cards.TAROCCO62`).
"""

from __future__ import annotations

from ..core.kernel import Layout

REL = ("me", "next", "partner", "previous")
_W = 62


def observation_layout() -> Layout:
    """Named slices of the observation vector (print with ``Layout.table()``)."""
    L = Layout()
    L.add("hand", _W, "cards I hold")
    L.add("my_discards", _W, "the two cards I discarded (only when I am the dealer)")
    for r in REL:
        L.add(f"declared_unplayed[{r}]", _W, f"cards declared by {r}, still held")
    for r in REL:
        L.add(f"played_by[{r}]", _W, f"cards played this deal by {r} (current trick included)")
    for r in REL:
        L.add(f"trick_by[{r}]", _W, f"card played to the current trick by {r}")
    L.add("captured[mine]", _W, "cards my team won in tricks")
    L.add("captured[theirs]", _W, "cards their team won in tricks")
    _public(L)
    return L


def _public(L: Layout) -> None:
    L.add("led_suit", 6, "suit to follow: S B C D trumps none")
    L.add("phase", 3, "dealer discards / declare or pass / trick play")
    L.add("dealer", 4, "dealer, seat-relative (me, next, partner, previous)")
    L.add("leader", 4, "leader of the current trick, seat-relative")
    L.add("to_act", 4, "seat to act, seat-relative")
    L.add("trick_winner", 4, "seat winning the current trick so far, seat-relative (none while only a led Matto is in it)")
    L.add("matto_played_by", 4, "who played the Matto (its owner), seat-relative")
    L.add("matto_trick_won_by", 4, "who won the trick the Matto was played to, seat-relative")
    L.add("decided", 4, "seats that have declared or passed, seat-relative")
    L.add("declared", 4, "seats that declared, seat-relative")
    L.add("tricks_done", 1, "tricks completed this deal", high=15)
    L.add("hand_size", 4, "cards held, seat-relative", high=17)
    L.add("tricks_won", 2, "tricks won: my team, their team", high=15)
    L.add("declaration_points", 4, "points declared per seat, seat-relative (clipped)", high=255)
    L.add("match_score", 2, "match score in units of 4 points: my team, their team (clipped)", high=255)


def state_layout() -> Layout:
    """Named slices of the perfect-information ``state()`` vector (absolute seats; team A = "mine")."""
    L = Layout()
    for s in range(4):
        L.add(f"hand[S{s}]", _W, f"cards seat {s} holds")
    L.add("discards", _W, "the dealer's two discards")
    for s in range(4):
        L.add(f"played_by[S{s}]", _W, f"cards seat {s} played this deal")
    L.add("trick", _W, "cards in the current trick")
    L.add("captured[A]", _W, "cards team A won in tricks")
    L.add("captured[B]", _W, "cards team B won in tricks")
    _public(L)
    return L

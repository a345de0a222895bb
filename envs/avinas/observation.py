"""Avinas observation and state vectors (``RULES.md`` §7 Information).

Observations are seat-relative: index 0 = me, 1 = next (my left, plays after me), 2 = partner,
3 = previous; teams are "mine" then "theirs". Values are small non-negative integers stored as
``uint8``; each slice's ``high`` bounds it (counters are clipped there).

What a seat sees of the hidden parts (§7): its own hand; the exposed 4th/8th cards of every
seat; as dealer, the partner's hidden 4th/8th cards; the face-down card of the current trick
only if it led it (everyone once the trick ends); the "valuable" bit only as the leader's partner.

The vectors themselves are written by the compiled rules (:func:`cardzoo.envs.avinas.rules.observe_one`,
:func:`~cardzoo.envs.avinas.rules.global_one`): 11 (state: 12) card sets of 32 bits, the 52 0/1
public entries, then the 17 counters, in the order of these layouts.
"""

from __future__ import annotations

from ..core.kernel import Layout

REL = ("me", "next", "partner", "previous")


def _cards(L: Layout, omniscient: bool) -> None:
    if omniscient:
        for s in range(4):
            L.add(f"hand[S{s}]", 32, f"cards seat {s} holds")
        for s in range(4):
            L.add(f"played_by[S{s}]", 32, f"cards seat {s} played this deal (a face-down card included)")
        L.add("trick", 32, "cards in the current trick (a face-down card included)")
        L.add("exposed", 32, "4th/8th cards turned face up at the deal")
        L.add("dealer_seen", 32, "the dealer's side's 4th/8th cards seen by the dealer alone")
        L.add("facedown_card", 32, "the face-down card of the current trick")
        return
    L.add("hand", 32, "cards I hold")
    for r in REL:
        L.add(f"played_by[{r}]", 32, f"cards played this deal by {r}, face up or revealed (current trick included)")
    L.add("trick", 32, "cards I can see in the current trick")
    for r in REL:
        L.add(f"shown[{r}]", 32, f"cards held by {r} that I have seen (exposed; as dealer, partner's 4th/8th)")
    L.add("seen_by_dealer", 32, "my cards the dealer saw privately (I am the dealer's partner)")


def _public(L: Layout, pip_limit: int) -> None:
    # 0/1 slices first (packed into one 64-bit word, see _public_word), then the counters
    L.add("game", 2, "sevens game / no-sevens game")
    L.add("phase", 6, "knocks / calls / naming trumps / face-down signal / trick play / stop or continue")
    L.add("trump", 4, "trump suit C D H S (all 0 until named)")
    L.add("led", 5, "led to the current trick: C D H S plain, or trumps (a face-down lead counts as trumps)")
    for name, meaning in _SEAT_FIELDS:
        L.add(name, 4, f"{meaning}, seat-relative (me, next, partner, previous)")
    L.add("signal", 2, "partner's face-down card is valuable / not valuable (only its leader's partner sees it)")
    L.add("last_loser", 2, "the last scored deal was lost by: my team / their team")
    L.add("last_flags", 3, "last scored deal: sevens game / its declarer lied / its declarer stopped")
    L.add("calls", 4, "calls seat-relative: 0 not yet, 1 pass, N+1 = call N", high=9)
    L.add("high_call", 1, "highest call so far", high=8)
    L.add("tricks_done", 1, "tricks completed this deal", high=8)
    L.add("tricks_won", 2, "tricks won this deal: my team, their team", high=8)
    L.add("card_points", 2, "card points won this deal: my team, their team", high=120)
    L.add("rams", 2, "rams held: my team, their team (clipped)", high=64)
    L.add("pips", 2, "pips: my team, their team (clipped)", high=pip_limit + 6)
    L.add("deals", 1, "deals scored in this match (clipped)", high=255)
    L.add("throw_ins", 1, "consecutive thrown-in deals (clipped)", high=255)
    L.add("last_penalty", 1, "rams or pips the last loser received (clipped)", high=64)


_SEAT_FIELDS = (
    ("dealer", "dealer"),
    ("declarer", "declarer (all 0 until known)"),
    ("leader", "leader of the current trick"),
    ("to_act", "seat to act"),
    ("trick_winner", "seat winning the current trick so far"),
    ("facedown_leader", "seat that led face down to the current trick"),
    ("knocked", "seats that knocked (or knocked back) this deal"),
)
_PUB_BITS = 2 + 6 + 4 + 5 + 4 * len(_SEAT_FIELDS) + 2 + 2 + 3  # 52


def observation_layout(pip_limit: int) -> Layout:
    """Named slices of the observation vector (print with ``Layout.table()``)."""
    L = Layout()
    _cards(L, False)
    _public(L, pip_limit)
    return L


def state_layout(pip_limit: int) -> Layout:
    """Named slices of the perfect-information ``state()`` vector (absolute seats; "me" = seat 0)."""
    L = Layout()
    _cards(L, True)
    _public(L, pip_limit)
    return L

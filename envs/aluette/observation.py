"""Aluette observation and state vectors (``RULES.md`` §7 Information).

Observations are seat-relative: index 0 = me, 1 = next (my left, plays after me), 2 =
partner, 3 = previous. Teams are "mine" then "theirs". Values are small non-negative
integers stored as ``uint8``; each slice's ``high`` bounds it.

The vectors themselves are written by the compiled rules
(:func:`cardzoo.envs.aluette.rules.observe_one`, :func:`~cardzoo.envs.aluette.rules.global_one`);
this module names their slices.
"""

from __future__ import annotations


from ..core.kernel import Layout
from .constants import NUM_SIGNALS, NUM_TRICKS, SIGNALS

REL = ("me", "next", "partner", "previous")
_RES_BITS = 5 * NUM_TRICKS


def _public(L: Layout, signal_meaning: str, score_high: int, deal_high: int, names=REL) -> None:
    L.add("phase", 6, "chant vote / chant discards / signalling round / surrender offers / surrender answer / trick play")
    L.add("dealer", 4, "dealer, seat-relative (me, next, partner, previous)")
    L.add("leader", 4, "leader of the current trick, seat-relative")
    L.add("to_act", 4, "seat to act, seat-relative")
    L.add("trick_top", 4, "seat of the single highest card in the current trick, seat-relative (none if tied)")
    L.add("trick_tied", 1, "the highest power in the current trick is tied (spoiled if it stays so)")
    L.add("chanted", 1, "the chant took place this deal")
    L.add("chant_recipients", 4, "the two seats that received the talon, seat-relative")
    L.add("chant_accepted", 4, "seats that accepted the chant, seat-relative")
    L.add("chant_refused", 4, "seat that refused the chant, seat-relative")
    L.add("surrender_offerer", 4, "seat that offered surrender, seat-relative")
    L.add("surrender_refused", 1, "the offer was refused (the answering team is committed to mordienne)")
    L.add("surrender_accepted", 1, "the offer was accepted (the deal ended)")
    L.add("trick_results", _RES_BITS, "trick t (0-8): 5 entries at 5t: winner me/next/partner/previous, spoiled")
    for r in names:
        L.add(f"signals[{r}]", NUM_SIGNALS, signal_meaning.format(r=r) + " (" + " ".join(SIGNALS) + ")")
    L.add("trick_top_power", 1, "power (§2, 1-19) of the highest card in the current trick (0 when empty)", high=19)
    L.add("cards_in_trick", 1, "cards played to the current trick (0-3)", high=3)
    L.add("tricks_done", 1, "tricks completed this deal", high=9)
    for r in names:
        L.add(f"tricks_won[{r}]", 1, f"tricks won this deal by {r}", high=9)
    L.add("deals", 1, "deals completed in this episode", high=deal_high)
    L.add("deal_points", 2, "points of the last scored deal: my team, their team", high=2)
    L.add("score", 2, "match score: my team, their team (clipped)", high=score_high)


def observation_layout(score_high: int, deal_high: int) -> Layout:
    """Named slices of the observation vector (print with ``Layout.table()``)."""
    L = Layout()
    L.add("hand", 48, "cards I hold")
    L.add("received", 48, "talon cards I received in the chant")
    L.add("discarded", 48, "cards I discarded in the chant")
    for r in REL:
        L.add(f"played_by[{r}]", 48, f"cards played this deal by {r} (current trick included)")
    L.add("trick", 48, "cards in the current trick")
    _public(L, "signals from {r} that I observed (me: the ones I sent)", score_high, deal_high)
    return L


def state_layout(score_high: int, deal_high: int) -> Layout:
    """Named slices of the perfect-information ``state()`` vector (absolute seats, team A = mine)."""
    L = Layout()
    for name, what in (("hand", "holds"), ("played_by", "played this deal"), ("received", "received in the chant"),
                       ("discarded", "discarded in the chant")):
        for s in range(4):
            L.add(f"{name}[S{s}]", 48, f"cards seat {s} {what}")
    L.add("talon", 48, "the 12 talon cards (dealt in the chant or unused)")
    L.add("trick", 48, "cards in the current trick")
    _public(L, "signals sent by {r}", score_high, deal_high, names=("S0", "S1", "S2", "S3"))
    return L

"""``ansi`` rendering of an Ottocento table: declarations, the current trick, tricks and scores."""

from __future__ import annotations

from ..core.cards import TAROCCO62, mask_to_cards, popcount
from ..core.render import box, cards_str, check_view
from .constants import LED_NAMES, PHASE_NAMES
from .scoring import card_points_half

TEAM = ("A", "B")


def render(kernel, st, b: int = 0, view=None) -> str:
    """Text table of game ``b``.

    ``view``: ``None`` shows public information only (hand sizes, declared cards); a seat adds
    that seat's hand (and the discards if it is the dealer); ``"all"`` shows every hand and the
    discards (debugging). Once the deal is scored every component of §6 is shown.
    """
    view = check_view(view, 4)
    d = int(st.dealer[b])
    led = int(st.led[b])
    head = [
        f"phase: {PHASE_NAMES[int(st.phase[b])]}   dealer: S{d}   leader: S{int(st.leader[b])}",
        f"trick {min(int(st.tricks_done[b]) + 1, 15)}/15   suit to follow: {LED_NAMES[led] if led >= 0 else '-'}"
        f"   tricks won A {int(st.tricks_won[b, 0])} - B {int(st.tricks_won[b, 1])}",
        "running score (card points won so far + declarations): "
        + "   ".join(
            f"{TEAM[t]} {card_points_half(st.piles[b, t]) / 2:g} + {int(st.decl_points[b, t] + st.decl_points[b, t + 2])}" for t in range(2)
        ),
    ]
    if kernel.match:
        head.append(f"match score A {st.score[b, 0] / 2:g} - B {st.score[b, 1] / 2:g} (target {kernel.options['match_target']})")
    seats = []
    for s in range(4):
        tag = "*" if not st.done[b] and int(st.current_player[b]) == s else " "
        card = int(st.trick_card[b, s])
        on_table = TAROCCO62.names[card] if card >= 0 else ".."
        if view == "all" or view == s:
            hand = cards_str(TAROCCO62, mask_to_cards(st.hands[b, s]))
        else:
            hand = f"[{int(popcount(st.hands[b, s]))} cards]"
        if st.declared[b, s]:
            decl = f"declared {int(st.decl_points[b, s])}: {cards_str(TAROCCO62, mask_to_cards(st.shown[b, s]))}"
        elif st.decided[b, s]:
            decl = "passed"
        else:
            decl = ""
        seats.append(f"{tag}S{s} ({TEAM[s % 2]})  trick: {on_table:>3}   hand: {hand}" + (f"   [{decl}]" if decl else ""))
    lines = head + seats
    if st.discards[b] and (view == "all" or view == d or st.phase[b] == 3):
        lines.append(f"discards: {cards_str(TAROCCO62, mask_to_cards(st.discards[b]))}")
    if st.deals_played[b] > 0 and st.phase[b] == 3:
        r = kernel.deal_result(st, b)
        for t in range(2):
            lines.append(
                f"team {TEAM[t]}: cards {r['card_points'][t]:g} + captured combinations {r['captured_combinations'][t]}"
                f" + declarations {r['declarations_team'][t]} + last trick {r['last_trick'][t]} = {r['totals'][t]:g}"
            )
        lines.append(f"Matto: {r['matto']}" + (f" ({r['matto_gift']} given)" if r["matto_gift"] else "") + f"; discards to team {r['discards_to']}")
    if st.done[b]:
        w = int(st.winner[b])
        lines.append("episode over: " + (f"team {TEAM[w]} wins" if w >= 0 else "draw") + (" (truncated)" if st.truncated[b] else ""))
    title = "Ottocento" + ("" if view is None else f" - view of S{view}" if view != "all" else " - all hands")
    return box(title, lines)

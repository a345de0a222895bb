"""``ansi`` rendering of an Aluette table (votes, chant, signals, current trick, trick results, scores)."""

from __future__ import annotations

from ..core.cards import SPANISH48, mask_to_cards, popcount
from ..core.render import box, cards_str, check_view
from .constants import NUM_SIGNALS, PHASE_NAMES, SIGNALS

TEAM = ("A", "B")
VOTE = {-1: "", 0: "refused chant", 1: "accepted chant"}


def _signals(bits: int, sender: int) -> list[str]:
    return [SIGNALS[s] for s in range(NUM_SIGNALS) if (bits >> (10 * sender + s)) & 1]


def render(kernel, st, b: int = 0, view=None) -> str:
    """Text table of game ``b``.

    ``view``: ``None`` shows public information only (hand sizes, no cards, no signal unless
    ``signal_visibility="public"``); a seat adds that seat's hand, its chant cards and the
    signals it has observed; ``"all"`` shows every hand and every signal (debugging only).
    """
    view = check_view(view, 4)
    d = int(st.dealer[b])
    res = []
    for t in range(9):
        r = int(st.results[b, t])
        res.append("." if r < 0 else "X" if r == 4 else str(r))
    head = [
        f"phase: {PHASE_NAMES[int(st.phase[b])]}   dealer: S{d}   deal {int(st.deals[b]) + (0 if st.done[b] else 1)}",
        "chant: " + ("yes" if st.chanted[b] else "no"),
        f"tricks (winner seat, X spoiled): {' '.join(res)}   won per seat: {st.won[b].tolist()}",
        f"match score A {int(st.score[b, 0])} - B {int(st.score[b, 1])}",
    ]
    if int(st.offerer[b]) >= 0:
        ans = "accepted" if st.accepted[b] else "refused" if st.refused[b] else "pending"
        head.append(f"surrender offered by S{int(st.offerer[b])}: {ans}")
    seats = []
    for s in range(4):
        tag = "*" if not st.done[b] and int(st.current_player[b]) == s else " "
        card = int(st.trick_card[b, s])
        on_table = SPANISH48.names[card] if card >= 0 else ".."
        if view == "all" or view == s:
            hand = cards_str(SPANISH48, mask_to_cards(st.hands[b, s]))
            if st.chanted[b] and (int(st.received[b, s]) or int(st.discarded[b, s])):
                hand += f"   received: {cards_str(SPANISH48, mask_to_cards(st.received[b, s]))}"
                hand += f"   discarded: {cards_str(SPANISH48, mask_to_cards(st.discarded[b, s]))}"
        else:
            hand = f"[{int(popcount(st.hands[b, s]))} cards]"
        if view == "all":
            sig = [SIGNALS[k] for k in range(NUM_SIGNALS) if (int(st.sent[b, s]) >> k) & 1]
        elif view is None:
            sig = _signals(int(st.heard[b, 0] & st.heard[b, 1] & st.heard[b, 2] & st.heard[b, 3]), s)
        else:
            sig = _signals(int(st.heard[b, view]), s)
        vote = VOTE[int(st.votes[b, s])]
        extra = (f"   {vote}" if vote else "") + (f"   signals: {' '.join(sig)}" if sig else "")
        seats.append(f"{tag}S{s} ({TEAM[s % 2]})  trick: {on_table:>3}   hand: {hand}{extra}")
    lines = head + seats
    if int(st.deals[b]) > 0:
        w = int(st.deal_winner[b])
        pts = st.points[b].tolist()
        lines.append(f"last deal: winner {'S' + str(w) if w >= 0 else 'nobody'}, points A {pts[0]} - B {pts[1]}"
                     + (" (mordienne)" if st.mordienne[b] else ""))
    if st.done[b]:
        w = int(st.winner[b])
        lines.append("episode over" + ({0: ": team A wins the match", 1: ": team B wins the match", 2: ": match drawn"}.get(w, ""))
                     + (" (truncated)" if st.truncated[b] else ""))
    title = "Aluette" + ("" if view is None else f" - view of S{view}" if view != "all" else " - all hands")
    return box(title, lines)

"""``ansi`` rendering of an All Fours table (trump, kicks, current trick, scores)."""

from __future__ import annotations

from ..core.cards import FRENCH52, mask_to_cards, popcount
from ..core.render import box, cards_str, check_view
from .constants import ITEM_NAMES, PHASE_NAMES

TEAM = ("A", "B")


def render(kernel, st, b: int = 0, view=None) -> str:
    """Text table of game ``b``.

    ``view``: ``None`` shows public information only (hand sizes, not cards); a seat shows
    that seat's hand as well; ``"all"`` shows every hand (for debugging; never for a player).
    """
    view = check_view(view, 4)
    d = int(st.dealer[b])
    head = [
        f"phase: {PHASE_NAMES[int(st.phase[b])]}   dealer: S{d}   beggar: S{(d + 1) % 4}",
        f"trump: {FRENCH52.suit_names[int(st.trump[b])]}   kicked: {cards_str(FRENCH52, mask_to_cards(st.kicked[b]))}"
        + ("   (begged" + (", dealer gave one)" if st.gave_one[b] else f", runs {int(st.runs[b])})") if st.begged[b] else ""),
        f"hand points A {int(st.points[b, 0])} - B {int(st.points[b, 1])}   match score A {int(st.score[b, 0])} - B {int(st.score[b, 1])}",
        f"tricks {int(st.tricks_done[b])}/{int(st.hand_size[b])}",
    ]
    seats = []
    for s in range(4):
        tag = "*" if not st.done[b] and int(st.current_player[b]) == s else " "
        card = int(st.trick_card[b, s])
        on_table = FRENCH52.names[card] if card >= 0 else ".."
        if view == "all" or view == s:
            hand = cards_str(FRENCH52, mask_to_cards(st.hands[b, s]))
        else:
            hand = f"[{int(popcount(st.hands[b, s]))} cards]"
        seats.append(f"{tag}S{s} ({TEAM[s % 2]})  trick: {on_table:>3}   hand: {hand}")
    lines = head + seats
    if st.items[b].max() >= 0:
        parts = []
        for k, name in enumerate(ITEM_NAMES):
            t = int(st.items[b, k])
            label = "Hang jack" if k == 2 and st.hang[b] else name
            parts.append(f"{label}: {TEAM[t] if t >= 0 else 'nobody'}")
        lines.append("last hand: " + ", ".join(parts))
    if st.done[b]:
        w = int(st.winner[b])
        lines.append("episode over" + (f": team {TEAM[w]} wins the match" if w >= 0 else "") + (" (truncated)" if st.truncated[b] else ""))
    title = "All Fours" + ("" if view is None else f" - view of S{view}" if view != "all" else " - all hands")
    return box(title, lines)

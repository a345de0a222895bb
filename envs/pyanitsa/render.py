"""``ansi`` rendering of a P'yanitsa table: pile sizes, the last battle, the pot while ordering."""

from __future__ import annotations

from ..core.cards import mask_to_cards
from ..core.render import box, cards_str, check_view


def render(kernel, st, b: int = 0, view=None) -> str:
    """Text table of game ``b``.

    ``view``: ``None`` public information only; a seat adds what that seat privately knows
    (the pot it is ordering and the bottom part of its pile it ordered itself); ``"all"``
    shows every pile in order (debugging; never for a player). ``ValueError`` for another view.
    """
    k = kernel
    view = check_view(view, k.num_players)
    deck = k.deck
    from .kernel import PHASE_NAMES

    lines = [f"battle {int(st.battles[b])}   phase: {PHASE_NAMES[int(st.phase[b])]}"]
    piles = k.piles(st, b) if view is not None else None
    for s in range(k.num_players):
        tag = "*" if not st.done[b] and int(st.current_player[b]) == s else " "
        n = int(st.size[b, s])
        up = cards_str(deck, mask_to_cards(st.face_up[b, s]))
        down = int(st.n_down[b, s])
        line = f"{tag}S{s}  pile: {n:>2} cards{' (out)' if n == 0 else ''}   last battle: up {up}" + (f", {down} down" if down else "")
        if view == "all":
            line += f"   pile: {cards_str(deck, piles[s])}"
        elif view == s and int(st.known[b, s]) > 0:
            kn = int(st.known[b, s])
            line += f"   my ordered bottom: {cards_str(deck, piles[s][n - kn:])}"
        lines.append(line)
    w = int(st.winner[b])
    if int(st.battles[b]) > 0:
        lines.append(f"last battle won by S{w}" if w >= 0 else "last battle: dead (undecidable)")
    if int(st.phase[b]) == 1:
        chooser = int(st.current_player[b])
        if view == "all" or view == chooser:
            lines.append(f"S{chooser} orders the pot: {cards_str(deck, mask_to_cards(st.pot[b]))}")
        else:
            lines.append(f"S{chooser} orders the pot ({bin(int(st.pot[b])).count('1')} cards left)")
    if st.done[b]:
        info = k.info(st, b)
        if st.truncated[b]:
            lines.append(f"game over: truncated ({info['truncation']}), no loser")
        elif st.draw[b]:
            lines.append("game over: draw (dead battle)")
        else:
            lines.append("game over: loser(s) " + ", ".join(f"S{s}" for s in info["losers"]))
    title = "P'yanitsa" + ("" if view is None else f" - view of S{view}" if view != "all" else " - all piles")
    return box(title, lines)

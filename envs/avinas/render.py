"""``ansi`` rendering of an Avinas table (game, calls, knocks, trumps, trick, card points, rams, pips)."""

from __future__ import annotations

from ..core.cards import FRENCH32, mask_to_cards, popcount
from ..core.render import box, cards_str, check_view
from .constants import GAME_NAMES, PHASE_NAMES, SUITS

TEAM = ("A", "B")


def _rams(balance: int) -> str:
    """``"A 3"`` / ``"B 1"`` / ``"-"``: the team holding rams and how many (§6.2)."""
    return f"A {balance}" if balance > 0 else f"B {-balance}" if balance < 0 else "-"


def render(kernel, st, b: int = 0, view=None) -> str:
    """Text table of game ``b`` from ``view`` (§7 decides what each view shows).

    ``None``: public information only. A seat: adds that seat's hand, the partner's hidden
    4th/8th cards if it is the dealer, the face-down card if it led it, the signal if it is
    the leader's partner. ``"all"``: everything (debugging; never for a player).
    """
    view = check_view(view, 4)
    allv = view == "all"
    d = int(st.dealer[b])
    decl = int(st.declarer[b])
    tr = int(st.trump[b])
    calls = []
    for s in range(4):
        c = int(st.calls[b, s])
        calls.append(f"S{s} " + ("-" if c < 0 else "pass" if c == 0 else f"call {c}"))
    knocks = [f"S{s}" for s in range(4) if st.knocked[b, s]]
    head = [
        f"{GAME_NAMES[int(st.game[b])]}   phase: {PHASE_NAMES[int(st.phase[b])]}   dealer: S{d}",
        f"declarer: {'S' + str(decl) if decl >= 0 else '-'}   trump: {SUITS[tr] if tr >= 0 else '-'}"
        + (f"   calls: {', '.join(calls)}" if int(st.game[b]) == 1 else f"   knocks: {' '.join(knocks) or '-'}"),
        f"tricks {int(st.tricks_done[b])}/8   card points A {int(st.points[b, 0])} - B {int(st.points[b, 1])}"
        f"   rams: {_rams(int(st.ram_balance[b]))}"
        f"   pips A {int(st.pips[b, 0])} - B {int(st.pips[b, 1])}",
    ]
    fd = int(st.fd_seat[b])
    seen_dealer = int(st.dealer_seen[b])
    lines = list(head)
    for s in range(4):
        tag = "*" if not st.done[b] and int(st.current_player[b]) == s else " "
        card = int(st.trick_card[b, s])
        if card < 0:
            on_table = ".."
        elif s == fd and not (allv or view == s):
            on_table = "??"
        else:
            on_table = FRENCH32.names[card] + ("(fd)" if s == fd else "")
        held = int(st.hands[b, s])
        if s == fd and not (allv or view == s) and card >= 0:
            held |= 1 << card  # the face-down card stays "held" for the others until the trick ends
        if allv or view == s:
            hand = cards_str(FRENCH32, mask_to_cards(held))
        else:
            hand = f"[{int(popcount(st.hands[b, s]))} cards]"
        shown = held & int(st.exposed[b])
        if view == d or allv:
            shown |= held & seen_dealer
        extra = f"   shown: {cards_str(FRENCH32, mask_to_cards(shown))}" if shown else ""
        lines.append(f"{tag}S{s} ({TEAM[s % 2]})  trick: {on_table:>6}   hand: {hand}{extra}")
    sig = int(st.signal[b])
    if fd >= 0 and sig >= 0 and (allv or view == (fd + 2) % 4):
        lines.append(f"signal to S{(fd + 2) % 4}: the face-down card is {'valuable' if sig else 'not valuable'}")
    if st.last_loser[b] >= 0:
        unit = "rams" if st.last_game[b] == 0 else "pips"
        lines.append(
            f"last deal: team {TEAM[int(st.last_loser[b])]} lost, {int(st.last_penalty[b])} {unit}"
            + (" (declarer lied)" if st.last_lied[b] else "") + (" (declarer stopped)" if st.last_stopped[b] else "")
        )
    if st.done[b]:
        w = int(st.winner[b])
        won = f": team {TEAM[w]} wins the match" + (" (clean)" if st.clean[b] else "") if w >= 0 else ""
        lines.append("episode over" + won + (" (truncated)" if st.truncated[b] else ""))
    title = "Avinas" + ("" if view is None else f" - view of S{view}" if not allv else " - all hands")
    return box(title, lines)

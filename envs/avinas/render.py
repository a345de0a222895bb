"""``ansi`` rendering of an Avinas table (game, calls, knocks, trumps, trick, card points, rams, pips)."""

from __future__ import annotations

from ..core.cards import FRENCH32, mask_to_cards, popcount
from ..core.render import (
    box,
    cards_str,
    check_view,
    count_text,
    fact,
    last_trick_winner,
    score_line,
    seat_name,
    seat_view,
    summary_dict,
    summary_due,
    trick_in_order,
    view_args,
)
from .constants import (
    CALLING,
    DECLARING,
    GAME_NAMES,
    KNOCKING,
    OVER,
    PHASE_NAMES,
    PLAY,
    SEVENS,
    SIGNAL,
    STOPPING,
    SUITS,
)

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
            hand = f"[{count_text(popcount(st.hands[b, s]))}]"
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


#: phase keys of :func:`table_view` (snake_case, translated by the web front end)
PHASE_KEYS = {
    KNOCKING: "knocks",
    CALLING: "calls",
    DECLARING: "name_trumps",
    SIGNAL: "facedown_signal",
    PLAY: "play",
    STOPPING: "stop_or_continue",
    OVER: "over",
}
SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades", "trumps")


def table_view(kernel, st, b: int, seat: int) -> dict:
    """What ``seat`` sees of game ``b`` (``Kernel.table_view``; RULES.md §7 decides what is public).

    Shown: ``seat``'s hand; every hand size; ``exposed[s]``: the cards of seat ``s`` that ``seat``
    has seen (the exposed 4th/8th cards, and for the dealer his side's hidden key cards, §3.3; an
    exposed card led face down stays listed until its trick ends, §11.12); the current trick in
    play order, a face-down lead being card ``None`` for everyone but its leader (§5); the winner of
    the last completed trick (its cards are not kept in the state: ``last_trick["cards"]`` is empty);
    facts: game type, trumps, declarer, calls (no-sevens game), knocks and stake (sevens game), trick
    number, leader, suit to follow, who led face down, the valuable bit (to the leader's partner
    only), the own cards the dealer saw (to the dealer's partner only), consecutive throw-ins;
    scores per team: card points and tricks of this deal, rams held, pips. ``summary`` once a deal is
    scored (in a match, until the next deal's first trick is complete): card points and tricks per
    team (while that deal is still on the table), the rams or pips awarded, and whether the declarer
    lied or stopped (facts). Never shown: other unseen cards, a face-down card before its trick ends
    (except to its leader), the bit to anyone but the partner.

    Raises ``ValueError`` for a seat outside 0..3 or a game index outside the batch.
    """
    b, seat = view_args(kernel, st, b, seat)
    phase = int(st.phase[b])
    done = bool(st.done[b])
    dealer = int(st.dealer[b])
    game = int(st.game[b])
    decl = int(st.declarer[b])
    trump = int(st.trump[b])
    fd = int(st.fd_seat[b])
    leader = int(st.leader[b])
    tricks_done = int(st.tricks_done[b])
    facts = [fact("game", GAME_NAMES[game])]
    if trump >= 0:
        facts.append(fact("trump", SUIT_WORDS[trump]))
    if decl >= 0:
        facts.append(fact("declarer", seat_name(decl)))
    if game == SEVENS:
        knocks = [seat_name(s) for s in range(4) if st.knocked[b, s]]
        facts.append(fact("knocks", ", ".join(knocks) if knocks else "none"))
        facts.append(fact("stake", 2 ** len(knocks)))
    else:
        order = [(dealer + 1 + i) % 4 for i in range(4)]
        acted = [s for s in order if int(st.calls[b, s]) >= 0]
        calls = [f"{seat_name(s)} " + ("pass" if int(st.calls[b, s]) == 0 else str(int(st.calls[b, s]))) for s in acted]
        if calls:
            facts.append(fact("calls", ", ".join(calls)))
        if int(st.high_call[b]) > 0:
            facts.append(fact("high_call", int(st.high_call[b])))
    if phase in (PLAY, SIGNAL, STOPPING):
        facts.append(fact("trick_number", f"{min(tricks_done + 1, 8)}/8"))
        facts.append(fact("leader", seat_name(leader)))
        led = int(st.led[b])
        if led >= 0:
            facts.append(fact("suit_to_follow", SUIT_WORDS[led]))
    if fd >= 0:
        facts.append(fact("face_down_lead", seat_name(fd)))
        sig = int(st.signal[b])
        if sig >= 0 and seat == (fd + 2) % 4:
            facts.append(fact("facedown_signal", "valuable" if sig else "not valuable"))
    hand = int(st.hands[b, seat])
    if seat == (dealer + 2) % 4 and hand & int(st.dealer_seen[b]):
        facts.append(fact("seen_by_dealer", cards_str(FRENCH32, mask_to_cards(hand & int(st.dealer_seen[b])))))
    if int(st.throw_ins[b]) > 0:
        facts.append(fact("throw_ins", int(st.throw_ins[b])))
    if kernel.match:
        facts.append(fact("pip_limit", kernel.options["pip_limit"]))
        facts.append(fact("deals_played", int(st.deals[b])))
    rb = int(st.ram_balance[b])
    scores = [
        score_line("card_points", [int(st.points[b, t]) for t in range(2)]),
        score_line("tricks_won", [int(st.tricks_won[b, t]) for t in range(2)]),
        score_line("rams", [max(rb, 0), max(-rb, 0)]),
        score_line("pips", [int(st.pips[b, t]) for t in range(2)]),
    ]
    summary = None
    loser = int(st.last_loser[b])
    if summary_due(int(loser >= 0), phase == OVER, kernel.match, tricks_done):
        pen = [0, 0]
        pen[loser] = int(st.last_penalty[b])
        lines = []
        if phase == OVER:  # the scored deal is still on the table (a match deals the next one at once)
            lines.append(score_line("card_points", [int(st.points[b, t]) for t in range(2)]))
            lines.append(score_line("tricks_won", [int(st.tricks_won[b, t]) for t in range(2)]))
        lines.append(score_line("rams" if int(st.last_game[b]) == SEVENS else "pips", pen))
        summary = summary_dict("deal_result", lines, f"team_{1 - loser}_wins")
        summary["explain"] = _explain(st, b, phase == OVER)
        if st.last_lied[b]:
            facts.append(fact("declarer_lied", "yes"))
        if st.last_stopped[b]:
            facts.append(fact("declarer_stopped", "yes"))
    if done and int(st.winner[b]) >= 0:
        facts.append(fact("match_winner", "AB"[int(st.winner[b])] + (" (clean)" if st.clean[b] else "")))
    # what ``seat`` has seen of each hand (RULES.md §3.3, §11.12), as in the observation's shown[...]
    seen = int(st.exposed[b]) | (int(st.dealer_seen[b]) if seat == dealer else 0)
    exposed = []
    for s in range(4):
        held = int(st.hands[b, s])
        if s == fd and s != seat and int(st.trick_card[b, s]) >= 0:
            held |= 1 << int(st.trick_card[b, s])
        exposed.append(mask_to_cards(held & seen))
    return seat_view(
        kernel, st, b, seat,
        exposed=exposed,
        trick=trick_in_order(st.trick_card[b], leader, int(st.n_in_trick[b]), hidden_seat=fd if fd != seat else None),
        last_trick=last_trick_winner(leader) if tricks_done > 0 else None,
        phase=PHASE_KEYS[phase],
        facts=facts,
        scores=scores,
        summary=summary,
    )


def _explain(st, b: int, on_table: bool) -> list[dict]:
    """What decided the last scored deal (§6), from the state: ``[{"key", "args"}]``. Keys:
    ``av_target_61`` / ``av_target_all`` (team, seat: the declarer; all eight tricks after his team
    knocked), ``av_took`` (team, points, tricks), ``av_lied`` / ``av_stopped`` (seat),
    ``av_rams`` (team, n, knocks) / ``av_rams_written`` (team, n) / ``av_pips`` (team, n) /
    ``av_pips_detail`` (team, n, points, tricks: the loser's). The deal's
    own lines need it on the table (``on_table``); in a match, once the next deal has begun, only
    the rams or pips written are left."""
    out = []
    loser = int(st.last_loser[b])
    pen = int(st.last_penalty[b])
    sevens = int(st.last_game[b]) == SEVENS
    knocks = int(st.knocked[b].sum())
    if on_table:
        decl = int(st.declarer[b])
        dteam = decl % 2
        decl_knock = bool(st.knocked[b, decl] or st.knocked[b, (decl + 2) % 4])
        key = "av_target_all" if sevens and decl_knock else "av_target_61"
        out.append({"key": key, "args": {"team": "AB"[dteam], "seat": seat_name(decl)}})
        out.append(
            {"key": "av_took", "args": {"team": "AB"[dteam], "points": int(st.points[b, dteam]), "tricks": int(st.tricks_won[b, dteam])}}
        )
        if st.last_lied[b]:
            out.append({"key": "av_lied", "args": {"seat": seat_name(decl)}})
        if st.last_stopped[b]:
            out.append({"key": "av_stopped", "args": {"seat": seat_name(decl)}})
    if sevens:  # the knocks are known while the deal is on the table only (a match deals the next one)
        if on_table:
            out.append({"key": "av_rams", "args": {"team": "AB"[loser], "n": pen, "knocks": knocks}})
        else:
            out.append({"key": "av_rams_written", "args": {"team": "AB"[loser], "n": pen}})
    else:
        args = {"team": "AB"[loser], "n": pen}
        if on_table:
            args.update(points=int(st.points[b, loser]), tricks=int(st.tricks_won[b, loser]))
        out.append({"key": "av_pips_detail" if on_table else "av_pips", "args": args})
    return out

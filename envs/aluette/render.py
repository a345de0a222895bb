"""``ansi`` rendering of an Aluette table (votes, chant, signals, current trick, trick results, scores)."""

from __future__ import annotations

from ..core.cards import SPANISH48, mask_to_cards, popcount
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
from . import constants as _c
from .constants import NUM_SIGNALS, NUM_TRICKS, PHASE_NAMES, SIGNALS

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
            hand = f"[{count_text(popcount(st.hands[b, s]))}]"
        if view == "all":
            sig = [SIGNALS[k] for k in range(NUM_SIGNALS) if (int(st.sent[b, s]) >> k) & 1]
        elif view is None:  # public: only with signal_visibility="public" (a signal every seat caught is still not public, §4.5)
            sig = _signals(int(st.heard[b, 0]), s) if kernel.options["signal_visibility"] == "public" else []
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


#: phase keys of :func:`table_view` (snake_case, translated by the web front end)
PHASE_KEYS = {
    _c.VOTE: "chant_vote",
    _c.DISCARD: "chant_discard",
    _c.SIGNAL: "signals",
    _c.OFFER: "surrender_offer",
    _c.ANSWER: "surrender_answer",
    _c.PLAY: "play",
    _c.OVER: "over",
}
_SPOILED = 4  # ``results`` value of a spoiled trick


def table_view(kernel, st, b: int, seat: int) -> dict:
    """What ``seat`` sees of game ``b`` (``Kernel.table_view``; RULES.md §7 decides what is public).

    Shown: ``seat``'s hand (15 cards while it discards in the chant); every hand size; no exposed
    cards (Aluette never shows a held card); the current trick in play order; the last completed
    trick's winner (``None`` when spoiled; its cards are not kept in the state, so
    ``last_trick["cards"]`` is empty); facts: chant votes, whether the chant happened and its two
    recipients, ``seat``'s own talon cards and chant discards, the signals ``seat`` sent and those it
    received (exactly its observation: its partner's, everyone's with ``"public"``, an opponent's
    only if caught), the surrender offer and answer, trick number and leader, every trick's result
    in order, spoiled tricks, tricks per player; scores per team: the match score. ``summary`` once
    a deal is scored (in a match, until the next deal's first trick is complete): tricks per player
    by team (while that deal is on the table) and the deal's points per team, with the deal winner
    and mordienne as facts. Never shown: other hands, other chant cards or discards, the unused
    talon, a signal ``seat`` did not observe.

    Raises ``ValueError`` for a seat outside 0..3 or a game index outside the batch.
    """
    b, seat = view_args(kernel, st, b, seat)
    phase = int(st.phase[b])
    done = bool(st.done[b])
    dealer = int(st.dealer[b])
    leader = int(st.leader[b])
    tricks_done = int(st.tricks_done[b])
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    facts = []
    votes = [
        f"{seat_name(s)} " + ("accepted" if int(st.votes[b, s]) == 1 else "refused") for s in order if int(st.votes[b, s]) >= 0
    ]
    if votes:
        facts.append(fact("chant_votes", ", ".join(votes)))
    if st.chanted[b]:
        second = (dealer + kernel.second_offset) % 4
        facts.append(fact("chant", "yes"))
        facts.append(fact("chant_recipients", f"{seat_name(order[0])}, {seat_name(second)}"))
        if int(st.received[b, seat]):
            facts.append(fact("talon_received", cards_str(SPANISH48, mask_to_cards(st.received[b, seat]))))
        if int(st.discarded[b, seat]):
            facts.append(fact("discarded", cards_str(SPANISH48, mask_to_cards(st.discarded[b, seat]))))
    elif (st.votes[b] == 0).any():
        facts.append(fact("chant", "no"))
    heard = int(st.heard[b, seat])
    mine = _signals(heard, seat)
    if mine:
        facts.append(fact("signals_sent", ", ".join(mine)))
    for s in order:
        got = _signals(heard, s) if s != seat else []
        if got:
            facts.append(fact("signals_received", f"{seat_name(s)}: {', '.join(got)}"))
    offerer = int(st.offerer[b])
    if offerer >= 0:
        facts.append(fact("surrender_offered_by", seat_name(offerer)))
        facts.append(fact("surrender", "accepted" if st.accepted[b] else "refused" if st.refused[b] else "pending"))
    if phase == _c.PLAY:
        facts.append(fact("trick_number", f"{tricks_done + 1}/{NUM_TRICKS}"))
        facts.append(fact("leader", seat_name(leader)))
    results = [int(r) for r in st.results[b, :tricks_done]]
    if results:
        facts.append(fact("trick_results", ", ".join("spoiled" if r == _SPOILED else seat_name(r) for r in results)))
        facts.append(fact("tricks_per_player", ", ".join(f"{seat_name(s)} {int(st.won[b, s])}" for s in range(4))))
        spoiled = results.count(_SPOILED)
        if spoiled:
            facts.append(fact("spoiled_tricks", spoiled))
    if kernel.match:
        total = kernel.options["match_deals"] if kernel.target is None else None
        n = int(st.deals[b]) + (0 if done else 1)
        facts.append(fact("deal_number", f"{n}/{total}" if total else n))
        if kernel.target is not None:
            facts.append(fact("match_target", kernel.target))
    scores = [score_line("match_score", [int(st.score[b, t]) for t in range(2)])]
    summary = None
    if summary_due(int(st.deals[b]), phase == _c.OVER, kernel.match, tricks_done):
        pts = [int(st.points[b, t]) for t in range(2)]
        lines = []
        if phase == _c.OVER:  # the scored deal is still on the table (a match deals the next one at once)
            per_team = [", ".join(f"{seat_name(s)} {int(st.won[b, s])}" for s in team) for team in kernel.teams]
            lines.append(score_line("tricks_per_player", per_team))
        lines.append(score_line("points", pts))
        w = int(st.deal_winner[b])
        facts.append(fact("deal_winner", seat_name(w) if w >= 0 else "nobody"))
        facts.append(fact("mordienne", "yes" if st.mordienne[b] else "no"))
        result = "team_0_wins" if pts[0] > pts[1] else "team_1_wins" if pts[1] > pts[0] else "nobody_scores"
        summary = summary_dict("deal_result", lines, result)
        summary["explain"] = _explain(st, b, phase == _c.OVER)
    if done and kernel.match:
        facts.append(fact("match_result", ("running", "team A wins", "team B wins", "draw")[int(st.winner[b]) + 1]))
    last = None
    if tricks_done > 0:
        r = int(st.results[b, tricks_done - 1])
        last = last_trick_winner(None if r == _SPOILED else r)
    return seat_view(
        kernel, st, b, seat,
        exposed=[[] for _ in range(4)],
        trick=trick_in_order(st.trick_card[b], leader, int(st.n_in_trick[b])),
        last_trick=last,
        phase=PHASE_KEYS[phase],
        facts=facts,
        scores=scores,
        summary=summary,
    )


def _explain(st, b: int, on_table: bool) -> list[dict]:
    """What decided the last scored deal (§6), from the state: ``[{"key", "args"}]``. Keys:
    ``al_tricks`` (list: tricks per player, e.g. ``"S0 3, S1 2, S2 0, S3 1"``), ``al_spoiled`` (n),
    ``al_winner`` (seat, team, points; ``al_winner_detail`` adds n: his tricks), ``al_mordienne``
    (seat; ``al_mordienne_detail`` adds first: the trick from which he took every trick), ``al_surrender`` (team, points: an accepted surrender),
    ``al_nobody`` (every trick spoiled). After a refused surrender the points do not follow the deal
    winner's team (§6): ``al_first`` (seat; ``al_first_detail`` adds n) names the deal winner
    without points, and ``al_refused_made`` (team, points: the refusing team made mordienne) or
    ``al_refused_failed`` (team, points: the offering team scores) says who scored and why. The per-trick lines need the deal on the table
    (``on_table``); in a match they are left out once the next deal has begun, and as that deal
    clears the surrender record, the surrender lines then follow from the points."""
    out = []
    pts = [int(st.points[b, t]) for t in range(2)]
    team = 0 if pts[0] > pts[1] else 1 if pts[1] > pts[0] else -1
    tricks = int(st.tricks_done[b])
    if on_table:
        out.append({"key": "al_tricks", "args": {"list": ", ".join(f"{seat_name(s)} {int(st.won[b, s])}" for s in range(4))}})
        spoiled = sum(1 for r in st.results[b, :tricks] if int(r) == _SPOILED)
        if spoiled:
            out.append({"key": "al_spoiled", "args": {"n": spoiled}})
    w = int(st.deal_winner[b])
    if on_table:
        accepted, refused = bool(st.accepted[b]), bool(st.refused[b])
        made = refused and team == (int(st.offerer[b]) + 1) % 2
    else:  # the next deal has cleared the surrender record; the points tell (§6): an accepted offer
        # gives 1 and no deal winner, a refused one 2, to the winner's team only with mordienne
        won = pts[w % 2] if w >= 0 else 0
        accepted = w < 0 and team >= 0 and pts[team] == 1
        refused = (w < 0 and team >= 0 and pts[team] == 2) or (w >= 0 and (won == 0 or (won == 2 and not st.mordienne[b])))
        made = False  # a refusing team that made mordienne reads as a mordienne win (al_winner, al_mordienne)
    if w >= 0:
        if refused:  # the points follow the refused surrender (§6), not the winner's team
            args = {"seat": seat_name(w)}
            if on_table:
                args["n"] = int(st.won[b, w])
            out.append({"key": "al_first_detail" if on_table else "al_first", "args": args})
        else:
            args = {"seat": seat_name(w), "team": "AB"[w % 2], "points": pts[w % 2]}
            if on_table:
                args["n"] = int(st.won[b, w])
            out.append({"key": "al_winner_detail" if on_table else "al_winner", "args": args})
        if st.mordienne[b]:
            margs = {"seat": seat_name(w)}
            if on_table:
                res = [int(r) for r in st.results[b, :tricks]]
                first = len(res)
                while first > 0 and res[first - 1] == w:
                    first -= 1
                margs["first"] = first + 1
            out.append({"key": "al_mordienne_detail" if on_table else "al_mordienne", "args": margs})
    elif accepted:
        out.append({"key": "al_surrender", "args": {"team": "AB"[team], "points": pts[team]}})
    elif not refused:
        out.append({"key": "al_nobody", "args": {}})
    if refused:  # §6: 2 to the refusing team if it made mordienne, else 2 to the offering team
        out.append({"key": "al_refused_made" if made else "al_refused_failed", "args": {"team": "AB"[team], "points": pts[team]}})
    return out

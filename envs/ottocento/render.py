"""``ansi`` rendering of an Ottocento table: declarations, the current trick, tricks and scores."""

from __future__ import annotations

import numpy as np

from ..core.cards import TAROCCO62, mask_to_cards, popcount
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
    team_result,
    trick_in_order,
    view_args,
)
from .combos import SEQ_NAMES, SET_NAMES, combo_breakdown
from .constants import DECLARING, DISCARD, LED_NAMES, MAT, OVER, PHASE_NAMES, PLAY
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
            hand = f"[{count_text(popcount(st.hands[b, s]))}]"
        if st.declared[b, s]:
            decl = f"declared {int(st.decl_points[b, s])}: {cards_str(TAROCCO62, mask_to_cards(st.shown[b, s]))}"
        elif st.decided[b, s]:
            decl = "passed"
        else:
            decl = ""
        seats.append(f"{tag}S{s} ({TEAM[s % 2]})  trick: {on_table:>3}   hand: {hand}" + (f"   [{decl}]" if decl else ""))
    lines = head + seats
    by_declaration = kernel.ended_by_declaration(st, b)
    if st.discards[b] and (view == "all" or view == d or (st.phase[b] == 3 and not by_declaration)):
        lines.append(f"discards: {cards_str(TAROCCO62, mask_to_cards(st.discards[b]))}")
    if by_declaration:
        lines.append("the match ended on a declaration before this deal was played (RULES.md 11.5)")
    elif st.deals_played[b] > 0 and st.phase[b] == 3:
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


#: phase keys of :func:`table_view` (snake_case, translated by the web front end)
PHASE_KEYS = {DISCARD: "discard", DECLARING: "declarations", PLAY: "play", OVER: "over"}
SUIT_WORDS = ("swords", "batons", "cups", "coins", "trumps")
MATTO_FATE = ("kept by its team", "returned for a gift card", "stayed with the opponents", "captured by the opponents")


def table_view(kernel, st, b: int, seat: int) -> dict:
    """What ``seat`` sees of game ``b`` (``Kernel.table_view``; RULES.md §7 decides what is public).

    Shown: ``seat``'s hand; every hand size; the declared cards still held (``exposed``, §4.1); the
    current trick in play order; the winner of the last completed trick (the state keeps no record
    of its cards, so ``last_trick["cards"]`` is empty); facts: trick number, leader, suit to follow,
    every declaration decision with its points and cards, who played the Matto and who won its
    trick, the dealer's two discards (to the dealer only, to everyone once the deal is scored, §3.5);
    running scores per team: card points won in tricks so far, declarations, tricks won (and the
    match score in match mode). ``summary`` once a deal is scored (and, in match mode, until trick 1
    of the next deal is complete): card points, captured combinations, declarations, last trick and
    total per team (§6), with the Matto settlement and where the discards went as facts.
    Never shown: other hands (except declared cards), the discards before the end (except to the
    dealer), each hand's undeclared worth, who holds the Matto before it is played.

    Raises ``ValueError`` for a seat outside 0..3 or a game index outside the batch.
    """
    b, seat = view_args(kernel, st, b, seat)
    names = TAROCCO62.names
    phase = int(st.phase[b])
    done = bool(st.done[b])
    dealer = int(st.dealer[b])
    tricks_done = int(st.tricks_done[b])
    leader = int(st.leader[b])
    facts = []
    if phase in (DECLARING, PLAY):
        facts.append(fact("trick_number", f"{tricks_done + 1}/15"))
        facts.append(fact("leader", seat_name(leader)))
        led = int(st.led[b])
        if led >= 0:
            facts.append(fact("suit_to_follow", SUIT_WORDS[led]))
    for s in range(4):
        if st.declared[b, s]:
            shown = cards_str(TAROCCO62, mask_to_cards(st.shown[b, s]))
            facts.append(fact("declaration", f"{seat_name(s)} {int(st.decl_points[b, s])}: {shown}"))
        elif st.decided[b, s]:
            facts.append(fact("declaration", f"{seat_name(s)} pass"))
    mat_by = [s for s in range(4) if (int(st.played[b, s]) >> MAT) & 1]
    if mat_by:
        facts.append(fact("matto_played_by", seat_name(mat_by[0])))
        if int(st.matto_winner[b]) >= 0:
            facts.append(fact("matto_trick_won_by", seat_name(int(st.matto_winner[b]))))
    if int(st.discards[b]) and (seat == dealer or (phase == OVER and not kernel.ended_by_declaration(st, b))):
        facts.append(fact("discards", cards_str(TAROCCO62, mask_to_cards(st.discards[b]))))
    if kernel.match:
        facts.append(fact("match_target", kernel.options["match_target"]))
        facts.append(fact("deals_played", int(st.deals_played[b])))
    scores = [
        score_line("card_points", [card_points_half(st.piles[b, t]) / 2 for t in range(2)]),
        score_line("declarations", [int(st.decl_points[b, t]) + int(st.decl_points[b, t + 2]) for t in range(2)]),
        score_line("tricks_won", [int(st.tricks_won[b, t]) for t in range(2)]),
    ]
    if kernel.match:
        scores.append(score_line("match_score", [st.score[b, t] / 2 for t in range(2)]))
    summary = None
    if kernel.ended_by_declaration(st, b):  # §11.5 declarations_win_immediately: the match ends before the deal is played
        decl = [int(st.decl_points[b, t]) + int(st.decl_points[b, t + 2]) for t in range(2)]
        w = int(st.winner[b])
        summary = summary_dict(
            "match_won_by_declarations",
            [score_line("declarations", decl), score_line("match_score", [st.score[b, t] / 2 for t in range(2)])],
            f"team_{w}_wins" if w >= 0 else "draw",
        )
    elif summary_due(int(st.deals_played[b]), phase == OVER, kernel.match, tricks_done):
        r = kernel.deal_result(st, b)
        summary = summary_dict(
            "deal_result",
            [
                score_line("card_points", r["card_points"]),
                score_line("captured_combinations", r["captured_combinations"]),
                score_line("declarations", r["declarations_team"]),
                score_line("last_trick", r["last_trick"]),
                score_line("total", r["totals"]),
            ],
            team_result(r["totals"]),
        )
        summary["explain"] = _explain(kernel, st, b, r, phase == OVER)
        # in a match the summary stays into the next deal's first trick: these are then the last deal's
        last = "" if phase == OVER else "last_deal_"
        facts.append(fact(last + "matto", MATTO_FATE[int(st.matto_fate[b])]))
        if int(st.gift[b]) >= 0:
            facts.append(fact(last + "matto_gift", names[int(st.gift[b])]))
        if int(st.discards_to[b]) >= 0:
            facts.append(fact(last + "discards_to_team", "AB"[int(st.discards_to[b])]))
    if phase == DECLARING and not done and int(st.current_player[b]) == seat:
        # what DECLARE would show and score (§4.1), by the kernel's own scorer: seat's own hand only
        facts.append(fact("declare_preview_points", int(st.decl_value[b, seat])))
        facts.append(fact("declare_preview_cards", cards_str(TAROCCO62, mask_to_cards(st.decl_cards[b, seat]))))
        items, _ = combo_items(int(st.hands[b, seat]), kernel)
        if sum(p for _, p in items) and items:
            facts.append(fact("declare_preview_combos", ", ".join(f"{n} {p}" for n, p in items)))
    if phase == DISCARD and not done and int(st.current_player[b]) == seat:
        # §3.3: how many cards the dealer still discards, and which may not be discarded
        held = int(st.hands[b, seat])
        facts.append(fact("discards_left", 2 - int(popcount(np.uint64(int(st.discards[b]))))))
        legal = set(int(a) for a in np.flatnonzero(kernel.legal_actions(st)[b]))
        barred = [c for c in mask_to_cards(held) if c not in legal]
        if barred:
            facts.append(fact("may_not_discard", cards_str(TAROCCO62, barred)))
    return seat_view(
        kernel, st, b, seat,
        exposed=[mask_to_cards(st.hands[b, s] & st.shown[b, s]) for s in range(4)],
        trick=trick_in_order(st.trick_card[b], leader, int(st.n_in_trick[b])),
        last_trick=last_trick_winner(leader) if tricks_done > 0 else None,
        phase=PHASE_KEYS[phase],
        facts=facts,
        scores=scores,
        summary=summary,
    )


def combo_items(cards: int, kernel) -> tuple[list[tuple[str, int]], int]:
    """The scoring combinations of the collection ``cards`` (a bitboard) by the kernel's scorer
    (:func:`~cardzoo.envs.ottocento.combos.combo_breakdown`, §4.4): ``([(name, points)], total)``,
    the names from ``SET_NAMES``/``SEQ_NAMES`` and ``"sets doubled"`` / ``"sequences doubled"``
    lines for the doublings (their points are the subtotal added again)."""
    bd = combo_breakdown(np.uint64(cards), kernel.options["natural_skip_counts_as_gap"])
    items = []
    sets = [int(v) for v in bd.sets]
    seqs = [int(v) for v in bd.seqs]
    for name, v in zip(SET_NAMES, sets):
        if v:
            items.append((name, v))
    if bool(bd.sets_doubled):
        items.append(("sets doubled", sum(sets)))
    for name, v in zip(SEQ_NAMES, seqs):
        if v:
            items.append((name if name[0].isupper() else f"{name} sequence", v))
    if bool(bd.seqs_doubled):
        items.append(("sequences doubled", sum(seqs)))
    return items, int(bd.total)


def _explain(kernel, st, b: int, r: dict, on_table: bool) -> list[dict]:
    """What scored in the last scored deal and why (§6), from the state and the kernel's scorer:
    ``[{"key", "args"}]``. Keys: ``oc_declared`` (seat, points, combos), ``oc_captured`` (team,
    points, combos), ``oc_tricks_points`` (a, b: card points of the cards won in tricks),
    ``oc_discards`` (team, points, cards), ``oc_matto`` (fate, a, b: the card-point change of the
    settlement; ``oc_matto_gift`` adds gift: the card given in exchange), ``oc_last_trick`` (team, points). The card-point lines need the deal on the
    table (``on_table``); in a match they are left out once the next deal has begun."""
    out = []
    for s in range(4):
        pts = int(st.decl_points[b, s])
        if not pts:
            continue
        hand = int(st.dealt[b, s]) & ~int(st.discards[b])
        items, total = combo_items(hand, kernel)
        if on_table and total == pts:
            combos = ", ".join(f"{n} {p}" for n, p in items)
            out.append({"key": "oc_declared", "args": {"seat": seat_name(s), "points": pts, "combos": combos}})
        else:  # a match's next deal: the declared hand is no longer in the state
            out.append({"key": "oc_declared_total", "args": {"seat": seat_name(s), "points": pts}})
    for t in range(2):
        items, total = combo_items(int(st.final_piles[b, t]), kernel)
        if total:
            out.append({"key": "oc_captured", "args": {"team": TEAM[t], "points": total, "combos": ", ".join(f"{n} {p}" for n, p in items)}})
    if on_table:
        tricks = [int(card_points_half(st.piles[b, t])) for t in range(2)]
        out.append({"key": "oc_tricks_points", "args": {"a": _half(tricks[0]), "b": _half(tricks[1])}})
        disc = int(st.discards[b])
        dt = int(st.discards_to[b])
        moved = [0, 0]
        if disc and dt >= 0:
            moved[dt] = int(card_points_half(np.uint64(disc)))
            out.append(
                {"key": "oc_discards", "args": {"team": TEAM[dt], "points": _half(moved[dt]), "cards": cards_str(TAROCCO62, mask_to_cards(disc))}}
            )
        final = [int(v) for v in st.res_cards[b]]
        change = [final[t] - tricks[t] - moved[t] for t in range(2)]
        gift = int(st.gift[b])
        args = {"fate": MATTO_FATE[int(st.matto_fate[b])], "a": _half(change[0]), "b": _half(change[1])}
        if gift >= 0:
            args["gift"] = TAROCCO62.names[gift]
        out.append({"key": "oc_matto_gift" if gift >= 0 else "oc_matto", "args": args})
    last = [int(v) for v in r["last_trick"]]
    for t in range(2):
        if last[t]:
            out.append({"key": "oc_last_trick", "args": {"team": TEAM[t], "points": last[t]}})
    return out


def _half(h: int):
    """Half-points as points: an int when whole, else a float ending in .5."""
    return h // 2 if h % 2 == 0 else h / 2

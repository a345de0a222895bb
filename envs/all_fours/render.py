"""``ansi`` rendering of an All Fours table (trump, kicks, current trick, scores)."""

from __future__ import annotations

from ..core.cards import FRENCH52, mask_to_cards, popcount
from ..core.render import box, cards_str, check_view, count_text
from .constants import BEG_DECISION, DEALER_DECISION, FIRST_KICK, ITEM_NAMES, PHASE_NAMES, PLAY, RUN_KICKS

TEAM = ("A", "B")
#: ``table_view`` phase keys by phase index (§4, §5)
PHASE_KEYS = ("stand_or_beg", "give_one_or_run", "play", "over")


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
            hand = f"[{count_text(popcount(st.hands[b, s]))}]"
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


def _trick(cards, leader: int) -> list[dict]:
    """``[{"seat", "card"}]`` of the cards in ``cards`` (card per seat, -1 none) in play order from ``leader``."""
    order = [(leader + i) % 4 for i in range(4)]
    return [{"seat": s, "card": int(cards[s])} for s in order if int(cards[s]) >= 0]


def _ended_before_play(kernel, st, b: int) -> bool:
    """A match that a hand's kicks or give-one ended before its first card was played (§3 step 4,
    §6 counting order): the last scored hand (if any) is an earlier one."""
    return bool(kernel.match and st.done[b] and not st.truncated[b] and int(st.winner[b]) >= 0
                and int(st.tricks_done[b]) == 0 and int(st.n_in_trick[b]) == 0)


def _credited(kernel, st, b: int) -> int:
    """How many of the last scored hand's items (High, Low, Jack, Game, §6 counting order) were
    credited: fewer than 4 when the match was won at one of them; all 4 when a later hand's kicks or
    give-one ended it (that hand is then not the one scored)."""
    return 4 if _ended_before_play(kernel, st, b) else int(st.credited[b])


def _summary(kernel, st, b: int) -> dict:
    """The scored hand (§6): High, Low, Jack or Hang jack, Game per team, the kicks and give-one
    points, the hand's total; ``result`` names the winning team of the hand (or of the match).

    When a match ends on the kicks or give-one of a hand that is never played (§3 step 4), the lines
    are those of the last scored hand, and the explanation ends with ``af_next_not_played`` (the
    unplayed hand's points and the winning team); if no hand was scored yet, the lines are that
    unplayed hand's (its kicks and give-one, nothing else) and the explanation is ``af_not_played``."""
    o = kernel.options
    if _ended_before_play(kernel, st, b) and int(st.hands_played[b]) == 0:
        pts = [int(p) for p in st.points[b]]
        zero = ["0", "0"]
        lines = [{"key": key, "values": zero} for key in ("high", "low", "jack", "game")]
        lines.append({"key": "kicks_and_give_one", "values": [str(p) for p in pts]})
        lines.append({"key": "game_value", "values": zero})
        lines.append({"key": "hand_points", "values": [str(p) for p in pts]})
        explain = [{"key": "af_not_played", "args": {"a": pts[0], "b": pts[1], "team": TEAM[int(st.winner[b])]}}]
        return {"key": "hand_result", "lines": lines, "result": f"team_{int(st.winner[b])}_wins_match", "explain": explain}
    items = [int(t) for t in st.items[b]]
    hang = bool(st.hang[b])
    worth = (1, 1, o["hang_jack_points"] if hang else o["jack_points"], o["game_points"])
    keys = ("high", "low", "hang_jack" if hang else "jack", "game")
    lines = []
    made = [0, 0]
    credited = _credited(kernel, st, b)
    for i, (key, team, pts) in enumerate(zip(keys, items, worth)):
        vals = [0, 0]
        if team >= 0 and i < credited:  # §6: the items after the one that won the match are not credited
            vals[team] = pts
            made[team] += pts
        lines.append({"key": key, "values": [str(v) for v in vals]})
    # the scored hand's own points and Game values: a match deals the next hand at once, and its
    # kick points must not be mixed into this hand's summary (issue 19)
    points = [int(p) for p in st.last_points[b]]
    # kicks and give-one count when they happen (§6); in a match the count stops at the target
    lines.append({"key": "kicks_and_give_one", "values": [str(max(points[t] - made[t], 0)) for t in range(2)]})
    lines.append({"key": "game_value", "values": [str(int(v)) for v in st.last_game_value[b]]})
    lines.append({"key": "hand_points", "values": [str(p) for p in points]})
    if st.truncated[b]:
        result = "truncated"
    elif kernel.match and st.done[b] and int(st.winner[b]) >= 0:
        result = f"team_{int(st.winner[b])}_wins_match"
    elif points[0] != points[1]:
        result = f"team_{int(points[1] > points[0])}_wins"
    else:
        result = "draw"
    return {"key": "hand_result", "lines": lines, "result": result, "explain": _explain(kernel, st, b, points, made)}


def _explain(kernel, st, b: int, points: list[int], made: list[int]) -> list[dict]:
    """What scored in the last scored hand and why (§6), read from the state: ``[{"key", "args"}]``
    with ``args`` naming seats (``"S2"``), teams (``"A"``/``"B"``), cards (``"AH"``) and numbers.
    Keys: ``af_high``/``af_low`` (card, seat, team), ``af_no_trump``, ``af_jack`` (seat, team),
    ``af_hang_jack`` (seat, team, points), ``af_no_jack``, ``af_game`` (a, b, team, points),
    ``af_game_tie`` (a, b), ``af_kicks`` (a, b), then ``af_next_not_played`` (a, b, team) when the
    next hand's kicks or give-one ended the match before it was played."""
    o = kernel.options
    names = FRENCH52.names
    hc, hs, lc, ls, js = (int(x) for x in st.last_high_low[b])
    credited = _credited(kernel, st, b)
    out = []
    if hc < 0:
        out.append({"key": "af_no_trump", "args": {}})
    else:
        out.append({"key": "af_high", "args": {"card": names[hc], "seat": f"S{hs}", "team": TEAM[hs % 2]}})
        if credited > 1:
            out.append({"key": "af_low", "args": {"card": names[lc], "seat": f"S{ls}", "team": TEAM[ls % 2]}})
    jack_team = int(st.items[b, 2])
    if js < 0:
        out.append({"key": "af_no_jack", "args": {}})
    elif credited <= 2:
        pass
    elif st.hang[b]:
        out.append({"key": "af_hang_jack", "args": {"seat": f"S{js}", "team": TEAM[jack_team], "points": o["hang_jack_points"]}})
    else:
        out.append({"key": "af_jack", "args": {"seat": f"S{js}", "team": TEAM[jack_team], "points": o["jack_points"]}})
    gv = [int(v) for v in st.last_game_value[b]]
    game_team = int(st.items[b, 3])
    if credited <= 3:
        pass
    elif game_team >= 0:
        out.append({"key": "af_game", "args": {"a": gv[0], "b": gv[1], "team": TEAM[game_team], "points": o["game_points"]}})
    else:
        out.append({"key": "af_game_tie", "args": {"a": gv[0], "b": gv[1]}})
    kicks = [max(points[t] - made[t], 0) for t in range(2)]
    if any(kicks):
        out.append({"key": "af_kicks", "args": {"a": kicks[0], "b": kicks[1]}})
    if credited < 4:  # §6: the match was won at an item; the rest of the hand was not credited
        out.append({"key": "af_not_credited", "args": {"team": TEAM[int(st.winner[b])], "n": 4 - credited}})
    if _ended_before_play(kernel, st, b):
        now = [int(p) for p in st.points[b]]
        out.append({"key": "af_next_not_played", "args": {"a": now[0], "b": now[1], "team": TEAM[int(st.winner[b])]}})
    return out


def table_view(kernel, st, b: int, seat: int) -> dict:
    """What ``seat`` sees at the table in game ``b`` (``Kernel.table_view`` contract), from public
    facts only (§7) and ``seat``'s own hand.

    ``phase``: ``stand_or_beg``, ``give_one_or_run``, ``play``, ``over``. ``facts``: ``trump`` (suit
    letter), ``trump_card`` (the kick that made it), ``kicked`` (every card turned up this deal, in
    turning order), ``beggar`` (``S1``...), ``begged`` / ``gave_one`` (``yes``/``no`` once decided),
    ``runs``, ``tricks`` (done / hand size), ``led_suit`` and ``trick_winner`` during a trick,
    ``target_score`` in a match. ``scores``: ``hand_points``,
    ``game_value`` (captured so far) and ``match_score`` per team (``teams`` = [[0, 2], [1, 3]]).
    ``summary``: :func:`_summary` once a hand has been scored (at the end of the episode, or in a match
    until the first card of the next hand). ``last_trick``: the last completed trick of this deal.
    """
    d = int(st.dealer[b])
    phase = int(st.phase[b])
    done = bool(st.done[b])
    names = FRENCH52.names
    runs = int(st.runs[b])
    turned = [int(st.stock[b, p]) for p in (FIRST_KICK,) + RUN_KICKS[:runs]]  # in turning order (§3, §4)
    kicks = [names[c] for c in turned]
    facts = [
        {"key": "trump", "value": FRENCH52.suit_names[int(st.trump[b])]},
        {"key": "trump_card", "value": kicks[-1]},
        {"key": "kicked", "value": " ".join(kicks)},
        {"key": "beggar", "value": f"S{(d + 1) % 4}"},
    ]
    if phase != BEG_DECISION or done:
        facts.append({"key": "begged", "value": "yes" if st.begged[b] else "no"})
    if st.begged[b] and (phase != DEALER_DECISION or done):
        facts.append({"key": "gave_one", "value": "yes" if st.gave_one[b] else "no"})
    facts.append({"key": "runs", "value": str(runs)})
    facts.append({"key": "tricks", "value": f"{int(st.tricks_done[b])}/{int(st.hand_size[b])}"})
    if phase == PLAY and int(st.led_suit[b]) >= 0:
        facts.append({"key": "led_suit", "value": FRENCH52.suit_names[int(st.led_suit[b])]})
        facts.append({"key": "trick_winner", "value": f"S{int(st.trick_winner[b])}"})
    if kernel.match:
        facts.append({"key": "target_score", "value": str(kernel.target)})
    scores = [
        {"key": "hand_points", "values": [str(int(v)) for v in st.points[b]]},
        {"key": "game_value", "values": [str(int(v)) for v in st.game_value[b]]},
        {"key": "match_score", "values": [str(int(v)) for v in st.score[b]]},
    ]
    lw = int(st.last_winner[b])
    last = None if lw < 0 else {"cards": _trick(st.last_trick[b], int(st.last_leader[b])), "winner": lw}
    fresh = int(st.tricks_done[b]) == 0 and int(st.n_in_trick[b]) == 0
    scored = int(st.items[b].max()) >= 0 or done
    return {
        "hand": mask_to_cards(st.hands[b, seat]),
        "hand_sizes": [int(n) for n in popcount(st.hands[b])],
        "exposed": [[] for _ in range(4)],
        "trick": _trick(st.trick_card[b], int(st.leader[b])) if phase == PLAY else [],
        "last_trick": last,
        "to_act": None if done else int(st.current_player[b]),
        "dealer": d,
        "phase": PHASE_KEYS[phase],
        "facts": facts,
        "scores": scores,
        "teams": [list(t) for t in kernel.teams],
        "summary": _summary(kernel, st, b) if scored and (done or (kernel.match and fresh)) else None,
    }

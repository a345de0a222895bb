"""``ansi`` rendering of a P'yanitsa table: pile sizes, the last battle, the pot while ordering."""

from __future__ import annotations

import numpy as np

from ..core.cards import mask_to_cards, popcount
from ..core.render import box, cards_str, check_view, count_text
from .constants import FLIP_PHASE, ORDER_PHASE, PHASE_KEYS, PHASE_NAMES, TRUNC_CYCLE


def render(kernel, st, b: int = 0, view=None) -> str:
    """Text table of game ``b``.

    ``view``: ``None`` public information only; a seat adds what that seat privately knows
    (the pot it is ordering and the bottom part of its pile it ordered itself); ``"all"``
    shows every pile in order (debugging; never for a player). ``ValueError`` for another view.
    """
    k = kernel
    view = check_view(view, k.num_players)
    deck = k.deck
    lines = [f"battle {int(st.battles[b])}   phase: {PHASE_NAMES[int(st.phase[b])]}"]
    piles = k.piles(st, b) if view is not None else None
    for s in range(k.num_players):
        tag = "*" if not st.done[b] and int(st.current_player[b]) == s else " "
        n = int(st.size[b, s])
        up = cards_str(deck, mask_to_cards(st.face_up[b, s]))
        down = int(st.n_down[b, s])
        line = f"{tag}S{s}  pile: {n:>2} {'card ' if n == 1 else 'cards'}{' (out)' if n == 0 else ''}   last battle: up {up}" + (f", {down} down" if down else "")
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
            lines.append(f"S{chooser} orders the pot ({count_text(bin(int(st.pot[b])).count('1'))} left)")
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


def _battle_cards(st, b: int, P: int) -> list[dict]:
    """The last battle's cards on the table as ``[{"seat", "card"}]``: seat by seat (ascending), the
    face-up cards in id order, then ``None`` for each face-down card (the order of the tie steps is
    not kept in the state; the public facts are who showed which card and how many went face down)."""
    out = []
    for s in range(P):
        out += [{"seat": s, "card": c} for c in mask_to_cards(st.face_up[b, s])]
        out += [{"seat": s, "card": None}] * int(st.n_down[b, s])
    return out


def _summary(kernel, st, b: int) -> dict:
    """The end of the game (§6): each seat's placing (``loser`` / ``safe``; ``draw`` after a dead battle;
    ``no_result`` when truncated), its cards, and the result key."""
    P = kernel.num_players
    losers = [int(s) for s in np.flatnonzero(st.loser[b])]
    if st.truncated[b]:
        placing = ["no_result"] * P
        result = "truncated_" + ("cycle" if int(st.trunc_reason[b]) == TRUNC_CYCLE else "max_battles")
    elif st.draw[b]:
        placing = ["draw"] * P
        result = "draw"
    else:
        placing = ["loser" if s in losers else "safe" for s in range(P)]
        who = "_".join(map(str, losers))
        result = f"seat_{who}_loses" if len(losers) == 1 else f"seats_{who}_lose"
    # why (§6), from the state: py_last_holder (seat, n: the cards it holds), py_first_out (seats),
    # py_dead_battle, py_truncated (reason)
    if st.truncated[b]:
        explain = [{"key": "py_truncated", "args": {"reason": result[len("truncated_"):]}}]
    elif st.draw[b]:
        explain = [{"key": "py_dead_battle", "args": {}}]
    elif kernel.options["objective"] == "last_holder_loses":
        explain = [{"key": "py_last_holder", "args": {"seat": f"S{s}", "n": int(st.size[b, s])}} for s in losers]
    else:
        explain = [{"key": "py_first_out", "args": {"seats": " ".join(f"S{s}" for s in losers)}}]
    return {
        "key": "game_result",
        "lines": [{"key": "placing", "values": placing}, {"key": "cards", "values": [str(int(n)) for n in st.size[b]]}],
        "result": result,
        "explain": explain,
    }


def table_view(kernel, st, b: int, seat: int) -> dict:
    """What ``seat`` sees at the table in game ``b`` (``Kernel.table_view`` contract; §7 Information).

    Nobody sees any pile, so ``hand`` is ``[]`` and ``hand_sizes`` are the pile sizes. ``trick`` is the
    last battle (:func:`_battle_cards`) until a seat flips for the next one; ``last_trick`` is the last
    battle with its winner (``None`` for a dead battle). ``phase``: ``flip``, ``order`` (the winner
    stacks the pot, ``winner_chooses``), ``over``. ``facts``: ``battles``, ``battle_winner`` (``S1``, or
    ``dead``), ``out`` (seats without cards), ``collect_order``, ``objective``; while ordering ``ordering``
    (the seat) and ``pot_size``, plus ``pot`` (the cards, face-down ones included) for the ordering seat
    only; ``my_ordered_bottom``: the bottom part of ``seat``'s own pile it stacked itself (top -> bottom).
    ``scores``: ``cards`` per seat. ``summary`` at the end: :func:`_summary`.
    """
    k = kernel
    P = k.num_players
    deck = k.deck
    phase = int(st.phase[b])
    done = bool(st.done[b])
    battles = int(st.battles[b])
    sizes = [int(n) for n in st.size[b]]
    facts = [{"key": "battles", "value": str(battles)}]
    last = None
    trick = []
    if battles > 0:
        w = int(st.winner[b])
        facts.append({"key": "battle_winner", "value": f"S{w}" if w >= 0 else "dead"})
        cards = _battle_cards(st, b, P)
        last = {"cards": cards, "winner": w if w >= 0 else None}
        active = [s for s in range(P) if sizes[s] > 0]
        untouched = phase != FLIP_PHASE or done or not active or int(st.current_player[b]) == active[0]
        trick = cards if untouched else []
    out = [s for s in range(P) if sizes[s] == 0]
    if out:
        facts.append({"key": "out", "value": " ".join(f"S{s}" for s in out)})
    facts.append({"key": "collect_order", "value": k.options["collect_order"]})
    facts.append({"key": "objective", "value": k.options["objective"]})
    if phase == ORDER_PHASE and not done:
        chooser = int(st.current_player[b])
        facts.append({"key": "ordering", "value": f"S{chooser}"})
        facts.append({"key": "pot_size", "value": str(int(popcount(st.pot[b])))})
        if seat == chooser:
            facts.append({"key": "pot", "value": cards_str(deck, mask_to_cards(st.pot[b]))})
    kn = int(st.known[b, seat])
    if kn > 0:
        mine = k.piles(st, b)[seat]
        facts.append({"key": "my_ordered_bottom", "value": cards_str(deck, mine[len(mine) - kn :])})
    return {
        "hand": [],
        "hand_sizes": sizes,
        "exposed": [[] for _ in range(P)],
        "trick": trick,
        "last_trick": last,
        "to_act": None if done else int(st.current_player[b]),
        "dealer": None,
        "phase": PHASE_KEYS[phase],
        "facts": facts,
        "scores": [{"key": "cards", "values": [str(n) for n in sizes]}],
        "teams": None,
        "summary": _summary(k, st, b) if done else None,
    }

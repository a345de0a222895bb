"""The View JSON of a table: what the person at seat 0 sees, ready for the browser.

:func:`table_view_json` takes the game's ``Kernel.table_view`` for seat 0 (only what seat 0 may
see; a generic view where a game has none yet), replaces card ids with card dicts
(:func:`card_dict`) and adds the table's seats, the legal moves, the move log (another seat's
move that seat 0 does not see is ``"face_down"``), returns, running totals and the env's text
render from seat 0. The move log is the episode's last :data:`LOG_WINDOW` moves, ``"log_start"``
the number of the first of them (0 while the episode is shorter). ``"moves"`` (this episode's moves
seat 0 heard of) and ``"deal"`` (the deals dealt at the table, 1 for the first) name the state the
View shows: a move sends them back, and one that answers another state is refused as stale.
"""

from __future__ import annotations

from functools import lru_cache

from cardzoo.envs.core.cards import DECKS

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # type names only: tables imports nothing from here, views nothing at run time from tables
    from .tables import Table

__all__ = ["LOG_WINDOW", "TAIL_FRAMES", "answer_frames", "card_dict", "frames_json", "generic_view", "match_result", "seat_roles", "table_view_json"]

_SUITS = {
    "french": {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"},
    "spanish": {"Co": "coins", "Cu": "cups", "Cl": "clubs", "Sw": "swords"},
    "tarocco": {"S": "swords", "B": "batons", "C": "cups", "D": "coins"},
}
_RANKS = {"A": "Ace", "K": "King", "Q": "Queen", "N": "Knight", "J": "Jack"}
_TAROCCO = {"BEG": "Bégato", "MOO": "Moon", "SUN": "Sun", "WOR": "World", "ANG": "Angel", "MAT": "Matto"}
_FACE_DOWN = {"id": None, "code": None, "rank": None, "suit": None, "pack": None, "label": "face down"}


def pack_of(deck) -> str:
    """``"french"``, ``"spanish"`` or ``"tarocco"`` for a :class:`cardzoo.envs.core.cards.Deck`."""
    return deck.name.rstrip("0123456789")


@lru_cache(maxsize=None)
def _card(deck_name: str, card: int) -> tuple:
    deck = DECKS[deck_name]
    pack = pack_of(deck)
    code = deck.names[card]
    s = int(deck.suit[card])
    if s >= 0:
        rank = deck.rank_names[int(deck.rank[card])]
        suit = _SUITS[pack][deck.suit_names[s]]
        label = f"{_RANKS.get(rank, rank)} of {suit}"
    elif code.startswith("MO") and code[2:].isdigit():
        rank, suit, label = code, "trumps", f"Moor {code[2:]}"
    elif code.startswith("T") and code[1:].isdigit():
        rank, suit, label = code[1:], "trumps", f"Trump {code[1:]}"
    else:
        rank, suit, label = code, (None if code == "MAT" else "trumps"), _TAROCCO.get(code, code)
    return card, code, rank, suit, pack, label


def card_dict(deck, card: int | None) -> dict:
    """``{"id", "code", "rank", "suit", "pack", "label"}`` of card id ``card`` of ``deck`` (e.g. id 34
    of french52: ``"10H"``, rank ``"10"``, suit ``"hearts"``, label ``"10 of hearts"``); ``None`` gives
    the face-down card (``id``, ``code``, ``rank``, ``suit`` all ``None``; ``pack`` for its back)."""
    if card is None:
        return {**_FACE_DOWN, "pack": pack_of(deck)}
    return dict(zip(("id", "code", "rank", "suit", "pack", "label"), _card(deck.name, int(card))))


def _action_card_dict(kernel, action: int) -> dict | None:
    c = kernel.action_card(action)
    return None if c is None else card_dict(kernel.deck, c)


def generic_view(kernel, state, seat: int) -> dict:
    """The fallback for a game without ``table_view``: ``seat``'s hand, public hand sizes, the seat
    to act and the dealer; nothing else (no exposed cards, trick, facts or scores)."""
    hands = kernel.hands(state, 0)
    done = bool(state.done[0])
    dealer = getattr(state, "dealer", None)
    return {
        "hand": sorted(hands[seat]),
        "hand_sizes": [len(h) for h in hands],
        "exposed": [[] for _ in hands],
        "trick": [],
        "last_trick": None,
        "to_act": None if done else int(state.current_player[0]),
        "dealer": None if dealer is None else int(dealer[0]),
        "phase": "over" if done else "play",
        "facts": [],
        "scores": [],
        "teams": None if kernel.teams is None else [list(t) for t in kernel.teams],
        "summary": None,
    }


def seat_roles(kernel, num_players: int) -> list[str]:
    """Role of each seat seen from seat 0: ``you``, ``partner`` (team games), ``left``, ``right``,
    ``across``. The next seat in turn sits on ``kernel.next_seat_side`` (the right in games played
    anticlockwise)."""
    nxt = kernel.next_seat_side
    teams = kernel.teams
    other = "left" if nxt == "right" else "right"
    if num_players == 2:
        return ["you", "across"]
    if num_players == 3:
        return ["you", nxt, other]
    mates = set() if teams is None else set(next(t for t in teams if 0 in t))
    return ["you", nxt, "partner" if 2 in mates else "across", other]


def _cards(deck, cards) -> list[dict]:
    return [card_dict(deck, c) for c in cards]


def _played(deck, entries) -> list[dict]:
    return [{"seat": e["seat"], "card": card_dict(deck, e["card"])} for e in entries]


#: explanation lines whose sentence states a scoring schedule, and the key of their sentence under the
#: other schedule: (line key, option, value) -> key (Avinas RULES.md §6.2, §6.3)
_SCHEDULE_KEYS = {
    ("av_pips_detail", "pip_schedule", "flat"): "av_pips_detail_flat",
    ("av_rams", "ram_schedule", "graded"): "av_rams_graded",
}


def _explain_for_options(k, explain: list[dict]) -> list[dict]:
    """``explain`` with each line whose sentence states the default scoring schedule given the key of
    the sentence for the kernel's schedule (the ``av_pips_detail`` sentence says "6 with no trick, 4
    with 30 points or fewer, else 2", untrue with ``pip_schedule="flat"``)."""
    options = getattr(k, "options", None) or {}
    out = []
    for e in explain:
        for (key, option, value), other in _SCHEDULE_KEYS.items():
            if e.get("key") == key and options.get(option) == value:
                e = {**e, "key": other}
        out.append(e)
    return out


def _seat0_view(k, st, completed) -> dict:
    """``k.table_view`` of seat 0 (or :func:`generic_view`) with card ids made card dicts;
    ``completed``: the cards of the last completed trick where the kernel keeps only its winner."""
    deck = k.deck
    try:
        v = k.table_view(st, 0, 0)
    except NotImplementedError:
        v = generic_view(k, st, 0)
    v = dict(v)
    if v.get("summary") and v["summary"].get("explain"):
        v["summary"] = {**v["summary"], "explain": _explain_for_options(k, v["summary"]["explain"])}
    v["hand"] = _cards(deck, v["hand"])
    v["exposed"] = [_cards(deck, cards) for cards in v["exposed"]]
    v["trick"] = _played(deck, v["trick"])
    if v["last_trick"] is not None:
        cards = v["last_trick"]["cards"] or completed or []  # kernels that keep only the winner
        v["last_trick"] = {"cards": _played(deck, cards), "winner": v["last_trick"]["winner"]}
    return v


#: entries of the move log a View carries: the last ones (``"log_start"`` is the number of the first).
#: The whole log went in every answer, 29 bytes a move, so a long P'yanitsa game (thousands of flips)
#: sent hundreds of KB an answer and its transfer grew with the square of its length.
LOG_WINDOW = 150


#: keys of a frame's view (what the browser redraws between two moves)
FRAME_KEYS = ("hand", "hand_sizes", "exposed", "trick", "last_trick", "to_act", "dealer", "phase", "facts", "scores",
              "summary")


def frames_json(table: Table, start: int = 0, stop: int | None = None) -> list[dict]:
    """The moves number ``start`` to ``stop`` (exclusive) of the episode that ``table.history``
    still holds, one by one, as seat 0 saw them: ``[{"move" (its number in the episode), "seat", "text"
    (the action's name, ``"face_down"`` for a move seat 0 does not see which it was; a move seat 0
    does not hear of, an uncaught Aluette signal, has no frame and no number), "completed"
    (``{"cards", "winner"}`` when the move completed a trick, else ``None``), "view" (the seat-0 view after the move, keys :data:`FRAME_KEYS`)}]``.

    Built only from seat 0's ``table_view`` of each state, so a frame shows nothing seat 0 may not
    see at that moment (no other hand, no face-down card). Call it holding ``table.lock``."""
    return [_frame(table.kernel, e, i, c) for i, e, c in _moves(table, start, stop)]


def _moves(table: Table, start: int, stop: int | None):
    """``(number, history entry, completed trick cards as of that move)`` of the moves ``start`` to ``stop``."""
    completed_cards = table.completed_before
    for i, entry in enumerate(table.history, start=table.history_start):
        if entry[5] is not None:
            completed_cards = entry[5]
        if i < start or (stop is not None and i >= stop):
            continue
        yield i, entry, completed_cards


def _frame(k, entry, i: int, completed_cards) -> dict:
    st, seat, action, seen, heard, completed = entry
    v = _seat0_view(k, st, completed_cards)
    frame_view = {key: v[key] for key in FRAME_KEYS}
    frame_view["done"] = bool(st.done[0])
    frame_view["text"] = k.render(st, 0, 0)  # the text view of that moment, as the View's "text"
    text = (k.action_name(action) if seen else "face_down") if heard else None
    done_trick = None
    if completed is not None and v["last_trick"] is not None:
        done_trick = v["last_trick"]
    return {"move": i, "seat": seat, "text": text, "completed": done_trick, "view": frame_view}


#: an answer that ends the episode with more than this many moves after seat 0's last move (P'yanitsa
#: with 3 or 4 players once seat 0 is out: up to ~1,000 flips, ~1.1 MB, ~13 minutes of pacing) sends
#: those moves condensed (:func:`answer_frames`)
TAIL_FRAMES = 40
#: frames kept at most on each side of a condensed stretch (the battle seat 0 went out in, the last one)
KEEP_FRAMES = 12


def _battles(view: dict) -> int | None:
    """The ``battles`` fact of a P'yanitsa view (``None`` in the other games)."""
    for f in view.get("facts") or []:
        if f.get("key") == "battles" and str(f.get("value", "")).isdigit():
            return int(f["value"])
    return None


def answer_frames(table: Table, start: int = 0) -> tuple[list[dict], dict | None]:
    """The frames of an answer that made the moves from number ``start`` on: ``(frames, skipped)``.

    Every move comes as a frame (:func:`frames_json`, ``skipped`` ``None``) unless the answer ends the
    episode with more than :data:`TAIL_FRAMES` moves after seat 0's last move in it: seat 0 has no
    decision left, and the other players play on (P'yanitsa with 3-4 players once seat 0 is out). Then
    the frames are seat 0's own moves and those before, the moves after it up to the end of the trick or
    battle it took part in (at most :data:`KEEP_FRAMES`), and the last trick or battle (at most
    :data:`KEEP_FRAMES` frames); the moves between are not sent one by one but summed up in ``skipped``:
    ``{"after" (frames before the gap), "first" (number of its first move), "moves", "battles" (battles
    played in it, P'yanitsa; else ``None``), "out" (``[{"seat", "move", "battle"}]``: each seat that went out after
    seat 0's last move, seat 0 included, at the move that emptied it for good), "result" (the final summary's result)}``.
    Everything in it is read from seat 0's views of those moments (pile sizes, the battle count, the
    final summary: public), and the answer's View is the final state, as when every move is sent.
    Call it holding ``table.lock``."""
    moves = list(_moves(table, start, None))
    own = [j for j, (_, entry, _) in enumerate(moves) if entry[1] == 0]
    after = own[-1] + 1 if own else 0
    if not table.done or len(moves) - after <= TAIL_FRAMES:
        return [_frame(table.kernel, e, i, c) for i, e, c in moves], None
    k = table.kernel
    views = [_seat0_view(k, e[0], c) for _, e, c in moves]  # seat 0's views only: no hidden card
    before = views[after - 1]["last_trick"] if after else None

    def ends_trick(j: int) -> bool:  # the move ends a trick or battle (a new last trick)
        prev = views[j - 1]["last_trick"] if j else before
        return moves[j][1][5] is not None or views[j]["last_trick"] != prev or _battles(views[j]) != (
            _battles(views[j - 1]) if j else None)

    head = next((j + 1 for j in range(after, len(moves)) if ends_trick(j)), after)
    head = min(head, after + KEEP_FRAMES)
    last = len(moves) - 1
    tail = next((j + 1 for j in range(last - 1, head - 1, -1) if ends_trick(j)), last)
    tail = max(tail, len(moves) - KEEP_FRAMES)
    if tail - head <= 0:
        return [_frame(k, e, i, c) for i, e, c in moves], None
    out = []
    final_sizes = views[last]["hand_sizes"]
    for s in range(len(final_sizes)):
        if final_sizes[s] != 0:
            continue
        for j in range(last, max(after, 1) - 1, -1):  # the move that emptied seat s for good
            if views[j]["hand_sizes"][s] == 0 and views[j - 1]["hand_sizes"][s] > 0:
                out.append({"seat": s, "move": moves[j][0], "battle": _battles(views[j])})
                break
    out.sort(key=lambda o: (o["move"], o["seat"]))
    b0, b1 = _battles(views[head - 1]) if head else None, _battles(views[tail - 1])
    summary = views[last].get("summary") or {}
    skipped = {
        "after": head,
        "first": moves[head][0],
        "moves": tail - head,
        "battles": None if b0 is None or b1 is None else b1 - b0,
        "out": out,
        "result": summary.get("result"),
    }
    kept = moves[:head] + moves[tail:]
    return [_frame(k, e, i, c) for i, e, c in kept], skipped


def replay_initial(table: Table) -> dict:
    """The seat-0 view at the start of the episode (before any move), keys :data:`FRAME_KEYS`,
    ``done`` and ``text``, for the replay. The other hands are not revealed after the deal: each
    game's RULES.md makes only played (and declared or exposed) cards public, so the replay shows
    what seat 0 saw."""
    v = _seat0_view(table.kernel, table.initial_state, table.completed_before)
    out = {key: v[key] for key in FRAME_KEYS}
    out["done"] = False
    out["text"] = table.kernel.render(table.initial_state, 0, 0)
    return out


def match_result(kernel, state) -> str | None:
    """Who won the match, once a match episode is over: ``"team_<t>_wins_match"``, ``"match_drawn"``
    (Aluette), else ``None`` (a single deal, a match running or cut short). The kernels' summaries
    give the last deal's result (All Fours' the match's), so the View says it (``"match_result"``)."""
    if not getattr(kernel, "match", False) or not bool(state.done[0]) or bool(state.truncated[0]):
        return None
    if not hasattr(state, "winner"):
        return None
    w = int(state.winner[0])
    return f"team_{w}_wins_match" if w in (0, 1) else "match_drawn" if w == 2 else None


def table_view_json(table: Table) -> dict:
    """The View JSON of ``table`` for its person at seat 0 (see the module docstring and the
    API in :mod:`cardzoo.training.web.app`). Call it holding ``table.lock``."""
    env, k = table.env, table.kernel
    st = env.game_state
    deck = k.deck
    v = _seat0_view(k, st, table.completed_trick)
    done = table.done
    your_turn = not done and table.to_act == 0
    legal = env.legal_actions() if your_turn else []
    roles = seat_roles(k, table.num_players)
    team_of = {s: i for i, t in enumerate(k.teams or []) for s in t}
    shown_log = table.log[-LOG_WINDOW:]
    v.update(
        {
            "table_id": table.id,
            "game": table.game,
            "game_name": k.display_name or table.game,
            "seat": 0,
            "num_players": table.num_players,
            "pack": pack_of(deck),
            "seats": [
                {
                    "seat": s,
                    "role": roles[s],
                    "agent": None if s == 0 else table.seat_agents[s][0],
                    "team": team_of.get(s),
                }
                for s in range(table.num_players)
            ],
            "legal": [{"action": a, "name": k.action_name(a), "card": _action_card_dict(k, a)} for a in legal],
            "your_turn": your_turn,
            "done": done,
            "log": [{"seat": e.seat, "text": k.action_name(e.action) if e.seen else "face_down"} for e in shown_log],
            "log_start": len(table.log) - len(shown_log),
            "returns": [float(r) for r in table.returns] if done else None,
            "totals": [float(t) for t in table.totals],
            "match": bool(getattr(k, "match", False)),
            "match_result": match_result(k, st),
            "moves": table.moves,
            "deal": table.deals,
            "text": env.render(),
        }
    )
    return v

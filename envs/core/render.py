"""Rendering helpers shared by the games: the ``ansi`` text renderers and the structured seat views
(``Kernel.table_view``) of the web table."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .cards import Deck


def cards_str(deck: Deck, cards: Iterable[int], style: str = "ascii") -> str:
    """Space-separated short names of ``cards`` (ids), or ``-`` for none."""
    names = [deck.card_name(c, style) for c in cards]
    return " ".join(names) if names else "-"


def count_text(n: int, noun: str = "card") -> str:
    """``"1 card"``, ``"0 cards"``, ``"6 cards"``: a count with its noun in the singular or plural."""
    n = int(n)
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def box(title: str, lines: list[str]) -> str:
    """A titled block of text lines with a rule under the title."""
    width = max([len(title)] + [len(x) for x in lines])
    return "\n".join([title, "-" * width, *lines])


def check_view(view, num_players: int, name: str | None = None):
    """Validate a render viewpoint: ``None`` (public), a seat, or ``"all"`` (omniscient).

    Raises ``ValueError`` naming the valid values, and the option ``name`` (``"render_view"``) when given.
    """
    if view is None or (isinstance(view, str) and view == "all"):  # an array == "all" would be ambiguous
        return view
    if isinstance(view, (int, np.integer)) and not isinstance(view, (bool, np.bool_)) and 0 <= view < num_players:
        return int(view)
    what = f"{name}={view!r}" if name else f"render view {view!r}"
    raise ValueError(f"{what} is not valid; valid: None (public), 'all', or a seat 0..{num_players - 1}")


# ---------------------------------------------------------------------------- table views
# Helpers shared by the games' ``table_view`` (the structured seat view of ``Kernel.table_view``,
# used by the web table): every game returns the same keys, built by :func:`seat_view`.


def view_args(kernel, state, b, seat) -> tuple[int, int]:
    """Validate ``table_view``'s game index and seat: ``(b, seat)`` as ints, or ``ValueError`` naming
    what was wrong and the valid range."""
    n = state.batch_size
    if not (isinstance(b, (int, np.integer)) and not isinstance(b, (bool, np.bool_)) and 0 <= b < n):
        raise ValueError(f"game index b={b!r} is not valid; the state holds games 0..{n - 1}")
    # the kernel's one seat check, naming the game as All Fours' and P'yanitsa's table_view did
    return int(b), kernel.check_seat(seat)


def seat_name(seat: int) -> str:
    """``"S2"``: how rules, renders and facts name a seat."""
    return f"S{int(seat)}"


def num_text(x) -> str:
    """A number as short text: ``3``, ``-2``, ``12.5`` (no trailing ``.0``)."""
    return f"{float(x):g}" if isinstance(x, (float, np.floating)) else str(int(x))


def fact(key: str, value) -> dict:
    """One public fact ``{"key": key, "value": str}`` (numbers become text)."""
    return {"key": key, "value": value if isinstance(value, str) else num_text(value)}


def score_line(key: str, values) -> dict:
    """One score or summary line ``{"key": key, "values": [str, ...]}`` (numbers become text)."""
    return {"key": key, "values": [v if isinstance(v, str) else num_text(v) for v in values]}


def team_result(totals) -> str:
    """``"team_0_wins"``, ``"team_1_wins"`` or ``"draw"`` from per-team totals (higher wins)."""
    a, b = (float(x) for x in totals)
    return "team_0_wins" if a > b else "team_1_wins" if b > a else "draw"


def trick_in_order(trick_card, leader: int, n_in_trick: int, hidden_seat: int | None = None) -> list[dict]:
    """The current trick in play order as ``[{"seat", "card"}]``: ``n_in_trick`` cards from
    ``leader`` on, the next seat being ``seat + 1``; ``trick_card`` holds each seat's card
    (``-1`` none). The card of ``hidden_seat`` (a face-down card) is ``None``."""
    n_seats = len(trick_card)
    out = []
    for i in range(int(n_in_trick)):
        s = (int(leader) + i) % n_seats
        c = int(trick_card[s])
        out.append({"seat": s, "card": None if s == hidden_seat else c})
    return out


def last_trick_winner(winner) -> dict:
    """``last_trick`` of a game whose state keeps the winner of the last completed trick but not its
    cards: ``{"cards": [], "winner": winner}`` (``None`` for a trick nobody won)."""
    return {"cards": [], "winner": None if winner is None or int(winner) < 0 else int(winner)}


def summary_dict(key: str, lines: list[dict], result: str) -> dict:
    """A deal summary ``{"key", "lines": [{"key", "values"}], "result"}`` (see ``Kernel.table_view``)."""
    return {"key": key, "lines": lines, "result": result}


def summary_due(deals_scored: int, over: bool, match: bool, tricks_done: int) -> bool:
    """Whether a seat view shows the last scored deal's summary: at the end of the episode, and in a
    match (where the next deal is dealt at once) until the next deal's first trick is complete, so
    that a player whose first turn comes late in trick 1 still sees it."""
    return deals_scored > 0 and (over or (match and tricks_done == 0))


def seat_view(kernel, state, b: int, seat: int, *, exposed, trick, last_trick, phase, facts, scores, summary) -> dict:
    """The seat view of ``Kernel.table_view`` with every required key, as plain JSON types.

    ``hand`` (``kernel.hands()[seat]``, card ids in id order: suit, then rank), ``hand_sizes``,
    ``to_act`` (``None`` once the episode is over), ``dealer`` (``state.dealer``) and ``teams`` are
    filled in here; the game gives the rest."""
    hands = kernel.hands(state, b)
    return _plain(
        {
            "hand": list(hands[seat]),
            "hand_sizes": [len(h) for h in hands],
            "exposed": [list(e) for e in exposed],
            "trick": trick,
            "last_trick": last_trick,
            "to_act": None if state.done[b] else int(state.current_player[b]),
            "dealer": int(state.dealer[b]),
            "phase": phase,
            "facts": facts,
            "scores": scores,
            "teams": None if kernel.teams is None else [list(t) for t in kernel.teams],
            "summary": summary,
        }
    )


def _plain(x):
    """Numpy scalars to Python ints/floats/bools, tuples to lists, recursively."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    return x

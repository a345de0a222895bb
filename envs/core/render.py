"""Text rendering helpers shared by the games' ``ansi`` renderers."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .cards import Deck


def cards_str(deck: Deck, cards: Iterable[int], style: str = "ascii") -> str:
    """Space-separated short names of ``cards`` (ids), or ``-`` for none."""
    names = [deck.card_name(c, style) for c in cards]
    return " ".join(names) if names else "-"


def box(title: str, lines: list[str]) -> str:
    """A titled block of text lines with a rule under the title."""
    width = max([len(title)] + [len(x) for x in lines])
    return "\n".join([title, "-" * width, *lines])


def check_view(view, num_players: int):
    """Validate a render viewpoint: ``None`` (public), a seat, or ``"all"`` (omniscient).

    Raises ``ValueError`` naming the valid values.
    """
    if view is None or view == "all":
        return view
    if isinstance(view, (int, np.integer)) and not isinstance(view, (bool, np.bool_)) and 0 <= view < num_players:
        return int(view)
    raise ValueError(f"render view {view!r} is not valid; valid: None (public), 'all', or a seat 0..{num_players - 1}")

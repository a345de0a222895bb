"""P'yanitsa constants shared by the kernel, the compiled rules, the renderer and search (``RULES.md``)."""

from __future__ import annotations

#: ``phase`` values (§4): flip, the winner orders the pot (``collect_order="winner_chooses"``), over
FLIP_PHASE, ORDER_PHASE, OVER = 0, 1, 2
PHASE_NAMES = ("flip", "order the pot", "over")
#: ``table_view`` phase keys by phase index (§4)
PHASE_KEYS = ("flip", "order", "over")
#: ``trunc_reason`` values (§6): none, a repeated position (cycle), the ``max_battles`` cap
NO_TRUNC, TRUNC_CYCLE, TRUNC_CAP = 0, 1, 2
#: an unused slot of a linearised pile
EMPTY = 255
#: ``collect_order`` option values, in the order of the compiled rules' ``P_ORDER`` code (§5)
COLLECT_ORDERS = ("winner_first", "seat_order", "random", "winner_chooses")

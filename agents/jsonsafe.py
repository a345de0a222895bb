"""JSON that is valid JSON: an undefined number (NaN, infinity) written as ``null``.

Python's ``json`` writes NaN and infinity as the bare words ``NaN`` / ``Infinity``, which are not
JSON (other readers refuse them). :func:`json_safe` replaces them with ``None`` first. It lives
here, below ``training/``, because a saved agent's ``agent.json`` (:mod:`cardzoo.agents.policy`) is
written with it as well as the training commands' results (``cardzoo.training.arena.json_text``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["json_safe"]


def json_safe(value: Any) -> Any:
    """``value`` (dicts, lists, tuples, numbers, strings) with every NaN or infinite float replaced
    by ``None``, so that ``json.dumps`` writes valid JSON (``null``) instead of ``NaN``: e.g. the
    CI of a run of 1 deal (``cardzoo.training.arena.mean_ci``). Tuples become lists; other values
    pass as they are."""
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        return None
    return value

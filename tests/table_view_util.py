"""Helpers for the table-view tests (``Kernel.table_view``, the seat view of the web table):
the contract's keys and types, and every card id a view names (lists and card codes in text)."""

from __future__ import annotations

import json
import re

import numpy as np

KEYS = {"hand", "hand_sizes", "exposed", "trick", "last_trick", "to_act", "dealer", "phase", "facts", "scores", "teams",
        "summary"}
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


def text_card_ids(text: str, deck) -> set[int]:
    """Card ids named in ``text`` by their deck codes (``"KS"``, ``"T16"``, ``"3Co"``)."""
    out = set()
    for tok in re.split(r"[\s,:;()/]+", text):
        try:
            out.add(deck.card_id(tok))
        except ValueError:
            pass
    return out


def view_card_ids(view: dict, deck) -> set[int]:
    """Every card id a view shows: hand, exposed, trick, last trick, and codes in facts, scores, summary."""
    ids = set(view["hand"]) | {c for e in view["exposed"] for c in e}
    ids |= {t["card"] for t in view["trick"] if t["card"] is not None}
    if view["last_trick"] is not None:
        ids |= {t["card"] for t in view["last_trick"]["cards"] if t["card"] is not None}
    texts = [f["value"] for f in view["facts"]] + [v for line in view["scores"] for v in line["values"]]
    if view["summary"] is not None:
        texts += [v for line in view["summary"]["lines"] for v in line["values"]]
        texts += [str(a) for e in view["summary"].get("explain", []) for a in e["args"].values()]
    for t in texts:
        ids |= text_card_ids(t, deck)
    return ids


def check_view(kernel, st, b: int, seat: int, allowed: set[int], hand_sizes: list[int] | None = None) -> dict:
    """``kernel.table_view(st, b, seat)`` checked against the contract: the keys, JSON round trip,
    the hand equals ``kernel.hands()[seat]``, hand sizes (``hand_sizes`` where a game counts other
    cards than ``kernel.hands()``, P'yanitsa's piles), types and snake_case keys, per-team (or
    per-seat, without teams) values, and no card id outside ``allowed`` (what ``seat`` may see).
    Returns the view."""
    v = kernel.table_view(st, b, seat)
    assert set(v) == KEYS
    assert json.loads(json.dumps(v)) == v
    hands = kernel.hands(st, b)
    assert v["hand"] == hands[seat]
    assert v["hand_sizes"] == (hand_sizes if hand_sizes is not None else [len(h) for h in hands])
    assert len(v["exposed"]) == kernel.num_players
    for s, e in enumerate(v["exposed"]):  # held face up: in the hand, or the card just played to the trick
        if e:
            assert set(e) <= set(hands[s]) | ({int(st.trick_card[b, s])} if int(st.trick_card[b, s]) >= 0 else set())
    assert v["teams"] == kernel.teams
    assert (v["to_act"] is None) == bool(st.done[b])
    if v["to_act"] is not None:
        assert v["to_act"] == int(st.current_player[b])
    assert SNAKE.match(v["phase"])
    for f in v["facts"]:
        assert set(f) == {"key", "value"} and SNAKE.match(f["key"]) and isinstance(f["value"], str) and f["value"]
    lines = list(v["scores"]) + (list(v["summary"]["lines"]) if v["summary"] else [])
    for line in lines:
        assert set(line) == {"key", "values"} and SNAKE.match(line["key"])
        sides = len(kernel.teams) if kernel.teams is not None else kernel.num_players
        assert len(line["values"]) == sides and all(isinstance(x, str) for x in line["values"])
    if v["summary"] is not None:
        assert set(v["summary"]) in ({"key", "lines", "result"}, {"key", "lines", "result", "explain"})
        assert SNAKE.match(v["summary"]["result"])
        for e in v["summary"].get("explain", []):  # what scored and why, in game terms (issue 19)
            assert set(e) == {"key", "args"} and SNAKE.match(e["key"])
            assert all(SNAKE.match(k) and isinstance(x, (str, int, float)) for k, x in e["args"].items())
    for t in v["trick"]:
        assert set(t) == {"seat", "card"}
    leaked = view_card_ids(v, kernel.deck) - allowed
    assert not leaked, f"seat {seat} sees {[kernel.deck.names[c] for c in leaked]}"
    return v


def fact_values(view: dict, key: str) -> list[str]:
    """Values of the facts named ``key``, in order."""
    return [f["value"] for f in view["facts"] if f["key"] == key]


def line_values(lines: list[dict], key: str) -> list[str]:
    """``values`` of the line named ``key`` (exactly one)."""
    (found,) = [line["values"] for line in lines if line["key"] == key]
    return found


def random_step(kernel, st, rng) -> None:
    """One uniformly random legal action in every game of the batch."""
    mask = kernel.legal_actions(st)
    u = rng.random(mask.shape)
    u[~mask] = -1
    kernel.step(st, u.argmax(1), rng)


def sweep_views(kernel, st, rng, steps: int, allowed, hand_sizes=None) -> tuple[set[str], int]:
    """Random play for ``steps`` steps, checking (:func:`check_view`, ``allowed(st, b, seat)``, and
    ``hand_sizes(st, b)`` where given) every
    seat's view of two games before each step, of the games that have just ended (before they are
    dealt again) and of the games just dealt. Returns the phases seen and the number of views checked."""
    B = st.batch_size
    phases: set[str] = set()
    checked = 0

    def check(games):
        nonlocal checked
        for b in games:
            for seat in range(kernel.num_players):
                sizes = hand_sizes(st, int(b)) if hand_sizes is not None else None
                phases.add(check_view(kernel, st, int(b), seat, allowed(st, int(b), seat), sizes)["phase"])
                checked += 1

    for step in range(steps):
        check([step % B, (7 * step + 3) % B])
        random_step(kernel, st, rng)
        check(np.flatnonzero(st.done))
        check(kernel.reset_done(st, rng))
    return phases, checked

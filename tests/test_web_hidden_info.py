"""Hidden information through the web API: no answer ever shows seat 0 a card it may not see.

Move answers carry the moves one by one (``frames``) and a finished deal can be replayed; both are
scanned like every other answer. The replay does not reveal the other hands after the deal: every
game's RULES.md makes public only the cards played (and declared, exposed or turned up), so the
replay shows the deal exactly as seat 0 saw it.

For every game whole episodes are played through the API and every answer is checked:

1. Every card in the JSON (a card dict's ``id``, or a card code anywhere in a string: facts, log,
   text) is one seat 0 may know. That set is derived from the env, not from the view: seat 0's hand
   and every card set of seat 0's observation (the env tests prove the observation holds only what
   the seat may know: cards played, turned up, declared, exposed, its own discards, the pot it
   orders...), at the time of the answer or earlier (seat 0 remembers), the cards of the moves
   the table logged as seen by seat 0, and card names in the env's public ``info``.
2. A twin table whose state differs only in cards hidden from seat 0 (the env tests' own
   ``permute_hidden``: other hands, talon, stock, face-down cards, pile order) gives the very
   same answer.

Both checks are made for every frame of every answer too, at its own moment (:func:`check_frames`):
the cards of a frame are the ones seat 0 may know at that move or before (so a card shown a few moves
before it is played is a leak, even though it is known by the end of the answer), and the frame drawn
from its state with the hidden cards shuffled is the very same. This is checked for each game and a
few option sets, on every frame sent (the moves an answer condenses, ``skipped``, are sent as public
counts only: no card).
"""

from __future__ import annotations

import copy
import re
import threading
from types import SimpleNamespace

import numpy as np
import pytest

from cardzoo import envs

import test_aluette_env, test_all_fours_env, test_avinas_env, test_ottocento_env
from test_pyanitsa_env import _permute_hidden as pyanitsa_permute
from cardzoo.training.web.views import frames_json
from web_util import make_client, manager, open_table, step_bound

PERMUTE = {
    "all_fours": test_all_fours_env.permute_hidden,
    "ottocento": test_ottocento_env.permute_hidden,
    "avinas": test_avinas_env.permute_hidden,
    "aluette": test_aluette_env.permute_hidden,
}
CASES = [
    ("all_fours", {}),
    ("ottocento", {}),
    ("avinas", {}),
    ("aluette", {}),
    ("pyanitsa", {}),
    ("pyanitsa", {"players": 3, "options": {"collect_order": "winner_chooses", "tie_mode": "down_up",
                                             "max_battles": 150}}),
    # seat 0 out early, the others playing on (condensed answers; the face-up cards of their battles are public)
    ("pyanitsa", {"players": 4, "options": {"deck": 52, "tie_players": "tied", "runout": "forfeit"}}),
    ("ottocento", {"options": {"declaration_mode": "auto_all", "deal_packets": 3}}),
    ("avinas", {"options": {"facedown_signal": "free", "trump_lead_rule": "every_lead"}}),
    ("aluette", {"options": {"signal_visibility": "public", "surrender": True, "chant_recipients": "left_and_partner"}}),
]


def known_to_seat_0(table) -> set[int]:
    """Cards seat 0 may know now, from the env (see the module docstring), not from any view."""
    return known_at(table.kernel, table.env.game_state, table.log)


def card_sets(k, st, seat: int) -> set[int]:
    """The cards of every card set of ``seat``'s observation of ``st``."""
    n = k.deck.n
    out = set()
    obs = k.observe(st, seat)[0]
    for e in k.obs_layout.entries:
        if e.stop - e.start == n and e.high == 1:  # a card set
            out |= set(np.flatnonzero(obs[e.start : e.stop]).tolist())
    return out


def known_at(k, st, log) -> set[int]:
    """Cards seat 0 may know in state ``st`` after the moves ``log`` (:class:`LogEntry` list): its
    hand, its observation's card sets, the cards of the moves it saw and the env's public ``info``.
    (The face-up cards of a P'yanitsa battle are public, RULES.md §7; an out seat 0's observation
    still shows them, so a 4-player 52-card game played on after seat 0 is out raises no false alarm.)"""
    known = set(k.hands(st, 0)[0]) | card_sets(k, st, 0)
    for entry in log:
        if entry.seen and (c := k.action_card(entry.action)) is not None:
            known.add(c)
    known |= cards_named(k.info(st, 0), k.deck)
    return known


def cards_named(obj, deck) -> set[int]:
    """Card ids in a JSON value: card dicts' ids, and card codes (exact, as tokens) in strings."""
    out = set()
    if isinstance(obj, dict):
        if {"id", "code", "label"} <= set(obj):
            if obj["id"] is not None:
                assert obj["code"] == deck.names[obj["id"]]
                out.add(obj["id"])
            else:
                assert obj["code"] is None and obj["rank"] is None and obj["suit"] is None
            return out
        for key, value in obj.items():
            if key != "table_id":  # random text
                out |= cards_named(value, deck)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            out |= cards_named(x, deck)
    elif isinstance(obj, str):
        names = set(deck.names)
        out |= {deck.card_id(t) for t in re.split(r"[^0-9A-Za-z]+", obj) if t in names}
    return out


def copy_table(table):
    """A copy of a web table (its own env, lock, log and totals) with id ``"twin-" + table.id``, not yet
    registered with the table manager."""
    t2 = copy.copy(table)
    t2.env = copy.deepcopy(table.env)
    t2.kernel = t2.env.unwrapped.kernel
    t2.lock = threading.Lock()
    t2.log = list(table.log)
    t2.returns, t2.totals = table.returns.copy(), table.totals.copy()
    t2.id = "twin-" + table.id
    return t2


def permuted(k, game, st, rng):
    """A copy of state ``st`` with the cards hidden from seat 0 shuffled (the env tests' ``permute_hidden``)
    and whether a card moved."""
    if game == "pyanitsa":
        new = pyanitsa_permute(k, st, rng)
        return new, not np.array_equal(k.linear_piles(new), k.linear_piles(st))
    new = st.copy()
    return new, bool(PERMUTE[game](new, 0, 0, rng))


def check_frames(table, game, answer, known, checked, rng):
    """Check each frame of ``answer`` at its own move: its cards are ones seat 0 may know at that move
    or before (``known``, grown here move by move from move ``checked`` on, each move's
    :func:`known_at`: the skipped moves too, whose public cards seat 0 may know), and the frame drawn
    from its state with the hidden cards shuffled is the same. Returns ``(known, the next move to check
    from, frames whose state a shuffle changed)``."""
    k, deck = table.kernel, table.kernel.deck
    frames = answer["frames"]
    skipped = answer["skipped"]
    if skipped is not None:
        assert not cards_named(skipped, deck), f"{game}: the condensed moves name cards: {skipped}"
        assert set(skipped) == {"after", "first", "moves", "battles", "out", "result"}
    moved = 0
    by_move = {f["move"]: f for f in frames}
    end = max(by_move, default=checked - 1) + 1
    for m in range(checked, end):
        st = table.history[m - table.history_start][0]
        known = known | known_at(k, st, table.log[m : m + 1])
        f = by_move.get(m)
        if f is None:
            continue
        leaked = cards_named(f, deck) - known
        assert not leaked, f"{game} move {m} (frame of an answer): {[deck.names[c] for c in leaked]} shown to seat 0"
        # the same frame from the state with the cards hidden from seat 0 shuffled
        st2, changed = permuted(k, game, st, rng)
        entry = table.history[m - table.history_start]
        twin_table = SimpleNamespace(kernel=k, history=list(table.history), history_start=table.history_start,
                                     completed_before=table.completed_before)
        twin_table.history[m - table.history_start] = (st2, *entry[1:])
        assert frames_json(twin_table, m, m + 1) == [f], f"{game} move {m}: the frame depends on hidden cards"
        moved += changed
    return known, end, moved


def twin(client, table, game, rng):
    """A second table in the same position but with the cards hidden from seat 0 shuffled; returns
    ``(its id, whether a card moved)`` (``None`` id when the game's shuffle could not be applied)."""
    t2 = copy_table(table)
    env, k = t2.env, t2.kernel
    st = env.game_state
    if game == "pyanitsa":
        new = pyanitsa_permute(k, st, rng)
        moved = not np.array_equal(k.linear_piles(new), k.linear_piles(st))
        env._st = new
    else:
        moved = PERMUTE[game](st, 0, 0, rng)
        if not moved:  # nothing to move (or Ottocento's Matto among the discards: no consistent shuffle)
            return None, False
    env._single = k.single_game(env._st)
    env._legal = None
    manager(client)._tables[t2.id] = t2
    return t2.id, moved


#: the seeds of a case (default 0, 1, 2): those where seat 0 of 4-player P'yanitsa goes out early and the
#: others play on (seeds 0 and 2 play a thousand moves with seat 0 to the end: long, nothing new)
SEEDS = {"pyanitsa-4-options": (1, 3)}


def case_id(game: str, body: dict) -> str:
    return game + (f"-{body['players']}" if "players" in body else "") + ("-options" if "options" in body else "")


@pytest.mark.parametrize("game, body", CASES, ids=[case_id(g, b) for g, b in CASES])
def test_no_answer_shows_a_card_seat_0_may_not_see(game, body):
    client = make_client()
    rng = np.random.default_rng(2026)
    opts = dict(body.get("options", {}))
    if "players" in body:
        opts["num_players"] = body["players"]
    deck = envs.kernel(game, **opts).deck
    bound = step_bound(game, **opts)
    answers = moved = frames = frames_moved = 0
    condensed = 0
    for seed in SEEDS.get(case_id(game, body), range(3)):
        out = open_table(client, game, seed=seed, **body)
        tid = out["table_id"]
        table = manager(client).get(tid)
        view = out["view"]
        in_frames, checked, m = check_frames(table, game, view, set(), 0, rng)
        frames += len(view["frames"])
        frames_moved += m
        known = known_to_seat_0(table)
        for step in range(bound + 2):
            leaked = cards_named(view, deck) - known
            assert not leaked, f"{game} step {step}: {[deck.names[c] for c in leaked]} shown to seat 0"
            answers += 1
            if not view["done"]:
                tid2, m = twin(client, table, game, rng)
                if tid2 is not None:
                    a, b = client.get(f"/api/tables/{tid}").json(), client.get(f"/api/tables/{tid2}").json()
                    assert {**b, "table_id": tid} == a, f"{game} step {step}: the answer depends on hidden cards"
                    moved += m
                    client.delete(f"/api/tables/{tid2}")
            if view["done"]:
                break
            legal = view["legal"]
            r = client.post(f"/api/tables/{tid}/move", json={"action": legal[int(rng.integers(len(legal)))]["action"]})
            assert r.status_code == 200, r.text
            view = r.json()
            condensed += view["skipped"] is not None
            in_frames, checked, m = check_frames(table, game, view, in_frames, checked, rng)
            frames += len(view["frames"])
            frames_moved += m
            known |= known_to_seat_0(table)
        assert view["done"]
        # the replay of the finished deal shows it from seat 0's view: nothing more than seat 0 saw
        replay = client.get(f"/api/tables/{tid}/replay").json()
        leaked = cards_named(replay, deck) - known
        assert not leaked, f"{game} replay: {[deck.names[c] for c in leaked]} shown to seat 0"
        r = client.post(f"/api/tables/{tid}/new")
        known = known_to_seat_0(table)  # a new deal: only what seat 0 sees of it
        leaked = cards_named(r.json(), deck) - known
        assert not leaked, f"{game} new deal: {[deck.names[c] for c in leaked]} shown to seat 0"
        check_frames(table, game, r.json(), set(), 0, rng)
    assert answers > 20 and moved > 10
    assert frames > answers and frames_moved > 10  # frames were checked, and shuffles changed their states
    if game == "pyanitsa" and body.get("players") == 4:
        assert condensed == 2  # seat 0 went out and the others played on: checked through the condensed answers


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_aluette_opponents_uncaught_signals_leave_no_trace_in_the_log(seed):
    """By default only partners see signals (Aluette RULES.md §4.5, §7): an opponent's signal must
    not even show as a face-down entry, or seat 0 could count them (how many key cards they hold)."""
    client = make_client()
    out = open_table(client, "aluette", seed=seed)
    tid, v = out["table_id"], out["view"]
    table = manager(client).get(tid)
    sent_by_opponents = 0
    while True:
        st = table.env.game_state
        sent_by_opponents = max(sent_by_opponents, sum(bin(int(st.sent[0, s])).count("1") for s in (1, 3)))
        for e in table.log:
            assert not (e.seat in (1, 3) and 50 <= e.action < 60), "an opponent's unseen signal was logged"
        for shown, e in zip(v["log"], table.log):
            assert shown["seat"] == e.seat
            if shown["text"] == "face_down":
                assert e.seat != 0 and e.action < 48  # only a discard is face down
        if v["done"]:
            break
        r = client.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]})
        assert r.status_code == 200, r.text
        v = r.json()
    assert sent_by_opponents > 0  # they did signal: the check above had something to hide


@pytest.mark.parametrize("seed", [1, 5])
def test_aluette_opponents_uncaught_signals_leave_no_frame_and_no_move_count(seed):
    """The frames of an answer, its move count and the replay are what seat 0 heard, exactly as the
    log: an opponent's uncaught signal (Aluette RULES.md §7: seen by the sender and his partner only)
    used to come as a frame ``{"seat": 3, "text": null}`` and to count in ``"moves"``, so seat 0 could
    count the opponents' signals (with truthful signals, how many key cards they hold)."""
    client = make_client()
    out = open_table(client, "aluette", seed=seed, partner="aluette/rule", opponents="aluette/rule")
    tid, v = out["table_id"], out["view"]
    table = manager(client).get(tid)
    answers = [v]
    while not v["done"]:
        r = client.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]})
        assert r.status_code == 200, r.text
        v = r.json()
        answers.append(v)
    sent_by_opponents = sum(bin(int(table.env.game_state.sent[0, s])).count("1") for s in (1, 3))
    assert sent_by_opponents > 0  # they did signal: there was something to hide
    for a in answers:
        shown = [{"seat": f["seat"], "text": f["text"]} for f in a["frames"]]
        assert a["moves"] == len(a["log"])
        assert shown == a["log"][len(a["log"]) - len(shown):]
    rep = client.get(f"/api/tables/{tid}/replay").json()
    assert rep["first"] == 0
    assert [{"seat": f["seat"], "text": f["text"]} for f in rep["frames"]] == v["log"]

"""P'yanitsa ``table_view``: exact values in constructed positions (RULES.md §10), the pot only to the
seat ordering it; ``allowed`` and ``hand_sizes`` for the frame's contract sweep. That sweep (JSON round
trip included), the bad-seat errors and hidden information (the view unchanged when pile cards move) are
frame tests for every game: tests/test_frame.py, tests/test_hidden_info_variants.py."""

from __future__ import annotations

import json

from cardzoo.envs.core.cards import FRENCH36, mask_to_cards

from pyanitsa_util import flip_battle, new_env

FLIP = 36


def cid(name):
    return FRENCH36.card_id(name)


def allowed(st, b: int, seat: int) -> set[int]:
    """Card ids ``seat`` may see (RULES.md §7): the face-up cards of the last battle, the bottom part of its
    own pile that it ordered itself, and the pot while it orders it (``winner_chooses``)."""
    out = set()
    for s in range(st.piles.shape[1]):
        out |= set(mask_to_cards(st.face_up[b, s]))
    C = st.piles.shape[2]
    n, kn = int(st.size[b, seat]), int(st.known[b, seat])
    out |= {int(st.piles[b, seat, (int(st.head[b, seat]) + j) % C]) for j in range(n - kn, n)}
    if int(st.phase[b]) == 1 and int(st.winner[b]) == seat:  # ordering the pot
        out |= set(mask_to_cards(st.pot[b]))
    return out


def hand_sizes(st, b: int) -> list[int]:
    """What the view's ``hand_sizes`` are in P'yanitsa: the pile sizes (nobody holds cards in hand)."""
    return [int(n) for n in st.size[b]]


def fact(view, key):
    found = [f["value"] for f in view["facts"] if f["key"] == key]
    return found[0] if found else None


def test_view_before_and_after_a_plain_battle():
    # RULES.md §10 example 2: S0 KS 7C, S1 9H QD; KS wins
    env = new_env(["KS 7C", "9H QD"])
    v = env.unwrapped.table_view(0)
    assert v["hand"] == [] and v["hand_sizes"] == [2, 2] and v["exposed"] == [[], []]
    assert v["trick"] == [] and v["last_trick"] is None
    assert (v["to_act"], v["dealer"], v["phase"], v["teams"], v["summary"]) == (0, None, "flip", None, None)
    assert fact(v, "battles") == "0" and fact(v, "battle_winner") is None
    assert fact(v, "collect_order") == "winner_first" and fact(v, "objective") == "last_holder_loses"
    env.step(FLIP)
    assert env.unwrapped.table_view(0) == {**v, "to_act": 1}  # a flip shows nothing (§4.1)
    env.step(FLIP)
    v = env.unwrapped.table_view(1)
    battle = [{"seat": 0, "card": cid("KS")}, {"seat": 1, "card": cid("9H")}]
    assert v["trick"] == battle and v["last_trick"] == {"cards": battle, "winner": 0}
    assert v["hand_sizes"] == [3, 1] and v["scores"] == [{"key": "cards", "values": ["3", "1"]}]
    assert fact(v, "battles") == "1" and fact(v, "battle_winner") == "S0" and v["to_act"] == 0


def test_a_tie_shows_every_face_up_card_and_the_face_down_count():
    # RULES.md §10 example 4 (down-up): S0 8S 10C AD, S1 8H JD 7S; S0 wins with AD and S1 is empty
    env = new_env(["8S 10C AD", "8H JD 7S"], tie_mode="down_up")
    flip_battle(env)
    v = env.unwrapped.table_view(0)
    assert v["last_trick"]["cards"] == [  # seat by seat, face-up cards in id order, then the face-down ones
        {"seat": 0, "card": cid("AD")}, {"seat": 0, "card": cid("8S")}, {"seat": 0, "card": None},
        {"seat": 1, "card": cid("8H")}, {"seat": 1, "card": cid("7S")}, {"seat": 1, "card": None},
    ]
    assert v["last_trick"]["winner"] == 0 and v["phase"] == "over" and v["to_act"] is None
    assert fact(v, "out") == "S1"
    assert v["summary"] == {
        "key": "game_result",
        "lines": [{"key": "placing", "values": ["loser", "safe"]}, {"key": "cards", "values": ["6", "0"]}],
        "result": "seat_0_loses",
        "explain": [{"key": "py_last_holder", "args": {"seat": "S0", "n": 6}}],
    }
    assert "10C" not in json.dumps(v) and str(cid("10C")) not in [str(c["card"]) for c in v["trick"]]


def test_summary_of_a_draw_and_of_three_players_first_out():
    env = new_env(["9S", "9H"])  # §10 example 10: a dead battle
    flip_battle(env)
    v = env.unwrapped.table_view(0)
    assert v["summary"]["result"] == "draw" and v["summary"]["lines"][0]["values"] == ["draw", "draw"]
    assert fact(v, "battle_winner") == "dead" and v["last_trick"]["winner"] is None
    env = new_env(["KS 7C", "KH 9D", "8C AH"], num_players=3, objective="first_out_loses")  # §10 example 7
    flip_battle(env)
    v = env.unwrapped.table_view(2)
    assert v["summary"]["result"] == "seats_0_1_lose"
    assert v["summary"]["lines"][0]["values"] == ["loser", "loser", "safe"]


def test_the_pot_is_shown_to_the_seat_ordering_it_only():
    # RULES.md §10 example 12: S0 KS 8D, S1 9H 7C, winner_chooses: S0 orders KS and 9H
    env = new_env(["KS 8D", "9H 7C"], collect_order="winner_chooses")
    flip_battle(env)
    v0, v1 = env.unwrapped.table_view(0), env.unwrapped.table_view(1)
    assert v0["phase"] == "order" and v0["to_act"] == 0
    assert fact(v0, "ordering") == "S0" and fact(v0, "pot_size") == "2" and fact(v0, "pot") == "9H KS"  # id order
    assert fact(v1, "ordering") == "S0" and fact(v1, "pot_size") == "2" and fact(v1, "pot") is None
    env.step(cid("9H"))  # ORDER(9H): S0 holds 8D 9H KS and knows its bottom 9H KS
    v0, v1 = env.unwrapped.table_view(0), env.unwrapped.table_view(1)
    assert fact(v0, "my_ordered_bottom") == "9H KS" and fact(v1, "my_ordered_bottom") is None
    assert v0["phase"] == "flip" and v0["hand_sizes"] == [3, 1]

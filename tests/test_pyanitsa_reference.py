"""The kernel against an independent model of the rules (``pyanitsa_reference.py``), step by step:
random legal actions over every option value (RULES.md §8), comparing the player to act, the legal
actions, every pile after each battle, the end, the losers, the rewards and the truncation reason."""

from __future__ import annotations

import numpy as np
import pytest
from pyanitsa_reference import ReferenceGame
from reference_util import play_in_lockstep

from cardzoo.envs.pyanitsa.kernel import PyanitsaKernel

OPTION_SETS = [
    {},
    {"num_players": 3},
    {"num_players": 4, "objective": "first_out_loses"},
    {"num_players": 3, "tie_mode": "down_up", "runout": "forfeit"},
    {"num_players": 4, "tie_players": "tied", "tie_mode": "down_up"},
    {"num_players": 3, "tie_players": "tied", "runout": "forfeit", "six_beats_ace": False},
    {"collect_order": "seat_order", "num_players": 4},
    {"collect_order": "seat_order", "max_battles": 40, "detect_cycles": False},
    {"collect_order": "random", "num_players": 3, "deck": 52},
    {"collect_order": "winner_chooses", "num_players": 3, "tie_mode": "down_up"},
    {"collect_order": "winner_chooses", "deck": 52, "objective": "first_out_loses", "num_players": 4},
    {"deck": 52, "num_players": 3, "runout": "forfeit", "max_battles": 60},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_the_kernel_plays_as_the_reference_model(options):
    k = PyanitsaKernel(**options)
    o = dict(k.options)
    rng, pick = np.random.default_rng(11), np.random.default_rng(12)
    B = 12
    st = k.init(rng, B)
    ref = [ReferenceGame(o, k.piles(st, b)) for b in range(B)]
    C = o["deck"]
    assert all(sum(map(len, r.piles)) == (51 if C == 52 and o["num_players"] == 3 else C) for r in ref)
    seen = {"battles": 0, "ends": 0}

    def advance(b: int, r: ReferenceGame, action: int) -> None:
        before = r.battles
        r.flip() if action == k.FLIP else r.order(action)
        seen["battles"] += r.battles - before
        if r.random_pot is not None:  # the kernel drew the order: the same cards, in its order
            winner, pot = r.random_pot
            r.random_pot = None
            placed = k.piles(st, b)[winner][len(r.piles[winner]) - len(pot):]
            assert sorted(placed) == sorted(pot)
            r.piles[winner][-len(pot):] = placed
        if r.ordering is None:
            assert k.piles(st, b) == r.piles, (b, r.battles)
        assert bool(st.done[b]) == r.done, (b, r.battles)
        if r.done:
            info = k.info(st, b)
            assert info["battles"] == r.battles and info.get("truncation") == r.truncation
            assert np.allclose(st.rewards[b], r.rewards)
            if r.truncation is None:
                assert (info["draw"], info["losers"]) == (r.draw, r.losers)
            seen["ends"] += 1

    play_in_lockstep(k, st, rng, ref, lambda b, r, legal: pick.choice(legal), advance)
    battles, ends = seen["battles"], seen["ends"]
    assert ends == B and battles > 100 * (1 if o["max_battles"] < 100 or o["objective"] == "first_out_loses" else 5)

"""The rule bots of every game (``agents.load("<game>/rule")``), written once: legal on every position of
random or self play, the same choices from float observations, and better than random over duplicate deals.
Each game's own rule-bot behaviour (set positions, honesty, information use) is in ``test_<game>_agents.py``
(All Fours': ``test_agents.py``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cardzoo import agents, envs
from cardzoo.agents import RandomAgent
from cardzoo.training.arena import play_duplicate

#: (game, options, driver, games, seed, most steps (None: to the end of every game), more decisions than).
#: driver "random": RandomAgent(seed) plays the positions; "self": the bot plays them. P'yanitsa's bot has a
#: choice only under collect_order="winner_chooses".
LEGAL_CASES = [
    ("all_fours", {}, "random", 300, 11, None, 300 * 20),
    ("all_fours", {"undertrump": "forbidden"}, "random", 300, 11, None, 300 * 20),
    ("all_fours", {"deal_packet": 1, "forbid_game_ending_give_one": True, "episode": "match", "max_hands": 3},
     "random", 300, 11, None, 300 * 20),
    ("all_fours", {}, "self", 200, 5, None, 200 * 20),
    ("aluette", {}, "self", 256, 0, 2000, 256 * 36),
    ("aluette", {"signals": "free", "surrender": True, "episode": "match"}, "self", 256, 0, 2000, 256 * 36),
    ("aluette", {"signals": "off", "chant_recipients": "left_and_partner"}, "self", 256, 0, 2000, 256 * 36),
    ("avinas", {}, "self", 256, 0, 400, 256 * 20),
    ("avinas", {"facedown_signal": "free", "honesty": "mask", "trump_lead_rule": "every_lead", "knock_back": "always",
                "call_count": "suit", "episode": "match", "pip_limit": 6}, "self", 256, 0, 400, 256 * 20),
    ("ottocento", {}, "self", 256, 0, None, 256 * 60),
    ("pyanitsa", {"collect_order": "winner_chooses"}, "self", 64, 0, None, 64 * 20),
    ("pyanitsa", {"num_players": 3, "deck": 52, "collect_order": "winner_chooses", "objective": "first_out_loses"},
     "random", 64, 0, None, 64 * 20),
]


def _case_id(case) -> str:
    game, options, driver = case[:3]
    return f"{game}-{driver}-" + ("default" if not options else "-".join(f"{k}={v}" for k, v in options.items()))


@pytest.mark.parametrize("game, options, driver, games, seed, steps, min_decisions", LEGAL_CASES,
                         ids=[_case_id(c) for c in LEGAL_CASES])
def test_the_rule_bot_is_legal_everywhere_and_reads_float_observations_alike(game, options, driver, games, seed, steps,
                                                                             min_decisions):
    """At every position of ``games`` games (played by random or by the bot itself) the bot's action is an
    int64 legal action in every live game, and the same observations as float32 (with an int8 mask), and as
    float32 scaled to [0, 1] (the training wrappers' form), give the same actions."""
    k = envs.kernel(game, **options)
    bot = agents.load(f"{game}/rule", **options)
    rand = RandomAgent(seed)
    rng = np.random.default_rng(seed)
    st = k.init(rng, games)
    scale = np.maximum(k.obs_layout.high(), 1).astype(np.float32)
    decisions = 0
    for _ in range(steps if steps is not None else 10**6):
        if st.done.all():
            break
        obs, mask = k.observe(st, st.current_player), k.legal_actions(st)
        a = bot.act(obs, mask)
        live = np.flatnonzero(~st.done)
        assert a.dtype == np.int64 and a.shape == (games,)
        assert mask[live, a[live]].all()
        assert np.array_equal(bot.act(obs.astype(np.float32), mask.astype(np.int8))[live], a[live])
        assert np.array_equal(bot.act(obs.astype(np.float32) / scale, mask)[live], a[live])
        decisions += live.size
        k.step(st, a if driver == "self" else rand.act(obs, mask), rng)
    if steps is None or game == "aluette":  # every game ended (Aluette: within 2000 steps)
        assert st.done.all()
    assert decisions > min_decisions, decisions


#: (game, opponent, deals, play_duplicate's keywords): each game's rule bot against random play over
#: duplicate deals; 95% confidence intervals of the mean difference above 0 and of the win rate above 0.5
BEATS_RANDOM = [
    ("all_fours", "random", 200, {"seed": 0}),
    ("aluette", "random", 2000, {"seed": 0}),
    ("avinas", "avinas/random", 2000, {"seed": 0, "batch": 1000}),
    ("ottocento", "ottocento/random", 2000, {"seed": 0}),
    ("pyanitsa", "random", 400, {"seed": 0, "env_options": {"collect_order": "winner_chooses"}}),
]


@pytest.mark.parametrize("game, opponent, deals, kwargs", BEATS_RANDOM, ids=[c[0] for c in BEATS_RANDOM])
def test_the_rule_bot_beats_random_over_duplicate_deals(game, opponent, deals, kwargs):
    r = play_duplicate(game, f"{game}/rule", opponent, deals, **kwargs)
    assert r.n_deals == deals and r.truncated == 0
    assert r.diff_ci[0] > 0 and r.win_ci[0] > 0.5, r


def test_kernel_values_reads_both_float_forms_and_refuses_others():
    """The one reading of an observation batch every rule bot uses (agents.base.kernel_values): integers as
    they are; floats scaled to [0, 1] multiplied back by the layout's high; the kernel's values as floats
    told apart by a value above 1. Each bot once had its own test (all values, one column, or none: the
    Aluette bot scaled every float batch, so the kernel's values as floats were misread)."""
    from cardzoo.agents.base import is_scaled, kernel_values

    high = np.array([2, 6, 1])
    assert kernel_values(np.array([[1, 6, 1]], np.uint8), high).tolist() == [[1, 6, 1]]
    assert kernel_values(np.array([[0.5, 1.0, 1.0]], np.float32), high).tolist() == [[1, 6, 1]]  # scaled
    assert kernel_values(np.array([[1.0, 6.0, 1.0], [0.0, 1.0, 0.0]]), high).tolist() == [[1, 6, 1], [0, 1, 0]]  # raw: 6 > 1
    # a float batch of only 0s and 1s reads both ways: it is the documented float form, scaled
    assert is_scaled(np.array([[1.0, 0.0, 1.0]])) and kernel_values(np.array([[1.0, 0.0, 1.0]]), high).tolist() == [[2, 0, 1]]
    assert kernel_values(np.zeros((0, 3), np.float32), high).shape == (0, 3)
    for bad, said in (([[2.5, 1.0, 0.0]], "values up to 2.5, not all whole"), ([[np.nan, 0.0, 0.0]], "NaN or infinite values"),
                      ([[-1.0, 0.0, 0.0]], "values below 0 (from -1.0)")):
        with pytest.raises(ValueError, match=re.escape("a float observation must be scaled to [0, 1] (cardzoo.make_vec's "
                                                       f"form) or hold the kernel's values as whole numbers; got {said}")):
            kernel_values(np.array(bad), high)

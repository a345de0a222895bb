"""Duplicate-deal arena: statistics helpers, exact luck cancellation, a synthetic game with a
known answer, All Fours rule agent vs random, round robin and output."""

from __future__ import annotations

import dataclasses
import json
import math
import re

import numpy as np
import pytest

from cardzoo import envs
from cardzoo.envs.core import chance
from cardzoo.agents import Agent, RandomAgent
from cardzoo.agents.all_fours_rule import AllFoursRuleAgent
from cardzoo.training import arena
from cardzoo.training.arena import bradley_terry, mean_ci, play_duplicate, round_robin

# ---------------------------------------------------------------- statistics


def test_mean_ci_known_values():
    m, lo, hi = mean_ci([1, 2, 3, 4, 5])
    half = 1.959963984540054 * math.sqrt(2.5) / math.sqrt(5)  # z * s / sqrt(n), s^2 = 2.5
    assert m == 3.0
    assert lo == pytest.approx(3.0 - half, abs=1e-12)
    assert hi == pytest.approx(3.0 + half, abs=1e-12)
    m, lo, hi = mean_ci([2.0, 2.0, 2.0])
    assert (m, lo, hi) == (2.0, 2.0, 2.0)
    m, lo, hi = mean_ci([0, 1], confidence=0.9)
    assert hi - m == pytest.approx(1.6448536269514722 * math.sqrt(0.5) / math.sqrt(2), abs=1e-12)


def test_mean_ci_edge_cases():
    m, lo, hi = mean_ci([4.0])
    assert m == 4.0 and math.isnan(lo) and math.isnan(hi)
    with pytest.raises(ValueError, match="at least one"):
        mean_ci([])
    with pytest.raises(ValueError, match="confidence"):
        mean_ci([1, 2], confidence=1.5)


def test_bradley_terry_two_players_matches_odds():
    w = np.array([[0.0, 30.0], [10.0, 0.0]])
    r = bradley_terry(w, prior=0.0)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3.0), abs=1e-6)
    assert r.sum() == pytest.approx(0.0, abs=1e-9)
    r = bradley_terry(w)  # prior: half a pseudo-game to each side
    assert r[0] - r[1] == pytest.approx(400 * math.log10(30.25 / 10.25), abs=1e-6)
    # an unbeaten player still gets a finite rating
    assert np.isfinite(bradley_terry(np.array([[0.0, 5.0], [0.0, 0.0]]))).all()


def test_bradley_terry_three_players_consistent_odds():
    # strengths 4 : 2 : 1 -> expected win shares 2/3 for every adjacent pair, 4/5 for 0 vs 2
    w = np.array([[0, 200, 240], [100, 0, 200], [60, 100, 0]], dtype=float)
    r = bradley_terry(w, prior=0.0)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(2), abs=1e-3)
    assert r[1] - r[2] == pytest.approx(400 * math.log10(2), abs=1e-3)


# ---------------------------------------------------------------- a synthetic game with a known answer


@dataclasses.dataclass
class _CoinState:
    current_player: np.ndarray
    done: np.ndarray
    truncated: np.ndarray
    rewards: np.ndarray
    luck: np.ndarray
    moves: np.ndarray

    @property
    def batch_size(self):
        return self.done.shape[0]


class _CoinKernel:
    """Two seats, no teams; seat 0 then seat 1 choose 0 or 1. Seat 0's reward is
    ``(a0 - a1) + luck`` (seat 1's the negative), ``luck = deck[0] % 3 - 1`` fixed by the deal."""

    name = "coin"
    num_players = 2
    num_actions = 2
    teams = None
    zero_sum = True
    INIT_HOOKS = ("deck",)
    deck = type("Deck", (), {"n": 5})()
    max_episode_steps = 2

    def init(self, rng, batch, deck=None):
        deck = np.asarray(deck) if deck is not None else chance.uniform(rng, batch, (5,), kind="deal").argsort(axis=1)
        z = np.zeros(batch)
        return _CoinState(
            current_player=np.zeros(batch, np.int8),
            done=z.astype(bool),
            truncated=z.astype(bool),
            rewards=np.zeros((batch, 2), np.float32),
            luck=(deck[:, 0] % 3 - 1).astype(np.float32),
            moves=np.zeros((batch, 2), np.int64),
        )

    def observe(self, st, seat):
        return np.stack([np.broadcast_to(seat, st.done.shape), st.luck], axis=1).astype(np.float32)

    def legal_actions(self, st):
        return np.repeat(~st.done[:, None], 2, axis=1)

    def step(self, st, actions, rng):
        st.rewards[:] = 0
        live = ~st.done
        p = st.current_player.astype(np.int64)
        st.moves[live, p[live]] = actions[live]
        end = live & (p == 1)
        r = (st.moves[:, 0] - st.moves[:, 1]) + st.luck
        st.rewards[end, 0] = r[end]
        st.rewards[end, 1] = -r[end]
        st.done |= end
        st.current_player[live & (p == 0)] = 1

    def action_name(self, a):
        return str(int(a))

    def outcome(self, returns):
        return np.sign(returns).astype(np.int8)

    def episode_outcome(self, st, returns):  # the contract's (Kernel.episode_outcome): a capped game is a draw
        out = self.outcome(returns)
        out[st.truncated] = 0
        return out

    null_win_rate = 0.5


class _Always(Agent):
    def __init__(self, action):
        self.action = action
        self.name = f"always{action}"

    def act(self, observation, action_mask):
        return np.full(len(action_mask), self.action, dtype=np.int64)


def test_synthetic_game_known_difference_and_win_rate(monkeypatch):
    monkeypatch.setattr(envs, "kernel", lambda game, **o: _CoinKernel())
    r = play_duplicate("coin", _Always(1), _Always(0), n_deals=300, seed=5, batch=64)
    # luck cancels exactly: A's return is 1 + luck in one seating and 1 - luck in the other
    assert r.mean_diff == 1.0
    assert r.diff_ci == (1.0, 1.0)
    assert np.all(r.deal_diff == 1.0)
    # luck -1: A ties (0 vs 0) in seat 0 and wins in seat 1 -> 0.75; luck 0: wins both; luck +1: 0.75
    assert set(np.unique(r.deal_win).tolist()) == {0.75, 1.0}
    assert r.win_rate == pytest.approx(r.deal_win.mean())
    assert (r.win_rate, *r.win_ci) == pytest.approx(mean_ci(r.deal_win))
    # a win rate's CI stays inside [0, 1]: 4 deals, mostly sure wins, would reach past 1 unclipped
    few = play_duplicate("coin", _Always(1), _Always(0), n_deals=4, seed=5, batch=4)
    assert mean_ci(few.deal_win)[2] > 1 and few.win_ci[1] == 1.0 and few.win_ci[0] == mean_ci(few.deal_win)[1]
    assert r.n_hands == 600 and r.n_deals == 300
    # the luck of a deal is deck[0] % 3 - 1: recompute the deals and the expected win share
    decks = chance.uniform(arena.deal_streams(5, 0, 300), 300, (5,), kind="deal").argsort(axis=1)
    expected = np.where(decks[:, 0] % 3 == 1, 1.0, 0.75)
    assert np.array_equal(r.deal_win, expected)
    # swapping the agents negates the difference
    s = play_duplicate("coin", _Always(0), _Always(1), n_deals=300, seed=5, batch=300)
    assert s.mean_diff == -1.0 and s.win_rate == pytest.approx(1 - r.win_rate)


def test_illegal_action_raises_naming_it(monkeypatch):
    monkeypatch.setattr(envs, "kernel", lambda game, **o: _CoinKernel())
    with pytest.raises(ValueError, match="illegal action 7"):
        play_duplicate("coin", _Always(7), _Always(0), n_deals=4)


# ---------------------------------------------------------------- All Fours


def test_same_deterministic_agent_has_exactly_zero_difference():
    rule = AllFoursRuleAgent()
    r = play_duplicate("all_fours", rule, rule, n_deals=300, seed=3, batch=128)
    assert r.mean_diff == 0.0
    assert np.all(r.deal_diff == 0.0)
    assert r.win_rate == 0.5 and np.all(r.deal_win == 0.5)
    assert r.n_hands == 600


def test_rule_agent_beats_random_on_duplicate_hands():
    r = play_duplicate("all_fours", AllFoursRuleAgent(), RandomAgent(seed=1), n_deals=200, seed=0)
    assert r.n_hands == 400
    assert r.mean_diff > 0.5
    assert r.diff_ci[0] > 0.0
    assert r.win_ci[0] > 0.5
    m, lo, hi = mean_ci(r.deal_diff)
    assert (r.mean_diff, *r.diff_ci) == pytest.approx((m, lo, hi))


def test_deals_depend_on_seed_only():
    # random vs random with the same agent seeds: same seed -> same result, another seed -> another one
    a = play_duplicate("all_fours", RandomAgent(1), RandomAgent(2), n_deals=100, seed=9)
    b = play_duplicate("all_fours", RandomAgent(1), RandomAgent(2), n_deals=100, seed=9)
    c = play_duplicate("all_fours", RandomAgent(1), RandomAgent(2), n_deals=100, seed=10)
    assert np.array_equal(a.deal_diff, b.deal_diff)
    assert not np.array_equal(a.deal_diff, c.deal_diff)


def test_agents_by_name_and_options():
    r = play_duplicate(
        "all_fours", "all_fours/rule", "all_fours/random", n_deals=50, seed=1, env_options={"undertrump": "forbidden"}
    )
    assert r.agent_a == "all_fours/rule" and r.agent_b == "all_fours/random"
    assert r.env_options == {"undertrump": "forbidden"}
    with pytest.raises(ValueError, match="n_deals"):
        play_duplicate("all_fours", "random", "random", n_deals=0)
    with pytest.raises(ValueError, match="unknown game"):
        play_duplicate("no_such_game", "random", "random", n_deals=1)


def test_round_robin_ratings_and_json():
    agents = {"rule": AllFoursRuleAgent(), "random": RandomAgent(seed=0), "random2": RandomAgent(seed=1)}
    rr = round_robin("all_fours", agents, n_deals=150, seed=2, n_boot=50)
    assert len(rr.pairs) == 3
    i_rule, i_r1, i_r2 = (rr.names.index(n) for n in ("rule", "random", "random2"))
    assert rr.ratings[i_rule] > rr.ratings[i_r1] and rr.ratings[i_rule] > rr.ratings[i_r2]
    assert rr.ratings.sum() == pytest.approx(0.0, abs=1e-6)
    assert np.all(rr.rating_ci[:, 0] <= rr.ratings + 1e-9) and np.all(rr.ratings <= rr.rating_ci[:, 1] + 1e-9)
    # win matrix: every pair played 300 hands
    assert rr.wins[i_rule, i_r1] + rr.wins[i_r1, i_rule] == pytest.approx(300)
    d = json.loads(json.dumps(rr.to_dict()))
    assert d["ratings"][0]["agent"] == "rule"
    assert {p["agent_a"] for p in d["pairs"]} <= set(agents)
    with pytest.raises(ValueError, match="at least 2"):
        round_robin("all_fours", {"x": RandomAgent()}, n_deals=1)


def test_tables_render():
    from rich.console import Console

    r = play_duplicate("all_fours", AllFoursRuleAgent(), RandomAgent(seed=1), n_deals=20, seed=0)
    console = Console(record=True, width=160)
    arena.print_results(r, console=console)
    text = console.export_text()
    assert "all_fours/rule" in text and "random" in text and f"{r.mean_diff:+.3f}" in text
    assert json.loads(json.dumps(r.to_dict()))["n_hands"] == 40
    assert "mean diff / hand (A-B)" in text and "hands" in text


@pytest.mark.parametrize(("game", "options", "count", "mean"), [
    ("all_fours", {}, "hands", "mean diff / hand"),
    ("all_fours", {"episode": "match"}, "matches", "mean diff / match"),
    ("aluette", {"episode": "match"}, "matches", "mean diff / match"),
    ("avinas", {}, "deals", "mean diff / deal"),
    ("ottocento", {}, "deals", "mean diff / deal"),
    ("ottocento", {"match_target": 300}, "matches", "mean diff / match"),
    ("pyanitsa", {"num_players": 3}, "games", "mean diff / game"),
])
def test_tables_name_the_episode_in_the_games_terms(game, options, count, mean):
    """The table's count and mean are per episode as the game calls it (Kernel.episode_name):
    an All Fours match is not called a hand."""
    from rich.console import Console

    r = play_duplicate("all_fours", AllFoursRuleAgent(), RandomAgent(seed=1), n_deals=2, seed=0)
    r = dataclasses.replace(r, game=game, env_options=options)
    assert envs.kernel(game, **options).episode_name == mean.rsplit(" ", 1)[1]
    console = Console(record=True, width=200)
    console.print(arena.results_table(r))
    header = console.export_text().splitlines()[2]
    assert f" {count} played " in header and f"{mean} (A-B)" in header
    assert " hands " not in header or count == "hands"
    from cardzoo.training.selfplay import evaluation_markdown

    # the evaluation table of cardzoo train: its column said "deals" over 4 for --eval-deals 2 (each duplicate deal is
    # played once per side); it now says "deals played", as the arena's table does
    md = evaluation_markdown([r.to_dict()])
    assert f"| agent | opponent | {count} played | {mean} [95% CI] | win rate [95% CI] |" in md
    assert f"| {r.n_hands} | " in md and r.n_hands == 4


def test_by_category_splits_avinas_deals_into_sevens_and_no_sevens():
    """Avinas results split by kind of deal: the kinds are those of the stacked deals (checked
    against the kernel's own ``game`` field), and the split recombines to the overall mean."""
    from cardzoo.envs.avinas.constants import NO_SEVENS

    r = play_duplicate("avinas", "avinas/rule", "random", 120, seed=3, batch=50)
    assert r.categories == ("sevens", "no_sevens")
    k = envs.kernel("avinas")
    st = k.init(arena.deal_streams(3, 0, 120), 120)
    assert np.array_equal(r.deal_category, (st.game == NO_SEVENS).astype(np.int64))
    split = r.by_category()
    assert set(split) == {"sevens", "no_sevens"}
    n = [split[c]["n_deals"] for c in r.categories]
    assert sum(n) == 120 and min(n) > 10
    recombined = sum(split[c]["mean_diff"] * split[c]["n_deals"] for c in r.categories) / 120
    assert recombined == pytest.approx(r.mean_diff)
    assert r.to_dict()["by_category"]["sevens"]["n_deals"] == n[0]


def test_by_category_is_empty_for_games_with_one_kind_of_deal():
    r = play_duplicate("all_fours", "random", "random", 4, seed=0)
    assert r.deal_category is None and r.by_category() == {} and r.to_dict()["by_category"] == {}


def test_a_search_agent_named_on_the_command_line_gets_the_seed():
    """`cardzoo arena ... all_fours/pimc --seed S` is reproducible: the search draws from the seed."""
    import numpy as np

    from cardzoo import envs
    from cardzoo.training.common import resolve_agent

    k = envs.kernel("all_fours")
    st = k.init(np.random.default_rng(0), 64)
    q = [resolve_agent("all_fours/pimc", seed=s, game="all_fours").search.q_values(st) for s in (5, 5, 6)]
    assert np.array_equal(q[0], q[1], equal_nan=True)
    assert not np.array_equal(q[0], q[2], equal_nan=True)  # the seed is what fixes the determinizations


def test_not_losing_rate_for_three_and_four_players(capsys):
    """P'yanitsa with 3 or 4 seats, each alone: A's share of games not lost, beside what an agent as good as
    B would score (1 - the share of losing seats in the same games), in the result, its JSON and the print."""
    from cardzoo.training.arena import print_results

    # winner_first: no choice at all, so A and B play alike; every game has one loser of 4 seats
    same = play_duplicate("pyanitsa", "pyanitsa/rule", "random", 40, seed=3, env_options={"num_players": 4})
    assert same.n_sides == 4 and same.not_losing == same.null_not_losing == 0.75 and same.not_losing_ci == (0.75, 0.75)
    # winner_chooses, 3 seats: the rule bot alone against two (seeded) random players, 60 deals x 3 seatings
    r = play_duplicate("pyanitsa", "pyanitsa/rule", RandomAgent(seed=1), 60, seed=3,
                       env_options={"num_players": 3, "collect_order": "winner_chooses"}, name_b="random")
    assert r.not_losing == pytest.approx(135 / 180) and r.null_not_losing == pytest.approx(2 / 3)
    assert r.not_losing_ci[0] < 135 / 180 < r.not_losing_ci[1]
    d = r.to_dict()
    assert d["not_losing"] == r.not_losing and d["null_not_losing"] == r.null_not_losing and len(d["not_losing_ci"]) == 2
    assert d["n_sides"] == 3
    print_results(r)
    said = capsys.readouterr().out
    assert "pyanitsa/rule alone against 2 x random: not losing in 0.750 [" in said
    assert "an agent as good as random: 0.667 (1 - the share of losing seats)" in said
    two = play_duplicate("pyanitsa", "pyanitsa/rule", "random", 4, seed=3)
    print_results(two)
    assert two.n_sides == 2 and "not losing" not in capsys.readouterr().out  # two seats: the win rate says it all


def test_a_stochastic_agent_plays_every_pairing_from_the_same_state():
    """play_duplicate puts the agents' random generators back as it found them (also inside wrapped
    agents): the same RandomAgent object gives the same result twice, a round robin's pairing equals
    that pairing played alone, and what other pairings drew does not leak in."""
    from cardzoo.agents.phase_mix import PhaseMix

    rnd = RandomAgent(seed=5)
    before = rnd.rng.bit_generator.state
    first = play_duplicate("all_fours", AllFoursRuleAgent(), rnd, n_deals=16, seed=2, batch=8)
    assert rnd.rng.bit_generator.state == before
    again = play_duplicate("all_fours", AllFoursRuleAgent(), rnd, n_deals=16, seed=2, batch=8)
    assert np.array_equal(first.deal_diff, again.deal_diff)
    fresh = play_duplicate("all_fours", AllFoursRuleAgent(), RandomAgent(seed=5), n_deals=16, seed=2, batch=8)
    assert np.array_equal(first.deal_diff, fresh.deal_diff)
    # a wrapped random agent (PhaseMix: random bids, rule card play) is put back too
    mix = PhaseMix(RandomAgent(seed=6), AllFoursRuleAgent(), "all_fours")
    state = mix.bids.rng.bit_generator.state
    play_duplicate("all_fours", mix, AllFoursRuleAgent(), n_deals=8, seed=2)
    assert mix.bids.rng.bit_generator.state == state
    # in a round robin, (rule, random) does not depend on the pairing (x, random) played before it
    rr = round_robin("all_fours", {"x": RandomAgent(seed=9), "rule": AllFoursRuleAgent(), "random": RandomAgent(seed=5)},
                     n_deals=16, seed=2, batch=8, n_boot=0)
    rule_vs_random = [p for p in rr.pairs if (p.agent_a, p.agent_b) == ("rule", "random")][0]
    assert np.array_equal(rule_vs_random.deal_diff, fresh.deal_diff)
    assert rule_vs_random.mean_diff == fresh.mean_diff


def test_a_sampling_policy_is_put_back_too():
    """A trained agent that samples its actions (torch generator) plays the same deals the same way
    on every call."""
    import os

    from cardzoo.agents.policy import load_policy_agent
    from cardzoo.agents.registry import SHIPPED

    sampler = load_policy_agent(os.path.join(SHIPPED, "all_fours_ppo"), deterministic=False, seed=3)
    first, again = (play_duplicate("all_fours", sampler, AllFoursRuleAgent(), n_deals=12, seed=4) for _ in range(2))
    assert np.array_equal(first.deal_diff, again.deal_diff)


def test_via_common_opponent_pairs_the_deals():
    """Two copies of the rule bot compared through random are exactly level on every deal (random
    starts each pairing from the same state); the rule bot against random, minus random against
    itself, is the rule bot's own edge, with a CI of the paired per-deal differences."""
    rr = round_robin("all_fours", {"rule": AllFoursRuleAgent(), "copy": AllFoursRuleAgent(), "random": RandomAgent(seed=4)},
                     n_deals=60, seed=5, n_boot=0)
    rows = {(r["a"], r["b"], r["via"]): r for r in rr.via_common_opponent()}
    assert len(rows) == 3
    same = rows[("rule", "copy", "random")]
    assert same["mean_diff"] == 0.0 and same["a_vs_via"] == same["b_vs_via"] == rr.pairs[1].mean_diff
    r = rows[("rule", "random", "copy")]  # rule vs copy is 0 on every deal, so this is -(copy vs random) + 0
    expect = mean_ci(-rr.pairs[0].deal_diff + rr.pairs[2].deal_diff)
    assert r["a_vs_via"] == 0.0 and r["b_vs_via"] == pytest.approx(-rr.pairs[2].mean_diff)
    assert (r["mean_diff"], *r["diff_ci"]) == pytest.approx(expect)
    assert r["mean_diff"] == pytest.approx(rr.pairs[2].mean_diff)
    assert json.loads(json.dumps(rr.to_dict()))["via_common_opponent"][0]["via"] == "random"


def test_via_common_opponent_with_three_sides_compares_each_alone_against_c():
    """P'yanitsa with 3 players: a pairing seats its first agent alone against two copies of the
    second. The round robin plays every pair both ways, so every (A, B, via C) row compares A alone
    against C with B alone against C (before, only the one row with C named last was given)."""
    opts = {"num_players": 3, "collect_order": "winner_chooses", "objective": "first_out_loses", "max_battles": 300}
    rr = round_robin("pyanitsa", {"rule": "pyanitsa/rule", "random": RandomAgent(seed=3), "other": RandomAgent(seed=4)},
                     n_deals=20, seed=6, env_options=opts, n_boot=0)
    assert [(p.agent_a, p.agent_b) for p in rr.pairs] == [("rule", "random"), ("rule", "other"), ("random", "rule"),
                                                          ("random", "other"), ("other", "rule"), ("other", "random")]
    alone = {(p.agent_a, p.agent_b): p for p in rr.pairs}
    rows = rr.via_common_opponent()
    assert [(r["a"], r["b"], r["via"]) for r in rows] == [("rule", "random", "other"), ("rule", "other", "random"),
                                                          ("random", "other", "rule")]
    for r in rows:
        assert r["a_vs_via"] == pytest.approx(alone[(r["a"], r["via"])].mean_diff)
        assert r["b_vs_via"] == pytest.approx(alone[(r["b"], r["via"])].mean_diff)


def test_three_sided_round_robin_ratings_do_not_depend_on_the_order_of_the_agents():
    """A round robin of 3-player P'yanitsa played each pair once, the agent named first alone against
    two copies of the other, so the ratings changed with the order the agents were given. Both
    orientations are now played and the wins of both add up: the same ratings in any order, equal
    to Bradley-Terry on the two pairings' wins recomputed from their per-deal results."""
    opts = {"num_players": 3, "collect_order": "winner_chooses"}
    one = round_robin("pyanitsa", ["pyanitsa/rule", "lowest", "random"], 8, seed=3, env_options=opts, n_boot=0)
    # the same agents seeded alike: the list built random, third, with seed 3 + 2
    two = round_robin("pyanitsa", {"random": RandomAgent(seed=5), "lowest": "lowest", "pyanitsa/rule": "pyanitsa/rule"}, 8,
                      seed=3, env_options=opts, n_boot=0)
    one_r = dict(zip(one.names, one.ratings))
    two_r = dict(zip(two.names, two.ratings))
    assert [one_r[n] for n in one.names] == pytest.approx([two_r[n] for n in one.names], abs=1e-9)
    w = np.zeros((3, 3))
    for p in one.pairs:
        i, j = one.names.index(p.agent_a), one.names.index(p.agent_b)
        won = p.deal_win.sum() * 3
        w[i, j] += won
        w[j, i] += 24 - won
    assert np.allclose(one.wins, w) and np.allclose(one.ratings, bradley_terry(w))


def test_one_deal_has_no_ci_written_null_and_printed_n_a(tmp_path, capsys):
    """`cardzoo arena ... --deals 1`: the means are given, every CI is undefined (one paired
    observation): 'n/a (1 deal)' in the tables, null in --json (valid JSON: no NaN), the same keys
    as with more deals; a rate's CI is not clipped into [0, 1] from NaN."""
    from cardzoo.training.cli import main

    def strict(text):  # json.loads accepts NaN; valid JSON has none
        return json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))

    r = play_duplicate("all_fours", "all_fours/rule", "random", 1, seed=0)
    assert all(math.isnan(x) for x in (*r.diff_ci, *r.win_ci, *r.not_losing_ci))
    assert math.isfinite(r.mean_diff) and math.isfinite(r.win_rate)
    out = tmp_path / "one.json"
    assert main(["arena", "all_fours", "all_fours/rule", "random", "--deals", "1", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "nan" not in printed and printed.count("n/a (1 deal)") == 2  # the two CIs of the one row
    one = strict(out.read_text())
    assert one["diff_ci"] == one["win_ci"] == one["not_losing_ci"] == [None, None]
    assert one["n_deals"] == 1 and isinstance(one["mean_diff"], float) and isinstance(one["win_rate"], float)
    two = tmp_path / "two.json"
    assert main(["arena", "all_fours", "all_fours/rule", "random", "--deals", "2", "--json", str(two)]) == 0
    capsys.readouterr()
    two = strict(two.read_text())
    assert list(two) == list(one) and all(isinstance(x, float) for x in two["diff_ci"] + two["win_ci"])
    # round robin: the bootstrap of one deal gives no interval either, nor the comparison through C
    rr = tmp_path / "rr.json"
    assert main(["arena", "all_fours", "all_fours/rule", "random", "random", "--deals", "1", "--json", str(rr)]) == 0
    printed = capsys.readouterr().out
    assert "nan" not in printed and "n/a (1 deal)" in printed
    rr = strict(rr.read_text())
    assert [x["ci"] for x in rr["ratings"]] == [[None, None]] * 3
    assert {tuple(x["diff_ci"]) for x in rr["via_common_opponent"]} == {(None, None)}
    assert all(isinstance(x["rating"], float) for x in rr["ratings"])


def test_a_kind_of_deal_with_one_or_no_deals_has_its_mean_but_no_ci():
    """Avinas split by kind of deal over 1 deal: that deal's kind has its mean and no CI; the
    other kind has neither (n/a in the table, null through json_safe)."""
    r = play_duplicate("avinas", "avinas/rule", "random", 1, seed=3)
    split = r.by_category()
    one = next(c for c in split.values() if c["n_deals"] == 1)
    none = next(c for c in split.values() if c["n_deals"] == 0)
    assert one["mean_diff"] == r.mean_diff and one["win_rate"] == r.win_rate
    assert all(math.isnan(x) for x in one["diff_ci"] + one["win_ci"] + [none["mean_diff"], none["win_rate"]])
    assert arena.json_safe(none) == {"n_deals": 0, "mean_diff": None, "diff_ci": [None, None], "win_rate": None,
                                     "win_ci": [None, None]}
    assert arena.json_safe({"a": (1.0, float("inf")), "b": [np.float64("nan"), 2], "c": "x"}) == {"a": [1.0, None],
                                                                                                   "b": [None, 2], "c": "x"}
    assert arena.json_text({"a": (np.float64("nan"), 1.0), "b": [float("-inf")]}, indent=None) == '{"a": [null, 1.0], "b": [null]}'
    assert arena.ci_text(float("nan"), float("nan"), "+.3f", 0) == "n/a (0 deals)"
    assert arena.ci_text(-0.25, 0.5, "+.3f", 9) == "[-0.250, +0.500]"


def test_an_empty_json_path_is_refused_before_any_deal(tmp_path, monkeypatch, capsys):
    """`cardzoo arena ... --json ""` wrote nothing and said nothing (an empty path read as no --json);
    it is refused (exit code 2) naming the flag and what to give, before any deal is played, and
    nothing is written."""
    from cardzoo.training.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: pytest.fail("a deal was played"))
    for path in ("", "  "):
        assert main(["arena", "avinas", "lowest", "avinas/rule", "--deals", "2", "--json", path]) == 2
        err = capsys.readouterr().err
        assert f"--json {path!r} is an empty path: give the file to write, e.g. --json arena.json" in err
    assert list(tmp_path.iterdir()) == []


def test_rating_ci_is_undefined_for_one_deal():
    """arena.rating_ci (the bootstrap of the round robin and of the leaderboard): NaN with 1 deal
    or no resamples (resampling one deal gives it back: a zero-width interval [r, r] would claim a
    certainty there is no data for); an interval of positive width around the rating with 2+ deals."""
    K = 3

    def wins(idx):  # agent 0 beats 1 on even deals, loses on odd ones; 2 draws everything
        w = np.zeros((K, K))
        w[0, 1] = float((np.asarray(idx) % 2 == 0).sum())
        w[1, 0] = len(idx) - w[0, 1]
        w[0, 2] = w[2, 0] = w[1, 2] = w[2, 1] = len(idx) / 2.0
        return w

    assert np.isnan(arena.rating_ci(wins, K, 1, seed=0, n_boot=200)).all()
    assert np.isnan(arena.rating_ci(wins, K, 6, seed=0, n_boot=0)).all()
    ci = arena.rating_ci(wins, K, 6, seed=0, n_boot=200)
    assert ci.shape == (K, 2) and (ci[:2, 1] - ci[:2, 0] > 50).all()
    assert np.array_equal(ci, arena.rating_ci(wins, K, 6, seed=0, n_boot=200))  # from the seed
    rr = round_robin("all_fours", {"rule": AllFoursRuleAgent(), "random": RandomAgent(seed=0), "r2": RandomAgent(seed=1)},
                     n_deals=1, seed=2, n_boot=40)
    assert np.isnan(rr.rating_ci).all()
    assert "n/a (1 deal)" in arena.ci_text(*rr.rating_ci[0], "+.0f", 1)


def test_rating_ci_shows_its_progress_over_the_resamples(capsys):
    """A long bootstrap (the leaderboard's --boot) shows a bar with rate and ETA on stderr, counted in
    resamples, and gives the very same intervals as without it (one stream drawn in the same order)."""
    def wins(idx):
        w = np.zeros((2, 2))
        w[0, 1] = float((np.asarray(idx) % 3 != 0).sum())
        w[1, 0] = len(idx) - w[0, 1]
        return w

    quiet = arena.rating_ci(wins, 2, 9, seed=4, n_boot=300)
    assert capsys.readouterr().err == ""
    shown = arena.rating_ci(wins, 2, 9, seed=4, n_boot=300, progress=True)
    err = capsys.readouterr().err
    assert "rating CIs (bootstrap)" in err and "/300 " in err and "resample/s" in err
    assert np.array_equal(quiet, shown)


def test_a_named_random_agent_is_seeded_from_the_arena_seed(tmp_path, capsys):
    """play_duplicate(game, "random", ...) from Python drew fresh entropy: two calls with the same
    seed gave different numbers. A named agent that draws random numbers is built with seed (A) and
    seed + 1 (B), as `cardzoo arena --seed` builds them: the same call gives the same numbers, the
    same as the command line's, and the same as an agent object built with that seed. Its play still
    depends on the batch (one generator draws for the whole chunk): documented, not claimed away."""
    from cardzoo.training.cli import main

    first, again = (play_duplicate("all_fours", "random", "all_fours/rule", 24, seed=1, batch=8) for _ in range(2))
    assert np.array_equal(first.deal_diff, again.deal_diff) and np.array_equal(first.deal_win, again.deal_win)
    assert (first.mean_diff, first.diff_ci, first.win_rate, first.win_ci) == (again.mean_diff, again.diff_ci, again.win_rate, again.win_ci)
    as_object = play_duplicate("all_fours", RandomAgent(seed=1), "all_fours/rule", 24, seed=1, batch=8)
    assert np.array_equal(as_object.deal_diff, first.deal_diff)
    as_b = play_duplicate("all_fours", "all_fours/rule", "random", 24, seed=1, batch=8)  # B: seed + 1
    assert np.array_equal(as_b.deal_diff, play_duplicate("all_fours", "all_fours/rule", RandomAgent(seed=2), 24, seed=1, batch=8).deal_diff)
    other_seed = play_duplicate("all_fours", "random", "all_fours/rule", 24, seed=2, batch=8)
    assert not np.array_equal(other_seed.deal_diff, first.deal_diff)
    out = tmp_path / "cli.json"
    assert main(["arena", "all_fours", "random", "all_fours/rule", "--deals", "24", "--seed", "1", "--batch", "8", "--json", str(out)]) == 0
    capsys.readouterr()
    cli = json.loads(out.read_text())
    assert (cli["mean_diff"], cli["win_rate"]) == (first.mean_diff, first.win_rate)
    # round robin by names: the i-th agent gets seed + i, each pairing from the same state
    rr1, rr2 = (round_robin("all_fours", ["all_fours/rule", "random", "lowest"], 12, seed=4, batch=4, n_boot=0) for _ in range(2))
    assert [p.mean_diff for p in rr1.pairs] == [p.mean_diff for p in rr2.pairs]
    assert np.array_equal(rr1.pairs[0].deal_diff,
                          play_duplicate("all_fours", "all_fours/rule", RandomAgent(seed=5), 12, seed=4, batch=4).deal_diff)
    # the caveat of ARENA.md and --batch's help: a stochastic agent's play changes with the batch
    assert not np.array_equal(play_duplicate("all_fours", "random", "all_fours/rule", 24, seed=1, batch=5).deal_diff, first.deal_diff)


def test_play_duplicate_and_round_robin_refuse_bad_agents_counts_and_seeds_naming_the_argument():
    """play_duplicate("all_fours", None, "random", 2) gave AttributeError ('NoneType' has no attribute
    'begin'), seed=1.5 / "3" / True and n_deals=1.5 / True were taken (int()), and round_robin with
    ["random", "random"] merged them into one and said it "needs at least 2 agents, got ['random']"."""
    from cardzoo.agents.registry import agent_name

    with pytest.raises(TypeError) as named:
        agent_name(None)
    for args, arg in ((("all_fours", None, "random", 2), "agent_a"), (("all_fours", "random", 3, 2), "agent_b")):
        with pytest.raises(TypeError) as e:
            play_duplicate(*args)
        bad = args[1] if arg == "agent_a" else args[2]
        assert str(e.value) == f"{arg} is not an agent (an Agent, or an object with act()); " + str(named.value).replace("None", repr(bad))
    for kw, msg in (({"seed": 1.5}, "seed must be a non-negative int (it fixes the deals), got 1.5"),
                    ({"seed": "3"}, "seed must be a non-negative int (it fixes the deals), got '3'"),
                    ({"seed": True}, "seed must be a non-negative int (it fixes the deals), got True"),
                    ({"seed": -1}, "seed must be a non-negative int (it fixes the deals), got -1"),
                    ({"n_deals": 1.5}, "n_deals must be an int >= 1, got 1.5"), ({"n_deals": True}, "n_deals must be an int >= 1, got True"),
                    ({"n_deals": 0}, "n_deals must be an int >= 1, got 0"), ({"batch": 0}, "batch must be an int >= 1, got 0"),
                    ({"batch": 2.0}, "batch must be an int >= 1, got 2.0")):
        args = {"n_deals": 2, **kw}
        with pytest.raises(ValueError) as e:
            play_duplicate("all_fours", "random", "lowest", **args)
        assert str(e.value) == msg
        with pytest.raises(ValueError) as e:
            round_robin("all_fours", ["random", "lowest"], **args)
        assert str(e.value) == msg
    assert play_duplicate("all_fours", "random", "lowest", np.int64(2), seed=np.int64(3), batch=np.int64(1)).n_deals == 2
    with pytest.raises(ValueError) as e:
        round_robin("all_fours", ["random", "lowest"], 2, n_boot=-1)
    assert str(e.value) == "n_boot must be an int >= 0, got -1"
    with pytest.raises(ValueError) as e:
        round_robin("all_fours", ["random", "random"], 3)
    assert str(e.value) == ("round_robin: agents ['random'] are given more than once; each agent plays once. To have the same agent twice, "
                            "pass a dict of distinct names, e.g. {'random': 'random', 'random#2': 'random'}")
    rr = round_robin("all_fours", {"random": "random", "random#2": "random"}, 3, n_boot=0)  # the way it says
    assert rr.names == ["random", "random#2"]
    with pytest.raises(TypeError, match=r"^agents\['x'\] is not an agent"):
        round_robin("all_fours", {"x": None, "random": "random"}, 3)


def test_an_agent_for_another_observation_layout_is_refused_by_name_before_playing(monkeypatch):
    """A saved 3-player P'yanitsa agent in a 2-player game failed on its first decision with
    "expected observation [B, 236] and action_mask [B, 37], got (3, 195) and (3, 37)", naming
    neither the agent nor the options; it is refused before any deal, naming both."""
    from pathlib import Path

    import cardzoo
    from cardzoo.agents.options import LayoutMismatchError

    three = str(Path(__file__).resolve().parent.parent / "agents" / "shipped" / "pyanitsa_ppo_3p")
    monkeypatch.setattr(arena, "_play_chunk", lambda *a, **k: pytest.fail("a deal was played"))
    want = ("was trained for other pyanitsa options (collect_order: trained 'winner_chooses', here 'winner_first'; "
            "num_players: trained 3, here 2), which give another observation")
    with pytest.raises(LayoutMismatchError) as e:
        play_duplicate("pyanitsa", "random", three, 3)
    assert str(e.value).startswith(f"{three} {want}")
    with pytest.raises(LayoutMismatchError) as e:
        play_duplicate("pyanitsa", cardzoo.load_agent(three), "random", 3, name_a="three")
    assert str(e.value).startswith(f"three {want}")


def test_too_many_deals_for_memory_is_a_clear_error(capsys):
    """`cardzoo arena avinas lowest avinas/rule --deals 100000000000` ended in numpy's traceback
    "_ArrayMemoryError: Unable to allocate 745. GiB for an array with shape (100000000000,)"."""
    from cardzoo.training.cli import main

    n = 10**13
    with pytest.raises(ValueError) as e:
        play_duplicate("all_fours", "lowest", "all_fours/rule", n)
    assert str(e.value) == f"{n:,} deals are too many to hold their per-deal results in memory ({n * 48 / 2**30:,.0f} GiB); play fewer deals"
    assert main(["arena", "avinas", "lowest", "avinas/rule", "--deals", str(n)]) == 2
    assert capsys.readouterr().err == (f"cardzoo arena: error: {n:,} deals are too many to hold their per-deal results in memory "
                                       f"({n * 56 / 2**30:,.0f} GiB); play fewer deals\n")


def test_few_deals_print_that_their_normal_cis_are_too_narrow(capsys):
    """mean_ci uses z = 1.96, not Student's t: with 2 deals its 95% interval covers the mean about
    70% of the time (t with 1 degree of freedom needs 12.71). From 2 to 29 deals the table says so;
    with 1 deal there is no interval, and from 30 on nothing is added."""
    few = play_duplicate("all_fours", "all_fours/rule", "lowest", 2, seed=3)
    arena.print_results(few)
    out = " ".join(capsys.readouterr().out.split())
    assert "CIs over 2 deals: normal approximation, too narrow with fewer than 30 deals" in out
    for n in (1, 30):
        arena.print_results(dataclasses.replace(few, n_deals=n))
        assert "normal approximation" not in capsys.readouterr().out
    arena.print_results([dataclasses.replace(few, n_deals=40), dataclasses.replace(few, n_deals=12)])
    assert "CIs over 12 deals" in " ".join(capsys.readouterr().out.split())


def test_a_json_file_made_during_the_run_is_kept_and_the_results_go_beside_it(tmp_path, monkeypatch, capsys):
    """--json FILE is refused up front if it exists; one made by something else while the deals were
    played (another run given the same name) ended the run with 'FILE: File exists', exit 2, and the
    results were in no file. That file is still left as it is, and the results are written to FILE's
    first free sibling (arena.1.json), said on stderr, exit 1 (the file named is not this run's)."""
    from cardzoo.training.cli import main

    out = tmp_path / "arena.json"
    (tmp_path / "arena.1.json").write_text("earlier")
    play = arena.play_duplicate

    def other_run_writes_it(*a, **k):
        out.write_text("the other run")
        return play(*a, **k)

    monkeypatch.setattr(arena, "play_duplicate", other_run_writes_it)
    assert main(["arena", "avinas", "lowest", "avinas/rule", "--deals", "3", "--seed", "2", "--json", str(out)]) == 1
    err = capsys.readouterr().err
    free = tmp_path / "arena.2.json"
    assert (f"cardzoo arena: error: --json {out} was made by something else during the run and is left as it is; "
            f"the results are written to {free}") in err
    assert out.read_text() == "the other run" and (tmp_path / "arena.1.json").read_text() == "earlier"
    got = json.loads(free.read_text())
    ref = play("avinas", "lowest", "avinas/rule", 3, seed=2)
    assert (got["mean_diff"], got["win_rate"]) == (ref.mean_diff, ref.win_rate)


def test_env_options_that_are_not_a_dict_are_refused_naming_the_argument(tmp_path):
    """play_duplicate(..., env_options="episode=match") said only "dictionary update sequence element #0 has
    length 1; 2 is required" (dict() of a string), and a list of pairs was taken as options; round_robin and
    run_leaderboard the same. Now a TypeError names env_options and the form it takes; nothing is played or written."""
    from cardzoo.training.leaderboard import run_leaderboard

    calls = (lambda o: play_duplicate("all_fours", "random", "lowest", 2, env_options=o),
             lambda o: round_robin("all_fours", ["random", "lowest"], 2, env_options=o),
             lambda o: run_leaderboard("all_fours", ["random", "lowest"], 2, out=tmp_path / "lb", env_options=o))
    for bad in ("episode=match", [("episode", "match")]):
        for call in calls:
            with pytest.raises(TypeError) as e:
                call(bad)
            assert str(e.value) == ("env_options must be a dict of option names and values, e.g. {'episode': 'match'} "
                                    f"(or None: the defaults), got {bad!r}")
    assert not (tmp_path / "lb").exists()
    assert play_duplicate("all_fours", "random", "lowest", 2, env_options={"episode": "hand"}).n_deals == 2


def test_round_robin_refuses_one_string_for_the_agents():
    # a string used to be iterated letter by letter: "unknown agent 'r'"
    with pytest.raises(TypeError) as e:
        round_robin("all_fours", "random", n_deals=4, seed=0)
    assert str(e.value) == ("round_robin: agents must be a list (or dict) of agent names or agents, not a string: "
                            "got 'random'")


def test_an_agent_answering_with_floats_is_refused_by_name():
    """Float actions were cut to ints (52.9 played 52) and a NaN was named "illegal action
    -9223372036854775808"; the arena now refuses any answer that is not ints, naming the agent."""
    from cardzoo.training.arena import play_duplicate

    class Floats:
        name = "floats"

        def act(self, observation, action_mask):
            return np.asarray(action_mask).argmax(axis=1) + 0.9

    with pytest.raises(ValueError) as err:
        play_duplicate("all_fours", Floats(), "lowest", 2, seed=0)
    assert str(err.value) == "agent 'floats' (Floats) returned float64 actions; actions are ints (action ids), e.g. int64"

    class Illegal:  # the first action of the mask reversed: an illegal one where several are legal
        name = "illegal"

        def act(self, observation, action_mask):
            mask = np.asarray(action_mask)
            return np.where(mask.sum(axis=1) > 1, (~mask).argmax(axis=1), mask.argmax(axis=1))

    with pytest.raises(ValueError) as err:
        play_duplicate("all_fours", "lowest", Illegal(), 3, seed=0, batch=3)
    assert re.fullmatch(r"agent 'illegal' \(Illegal\) chose illegal action \d+ \(\w+\) in deal [0-2], seating [01]; legal: \[.+\]",
                        str(err.value)), str(err.value)


def test_a_named_agent_takes_its_parameters_after_a_colon_from_python_too():
    """``play_duplicate(game, "all_fours/pimc:n_det=2", ...)`` was "unknown agent" (the command line
    takes that form, ARENA.md says the two build agents alike); the result also records its batch."""
    from cardzoo.agents import load
    from cardzoo.training.arena import play_duplicate

    spec = play_duplicate("all_fours", "all_fours/pimc:n_det=2", "all_fours/rule", 4, seed=5, batch=4)
    built = play_duplicate("all_fours", load("all_fours/pimc", n_det=2, seed=5), "all_fours/rule", 4, seed=5, batch=4)
    assert spec.agent_a == "all_fours/pimc:n_det=2" and spec.batch == 4 and spec.to_dict()["batch"] == 4
    assert (spec.mean_diff, spec.win_rate) == (built.mean_diff, built.win_rate)
    with pytest.raises(ValueError) as err:
        play_duplicate("all_fours", "all_fours/pimc:bogus=2", "all_fours/rule", 4)
    assert str(err.value) == ("agent 'all_fours/pimc:bogus=2': 'bogus' is not a parameter of all_fours/pimc; "
                              "its parameters: ['n_det', 'rollout_opponents', 'search']")

"""P'yanitsa through the training side: the VecEnv without teams, the arena's seat-rotation
duplicates with 2-3 players, terminal play without teams, the rule agent, the CLI."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo import agents
from cardzoo.training.arena import play_duplicate
from cardzoo.training.play import play
from cardzoo.training.vec_env import KernelVecEnv, OpponentPool

CHOOSE = {"collect_order": "winner_chooses"}
SHORT = {**CHOOSE, "objective": "first_out_loses"}  # short games keep these tests fast


def _pool():
    pool = OpponentPool({"random": 1.0})
    pool.add("random", agents.load("random", seed=1))
    return pool


@pytest.mark.parametrize("num_players", [2, 3])
def test_vec_env_without_teams_trains_one_seat(num_players):
    opts = {**SHORT, "num_players": num_players}
    vec = KernelVecEnv("pyanitsa", 32, _pool(), seed=0, env_options=opts, skip_forced=True)
    assert vec.sides == [[s] for s in range(num_players)]
    obs = vec.reset()
    assert obs.shape == (32, vec.kernel.obs_layout.size) and obs.max() <= 1.0
    rng = np.random.default_rng(0)
    seats = set()
    returns = []
    for _ in range(150):
        masks = vec.action_masks()
        # with skip_forced the learner only ever sees real choices: ORDER, never FLIP alone
        assert (masks.sum(axis=1) >= 2).all() and not masks[:, vec.kernel.FLIP].any()
        assert (vec.st.current_player == vec._rep_seat[vec.learner_team]).all()
        seats |= set(vec.learner_team.tolist())
        a = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, done, infos = vec.step(a)
        for i in np.flatnonzero(done):
            returns.append(infos[i]["episode_result"]["return"])
            assert rew[i] == pytest.approx(infos[i]["episode_result"]["return"] - (returns[-1] - rew[i]))
    assert seats == set(range(num_players))
    assert len(returns) > 5
    # first_out_loses: -1 for a loser; L/(N-L) for the others (L = 1 or 2 losers)
    allowed = {-1.0, 0.0} | {round(L / (num_players - L), 3) for L in range(1, num_players)}
    assert set(np.round(returns, 3)) <= allowed


def test_vec_env_without_skip_forced_sees_flips():
    vec = KernelVecEnv("pyanitsa", 8, _pool(), seed=0)
    vec.reset()
    masks = vec.action_masks()
    assert masks[:, vec.kernel.FLIP].all() and (masks.sum(axis=1) == 1).all()
    vec.step(np.full(8, vec.kernel.FLIP))


@pytest.mark.parametrize("num_players", [2, 3])
def test_arena_seat_rotation_duplicates(num_players):
    opts = {**SHORT, "num_players": num_players, "max_battles": 300}
    r = play_duplicate("pyanitsa", "pyanitsa/rule", "random", n_deals=60, seed=1, env_options=opts, batch=32)
    assert r.n_hands == 60 * num_players
    assert -1.0 <= r.mean_diff <= 1.0 and r.diff_ci[0] <= r.mean_diff <= r.diff_ci[1]
    # an agent against itself: every deal replays identically in every seating -> zero-sum over seats
    same = play_duplicate("pyanitsa", "pyanitsa/rule", "pyanitsa/rule", n_deals=40, seed=2, env_options=opts)
    assert same.mean_diff == pytest.approx(0.0, abs=1e-9) and (same.deal_diff == 0).all()


def test_arena_default_rules_no_decision_is_exactly_null():
    # without winner_chooses nobody decides: any two agents give identical games -> difference 0
    r = play_duplicate("pyanitsa", "random", "pyanitsa/rule", n_deals=50, seed=3)
    assert (r.deal_diff == 0).all()


def test_rule_agent_orders_by_strength():
    from cardzoo.envs.core.cards import FRENCH36

    ag = agents.load("pyanitsa/rule", **CHOOSE)
    mask = np.zeros((1, 37), dtype=bool)
    for c in ("KS", "6H", "9D"):
        mask[0, FRENCH36.card_id(c)] = True
    assert FRENCH36.names[ag.act(np.zeros((1, 10)), mask)[0]] == "6H"  # weak first (last_holder_loses)
    strong = agents.load("pyanitsa/rule", objective="first_out_loses", **CHOOSE)
    assert FRENCH36.names[strong.act(np.zeros((1, 10)), mask)[0]] == "KS"
    flip = np.zeros((1, 37), dtype=bool)
    flip[0, 36] = True
    assert ag.act(np.zeros((1, 10)), flip)[0] == 36
    with pytest.raises(ValueError, match="direction"):
        agents.load("pyanitsa/rule", direction="sideways")
    # a fixed rank order: the ace (rank 8) first, then weak first; it replaces direction
    ace_first = agents.load("pyanitsa/rule", rank_order=[8, 0, 1, 2, 3, 4, 5, 6, 7], **CHOOSE)
    mask[0, FRENCH36.card_id("AC")] = True
    assert FRENCH36.names[ace_first.act(np.zeros((1, 10)), mask)[0]] == "AC"
    assert FRENCH36.names[ag.act(np.zeros((1, 10)), mask)[0]] == "6H"
    mask[0, FRENCH36.card_id("AC")] = False
    assert FRENCH36.names[ace_first.act(np.zeros((1, 10)), mask)[0]] == "6H"
    assert ace_first.name == "pyanitsa/rule(order 8,0,1,2,3,4,5,6,7)"
    with pytest.raises(ValueError, match=r"every rank 0\.\.8 once"):
        agents.load("pyanitsa/rule", rank_order=[0, 1, 2], **CHOOSE)
    with pytest.raises(ValueError, match=r"every rank 0\.\.8 once"):
        agents.load("pyanitsa/rule", rank_order="0,1,x", **CHOOSE)
    with pytest.raises(ValueError, match=r"every rank 0\.\.8 once"):  # ranks are ints: 1.5 or True are not
        agents.load("pyanitsa/rule", rank_order=[0, 1.5, 2, 3, 4, 5, 6, 7, 8], **CHOOSE)
    with pytest.raises(ValueError, match="not both"):
        agents.load("pyanitsa/rule", direction="strong_first", rank_order=list(range(9)), **CHOOSE)
    with pytest.raises(ValueError, match=r"agent parameters: \['direction', 'rank_order', 'rollout_opponents'\]"):
        agents.load("pyanitsa/rule", nosuch=1)
    assert agents.load("pyanitsa/rule", rank_order="8,0,1,2,3,4,5,6,7", **CHOOSE).rank_order == ace_first.rank_order
    with pytest.raises(ValueError, match="num_players"):
        agents.load("pyanitsa/rule", num_players=7)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_terminal_play_without_teams(num_players):
    said = []
    answers = iter(["hello", "ORDER(KS)"])

    def read(prompt):
        return next(answers, "")  # then Enter: the only legal move, or ...

    def read_any(prompt):
        text = read(prompt)
        return text if text or "[1]" not in said[-1] else "0"

    returns = play(
        "pyanitsa", None, "pyanitsa/rule", seed=3,
        env_options={**CHOOSE, "num_players": num_players, "objective": "first_out_loses"}, read=read_any, write=said.append,
    )
    text = "\n".join(said)
    assert f"of {num_players} players" in text and "'hello' is not a move" in text
    assert "-- battle 1 " in text and "game over" in text
    assert returns is not None and abs(sum(returns.values())) < 1e-6


def test_cli_bench_and_lengths_run(capsys):
    """``cardzoo bench pyanitsa`` runs and prints its kernel table. Its "first use" part compiles the P'yanitsa
    rules again from an empty numba cache in two fresh processes (tens of seconds) and asserts nothing here (a
    failure there is reported in the table, not fatal): test_bench.py::test_first_use_and_pimc_are_measured
    checks that part, so it is skipped here."""
    from cardzoo.training.cli import main

    assert main(["bench", "pyanitsa", "--batch", "64", "--seconds", "0.2", "--skip", "first-use"]) == 0
    out = capsys.readouterr().out
    assert "batched kernel" in out and "skipped: --skip first-use" in out


def test_shipped_ppo_agent_loads_and_plays_legal_orders():
    from cardzoo.agents.skip_forced import SkipForced

    ag = agents.load("pyanitsa/ppo", **CHOOSE)
    assert isinstance(ag, SkipForced) and ag.meta["env_options"] == CHOOSE
    assert agents.load("pyanitsa/ppo", **CHOOSE, num_players=3).meta["obs_dim"] == 236  # the 3-player agent
    from cardzoo import envs

    k = envs.kernel("pyanitsa", **CHOOSE)
    rng = np.random.default_rng(0)
    st = k.init(rng, 32)
    for _ in range(80):
        mask = k.legal_actions(st)
        a = ag.act(k.observe(st, st.current_player), mask)
        live = ~st.done
        assert mask[np.arange(32), a][live].all()
        k.step(st, a, rng)


def test_study_and_lengths_commands_run_small(tmp_path, capsys):
    from cardzoo.training import pyanitsa_study
    from cardzoo.training.cli import main

    opts = {**SHORT, "num_players": 3, "max_battles": 200}
    rows = pyanitsa_study.study(20, seed=1, ppo=None, env_options=opts)
    assert [r["agent_a"] for r in rows] == ["rule (weak first)", "rule (strong first)"]
    assert all(r["n_hands"] == 60 for r in rows)
    assert "| rule (weak first) | random | 60 |" in pyanitsa_study.markdown(rows)
    assert main(["lengths", "--games", "50", "--out", str(tmp_path), "--only", "12"]) == 0
    out = capsys.readouterr().out
    assert "| 4 | variant 2 | winner_first | 50 |" in out and (tmp_path / "game_lengths.png").exists()


def test_frontier_moves_the_ace_and_ends_at_the_rule_bot(tmp_path):
    from cardzoo.training import pyanitsa_study

    rows = pyanitsa_study.frontier(8, seed=3)
    assert [(r["ace_position"], r["agent_b"]) for r in rows[:2]] == [(1, "pyanitsa/rule"), (1, "random")]
    assert len(rows) == 18 and all(r["n_hands"] == 16 for r in rows)
    last = rows[-2]  # the ace placed 9th is the rule bot's own weak-first order: identical play, difference 0
    assert (last["ace_position"], last["agent_b"], last["mean_diff"]) == (9, "pyanitsa/rule", 0.0)
    assert pyanitsa_study.main(["--frontier", "--deals", "2", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "frontier.md").exists() and not (tmp_path / "study.md").exists()
    before = (tmp_path / "frontier.md").read_text()
    assert pyanitsa_study.main(["--frontier", "--deals", "3", "--out", str(tmp_path)]) == 2  # never overwrites a run
    assert (tmp_path / "frontier.md").read_text() == before
    assert pyanitsa_study.main(["--frontier", "--deals", "0", "--out", str(tmp_path / "x")]) == 2


def test_frontier_takes_other_orders_and_player_counts(tmp_path, capsys):
    """--orders and --players: weak first alone against two rule bots is the rule bot itself (not losing
    exactly 2/3, difference 0); the table adds the not-losing column; bad values fail before any deal."""
    from cardzoo.training import pyanitsa_study

    rows = pyanitsa_study.frontier(6, seed=3, orders=["0,1,2,3,4,5,6,7,8", [0, 1, 2, 3, 4, 5, 6, 8, 7]], players=3)
    assert [(r["order"], r["agent_b"]) for r in rows] == [
        ("0,1,2,3,4,5,6,7,8", "pyanitsa/rule"), ("0,1,2,3,4,5,6,7,8", "random"),
        ("0,1,2,3,4,5,6,8,7", "pyanitsa/rule"), ("0,1,2,3,4,5,6,8,7", "random")]
    assert all(r["n_hands"] == 18 and r["n_sides"] == 3 for r in rows)
    assert rows[0]["mean_diff"] == 0.0 and rows[0]["not_losing"] == pytest.approx(2 / 3, abs=1e-12)
    assert "| not losing [95% CI] (as good as B) |" in pyanitsa_study.markdown(rows)
    assert pyanitsa_study.main(["--frontier", "--players", "4", "--orders", "0,1,2,3,4,5,6,8,7", "--deals", "2", "--out", str(tmp_path)]) == 0
    assert "| order 0,1,2,3,4,5,6,8,7 | pyanitsa/rule | 8 |" in (tmp_path / "frontier.md").read_text()
    capsys.readouterr()
    for bad, said in ((["--frontier", "--players", "5"], "--players must be 2, 3 or 4, got 5"),
                      (["--frontier", "--orders", "0,1,2"], "rank_order='0,1,2' is not valid"),
                      (["--orders", "0,1,2,3,4,5,6,8,7"], "--orders and --players go with --frontier"),
                      (["--frontier", "--seed", "-1"], "--seed must be >= 0, got -1")):
        assert pyanitsa_study.main([*bad, "--deals", "2", "--out", str(tmp_path / "y")]) == 2
        assert said in capsys.readouterr().err
    assert not (tmp_path / "y").exists()


def test_terminal_play_hides_how_opponents_order_their_pot():
    """An opponent's ORDER moves (the order of its pile's bottom, RULES.md §7) are not printed."""
    said = []

    def read(prompt):  # Enter plays a forced FLIP; when ordering a pot, the first card offered
        return "" if "[1]" not in said[-1] else "0"

    play(
        "pyanitsa", None, "pyanitsa/rule", seed=2,
        env_options={**CHOOSE, "tie_mode": "down_up"}, read=read, write=said.append,
    )
    moves = [line for line in said if line.startswith("player_1 ")]
    assert any("puts a card face down" in line for line in moves)
    assert not any("ORDER(" in line for line in moves)


def test_agents_of_another_game_are_refused_up_front(capsys):
    from cardzoo.training.cli import main

    assert main(["arena", "all_fours", "all_fours/rule", "avinas/rule", "--deals", "5"]) == 2
    assert "plays avinas, not all_fours" in capsys.readouterr().err
    assert main(["arena", "all_fours", "random", "agents/shipped/pyanitsa_ppo", "--deals", "5"]) == 2
    assert "trained for pyanitsa, not all_fours" in capsys.readouterr().err
    assert main(["lengths", "--games", "10", "--only", "99"]) == 2
    assert "0..14" in capsys.readouterr().err


def test_a_study_of_one_deal_writes_valid_json(tmp_path):
    """--deals 1: each CI is undefined, null in frontier.json (valid JSON, arena.json_safe), the
    means and keys as with more deals."""
    import json

    from cardzoo.training import pyanitsa_study

    assert pyanitsa_study.main(["--frontier", "--orders", "0,1,2,3,4,5,6,8,7", "--deals", "1", "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "frontier.json").read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert len(rows) == 2 and all(r["diff_ci"] == r["win_ci"] == [None, None] and isinstance(r["mean_diff"], float) for r in rows)
    assert list(rows[0]) == list(pyanitsa_study.frontier(2, orders=["0,1,2,3,4,5,6,8,7"])[0])
    md = (tmp_path / "frontier.md").read_text()  # the table says so instead of [+nan, +nan]
    assert md.count("n/a (1 deal)") == 2 * len(rows) and "nan" not in md
    three = pyanitsa_study.markdown(pyanitsa_study.frontier(1, orders=["0,1,2,3,4,5,6,8,7"], players=3))
    assert three.count("n/a (1 deal)") == 3 * 2 and "nan" not in three  # and the not-losing column

"""PettingZoo / Gymnasium conventions and the per-seat text view, for every game (frame tests).

* ``render_mode="human"`` prints the ansi table; PettingZoo's ``render_test`` and
  ``performance_benchmark`` pass (``max_cycles_test`` does not apply: it needs a ``parallel_env``
  and a ``max_cycles`` option, which turn-based card games have not).
* ``illegal_action="lose"``: the offender's side loses the episode with zero-sum rewards.
* ``SingleSeatEnv`` passes Gymnasium's and SB3's ``check_env`` under ``illegal_action="lose"``.
* P'yanitsa's ``num_players`` (``n_players``, the rules spec's name, an alias).
* ``text_observation`` / ``action_from_text`` / ``TextObservationWrapper`` (hidden information:
  ``env_util.check_hidden_information`` and the P'yanitsa pile test compare the text views too).
"""

from __future__ import annotations

import re
import shutil
import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, performance_benchmark, render_test

import cardzoo
from cardzoo import envs
from cardzoo.envs.core.aec import TextObservationWrapper

GAMES = sorted(envs.GAMES)


def _walk(env, seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(n):
        if not env.legal_actions():
            return
        env.step(int(rng.choice(env.legal_actions())))


# ----------------------------------------------------------------------------- rendering
@pytest.mark.parametrize("game", GAMES)
def test_render_test_and_human_mode_prints_the_ansi_table(game, capsys):
    render_test(lambda **kw: envs.make(game, **kw))
    capsys.readouterr()
    human, ansi = envs.make(game, render_mode="human", render_view=0), envs.make(game, render_mode="ansi", render_view=0)
    for e in (human, ansi):
        e.reset(seed=3)
        _walk(e, 3, 5)
    capsys.readouterr()
    assert human.render() is None
    printed = capsys.readouterr().out
    assert printed == ansi.render() + "\n" and "S0" in printed


@pytest.mark.parametrize("game", sorted(set(GAMES) - {"pyanitsa"}))  # P'yanitsa shows piles, not hands
def test_the_public_render_counts_a_hidden_hand_of_one_card_in_the_singular(game):
    """The public table wrote a hidden hand of one card as "[1 cards]"; it is "[1 card]" (and "[k cards]")."""
    from cardzoo.envs.core.cards import popcount

    env = envs.make(game, render_mode="ansi")
    rng = np.random.default_rng(5)
    seen_one = False
    for seed in range(5):
        env.reset(seed=seed)
        while env.agents:
            sizes = [int(n) for n in popcount(env.unwrapped.game_state.hands[0])]
            text = env.unwrapped.kernel.render(env.unwrapped.game_state, 0, None)
            for n in set(sizes):
                assert (f"[{n} card]" if n == 1 else f"[{n} cards]") in text
            assert "[1 cards]" not in text
            seen_one = seen_one or 1 in sizes
            env.step(int(rng.choice(env.legal_actions())) if env.legal_actions() else None)
    assert seen_one


@pytest.mark.parametrize("game", GAMES)
def test_a_render_view_that_is_an_array_is_refused_by_name(game):
    """render_view=np.array([1, 2]) raised numpy's "The truth value of an array with more than one
    element is ambiguous" (comparing it with "all") instead of naming the valid views."""
    n = len(envs.make(game).possible_agents)
    for view in (np.array([1, 2]), [0]):
        with pytest.raises(ValueError) as err:
            envs.make(game, render_mode="ansi", render_view=view)
        assert str(err.value) == f"render_view={view!r} is not valid; valid: None (public), 'all', or a seat 0..{n - 1}"


@pytest.mark.parametrize("game", GAMES)
def test_an_array_given_for_render_mode_illegal_action_or_partner_is_refused_by_name(game):
    """render_mode=np.array([...]) (AEC env), illegal_action=np.array([...]) (vector env) and
    partner=np.array([...]) (single-seat env in P'yanitsa) raised numpy's "The truth value of an array
    with more than one element is ambiguous" (``x in (...)``, ``if partner``), not the valid values."""
    bad = np.array([1, 2])
    with pytest.raises(ValueError) as err:
        envs.make(game, render_mode=bad)
    assert str(err.value) == "render_mode=array([1, 2]) is not supported; valid: None, 'ansi', 'human'"
    for make in (lambda: envs.make(game, illegal_action=bad), lambda: cardzoo.make_vec(game, 2, illegal_action=bad)):
        with pytest.raises(ValueError) as err:
            make()
        assert str(err.value) == "illegal_action=array([1, 2]) is not valid; valid values: ['raise', 'lose']"
    if envs.kernel(game).teams is None:
        with pytest.raises(ValueError) as err:
            gymnasium.make(cardzoo.GYM_IDS[game], partner=bad)
        assert str(err.value) == f"partner is for partnership games; in {game} every player plays alone: use opponents"


@pytest.mark.parametrize("game", GAMES)
def test_human_mode_prints_the_table_at_reset_and_after_every_step(game, capsys):
    """Gymnasium's and PettingZoo's "human" mode renders during reset and step (render() need not be
    called); ours printed only when render() was called, so gymnasium.make(id, render_mode="human")
    showed nothing while it played. Dead steps (step(None) once the episode ended) print nothing."""
    human, ansi = envs.make(game, render_mode="human", render_view=0), envs.make(game, render_mode="ansi", render_view=0)
    capsys.readouterr()
    human.reset(seed=3)
    ansi.reset(seed=3)
    assert capsys.readouterr().out == ansi.render() + "\n"
    rng = np.random.default_rng(3)
    for _ in range(6):
        a = int(rng.choice(ansi.legal_actions()))
        human.step(a)
        ansi.step(a)
        assert capsys.readouterr().out == ansi.render() + "\n"
    lose = envs.make(game, render_mode="human", illegal_action="lose")
    lose.reset(seed=3)
    capsys.readouterr()
    bad = int(np.flatnonzero(lose.observe(lose.agent_selection)["action_mask"] == 0)[0])
    lose.step(bad)  # the forfeit ends the episode: printed once
    assert capsys.readouterr().out == lose.unwrapped.kernel.render(lose.unwrapped.game_state, 0, None) + "\n"
    lose.step(None)  # a dead step
    assert capsys.readouterr().out == ""


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_performance_benchmark_runs(game, capsys, monkeypatch):
    """PettingZoo's ``performance_benchmark`` plays random moves, resetting at each episode's end, until its clock
    says 5 s have passed. No count of it is checked, so its clock runs 5 times fast here: 1 s of play per game
    (tens of thousands of moves, hundreds of episodes), which must still reset after finished episodes."""
    import time
    from types import SimpleNamespace

    start = time.time()
    fast = SimpleNamespace(time=lambda: start + 5 * (time.time() - start))
    monkeypatch.setitem(performance_benchmark.__globals__, "time", fast)  # the module's `time`
    env = envs.make(game)
    resets = []
    reset = env.reset
    env.reset = lambda *a, **k: (resets.append(1), reset(*a, **k))[1]
    performance_benchmark(env)
    out = capsys.readouterr().out
    assert "turns per second" in out and "Finished performance benchmark" in out
    assert len(resets) > 1  # the first reset, then one after each finished episode


def test_bad_render_mode_and_illegal_action_option_fail_at_construction():
    with pytest.raises(ValueError, match=r"render_mode='rgb_array'.*None, 'ansi', 'human'"):
        envs.make("avinas", render_mode="rgb_array")
    with pytest.raises(ValueError, match=r"illegal_action='forfeit' is not valid; valid values: \['raise', 'lose'\]"):
        envs.make("avinas", illegal_action="forfeit")


# ----------------------------------------------------------------------------- illegal_action
#: game -> options of the forfeit test (P'yanitsa with 3 players, to test the shares)
FORFEIT = {"pyanitsa": {"num_players": 3}}


def _first_illegal(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_lose_ends_the_episode_zero_sum(game):
    opts = FORFEIT.get(game, {})
    env = envs.make(game, illegal_action="lose", **opts)
    env.reset(seed=5)
    _walk(env, 5, 3)
    offender = env.agent_selection
    seat = env.agent_name_mapping[offender]
    k = env.unwrapped.kernel
    bad = _first_illegal(env)
    before = env.game_state.copy()
    paid = dict(env._cumulative_rewards)
    env.step(bad)
    if k.teams is not None:  # the offender's team -1 each, the other team +1 each
        mine = next(t for t in k.teams if seat in t)
        expected = {f"player_{s}": (-1.0 if s in mine else 1.0) for s in range(4)}
    else:  # 3 players: -1 for the offender, +1/2 for each other player
        expected = {f"player_{s}": (-1.0 if s == seat else 0.5) for s in range(3)}
    assert env.rewards == expected and sum(env.rewards.values()) == 0
    assert all(env.terminations.values()) and not any(env.truncations.values())
    # the offender's info names its action; the others see only who offended (the action may be a
    # card of the offender's hand)
    assert env.infos[offender] == {"illegal_action": env.action_name(bad), "offender": offender}
    assert all(env.infos[a] == {"offender": offender} for a in env.possible_agents if a != offender)
    assert env.legal_actions() == []
    assert all(not env.observe(a)["action_mask"].any() for a in env.possible_agents)
    assert env.text_observation(offender).endswith(f"The episode is over: {offender} played an illegal action.")
    # the game itself did not move, and every agent collects its reward through last()
    assert all(np.array_equal(getattr(before, f), getattr(env.game_state, f)) for f in ("current_player", "done"))
    returns = {}
    for agent in env.agent_iter():
        _, r, term, trunc, _ = env.last()
        returns[agent] = r
        assert term and not trunc
        env.step(None)
    assert env.agents == []
    # last() gives each agent what it has not collected yet: the forfeit, plus any reward still pending
    assert returns == {a: expected[a] + (0.0 if a == offender else paid[a]) for a in env.possible_agents}
    # every agent's text view still says so once the agents have left (it read the offender from infos,
    # which lose each agent at its dead step: KeyError), also through the wrapper
    wrapped = TextObservationWrapper(env)
    for a in env.possible_agents:
        assert env.text_observation(a).endswith(f"The episode is over: {offender} played an illegal action.")
        assert wrapped.observe(a)["text"] == env.text_observation(a)


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_raise_is_the_default_and_leaves_the_game_unchanged(game):
    env = envs.make(game)
    env.reset(seed=5)
    bad = _first_illegal(env)
    state = env.state().copy()
    with pytest.raises(ValueError, match=rf"illegal action {re.escape(env.action_name(bad))} for player_\d; legal: \["):
        env.step(bad)
    assert np.array_equal(env.state(), state) and not any(env.terminations.values())
    lose = envs.make(game, illegal_action="lose")
    lose.reset(seed=5)
    with pytest.raises(ValueError, match="out of range"):  # not an action at all: still an error
        lose.step(10_000)
    with pytest.raises(ValueError, match="must be an int"):
        lose.step("2C")


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test_under_lose(game):
    api_test(envs.make(game, illegal_action="lose"), num_cycles=60)


@pytest.mark.parametrize("game", GAMES)
def test_turn_based_aec_to_parallel_passes_the_parallel_api_test(game):
    """envs/core/README.md: metadata["is_parallelizable"] is False (aec_to_parallel does not apply to a
    turn-based game) and PettingZoo's turn_based_aec_to_parallel gives a parallel env that passes
    parallel_api_test, with exactly one agent acting per step."""
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    assert envs.make(game).metadata["is_parallelizable"] is False
    par = turn_based_aec_to_parallel(envs.make(game))
    parallel_api_test(par, num_cycles=40)
    obs, infos = par.reset(seed=3)
    acting = [a for a in par.agents if obs[a]["action_mask"].any()]
    assert len(acting) == 1


# ----------------------------------------------------------------------------- single seat
@pytest.mark.parametrize("game", GAMES)
def test_single_seat_env_passes_gymnasium_and_sb3_check_env_under_lose(game):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    from cardzoo.training.single_agent import SingleSeatEnv

    with warnings.catch_warnings(record=True) as caught:  # the metadata gives a render rate
        warnings.simplefilter("always")
        shown = gymnasium.make(cardzoo.GYM_IDS[game], render_mode="ansi")
        shown.reset(seed=0)
        assert isinstance(shown.render(), str)  # the passive checker's first render() looks for it
    assert not [w for w in caught if "render fps" in str(w.message)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # check_env's advice (e.g. on the Box's bounds)
        check_env(gymnasium.make(cardzoo.GYM_IDS[game], illegal_action="lose").unwrapped)
        sb3_check_env(SingleSeatEnv(game, illegal_action="lose"))
    env = SingleSeatEnv(game, seat=1, illegal_action="lose")
    obs, info = env.reset(seed=2)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, term, trunc, info = env.step(bad)
    assert (reward, term, trunc) == (-1.0, True, False)
    assert info["illegal_action"] == env.aec.action_name(bad) and info["offender"] == "player_1"
    with pytest.raises(ValueError, match="illegal action"):
        raising = SingleSeatEnv(game, seat=1)
        _, info = raising.reset(seed=2)
        raising.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))


@pytest.mark.parametrize("game", GAMES)
def test_single_seat_env_takes_numpy_int_seats_and_checks_seat_seed_and_reset(game):
    """seat=np.int64(...) is a seat (it was refused) and seat=True is not (it was taken as seat 1);
    reset checks seed and options as the AEC env does (Gymnasium's own "Seed must be ..." errors and
    "dictionary update sequence ..." were raised before), before anything changes."""
    n = len(envs.make(game).possible_agents)
    gym_id = cardzoo.GYM_IDS[game]
    for seat in (True, 1.0, "0", n, -1):
        with pytest.raises(ValueError) as err:
            gymnasium.make(gym_id, seat=seat)
        assert str(err.value) == f"seat must be an int from 0 to {n - 1} (the seats of {game}), got {seat!r}"
    with pytest.raises(ValueError, match=r"^seed must be a non-negative int or None, got -2$"):
        gymnasium.make(gym_id, seed=-2)
    with pytest.raises(ValueError) as err:
        gymnasium.make(gym_id, seat=0, others={n: "random"})
    assert str(err.value) == f"others: seat {n} is not another seat; valid seats: {list(range(1, n))} (seat 0 learns)"
    env = gymnasium.make(gym_id, seat=np.int64(n - 1), render_mode="ansi")
    assert env.unwrapped.seat == n - 1 and type(env.unwrapped.seat) is int
    assert env.unwrapped.aec.render_view == n - 1
    obs, info = env.reset(seed=3)
    state = env.unwrapped.aec.game_state.copy()
    for seed in (-1, 1.5, True):
        with pytest.raises(ValueError) as err:
            env.reset(seed=seed)
        assert str(err.value) == f"seed must be a non-negative int or None, got {seed!r}"
    with pytest.raises(ValueError, match=r"^reset options must be a dict of option name -> value or None, got 'x'; valid option names for "):
        env.reset(options="x")
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['bogus'\]"):
        env.reset(seed=5, options={"bogus": 1})
    assert all(np.array_equal(getattr(state, f), getattr(env.unwrapped.aec.game_state, f)) for f in state.__dataclass_fields__)
    again, _ = env.reset(seed=np.int64(3))
    assert np.array_equal(again, obs)


@pytest.mark.parametrize("game", GAMES)
def test_single_seat_env_partner_is_for_partnership_games(game, tmp_path):
    """A partner in a game where everyone plays alone (P'yanitsa) is refused in cardzoo play's words
    (it was silently ignored); in a partnership game a partner path that does not exist is named."""
    gym_id, missing = cardzoo.GYM_IDS[game], str(tmp_path / "nonexistent")
    if envs.kernel(game).teams is None:
        with pytest.raises(ValueError) as err:
            gymnasium.make(gym_id, seat=0, partner=missing)
        assert str(err.value) == f"partner is for partnership games; in {game} every player plays alone: use opponents"
        gymnasium.make(gym_id, seat=0, opponents=f"{game}/rule")  # no partner named: fine
    else:
        with pytest.raises(FileNotFoundError, match=re.escape(repr(missing))):
            gymnasium.make(gym_id, seat=0, partner=missing)


# ----------------------------------------------------------------------------- num_players
def test_pyanitsa_num_players_and_its_alias_n_players():
    """num_players is PettingZoo's name, n_players the rules spec's: both are taken, without a warning."""
    assert len(envs.make("pyanitsa", num_players=3).possible_agents) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = envs.make("pyanitsa", n_players=4)
        agent = cardzoo.load_agent("pyanitsa/rule", n_players=3)
    assert env.unwrapped.kernel.options["num_players"] == 4 and len(env.possible_agents) == 4
    with pytest.raises(ValueError, match="'n_players' and 'num_players' name the same thing; pass only one of them"):
        envs.make("pyanitsa", n_players=3, num_players=3)
    # a bad value given by the alias: the message says which name the caller used
    with pytest.raises(ValueError) as err:
        envs.make("pyanitsa", n_players=5)
    assert str(err.value) == ("option num_players=5 is not valid; valid values: [2, 3, 4]; "
                              "given as 'n_players' (another name of 'num_players')")
    # the bot plays rollouts (its compiled play-out) only on the rules it was built for: 3 players
    rng = np.random.default_rng(0)
    three, two = envs.kernel("pyanitsa", num_players=3), envs.kernel("pyanitsa")
    ret = agent.play_out(three, three.init(rng, 4), np.zeros(4, dtype=np.int64), rng)
    assert ret is not None and ret.shape == (4,)
    assert agent.play_out(two, two.init(rng, 4), np.zeros(4, dtype=np.int64), rng) is None


def test_saved_agent_with_n_players_still_loads(tmp_path):
    pytest.importorskip("torch")
    import json

    from cardzoo.agents.policy import load_policy_agent

    src = envs.__file__.replace("envs/__init__.py", "agents/shipped/pyanitsa_ppo")
    dst = tmp_path / "old"
    shutil.copytree(src, dst)
    meta = json.loads((dst / "agent.json").read_text())
    meta["env_options"]["n_players"] = 2  # as agents saved before the rename say it
    (dst / "agent.json").write_text(json.dumps(meta))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading a saved alias does not warn
        agent = load_policy_agent(dst)
    assert agent.meta["env_options"] == {"collect_order": "winner_chooses", "num_players": 2}


# ----------------------------------------------------------------------------- text view
@pytest.mark.parametrize("game", GAMES)
def test_text_observation_names_the_legal_actions_and_reads_them_back(game):
    env = envs.make(game)
    env.reset(seed=7)
    _walk(env, 7, 6)
    agent = env.agent_selection
    seat = env.agent_name_mapping[agent]
    text = env.text_observation(agent)
    names = [env.action_name(a) for a in env.legal_actions()]
    assert text.startswith(f"You are S{seat} (player_{seat}) in {game}.")
    assert text.splitlines()[-1] == "You are to act. Legal actions: " + " ".join(names)
    assert env.unwrapped.kernel.render(env.game_state, 0, seat) in text  # the game's own seat render
    for hand_card in env.hands[agent]:
        assert env.unwrapped.kernel.deck.card_name(hand_card) in text
    for a in env.legal_actions():
        assert env.action_from_text(agent, f"  {env.action_name(a).lower()} ") == a
    with pytest.raises(ValueError, match=r"'hello' is not an action; legal actions for player_\d: \["):
        env.action_from_text(agent, "hello")
    illegal = _first_illegal(env)
    with pytest.raises(ValueError, match=rf"{re.escape(env.action_name(illegal))} is not legal now; legal actions"):
        env.action_from_text(agent, env.action_name(illegal))
    other = next(a for a in env.possible_agents if a != agent)
    assert env.text_observation(other).splitlines()[-1] == f"S{seat} is to act."
    with pytest.raises(ValueError, match=f"{other} is not to act now"):
        env.action_from_text(other, names[0])
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        env.text_observation("player_9")


@pytest.mark.parametrize("game", GAMES)
def test_text_observation_wrapper_adds_the_text_and_passes_the_api_test(game):
    env = TextObservationWrapper(envs.make(game))
    api_test(env, num_cycles=40)
    env.reset(seed=1)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert obs["text"] == env.unwrapped.text_observation(agent)
    assert env.observation_space(agent).contains(obs) and set(obs) == {"observation", "action_mask", "text"}


def test_text_observation_worked_example():
    """All Fours, seed 0, before anyone has acted: S0 (the beggar) and S1 see their own hands only."""
    env = envs.make("all_fours")
    env.reset(seed=0)
    table = """\
-----------------------------------------------------------
phase: beggar decides (stand/beg)   dealer: S3   beggar: S0
trump: H   kicked: KH
hand points A 0 - B 0   match score A 0 - B 0
tricks 0/6
"""
    assert env.text_observation("player_0") == (
        "You are S0 (player_0) in all_fours. Your team: S0, S2.\nAll Fours - view of S0\n" + table
        + "*S0 (A)  trick:  ..   hand: 9C JD 6H 4S 6S 10S\n"
        " S1 (B)  trick:  ..   hand: [6 cards]\n"
        " S2 (A)  trick:  ..   hand: [6 cards]\n"
        " S3 (B)  trick:  ..   hand: [6 cards]\n"
        "You are to act. Legal actions: STAND BEG"
    )
    assert env.text_observation("player_1") == (
        "You are S1 (player_1) in all_fours. Your team: S1, S3.\nAll Fours - view of S1\n" + table
        + "*S0 (A)  trick:  ..   hand: [6 cards]\n"
        " S1 (B)  trick:  ..   hand: 4C 8C 8D 9H QH 3S\n"
        " S2 (A)  trick:  ..   hand: [6 cards]\n"
        " S3 (B)  trick:  ..   hand: [6 cards]\n"
        "S0 is to act."
    )
    assert env.action_from_text("player_0", "beg") == env.action_id("BEG")


@pytest.mark.parametrize("game", sorted(envs.GAMES))
def test_step_and_last_after_the_episode_ended_raise_a_clear_error(game):
    """Once every agent has left the episode, step() and last() say so (not a KeyError)."""
    env = envs.make(game)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == []
    for call in (lambda: env.step(0), lambda: env.step(None), lambda: env.last()):
        with pytest.raises(RuntimeError, match="after the episode ended.*reset"):
            call()
    env.reset(seed=4)
    assert env.agents and env.last()[0]["action_mask"].any()


def test_numpy_scalar_options_are_kept_as_plain_python_values():
    """np.int64(5) and np.True_ are valid option values and are stored as 5 and True, so the
    options (and every result that records them) stay JSON-serializable."""
    import json

    k = envs.kernel("all_fours", target_score=np.int64(5), score_rejected_kicks=np.True_)
    assert k.options["target_score"] == 5 and type(k.options["target_score"]) is int
    assert k.options["score_rejected_kicks"] is True
    assert json.loads(json.dumps(k.options))["target_score"] == 5
    p = envs.kernel("pyanitsa", num_players=np.int32(3))
    assert type(p.options["num_players"]) is int and p.options["num_players"] == 3
    with pytest.raises(ValueError, match=r"option num_players=np.int64\(5\) is not valid; valid values: \[2, 3, 4\]"):
        envs.kernel("pyanitsa", num_players=np.int64(5))


# ----------------------------------------------------------------------------- copies of agents
def _agent_names(game: str) -> list[str]:
    return [n for n in cardzoo.agents.available() if n.startswith(f"{game}/")] + ["random", "lowest"]


@pytest.mark.parametrize("game", GAMES)
def test_every_agent_pickles_and_deep_copies_and_acts_the_same(game):
    """Every registered agent of every game survives ``pickle`` and ``copy.deepcopy`` (a copied or
    pickled single-seat or vector env copies its opponents), and the copy acts as the original does
    from there on, seeded draws included. The Avinas rule bot kept the constants module as an
    attribute, which does not pickle."""
    import copy
    import pickle

    from cardzoo.agents.registry import takes_seed

    if game in ("all_fours", "avinas", "aluette", "ottocento"):
        pytest.importorskip("torch")  # the shipped agents (GAME/ppo)
    k = envs.kernel(game, **({"collect_order": "winner_chooses"} if game == "pyanitsa" else {}))
    rng = np.random.default_rng(3)
    st = k.init(rng, 2)
    for _ in range(3):  # a few moves in: past the first decision
        k.step(st, cardzoo.agents.load("random", seed=1).act(k.observe(st, st.current_player), k.legal_actions(st)), rng)
    obs, mask = k.observe(st, st.current_player), k.legal_actions(st)
    for name in _agent_names(game):
        opts = {} if name in ("random", "lowest") or name.endswith("/random") else dict(k.options)
        small = {"n_det": 2} if "/pimc" in name else {"n_iter": 8, "wave": 4} if name.endswith("/ismcts") else {}
        agent = cardzoo.agents.load(name, **opts, **small, **({"seed": 7} if takes_seed(name) or name == "random" else {}))
        searches = getattr(agent, "needs_state", False)  # search agents read the state (determinize), not observations

        def act(a):
            return a.act_state(st) if searches else a.act(obs, mask)

        for clone in (copy.deepcopy, lambda a: pickle.loads(pickle.dumps(a))):
            twin = clone(agent)
            assert np.array_equal(act(twin), act(agent)), name
            assert np.array_equal(act(twin), act(agent)), name  # the seeded draws go on alike

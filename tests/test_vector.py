"""The Gymnasium vector env over the batched kernel (``cardzoo.make_vec``, ``envs/core/vector.py``).

Gymnasium 1.x ships no checker for vector envs (``gymnasium.utils.env_checker.check_env`` takes a
single ``Env``), so the checks of its vector test-suite are written out here, for every game:
batched spaces from ``batch_space``, reset/step types, shapes and dtypes in the spaces, seeding
determinism, data not reused between steps, the autoreset modes, and Gymnasium's own vector
wrappers running on it.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

import cardzoo
from cardzoo import envs
from cardzoo.envs.core.vector import KernelVectorEnv, OpponentSet

GAMES = sorted(envs.GAMES)


def _random_legal(mask: np.ndarray, rng) -> np.ndarray:
    u = rng.random(mask.shape)
    u[~mask] = -1
    return u.argmax(axis=1)


def _run(venv, steps: int, seed: int):
    rng = np.random.default_rng(seed)
    obs, info = venv.reset(seed=seed)
    out = [(obs, None, None, None)]
    for _ in range(steps):
        obs, rew, term, trunc, info = venv.step(_random_legal(info["action_mask"], rng))
        out.append((obs, rew, term, trunc))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_spaces_types_and_shapes(game):
    n = 6
    venv = cardzoo.make_vec(game, n, opponents="random", seed=1)
    k = venv.kernel
    D, A = k.obs_layout.size, k.num_actions
    assert isinstance(venv, gymnasium.vector.VectorEnv) and venv.num_envs == n
    assert venv.single_observation_space == gymnasium.spaces.Box(0.0, 1.0, (D,), np.float32)
    assert venv.single_action_space == gymnasium.spaces.Discrete(A)
    assert venv.observation_space == batch_space(venv.single_observation_space, n)
    assert venv.action_space == gymnasium.spaces.MultiDiscrete([A] * n)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = venv.reset()
    assert obs.dtype == np.float32 and venv.observation_space.contains(obs)
    assert info["action_mask"].shape == (n, A) and info["action_mask"].dtype == bool
    np.testing.assert_array_equal(info["action_mask"], k.legal_actions(venv.st))
    prev = obs
    rng = np.random.default_rng(0)
    for _ in range(60):
        obs, rew, term, trunc, info = venv.step(_random_legal(info["action_mask"], rng))
        assert venv.observation_space.contains(obs)
        assert rew.shape == (n,) and rew.dtype == np.float64
        assert term.shape == trunc.shape == (n,) and term.dtype == trunc.dtype == bool
        assert not (term & trunc).any()
        assert obs is not prev and not np.shares_memory(obs, prev)  # data not reused
        assert info["action_mask"].any(axis=1).all()
        prev = obs
    venv.close()


@pytest.mark.parametrize("game", GAMES)
def test_seeding_is_deterministic(game):
    a = _run(cardzoo.make_vec(game, 8, opponents=f"{game}/rule", seed=0), 80, seed=5)
    b = _run(cardzoo.make_vec(game, 8, opponents=f"{game}/rule", seed=0), 80, seed=5)
    c = _run(cardzoo.make_vec(game, 8, opponents=f"{game}/rule", seed=0), 80, seed=6)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))


@pytest.mark.parametrize("game", GAMES)
def test_next_step_autoreset(game):
    n = 16
    venv = cardzoo.make_vec(game, n, opponents="random", seed=3)
    rng = np.random.default_rng(3)
    obs, info = venv.reset(seed=3)
    acc = np.zeros(n)
    checked = 0
    for _ in range(600):
        obs, rew, term, trunc, info = venv.step(_random_legal(info["action_mask"], rng))
        acc += rew
        done = term | trunc
        if not done.any():
            continue
        i = int(np.flatnonzero(done)[0])
        k, st = venv.kernel, venv.st
        seat = venv._rep_seat[venv.learner_team[i]]
        # the final observation is the learner's view of the finished game
        np.testing.assert_array_equal(obs[i], k.observe(st, seat)[i].astype(np.float32) * venv.scale)
        assert info["_episode_return"][i] and info["episode_return"][i] == pytest.approx(acc[i])
        assert info["opponent"][i] == "random" and info["episode_length"][i] >= 1
        assert info["action_mask"][i].all()  # its next action is ignored
        acc[done] = 0
        # the next step ignores game i's action (here: the last action id, whatever it means) and deals anew
        actions = _random_legal(info["action_mask"], rng)
        actions[i] = k.num_actions - 1
        actions[done] = k.num_actions - 1
        obs, rew, term, trunc, info = venv.step(actions)
        assert rew[i] == 0.0 and not term[i] and not trunc[i]
        assert not info.get("_episode_return", np.zeros(n, bool))[i]
        np.testing.assert_array_equal(info["action_mask"][i], k.legal_actions(venv.st)[i])
        np.testing.assert_array_equal(obs[i], k.observe(venv.st, venv.st.current_player)[i].astype(np.float32) * venv.scale)
        acc += np.where(done, 0.0, rew)
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_same_step_autoreset_and_episode_returns_are_exact():
    """P'yanitsa, 2 players: every finished game pays the learner -1, 0 (draw) or +1."""
    n = 32
    venv = cardzoo.make_vec("pyanitsa", n, opponents="random", seed=0, autoreset_mode="SameStep")
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    rng = np.random.default_rng(0)
    obs, info = venv.reset()
    acc = np.zeros(n)
    finals = 0
    for _ in range(400):
        obs, rew, term, trunc, info = venv.step(_random_legal(info["action_mask"], rng))
        acc += rew
        for i in np.flatnonzero(term | trunc):
            assert info["_final_obs"][i] and venv.single_observation_space.contains(info["final_obs"][i])
            assert info["final_info"]["episode_return"][i] == acc[i] and acc[i] in (-1.0, 0.0, 1.0)
            assert not np.array_equal(info["final_obs"][i], obs[i])  # obs is the new game's first
            acc[i] = 0
            finals += 1
    assert finals > 20


def test_gymnasium_vector_wrappers_run_on_it():
    venv = gymnasium.wrappers.vector.RecordEpisodeStatistics(cardzoo.make_vec("all_fours", 8, seed=0))
    rng = np.random.default_rng(0)
    obs, info = venv.reset(seed=0)
    episodes = 0
    for _ in range(200):
        obs, rew, term, trunc, info = venv.step(_random_legal(info["action_mask"], rng))
        if "episode" in info:
            episodes += int(info["_episode"].sum())
            assert (info["episode"]["l"][info["_episode"]] >= 1).all()
    assert episodes > 10


def test_learner_side_fixed_and_callable_opponents():
    lowest = lambda obs, mask: mask.argmax(axis=1)  # noqa: E731  the first legal action
    k = envs.kernel("all_fours")
    venv = KernelVectorEnv(k, 8, {"lowest": lowest}, learner_side=1, seed=0)
    obs, info = venv.reset()
    for _ in range(50):
        live = ~venv.st.done  # finished games wait for their autoreset
        assert (venv.learner_team == 1).all() and np.isin(venv.st.current_player[live], [1, 3]).all()
        obs, rew, term, trunc, info = venv.step(info["action_mask"].argmax(axis=1))
    with pytest.raises(ValueError, match=r"learner_side=2 is not valid; valid: None or 0..1"):
        KernelVectorEnv(k, 8, lowest, learner_side=2)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        cardzoo.make_vec("chess", 4)
    with pytest.raises(ValueError, match="num_envs must be an int >= 1, got 0"):
        cardzoo.make_vec("avinas", 0)
    with pytest.raises(ValueError, match=r"autoreset_mode='Disabled' is not supported; valid: \['NextStep', 'SameStep'\]"):
        cardzoo.make_vec("avinas", 4, autoreset_mode="Disabled")
    with pytest.raises(ValueError, match="opponent 3 is not an agent name"):
        cardzoo.make_vec("avinas", 4, opponents=3)
    with pytest.raises(ValueError, match="weights must be 2 numbers"):
        OpponentSet([np.argmax, np.argmin], weights=[1.0])
    venv = cardzoo.make_vec("all_fours", 4, seed=0)
    with pytest.raises(RuntimeError, match="before reset"):
        venv.step(np.zeros(4, dtype=np.int64))
    obs, info = venv.reset()
    bad = (~info["action_mask"]).argmax(axis=1)
    with pytest.raises(ValueError, match="illegal"):
        venv.step(bad)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        venv.step(np.zeros(3, dtype=np.int64))


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_lose_ends_those_games_with_minus_one(game):
    n = 8
    venv = cardzoo.make_vec(game, n, opponents="random", seed=2, illegal_action="lose")
    obs, info = venv.reset()
    mask = info["action_mask"]
    actions = mask.argmax(axis=1)
    actions[:3] = (~mask[:3]).argmax(axis=1)  # an illegal action in games 0, 1, 2
    assert not mask[np.arange(3), actions[:3]].any()
    obs, rew, term, trunc, info = venv.step(actions)
    np.testing.assert_array_equal(rew[:3], [-1.0, -1.0, -1.0])
    assert term[:3].all() and not trunc[:3].any()
    assert info["illegal_action"][:3].all() and info["episode_return"][:3].tolist() == [-1.0] * 3
    assert not info["illegal_action"][3:][info["_illegal_action"][3:]].any()
    obs, rew, term, trunc, info = venv.step(info["action_mask"].argmax(axis=1))  # games 0-2 dealt anew
    assert rew[:3].tolist() == [0.0] * 3 and not (term[:3] | trunc[:3]).any()
    with pytest.raises(ValueError, match=r"actions must be in 0\.\."):
        venv.step(np.full(n, 10_000))
    with pytest.raises(ValueError, match=r"illegal_action='x' is not valid"):
        cardzoo.make_vec(game, 2, illegal_action="x")


def test_an_opponent_of_another_game_is_refused_when_the_env_is_made():
    with pytest.raises(ValueError, match="'avinas/rule' plays avinas, not all_fours"):
        cardzoo.make_vec("all_fours", 4, opponents="avinas/rule")
    with pytest.raises(ValueError, match="plays ottocento, not all_fours"):
        cardzoo.make_vec("all_fours", 4, opponents=["all_fours/rule", "ottocento/rule"])
    with pytest.raises(ValueError, match="unknown agent|no-such"):
        cardzoo.make_vec("all_fours", 4, opponents="no-such-agent")


def test_a_name_listed_twice_among_the_opponents_is_drawn_twice_as_often():
    """make_vec built a dict name -> agent from the list: ["random", "random", "all_fours/rule"] kept one
    "random" and drew it half of the time, not the two thirds of a uniform draw over the list."""
    venv = cardzoo.make_vec("all_fours", 4, opponents=["random", "random", "all_fours/rule"], seed=0)
    assert [venv.opponents.name(i) for i in range(len(venv.opponents))] == ["random", "all_fours/rule"]
    np.testing.assert_allclose(venv.opponents._p, [2 / 3, 1 / 3])
    venv = cardzoo.make_vec("all_fours", 4, opponents=["random", "all_fours/rule"], seed=0)
    np.testing.assert_allclose(venv.opponents._p, [1 / 2, 1 / 2])


@pytest.mark.parametrize("illegal_action", ["raise", "lose"])
def test_a_refused_step_leaves_the_autoresets_to_come(illegal_action):
    """NEXT_STEP: a step refused for a bad action of a live game used to deal the games that had
    just ended before the check (their autoreset spent, the generator drawn), so the retry applied
    the ignored actions to the new games (and was refused in turn). The twin never saw the refusal."""
    twins = [cardzoo.make_vec("all_fours", 4, opponents="random", seed=0, illegal_action=illegal_action) for _ in range(2)]
    info = [v.reset()[1] for v in twins][0]
    rng = np.random.default_rng(1)
    for _ in range(200):
        actions = _random_legal(info["action_mask"], rng)
        (_, _, term, _, info), _ = [v.step(actions) for v in twins]
        if term.any() and not term.all():
            break
    pending = twins[1]._pending.copy()
    assert pending.any() and not pending.all()
    live = int(np.flatnonzero(~pending)[0])
    actions = _random_legal(info["action_mask"], rng)
    bad = actions.copy()
    if illegal_action == "raise":
        bad[live] = int(np.flatnonzero(~info["action_mask"][live])[0])
        with pytest.raises(ValueError, match=rf"illegal action \w+ in game {live} for seat \d; legal: \["):
            twins[1].step(bad)
    else:
        bad[live] = 10_000
        with pytest.raises(ValueError, match=r"actions must be in 0\.\.55, got \[10000\]"):
            twins[1].step(bad)
    np.testing.assert_array_equal(twins[1]._pending, pending)
    out = [v.step(actions) for v in twins]
    for a, b in zip(out[0][:4], out[1][:4]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(out[0][4]["action_mask"], out[1][4]["action_mask"])


@pytest.mark.parametrize("illegal_action", ["raise", "lose"])
def test_actions_of_every_int_width_play_and_a_huge_uint64_is_named_as_given(illegal_action):
    """The step cast the actions to int64 before checking them: a uint64 action 2**63 + a wrapped to
    a negative number, and the ValueError named that number (-9223372036854775804), not the action given."""
    twins = [cardzoo.make_vec("all_fours", 4, opponents="random", seed=0, illegal_action=illegal_action) for _ in range(2)]
    info = [v.reset()[1] for v in twins][0]
    rng = np.random.default_rng(3)
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        actions = _random_legal(info["action_mask"], rng)
        out = [twins[0].step(actions), twins[1].step(actions.astype(dtype))]
        for a, b in zip(out[0][:4], out[1][:4]):
            np.testing.assert_array_equal(a, b)
        info = out[0][4]
    actions = _random_legal(info["action_mask"], rng)
    huge = actions.astype(np.uint64)
    huge[0] += np.uint64(2**63)
    if illegal_action == "raise":
        match = rf"illegal action {2**63 + int(actions[0])} \(out of range 0\.\.55\) in game 0 for seat \d; legal: \["
    else:
        match = rf"actions must be in 0\.\.55, got \[{2**63 + int(actions[0])}\]$"
    with pytest.raises(ValueError, match=match):
        twins[1].step(huge)
    out = [v.step(actions) for v in twins]  # the refused step changed nothing
    for a, b in zip(out[0][:4], out[1][:4]):
        np.testing.assert_array_equal(a, b)


def test_a_bad_seed_of_make_vec_is_refused_before_the_opponents_are_loaded():
    """make_vec loaded the opponents with the seed before the vector env checked it: seed=1.5 raised
    numpy's TypeError ("SeedSequence expects int ..."), seed=-1 numpy's "expected non-negative integer"."""
    for seed in (-1, True, 1.5, "3"):
        with pytest.raises(ValueError) as err:
            cardzoo.make_vec("all_fours", 2, opponents=["random", "all_fours/pimc"], seed=seed)
        assert str(err.value) == f"seed must be a non-negative int or None, got {seed!r}"


def test_reset_seed_replays_the_games_whatever_the_opponents_drew_before():
    """The docs promise that the same seed and actions replay the same games; a ``random`` opponent
    kept drawing from its own generator, so a second ``reset(seed=5)`` of the same env (or one
    built without a seed) played other games. Its generator is now seeded with the env's."""

    def trace(venv, seed):
        return [x for step in _run(venv, 60, seed) for x in step if x is not None]

    def same(a, b):
        return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))

    venv = cardzoo.make_vec("all_fours", 8, opponents="random")
    first = trace(venv, 5)
    assert same(first, trace(venv, 5))
    assert same(first, trace(cardzoo.make_vec("all_fours", 8, opponents="random"), 5))
    assert not same(first, trace(venv, 6))
    built = cardzoo.make_vec("all_fours", 8, opponents="random", seed=5)  # the constructor's seed is the same seed
    rng = np.random.default_rng(5)
    obs, info = built.reset()
    np.testing.assert_array_equal(obs, first[0])
    obs, rew, term, trunc, info = built.step(_random_legal(info["action_mask"], rng))
    np.testing.assert_array_equal(obs, first[1])


def test_sb3_adapter_refuses_float_actions_by_name():
    """KernelVecEnv.step_async cast the actions with np.asarray(..., dtype=int64): 2.7 was played as 2
    without a word, and 3 actions for 4 games raised numpy's 'cannot reshape' error."""
    pytest.importorskip("stable_baselines3")
    from cardzoo import agents
    from cardzoo.training.vec_env import KernelVecEnv, OpponentPool

    pool = OpponentPool({"random": 1.0})
    pool.add("random", agents.load("random", seed=0))
    venv = KernelVecEnv("all_fours", 4, pool, seed=0)
    venv.seed(0)
    venv.reset()
    legal = venv.action_masks().argmax(axis=1)
    with pytest.raises(ValueError) as err:
        venv.step(legal + 0.7)
    assert str(err.value) == "actions must be an int array of shape (4,), got float64 (4,)"
    with pytest.raises(ValueError) as err:
        venv.step(legal[:3])
    assert str(err.value) == "actions must be an int array of shape (4,), got int64 (3,)"
    venv.step(legal[:, None])  # (n_envs, 1), as SB3 may pass them, is played


@pytest.mark.parametrize("name", ["privileged", "skip_forced"])
@pytest.mark.parametrize("flag", ["no", 0, None])
def test_flags_take_a_bool_only(name, flag):
    """make_vec(..., skip_forced="no") played the forced moves (bool("no") is True) without a word."""
    with pytest.raises(ValueError) as err:
        cardzoo.make_vec("pyanitsa", 2, **{name: flag})
    assert str(err.value) == f"{name} must be True or False, got {flag!r}"
    chooses = {"collect_order": "winner_chooses"}  # skip_forced needs a decision with a choice (Kernel.has_choices)
    assert getattr(cardzoo.make_vec("pyanitsa", 2, **{name: np.bool_(True)}, **chooses), name) is True


def test_opponents_and_weights_of_the_wrong_kind_are_refused_by_name():
    """KernelVectorEnv(k, 2, "random") read the name as six opponents, one per letter ("opponents
    ['opponent_0', ..., 'opponent_5'] are not callables"); an agent object or a number raised
    TypeError ('RandomAgent' object is not iterable); weights=['a', 'b'] numpy's float error."""
    k = envs.kernel("all_fours")
    agent = cardzoo.load_agent("random", seed=0)
    head = "opponents must be an act(obs, mask) callable, a list of them or a dict name -> callable, got "
    for opponents, tail in [
        ("random", "'random': agents by name are cardzoo.make_vec's (it loads them)"),
        (agent, f"{agent!r}: pass the agent's .act"),
        (5, "5"),
    ]:
        with pytest.raises(ValueError) as err:
            KernelVectorEnv(k, 2, opponents)
        assert str(err.value) == head + tail
    with pytest.raises(ValueError) as err:
        OpponentSet([agent.act, agent.act], weights=["a", "b"])
    assert str(err.value) == "weights must be 2 numbers >= 0 with a positive sum, got ['a', 'b']"
    assert len(OpponentSet((agent.act, agent.act), weights=[1, 3])) == 2
    # [1, inf] was taken, with probabilities [0, nan] that failed the first draw; [True, False] was [1, 0]
    for weights in ([1, float("inf")], [True, False], [np.nan, 1.0], [0, 0]):
        with pytest.raises(ValueError) as err:
            OpponentSet([agent.act, agent.act], weights=weights)
        assert str(err.value) == f"weights must be 2 numbers >= 0 with a positive sum, got {weights!r}"
    np.testing.assert_allclose(OpponentSet([agent.act, agent.act], weights=np.array([1, 3], dtype=np.int8))._p, [0.25, 0.75])


def test_search_agents_are_opponents_and_replay_for_a_seed():
    """make_vec("all_fours", opponents="all_fours/pimc") was built, then its first step raised
    TypeError ("pimc32(...) searches the game state: call act_state(state)"). A search agent now acts
    on the games' state (as in the arena) and is re-seeded with the env."""
    venv = cardzoo.make_vec("all_fours", 4, opponents=["all_fours/pimc", "all_fours/ismcts"])

    def trace(seed):
        return [x for step in _run(venv, 25, seed) for x in step if x is not None]

    a, b = trace(2), trace(2)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    assert venv.opponents.needs_state(0) and venv.opponents.needs_state(1)
    assert not cardzoo.make_vec("all_fours", 2).opponents.needs_state(0)


def test_an_opponent_that_returns_bad_actions_is_named():
    """An opponent's illegal action was reported as the learner's would be ("illegal action 2C in game 0
    for seat 0"), one action for the whole batch was broadcast to every game, and float actions were
    truncated to ints, all without naming the opponent."""
    cases = [
        ({"lazy": lambda obs, mask: (~mask).argmax(axis=1)},
         "opponent 'lazy' chose an illegal action 2C in game 0 for seat 0; legal: ['STAND', 'BEG']"),
        ({"scalar": lambda obs, mask: 0},
         "opponent 'scalar' returned int64 actions of shape () for 4 decisions; it must return one int action per row (4,)"),
        ({"floats": lambda obs, mask: mask.argmax(axis=1).astype(float)},
         "opponent 'floats' returned float64 actions of shape (4,) for 4 decisions; it must return one int action per row (4,)"),
    ]
    for opponents, message in cases:
        venv = cardzoo.make_vec("all_fours", 4, opponents=opponents, seed=0)
        with pytest.raises(ValueError) as err:
            venv.reset()
        assert str(err.value) == message


def test_close_twice_is_fine_and_a_closed_env_refuses_to_play():
    """``step`` after ``close()`` played on (and ``reset`` dealt again) as if the env were open:
    Gymnasium's own AsyncVectorEnv refuses a closed env, and a closed env should hold no games."""
    venv = cardzoo.make_vec("all_fours", 4, opponents="random", seed=0)
    obs, info = venv.reset()
    actions = info["action_mask"].argmax(axis=1)
    venv.close()
    venv.close()  # a second close does nothing
    assert venv.closed and venv.st is None
    message = "called after close(): this KernelVectorEnv is closed (its games are freed); make a new one (cardzoo.make_vec)"
    for call, what in ((lambda: venv.step(actions), "step()"), (venv.reset, "reset()"), (venv.action_masks, "action_masks()")):
        with pytest.raises(RuntimeError) as err:
            call()
        assert str(err.value) == f"{what} {message}"


def test_a_list_of_seeds_is_refused_naming_the_one_generator():
    """Gymnasium's SyncVectorEnv takes ``reset(seed=[s0, s1, ...])``, one seed per sub-env; the batched
    games are dealt from one generator, so no game can be seeded alone. The list was refused with the
    message of any bad seed ("seed must be a non-negative int or None"), which read like a bug."""
    venv = cardzoo.make_vec("avinas", 3, opponents="random", seed=0)
    first = venv.reset(seed=4)[0]
    for seeds in ([1, 2, 3], (1, 2, 3), np.array([1, 2, 3])):
        with pytest.raises(ValueError) as err:
            venv.reset(seed=seeds)
        assert str(err.value) == (
            "seed must be one non-negative int or None, got a list [1, 2, 3]: KernelVectorEnv deals all its games "
            "in one batch from one generator, so it takes one seed (the same seed and actions replay the same "
            "games), not one seed per game as Gymnasium's SyncVectorEnv does")
    with pytest.raises(ValueError, match="got a list"):
        KernelVectorEnv(venv.kernel, 3, venv.opponents, seed=[1, 2, 3])
    with pytest.raises(ValueError, match=r"got a list \[1, 2, 3\]: KernelVectorEnv deals all its games"):
        cardzoo.make_vec("avinas", 3, seed=[1, 2, 3])  # make_vec said "must be a non-negative int or None" only
    with pytest.raises(ValueError) as err:  # an array of one seed is no list of seeds
        venv.reset(seed=np.array(4))
    assert str(err.value) == "seed must be a non-negative int or None, got array(4)"
    np.testing.assert_array_equal(venv.reset(seed=4)[0], first)  # one int seeds it as before


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_observations_and_infos_do_not_reveal_hidden_cards(game, mode):
    """Every step, the cards the learner's seat cannot see (the other hands, the undealt cards) are
    dealt again at random (``Kernel.determinize`` from that seat's view): the observations, masks and
    infos the vector env returns for that seat must stay the same, final observations included."""
    n = 8
    venv = cardzoo.make_vec(game, n, opponents="random", seed=7, autoreset_mode=mode)
    k = venv.kernel
    rng = np.random.default_rng(7)
    obs, info = venv.reset()
    moved = checked = 0
    for step in range(40):
        st = venv.st
        done = st.done.copy()  # NEXT_STEP: finished games show the learner's final view
        seat = np.where(done, venv._rep_seat[venv.learner_team], st.current_player).astype(np.int64)
        if not done.all():
            other = k.determinize(st, seat, np.random.default_rng(step))
            for f in ("done", "current_player"):
                np.testing.assert_array_equal(getattr(other, f), getattr(st, f))
            venv.st = other
            try:
                shown = venv._obs(seat), venv._masks()
            finally:
                venv.st = st
            live = ~done
            np.testing.assert_array_equal(shown[0][live], obs[live])
            np.testing.assert_array_equal(shown[1][live], info["action_mask"][live])
            moved += int((k.global_state(other) != k.global_state(st)).any(axis=1)[live].sum())  # cards really moved
            checked += int(live.sum())
        obs, rew, term, trunc, info = venv.step(_random_legal(info["action_mask"], rng))
        # beside the masks, infos hold per-game results only (no cards): return, length, opponent, flags
        assert set(info) <= {"action_mask", "_action_mask", "episode_return", "_episode_return", "episode_length",
                             "_episode_length", "opponent", "_opponent", "truncated", "_truncated", "illegal_action",
                             "_illegal_action", "final_obs", "_final_obs", "final_info", "_final_info"}
    assert checked > 100 and moved > checked // 4


def test_sb3_adapter_refuses_a_pool_of_the_wrong_kind_at_construction():
    """KernelVecEnv("all_fours", 4, "random") raised AttributeError ('str' object has no attribute
    'entries'), an OpponentSet of callables the same, OpponentPool("random") AttributeError ('items'),
    and a pool whose only members have weight 0 was built and failed at the first reset."""
    pytest.importorskip("stable_baselines3")
    from cardzoo.training.vec_env import KernelVecEnv, OpponentPool

    with pytest.raises(ValueError) as err:
        KernelVecEnv("all_fours", 4, "random")
    assert str(err.value) == (
        "pool must be an OpponentPool (pool = OpponentPool({'random': 1.0}); pool.add('random', agent)) "
        "or an OpponentSet of act(obs, mask) callables, got 'random'")
    with pytest.raises(ValueError) as err:
        OpponentPool("random")
    assert str(err.value) == "group weights must be a dict family -> weight, e.g. {'random': 0.1, 'rule': 0.9}, got 'random'"
    pool = OpponentPool({"rule": 1.0, "random": 0.0})
    pool.add("random", cardzoo.load_agent("random", seed=0))
    with pytest.raises(ValueError) as err:
        KernelVecEnv("all_fours", 4, pool)
    assert str(err.value) == "no opponent in the pool has a positive weight: pool ['random'], weights {'rule': 1.0, 'random': 0.0}"
    # a fixed OpponentSet of callables plays too
    lowest = OpponentSet({"lowest": lambda obs, mask: mask.argmax(axis=1)})
    venv = KernelVecEnv("all_fours", 4, lowest, seed=0)
    venv.seed(0)
    obs = venv.reset()
    assert obs.shape == (4, 402) and obs.dtype == np.float32
    done = np.zeros(4, dtype=bool)
    for _ in range(60):
        obs, rew, dones, infos = venv.step(venv.action_masks().argmax(axis=1))
        for i in np.flatnonzero(dones):
            assert infos[i]["episode_result"]["opponent"] == "lowest"
        done |= dones
    assert done.all()


def test_np_random_is_the_generator_that_deals_and_np_random_seed_its_seed():
    """Gymnasium's ``np_random_seed`` of ``make_vec(..., seed=5)`` was a random 128-bit number (the
    base class made a generator of its own on first use), and ``np_random`` was that unused generator,
    not the one that deals: a run could not be logged or replayed by its seed."""
    venv = cardzoo.make_vec("all_fours", 4, opponents="all_fours/rule", seed=5)
    assert venv.np_random_seed == 5 and venv.np_random is venv.rng
    venv.reset(seed=9)
    assert venv.np_random_seed == 9 and venv.np_random is venv.rng
    stats = gymnasium.wrappers.vector.RecordEpisodeStatistics(venv)  # kept: a wrapper deleted closes what it wraps
    assert stats.np_random_seed == 9
    # unseeded: the seed drawn is reported, and replays the same deals
    free = cardzoo.make_vec("all_fours", 4, opponents="all_fours/rule")
    seed = free.np_random_seed
    assert isinstance(seed, int) and seed >= 0
    obs, info = free.reset()
    again, info2 = cardzoo.make_vec("all_fours", 4, opponents="all_fours/rule", seed=seed).reset()
    np.testing.assert_array_equal(obs, again)
    np.testing.assert_array_equal(info["action_mask"], info2["action_mask"])
    # ... and the same games with random opponents: they kept make_vec's fresh entropy, and the replay
    # differed from its first step
    def play(venv, seed):
        obs, info = venv.reset(seed=seed)
        seen = [obs]
        for _ in range(60):
            obs, _, _, _, info = venv.step(info["action_mask"].argmax(axis=1))
            seen.append(obs)
        return np.stack(seen)

    free = cardzoo.make_vec("all_fours", 8, opponents="random")
    np.testing.assert_array_equal(play(free, None), play(cardzoo.make_vec("all_fours", 8, opponents="random"), free.np_random_seed))
    # a generator set directly deals (Gymnasium reports its seed as -1)
    venv.np_random = np.random.default_rng(5)
    assert venv.np_random_seed == -1
    np.testing.assert_array_equal(venv.reset()[0], cardzoo.make_vec("all_fours", 4, opponents="all_fours/rule", seed=5).reset()[0])
    with pytest.raises(ValueError) as err:
        venv.np_random = 5
    assert str(err.value) == "np_random must be a numpy.random.Generator, got 5"


def test_maskable_ppo_trains_and_evaluates_on_a_make_vec_env_through_the_sb3_adapter():
    """``MaskablePPO("MlpPolicy", cardzoo.make_vec(...))`` fails inside SB3 ("not a Gymnasium
    environment ... we expect OpenAI Gym"): SB3 takes its own VecEnv, and the adapter could only be
    built from a game name and an OpponentPool. ``KernelVecEnv.from_vector_env`` adapts a make_vec env."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from sb3_contrib.common.maskable.utils import get_action_masks

    from cardzoo.training.vec_env import KernelVecEnv

    with pytest.raises(ValueError) as err:
        KernelVecEnv.from_vector_env(cardzoo.make_vec("pyanitsa", 4, seed=0))
    assert str(err.value) == (
        "from_vector_env needs a vector env in SameStep autoreset mode (stable-baselines3's convention), "
        'got NextStep: make it with cardzoo.make_vec(..., autoreset_mode="SameStep")')
    with pytest.raises(ValueError, match="from_vector_env takes a KernelVectorEnv"):
        KernelVecEnv.from_vector_env("pyanitsa")
    torch.set_num_threads(1)
    venv = cardzoo.make_vec("pyanitsa", 8, opponents="random", seed=0, autoreset_mode="SameStep")
    env = KernelVecEnv.from_vector_env(venv)
    assert env.venv is venv and env.num_envs == 8 and env.game == "pyanitsa"
    assert env.observation_space == venv.single_observation_space
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.learn(512)
    assert model.num_timesteps == 512
    masks = get_action_masks(env)
    assert masks.shape == (8, 37) and masks.dtype == bool
    np.testing.assert_array_equal(masks, venv.kernel.legal_actions(venv.st))
    returns, lengths = evaluate_policy(model, env, n_eval_episodes=8, return_episode_rewards=True, warn=False)
    assert len(returns) == 8 and set(returns) <= {-1.0, 0.0, 1.0} and min(lengths) >= 1
    venv.close()
    with pytest.raises(ValueError, match="closed vector env"):
        KernelVecEnv.from_vector_env(venv)


def test_opponent_pool_weights_are_finite_numbers_numpy_ones_included():
    """OpponentPool({"random": np.float32(1.0)}) was refused as "must be >= 0" (only Python int and float
    passed), True was a weight, and float("inf") was taken and made every draw fail later with numpy's
    "probabilities contain NaN"."""
    pytest.importorskip("stable_baselines3")
    from cardzoo.training.vec_env import OpponentPool

    pool = OpponentPool({"random": np.float32(1.0), "rule": np.int64(3)})
    assert pool.group_weights == {"random": 1.0, "rule": 3.0}
    assert all(type(w) is float for w in pool.group_weights.values())
    pool.add("random", object())
    pool.add("rule", object())
    np.testing.assert_allclose(pool.probabilities(), [0.25, 0.75])
    for bad in ({"random": True}, {"random": float("inf")}, {"random": float("nan")}, {"random": "1"}, {"random": 0.0}):
        with pytest.raises(ValueError) as err:
            OpponentPool(bad)
        assert str(err.value) == f"opponent weights must be >= 0 with at least one > 0, got {bad}"


def test_a_trained_agent_object_for_another_observation_layout_is_refused_as_its_name_is():
    """make_vec("all_fours", opponents=load_agent("all_fours/ppo"), target_score=3) was built and played: the
    observation has the same 402 features but another encoding (its layout hash differs), on which the agent
    was never trained. By name the same opponent raised LayoutMismatchError; the object now does too."""
    pytest.importorskip("torch")
    from cardzoo.agents.options import LayoutMismatchError

    agent = cardzoo.load_agent("all_fours/ppo")
    assert envs.kernel("all_fours", target_score=3).obs_layout.size == envs.kernel("all_fours").obs_layout.size
    for opponents in (agent, [agent, "random"], {"ppo": agent}):
        with pytest.raises(LayoutMismatchError) as err:
            cardzoo.make_vec("all_fours", 2, opponents=opponents, target_score=3)
        assert str(err.value).startswith(
            "agent 'all_fours/ppo' was trained for other all_fours options (target_score: trained 14, here 3), "
            "which give another observation (layout ")
        assert err.value.differences == {"target_score": (14, 3)}
    venv = cardzoo.make_vec("all_fours", 2, opponents=agent, episode="match", seed=0)  # the same layout: plays
    obs, infos = venv.reset()
    assert obs.shape == (2, 402)


def test_closing_the_sb3_adapter_closes_the_vector_env_it_adapts():
    """KernelVecEnv.close() did nothing: the adapter (and the Gymnasium vector env under it) went on
    stepping after close(), unlike the vector env itself, whose close() frees the games."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import VecMonitor

    from cardzoo.training.vec_env import KernelVecEnv

    venv = cardzoo.make_vec("avinas", 3, opponents="random", autoreset_mode="SameStep", seed=0)
    sb3 = VecMonitor(KernelVecEnv.from_vector_env(venv))
    sb3.reset()
    sb3.step(sb3.venv.action_masks().argmax(axis=1))
    sb3.close()
    assert venv.closed and venv.st is None
    for call, what in ((sb3.reset, "reset()"), (lambda: sb3.step(np.zeros(3, dtype=np.int64)), "step()"),
                       (sb3.venv.action_masks, "action_masks()")):
        with pytest.raises(RuntimeError) as err:
            call()
        assert str(err.value) == (f"{what} called after close(): this KernelVectorEnv is closed (its games are freed); "
                                  "make a new one (cardzoo.make_vec)")
    sb3.close()  # a second close does nothing


def test_the_sb3_adapters_step_wait_needs_step_async_first():
    """step_wait() before step_async() stepped None ("actions must be an int array of shape (3,), got
    object ()"), and a second step_wait() replayed the last actions."""
    pytest.importorskip("stable_baselines3")
    from cardzoo.training.vec_env import KernelVecEnv

    sb3 = KernelVecEnv.from_vector_env(cardzoo.make_vec("avinas", 3, opponents="random", autoreset_mode="SameStep", seed=0))
    sb3.reset()
    said = "step_wait() called without actions: call step_async(actions) first (or step(actions))"
    with pytest.raises(RuntimeError) as err:
        sb3.step_wait()
    assert str(err.value) == said
    sb3.step_async(sb3.action_masks().argmax(axis=1))
    obs, rewards, dones, infos = sb3.step_wait()
    assert obs.shape == (3, 421) and len(infos) == 3
    with pytest.raises(RuntimeError) as err:
        sb3.step_wait()
    assert str(err.value) == said


def test_skip_forced_without_any_choice_is_refused_when_made():
    """P'yanitsa without collect_order="winner_chooses" has only the forced FLIP: skip_forced=True is
    refused by make_vec (it built, then reset() played 100 deals before refusing); with
    winner_chooses it builds, and without skip_forced the forced moves are the learner's."""
    assert not envs.kernel("pyanitsa").has_choices and envs.kernel("pyanitsa", collect_order="winner_chooses").has_choices
    assert all(envs.kernel(g).has_choices for g in envs.GAMES if g != "pyanitsa")
    for order in ("winner_first", "seat_order", "random"):
        with pytest.raises(ValueError, match=rf"skip_forced=True: pyanitsa with options .*'collect_order': '{order}'.* "
                                             r"has no decision with more than one legal action"):
            cardzoo.make_vec("pyanitsa", 2, opponents=["random"], skip_forced=True, collect_order=order)
    cardzoo.make_vec("pyanitsa", 2, opponents=["random"], skip_forced=True, collect_order="winner_chooses").reset(seed=0)
    cardzoo.make_vec("pyanitsa", 2, opponents=["random"]).reset(seed=0)

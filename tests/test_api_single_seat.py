"""The single-seat Gymnasium env (``cardzoo.training.single_agent.SingleSeatEnv``): bad arguments
are refused with a ValueError that names them and what is valid."""

from __future__ import annotations

import re

import pytest

from cardzoo.training.single_agent import SingleSeatEnv


@pytest.mark.parametrize("others", [[1, 2], "random", 3])
def test_others_that_is_not_a_dict_is_refused_by_name(others):
    """others=[1, 2] raised AttributeError: 'list' object has no attribute 'items'."""
    with pytest.raises(ValueError) as err:
        SingleSeatEnv("all_fours", seat=0, others=others)
    assert str(err.value) == f"others must be a dict seat -> agent name (seats [1, 2, 3]), got {others!r}"


@pytest.mark.parametrize("kwargs, said", [
    ({"opponents": None}, "opponents=None"), ({"opponents": ["random"]}, "opponents=['random']"),
    ({"partner": 3}, "partner=3"), ({"others": {2: None}}, "others[2]=None"),
])
def test_an_agent_that_is_not_a_name_is_refused_naming_the_parameter(kwargs, said):
    """opponents=["random"] (a list, as cardzoo.make_vec takes) raised the registry's TypeError ("an agent is
    named by a registered agent name ..., got ['random']"), naming no parameter of the env."""
    with pytest.raises(TypeError) as err:
        SingleSeatEnv("all_fours", seat=0, **kwargs)
    value = kwargs.get("opponents", kwargs.get("partner", (kwargs.get("others") or {}).get(2)))
    assert str(err.value) == (
        f"{said} is not an agent name: an agent is named by a registered agent name such as 'all_fours/rule' "
        f"(cardzoo.agents.available()) or the path of a saved agent folder (str or pathlib.Path), got {value!r}")


def test_others_as_a_dict_still_names_the_agents():
    env = SingleSeatEnv("all_fours", seat=1, others={0: "all_fours/rule"}, seed=0)
    assert type(env.bots[0]).__name__ != type(env.bots[2]).__name__  # seat 0 the rule bot, seat 2 random


def test_a_reset_refused_for_a_bad_hook_value_leaves_the_episode_and_the_agents():
    """reset(seed=1, options={"dealer": 9}) reset and re-seeded the other seats' agents before the
    kernel refused the dealer, so the episode being played went on with other random moves (the
    next step of a twin's legal action was refused as illegal)."""
    import numpy as np

    def make():
        return SingleSeatEnv("all_fours", seat=0, partner="random", opponents="random", seed=0)

    env, twin = make(), make()
    info = env.reset(seed=0)[1]
    twin.reset(seed=0)
    with pytest.raises(ValueError) as err:
        env.reset(seed=1, options={"dealer": 9})
    assert str(err.value) == "reset option dealer=9 is out of range: each value must be in 0..3"
    rng = np.random.default_rng(0)
    mask = info["action_mask"]
    for _ in range(40):
        action = int(rng.choice(np.flatnonzero(mask)))
        a, b = env.step(action), twin.step(action)
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
        mask = a[4]["action_mask"]
        if a[2] or a[3]:
            a, b = env.reset(), twin.reset()
            assert np.array_equal(a[0], b[0])
            mask = a[1]["action_mask"]


def test_search_agents_play_the_other_seats_and_replay_for_a_seed():
    """SingleSeatEnv(partner="all_fours/pimc") was built, then reset() raised TypeError ("pimc32(...)
    searches the game state: call act_state(state)"): the env asked every agent for act(obs, mask).
    Search agents now read the game state, as in the arena, and are re-seeded by reset(seed)."""
    import numpy as np

    env = SingleSeatEnv("all_fours", seat=0, partner="all_fours/pimc", opponents="all_fours/ismcts")

    def run(seed):
        obs, info = env.reset(seed=seed)
        rng, out = np.random.default_rng(0), [obs.tobytes()]
        for _ in range(12):
            obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            out.append((obs.tobytes(), reward))
            if term or trunc:
                obs, info = env.reset()
                out.append(obs.tobytes())
        return out

    assert run(3) == run(3)


def test_a_gymnasium_id_plays_its_own_game_only():
    """cardzoo/AllFours-v0 with game='avinas' returned an Avinas env without a word; the id fixes the game."""
    import gymnasium

    import cardzoo  # noqa: F401  (registers the ids)

    with pytest.raises(ValueError, match=re.escape("cardzoo/AllFours-v0 plays all_fours, not game='avinas'")):
        gymnasium.make("cardzoo/AllFours-v0", game="avinas")
    env = gymnasium.make("cardzoo/Avinas-v0", game="avinas", disable_env_checker=True)
    assert env.unwrapped.aec.kernel.name == "avinas"


def test_an_exec_bot_is_refused_by_the_single_seat_and_vector_envs():
    """An exec: bot needs the arena's protocol (begin/end/close); the envs crashed at the first step with
    'call begin(kernel) before act_state'. Now refused at construction, naming where it plays."""
    import cardzoo

    bot = "exec:python3 training/examples/lowest_bot.py"
    with pytest.raises(ValueError, match=re.escape(f"{bot} is an exec: bot: it plays in `cardzoo arena`")):
        SingleSeatEnv("all_fours", seat=0, opponents=bot)
    with pytest.raises(ValueError, match=re.escape("not as an opponent of the vector env")):
        cardzoo.make_vec("all_fours", num_envs=2, opponents=bot)
    with pytest.raises(ValueError, match=re.escape("not as an opponent of the vector env")):
        cardzoo.make_vec("all_fours", num_envs=2, opponents={"a": "random", "b": bot})


def test_stable_baselines3_make_vec_env_builds_it_and_maskable_ppo_trains_and_evaluates():
    """SB3's ``make_vec_env("cardzoo/Pyanitsa-v0", ...)`` asks for ``render_mode="rgb_array"`` unless
    ``env_kwargs`` names one, and retries without it only on ``TypeError``: the env raised ValueError
    ("render_mode='rgb_array' is not supported"), so the most common SB3 recipe failed for every game.
    The refusal is now a RenderModeError (ValueError and TypeError), on which SB3 makes the env without it."""
    pytest.importorskip("sb3_contrib")
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    import cardzoo  # noqa: F401  registers the ids
    from cardzoo.training.single_agent import RenderModeError

    for bad in ("rgb_array", np.array([1, 2])):
        with pytest.raises(RenderModeError) as err:
            SingleSeatEnv("pyanitsa", seat=0, render_mode=bad)
        assert isinstance(err.value, ValueError) and isinstance(err.value, TypeError)
        assert str(err.value) == f"render_mode={bad!r} is not supported; valid: None, 'ansi', 'human'"

    torch.set_num_threads(1)
    venv = make_vec_env("cardzoo/Pyanitsa-v0", n_envs=2, seed=0, env_kwargs=dict(seat=0, opponents="random"))
    assert venv.get_attr("render_mode") == [None, None]
    venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape == (2, 37) and masks.dtype == bool and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps == 256
    returns, lengths = evaluate_policy(model, venv, n_eval_episodes=4, return_episode_rewards=True, warn=False)
    assert len(returns) == 4 and set(returns) <= {-1.0, 0.0, 1.0}  # 2 players: a loss, a draw or a win
    assert all(n >= 1 for n in lengths)


@pytest.mark.parametrize("illegal_action", ["raise", "lose"])
def test_action_masks_after_the_episode_ended_is_the_final_info_mask(illegal_action):
    """After the step that ended the episode, info["action_mask"] was all zero but action_masks() still
    gave the mask of the seat's last decision (1 or 2 legal actions)."""
    import numpy as np

    env = SingleSeatEnv("all_fours", seat=0, illegal_action=illegal_action, seed=0)
    obs, info = env.reset()
    rng = np.random.default_rng(0)
    while True:
        legal = np.flatnonzero(info["action_mask"])
        action = int(np.flatnonzero(info["action_mask"] == 0)[0]) if illegal_action == "lose" else int(rng.choice(legal))
        assert env.action_masks().tolist() == info["action_mask"].astype(bool).tolist()
        obs, reward, term, trunc, info = env.step(action)
        if term or trunc:
            break
    assert info["action_mask"].sum() == 0
    assert env.action_masks().dtype == bool and env.action_masks().sum() == 0
    obs, info = env.reset()
    assert env.action_masks().tolist() == info["action_mask"].astype(bool).tolist() and info["action_mask"].sum() >= 1


@pytest.mark.parametrize("game", ["all_fours", "pyanitsa"])
def test_an_option_of_the_constructor_given_to_reset_names_the_constructor_used(game):
    """gymnasium.make("cardzoo/Pyanitsa-v0").reset(options={"num_players": 3}) was told to give it "e.g.
    cardzoo.make('pyanitsa', num_players=3)", a call that makes the AEC env, not this one; and seat=1 was told
    nothing (found by an audit). The hint now names the call its users made, gymnasium.make with the id or
    SingleSeatEnv, and this env's own parameters; the episode being played is left as it was."""
    import gymnasium
    import numpy as np

    import cardzoo
    from cardzoo.envs import kernel_class

    spec = kernel_class(game)
    name = next(n for n in spec.OPTIONS if n not in spec.INIT_HOOKS)
    value = spec.OPTIONS[name].default
    valid = list(spec.INIT_HOOKS)
    for env, made in ((gymnasium.make(cardzoo.GYM_IDS[game]), f"gymnasium.make('{cardzoo.GYM_IDS[game]}'"),
                      (SingleSeatEnv(game), f"SingleSeatEnv('{game}'")):
        obs, _ = env.reset(seed=2)
        with pytest.raises(ValueError) as err:
            env.reset(options={name: value, "seat": 1, "dek": 0})
        assert str(err.value) == (
            f"unknown reset option(s) ['dek', '{name}', 'seat'] for {game}_v0; valid: {valid}; "
            f"'{name}' is an option of the env, not of reset: give it when the env is made, e.g. {made}, {name}={value!r}); "
            f"'seat' is an option of the env, not of reset: give it when the env is made, e.g. {made}, seat=1)")
        assert np.array_equal(env.unwrapped.aec.observe(env.unwrapped.aec.possible_agents[0])["observation"], obs)
        if game == "pyanitsa":  # deck=52 is the constructor's 52-card pack (reset's deck is the order of the pack)
            with pytest.raises(ValueError) as err:
                env.reset(options={"deck": 52})
            assert str(err.value).endswith(f"; deck=52 is a value of the env's option 'deck': give it when the env is made, e.g. {made}, deck=52)")
    with pytest.raises(ValueError) as err:  # the AEC env's own hint is unchanged
        cardzoo.make(game).reset(options={"seat": 1, name: value})
    assert str(err.value) == (f"unknown reset option(s) ['{name}', 'seat'] for {game}_v0; valid: {valid}; '{name}' is an option of "
                              f"the env, not of reset: give it when the env is made, e.g. cardzoo.make('{game}', {name}={value!r})")


def test_step_takes_the_actions_stable_baselines3_passes_and_refuses_a_batch_of_one_as_the_aec_env():
    """SingleSeatEnv.step(np.array([a])) played a while the AEC env's step refuses a one-element array (found
    by an audit). stable-baselines3 steps each env with a numpy int (an element of the VecEnv's actions) and
    model.predict on one observation returns a 0-d array: both are taken; np.array([a]) (a batch of one, for
    a VecEnv) is now refused with the AEC env's message, and nothing is played."""
    import numpy as np

    import cardzoo

    env = SingleSeatEnv("all_fours", seat=0, seed=4)
    aec = cardzoo.make("all_fours")
    obs, info = env.reset(seed=4)
    aec.reset(seed=4)
    a = int(np.flatnonzero(info["action_mask"])[0])
    for bad in (np.array([a]), np.array([[a]])):
        for step, legal in ((env.step, env.aec._legal_names()), (aec.step, aec._legal_names())):
            with pytest.raises(ValueError) as err:
                step(bad)
            assert str(err.value) == f"action must be an int action id, got {bad!r}; legal: {legal}"
    assert np.array_equal(env.aec.observe("player_0")["observation"], obs)  # nothing was played
    env.step(np.array(a))  # a 0-d array is the action it holds
    env.reset(seed=4)
    env.step(np.int64(a))
    sb3 = pytest.importorskip("sb3_contrib")
    model = sb3.MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=8, seed=0, device="cpu")
    obs, info = env.reset(seed=4)
    action, _ = model.predict(obs, action_masks=env.action_masks())
    assert isinstance(action, np.ndarray) and action.shape == ()
    env.step(action)


@pytest.mark.parametrize("game", ["all_fours", "aluette", "avinas", "ottocento", "pyanitsa"])
def test_gymnasium_make_vec_plays_the_registered_id_through_episode_ends(game):
    """``gymnasium.make_vec(id, vectorization_mode="sync")`` stacks each info key into one array per key:
    All Fours' ``last_hand`` gave a seat as an int or ``None`` (jack not dealt), and the sync vector env
    failed at step 12 ("int() argument must be ... not 'NoneType'"). A seat is an int always (-1: none)."""
    import gymnasium
    import numpy as np

    import cardzoo

    kw = dict(seat=1, opponents="random") if game == "pyanitsa" else dict(seat=1, partner=f"{game}/rule", opponents="random")
    v = gymnasium.make_vec(cardzoo.GYM_IDS[game], num_envs=3, vectorization_mode="sync", **kw)
    try:
        _, info = v.reset(seed=1)
        ended = 0
        for _ in range(200):
            _, reward, term, trunc, info = v.step(info["action_mask"].astype(bool).argmax(axis=1))
            ended += int((term | trunc).sum())
        assert reward.dtype == np.float64 and ended >= 1
    finally:
        v.close()

"""Frame tests of the core (envs/core): written once, run over every game of ``cardzoo.envs.GAMES``."""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import pytest

from cardzoo.envs import GAMES, kernel
from cardzoo.envs import make as envs_make
from cardzoo.envs.core.kernel import BatchState, Layout, hook_ints, state_field


@pytest.mark.parametrize("game", sorted(GAMES))
def test_packed_observation_round_trips_and_packs_the_binary_features(game):
    k = kernel(game)
    rng = np.random.default_rng(5)
    st = k.init(rng, 16)
    for _ in range(12):  # a few steps in, so trick and played slices are non-empty
        legal = k.legal_actions(st)
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in legal])
        k.step(st, acts, rng)
    lay = k.obs_layout
    for seat in range(k.num_players):
        obs = k.observe(st, seat)
        packed = lay.pack(obs)
        n_bin = sum(e.stop - e.start for e in lay.entries if e.high <= 1)
        assert packed.shape == (16, -(-n_bin // 8) + lay.size - n_bin) == (16, lay.packed_size)
        assert np.array_equal(lay.unpack(packed), obs)
        if hasattr(k, "drivers"):
            assert np.array_equal(k.observe(st, seat, packed=True), packed)
    for bad in ("yes", 1, None):  # "no" would be true: only a bool picks the form
        with pytest.raises(ValueError, match=f"packed must be True or False, got {bad!r}"):
            k.observe(st, 0, packed=bad)


def test_layout_pack_worked_example():
    lay = Layout()
    lay.add("a", 3, "bits")
    lay.add("n", 1, "a count", high=9)
    lay.add("b", 6, "bits")
    obs = np.array([[1, 0, 1, 7, 0, 0, 0, 1, 1, 1]], dtype=np.uint8)
    packed = lay.pack(obs)
    # bit i of the stream = i-th binary feature: features 0,2,6,7,8 set -> byte0 bits 0,2,6,7 = 197, byte1 bit 0 = 1
    assert packed.tolist() == [[197, 1, 7]]
    assert lay.packed_size == 3
    assert np.array_equal(lay.unpack(packed), obs)
    with pytest.raises(ValueError, match="10"):
        lay.pack(obs[:, :9])


def test_state_fields_are_declared_once_and_allocated_by_the_core():
    @dataclasses.dataclass
    class Toy(BatchState):
        hands: np.ndarray = state_field(np.uint64, ("players",), 0, "cards held")
        trick_card: np.ndarray = state_field(np.int8, (4,), -1, "card played to the trick")

    st = Toy.allocate(3, {"players": 2})
    assert st.hands.shape == (3, 2) and st.hands.dtype == np.uint64
    assert st.trick_card.tolist() == [[-1] * 4] * 3
    assert st.rewards.shape == (3, 2) and st.rewards.dtype == np.float64
    assert st.current_player.dtype == np.int8 and st.done.dtype == bool
    assert "``trick_card``: ``int8[B, 4]`` card played to the trick" in Toy.__doc__
    assert Toy.describe()[-1] == ("trick_card", "int8[B, 4]", "card played to the trick")
    with pytest.raises(ValueError, match="'players'"):
        Toy.allocate(1, {})


@pytest.mark.parametrize("game", sorted(GAMES))
def test_put_and_take_refuse_what_would_leave_a_broken_state(game):
    """put() of another game's state wrote the fields every game shares (current_player, done, ...) and then
    failed with AttributeError, a state of another player count failed at its first game-specific field, and
    take(2) made a state without its batch axis. Both now refuse such input before writing anything."""
    k = kernel(game)
    rng = np.random.default_rng(0)
    st = k.init(rng, 4)
    before = st.copy()
    other_game = kernel("avinas" if game != "avinas" else "all_fours").init(rng, 1)
    with pytest.raises(ValueError) as err:
        st.put(np.array([0]), other_game)
    assert str(err.value) == f"put needs a {type(st).__name__} (a state of the same game), got {type(other_game).__name__}"
    with pytest.raises(ValueError) as err:
        st.put(np.array([0]), k.init(rng, 2))
    assert str(err.value) == "put: index selects 1 of this state's games; the state given holds 2"
    if game == "pyanitsa":
        with pytest.raises(ValueError, match=r"put: the state given has other per-game shapes .* in \['rewards', "):
            st.put(np.array([0, 1]), kernel(game, num_players=3).init(rng, 2))
    assert _state_equal(st, before)
    for index in (2, np.int64(2)):
        with pytest.raises(ValueError) as err:
            st.take(index)
        assert str(err.value) == f"index must be an int array, a bool mask or a slice of games, got {index!r} (one game: [{index!r}])"
    fresh = k.init(rng, 2)
    st.put(np.array([True, False, True, False]), fresh)
    assert _state_equal(st.take(np.array([0, 2])), fresh) and _state_equal(st.take(slice(1, 2)), before.take([1]))


def test_hook_ints_names_the_hook_shape_and_range():
    assert hook_ints("dealer", 2, (3,), 0, 3).tolist() == [2, 2, 2]
    with pytest.raises(ValueError, match=r"dealer=7 is out of range: each value must be in 0\.\.3"):
        hook_ints("dealer", 7, (3,), 0, 3)
    with pytest.raises(ValueError, match="must be int"):
        hook_ints("deck", "abc", (3, 52), 0, 51)


# ---------------------------------------------------------------------------------------------
# One table of games x option sets (PettingZoo's all-parameter style); every frame test below runs
# over it. Per-game files keep the worked examples and the game's own scenarios.
OPTION_SETS: dict[str, list[dict]] = {
    "all_fours": [{}, {"episode": "match", "target_score": 7}, {"undertrump": "forbidden", "deal_packet": 1}],
    "avinas": [
        {},
        {"episode": "match", "pip_limit": 6},
        {"facedown_signal": "free", "honesty": "mask", "knock_back": "always", "trump_lead_rule": "every_lead"},
    ],
    "ottocento": [{}, {"match_target": 300, "reward": "point_diff"}, {"declaration_mode": "auto_all", "matto_rule": "captured"}],
    "aluette": [
        {},
        {"episode": "match", "match_deals": 2},
        {"signals": "free", "surrender": True, "chant_recipients": "left_and_partner"},
        {"signals": "off", "chant": False},
        {"partnership_draw": True, "signal_intercept": 0.5},
    ],
    "pyanitsa": [
        {},
        {"num_players": 3, "tie_mode": "down_up", "runout": "forfeit"},
        {"num_players": 4, "objective": "first_out_loses", "tie_players": "tied"},
        {"collect_order": "winner_chooses"},
        {"num_players": 3, "deck": 52, "collect_order": "winner_chooses", "max_battles": 40},
        {"collect_order": "winner_chooses", "tie_mode": "down_up", "observe_history": True},
        {"num_players": 4, "collect_order": "random", "observe_history": True},
    ],
}
assert set(OPTION_SETS) == set(GAMES), "every game needs its row in OPTION_SETS"
CASES = [pytest.param(g, o, id=f"{g}-{i}") for g in sorted(OPTION_SETS) for i, o in enumerate(OPTION_SETS[g])]
DEFAULTS = [pytest.param(g, {}, id=g) for g in sorted(GAMES)]


def _random_actions(k, st, rng) -> np.ndarray:
    mask = k.legal_actions(st)
    u = rng.random(mask.shape)
    u[~mask] = -1
    return u.argmax(axis=1)


def _advance(env, rng, n: int) -> None:
    """Up to ``n`` random legal steps of an AEC env (stops at the episode's end)."""
    for _ in range(n):
        if any(env.terminations.values()) or any(env.truncations.values()):
            return
        env.step(int(rng.choice(env.legal_actions())))


def _state_equal(a, b) -> bool:
    return all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))


def _played(k, seed: int, batch: int, steps: int):
    """A state of ``batch`` games after ``steps`` random steps (finished games left finished)."""
    rng = np.random.default_rng(seed)
    st = k.init(rng, batch)
    for _ in range(steps):
        k.step(st, _random_actions(k, st, rng), rng, active=~st.done)
    return st


@pytest.mark.parametrize("game, options", CASES)
def test_take_returns_the_rows_and_put_writes_exactly_those_rows(game, options):
    """take(rows) is those rows of every field (and what they show); put(rows, other) writes the other
    state's games into exactly those rows, each field, and leaves every other row as it was. The rows put
    are different games beforehand, so a put that did nothing (or wrote other rows) fails."""
    k = kernel(game, **options)
    st, other = _played(k, 3, 12, 10), _played(k, 4, 12, 7)
    rows = np.array([2, 5, 6, 11])
    rest = np.setdiff1d(np.arange(12), rows)
    sub = other.take(rows)
    assert sub.batch_size == rows.size
    for f in dataclasses.fields(st):
        assert np.array_equal(getattr(sub, f.name), getattr(other, f.name)[rows]), f.name
    for seat in range(k.num_players):
        assert np.array_equal(k.observe(sub, seat), k.observe(other, seat)[rows])
    assert np.array_equal(k.legal_actions(sub), k.legal_actions(other)[rows])
    before = st.copy()
    for i, b in enumerate(rows):  # each row put really is another game
        assert not _state_equal(before.take(np.array([b])), sub.take(np.array([i]))), b
    st.put(rows, sub)
    for f in dataclasses.fields(st):
        assert np.array_equal(getattr(st, f.name)[rows], getattr(other, f.name)[rows]), f.name
        assert np.array_equal(getattr(st, f.name)[rest], getattr(before, f.name)[rest]), f.name
    assert _state_equal(st.take(rows), sub)
    for seat in range(k.num_players):
        assert np.array_equal(k.observe(st, seat)[rows], k.observe(other, seat)[rows])
        assert np.array_equal(k.observe(st, seat)[rest], k.observe(before, seat)[rest])
    # a bool mask selects the same rows as their indices
    mask = np.zeros(12, dtype=bool)
    mask[rows] = True
    again = before.copy()
    again.put(mask, sub)
    assert _state_equal(again, st) and _state_equal(again.take(mask), sub)


@pytest.mark.parametrize("game, options", CASES)
def test_step_moves_only_the_active_games_and_does_not_read_the_others_actions(game, options):
    """step(..., active=mask): the active games move exactly as they would in a step of all games (each
    game its own random streams), the inactive ones keep every field, their rewards are zero, and their
    action is never read (an out-of-range one is no error)."""
    import copy

    from cardzoo.envs.core.chance import RowStreams

    k = kernel(game, **options)
    B = 12
    rs = RowStreams.for_deals(5, range(B))
    st = k.init(rs, B)
    pick = np.random.default_rng(6)
    for _ in range(6):
        k.step(st, _random_actions(k, st, pick), rs, active=~st.done)
    assert not st.done.any()
    active = np.arange(B) % 3 != 1
    acts = _random_actions(k, st, pick)
    everyone, rs_all = st.copy(), copy.deepcopy(rs)
    before = st.copy()
    k.step(everyone, acts, rs_all)
    given = acts.copy()
    given[~active] = k.num_actions + 999
    k.step(st, given, rs, active=active)
    assert _state_equal(st.take(active), everyone.take(active))
    for f in dataclasses.fields(st):
        if f.name != "rewards":
            assert np.array_equal(getattr(st, f.name)[~active], getattr(before, f.name)[~active]), f.name
    assert not st.rewards[~active].any()
    assert not _state_equal(everyone.take(~active), before.take(~active)), "stepped, the inactive games would have moved"


@pytest.mark.parametrize("game, options", CASES)
@pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's generic advice (dict observations, reset options)
def test_pettingzoo_api(game, options):
    from pettingzoo.test import api_test

    api_test(envs_make(game, **options), num_cycles=300)


@pytest.mark.parametrize("game, options", CASES)
def test_reset_in_place_deals_what_a_new_state_would(game, options):
    # reset() without hooks deals into the same arrays (CompiledSingleGame.new_game); a second env
    # whose fast path is dropped makes a new state with kernel.init: both draw the same chance
    a, b = envs_make(game, **options), envs_make(game, **options)
    a.reset(seed=5), b.reset(seed=5)
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    for episode in range(3):
        arrays = [getattr(a.game_state, f.name) for f in dataclasses.fields(a.game_state)]
        _advance(a, rng_a, 40)
        _advance(b, rng_b, 40)
        b._single = None  # b's next reset takes kernel.init's path
        a.reset(), b.reset()
        assert all(x is getattr(a.game_state, f.name) for x, f in zip(arrays, dataclasses.fields(a.game_state)))
        assert _state_equal(a.game_state, b.game_state), episode
        for agent in a.possible_agents:
            oa, ob = a.observe(agent), b.observe(agent)
            assert np.array_equal(oa["observation"], ob["observation"]) and np.array_equal(oa["action_mask"], ob["action_mask"])
        assert a.agent_selection == b.agent_selection and a.rewards == b.rewards
        b._single = b.kernel.single_game(b.game_state)


@pytest.mark.parametrize("game, options", CASES)
def test_seed_gives_the_same_episode_and_another_seed_another(game, options):
    from pettingzoo.test import seed_test

    seed_test(lambda: envs_make(game, **options), num_cycles=100)
    a, b, c = (envs_make(game, **options) for _ in range(3))
    a.reset(seed=11), b.reset(seed=11), c.reset(seed=12)
    assert _state_equal(a.game_state, b.game_state)
    assert not _state_equal(a.game_state, c.game_state)


@pytest.mark.parametrize("name", sorted(__import__("playthrough").PLAYTHROUGHS))
def test_golden_playthrough_replays(name):
    import playthrough

    playthrough.replay(name)


#: the copy test also runs each game's former own copy test's options (a match of three deals with signal
#: catches drawn from the env's generator, another pip limit, another match target, three-seat P'yanitsa)
COPY_CASES = CASES + [
    pytest.param("aluette", {"episode": "match", "match_deals": 3, "signal_intercept": 0.5}, id="aluette-copy"),
    pytest.param("avinas", {"episode": "match", "pip_limit": 4}, id="avinas-copy"),
    pytest.param("ottocento", {"match_target": 400}, id="ottocento-copy"),
    pytest.param("pyanitsa", {"collect_order": "random", "num_players": 3}, id="pyanitsa-copy"),
]


def _deals(env) -> int:
    counter = env.unwrapped.kernel.DEAL_COUNTER
    return int(getattr(env.unwrapped.game_state, counter)[0]) if counter is not None else 0


@pytest.mark.parametrize("game, options", COPY_CASES)
@pytest.mark.parametrize("clone", ["deepcopy", "pickle"])
def test_copy_of_a_mid_game_env_continues_identically(game, options, clone):
    """A deepcopy or a pickled copy of an env in mid-game plays on exactly as the env, to the end of the
    episode: every agent's view, rewards, terminations, the state and the env's random generator after
    every step (env_util.assert_clone_plays_on_identically). In a match (several deals in one episode)
    the copy must play across at least one new deal drawn from the generator."""
    import copy
    import pickle

    from env_util import assert_clone_plays_on_identically

    env = envs_make(game, **options)
    env.reset(seed=4)
    rng = np.random.default_rng(5)
    _advance(env, rng, 9)
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    twin = copy.deepcopy(env) if clone == "deepcopy" else pickle.loads(pickle.dumps(env))
    deals = _deals(env)
    assert_clone_plays_on_identically(env, twin, rng, min_steps=10)
    assert all(env.terminations.values()) or all(env.truncations.values())
    if options.get("episode") == "match" or options.get("match_target") is not None:
        # the deals scored since the copy, less the last (which ends the match), were followed by a new deal
        assert _deals(env) - deals - 1 >= 1, "the copy never played a deal drawn after it was made"


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_illegal_and_malformed_actions_raise_naming_them_and_change_nothing(game, options):
    env = envs_make(game, **options)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    _advance(env, rng, 5)
    mask = env.observe(env.agent_selection)["action_mask"]
    before = env.game_state.copy()
    legal_names = [env.action_name(int(a)) for a in np.flatnonzero(mask)]
    illegal = np.flatnonzero(~mask.astype(bool))
    assert illegal.size, "a position with an illegal action"
    a = int(illegal[0])
    with pytest.raises(ValueError) as e:
        env.step(a)
    assert env.action_name(a) in str(e.value) and legal_names[0] in str(e.value)
    n = env.kernel.num_actions
    for bad in (n, -1, "5", 1.0, None, True, np.float32(3)):
        with pytest.raises(ValueError):
            env.step(bad)
    assert _state_equal(env.game_state, before)
    # the kernel validates before its (compiled) rules run, for every game of a batch
    k = env.kernel
    st = k.init(np.random.default_rng(0), 4)
    acts = _random_actions(k, st, np.random.default_rng(1))
    saved = st.copy()
    bad_acts = acts.copy()
    bad_acts[2] = n + 5
    for wrong in (bad_acts, acts[:3], acts.astype(float)):
        with pytest.raises(ValueError):
            k.step(st, wrong, np.random.default_rng(0))
        assert _state_equal(st, saved)
    with pytest.raises(ValueError, match=r"^actions must be ints of shape \(4,\)"):
        k.step(st, acts[:3], np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^actions must be ints of shape \(4,\), got float64"):
        k.step(st, acts.astype(float), np.random.default_rng(0))
    for active, got in ((np.array([1, 0, 1, 0]), "int64 (4,)"), (np.ones(3, bool), "bool (3,)")):
        with pytest.raises(ValueError) as err:
            k.step(st, acts, np.random.default_rng(0), active=active)
        assert str(err.value) == f"active must be bool of shape (4,), got {got}"
    wrong = acts.copy()
    wrong[2] = int(np.flatnonzero(~k.legal_actions(st)[2])[0])
    names = [k.action_name(int(x)) for x in np.flatnonzero(k.legal_actions(st)[2])]
    with pytest.raises(ValueError) as err:
        k.step(st, wrong, np.random.default_rng(0))
    assert str(err.value) == (f"illegal action {k.action_name(int(wrong[2]))} in game 2 for seat "
                              f"{int(st.current_player[2])}; legal: {names}")
    assert _state_equal(st, saved)
    # a uint64 action above 2**63 is named as given (not as the negative int64 it would wrap to)
    huge = acts.astype(np.uint64)
    huge[1] = 2**63 + 5
    for call in (lambda: k.step(st, huge, np.random.default_rng(0)), lambda: k.check_actions(st, huge),
                 lambda: k.step_observe(st, huge, np.random.default_rng(0))):
        with pytest.raises(ValueError, match=rf"illegal action {2**63 + 5} \(out of range 0\.\.{n - 1}\) in game 1 "):
            call()
        assert _state_equal(st, saved)


@pytest.mark.parametrize("game, options", CASES)
def test_off_turn_masks_are_zero_observations_fit_and_spaces_are_stable(game, options):
    """Every option set (player counts included): each agent's observation fits its space, only the agent to
    act has a legal action, and observation_space/action_space return the same object each call (before
    reset and after)."""
    env = envs_make(game, **options)
    spaces = {a: (env.observation_space(a), env.action_space(a)) for a in env.possible_agents}
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(30):
        if any(env.terminations.values()):
            break
        for agent in env.agents:
            o = env.observe(agent)
            assert env.observation_space(agent).contains(o)
            assert o["action_mask"].any() == (agent == env.agent_selection)
            assert env.observation_space(agent) is env.observation_space(agent) is spaces[agent][0]
            assert env.action_space(agent) is env.action_space(agent) is spaces[agent][1]
        env.step(int(rng.choice(env.legal_actions())))


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_the_spaces_of_an_unknown_agent_raise_naming_the_agents(game, options):
    # was a bare KeyError('player_9') (and TypeError for an unhashable agent)
    from cardzoo.envs.core.aec import TextObservationWrapper

    env = envs_make(game, **options)
    agents = env.possible_agents
    wrapped = TextObservationWrapper(envs_make(game, **options))
    for call in (env.observation_space, env.action_space, wrapped.observation_space, wrapped.action_space):
        for agent in ("player_9", 0, ["player_0"]):
            with pytest.raises(ValueError) as err:
                call(agent)
            assert str(err.value) == f"unknown agent {agent!r}; agents: {agents}"
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"unknown agent \['player_0'\]; agents: "):
        env.observe(["player_0"])
    # observe, the text view and the spaces look an agent up the same way (a str-like key equal to a name is
    # that agent for all of them; the text view alone refused it until 2026-12-04)
    for call in (env.observe, env.unwrapped.text_observation):
        for agent in ("player_9", 0, ["player_0"], b"player_0", None):
            with pytest.raises(ValueError) as err:
                call(agent)
            assert str(err.value) == f"unknown agent {agent!r}; agents: {agents}"
    like = collections.UserString("player_0")
    assert env.observation_space(like) is env.observation_space("player_0")
    assert np.array_equal(env.observe(like)["observation"], env.observe("player_0")["observation"])
    assert env.unwrapped.text_observation(like) == env.unwrapped.text_observation("player_0")


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_action_names_round_trip(game, options):
    k = kernel(game, **options)
    names = [k.action_name(a) for a in range(k.num_actions)]
    assert len(set(names)) == k.num_actions
    for a, name in enumerate(names):
        assert k.action_id(name) == a and k.action_id(name.lower()) == a
    for bad in (k.num_actions, -1, 1.5, "x"):
        with pytest.raises(ValueError):
            k.action_name(bad)


@pytest.mark.parametrize("game, options", CASES)
def test_what_a_seat_sees_does_not_change_when_its_hidden_cards_are_dealt_again(game, options):
    """Hidden information, in every view: ``determinize`` deals again everything ``seat`` cannot see;
    the seat's observation, text view and table view must not change (and the deal must)."""
    k = kernel(game, **options)
    rng = np.random.default_rng(21)
    st = k.init(rng, 8)
    changed = 0
    for t in range(40):
        for seat in range(k.num_players):
            det = k.determinize(st, seat, np.random.default_rng(t))
            assert np.array_equal(k.observe(st, seat), k.observe(det, seat)), (t, seat)
            b = t % 8
            if not st.done[b]:
                assert k.text_view(st, b, seat) == k.text_view(det, b, seat), (t, seat)
                assert k.table_view(st, b, seat) == k.table_view(det, b, seat), (t, seat)
            changed += not np.array_equal(k.global_state(st), k.global_state(det))
        live = ~st.done
        if not live.any():
            break
        k.step(st, _random_actions(k, st, rng), rng, active=live)
    assert changed > 0, "determinize never dealt anything again"


#: phases every table-view sweep must see (with the option sets' own channels, below)
VIEW_PHASES = {"all_fours": {"stand_or_beg", "play", "over"}, "aluette": {"play", "over"},
               "avinas": {"knocks", "calls", "play", "over"}, "ottocento": {"discard", "play", "over"}, "pyanitsa": {"flip"}}


@pytest.mark.parametrize("game, options", CASES)
def test_table_views_fit_the_contract_and_show_only_what_the_seat_may_see(game, options):
    """Random play, every seat's ``table_view`` of several games at each step (and of games just ended
    and just dealt) checked against the contract (``table_view_util.check_view``: keys, JSON round trip,
    hand, hand sizes, per-team values) and against the cards the seat may see: each game's own
    ``allowed(st, b, seat)`` (RULES.md §7) in ``test_<game>_table_view.py``."""
    import importlib

    from table_view_util import sweep_views

    own = importlib.import_module(f"test_{game}_table_view")
    k = kernel(game, **options)
    rng = np.random.default_rng(21)
    phases, checked = sweep_views(k, k.init(rng, 32), rng, 200, own.allowed, getattr(own, "hand_sizes", None))
    assert checked > 200 * 2 * k.num_players
    want = set(VIEW_PHASES[game])
    if game == "aluette":
        want |= {"chant_vote"} if options.get("chant", True) else set()
        want |= {"signals"} if options.get("signals") != "off" else set()
    assert want <= phases, want - phases


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_table_view_names_a_bad_seat_or_game_and_the_env_needs_a_reset(game, options):
    k = kernel(game, **options)
    st = k.init(np.random.default_rng(0), 2)
    n = k.num_players
    for bad in (n, -1, "0", True, 1.0):
        with pytest.raises(ValueError) as err:
            k.table_view(st, 0, bad)
        assert str(err.value) == f"seat {bad!r} is not valid for {game}; valid seats: 0..{n - 1}"
    with pytest.raises(ValueError) as err:
        k.table_view(st, 2, 0)
    assert str(err.value) == "game index b=2 is not valid; the state holds games 0..1"
    env = envs_make(game, **options)
    with pytest.raises(RuntimeError) as err:
        env.table_view(0)
    assert str(err.value) == "table_view() called before reset(): call env.reset() first"
    env.reset(seed=0)
    with pytest.raises(ValueError, match=f"valid seats: 0..{n - 1}"):
        env.table_view(n)


@pytest.mark.parametrize("game, options", CASES)
def test_a_game_in_a_batch_plays_exactly_as_alone(game, options):
    """Batch independence: each game owns its random streams (RowStreams); B games stepped together
    equal each game stepped alone, through whole episodes (redeals and new hands included)."""
    from cardzoo.envs.core.chance import RowStreams

    k = kernel(game, **options)
    B = 6
    batch = k.init(RowStreams.for_deals(9, range(B)), B)
    alone = [k.init(RowStreams.for_deals(9, [g]), 1) for g in range(B)]
    rs_batch = RowStreams.for_deals(9, range(B))
    rs_alone = [RowStreams.for_deals(9, [g]) for g in range(B)]
    pol = [np.random.default_rng(100 + g) for g in range(B)]
    for t in range(k.max_episode_steps or 2000):
        if batch.done.all():
            break
        acts = np.zeros(B, dtype=np.int64)
        for g in range(B):
            if not batch.done[g]:
                acts[g] = pol[g].choice(np.flatnonzero(k.legal_actions(alone[g])[0]))
        live = ~batch.done
        k.step(batch, acts, rs_batch, active=live)
        for g in np.flatnonzero(live):
            k.step(alone[g], acts[g : g + 1], rs_alone[g])
        for g in np.flatnonzero(live):  # a finished game's rewards are zeroed by the next batched step
            assert _state_equal(batch.take(np.array([g])), alone[g]), (t, g)
    assert batch.done.all()


#: the single-game test: every option set of CASES over 3 games, and All Fours' wider sweep over 80 games
#: each (formerly test_all_fours_single.py: options outside CASES such as forbid_game_ending_give_one,
#: kick_points="tobago", reward="win" with max_redeals=1), with its at least 20 steps a game
ALL_FOURS_SINGLE_SWEEP = [
    {},
    {"undertrump": "forbidden"},
    {"episode": "match", "target_score": 7},
    {"forbid_game_ending_give_one": True, "episode": "match", "target_score": 5},
    {"deal_packet": 1, "score_rejected_kicks": False, "kick_points": "tobago", "game_tie": "beggar_team"},
    {"episode": "match", "reward": "win", "max_hands": 3, "max_redeals": 1},
]
SINGLE_GAME_CASES = [pytest.param(*p.values, 3, 0, id=p.id) for p in CASES] + [
    pytest.param("all_fours", o, 80, 20, id=f"all_fours-sweep-{i}") for i, o in enumerate(ALL_FOURS_SINGLE_SWEEP)]


@pytest.mark.parametrize("game, options, games, steps_per_game", SINGLE_GAME_CASES)
def test_the_single_game_path_plays_exactly_as_the_batch(game, options, games, steps_per_game):
    """The AEC env runs one game through ``kernel.single_game`` (B = 1 fast path); stepped with the
    same actions and seeds it must equal the batched kernel: state, masks, every seat's observation,
    after every step to the end of each game (more than ``steps_per_game`` steps a game on average)."""
    k = kernel(game, **options)
    steps = 0
    for seed in range(games):
        st = k.init(np.random.default_rng(seed), 1)
        ref = st.copy()
        one = k.single_game(st)
        assert one is not None, f"{game} has no single-game path"
        r1, r2, pol = np.random.default_rng(seed + 50), np.random.default_rng(seed + 50), np.random.default_rng(seed)
        for t in range((k.max_episode_steps or 10**6) + 1):  # the last pass sees the end
            mask = k.legal_actions(ref)[0]
            assert np.array_equal(one.legal_mask(), mask), (seed, t)
            for s in range(k.num_players):
                assert np.array_equal(one.observe(s), k.observe(ref, s)[0]), (seed, t, s)
            if ref.done[0]:
                break
            a = int(pol.choice(np.flatnonzero(mask)))
            one.step(a, r1)
            k.step(ref, np.array([a]), r2)
            steps += 1
            assert _state_equal(st, ref), (seed, t)
        assert ref.done[0] and not one.legal_mask().any(), seed
    assert steps > games * steps_per_game


@pytest.mark.parametrize("game, options", CASES)
def test_soak_invariants(game, options):
    """Random play of many episodes (auto-reset): a live game always has a legal action and a seat in
    range; finished games have none; rewards sum to zero where the game is zero-sum; no episode
    runs past ``max_episode_steps``; truncated games are done; observations stay within the layout's bounds."""
    k = kernel(game, **options)
    rng = np.random.default_rng(77)
    B = 64
    st = k.init(rng, B)
    steps = np.zeros(B, dtype=np.int64)
    high = k.obs_layout.high()
    episodes = 0
    cap = k.max_episode_steps
    for _ in range(1500):
        mask = k.legal_actions(st)
        assert (mask.any(axis=1) == ~st.done).all()
        assert ((st.current_player >= 0) & (st.current_player < k.num_players) | st.done).all()
        obs = k.observe(st, st.current_player)
        assert (obs <= high).all()
        k.step(st, _random_actions(k, st, rng), rng)
        steps += 1
        if k.zero_sum:
            assert np.allclose(st.rewards.sum(axis=1), 0, atol=1e-5)
        assert (st.done | ~st.truncated).all()
        if cap is not None:
            assert (steps <= cap).all()
        idx = k.reset_done(st, rng)
        steps[idx] = 0
        episodes += idx.size
    assert episodes >= 20


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_render_mode_none_warns_and_a_bad_render_mode_or_view_raises(game, options):
    env = envs_make(game, **options)
    env.reset(seed=0)
    with pytest.warns(UserWarning):
        assert env.render() is None
    with pytest.raises(ValueError) as err:
        envs_make(game, render_mode="rgb_array", **options)
    assert str(err.value) == "render_mode='rgb_array' is not supported; valid: None, 'ansi', 'human'"
    n = env.unwrapped.kernel.num_players
    with pytest.raises(ValueError) as err:
        envs_make(game, render_mode="ansi", render_view=n, **options)
    assert str(err.value) == f"render_view={n} is not valid; valid: None (public), 'all', or a seat 0..{n - 1}"


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_reset_without_a_seed_continues_the_generator(game, options):
    """reset() without a seed deals the next game from the env's generator: another deal, the same as a
    twin env's second reset."""
    a, b = envs_make(game, **options), envs_make(game, **options)
    a.reset(seed=1)
    b.reset(seed=1)
    first = a.game_state.copy()
    a.reset()
    b.reset()
    assert not _state_equal(a.game_state, first)
    assert _state_equal(a.game_state, b.game_state)


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_the_single_game_path_refuses_a_batch(game, options):
    k = kernel(game, **options)
    with pytest.raises(ValueError) as err:
        k.single_game(k.init(np.random.default_rng(0), 2))
    assert str(err.value) == "the single-game path runs one game; the state holds 2"


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_using_an_env_before_reset_raises_saying_so(game, options):
    env = envs_make(game, **options)
    for call in (lambda: env.step(0), env.last, env.state, lambda: env.observe("player_0")):
        with pytest.raises(RuntimeError, match="reset"):
            call()


@pytest.mark.parametrize("game, options", DEFAULTS)
@pytest.mark.parametrize("how", ["played out", "forfeited"])
def test_action_from_text_after_the_episode_ended_says_it_is_over(game, options, how):
    """action_from_text on a finished episode said "player_2 is not to act now (agent to act: player_2)",
    naming as the agent to act the very seat it said was not."""
    env = envs_make(game, illegal_action="lose" if how == "forfeited" else "raise", **options)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    if how == "forfeited":
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0]))
    else:
        _advance(env, rng, 100_000)
    assert all(env.terminations.values()) or all(env.truncations.values())
    for agent in env.possible_agents:
        with pytest.raises(ValueError) as err:
            env.action_from_text(agent, env.action_name(0))
        assert str(err.value) == f"the episode is over: no action is legal for {agent}; call env.reset() to deal again"
    env.reset(seed=1)
    legal = env.legal_actions()
    assert env.action_from_text(env.agent_selection, env.action_name(legal[0]).lower()) == legal[0]


@pytest.mark.parametrize("game, options", CASES)
def test_the_parallel_drivers_play_exactly_as_one_core(game, options):
    """``kernel.set_parallel(True)`` spreads the batch over threads (chunks of games); every state
    field, mask and observation must stay what one core computes, through auto-resets."""
    import numba

    one, par = kernel(game, **options), kernel(game, **options)
    par.set_parallel(True)
    threads = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        r1, r2, pick = np.random.default_rng(3), np.random.default_rng(3), np.random.default_rng(4)
        a, b = one.init(r1, 64), par.init(r2, 64)
        finished = 0
        for _ in range(300):
            assert np.array_equal(one.legal_words(a), par.legal_words(b))
            assert np.array_equal(one.observe(a, a.current_player), par.observe(b, b.current_player))
            assert np.array_equal(one.global_state(a), par.global_state(b))
            acts = _random_actions(one, a, pick)
            one.step(a, acts, r1)
            par.step(b, acts, r2)
            assert _state_equal(a, b)
            finished += int(a.done.sum())
            one.reset_done(a, r1)
            par.reset_done(b, r2)
        assert finished > 0
    finally:
        numba.set_num_threads(threads)


@pytest.mark.parametrize("game, options", CASES)
@pytest.mark.parametrize("parallel", [False, True], ids=["one-core", "parallel"])
def test_step_observe_is_step_then_observe_and_legal_words(game, options, parallel):
    """``step_observe`` (one compiled pass: step, legal words, observation of the seat to act) and
    ``reset_done(out=...)`` give exactly the separate calls, state included, through new deals,
    inactive games and auto-resets; on one core and spread over threads."""
    import numba

    one, fused = kernel(game, **options), kernel(game, **options)
    fused.set_parallel(parallel)
    threads = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        r1, r2, pick = np.random.default_rng(7), np.random.default_rng(7), np.random.default_rng(8)
        a, b = one.init(r1, 48), fused.init(r2, 48)
        B, D, W = 48, fused.obs_layout.size, fused.legal_words_per_game
        out = (np.full((B, D), 255, np.uint8), np.full((B, W), 2**64 - 1, np.uint64))
        fused.reset_done(b, r2, out=out)  # nothing done yet: out untouched
        assert (out[0] == 255).all()
        out[0][:], out[1][:] = fused.observe(b, b.current_player), fused.legal_words(b)
        finished = 0
        for i in range(250):
            acts = _random_actions(one, a, pick)
            active = pick.random(B) < 0.9 if i % 3 == 0 else None
            one.step(a, acts, r1, active=active)
            got = fused.step_observe(b, acts, r2, active=active, out=out)
            assert got[0] is out[0] and got[1] is out[1]
            assert _state_equal(a, b)
            assert np.array_equal(out[0], one.observe(a, a.current_player))
            assert np.array_equal(out[1], one.legal_words(a))
            assert np.array_equal(fused.mask_from_words(out[1]), one.legal_actions(a))
            finished += int(a.done.sum())
            assert np.array_equal(one.reset_done(a, r1), fused.reset_done(b, r2, out=out))
            assert np.array_equal(out[0], one.observe(a, a.current_player))
            assert np.array_equal(out[1], one.legal_words(a))
        assert finished > 0
        obs, words = fused.step_observe(b, _random_actions(fused, b, pick), r2)  # new arrays without out
        assert obs.shape == (B, D) and obs.dtype == np.uint8 and words.shape == (B, W) and words.dtype == np.uint64
    finally:
        numba.set_num_threads(threads)


@pytest.mark.parametrize("game, options", DEFAULTS)
@pytest.mark.parametrize("parallel", [False, True], ids=["one-core", "parallel"])
def test_step_observe_names_a_bad_out_or_action_and_changes_nothing(game, options, parallel):
    import copy

    k = kernel(game, **options)
    k.set_parallel(parallel)  # parallel: the check and the step share one call (par_check_step_view)
    rng = np.random.default_rng(0)
    st = k.init(rng, 4)
    D, W = k.obs_layout.size, k.legal_words_per_game
    before = copy.deepcopy(st)
    acts = _random_actions(k, st, np.random.default_rng(1))
    for bad in [(np.zeros((4, D), np.uint8),), (np.zeros((4, D), np.int8), np.zeros((4, W), np.uint64)),
                (np.zeros((4, D + 1), np.uint8), np.zeros((4, W), np.uint64)), np.zeros((4, D), np.uint8)]:
        with pytest.raises(ValueError, match=rf"out must be a pair \(obs uint8\[4, {D}\], words uint64\[4, {W}\]\)"):
            k.step_observe(st, acts, rng, out=bad)
    out = (np.zeros((4, D), np.uint8), np.zeros((4, W), np.uint64))
    illegal = acts.copy()
    illegal[2] = int(np.flatnonzero(~k.legal_actions(st)[2])[0])
    with pytest.raises(ValueError, match=r"illegal action .* in game 2 .*; legal: \["):
        k.step_observe(st, illegal, rng, out=out)
    assert _state_equal(st, before) and not out[0].any() and not out[1].any()
    rng_msg = r"rng must be a numpy.random.Generator or a cardzoo.envs.core.chance.RowStreams, got None"
    with pytest.raises(ValueError, match=rng_msg):
        k.step_observe(st, acts, None, out=out)
    with pytest.raises(ValueError, match=rng_msg):
        k.step(st, acts, None)
    st.done[1] = True
    before = copy.deepcopy(st)
    with pytest.raises(ValueError, match=rng_msg):
        k.reset_done(st, None, out=out)
    assert _state_equal(st, before) and not out[0].any()
    W = k.legal_words_per_game
    for bad in [np.zeros(4, np.uint64), np.zeros((4, W + 1), np.uint64), np.zeros((4, W), np.int64), [[0] * W]]:
        with pytest.raises(ValueError, match=rf"words must be uint64\[B, {W}\] legal-action words"):
            k.mask_from_words(bad)


@pytest.mark.parametrize("game, options", CASES)
def test_a_pickled_kernel_and_state_play_on_identically(game, options):
    import pickle

    k = kernel(game, **options)
    rng, pick = np.random.default_rng(5), np.random.default_rng(6)
    st = k.init(rng, 8)
    for _ in range(20):
        k.step(st, _random_actions(k, st, pick), rng, active=~st.done)
    k2, st2, rng2 = pickle.loads(pickle.dumps((k, st, rng)))
    assert k2.drivers is k.drivers and np.array_equal(k2.params, k.params)
    for _ in range(40):
        acts = _random_actions(k, st, pick)
        k.step(st, acts, rng, active=~st.done)
        k2.step(st2, acts, rng2, active=~st2.done)
    assert _state_equal(st, st2)


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_observe_rejects_a_bad_seat_and_takes_one_seat_per_game(game, options):
    k = kernel(game, **options)
    st = k.init(np.random.default_rng(0), 3)
    n = k.num_players
    for seat in (n, -1, [0, 1, n + 3], np.arange(4 + 1), 1.0):
        with pytest.raises(ValueError, match="seat"):
            k.observe(st, seat)
    seats = np.array([0, n - 1, 1])
    obs = k.observe(st, seats)
    assert obs.shape == (3, k.obs_layout.size)
    for b, s in enumerate(seats):
        assert np.array_equal(obs[b], k.observe(st, int(s))[b])


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_the_single_game_path_sees_in_place_changes_of_its_state(game, options):
    """The B = 1 path binds the state's arrays: a change written in place (a test stacking a
    position) is what it observes next."""
    k = kernel(game, **options)
    st = k.init(np.random.default_rng(0), 1)
    fast = k.single_game(st)
    other = k.init(np.random.default_rng(1), 1)
    for f in dataclasses.fields(st):
        getattr(st, f.name)[...] = getattr(other, f.name)  # in place: the same arrays
    for s in range(k.num_players):
        assert np.array_equal(fast.observe(s), k.observe(other, s)[0])


@pytest.mark.parametrize("game, options", DEFAULTS)
def test_init_names_a_bad_random_source_or_batch_size(game, options):
    k = kernel(game, **options)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        k.init(0, 2)
    for bad in (2.0, -1, True):
        with pytest.raises(ValueError, match="batch must be an int >= 0"):
            k.init(np.random.default_rng(0), bad)
    with pytest.raises(ValueError, match=r"out of range 0\.\."):
        st = k.init(np.random.default_rng(0), 1)
        k.step(st, np.array([k.num_actions + 7]), np.random.default_rng(0))


VALID_HOOKS = {
    "all_fours": "['deck', 'dealer', 'score']",
    "aluette": "['deck', 'dealer', 'score', 'draw_deck']",
    "avinas": "['deck', 'dealer', 'pips', 'ram_balance']",
    "ottocento": "['deck', 'dealer', 'score']",
    "pyanitsa": "['piles', 'deck']",
}


@pytest.mark.parametrize("game", sorted(g for g in GAMES if "dealer" in kernel(g).INIT_HOOKS))
@pytest.mark.parametrize("value", ["north", "random", "", 1.5, [0, 9]])
def test_a_dealer_hook_that_is_not_seats_raises_naming_it(game, value):
    # the "random" first dealer is a game option; the dealer hook takes seats only
    with pytest.raises(ValueError, match=r"dealer="):
        kernel(game).init(np.random.default_rng(0), 2, dealer=value)


def test_hook_ints_takes_the_shapes_it_states_only():
    """score=[[1]] (shape (1, 1)) was broadcast to the (B, 2) scores though the message says shape
    (2,) or (B, 2): numpy's broadcasting is not the rule, the two stated shapes are."""
    assert hook_ints("score", [3, 1], (2, 2), 0, 10).tolist() == [[3, 1], [3, 1]]
    assert hook_ints("score", [[3, 1], [0, 2]], (2, 2), 0, 10).tolist() == [[3, 1], [0, 2]]
    for bad, got in (([[1]], (1, 1)), ([[3, 1]], (1, 2)), (1, ()), ([1, 2, 3], (3,)), ([[[1, 2]]], (1, 1, 2))):
        with pytest.raises(ValueError) as e:
            hook_ints("score", bad, (2, 2), 0, 10)
        assert str(e.value) == f"reset option score={bad!r} must be int(s) of shape (2,) (or (2, 2)), got shape {got}"
    with pytest.raises(ValueError) as e:
        hook_ints("score", [[1, 2], [3]], (2, 2), 0, 10)  # ragged
    assert str(e.value) == "reset option score=[[1, 2], [3]] must be int(s) of shape (2,) (or (2, 2))"


#: the per-game shape of each array hook of reset (``deck``: the pack's size); piles are lists of lists
HOOK_SHAPES = {"deck": None, "draw_deck": None, "dealer": (), "score": (2,), "pips": (2,), "ram_balance": ()}
#: options a hook needs to be taken at all (Aluette's draw deck, Ottocento's match score)
HOOK_NEEDS = {("aluette", "draw_deck"): {"partnership_draw": True}, ("ottocento", "score"): {"match_target": 1000}}


@pytest.mark.parametrize("game, hook", [(g, h) for g in sorted(GAMES) for h in kernel(g).INIT_HOOKS if h != "piles"])
def test_a_reset_hook_of_another_shape_is_refused_naming_the_valid_shapes(game, hook):
    """A (1, 1) hook such as score=[[1]] (All Fours, Aluette) or pips=[[1]] (Avinas) was accepted by the
    AEC env (B = 1) though the message says shape (2,) or (1, 2). Every array hook of every game now
    refuses it, naming the valid shapes and the one given."""
    env = envs_make(game, **HOOK_NEEDS.get((game, hook), {}))
    with pytest.raises(ValueError) as e:
        env.reset(seed=1, options={hook: [[1]]})
    n = kernel(game).deck.n
    per = HOOK_SHAPES[hook] if HOOK_SHAPES[hook] is not None else (n,)
    if game == "pyanitsa":  # its own order check (envs/pyanitsa/kernel.py _check_order)
        assert str(e.value) == f"reset option deck must be int card ids 0..{n - 1} (a permutation), shape ({n},) or (1, {n}); got shape (1, 1)"
    else:
        assert str(e.value) == f"reset option {hook}=[[1]] must be int(s) of shape {per} (or {(1, *per)}), got shape (1, 1)"


@pytest.mark.parametrize("game, hook", [(g, h) for g in sorted(GAMES) for h in kernel(g).INIT_HOOKS if h != "piles"])
def test_a_reset_hook_of_the_wrong_type_shape_or_range_is_refused_exactly_and_changes_nothing(game, hook):
    """Every array hook of every game refuses a string, floats, one value too few or too many (a scalar hook:
    two values), two games' worth (the AEC env plays one game) and, for the dealer, a seat out of range,
    each in the core's words (core.kernel.hook_ints; P'yanitsa's deck its own order check), and leaves the
    env and its generator as they were. The game-specific ranges (scores, pips, ram balance) are in each game's env tests."""
    env = envs_make(game, **HOOK_NEEDS.get((game, hook), {}))
    env.reset(seed=3)
    before = env.unwrapped.game_state.copy()
    rng_before = env.unwrapped._rng.bit_generator.state
    n = kernel(game).deck.n
    per = HOOK_SHAPES[hook] if HOOK_SHAPES[hook] is not None else (n,)
    valid = list(range(n)) if hook in ("deck", "draw_deck") else ([0] * per[0] if per else 0)
    bad = {"abc": None, "floats": None, "two games": (2, *per)}
    values = {"abc": "abc", "floats": [0.5] * per[0] if per else 0.5, "two games": [valid, valid]}
    if per:
        values["short"], values["long"] = valid[:-1], valid + [0]
        bad["short"], bad["long"] = (per[0] - 1,), (per[0] + 1,)
    else:  # a scalar hook: two values
        values["long"], bad["long"] = [0, 0], (2,)
    for what, value in values.items():
        with pytest.raises(ValueError) as err:
            env.reset(seed=4, options={hook: value})
        got = bad[what]
        if game == "pyanitsa":  # its own order check (envs/pyanitsa/kernel.py _check_order)
            arr = np.asarray(value)
            said = f"shape {got}" if got is not None else f"{arr.dtype} values of shape {arr.shape}"
            assert str(err.value) == f"reset option deck must be int card ids 0..{n - 1} (a permutation), shape ({n},) or (1, {n}); got {said}", what
        else:
            assert str(err.value) == (f"reset option {hook}={value!r} must be int(s) of shape {per} (or {(1, *per)})"
                                      + (f", got shape {got}" if got is not None else "")), what
    if hook == "dealer":
        seats = kernel(game).num_players
        with pytest.raises(ValueError) as err:
            env.reset(seed=4, options={"dealer": seats})
        assert str(err.value) == f"reset option dealer={seats} is out of range: each value must be in 0..{seats - 1}"
    assert _state_equal(env.unwrapped.game_state, before)
    assert env.unwrapped._rng.bit_generator.state == rng_before


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_deck_hook_that_is_not_a_permutation_names_the_id_given_twice_and_the_id_missing(game):
    """Each game had its own copy of the permutation check; four said only 'deck must be a permutation of
    the 52 card ids 0..51' (not even that it was a reset option), none said what was wrong. One check
    (core.kernel.check_permutation) now names the hook, an id given twice and an id missing."""
    n = kernel(game).deck.n
    env = envs_make(game)
    deck = list(range(n))
    deck[5] = 3
    with pytest.raises(ValueError) as e:
        env.reset(seed=1, options={"deck": deck})
    assert str(e.value) == (f"reset option deck must be a permutation of the {n} card ids 0..{n - 1} (each id exactly "
                            "once): id 3 is given 2 times and id 5 is missing")
    k = kernel(game)
    with pytest.raises(ValueError) as e:
        k.init(np.random.default_rng(0), 2, deck=[list(range(n)), [0] * n])
    assert str(e.value).endswith(f"id 0 is given {n} times and id 1 is missing (game 1)")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_refused_hook_value_leaves_the_env_as_it_was(game):
    """A deck hook that is not a permutation fails; the env keeps its game and its random generator (the
    kernel may draw the first dealer before it checks the deck), so the next reset deals what it would have."""
    env, twin = envs_make(game), envs_make(game)
    env.reset(seed=3)
    twin.reset(seed=3)
    before = env.unwrapped.game_state.copy()
    with pytest.raises(ValueError, match="deck"):
        env.reset(options={"deck": np.zeros(kernel(game).deck.n, dtype=np.int64)})
    with pytest.raises(ValueError, match="deck"):
        env.reset(seed=99, options={"deck": [0, 0]})
    assert _state_equal(env.unwrapped.game_state, before)
    env.reset()
    twin.reset()
    assert _state_equal(env.unwrapped.game_state, twin.unwrapped.game_state)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_an_unknown_reset_option_raises_naming_it_and_the_valid_ones(game):
    env = envs_make(game)
    env.reset(seed=3)
    before = env.unwrapped.game_state.copy()
    rng_before = env.unwrapped._rng.bit_generator.state
    with pytest.raises(ValueError) as err:
        env.reset(seed=4, options={"dek": [0]})
    assert str(err.value) == f"unknown reset option(s) ['dek'] for {game}_v0 (did you mean 'deck'?); valid: {VALID_HOOKS[game]}"
    with pytest.raises(ValueError) as err:  # no valid name near: no hint
        env.reset(seed=4, options={"xyzzy": 1})
    assert str(err.value) == f"unknown reset option(s) ['xyzzy'] for {game}_v0; valid: {VALID_HOOKS[game]}"
    assert _state_equal(env.unwrapped.game_state, before)  # nothing changed, the seed not taken either
    assert env.unwrapped._rng.bit_generator.state == rng_before
    # PettingZoo's api_test checks that reset takes `options` with options={"options": 1}: ignored, with a warning
    with pytest.warns(UserWarning, match=f"reset option 'options' is not used by {game}_v0 \\(ignored\\)"):
        env.reset(seed=3, options={"options": 1})
    assert _state_equal(env.unwrapped.game_state, before)


BAD_SEEDS = [-1, 1.5, True, "7", [1, 2]]
BAD_RESET_OPTIONS = ["x", ["deck"], 3]


def _assert_bad_reset_refused(reset, valid_names: str, vector: bool = False) -> None:
    """``reset(seed=bad)`` and ``reset(seed=4, options=bad)`` raise ValueError in the core's words (the
    vector env tells a list of seeds that it takes one seed: ``envs/core/vector.check_vector_seed``)."""
    for seed in BAD_SEEDS:
        with pytest.raises(ValueError) as err:
            reset(seed=seed)
        if vector and isinstance(seed, list):
            assert str(err.value).startswith(f"seed must be one non-negative int or None, got a list {seed!r}: "
                                              "KernelVectorEnv deals all its games in one batch from one generator")
        else:
            assert str(err.value) == f"seed must be a non-negative int or None, got {seed!r}"
    for options in BAD_RESET_OPTIONS:
        with pytest.raises(ValueError) as err:
            reset(seed=4, options=options)
        assert str(err.value) == (
            f"reset options must be a dict of option name -> value or None, got {options!r}; "
            f"valid option names for {valid_names}"
        )


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_bad_seed_or_options_of_reset_raises_naming_it_and_changes_nothing(game):
    """reset(seed=-1 / 1.5 / True, options="x") is refused by the core in its own words (numpy's were
    "expected non-negative integer", "SeedSequence expects int...", "dictionary update sequence
    element #0 ..."), with the game and the random generator as they were; numpy ints are seeds."""
    env, twin = envs_make(game), envs_make(game)
    env.reset(seed=3)
    twin.reset(seed=3)
    before = env.unwrapped.game_state.copy()
    rng_before = env.unwrapped._rng.bit_generator.state
    _assert_bad_reset_refused(lambda **kw: env.reset(**kw), f"{game}_v0: {VALID_HOOKS[game]}")
    assert _state_equal(env.unwrapped.game_state, before)
    assert env.unwrapped._rng.bit_generator.state == rng_before
    env.reset()
    twin.reset()
    assert _state_equal(env.unwrapped.game_state, twin.unwrapped.game_state)
    env.reset(seed=np.int64(8))
    twin.reset(seed=8)
    assert _state_equal(env.unwrapped.game_state, twin.unwrapped.game_state)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_vector_env_checks_seed_options_and_learner_side_as_the_aec_env(game):
    from cardzoo.envs.core.vector import KernelVectorEnv

    k = kernel(game)
    first = lambda obs, mask: mask.argmax(axis=1)  # noqa: E731  the first legal action
    with pytest.raises(ValueError, match=r"^seed must be a non-negative int or None, got -1$"):
        KernelVectorEnv(k, 2, first, seed=-1)
    last_side = 1 if k.teams is not None else k.num_players - 1
    for side in (True, 1.0, last_side + 1):
        with pytest.raises(ValueError) as err:
            KernelVectorEnv(k, 2, first, learner_side=side)
        assert str(err.value) == f"learner_side={side!r} is not valid; valid: None or 0..{last_side}"
    venv = KernelVectorEnv(k, 2, first, learner_side=np.int64(last_side), seed=0)
    twin = KernelVectorEnv(k, 2, first, learner_side=last_side, seed=0)
    assert venv.learner_side == last_side and type(venv.learner_side) is int
    _assert_bad_reset_refused(venv.reset, "KernelVectorEnv: none", vector=True)
    with pytest.raises(ValueError, match=r"reset options \['deck'\] are not used by KernelVectorEnv \(it takes none\)"):
        venv.reset(options={"deck": [0]})
    assert np.array_equal(venv.reset()[0], twin.reset()[0])  # the refused calls took no seed
    assert np.array_equal(venv.reset(seed=np.int64(7))[0], twin.reset(seed=7)[0])


def _a_game_option(game) -> tuple[str, object]:
    """A constructor option of ``game`` that is not also a reset option, with a valid value of it."""
    spec = kernel(game).OPTIONS
    name = next(n for n in spec if n not in kernel(game).INIT_HOOKS)
    return name, spec[name].default


@pytest.mark.parametrize("game", sorted(GAMES))
def test_an_option_of_the_constructor_given_to_reset_is_told_where_it_goes(game):
    """env.reset(options={"num_players": 3}) said "unknown reset option(s) ['num_players'] for pyanitsa_v0;
    valid: ['piles', 'deck']", as if num_players were no option at all; so did render_mode and seed (reset's
    own argument). The message now says where each goes (found by an outside API battery)."""
    env = envs_make(game)
    env.reset(seed=3)
    before = env.unwrapped.game_state.copy()
    name, value = _a_game_option(game)
    given = {name: value, "render_mode": "ansi", "seed": 5, "dek": [0]}
    hints = {
        name: f"'{name}' is an option of the env, not of reset: give it when the env is made, e.g. cardzoo.make('{game}', {name}={value!r})",
        "render_mode": f"'render_mode' is an option of the env, not of reset: give it when the env is made, e.g. cardzoo.make('{game}', render_mode='ansi')",
        "seed": "'seed' is reset's own argument: reset(seed=5)",
    }
    with pytest.raises(ValueError) as err:
        env.reset(options=given)
    names = sorted(given)
    assert str(err.value) == (f"unknown reset option(s) {names} for {game}_v0; valid: {VALID_HOOKS[game]}"
                              + "".join(f"; {hints[n]}" for n in names if n in hints))
    assert _state_equal(env.unwrapped.game_state, before)
    with pytest.raises(ValueError) as err:
        env.reset(options={"dek": [0]})  # a name that is nothing else: the closest valid name
    assert str(err.value) == f"unknown reset option(s) ['dek'] for {game}_v0 (did you mean 'deck'?); valid: {VALID_HOOKS[game]}"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_vector_env_tells_an_option_given_to_reset_where_it_goes(game):
    """KernelVectorEnv.reset(options={"num_players": 3}) said "reset options ['num_players'] are not used by
    KernelVectorEnv (it takes none)" without saying that make_vec takes it."""
    from cardzoo.envs.core.vector import KernelVectorEnv

    venv = KernelVectorEnv(kernel(game), 2, lambda obs, mask: mask.argmax(axis=1), seed=0)
    name, value = _a_game_option(game)
    given = {name: value, "learner_side": 0, "seed": 5}
    hints = {
        name: f"'{name}' is an option of the env, not of reset: give it when the env is made, e.g. cardzoo.make_vec('{game}', 2, {name}={value!r})",
        "learner_side": f"'learner_side' is an option of the env, not of reset: give it when the env is made, e.g. cardzoo.make_vec('{game}', 2, learner_side=0)",
        "seed": "'seed' is reset's own argument: reset(seed=5)",
    }
    with pytest.raises(ValueError) as err:
        venv.reset(options=given)
    names = sorted(given)
    assert str(err.value) == (f"reset options {names} are not used by KernelVectorEnv (it takes none)"
                              + "".join(f"; {hints[n]}" for n in names))


#: a misspelt constructor option of each game and the option it means
MISSPELT = {"all_fours": ("undertrumps", "undertrump"), "aluette": ("surender", "surrender"), "avinas": ("honnesty", "honesty"),
            "ottocento": ("matto_rules", "matto_rule"), "pyanitsa": ("num_player", "num_players")}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_misspelt_option_is_told_the_option_it_is_closest_to_wherever_it_is_given(game, capsys):
    """cardzoo.make("all_fours", undertrumps="forbidden") (and the kernel, make_vec, the single-seat env and the
    CLI's -o undertrumps=forbidden) listed the valid options without saying which one was meant, as the agents'
    factories do ("did you mean 'n_det'?"). One check (envs/core/kernel.py) now names the closest, for all."""
    import gymnasium

    import cardzoo
    from cardzoo.training.cli import main

    typo, meant = MISSPELT[game]
    said = f"unknown option(s) ['{typo}'] (did you mean '{meant}'?); valid options: {sorted(kernel(game).OPTIONS)}"
    makers = {
        "; env options: ['illegal_action', 'render_mode', 'render_view']": lambda: envs_make(game, **{typo: 1}),
        "; make_vec options: ['autoreset_mode', 'illegal_action', 'learner_side', 'num_envs', 'opponents', 'privileged', "
        "'seed', 'skip_forced']": lambda: cardzoo.make_vec(game, 2, **{typo: 1}),
        "; single-seat env options: ['illegal_action', 'opponents', 'others', 'partner', 'render_mode', 'seat', 'seed']":
            lambda: gymnasium.make(cardzoo.GYM_IDS[game], **{typo: 1}),
        "": lambda: kernel(game, **{typo: 1}),
    }
    for own, make in makers.items():
        with pytest.raises(ValueError) as err:
            make()
        assert str(err.value) == said + own
    assert main(["play", game, "-o", f"{typo}=1"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"cardzoo play: error: {said}\n")
    with pytest.raises(ValueError) as err:  # several names: each told the one it is closest to, a name close to none not
        envs_make(game, **{typo: 1, "zzz": 1})
    assert str(err.value).startswith(f"unknown option(s) ['{typo}', 'zzz'] (did you mean '{meant}' for '{typo}'?); valid options: ")


#: the reset options whose names are also constructor options, with a constructor value the reset option refuses
SHARED_NAMES = [("ottocento", "dealer", "random"), ("pyanitsa", "deck", 52)]


def test_every_name_shared_by_a_reset_option_and_a_constructor_option_is_listed():
    shared = sorted((g, n) for g in GAMES for n in kernel(g).INIT_HOOKS if n in kernel(g).OPTIONS)
    assert shared == [(g, n) for g, n, _ in SHARED_NAMES]


@pytest.mark.parametrize("game, name, value", SHARED_NAMES)
def test_a_constructor_value_given_to_a_reset_option_of_the_same_name_is_told_where_it_goes(game, name, value):
    """P'yanitsa's reset(options={"deck": 52}) (the 52-card pack is the constructor's deck=52) said only "reset
    option deck must be int card ids 0..35 (a permutation) ...": the reset option of that name is the order of the
    pack. The refusal now adds where the constructor's value goes; the env is unchanged."""
    env = envs_make(game)
    env.reset(seed=3)
    before = env.unwrapped.game_state.copy()
    with pytest.raises(ValueError) as err:
        env.reset(options={name: value})
    assert str(err.value).startswith(f"reset option {name}")
    assert str(err.value).endswith(
        f"; {name}={value!r} is a value of the env's option '{name}': give it when the env is made, e.g. "
        f"cardzoo.make('{game}', {name}={value!r})")
    assert _state_equal(env.unwrapped.game_state, before)
    with pytest.raises(ValueError) as err:  # a value that is no constructor value either: no hint
        env.reset(options={name: "x"})
    assert "when the env is made" not in str(err.value)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_0d_array_names_its_action_as_step_takes_it(game):
    """env.step(np.array(a)) plays action a (a 0-d array is one action), but env.action_name(np.array(a))
    and the kernel's said "action must be an int id 0..A-1, got array(a)" (found by an outside API battery).
    A 0-d int array is now the action it holds everywhere; other arrays, bools and floats stay refused."""
    env = envs_make(game)
    env.reset(seed=1)
    a = env.legal_actions()[0]
    A = env.action_space(env.possible_agents[0]).n
    assert env.action_name(np.array(a)) == env.action_name(a) == env.kernel.action_name(np.array(a, dtype=np.int8))
    for bad in (np.array([a]), np.array(True), np.array(float(a)), np.array(True, dtype=object)):
        with pytest.raises(ValueError) as err:
            env.action_name(bad)
        assert str(err.value) == f"action must be an int id 0..{A - 1}, got {bad!r}"
    with pytest.raises(ValueError) as err:
        env.action_name(np.array(A))
    assert str(err.value) == f"action {A} is out of range; valid ids are 0..{A - 1}"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_agent_iter_takes_a_count_of_steps_only(game):
    """env.agent_iter("x") raised TypeError "'<=' not supported between instances of 'str' and 'int'" at the first
    step, agent_iter(2.5) ran 3 steps and agent_iter(-1) none (found by an outside API battery): max_iter is now
    checked when the iterator is made, numpy ints taken."""
    env = envs_make(game)
    env.reset(seed=1)
    for bad in ("x", 2.5, -1, True, None):
        with pytest.raises(ValueError) as err:
            env.agent_iter(bad)
        assert str(err.value) == f"max_iter must be an int >= 0 (the most steps to iterate), got {bad!r}"
    assert len(list(env.agent_iter(np.int64(3)))) == 3 and list(env.agent_iter(0)) == []


@pytest.mark.parametrize("game", sorted(GAMES))
def test_parallel_seed_test_needs_lose_and_the_core_page_says_so(game):
    """PettingZoo's parallel_seed_test samples actions without their masks: over turn_based_aec_to_parallel it
    raised "illegal action ... for player_1; legal: [...]" under the default illegal_action="raise", while the
    core page said only that the parallel env passes parallel_api_test (found by an outside API battery). It
    passes under "lose", which the page now says."""
    from pathlib import Path

    from pettingzoo.test import parallel_seed_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    parallel_seed_test(lambda: turn_based_aec_to_parallel(envs_make(game, illegal_action="lose")), num_cycles=50)
    with pytest.raises(ValueError, match="^illegal action .* legal: "):
        parallel_seed_test(lambda: turn_based_aec_to_parallel(envs_make(game)), num_cycles=50)
    page = " ".join((Path(__file__).resolve().parent.parent / "envs" / "core" / "README.md").read_text().split())
    assert ("PettingZoo's `parallel_seed_test` samples actions without their masks: it passes with "
            '`illegal_action="lose"`') in page


def test_layout_pack_refuses_what_it_cannot_pack_back():
    """Layout.pack packed a 0/1 feature holding 2 as 1, wrapped 300 to 44 and took floats (0.5 became 0), so
    unpack(pack(obs)) gave another observation without a word (found by an outside API battery). pack now
    refuses input that does not round-trip, naming the feature; valid input packs as before."""
    lay = Layout()
    lay.add("a", 3, "bits")
    lay.add("n", 1, "a count", high=9)
    lay.add("b", 6, "bits")
    obs = np.array([[1, 0, 1, 7, 0, 0, 0, 1, 1, 1]], dtype=np.uint8)
    assert lay.pack(obs.astype(np.int64)).tolist() == lay.pack(obs.tolist()).tolist() == [[197, 1, 7]]
    bad_bit = obs.copy()
    bad_bit[0, 5] = 2
    with pytest.raises(ValueError) as err:
        lay.pack(bad_bit)
    assert str(err.value) == "observation feature 5 (slice 'b', 0/1) is 2: pack keeps 0 or 1 only"
    too_big = obs.astype(np.int64)
    too_big[0, 3] = 300
    with pytest.raises(ValueError) as err:
        lay.pack(too_big)
    assert str(err.value) == "observation feature 3 (slice 'n') is 300: pack keeps 0..255 only"
    too_big[0, 3] = -1
    with pytest.raises(ValueError) as err:
        lay.pack(too_big)
    assert str(err.value) == "observation feature 3 (slice 'n') is -1: pack keeps 0..255 only"
    for other in (obs.astype(np.float32), obs.astype(bool)):
        with pytest.raises(ValueError) as err:
            lay.pack(other)
        assert str(err.value) == f"observation must be ints (uint8 as observe gives them), got {other.dtype}"
    assert np.array_equal(lay.unpack(lay.pack(obs)), obs)


def test_layout_unpack_refuses_what_is_not_a_packed_observation():
    """Layout.unpack cast float input (0.5 -> 0) and wrapped 300 to 44 without a word, as pack did (found by an
    outside API battery); it now refuses both as pack does, and unpacks ints 0..255 of any int dtype."""
    lay = Layout()
    lay.add("a", 3, "bits")
    lay.add("n", 1, "a count", high=9)
    lay.add("b", 6, "bits")
    packed = np.array([[197, 1, 7]])
    assert lay.unpack(packed).tolist() == lay.unpack(packed.astype(np.uint8)).tolist() == [[1, 0, 1, 7, 0, 0, 0, 1, 1, 1]]
    with pytest.raises(ValueError) as err:
        lay.unpack(packed.astype(np.float64))
    assert str(err.value) == "packed observation must be ints (uint8 as pack gives them), got float64"
    with pytest.raises(ValueError) as err:
        lay.unpack(np.array([[197, 1, 300]]))
    assert str(err.value) == "packed observation byte 2 is 300: a byte holds 0..255"


#: a match of every game that has one (several deals in an episode; Kernel.DEAL_COUNTER counts them)
MATCH_OPTIONS = {"all_fours": {"episode": "match"}, "aluette": {"episode": "match"}, "avinas": {"episode": "match"},
                 "ottocento": {"match_target": 400}}


def test_every_game_with_a_match_counts_its_deals_for_the_infos():
    assert sorted(g for g in GAMES if kernel(g).DEAL_COUNTER is not None) == sorted(MATCH_OPTIONS)


@pytest.mark.parametrize("game", sorted(MATCH_OPTIONS))
def test_a_match_tells_every_agent_each_scored_deal_in_infos(game):
    """In a match the step that scores a deal deals the next one (Kernel.DEAL_COUNTER): at that step every
    agent's infos become the kernel's info of the scored deal (the same dict for all, nothing of one seat),
    and they stay as they are while the next deal is played, until the next deal is scored. Each game's own
    test files check what that info says; this checks the frame for every game with a match."""
    env = envs_make(game, **MATCH_OPTIONS[game])
    counter = env.unwrapped.kernel.DEAL_COUNTER
    scored = 0
    for seed in range(2):
        env.reset(seed=seed)
        st = env.unwrapped.game_state
        rng = np.random.default_rng(seed)
        told = {a: {} for a in env.possible_agents}
        assert env.infos == told
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            before = int(getattr(st, counter)[0])
            env.step(int(rng.choice(env.unwrapped.legal_actions())))
            if st.done[0]:
                break
            if int(getattr(st, counter)[0]) == before:
                assert env.infos == told
                continue
            assert int(getattr(st, counter)[0]) == before + 1
            scored += 1
            info = env.unwrapped.kernel.info(st, 0)
            assert info and all(env.infos[a] == info for a in env.possible_agents)
            told = {a: env.infos[a] for a in env.possible_agents}
    assert scored >= 2

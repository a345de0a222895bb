"""The batched kernels' public members refuse bad input with a ValueError that names it and what is valid."""

from __future__ import annotations

import numpy as np
import pytest

import cardzoo


@pytest.mark.parametrize("game", sorted(cardzoo.GAMES))
def test_outcome_refuses_returns_that_are_not_one_per_seat(game):
    """All Fours' outcome(np.zeros(7)) returned seven int8s, some of them uninitialized memory
    (np.empty filled only at the team seats); P'yanitsa's returned the signs of any shape."""
    k = cardzoo.kernel(game)
    P = k.num_players
    for returns, shape in [(np.zeros(7), (7,)), (1.0, ()), (np.zeros((5, P + 1)), (5, P + 1))]:
        with pytest.raises(ValueError) as err:
            k.outcome(returns)
        assert str(err.value) == f"returns must be numbers of shape (..., {P}), one per seat of {game}; got shape {shape}"
    with pytest.raises(ValueError) as err:
        k.outcome("ab")
    assert str(err.value) == f"returns must be numbers of shape (..., {P}), one per seat of {game}; got 'ab'"
    assert k.outcome(np.zeros((3, 0, P))).shape == (3, 0, P)
    assert k.outcome(np.zeros(P)).tolist() == [0] * P


@pytest.mark.parametrize("game", sorted(cardzoo.GAMES))
def test_episode_outcome_is_the_outcome_with_a_capped_game_a_draw(game):
    """The arena's outcome of finished games: a truncated game is a draw whatever the returns; one
    return per seat and game, else a ValueError naming the shape."""
    k = cardzoo.kernel(game)
    P = k.num_players
    st = k.init(np.random.default_rng(0), 2)
    returns = np.zeros((2, P))
    returns[:, 0], returns[:, 1] = 2.0, -2.0  # seat 0 ahead of seat 1 (P'yanitsa: seat 1 the loser)
    st.truncated[1] = True
    got = k.episode_outcome(st, returns)
    assert got.dtype == np.int8 and got[0].tolist() == k.outcome(returns[0]).tolist() and got[1].tolist() == [0] * P
    assert got[0, 0] == 1 and got[0, 1] == -1
    with pytest.raises(ValueError) as err:
        k.episode_outcome(st, np.zeros((3, P)))
    assert str(err.value) == f"returns must be float[B=2, P={P}], got shape (3, {P})"


@pytest.mark.parametrize("flag", ["no", "False", 0, 1, None])
def test_set_parallel_takes_a_bool_only(flag):
    """set_parallel("no") turned the threads on (bool("no") is True) without a word."""
    k = cardzoo.kernel("all_fours")
    with pytest.raises(ValueError) as err:
        k.set_parallel(flag)
    assert str(err.value) == f"parallel must be True or False, got {flag!r}"
    assert k._parallel is False
    k.set_parallel(np.bool_(True))
    assert k._parallel is True


VIEWS = {
    "render": lambda k, st, b: k.render(st, b, None),
    "table_view": lambda k, st, b: k.table_view(st, b, 0),
    "hands": lambda k, st, b: k.hands(st, b),
    "known_cards": lambda k, st, b: k.known_cards(st, b),
    "info": lambda k, st, b: k.info(st, b),
    "text_view": lambda k, st, b: k.text_view(st, b, 0),
    "action_is_public": lambda k, st, b: k.action_is_public(st, b, k.num_actions - 1),
}


@pytest.mark.parametrize("game", sorted(cardzoo.GAMES))
def test_the_views_of_one_game_refuse_a_game_index_out_of_the_batch(game):
    """render/table_view/info(st, 5) of a 3-game state raised numpy's IndexError, b=-1 showed the last
    game, and P'yanitsa's hands(st, 5) answered [[], []]; text_view alone named the valid range."""
    k = cardzoo.kernel(game)
    st = k.init(np.random.default_rng(0), 3)
    for name, view in VIEWS.items():
        for b in (3, -1, True, 1.0):
            with pytest.raises(ValueError) as err:
                view(k, st, b)
            assert str(err.value) == f"game index b={b!r} is not valid; the state holds games 0..2", name
        assert view(k, st, np.int64(2)) == view(k, st.take(np.array([2])), 0), name


@pytest.mark.parametrize("game", sorted(cardzoo.GAMES))
def test_the_views_of_one_seat_name_the_game_and_its_seats_for_a_bad_seat(game):
    """Aluette's, Avinas' and Ottocento's table_view (and every game's text_view) said "seat 9 is not valid;
    valid seats: 0..3" without the game, All Fours' and P'yanitsa's "seat 9 is not valid for all_fours; ...":
    the game views now share the kernel's one seat check."""
    k = cardzoo.kernel(game)
    st = k.init(np.random.default_rng(0), 2)
    P = k.num_players
    for view in (lambda s: k.table_view(st, 1, s), lambda s: k.text_view(st, 1, s)):
        for seat in (P, -1, True, 1.0, "0"):
            with pytest.raises(ValueError) as err:
                view(seat)
            assert str(err.value) == f"seat {seat!r} is not valid for {game}; valid seats: 0..{P - 1}"
        assert view(np.int64(P - 1)) == view(P - 1)


@pytest.mark.parametrize("game", sorted(cardzoo.GAMES))
def test_action_is_public_refuses_an_action_the_game_does_not_have(game):
    """action_is_public(st, 0, 999) and (st, 0, 1.5) answered (True or False) in every game; the terminal
    and web front ends ask it before naming a move."""
    k = cardzoo.kernel(game)
    st = k.init(np.random.default_rng(0), 2)
    A = k.num_actions
    for action, said in ((A, f"action {A} is out of range; valid ids are 0..{A - 1}"), (-1, f"action -1 is out of range; valid ids are 0..{A - 1}"),
                         (1.5, f"action must be an int id 0..{A - 1}, got 1.5"), (True, f"action must be an int id 0..{A - 1}, got True")):
        with pytest.raises(ValueError) as err:
            k.action_is_public(st, 0, action)
        assert str(err.value) == said
    for a in range(A):
        assert k.action_is_public(st, 1, np.int64(a)) == k.action_is_public(st, 1, a)


def test_a_rowstreams_of_another_size_is_refused_before_the_step_moves():
    """A RowStreams with fewer streams than games failed with IndexError in the middle of step,
    after the compiled rules had moved the games (here a P'yanitsa battle collected with chance)."""
    import dataclasses

    from cardzoo.envs.core.chance import RowStreams

    k = cardzoo.kernel("pyanitsa", collect_order="random")
    st = k.init(RowStreams([(0, i) for i in range(3)]), 3)
    short = RowStreams([(0, 0)])
    for _ in range(3):
        before = st.copy()
        with pytest.raises(ValueError) as err:
            k.step(st, k.legal_actions(st).argmax(axis=1), short)
        assert str(err.value) == "rng is a RowStreams of 1 streams; the state holds 3 games (one stream per game)"
        assert all(np.array_equal(getattr(st, f.name), getattr(before, f.name)) for f in dataclasses.fields(st))
        k.step(st, k.legal_actions(st).argmax(axis=1), np.random.default_rng(0))
    for call in (lambda: k.init(short, 3), lambda: k.reset_done(st, short)):
        with pytest.raises(ValueError, match=r"RowStreams of 1 streams; the state holds 3 games"):
            call()


@pytest.mark.parametrize("keys, shown", [([(1.5,)], "(1.5,)"), ([(True, 2)], "(True, 2)"), ([("a",)], "('a',)")])
def test_rowstreams_keys_are_non_negative_ints(keys, shown):
    """RowStreams([(1.5,)]) made the key (1,) and [(True,)] the key (1,): other deals' streams."""
    from cardzoo.envs.core.chance import RowStreams

    with pytest.raises(ValueError) as err:
        RowStreams(keys)
    assert str(err.value) == f"RowStreams keys must be non-negative ints, got {shown}"
    assert RowStreams([(np.int64(3), 2), 5]).keys == [(3, 2), (5,)]


@pytest.mark.parametrize("game", sorted(cardzoo.GAMES))
def test_a_state_of_another_game_or_other_options_is_refused_before_compiled_code_reads_it(game):
    """kernel('avinas').legal_actions(an All Fours state) ended in AttributeError ('AllFoursState'
    object has no attribute 'exposed') and observe(None, 0) in 'NoneType' has no 'batch_size'; a
    P'yanitsa state of 2 players given to a 3-player kernel reached compiled code that does not
    check its bounds. Every method that hands a state to compiled code checks it first."""
    k = cardzoo.kernel(game)
    other = "pyanitsa" if game != "pyanitsa" else "all_fours"
    alien = cardzoo.kernel(other).init(np.random.default_rng(0), 2)
    name = type(k.init(np.random.default_rng(0), 1)).__name__
    rng = np.random.default_rng(1)
    calls = {
        "legal_actions": lambda s: k.legal_actions(s),
        "legal_words": lambda s: k.legal_words(s),
        "observe": lambda s: k.observe(s, 0),
        "global_state": lambda s: k.global_state(s),
        "step": lambda s: k.step(s, np.zeros(2, dtype=np.int64), rng),
        "step_observe": lambda s: k.step_observe(s, np.zeros(2, dtype=np.int64), rng),
        "reset_done": lambda s: k.reset_done(s, rng),
        "check_actions": lambda s: k.check_actions(s, np.zeros(2, dtype=np.int64)),
        "hands": lambda s: k.hands(s, 0),
        "determinize": lambda s: k.determinize(s, 0, rng),
    }
    for what, call in calls.items():
        for given, shown in [(alien, type(alien).__name__), (None, "NoneType")]:
            with pytest.raises(ValueError) as err:
                call(given)
            assert str(err.value) == f"state must be a state of {game} ({name}, made by its kernel's init), got {shown}", what


def test_a_state_made_for_other_options_is_refused_naming_the_field():
    two = cardzoo.kernel("pyanitsa").init(np.random.default_rng(0), 1)
    with pytest.raises(ValueError) as err:
        cardzoo.kernel("pyanitsa", num_players=3).legal_actions(two)
    assert str(err.value) == (
        "state field rewards is float64[1, 2] where this pyanitsa kernel needs float64[1, 3]: "
        "a state made for other options (e.g. another player count or pack)?"
    )
    short = cardzoo.kernel("pyanitsa").init(np.random.default_rng(0), 1)
    before = short.copy()
    with pytest.raises(ValueError) as err:
        cardzoo.kernel("pyanitsa", deck=52).step(short, np.array([36]), np.random.default_rng(0))
    assert str(err.value).startswith("state field piles is uint8[1, 2, 36] where this pyanitsa kernel needs uint8[1, 2, 52]")
    assert all(np.array_equal(getattr(short, f), getattr(before, f)) for f in short.__dataclass_fields__)


def test_one_deal_episodes_reads_episode_and_match_target_of_any_game():
    """The one test of "every episode is one deal" (AEC env, PIMC search, training's expert stage):
    the option values of the games, the defaults (``None`` or nothing given), and bad input."""
    from cardzoo.envs.core.kernel import one_deal_episodes

    assert one_deal_episodes(None) and one_deal_episodes({})
    assert one_deal_episodes({"episode": "hand"}) and one_deal_episodes({"episode": "deal", "num_players": 3})
    assert not one_deal_episodes({"episode": "match"})
    assert not one_deal_episodes({"match_target": 7})  # a match to 7 points is many deals
    assert not one_deal_episodes({"episode": "bogus"})  # conservative: an unknown value is not one deal
    assert one_deal_episodes(cardzoo.envs.kernel("all_fours").options)
    assert not one_deal_episodes(cardzoo.envs.kernel("all_fours", episode="match").options)
    for bad in ([], "episode=match", 1):
        with pytest.raises(ValueError, match=r"options must be a mapping of game options \(or None for the defaults\), got "):
            one_deal_episodes(bad)

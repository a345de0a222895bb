"""Constructor options given as numpy scalars (read from an array, a config table) are the options
they name, and come back as plain Python values (options stay JSON-serializable)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cardzoo

CHOICES = [
    ("all_fours", "episode", "match"),
    ("aluette", "signals", "free"),
    ("avinas", "knock_back", "never"),
    ("ottocento", "reward", "point_diff"),
    ("pyanitsa", "collect_order", "random"),
]


@pytest.mark.parametrize("game, name, value", CHOICES)
def test_a_numpy_str_option_is_the_option_it_names(game, name, value):
    """np.str_('match') was refused with "option episode=np.str_('match') is not valid; valid values:
    ['hand', 'match']", a message naming the value it refused among the valid ones."""
    env = cardzoo.make(game, **{name: np.array([value])[0]})
    assert env.kernel.options[name] == value and type(env.kernel.options[name]) is str
    json.dumps(env.kernel.options)
    assert env.kernel.options == cardzoo.make(game, **{name: value}).kernel.options


def test_a_numpy_str_that_is_not_a_choice_is_still_refused_by_name():
    with pytest.raises(ValueError) as err:
        cardzoo.make("all_fours", episode=np.str_("game"))
    assert str(err.value) == "option episode=np.str_('game') is not valid; valid values: ['hand', 'match']"
    with pytest.raises(ValueError) as err:  # a str is not an int option, whatever its class
        cardzoo.make("all_fours", deal_packet=np.str_("3"))
    assert str(err.value) == "option deal_packet=np.str_('3') is not valid; valid values: [3, 1]"


@pytest.mark.parametrize("game", sorted(cardzoo.GAMES))
def test_an_unknown_option_is_told_the_env_options_too(game):
    """cardzoo.make(game, render_mdoe="ansi") listed the game's options as the valid ones, without
    render_mode, render_view or illegal_action, which the env takes."""
    valid = sorted(cardzoo.envs.kernel_class(game).OPTIONS)
    with pytest.raises(ValueError) as err:
        cardzoo.make(game, render_mdoe="ansi")
    assert str(err.value) == (
        f"unknown option(s) ['render_mdoe'] (did you mean 'render_mode'?); valid options: {valid}; "
        "env options: ['illegal_action', 'render_mode', 'render_view']")


@pytest.mark.parametrize("game", sorted(cardzoo.GAMES))
def test_a_misspelt_parameter_of_make_vec_or_the_single_seat_env_is_told_their_own_parameters(game):
    """cardzoo.make_vec(game, num_env=4) and gymnasium.make(id, oponents="random") listed the game's options
    as the valid ones, without make_vec's num_envs or the single-seat env's opponents; the single-seat
    env also took render_view, passed it to the AEC env and overwrote it (it renders from the learning seat)."""
    import gymnasium

    valid = sorted(cardzoo.envs.kernel_class(game).OPTIONS)
    with pytest.raises(ValueError) as err:
        cardzoo.make_vec(game, num_env=4)
    assert str(err.value) == (
        f"unknown option(s) ['num_env'] (did you mean 'num_envs'?); valid options: {valid}; make_vec options: ['autoreset_mode', "
        "'illegal_action', 'learner_side', 'num_envs', 'opponents', 'privileged', 'seed', 'skip_forced']")
    for typo, close in (("oponents", "opponents"), ("render_view", "render_mode")):
        with pytest.raises(ValueError) as err:
            gymnasium.make(cardzoo.GYM_IDS[game], **{typo: "random"})
        assert str(err.value) == (
            f"unknown option(s) ['{typo}'] (did you mean '{close}'?); valid options: {valid}; single-seat env options: ['illegal_action', "
            "'opponents', 'others', 'partner', 'render_mode', 'seat', 'seed']")


@pytest.mark.parametrize("game", [["all_fours"], {"game": "all_fours"}, None, 3])
def test_a_game_that_is_not_a_name_is_refused_listing_the_games(game):
    """cardzoo.make(["all_fours"]) (and kernel, make_vec, kernel_class) raised TypeError "unhashable type:
    'list'", naming neither the game given nor the games there are."""
    for make in (cardzoo.make, cardzoo.kernel, cardzoo.make_vec, cardzoo.envs.kernel_class, cardzoo.envs.warm_up):
        with pytest.raises(ValueError) as err:
            make(game)
        assert str(err.value) == f"unknown game {game!r}; available games: {sorted(cardzoo.GAMES)}"
    assert cardzoo.make(np.str_("avinas")).kernel.name == "avinas"


@pytest.mark.parametrize("game, given, kept", [
    ("all_fours", "random", None), ("all_fours", None, None),
    ("aluette", None, "random"), ("aluette", "random", "random"),
    ("avinas", None, "random"), ("avinas", np.array(["random"])[0], "random"),
])
def test_a_random_first_dealer_is_accepted_as_either_specs_spell_it(game, given, kept):
    """All Fours' spec spells a randomly drawn first dealer None, Aluette's and Avinas' "random"; each
    game refused the other spelling. Both are accepted and kept as the game's own spelling, which
    plays the same deals."""
    k = cardzoo.kernel(game, first_dealer=given)
    assert k.options["first_dealer"] == kept and type(k.options["first_dealer"]) is type(kept)
    st, own = k.init(np.random.default_rng(4), 8), cardzoo.kernel(game).init(np.random.default_rng(4), 8)
    assert np.array_equal(st.dealer, own.dealer) and len(set(st.dealer.tolist())) > 1

"""Agents: the interface, RandomAgent, the All Fours rule agent, the registry."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest

import cardzoo
from cardzoo import agents
from cardzoo import envs
from cardzoo.agents import Agent, RandomAgent
from cardzoo.agents.all_fours_rule import AllFoursRuleAgent
from cardzoo.envs.core.cards import FRENCH52

BEG = 53
C = FRENCH52.card_id


# ---------------------------------------------------------------- helpers


def _deck(dealer: int, hands: dict[int, str], kick: str) -> np.ndarray:
    """Stock order (default 3-card packets) that deals ``hands[seat]`` (6 card names) and ``kick``."""
    stock = np.full(52, -1, dtype=np.int64)
    for k in range(4):
        seat = (dealer + 1 + k) % 4
        cards = FRENCH52.ids(hands[seat])
        assert len(cards) == 6
        stock[3 * k : 3 * k + 3] = cards[:3]
        stock[12 + 3 * k : 12 + 3 * k + 3] = cards[3:]
    stock[24] = C(kick)
    dealt = stock[stock >= 0]
    assert len(set(dealt.tolist())) == 25, "a card is dealt twice"
    rest = sorted(set(range(52)) - set(stock[stock >= 0].tolist()))
    stock[25:] = rest
    assert sorted(stock.tolist()) == list(range(52))
    return stock


def _position(hands, kick, actions, dealer=3, **options):
    """Deal the hands, apply ``actions`` (names), return (kernel, state) at the next decision."""
    k = envs.kernel("all_fours", **options)
    rng = np.random.default_rng(0)
    st = k.init(rng, 1, deck=_deck(dealer, hands, kick), dealer=dealer)
    for name in actions:
        a = np.array([k.action_id(name)])
        k.check_actions(st, a)
        k.step(st, a, rng)
    return k, st


def _rule_choice(k, st, agent=None) -> str:
    agent = agent or AllFoursRuleAgent()
    obs = k.observe(st, st.current_player)
    mask = k.legal_actions(st)
    a = int(agent.act(obs, mask)[0])
    assert mask[0, a], "rule agent chose an illegal action"
    return k.action_name(a)


# ---------------------------------------------------------------- Agent base


def test_base_agent_act_is_abstract_and_reset_is_noop():
    a = Agent()
    assert a.reset() is None
    with pytest.raises(NotImplementedError):
        a.act(np.zeros((1, 3), np.uint8), np.ones((1, 2), bool))


# ---------------------------------------------------------------- RandomAgent


def test_random_agent_only_legal_and_handles_empty_rows():
    rng = np.random.default_rng(1)
    mask = rng.random((2000, 56)) < 0.1
    mask[:5] = False  # finished games: no legal action
    mask[5] = False
    mask[5, 55] = True  # a single legal action, at the end
    a = RandomAgent(seed=3).act(np.zeros((2000, 10), np.uint8), mask.astype(np.int8))
    assert a.dtype == np.int64 and a.shape == (2000,)
    rows = mask.any(axis=1)
    assert mask[np.flatnonzero(rows), a[rows]].all()
    assert (a[:5] == 0).all()
    assert a[5] == 55


def test_random_agent_reproducible_by_seed_and_uniform():
    mask = np.zeros((20000, 56), dtype=bool)
    mask[:, [3, 17, 52, 53]] = True
    obs = np.zeros((20000, 4), np.uint8)
    a1 = RandomAgent(seed=7).act(obs, mask)
    a2 = RandomAgent(seed=7).act(obs, mask)
    a3 = RandomAgent(seed=8).act(obs, mask)
    assert np.array_equal(a1, a2)
    assert not np.array_equal(a1, a3)
    freq = np.array([(a1 == x).mean() for x in (3, 17, 52, 53)])
    assert np.all(np.abs(freq - 0.25) < 0.015), freq  # 5 sigma is about 0.015 here


def test_random_agent_accepts_1d_mask():
    a = RandomAgent(seed=0).act(np.zeros(4), np.array([0, 0, 1, 0], np.int8))
    assert a.tolist() == [2]


# ---------------------------------------------------------------- rule agent: its input (legality: test_rule_bots.py)


def test_rule_agent_rejects_wrong_shapes_and_params():
    agent = AllFoursRuleAgent()
    with pytest.raises(ValueError, match="observation"):
        agent.act(np.zeros((2, 10), np.uint8), np.ones((2, 56), bool))
    with pytest.raises(ValueError, match="unknown rule-agent params"):
        AllFoursRuleAgent(params={"nonsense": 1.0})
    with pytest.raises(ValueError, match="undertrump"):
        AllFoursRuleAgent(undertrump="sometimes")
    # the compiled evaluation reads the kernel's values (integers 0..255): other values are refused
    k = envs.kernel("all_fours")
    st = k.init(np.random.default_rng(0), 2)
    obs, mask = k.observe(st, st.current_player).astype(np.float64), k.legal_actions(st)
    obs[1, 0] = 0.5 + obs[1, k.obs_layout["hand_size"].start]  # not a scaled observation (hand_size 6 > 1)
    with pytest.raises(ValueError, match=re.escape("a float observation must be scaled to [0, 1] (cardzoo.make_vec's form) or "
                                                   "hold the kernel's values as whole numbers; got values up to 6.5, not all whole")):
        agent.act(obs, mask)
    obs[1, 0] = 300.0
    with pytest.raises(ValueError, match=r"values in \[0, 300\]"):
        agent.act(obs, mask)


def test_rule_agent_choices_are_pinned():
    """The rule bot's choices on 3,000 observations of seeded random play (stand/beg, give one/run
    and trick play, B = 300 at a time), recorded from its numpy form before it was compiled: the
    compiled evaluation chooses exactly the same actions."""
    import hashlib

    k = envs.kernel("all_fours")
    rule = AllFoursRuleAgent()
    rng = np.random.default_rng(77)
    st = k.init(rng, 300)
    acts = []
    for _ in range(10):
        mask = k.legal_actions(st)
        acts.append(rule.act(k.observe(st, st.current_player), mask))
        k.step(st, (rng.random(mask.shape) * mask).argmax(axis=1), rng)
    acts = np.concatenate(acts).astype(np.int64)
    assert acts[:12].tolist() == [53, 53, 52, 52, 53, 53, 53, 52, 53, 52, 53, 52]
    assert np.bincount(acts, minlength=56)[52:].tolist() == [171, 133, 32, 125]  # STAND, BEG, GIVE_ONE, RUN
    assert hashlib.sha256(acts.tobytes()).hexdigest()[:16] == "8b39343e85d43ed4"


# ---------------------------------------------------------------- rule agent: play (RULES.md §5, §6)

# dealer S3, beggar S0; trump hearts (kick 5H) unless said otherwise
_FILL = {3: "8S 9S 10S 2D 8D 9D"}


def test_rule_agent_hangs_the_opponents_jack():
    hands = {0: "2S 4S 6S 7C 8C 9C", 1: "JH 3D 4D 5D 6D 7D", 2: "QH 3S 2C 3C 4C 5C", **_FILL}
    k, st = _position(hands, "5H", ["STAND", "2S", "JH"])
    assert int(st.current_player[0]) == 2
    assert _rule_choice(k, st) == "QH"


def test_rule_agent_feeds_a_ten_to_partners_sure_trick():
    hands = {0: "AH 2S 4S 7C 8C 9C", 1: "3H 3D 4D 5D 6D 7D", 2: "10S 2C 3C 4C 5C 6C", 3: "8S 9S JS 2D 8D 9D"}
    k, st = _position(hands, "5H", ["STAND", "AH", "3H"])
    assert _rule_choice(k, st) == "10S"


def test_rule_agent_does_not_play_its_jack_under_a_higher_trump():
    hands = {0: "2C 2S 4S 6S 8C 9C", 1: "KH 3D 4D 5D 6D 7D", 2: "JH 4C 5C 3S 7S 10C", **_FILL}
    k, st = _position(hands, "5H", ["STAND", "2C", "KH"])
    choice = _rule_choice(k, st)
    assert choice in ("4C", "5C")  # follows suit low; JH would be hanged (3 points to them)


def test_rule_agent_captures_a_ten_when_last():
    hands = {0: "10S 2C 3C 4C 7C 9C", 1: "2S 3D 4D 5D 6D 7D", 2: "4S 8C 10C QC KC AC", 3: "AS 5S 2D 8D 9D 10D"}
    k, st = _position(hands, "5H", ["STAND", "10S", "2S", "4S"])
    assert int(st.current_player[0]) == 3
    assert _rule_choice(k, st) == "AS"


def test_rule_agent_discards_low_when_the_trick_is_lost():
    # S0 leads AS, S1 and S2 follow; S3 (last, no spade, no trump) cannot win: it throws a
    # card without Game value, not the ten, queen or jack
    hands = {0: "AS 2S 4S 7C 8C 9C", 1: "3S 4D 5D 6D 7D 8D", 2: "5S 6S 7S 10C KC AC", 3: "10D 3D QC 2C 9D JD"}
    k, st = _position(hands, "5H", ["STAND", "AS", "3S", "5S"])
    assert int(st.current_player[0]) == 3
    assert _rule_choice(k, st) in ("2C", "3D", "9D")


# ---------------------------------------------------------------- rule agent: stand / beg / give / run (§4)


def test_rule_agent_stands_with_strong_trumps_and_begs_with_none():
    strong = {0: "AH KH JH 2H 3H 4S", 1: "3D 4D 5D 6D 7D 8D", 2: "2C 3C 4C 5C 6C 7C", 3: "8S 9S 10S 2D 8C 9C"}
    k, st = _position(strong, "5H", [])
    assert _rule_choice(k, st) == "STAND"
    weak = {0: "2S 3S 4D 5D 7C 8C", 1: "3D 6D 7D 8D 9D 10D", 2: "2C 3C 4C 5C 6C 9C", 3: "AH KH JH 2H 3H 4S"}
    k, st = _position(weak, "5H", [])
    assert _rule_choice(k, st) == "BEG"


def test_rule_agent_dealer_gives_when_strong_and_runs_when_void():
    strong_dealer = {0: "2S 3S 4D 5D 7C 8C", 1: "3D 6D 7D 8D 9D 10D", 2: "2C 3C 4C 5C 6C 9C", 3: "AH KH JH 2H 3H 4S"}
    k, st = _position(strong_dealer, "5H", ["BEG"])
    assert int(st.current_player[0]) == 3
    assert _rule_choice(k, st) == "GIVE_ONE"
    void_dealer = {0: "AH KH 2S 3S 4D 5D", 1: "3D 6D 7D 8D 9D 10D", 2: "2C 3C 4C 5C 6C 9C", 3: "7C 8C 10C 4S 5S 6S"}
    k, st = _position(void_dealer, "5H", ["BEG"])
    assert _rule_choice(k, st) == "RUN"


def test_rule_agent_never_gives_the_match_away():
    strong_dealer = {0: "2S 3S 4D 5D 7C 8C", 1: "3D 6D 7D 8D 9D 10D", 2: "2C 3C 4C 5C 6C 9C", 3: "AH KH JH 2H 3H 4S"}
    k = envs.kernel("all_fours", episode="match")
    rng = np.random.default_rng(0)
    # beggar S0's team (A) at 13 of 14: a give-one would end the match for them
    st = k.init(rng, 1, deck=_deck(3, strong_dealer, "5H"), dealer=3, score=[13, 0])
    k.step(st, np.array([BEG]), rng)
    assert _rule_choice(k, st, AllFoursRuleAgent(episode="match")) == "RUN"


# ---------------------------------------------------------------- registry


def test_registry_loads_builtins():
    names = agents.available()
    assert {"random", "all_fours/random", "all_fours/rule"} <= set(names)
    assert isinstance(agents.load("random", seed=1), RandomAgent)
    assert isinstance(agents.load("all_fours/random"), RandomAgent)
    rule = agents.load("all_fours/rule", undertrump="forbidden")
    assert isinstance(rule, AllFoursRuleAgent)
    assert rule.kernel.options["undertrump"] == "forbidden"
    a, b = agents.load("random", seed=4), agents.load("random", seed=4)
    m = np.ones((50, 56), bool)
    assert np.array_equal(a.act(np.zeros((50, 1)), m), b.act(np.zeros((50, 1)), m))


def test_registry_unknown_name_lists_available():
    with pytest.raises(ValueError) as e:
        agents.load("no_such_agent")
    assert "all_fours/rule" in str(e.value) and "no_such_agent" in str(e.value)
    with pytest.raises(ValueError, match="all_fours/nobody"):
        agents.load("all_fours/nobody")  # a game-prefixed name that is not registered is not a path


def test_registry_bad_options_raise():
    with pytest.raises(ValueError, match="deal_packet"):
        agents.load("all_fours/random", deal_packet=5)
    assert isinstance(agents.load("random", undertrump="forbidden"), RandomAgent)  # reads only the mask


def test_registry_missing_path_names_it(tmp_path):
    missing = str(tmp_path / "nothing" / "agent.zip")
    with pytest.raises(FileNotFoundError) as e:
        agents.load(missing)
    assert missing in str(e.value)
    with pytest.raises(FileNotFoundError, match="runs/af/final"):
        agents.load("runs/af/final")


def test_an_agent_that_is_neither_a_name_nor_a_path_is_a_type_error_saying_what_is_accepted(tmp_path):
    """load_agent(None) and agents.load(None) raised AttributeError ('NoneType' object has no attribute
    'startswith'), as did a pathlib.Path; a Path is now a path, anything else a TypeError."""
    import pathlib

    import cardzoo
    from cardzoo.training.common import resolve_agent

    accepted = ("an agent is named by a registered agent name such as 'all_fours/rule' (cardzoo.agents.available()) "
                "or the path of a saved agent folder (str or pathlib.Path), got ")
    for load in (agents.load, cardzoo.load_agent, resolve_agent):
        for bad in (None, 3, agents.load("random")):
            with pytest.raises(TypeError) as e:
                load(bad)
            assert str(e.value) == accepted + repr(bad)
    missing = tmp_path / "agent"  # a Path is a path even when its name looks like no path
    with pytest.raises(FileNotFoundError, match=f"no agent file or folder at {str(missing)!r}"):
        agents.load(missing)
    with pytest.raises(FileNotFoundError, match="no agent file or folder at 'myagent'"):
        agents.load(pathlib.Path("myagent"))
    pytest.importorskip("torch")
    shipped = pathlib.Path(agents.__file__).parent / "shipped" / "all_fours_ppo"
    assert agents.load(shipped).meta["game"] == "all_fours"


def test_registry_invalid_saved_agent_names_path(tmp_path):
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"this is not an agent")
    with pytest.raises((ValueError, FileNotFoundError)) as e:
        agents.load(str(junk))
    assert str(junk) in str(e.value)
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    with pytest.raises((ValueError, FileNotFoundError)) as e:
        agents.load(str(empty_dir))
    assert str(empty_dir) in str(e.value)


def test_registry_register_extension_point():
    class Fixed(Agent):
        name = "fixed"

        def __init__(self, **opts):
            self.opts = opts

        def act(self, observation, action_mask):
            return np.asarray(action_mask).argmax(axis=1).astype(np.int64)

    agents.register("test/fixed", Fixed)
    try:
        a = agents.load("test/fixed", undertrump="forbidden")
        assert isinstance(a, Fixed) and a.opts == {"undertrump": "forbidden"}
        assert "test/fixed" in agents.available()
        with pytest.raises(ValueError, match="already registered"):
            agents.register("test/fixed", Fixed)
        agents.register("test/fixed", RandomAgent, overwrite=True)
        assert isinstance(agents.load("test/fixed"), RandomAgent)
    finally:
        agents.unregister("test/fixed")
    assert "test/fixed" not in agents.available()


@pytest.mark.parametrize("made", [None, RandomAgent, 3])
def test_a_factory_that_returns_no_agent_is_refused_when_loaded(made):
    """A registered factory returning None (a forgotten return), a class or a number was taken, and the
    arena failed at the first move with "'NoneType' object has no attribute 'act'"."""
    agents.register("test/none", lambda **opts: made)
    try:
        with pytest.raises(TypeError) as err:
            agents.load("test/none")
        assert str(err.value) == (f"the factory of agent 'test/none' returned {made!r}, not an agent "
                                  "(an object with act(observation, action_mask))")
    finally:
        agents.unregister("test/none")


def test_a_saved_agent_path_checks_its_options_as_the_registered_name_does():
    """load_agent(path, bogus=1), undertrump="xx" or env_options={...} were accepted silently for a
    saved-agent path while "all_fours/ppo" refused them, and game= gave "TypeError: kernel() got
    multiple values for argument 'game'"; both routes now run registry.check_trained_options."""
    pytest.importorskip("torch")
    import os

    import cardzoo
    from cardzoo.agents.options import OptionsMismatchWarning
    from cardzoo.agents.registry import SHIPPED

    path = os.path.join(SHIPPED, "all_fours_ppo")
    for name, label in ((path, f"the saved agent at {path!r}"), ("all_fours/ppo", "the shipped agent all_fours/ppo (agents/shipped/all_fours_ppo)")):
        for bad, why in (({"bogus": 1}, "unknown option(s) ['bogus']"), ({"undertrump": "xx"}, "option undertrump='xx' is not valid; valid values: ['allowed', 'forbidden']"),
                         ({"env_options": {"undertrump": "forbidden"}}, "unknown option(s) ['env_options']")):
            with pytest.raises(ValueError) as e:
                cardzoo.load_agent(name, **bad)
            assert str(e.value).startswith(f"{label} plays all_fours, and these are not valid all_fours options: {why}")
        with pytest.raises(ValueError) as e:
            cardzoo.load_agent(name, game="pyanitsa")
        assert str(e.value) == f"{label} plays all_fours; game='pyanitsa' given (leave game= out, or give game='all_fours')"
        assert cardzoo.load_agent(name, game="all_fours").meta["game"] == "all_fours"
        with pytest.warns(OptionsMismatchWarning, match="trained for other all_fours options than these .undertrump: trained 'allowed', here 'forbidden'"):
            cardzoo.load_agent(name, undertrump="forbidden")


def test_the_rule_bot_row_of_the_agent_pages_is_what_its_command_prints():
    """agents/README.md and the shipped agents' table said `cardzoo arena all_fours all_fours/rule random
    --deals 2000 --seed 7` gives +1.160 [+1.102, +1.218], win rate 0.668: the former arena's deals.
    Today's arena (exact duplicates) prints +1.176 [+1.117, +1.236], 0.683 [0.672, 0.693]."""
    from pathlib import Path

    from cardzoo.training.arena import ci_text, play_duplicate

    r = play_duplicate("all_fours", "all_fours/rule", "random", 2000, seed=7, batch=256)
    diff, win = f"{r.mean_diff:+.3f} {ci_text(*r.diff_ci, '+.3f', 2000)}", f"{r.win_rate:.3f} {ci_text(*r.win_ci, '.3f', 2000)}"
    assert (diff, win) == ("+1.176 [+1.117, +1.236]", "0.683 [0.672, 0.693]")
    root = Path(__file__).resolve().parent.parent / "agents"
    assert "against random +1.176\n[+1.117, +1.236] points per hand, win rate 0.683 [0.672, 0.693]" in (root / "README.md").read_text()
    assert f"--deals 2000 --seed 7` | 4,000 | {diff} | {win} |" in (root / "shipped" / "README.md").read_text()


def test_the_avinas_row_of_the_shipped_agents_page_is_what_its_command_prints():
    """The page gave `cardzoo arena avinas avinas/ppo avinas/rule --deals 2000 --seed 2026` as +0.096
    [+0.071, +0.120] over 1,434 sevens deals (the former arena's deals); the command prints +0.093."""
    from pathlib import Path

    from cardzoo.training.arena import ci_text, play_duplicate

    r = play_duplicate("avinas", "avinas/ppo", "avinas/rule", 2000, seed=2026, batch=256)
    sevens = r.by_category()["sevens"]
    row = f"| PPO vs rule bot, all deals | 2,000 | **{r.mean_diff:+.3f}** {ci_text(*r.diff_ci, '+.3f', 2000)} | " \
          f"{r.win_rate:.3f} {ci_text(*r.win_ci, '.3f', 2000)} |"
    assert row == "| PPO vs rule bot, all deals | 2,000 | **+0.093** [+0.071, +0.115] | 0.541 [0.532, 0.551] |"
    assert sevens["n_deals"] == 1440 and f"{sevens['mean_diff']:+.3f}" == "+0.098"
    page = (Path(__file__).resolve().parent.parent / "agents" / "shipped" / "README.md").read_text()
    assert row in page and "| — sevens game | 1,440 | **+0.098** [+0.072, +0.123] |" in page


@pytest.mark.parametrize("name", ["random", "all_fours/random", "all_fours/pimc", "all_fours/ismcts"])
def test_a_bad_seed_of_an_agent_is_refused_as_the_envs_refuse_it(name):
    """agents.load(name, seed=...) handed the seed to numpy: True was taken as the seed 1, 1.5 and "3"
    raised numpy's TypeError ("SeedSequence expects int ..."), -1 its "expected non-negative integer"
    (not saying which argument). load now checks it with the envs' one seed check (kernel.check_seed)."""
    for seed in (-1, True, 1.5, "3"):
        with pytest.raises(ValueError) as err:
            agents.load(name, seed=seed)
        assert str(err.value) == f"seed must be a non-negative int or None, got {seed!r}"
    agents.load(name, seed=np.int64(3))  # numpy ints are seeds


def test_the_shipped_pyanitsa_agent_takes_the_aliased_player_count_as_the_env_does():
    """load_agent("pyanitsa/ppo", n_players=3) chose the 2-player agent (it read only num_players), which
    then refused the 3-player layout with a LayoutMismatchError; the env takes n_players (the rules
    spec's name) as an alias, without a warning."""
    pytest.importorskip("torch")
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent = agents.load("pyanitsa/ppo", n_players=3, collect_order="winner_chooses")
    assert [str(w.message) for w in caught if "n_players" in str(w.message)] == []
    assert agent.meta["env_options"]["num_players"] == 3
    k = envs.kernel("pyanitsa", num_players=3, collect_order="winner_chooses")
    st = k.init(np.random.default_rng(0), 2)
    assert agent.act(k.observe(st, st.current_player), k.legal_actions(st)).shape == (2,)
    with pytest.raises(ValueError) as err:
        agents.load("pyanitsa/ppo", n_players=3, num_players=3)
    assert str(err.value) == "options 'n_players' and 'num_players' name the same thing; pass only one of them"


def test_the_shipped_avinas_agent_checks_the_honesty_it_sets_aside():
    """avinas/ppo drops honesty= before its option check (HonestCalls makes every game the "mask" problem),
    so honesty="bogus" loaded without a word."""
    pytest.importorskip("torch")
    with pytest.raises(ValueError) as err:
        agents.load("avinas/ppo", honesty="bogus")
    assert str(err.value) == (
        "the shipped agent avinas/ppo (agents/shipped/avinas_ppo) plays avinas, and these are not valid avinas "
        "options: option honesty='bogus' is not valid; valid values: ['penalize', 'mask']")
    assert agents.load("avinas/ppo", honesty="mask").options_ignored == ("honesty",)


@pytest.mark.parametrize("name, kwargs, message", [
    ("all_fours/pimc", {"n_det": 2.5}, "n_det must be an int >= 1, got 2.5"),
    ("avinas/pimc", {"n_det": "x"}, "n_det must be an int >= 1, got 'x'"),
    ("avinas/pimc", {"n_det": True}, "n_det must be an int >= 1, got True"),
    ("avinas/pimc", {"n_det": 0}, "n_det must be >= 1, got 0"),
    ("aluette/ismcts", {"n_iter": 2.5}, "n_iter must be an int >= 1, got 2.5"),
    ("aluette/ismcts", {"wave": "8"}, "wave must be an int >= 1, got '8'"),
    ("aluette/ismcts", {"c": "x"}, "c (the exploration constant) must be a finite number >= 0, got 'x'"),
    ("aluette/ismcts", {"c": float("nan")}, "c (the exploration constant) must be a finite number >= 0, got nan"),
    ("aluette/ismcts", {"c": -1}, "c (the exploration constant) must be >= 0, got -1"),
    ("aluette/ismcts", {"widen": None},
     "widen must be a finite number >= 0 (0: expand every legal action before choosing), got None"),
    ("aluette/ismcts", {"guided": "no"}, "guided must be True or False, got 'no'"),
    ("aluette/ismcts", {"shared": 1}, "shared must be True or False, got 1"),
])
def test_search_settings_are_checked_as_what_they_are(name, kwargs, message):
    """n_det=2.5 and n_iter=2.5 were cut to 2 without a word; n_det="x" and c="x" raised int()'s and
    float()'s own messages, naming neither the setting nor what is valid; guided="no" was true."""
    with pytest.raises(ValueError) as err:
        agents.load(name, **kwargs)
    assert str(err.value) == message
    assert agents.load("all_fours/pimc", n_det=np.int64(3)).search.n_det == 3
    ismcts = agents.load("aluette/ismcts", n_iter=np.int64(4), c=1, guided=np.bool_(False)).search
    assert (ismcts.n_iter, ismcts.c, ismcts.guided) == (4, 1.0, False)
    assert type(ismcts.n_iter) is int and type(ismcts.c) is float and type(ismcts.guided) is bool


def test_the_pyanitsa_rule_bot_refuses_a_mask_of_another_size():
    """A mask of 36 actions (FLIP missing) made the bot play ORDER(6C), an illegal action, in every row;
    one of 53 (the 52-card pack's) raised numpy's broadcast error. The other rule bots name the shapes."""
    bot = agents.load("pyanitsa/rule")
    obs = np.zeros((2, 195), dtype=np.uint8)
    for mask in (np.ones((2, 36), dtype=bool), np.ones((2, 53), dtype=bool), np.ones((3, 37), dtype=bool)):
        with pytest.raises(ValueError) as err:
            bot.act(obs, mask)
        assert str(err.value) == (
            f"expected observation [B, D] and action_mask [B, 37] (P'yanitsa with the 36-card pack), got (2, 195) and {mask.shape}")
    flip_only = np.zeros((2, 37), dtype=bool)
    flip_only[:, 36] = True
    assert bot.act(obs, flip_only).tolist() == [36, 36]
    assert bot.act(obs[0], flip_only[0]).tolist() == [36]
    assert agents.load("pyanitsa/rule", deck=52).act(obs, np.ones((2, 53), dtype=bool)).tolist() == [0, 0]


def test_a_trained_agent_plays_the_same_on_the_vector_envs_scaled_observations():
    """PolicyAgent.act divided every observation by the layout's bounds, so the [0, 1]-scaled observations of
    cardzoo.make_vec (and of the SB3 adapter) were scaled twice: all_fours/ppo changed its move in 8 of these 256
    positions, without a word. The rule bots already took both forms."""
    pytest.importorskip("torch")
    import cardzoo

    venv = cardzoo.make_vec("all_fours", 256, opponents="random", seed=0)
    obs, infos = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(6):  # some tricks in, so counts and scores are not all zero
        obs, _, _, _, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]]))
    raw = venv.kernel.observe(venv.st, venv.st.current_player)
    assert obs.dtype == np.float32 and np.allclose(obs, raw * venv.scale)
    agent = agents.load("all_fours/ppo")
    mask = infos["action_mask"]
    live = ~venv._pending
    expected = agent.act(raw[live], mask[live])
    assert np.array_equal(agent.act(obs[live], mask[live]), expected)
    assert np.array_equal(agent.act(raw[live].astype(np.float64), mask[live]), expected)  # whole floats: the raw form
    assert mask[live][np.arange(live.sum()), expected].all()


@pytest.mark.parametrize("given, named", [("./", "."), ("../here/", "../here")])
def test_a_folder_that_is_no_agent_is_named_once(tmp_path, monkeypatch, given, named):
    """'./' (pathlib writes '.') was reported twice: "'./' is not a valid saved agent: . is not a
    saved cardzoo agent: ..."; the loader's message already names the path, so it is given as is."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    with pytest.raises(ValueError) as err:
        cardzoo.load_agent(given)
    assert str(err.value) == f"{named} is not a saved cardzoo agent: expected a directory holding agent.json and weights.safetensors"


def test_act_given_the_pettingzoo_observation_dict_says_how_to_pass_it():
    """agent.act(env.observe(agent), mask) on a trained agent failed deep in numpy ("TypeError: float()
    argument must be a string or a real number, not 'dict'"), and a dict for the mask said "action_mask
    must have shape [B, A] or [A], got shape ()" for every agent. act takes the arrays (agents/base.py,
    agents/README.md): the ValueError now says what was passed and how to pass the dict's arrays."""
    pytest.importorskip("torch")
    env = cardzoo.make("all_fours")
    env.reset(seed=0)
    ob = env.observe(env.agent_selection)
    hint = "act takes the arrays of the observation dict, as a batch: agent.act(obs['observation'][None], obs['action_mask'][None])[0]"
    ppo = agents.load("all_fours/ppo")
    with pytest.raises(ValueError) as e:
        ppo.act(ob, ob["action_mask"])
    assert str(e.value) == f"observation must be an array [B, 402] or [402], got a dict with keys ['action_mask', 'observation']: {hint}"
    for bad, shown in ((None, "NoneType None (dtype object)"), ("abc", "str 'abc' (dtype <U3)")):
        with pytest.raises(ValueError) as e:
            ppo.act(bad, ob["action_mask"])
        assert str(e.value) == ("observation must be a numeric array [B, 402] (the kernel's uint8 values, or float32 scaled to [0, 1]), "
                                f"got {shown}")
    with pytest.raises(ValueError) as e:
        ppo.act(ob["observation"][None, :-3], ob["action_mask"][None])
    assert str(e.value) == "expected observation [B, 402] and action_mask [B, 56], got (1, 399) and (1, 56)"
    for agent in (ppo, agents.load("all_fours/rule"), agents.load("random", seed=0), agents.load("lowest")):
        with pytest.raises(ValueError) as e:
            agent.act(ob["observation"], ob)
        assert str(e.value) == f"action_mask must be an array [B, A] or [A], got a dict with keys ['action_mask', 'observation']: {hint}"
        a = agent.act(ob["observation"][None], ob["action_mask"][None])  # as the hint says
        assert a.shape == (1,) and ob["action_mask"][a[0]] == 1


def test_a_path_that_is_near_a_saved_agent_says_where_the_agent_is(tmp_path):
    """load_agent(OUT/model.zip) (the model zip cardzoo train writes beside its agent) said only that a saved
    agent is a directory holding agent.json and weights.safetensors; so did a checkpoints folder, a folder of
    weights without agent.json and the weights file of an agent's folder. Each now also says what it is and
    where the agent is; a folder without its weights names the path and what a saved agent holds."""
    pytest.importorskip("torch")
    import shutil
    from pathlib import Path

    from cardzoo.agents.registry import SHIPPED

    expected = "is not a saved cardzoo agent: expected a directory holding agent.json and weights.safetensors"
    run = tmp_path / "run"
    for folder in (run / "agent", run / "checkpoints" / "agent_500", run / "checkpoints" / "agent_1000"):
        folder.mkdir(parents=True)
        for f in ("agent.json", "weights.safetensors"):
            shutil.copy(Path(SHIPPED) / "all_fours_ppo" / f, folder / f)
    (run / "model.zip").write_bytes(b"PK")
    (run / "checkpoints" / "model_1000.zip").write_bytes(b"PK")
    (tmp_path / "model.zip").write_bytes(b"PK")
    weights_only = tmp_path / "weights_only"
    weights_only.mkdir()
    shutil.copy(run / "agent" / "weights.safetensors", weights_only)
    json_only = tmp_path / "json_only"
    json_only.mkdir()
    shutil.copy(run / "agent" / "agent.json", json_only)
    cases = [
        (run / "model.zip", ValueError, f"{run / 'model.zip'} {expected}, not a .zip: model.zip is a stable-baselines3 model "
                                        f"(cardzoo train saves the agent beside it: {run / 'agent'})"),
        (run / "checkpoints" / "model_1000.zip", ValueError,
         f"{run / 'checkpoints' / 'model_1000.zip'} {expected}, not a .zip: model_1000.zip is a stable-baselines3 model "
         f"(cardzoo train saves the agent beside it: {run / 'checkpoints' / 'agent_1000'})"),
        (tmp_path / "model.zip", ValueError, f"{tmp_path / 'model.zip'} {expected}, not a .zip: model.zip is a stable-baselines3 "
                                             "model (cardzoo train saves the agent beside it, in the run's agent folder)"),
        (run / "checkpoints", ValueError, f"{run / 'checkpoints'} {expected}; it holds the checkpoints of a training run, whose "
                                          f"agents are agent_500 .. agent_1000 (the latest: {run / 'checkpoints' / 'agent_1000'})"),
        (weights_only, ValueError, f"{weights_only} {expected}; it has weights.safetensors but no agent.json (the metadata saved "
                                   "beside the weights: game, options, network)"),
        (run / "agent" / "weights.safetensors", ValueError,
         f"{run / 'agent' / 'weights.safetensors'} {expected}, not a file in it: give the folder {run / 'agent'}"),
        (json_only, FileNotFoundError, f"{json_only} has no weights.safetensors: a saved agent is a directory holding "
                                       "agent.json and weights.safetensors"),
    ]
    for path, kind, message in cases:
        for given in (path, str(path)):
            with pytest.raises(kind) as e:
                cardzoo.load_agent(given)
            assert str(e.value) == message
    assert cardzoo.load_agent(run / "agent").meta["game"] == "all_fours"  # no model.zip needed beside it
    assert cardzoo.load_agent(run / "agent" / "agent.json").meta["game"] == "all_fours"


def test_print_results_without_rich_names_the_extra(monkeypatch):
    """print_results (agents/README.md: "the [train] extra") without rich installed raised a bare
    "ModuleNotFoundError: No module named 'rich'" from training/common.report_console; it is now
    cardzoo.MissingExtraError naming the extra to install, as the commands say."""
    import sys

    from cardzoo import MissingExtraError
    from cardzoo.training.arena import play_duplicate, print_results

    result = play_duplicate("all_fours", "lowest", "random", 2, seed=0)
    monkeypatch.setitem(sys.modules, "rich", None)  # import rich fails, as when it is not installed
    monkeypatch.setitem(sys.modules, "rich.console", None)
    with pytest.raises(MissingExtraError) as e:
        print_results(result)
    assert str(e.value) == 'printing the results tables needs the [train] extra (module \'rich\' is not installed): pip install "cardzoo[train]"'
    assert (e.value.extra, e.value.module) == ("train", "rich")


@pytest.mark.parametrize("game", ["all_fours", "avinas", "ottocento", "aluette", "pyanitsa"])
def test_every_rule_bot_checks_its_arrays_like_the_trained_agents(game):
    """The five rule bots each restated the shape check (and P'yanitsa's read no observation at all),
    so the observation dict passed whole said only "expected observation [B, 402] ..., got () and
    (1, 56)" (P'yanitsa's took it). One check (agents.base.as_batch) now serves the rule bots and the
    trained agents: the same messages, with the bot's observation size (P'yanitsa's: D, unread)."""
    env = cardzoo.make(game)
    env.reset(seed=0)
    ob = env.observe(env.agent_selection)
    bot = agents.load(f"{game}/rule")
    D, A = ob["observation"].size, ob["action_mask"].size
    d = "D" if game == "pyanitsa" else str(D)
    hint = "act takes the arrays of the observation dict, as a batch: agent.act(obs['observation'][None], obs['action_mask'][None])[0]"
    with pytest.raises(ValueError) as e:
        bot.act(ob, ob["action_mask"])
    assert str(e.value) == f"observation must be an array [B, {d}] or [{d}], got a dict with keys ['action_mask', 'observation']: {hint}"
    with pytest.raises(ValueError) as e:
        bot.act(None, ob["action_mask"])
    assert str(e.value) == (f"observation must be a numeric array [B, {d}] (the kernel's uint8 values, or float32 scaled to [0, 1]), "
                            "got NoneType None (dtype object)")
    with pytest.raises(ValueError) as e:
        bot.act(np.stack([ob["observation"]] * 2), ob["action_mask"][None])
    note = f" (P'yanitsa with the {A - 1}-card pack)" if game == "pyanitsa" else ""
    assert str(e.value) == f"expected observation [B, {d}] and action_mask [B, {A}]{note}, got (2, {D}) and (1, {A})"
    a = bot.act(ob["observation"][None], ob["action_mask"][None])
    assert a.shape == (1,) and ob["action_mask"][a[0]] == 1


# ---------------------------------------------------------------- found by a Python API audit (2026-12-04)


def _choice_positions(game: str, options: dict, rows: int = 64):
    """``(obs, mask)`` of ``rows`` positions with two or more legal actions, from seeded random play."""
    k = envs.kernel(game, **options)
    rng = np.random.default_rng(0)
    st = k.init(rng, 256)
    obs_rows, mask_rows = [], []
    rand = RandomAgent(0)
    while sum(len(m) for m in mask_rows) < rows and not st.done.all():
        obs, mask = k.observe(st, st.current_player), k.legal_actions(st)
        pick = (mask.sum(axis=1) > 1) & ~st.done
        obs_rows.append(obs[pick])
        mask_rows.append(mask[pick])
        k.step(st, rand.act(obs, mask), rng)
    return np.concatenate(obs_rows)[:rows], np.concatenate(mask_rows)[:rows]


@pytest.mark.parametrize("name, options", [("avinas/ppo", {}), ("pyanitsa/ppo", {"collect_order": "winner_chooses"}),
                                           ("all_fours/ppo", {})])
def test_a_trained_agent_samples_when_told_even_inside_a_wrapper(name, options):
    """agents/README.md: ``agent.deterministic = False`` makes a trained policy sample, seeded by ``seed=``.
    avinas/ppo (HonestCalls) and pyanitsa/ppo (SkipForced) come wrapped: the flag landed on the
    wrapper and they kept playing their most likely move. The wrapper now passes it on."""
    pytest.importorskip("torch")
    obs, mask = _choice_positions(name.split("/")[0], options)
    one, two = cardzoo.load_agent(name, seed=1, **options), cardzoo.load_agent(name, seed=2, **options)
    assert one.deterministic is True
    assert np.array_equal(one.act(obs, mask), two.act(obs, mask))  # the most likely move: seeds do not matter
    one.deterministic = two.deterministic = False
    assert one.deterministic is False and getattr(one, "agent", one).deterministic is False
    a, b = one.act(obs, mask), two.act(obs, mask)
    assert mask[np.arange(len(a)), a].all() and mask[np.arange(len(b)), b].all()
    assert not np.array_equal(a, b)  # two seeds sample differently
    again = cardzoo.load_agent(name, seed=1, **options)
    again.deterministic = False
    assert np.array_equal(again.act(obs, mask), a)  # and the same seed the same


def test_wrappers_check_their_input_as_every_agent_does():
    """HonestCalls (avinas/ppo's) and SkipForced (pyanitsa/ppo's) passed act's input on unchecked: the
    PettingZoo dict passed whole gave TypeError/IndexError, batch sizes that differ a numpy broadcast
    error. Now the same ValueErrors as every agent's (agents.base.as_batch)."""
    from cardzoo.agents.honest import HonestCalls
    from cardzoo.agents.skip_forced import SkipForced

    k = envs.kernel("avinas")
    st = k.init(np.random.default_rng(0), 4)
    obs, mask = k.observe(st, st.current_player), k.legal_actions(st)
    for wrapper in (HonestCalls(cardzoo.load_agent("avinas/rule")), SkipForced(cardzoo.load_agent("avinas/rule"))):
        with pytest.raises(ValueError, match="observation must be an array .* got a dict with keys \\['action_mask', 'observation'\\]"):
            wrapper.act({"observation": obs[0], "action_mask": mask[0]}, mask[0])
        with pytest.raises(ValueError, match=r"expected observation \[B, .*\] and action_mask \[B, 83\], got \(4, 421\) and \(3, 83\)"):
            wrapper.act(obs, mask[:3])
        assert mask[np.arange(4), wrapper.act(obs, mask)].all()


def test_the_arena_plays_any_object_with_act():
    """play_duplicate documents "an Agent, or an object with act()": such an object failed with
    AttributeError: no attribute 'begin' (the arena called begin, reset and end_episodes)."""
    from cardzoo.training.arena import play_duplicate

    class Lowest:  # plays the lowest legal action, as the registered "lowest" does
        def act(self, observation, action_mask):
            return np.asarray(action_mask).argmax(axis=1)

    r = play_duplicate("all_fours", Lowest(), "lowest", 8, seed=0, name_a="duck")
    assert r.n_deals == 8 and r.mean_diff == 0.0 and r.win_rate == 0.5


def test_a_game_option_is_checked_not_a_type_error():
    """load("all_fours/rule", game="all_fours") raised TypeError "kernel() got multiple values for argument
    'game'", and load("random", game="bogus") was accepted. A registered agent now takes game= as the
    trained agents do: its own game (or, for random/lowest, any game) is accepted, another refused."""
    for name in ("all_fours/rule", "all_fours/random", "all_fours/pimc", "random", "lowest"):
        assert isinstance(cardzoo.load_agent(name, game="all_fours"), Agent)
    with pytest.raises(ValueError, match=re.escape("all_fours/rule plays all_fours; game='avinas' given (leave game= out, "
                                                   "or give game='all_fours')")):
        cardzoo.load_agent("all_fours/rule", game="avinas")
    with pytest.raises(ValueError, match=re.escape("game='bogus' is not a game; available games: ['all_fours', 'aluette', "
                                                   "'avinas', 'ottocento', 'pyanitsa'] (or leave game= out)")):
        cardzoo.load_agent("random", game="bogus")
    with pytest.raises(ValueError, match=re.escape("all_fours/pimc-bids searches the bids with rule-bot rollouts; search= is "
                                                   "not one of its parameters (['n_det', 'seed'])")):
        cardzoo.load_agent("all_fours/pimc-bids", search="phase")
    if importlib.util.find_spec("torch") is not None:  # avinas/ppo's wrapper passed game= on to kernel() too
        assert isinstance(cardzoo.load_agent("avinas/ppo", game="avinas"), Agent)


@pytest.mark.parametrize("value", ["abc", None, float("nan"), float("inf"), True])
def test_a_rule_bot_parameter_must_be_a_finite_number(value):
    """params={"kick_ev": "abc"} failed deep in numpy ("could not convert string to float"), None with a
    TypeError; NaN, inf and True were accepted. Now a ValueError naming the parameter."""
    with pytest.raises(ValueError, match=re.escape(f"rule-agent param kick_ev must be a finite number (default 0.55), got {value!r}")):
        cardzoo.load_agent("all_fours/rule", params={"kick_ev": value})
    assert cardzoo.load_agent("all_fours/rule", params={"kick_ev": np.float32(0.5)}).p["kick_ev"] == 0.5


def test_unseeded_sampling_policies_draw_differently():
    """Every unseeded sampling policy used seed 0, so two of them drew the same actions (RandomAgent(None)
    draws from fresh entropy). seed=None is fresh entropy now; a seed still fixes the draws."""
    pytest.importorskip("torch")
    obs, mask = _choice_positions("all_fours", {}, rows=1024)  # ~3 of 64 actions differ between two samplers: 1,024 rows
    assert len(mask) == 1024
    samplers = [cardzoo.load_agent("all_fours/ppo", **kw) for kw in ({}, {}, {"seed": 4}, {"seed": 4})]
    for s in samplers:
        s.deterministic = False
    a, b, c, d = (s.act(obs, mask) for s in samplers)
    assert not np.array_equal(a, b) and np.array_equal(c, d)


@pytest.mark.parametrize("game", envs.GAMES)
def test_a_policy_agent_acts_as_sb3_contribs_masked_distribution(game):
    """PolicyAgent.act computes the masked probabilities itself (no torch.distributions objects: most
    of a small batch's time) and asks the network only for rows with a choice when it plays the most
    likely action. Its actions must be sb3-contrib's: get_distribution(x, action_masks).mode(), and,
    sampling, multinomial draws from that distribution's probs with the same generator seed."""
    import torch

    agent = agents.load(f"{game}/ppo")
    while not hasattr(agent, "policy"):  # unwrap (e.g. Avinas' HonestCalls)
        agent = agent.agent
    k = envs.kernel(game, **dict(agent.meta.get("env_options") or {}))
    rng = np.random.default_rng(11)
    st = k.init(rng, 64)
    for _ in range(12):
        obs, mask = k.observe(st, st.current_player), k.legal_actions(st)
        x = torch.as_tensor(obs.astype(np.float32) * agent.scale)
        with torch.no_grad():
            dist = agent.policy.get_distribution(x, action_masks=mask)
            want = dist.mode().numpy()
            gen = torch.Generator().manual_seed(3)
            drawn = torch.multinomial(dist.distribution.probs, 1, generator=gen)[:, 0].numpy()
            assert torch.equal(agent._probs(x, mask), dist.distribution.probs)  # the same numbers
        got = agent.act(obs, mask)
        assert np.array_equal(got, want)
        agent.deterministic = False
        try:
            agent._gen.manual_seed(3)
            assert np.array_equal(agent.act(obs, mask), drawn)
        finally:
            agent.deterministic = True
        k.step(st, got, rng, active=~st.done)
        if st.done.all():
            break

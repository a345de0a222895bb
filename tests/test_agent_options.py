"""Agents used outside what they learned (issue 16, item 3): agent.json records the game options,
loading for others warns, play / arena / web table seat the rule bot unless told to insist."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from cardzoo import agents
from cardzoo.agents.options import LayoutMismatchError, OptionsMismatchWarning, option_differences
from cardzoo.training.cli import main
from cardzoo.training.common import default_agent, seat_agent
from cardzoo.training.play import play

SHIPPED = Path(agents.__file__).parent / "shipped"


def test_shipped_agent_json_records_every_game_option():
    from cardzoo import envs

    for f in sorted(SHIPPED.rglob("agent.json")):
        meta = json.loads(f.read_text())
        full = dict(envs.kernel(meta["game"]).options)
        assert sorted(meta["game_options"]) == sorted(full), f  # every option, defaults included
    af = json.loads((SHIPPED / "all_fours_ppo" / "agent.json").read_text())["game_options"]
    assert (af["undertrump"], af["episode"], af["target_score"], af["forbid_game_ending_give_one"]) == ("allowed", "hand", 14, False)
    py = json.loads((SHIPPED / "pyanitsa_ppo" / "agent.json").read_text())["game_options"]
    assert (py["collect_order"], py["objective"], py["num_players"], py["deck"]) == ("winner_chooses", "last_holder_loses", 2, 36)
    al = json.loads((SHIPPED / "aluette_ppo" / "agent.json").read_text())["game_options"]
    assert (al["signals"], al["signal_visibility"], al["chant"]) == ("truthful", "partner", True)
    av = json.loads((SHIPPED / "avinas_ppo" / "agent.json").read_text())["game_options"]
    assert av["honesty"] == "mask"


def test_loading_for_other_options_warns_naming_them():
    with pytest.warns(UserWarning, match=r"undertrump: trained 'allowed', here 'forbidden'") as rec:
        agents.load("all_fours/ppo", undertrump="forbidden")
    assert rec[0].message.differences == {"undertrump": ("allowed", "forbidden")}
    with pytest.warns(OptionsMismatchWarning, match="collect_order: trained 'winner_chooses', here 'winner_first'"):
        agents.load("pyanitsa/ppo", collect_order="winner_first")
    with pytest.warns(OptionsMismatchWarning, match="signals: trained 'truthful', here 'free'"):
        agents.load("aluette/ppo", signals="free")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agents.load("all_fours/ppo")  # as trained
        agents.load("all_fours/ppo", undertrump="allowed", first_dealer=2)  # the first dealer is not compared
        agents.load("avinas/ppo", honesty="penalize")  # HonestCalls makes this the problem it learned
        agents.load("pyanitsa/ppo", collect_order="winner_chooses")


def test_a_saved_agent_records_its_options_and_warns(tmp_path):
    import torch

    from cardzoo import envs
    from cardzoo.agents.policy import _build_policy, save_policy_agent

    k = envs.kernel("all_fours", episode="match")
    torch.manual_seed(0)
    policy = _build_policy(k.obs_layout.size, k.num_actions, [8], "relu")
    save_policy_agent(tmp_path / "a", policy, game="all_fours", env_options={"episode": "match"}, kernel=k, net_arch=[8], activation="relu")
    meta = json.loads((tmp_path / "a" / "agent.json").read_text())
    assert meta["game_options"]["episode"] == "match" and meta["game_options"]["undertrump"] == "allowed"
    with pytest.warns(OptionsMismatchWarning, match="episode: trained 'match', here 'hand'"):
        agents.load(str(tmp_path / "a"), episode="hand")
    agent = agents.load(str(tmp_path / "a"))
    assert option_differences(agent, "all_fours", {}) == {"episode": ("match", "hand")}
    assert option_differences(agent, "all_fours", {"episode": "match"}) == {}
    # seated by the arena / play machinery: the rule bot instead, or the agent when forced
    seated, name, note = seat_agent(str(tmp_path / "a"), "all_fours", {})
    assert name == "all_fours/rule" and type(seated).__name__ == "AllFoursRuleAgent"
    assert note == (f"{tmp_path / 'a'} was trained for other options (episode: trained 'match', here 'hand'); "
                    f"seating all_fours/rule instead (--force-agent seats {tmp_path / 'a'} anyway)")
    with pytest.warns(OptionsMismatchWarning):
        seated, name, note = seat_agent(str(tmp_path / "a"), "all_fours", {}, force=True)
    assert name == str(tmp_path / "a") and seated.meta["game"] == "all_fours" and note.startswith("seating ")


def test_default_agent_is_the_shipped_one_only_where_it_learned():
    assert default_agent("all_fours", {}) == ("all_fours/ppo", None)
    name, note = default_agent("all_fours", {"undertrump": "forbidden"})
    assert name == "all_fours/rule" and "undertrump: trained 'allowed', here 'forbidden'" in note
    name, note = default_agent("pyanitsa", {})  # the shipped agent learned winner_chooses only
    assert name == "pyanitsa/rule" and "collect_order" in note
    assert default_agent("pyanitsa", {"collect_order": "winner_chooses"}) == ("pyanitsa/ppo", None)
    assert default_agent("avinas", {}) == ("avinas/ppo", None)
    # --force-agent: the shipped agent is seated although its recorded options differ, and the note says so
    name, note = default_agent("pyanitsa", {}, force=True)
    assert name == "pyanitsa/ppo" and note.endswith("seated anyway (--force-agent)")
    assert "--force-agent seats it anyway" in default_agent("pyanitsa", {})[1]


def test_terminal_play_seats_the_rule_bot_unless_forced():
    said = []
    answers = iter(["q"])
    play("all_fours", "all_fours/ppo", "all_fours/ppo", seed=1, env_options={"undertrump": "forbidden"},
         read=lambda p: next(answers), write=said.append)
    assert said[0].startswith("note: all_fours/ppo was trained for other options (undertrump: trained 'allowed', here 'forbidden')")
    assert said[1].endswith("partner player_2 = all_fours/rule; opponents = all_fours/rule.")
    said.clear()
    answers = iter(["q"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", OptionsMismatchWarning)  # the note says it: no warning repeats it
        play("all_fours", "all_fours/ppo", "all_fours/ppo", seed=1, env_options={"undertrump": "forbidden"},
             read=lambda p: next(answers), write=said.append, force_agent=True)
    assert said[0].startswith("note: seating all_fours/ppo although")
    assert said[1].endswith("partner player_2 = all_fours/ppo; opponents = all_fours/ppo.")


def test_arena_seats_the_rule_bot_unless_forced(tmp_path, capsys):
    out = tmp_path / "a.json"
    argv = ["arena", "all_fours", "all_fours/ppo", "random", "--deals", "3", "-o", "undertrump=forbidden", "--json", str(out)]
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert "note: all_fours/ppo was trained for other options" in said and "seating all_fours/rule instead" in said
    assert json.loads(out.read_text())["agent_a"] == "all_fours/rule (for all_fours/ppo)"
    with warnings.catch_warnings():
        warnings.simplefilter("error", OptionsMismatchWarning)  # the note says it: no warning repeats it
        assert main(argv + ["--force-agent", "--overwrite"]) == 0  # the same --json file: replaced only when asked
    assert capsys.readouterr().out.count("trained for other options") == 1
    assert json.loads(out.read_text())["agent_a"] == "all_fours/ppo"


def test_an_agent_that_cannot_read_the_observation_falls_back_or_fails_clearly(tmp_path, capsys):
    """Options that change the observation (a 52-card pack, another player count): the arena seats
    the rule bot, naming what differs, for the shipped name and for a path alike; --force-agent
    cannot seat such an agent and says why (exit 2, one line), instead of failing on a shape later."""
    opts = ["-o", "num_players=3", "-o", "collect_order=winner_chooses"]
    for name in ("pyanitsa/ppo", str(SHIPPED / "pyanitsa_ppo_3p")):
        assert main(["arena", "pyanitsa", name, "random", "--deals", "2", *opts, "-o", "deck=52"]) == 0
        said = capsys.readouterr().out
        assert f"note: {name} was trained for other options (deck: trained 36, here 52) and cannot play these" in said
        assert "seating pyanitsa/rule instead" in said and "--force-agent" not in said
    assert main(["arena", "pyanitsa", "pyanitsa/ppo", "random", "--deals", "2", *opts, "-o", "deck=52", "--force-agent"]) == 2
    err = capsys.readouterr().err
    assert "pyanitsa/ppo (agents/shipped/pyanitsa_ppo_3p) was trained for other pyanitsa options (deck: trained 36, here 52)" in err
    assert "it cannot play them" in err
    assert main(["arena", "pyanitsa", str(SHIPPED / "pyanitsa_ppo_3p"), "random", "--deals", "2", "-o", "num_players=4",
                 "-o", "collect_order=winner_chooses", "--force-agent"]) == 2
    assert "(num_players: trained 3, here 4), which give another observation" in capsys.readouterr().err
    with pytest.raises(LayoutMismatchError, match="num_players: trained 3, here 4"):
        seat_agent(str(SHIPPED / "pyanitsa_ppo_3p"), "pyanitsa", {"num_players": 4, "collect_order": "winner_chooses"}, force=True)


def test_web_table_never_seats_an_agent_that_cannot_read_the_observation(tmp_path):
    """The web table as play and arena: a shipped name or an agents_dir folder whose observation these
    options change is replaced by the rule bot; with force_agent the request is refused (400), not
    accepted and failing on the first move."""
    import shutil

    from cardzoo.training.web.tables import CannotPlay, TableManager

    shutil.copytree(SHIPPED / "pyanitsa_ppo_3p" / "previous", tmp_path / "py3")
    t = TableManager(agents_dir=str(tmp_path))
    three = {"num_players": 3, "collect_order": "winner_chooses"}
    for name, opts in (("pyanitsa/ppo", {**three, "deck": 52}), ("local:py3", {**three, "num_players": 4}),
                       ("local:py3", {**three, "deck": 52})):
        table = t.create("pyanitsa", opponents=name, options=opts)
        assert {v[0] for v in table.seat_agents.values()} == {"pyanitsa/rule"}, (name, opts)
        with pytest.raises(CannotPlay, match="cannot play them") as e:
            t.create("pyanitsa", opponents=name, options=opts, force_agent=True)
        assert e.value.status == 400
    table = t.create("pyanitsa", opponents="local:py3", options=three)  # the options it was trained for
    assert {v[0] for v in table.seat_agents.values()} == {"local:py3"}


def test_web_table_seats_the_rule_bot_unless_forced():
    from cardzoo.training.web.tables import TableManager

    m = TableManager()
    assert m.default_agent("pyanitsa", {"num_players": 2}) == "pyanitsa/rule"
    t = m.create("all_fours", opponents="all_fours/ppo", partner="all_fours/ppo", seed=3, options={"undertrump": "forbidden"})
    assert {s: v[0] for s, v in t.seat_agents.items()} == {1: "all_fours/rule", 2: "all_fours/rule", 3: "all_fours/rule"}
    t = m.create("all_fours", opponents="all_fours/ppo", seed=3, options={"undertrump": "forbidden"}, force_agent=True)
    assert t.seat_agents[1][0] == "all_fours/ppo"
    t = m.create("all_fours", seed=3, options={"undertrump": "forbidden"})  # the default is the rule bot there
    assert t.seat_agents[1][0] == "all_fours/rule"


def test_seat_decision_is_the_one_rule_of_play_arena_and_web():
    """agents.options.seat_decision: fits -> seated; options differ -> rule bot unless force; cannot
    read the observation -> rule bot, with force (or for the default AI) the error; the caller's
    load errors pass through; notes worded for a named agent or for the default AI."""
    from types import SimpleNamespace

    from cardzoo.agents.options import Seating, seat_decision

    trained = SimpleNamespace(meta={"game": "all_fours", "env_options": {"undertrump": "forbidden"}})
    diff = "undertrump: trained 'forbidden', here 'allowed'"
    assert seat_decision(lambda: trained, "x", "all_fours", {"undertrump": "forbidden"}) == Seating("x", trained, None)
    assert seat_decision(lambda: trained, "x", "all_fours", {}) == Seating(
        "all_fours/rule", None, f"x was trained for other options ({diff}); seating all_fours/rule instead (--force-agent seats x anyway)")
    assert seat_decision(lambda: trained, "x", "all_fours", {}, force=True) == Seating(
        "x", trained, f"seating x although it was trained for other options ({diff})")
    assert seat_decision(lambda: trained, "x", "all_fours", {}, default=True) == Seating(
        "all_fours/rule", None, f"x was trained for other options ({diff}; --force-agent seats it anyway)")
    assert seat_decision(lambda: trained, "x", "all_fours", {}, force=True, default=True) == Seating(
        "x", trained, f"x was trained for other options ({diff}); seated anyway (--force-agent)")
    rule_bot = agents.load("all_fours/rule")  # no training metadata: always fits
    assert seat_decision(lambda: rule_bot, "all_fours/rule", "all_fours", {"undertrump": "forbidden"}) == (
        "all_fours/rule", rule_bot, None)

    def cannot_read():
        raise LayoutMismatchError("cannot play them", {"deck": (36, 52)})

    assert seat_decision(cannot_read, "y", "pyanitsa", {"deck": 52}) == Seating(
        "pyanitsa/rule", None, "y was trained for other options (deck: trained 36, here 52) and cannot play these; seating pyanitsa/rule instead")
    for kw in ({"force": True}, {"default": True}):
        with pytest.raises(LayoutMismatchError, match="cannot play them"):
            seat_decision(cannot_read, "y", "pyanitsa", {"deck": 52}, **kw)
    # an agent loaded without options (a saved folder) whose layout is not these options' one: checked after loading
    stale = SimpleNamespace(meta={"game": "all_fours", "env_options": {}, "obs_layout_version": "v0"})
    assert seat_decision(lambda: stale, "z", "all_fours", {}) == Seating(
        "all_fours/rule", None, "z was trained for other options (another observation layout) and cannot play these; "
                                "seating all_fours/rule instead")
    with pytest.raises(LayoutMismatchError, match=r"layout v0; these options: "):
        seat_decision(lambda: stale, "z", "all_fours", {}, force=True)

    def missing():
        raise FileNotFoundError("no agent.json in nowhere")

    with pytest.raises(FileNotFoundError, match="no agent.json"):  # the caller's own errors, untouched
        seat_decision(missing, "nowhere", "all_fours", {})


def test_the_default_ai_honours_force_agent_in_the_cli_and_the_web_alike():
    """No agent named: the default AI is the shipped agent where it learned these options, else the
    rule bot; force_agent seats the shipped agent where only its recorded options differ (the CLI's
    --force-agent and the web's force_agent alike), never where it cannot read the observation."""
    from cardzoo.training.web.tables import TableManager

    m = TableManager()
    assert default_agent("pyanitsa", {"num_players": 2})[0] == m.default_agent("pyanitsa", {"num_players": 2}) == "pyanitsa/rule"
    assert default_agent("pyanitsa", {"num_players": 2}, force=True)[0] == "pyanitsa/ppo"
    assert m.default_agent("pyanitsa", {"num_players": 2}, force=True) == "pyanitsa/ppo"
    t = m.create("pyanitsa", seed=1, force_agent=True)  # collect_order differs from what pyanitsa/ppo learned
    assert t.seat_agents[1][0] == "pyanitsa/ppo"
    t = m.create("pyanitsa", seed=1)
    assert t.seat_agents[1][0] == "pyanitsa/rule"
    # another observation (a 52-card pack): the rule bot even with force, in both, as for an agent that fails to load
    opts = {"num_players": 2, "collect_order": "winner_chooses", "deck": 52}
    name, note = default_agent("pyanitsa", opts, force=True)
    assert name == "pyanitsa/rule" and note.startswith("pyanitsa/ppo does not fit these options (") and "deck: trained 36, here 52" in note
    assert m.default_agent("pyanitsa", opts, force=True) == "pyanitsa/rule"
    t = m.create("pyanitsa", seed=1, options=opts, force_agent=True)
    assert {v[0] for v in t.seat_agents.values()} == {"pyanitsa/rule"}


def test_the_web_hint_comes_from_the_tables_default_ai_force_agent_included():
    """TableManager.hint asks the agent the table's default seats got: on a table opened with
    force_agent where the shipped agent learned other options, the shipped agent (not the rule bot)."""
    from cardzoo.training.web.tables import TableManager

    m = TableManager()
    asked = []
    load = m._agent

    def spy(game, name, options, seed):
        asked.append(name)
        return load(game, name, options, seed)

    m._agent = spy
    for force, seated in ((True, "pyanitsa/ppo"), (False, "pyanitsa/rule")):  # collect_order differs from what it learned
        t = m.create("pyanitsa", seed=1, force_agent=force)
        assert t.force_agent is force and t.seat_agents[1][0] == seated
        asked.clear()
        with t.lock:
            a = m.hint(t)
        assert asked == [seated] and a in t.env.legal_actions()


def test_cardzoo_play_says_once_that_the_default_ai_was_forced(monkeypatch, capsys):
    """cardzoo play pyanitsa -o num_players=3 --force-agent: the default AI learned other options and
    is seated all the same; one line says so (the default-AI note, naming --force-agent), not that
    note, an OptionsMismatchWarning per seat and the seating note. Loading the agent directly still warns."""
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    with warnings.catch_warnings():
        warnings.simplefilter("error", OptionsMismatchWarning)
        assert main(["play", "pyanitsa", "-o", "num_players=3", "--force-agent", "--seed", "1"]) == 0
    out = capsys.readouterr()
    assert out.out.count("trained for other options") == 1 and "OptionsMismatchWarning" not in out.err
    assert out.out.startswith("note: pyanitsa/ppo was trained for other options (collect_order: trained 'winner_chooses', "
                              "here 'winner_first'); seated anyway (--force-agent); playing with pyanitsa/ppo\n")
    assert "the others are played by pyanitsa/ppo." in out.out
    # named rather than the default: the seating note, once, and no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", OptionsMismatchWarning)
        assert main(["play", "pyanitsa", "-o", "num_players=3", "--opponents", "pyanitsa/ppo", "--force-agent", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("trained for other options") == 1 and out.startswith("note: seating pyanitsa/ppo although")
    with pytest.warns(OptionsMismatchWarning, match="collect_order: trained 'winner_chooses', here 'winner_first'"):
        agents.load("pyanitsa/ppo", num_players=3)


def test_cardzoo_play_says_once_that_the_shipped_agent_does_not_fit(monkeypatch, capsys):
    """cardzoo play all_fours -o episode=match --opponents all_fours/ppo: the default partner (the shipped
    agent) and the named opponents (the same agent) both fall back to the rule bot; two notes, worded
    differently, said the same thing. One says it; the table line names who plays where."""
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    assert main(["play", "all_fours", "-o", "episode=match", "--opponents", "all_fours/ppo", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("trained for other options") == 1
    assert out.startswith("note: all_fours/ppo was trained for other options (episode: trained 'hand', here 'match'; "
                          "--force-agent seats it anyway); playing with all_fours/rule\n")
    assert "partner player_2 = all_fours/rule; opponents = all_fours/rule." in out


def test_a_misspelt_agent_parameter_is_told_the_agents_parameters_and_the_games_options():
    """load_agent("avinas/pimc", n_dets=8) said "unknown option(s) ['n_dets']; valid options: [...]" listing
    only the Avinas options, though n_det, search and seed are valid too: the message now lists the agent's
    parameters (from its factory's signature, and the rule bot class a factory passes its keywords to)
    apart from the game's options, and names a close match."""
    import cardzoo
    from cardzoo import envs

    avinas = sorted(envs.kernel_class("avinas").OPTIONS)
    with pytest.raises(ValueError) as e:
        cardzoo.load_agent("avinas/pimc", n_dets=8)
    assert str(e.value) == (f"unknown option(s) ['n_dets'] for avinas/pimc (did you mean 'n_det'?); "
                            f"agent parameters: ['n_det', 'search', 'seed']; game options: {avinas}")
    all_fours = sorted(envs.kernel_class("all_fours").OPTIONS)
    with pytest.raises(ValueError) as e:
        cardzoo.load_agent("all_fours/pimc", n_dets=8, colour=1)
    assert str(e.value) == (f"unknown option(s) ['colour', 'n_dets'] for all_fours/pimc (did you mean 'n_det' for 'n_dets'?); "
                            f"agent parameters: ['n_det', 'rollout_opponents', 'search', 'seed']; game options: {all_fours}")
    with pytest.raises(ValueError) as e:  # the rule bot's own parameters come from its class (the factory takes **options)
        cardzoo.load_agent("all_fours/rule", bogus=1)
    assert str(e.value) == f"unknown option(s) ['bogus'] for all_fours/rule; agent parameters: ['params', 'rollout_opponents']; game options: {all_fours}"
    pyanitsa = sorted(envs.kernel_class("pyanitsa").OPTIONS)
    with pytest.raises(ValueError) as e:  # the rule bot's parameters are not the search's, which plays the rule bot inside
        cardzoo.load_agent("pyanitsa/pimc", direction="weak_first")
    assert str(e.value) == f"unknown option(s) ['direction'] for pyanitsa/pimc; agent parameters: ['n_det', 'rollout_opponents', 'search', 'seed']; game options: {pyanitsa}"
    with pytest.raises(ValueError) as e:  # a shipped agent keeps its own wording in front
        cardzoo.load_agent("avinas/ppo", sed=1)
    assert str(e.value) == ("the shipped agent avinas/ppo (agents/shipped/avinas_ppo) plays avinas, and these are not valid avinas "
                            f"options: unknown option(s) ['sed'] for avinas/ppo (did you mean 'seed'?); agent parameters: ['seed']; "
                            f"game options: {avinas}")
    # the agents' parameters as listed; a listed one builds the agent, and a bad game option value keeps its own message
    from cardzoo.agents.registry import agent_parameters

    assert agent_parameters("avinas/ismcts") == ["c", "guided", "n_iter", "others", "search", "seed", "shared", "wave", "widen"]
    assert agent_parameters("pyanitsa/rule") == ["direction", "rank_order", "rollout_opponents"]
    assert agent_parameters("ottocento/rule") == ["declare", "params"]
    assert agent_parameters("lowest") == [] and agent_parameters("no/such") is None
    assert cardzoo.load_agent("avinas/pimc", n_det=2, search="all", seed=1).search.n_det == 2
    with pytest.raises(ValueError, match="undertrump='x' is not valid"):
        cardzoo.load_agent("all_fours/rule", undertrump="x")


# ----------------------------------------------------------------------------- observation options
def _history_agent(path):
    """A small untrained P'yanitsa policy saved as trained with ``observe_history=True``."""
    import torch

    from cardzoo import envs
    from cardzoo.agents.policy import _build_policy, save_policy_agent

    opts = {"collect_order": "winner_chooses", "observe_history": True}
    k = envs.kernel("pyanitsa", **opts)
    torch.manual_seed(3)
    policy = _build_policy(k.obs_layout.size, k.num_actions, [16], "relu")
    save_policy_agent(path, policy, game="pyanitsa", env_options=opts, kernel=k, net_arch=[16], activation="relu")
    return str(path)


def test_an_agent_trained_with_other_observation_options_observes_the_game_itself(tmp_path):
    """P'yanitsa's ``observe_history`` changes only what a seat is shown (``OBSERVATION_OPTIONS``): an
    agent trained with it is seated at a game without it (not the rule bot), reads the game state and
    observes it through a kernel of its own options, so it plays exactly as in a game with the option:
    the same duplicate results to the last digit, and in each state the action its own observation
    gives. The shipped agent, trained without it, is seated at a game with it the same way."""
    from cardzoo import envs
    from cardzoo.training.arena import play_duplicate

    path = _history_agent(tmp_path / "h")
    base = {"collect_order": "winner_chooses"}
    with_history = {**base, "observe_history": True}
    seated, name, note = seat_agent(path, "pyanitsa", base)
    assert (name, note, seated.needs_state) == (path, None, True)
    assert option_differences(seated, "pyanitsa", base) == {}
    assert option_differences(seated, "pyanitsa", {**base, "objective": "first_out_loses"}) == {
        "objective": ("last_holder_loses", "first_out_loses")}
    fitting, _, _ = seat_agent(path, "pyanitsa", with_history)
    assert fitting.needs_state is False  # it reads the observation it is given

    # in each state: the action of its own observation, which the game's own observation could not give
    k, kh = envs.kernel("pyanitsa", **base), envs.kernel("pyanitsa", **with_history)
    rng = np.random.default_rng(5)
    st = k.init(rng, 64)
    rows = 0
    for _ in range(400):
        mask = k.legal_actions(st)
        choice = (mask.sum(axis=1) > 1) & ~st.done
        if choice.any():
            sub = st.take(np.flatnonzero(choice))
            want = fitting.act(kh.observe(sub, sub.current_player), kh.legal_actions(sub))
            assert np.array_equal(seated.act_state(sub), want)
            rows += int(choice.sum())
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        k.step(st, acts, rng)
    assert rows > 300
    assert k.obs_layout.size == 195 and kh.obs_layout.size == 267

    def result(agent, options):
        r = play_duplicate("pyanitsa", agent, agents.load("pyanitsa/rule", **options), 60, seed=41, env_options=options)
        return r.mean_diff, r.win_rate

    assert result(seated, base) == result(fitting, with_history)
    shipped, name, note = seat_agent("pyanitsa/ppo", "pyanitsa", with_history)
    assert (name, note, shipped.needs_state) == ("pyanitsa/ppo", None, True)
    assert result(shipped, with_history) == result(agents.load("pyanitsa/ppo", **base), base)


def test_observing_itself_does_not_seat_an_agent_under_other_rules(tmp_path):
    """Only observation options are bridged: the history agent at a game of other rules (another
    objective) is still replaced by the rule bot, naming the rule that differs."""
    path = _history_agent(tmp_path / "h")
    seated, name, note = seat_agent(path, "pyanitsa", {"collect_order": "winner_chooses", "objective": "first_out_loses"})
    assert name == "pyanitsa/rule" and "objective: trained 'last_holder_loses', here 'first_out_loses'" in note


def test_a_forced_agent_observes_with_the_tables_rules_and_its_own_observation_options(tmp_path, capsys):
    """An agent trained under other rules (collect_order="winner_first") and with the history, forced
    to a "winner_chooses" table without it, observes through the table's rules with its own
    observe_history: at such a table whose order inside a pot is hidden it is not shown where a
    remembered card lies inside its stretch (only its stretch), and it plays exactly as at the same
    table with the option on."""
    import torch

    from cardzoo import envs
    from cardzoo.agents.policy import _build_policy, save_policy_agent
    from cardzoo.training.arena import play_duplicate

    trained = {"collect_order": "winner_first", "observe_history": True}
    k = envs.kernel("pyanitsa", **trained)
    torch.manual_seed(4)
    save_policy_agent(tmp_path / "wf", _build_policy(k.obs_layout.size, k.num_actions, [16], "relu"), game="pyanitsa",
                      env_options=trained, kernel=k, net_arch=[16], activation="relu")
    table = {"collect_order": "winner_chooses", "tie_mode": "down_up"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptionsMismatchWarning)
        forced, _, note = seat_agent(str(tmp_path / "wf"), "pyanitsa", table, force=True)
        with_option, _, _ = seat_agent(str(tmp_path / "wf"), "pyanitsa", {**table, "observe_history": True}, force=True)
    assert note.startswith("seating ") and "collect_order: trained 'winner_first', here 'winner_chooses'" in note
    assert forced.observes_with.options == {**envs.kernel("pyanitsa", **table).options, "observe_history": True}
    assert with_option.observes_with is None

    def result(agent, options):
        r = play_duplicate("pyanitsa", agent, agents.load("pyanitsa/rule", **options), 60, seed=3, env_options=options)
        return r.mean_diff, r.win_rate

    assert result(forced, table) == result(with_option, {**table, "observe_history": True})
    # the same object at a table of its own layout acts on the observations given there again, then at
    # another table observes through that table's rules: as a fresh object does
    fresh = agents.load(str(tmp_path / "wf"))
    own = {"collect_order": "winner_chooses", "observe_history": True}
    assert result(forced, own) == result(fresh, own) and forced.observes_with is None
    assert result(forced, table) == result(fresh, table)
    assert forced.observes_with.options == fresh.observes_with.options != envs.kernel("pyanitsa", **trained).options


def test_an_agent_saved_before_the_option_existed_is_bridged_as_trained_without_it(tmp_path):
    """An agent.json written before observe_history existed does not record it: it was trained
    without it (the default), so at a table with the history it observes the game itself."""
    import shutil

    old = tmp_path / "old"
    shutil.copytree(SHIPPED / "pyanitsa_ppo", old, ignore=shutil.ignore_patterns("exploiter"))
    meta = json.loads((old / "agent.json").read_text())
    del meta["game_options"]["observe_history"]
    (old / "agent.json").write_text(json.dumps(meta))
    seated, name, note = seat_agent(str(old), "pyanitsa", {"collect_order": "winner_chooses", "observe_history": True})
    assert (name, note, seated.needs_state) == (str(old), None, True)
    assert seated.observes_with.options["observe_history"] is False


def test_commands_that_need_observations_say_why_an_agent_reads_the_state(tmp_path, capsys):
    """The shipped agent at a table with the history observes the game itself; where it must act on
    observations (a behaviour-cloning teacher, a labelling opponent) the refusal says so, naming the
    option, not "search"; a wrapper around a search agent says it cannot play from the state."""
    from cardzoo.agents.skip_forced import SkipForced
    from cardzoo.training.expert import label_positions

    opts = ["-o", "collect_order=winner_chooses", "-o", "observe_history=true"]
    assert main(["train", "pyanitsa", "--out", str(tmp_path / "t"), *opts, "--bc-teacher", "pyanitsa/ppo", "--steps", "64"]) == 2
    assert ("--bc-teacher 'pyanitsa/ppo' was trained with other observation options (observe_history: trained False, "
            "here True): it observes the game itself from the game state, not from observations, so its games cannot "
            "be cloned") in capsys.readouterr().err
    capsys.readouterr()
    path = str(SHIPPED / "pyanitsa_ppo")  # the same agent named by its folder
    assert main(["train", "pyanitsa", "--out", str(tmp_path / "t2"), *opts, "--bc-teacher", path, "--steps", "64"]) == 2
    assert (f"--bc-teacher {path!r} was trained with other observation options (observe_history: trained False, "
            f"here True)") in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"opponent agent '.*pyanitsa_ppo' was trained with other observation options"):
        label_positions("pyanitsa", _history_agent(tmp_path / "h2"), 1, tmp_path / "l2.npz", opponent=path, progress=False)
    with pytest.raises(ValueError, match=r"opponent agent 'pyanitsa/ppo' was trained with other observation options "
                                         r"\(observe_history: trained False, here True\)"):
        label_positions("pyanitsa", _history_agent(tmp_path / "h"), 1, tmp_path / "l.npz", opponent="pyanitsa/ppo", progress=False)
    wrapped = SkipForced(agents.load("pyanitsa/pimc"))
    from cardzoo import envs

    st = envs.kernel("pyanitsa").init(np.random.default_rng(0), 1)
    with pytest.raises(TypeError, match="a wrapper plays from observations, and the agent it wraps searches the game state"):
        wrapped.act_state(st)

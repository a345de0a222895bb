"""The cardzoo command line and terminal play (through their Python entry points)."""

from __future__ import annotations

import json
import os
import re

import pytest

from cardzoo.training.cli import main
from cardzoo.training.play import play


def test_bench_prints_a_table(capsys):
    argv = ["bench", "all_fours", "--seconds", "0.2", "--rounds", "1", "--batch", "1", "64", "--markdown",
            "--skip", "first-use", "pimc"]  # those two: tests/test_bench.py (slow)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "agent-steps/s" in out and "PettingZoo AEC loop" in out and "batched kernel" in out
    assert "state bytes/game" in out and "| all_fours | 64 |" in out


def test_demo_plays_a_hand(capsys):
    assert main(["demo", "all_fours", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "All Fours" in out and "returns:" in out


def test_arena_writes_json(tmp_path, capsys):
    out = tmp_path / "a.json"
    assert main(["arena", "all_fours", "all_fours/rule", "random", "--deals", "150", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["agent_a"] == "all_fours/rule" and res["n_hands"] == 300
    assert res["mean_diff"] > 0 and res["diff_ci"][0] < res["mean_diff"] < res["diff_ci"][1]


def test_arena_table_in_a_pipe_keeps_whole_agent_names(capsys):
    # stdout is not a terminal here: rich would assume 80 columns and cut the names to "all_fours/ra…"
    assert main(["arena", "all_fours", "all_fours/rule", "all_fours/random", "--deals", "4", "--seed", "1"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "all_fours/rule" in line and "│" in line)
    assert "all_fours/random" in row and "…" not in row


def test_arena_unknown_agent_is_a_clear_error(capsys):
    assert main(["arena", "all_fours", "all_fours/rule", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "nobody" in err and "all_fours/rule" in err


def test_bad_env_option_is_a_clear_error(capsys):
    assert main(["demo", "all_fours", "-o", "undertrump=sometimes"]) == 2
    err = capsys.readouterr().err
    assert "undertrump" in err and "allowed" in err


def test_missing_checkpoint_path_is_named(tmp_path, capsys):
    missing = tmp_path / "gone.zip"
    assert main(["train", "all_fours", "--resume", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err
    assert main(["train", "all_fours", "--privileged-critic", "--init-from", str(tmp_path / "no_agent")]) == 2
    assert str(tmp_path / "no_agent") in capsys.readouterr().err


def test_terminal_play_rejects_bad_input_and_finishes():
    said = []
    answers = iter(["hello", "99", "STAND_UP"])

    def read(prompt):
        try:
            return next(answers)
        except StopIteration:
            return "0"  # then always the first legal move

    returns = play("all_fours", "all_fours/rule", "all_fours/rule", seed=5, read=read, write=said.append)
    text = "\n".join(said)
    assert "'hello' is not a move" in text and "'99' is not a move" in text and "'STAND_UP' is not a move" in text
    assert "your legal moves:" in text and "hand over" in text
    assert returns is not None and returns["player_0"] == returns["player_2"] == -returns["player_1"]
    assert "player_1 plays" in text


def _seed_where_player0_decides_first():
    from cardzoo import envs

    for seed in range(100):
        env = envs.make("all_fours")
        env.reset(seed=seed)
        if env.agent_selection == "player_0":
            assert [env.action_name(a) for a in env.legal_actions()] == ["STAND", "BEG"]
            return seed
    raise AssertionError("no seed with player_0 as beggar in 100 tries")


def test_terminal_play_illegal_card_and_quit():
    seed = _seed_where_player0_decides_first()
    said = []
    answers = iter(["2C", "q"])
    assert play("all_fours", "all_fours/rule", "random", seed=seed, read=lambda p: next(answers), write=said.append) is None
    text = "\n".join(said)
    assert "2C is not legal now. Legal: STAND, BEG (q quits). ? shows help." in text
    assert text.rstrip().endswith("bye")


def test_play_refuses_unknown_agent():
    with pytest.raises(ValueError, match="unknown agent"):
        play("all_fours", "nobody", "random", read=lambda p: "q", write=lambda s: None)


def test_an_unknown_agent_lists_the_games_agents_only(capsys):
    """`cardzoo arena all_fours rule random` listed every game's agents (about 28 names) as the valid ones;
    the game is known, so the list holds its agents and the game-less ones."""
    from cardzoo import agents

    assert main(["arena", "all_fours", "rule", "random", "--deals", "2"]) == 2
    mine = [a for a in agents.available() if a.startswith("all_fours/") or "/" not in a]
    assert "all_fours/rule" in mine and "lowest" in mine and not any(a.startswith("avinas/") for a in mine)
    assert capsys.readouterr().err == (f"cardzoo arena: error: unknown agent 'rule'; agents for all_fours: {mine}, "
                                       "or the path of a saved policy\n")
    # a path that does not exist: the same list, not every game's
    assert main(["arena", "all_fours", "./nope", "random", "--deals", "2"]) == 2
    assert capsys.readouterr().err == (f"cardzoo arena: error: no agent file or folder at './nope' (and no registered "
                                       f"agent of that name; agents for all_fours: {mine})\n")
    # another game's agent: the same list (it listed every game's agents, avinas' and ottocento's among them)
    assert main(["arena", "all_fours", "avinas/rule", "random", "--deals", "2"]) == 2
    assert capsys.readouterr().err == (f"cardzoo arena: error: agent 'avinas/rule' plays avinas, not all_fours; use an "
                                       f"agent of all_fours: {mine}\n")


def test_play_refuses_a_partner_where_everyone_plays_alone_before_loading(monkeypatch):
    """play() refuses a partner in P'yanitsa (no partnerships) as cardzoo play --partner and the web
    do (common.check_partner), before any agent is loaded; a team game needs one."""
    from cardzoo.training import play as play_module

    def no_loading(*a, **k):
        raise AssertionError("an agent was loaded")

    monkeypatch.setattr(play_module, "seat_agent", no_loading)
    with pytest.raises(ValueError) as e:
        play("pyanitsa", "pyanitsa/rule", "pyanitsa/rule", read=lambda p: "q", write=lambda s: None)
    assert str(e.value) == "partner is for partnership games; in pyanitsa every player plays alone: use opponents"
    with pytest.raises(ValueError, match=r"all_fours is a partnership game: name the partner agent \(e.g. all_fours/rule\)"):
        play("all_fours", None, "random", read=lambda p: "q", write=lambda s: None)
    monkeypatch.undo()
    said = []
    assert play("pyanitsa", None, "random", seed=1, read=lambda p: "q", write=said.append) is None
    assert said[0].startswith("You are player_0 of 2 players, each for themselves; the others are played by random.")


@pytest.mark.parametrize("argv, words", [
    (["bench", "all_fours", "--batch", "0"], ["--batch", ">= 1"]),
    (["bench", "all_fours", "--seconds", "nan"], ["--seconds", "positive"]),
    (["arena", "all_fours", "random", "random", "--deals", "-3"], ["--deals"]),
    (["arena", "all_fours", "random", "random", "--json", "/nonexistent/dir/x.json"], ["/nonexistent/dir/x.json"]),
    (["train", "all_fours", "--lr", "-1"], ["--lr must be a finite number > 0, got -1.0"]),  # the flag typed, not the field learning_rate
    (["train", "all_fours", "--clip-range", "2"], ["--clip-range must be a finite number > 0 and <= 1, got 2.0"]),
    (["train", "all_fours", "--ent-coef", "-0.1"], ["--ent-coef must be", ">= 0"]),
    (["train", "all_fours", "--torch-threads", "0"], ["--torch-threads must be"]),
    # label named its Python parameters ("n_games and batch must be >= 1")
    (["label", "all_fours", "x.npz", "--games", "0"], ["cardzoo label: error: --games must be >= 1, got 0"]),
    (["label", "all_fours", "x.npz", "--batch", "-2"], ["cardzoo label: error: --batch must be >= 1, got -2"]),
    (["label", "all_fours", "x.npz", "--n-det", "0"], ["cardzoo label: error: --n-det must be >= 1, got 0"]),
    (["play", "pyanitsa", "--partner", "pyanitsa/rule"], ["--partner is for partnership games", "use --opponents"]),
])
def test_cli_rejects_bad_arguments_up_front(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    for w in words:
        assert w in err


def test_every_seed_flag_says_a_seed_is_a_non_negative_integer(capsys):
    """cardzoo play GAME --seed -3 printed numpy's "expected non-negative integer": every --seed of every
    command is read by one argparse type (common.seed_arg), which names the flag and the value."""
    import argparse

    from cardzoo.training.cli import build_parser
    from cardzoo.training.common import seed_arg

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    seeded = {name: next(a for a in cmd._actions if "--seed" in a.option_strings)
              for name, cmd in sub.choices.items() if "--seed" in cmd._option_string_actions}
    assert {"play", "arena", "train", "demo", "label", "distil"} <= set(seeded)
    for name, action in seeded.items():
        assert action.type is seed_arg, name
        for value, shown in (("-3", "-3"), ("x", "'x'"), ("1.5", "'1.5'")):
            with pytest.raises(SystemExit) as exit_:
                main([name, "--seed", value])
            assert exit_.value.code == 2
            err = capsys.readouterr().err
            assert err.endswith(f"cardzoo {name}: error: argument --seed: must be a non-negative integer, got {shown}\n"), (name, err)
        # too large: play, arena, leaderboard and label failed with torch's "Overflow when unpacking long long" (a trained
        # agent seeded past 2**63 - 1), train and exploit with "Seed must be between 0 and 2**32 - 1"
        with pytest.raises(SystemExit) as exit_:
            main([name, "--seed", "4294967296"])
        assert exit_.value.code == 2
        assert capsys.readouterr().err.endswith(f"cardzoo {name}: error: argument --seed: must be at most 4294967295 (2**32 - 1, "
                                                "the seeds SB3 and torch take), got 4294967296\n"), name
    assert seed_arg("4294967295") == 4294967295
    assert build_parser().parse_args(["demo", "all_fours", "--seed", "07"]).seed == 7


def test_terminal_play_announces_trick_winners():
    said = []
    play("all_fours", "all_fours/rule", "all_fours/rule", seed=3, read=lambda p: "0", write=said.append)
    wins = [x for x in said if x.startswith("-- trick ")]
    assert len(wins) in (6, 9, 12) and wins[0].startswith("-- trick 1 won by player_")


def test_train_flags_default_to_the_train_config():
    """Every train flag's default is read from TrainConfig (training/config.py, no SB3 import): they agree."""
    from cardzoo.training.cli import build_parser
    from cardzoo.training.config import TrainConfig

    args = build_parser().parse_args(["train", "aluette"])
    d = TrainConfig()
    got = (args.n_steps, args.batch_size, args.lr, args.clip_range, args.ent_coef, args.torch_threads, args.steps, args.n_envs,
           args.bc_samples, args.bc_epochs, args.seed, args.snapshot_every, args.checkpoint_every, args.eval_deals,
           args.critic_warmup, args.overwrite, args.resume, args.skip_forced, args.privileged_critic, args.init_from,
           args.change_options)
    assert got == (d.n_steps, d.batch_size, d.learning_rate, d.clip_range, d.ent_coef, d.torch_threads, d.total_steps, d.n_envs,
                   d.bc_samples, d.bc_epochs, d.seed, d.snapshot_every, d.checkpoint_every, d.eval_deals,
                   d.critic_warmup_steps, d.overwrite, d.resume, d.skip_forced, d.privileged_critic, d.init_from,
                   d.change_options)
    assert args.eval_deals == 2000  # was 2000 on the command line but 1000 in TrainConfig
    from cardzoo.training.commands import _opponent_weights

    assert _opponent_weights(args.opponents) == d.opponents == {"random": 0.2, "rule": 0.5, "snapshot": 0.3}

def test_arena_refuses_a_json_path_that_is_a_folder_before_playing(tmp_path, capsys):
    rc = main(["arena", "all_fours", "all_fours/rule", "random", "--deals", "2", "--json", str(tmp_path)])
    assert rc == 2
    assert "is a folder; give a file name such as" in capsys.readouterr().err


def test_arena_refuses_an_existing_json_file_unless_overwrite(tmp_path, capsys):
    out = tmp_path / "a.json"
    out.write_text("earlier results")
    rc = main(["arena", "all_fours", "all_fours/rule", "random", "--deals", "2", "--json", str(out)])
    assert rc == 2
    captured = capsys.readouterr()
    assert captured.err == (f"cardzoo arena: error: --json {out} exists; a run never overwrites another: "
                            "choose a new name, or --overwrite\n")
    assert captured.out == ""  # refused before any deal is played
    assert out.read_text() == "earlier results"
    assert main(["arena", "all_fours", "all_fours/rule", "random", "--deals", "2", "--json", str(out), "--overwrite"]) == 0
    assert json.loads(out.read_text())["n_hands"] == 4


def test_play_refuses_a_bad_option_before_announcing_agents(capsys):
    assert main(["play", "all_fours", "-o", "bogus=1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no "note: all_fours/ppo does not fit these options ..." first
    assert captured.err.startswith("cardzoo play: error: unknown option(s) ['bogus']; valid options: ['deal_packet', ")


def test_option_values_read_as_a_person_writes_them(tmp_path, capsys):
    """-o name=value: ' 3', '03' and '+3' are all the int 3 (JSON alone took ' 3' but left '03' a
    string, which num_players then refused); a value that is no number of the choices is refused
    naming the valid values."""
    from cardzoo.training.common import parse_options

    got = parse_options(["num_players= 3", "a=03", "b=+3", "c=-07", " episode = match ", "d=0.5", "e=true", "f=null",
                         "g=winner_chooses", "h=3.0", "i=0x3", "j="])
    assert got == {"num_players": 3, "a": 3, "b": 3, "c": -7, "episode": "match", "d": 0.5, "e": True, "f": None,
                   "g": "winner_chooses", "h": 3.0, "i": "0x3", "j": ""}
    assert [type(got[k]) for k in ("num_players", "a", "b", "h")] == [int, int, int, float]
    for i, value in enumerate((" 3", "03", "3 ")):
        out = tmp_path / f"{i}.json"
        assert main(["arena", "pyanitsa", "random", "pyanitsa/rule", "--deals", "2", "-o", f"num_players={value}",
                     "--json", str(out)]) == 0
        assert json.loads(out.read_text())["env_options"] == {"num_players": 3}
    capsys.readouterr()
    for value, shown in (("five", "'five'"), ("3.5", "3.5"), ("5", "5")):
        assert main(["arena", "pyanitsa", "random", "random", "--deals", "2", "-o", f"num_players={value}"]) == 2
        err = capsys.readouterr().err
        assert err == f"cardzoo arena: error: option num_players={shown} is not valid; valid values: [2, 3, 4]\n"
    with pytest.raises(ValueError, match=r"env option 'num_players' must look like name=value \(e.g. episode=match\)"):
        parse_options(["num_players"])


def test_every_option_value_a_refusal_lists_can_be_typed_as_printed(tmp_path, capsys):
    """-o first_dealer=None was refused ("option first_dealer='None' is not valid; valid values: [None,
    0, 1, 2, 3]"): None, True and False are read as the refusal prints them; 'none', a choice of three
    options, stays the string. Checked for every choice of every game's options."""
    from cardzoo import envs
    from cardzoo.training.common import parse_option_value, parse_options

    assert parse_options(["first_dealer=None", "surrender=True", "chant= False ", "game_tie=none", "x=null", "y=NONE"]) == {
        "first_dealer": None, "surrender": True, "chant": False, "game_tie": "none", "x": None, "y": "NONE"}
    for game in envs.GAMES:
        for name, option in envs.kernel_class(game).OPTIONS.items():
            for choice in option.choices or ():
                got = parse_option_value(str(choice))
                assert got == choice and type(got) is type(choice), (game, name, choice)
    out = tmp_path / "a.json"
    assert main(["arena", "all_fours", "random", "random", "--deals", "2", "-o", "first_dealer=None", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["env_options"] == {"first_dealer": None}
    capsys.readouterr()
    assert main(["arena", "all_fours", "random", "random", "--deals", "2", "-o", "first_dealer=none"]) == 2
    assert capsys.readouterr().err == (
        "cardzoo arena: error: option first_dealer='none' is not valid; valid values: [None, 0, 1, 2, 3] "
        "('random' is accepted for None)\n")
    for game in envs.GAMES:  # the aliases a refusal prints can be typed too
        for name, option in envs.kernel_class(game).OPTIONS.items():
            for alias, choice in option.aliases:
                assert envs.kernel(game, **parse_options([f"{name}={alias}"])).options[name] == choice, (game, name)


def test_an_option_value_of_more_digits_than_python_reads_names_the_option(capsys):
    """-o target_score=<5,000 nines> said only "cardzoo arena: error: Exceeds the limit (4300 digits) for integer
    string conversion: ...; use sys.set_int_max_str_digits() to increase the limit" (json.loads and int() of the
    value), naming neither the option nor its valid values. Now the value is the string typed, which the
    option's own check refuses by name (with leading zeros or a plus sign too)."""
    from cardzoo.training.common import parse_option_value

    for big in ("9" * 5000, "+" + "9" * 5000, "0" + "9" * 5000):
        assert parse_option_value(big) == big
        assert main(["arena", "all_fours", "random", "lowest", "--deals", "2", "-o", f"target_score={big}"]) == 2
        assert capsys.readouterr().err == (f"cardzoo arena: error: option target_score={big!r} is not valid; valid values: "
                                           "an int from 1 to 10000\n")
    assert parse_option_value("9" * 4300) == int("9" * 4300) and parse_option_value("+07") == 7


def test_terminal_play_takes_a_superscript_digit_as_a_bad_move():
    """'²' is a digit to str.isdigit but int() refuses it: play ended with 'cardzoo play: error:
    invalid literal for int() with base 10' and the game was lost; it is now a bad move like any."""
    seed = _seed_where_player0_decides_first()
    said = []
    answers = iter(["²", "q"])
    assert play("all_fours", "all_fours/rule", "random", seed=seed, read=lambda p: next(answers), write=said.append) is None
    text = "\n".join(said)
    assert "'²' is not a move. Type a move's name or its number: STAND, BEG (q quits)" in text
    assert text.rstrip().endswith("bye")


@pytest.mark.parametrize("command", ["arena", "leaderboard"])
def test_a_bad_exec_timeout_is_refused_by_its_flag(command, tmp_path, capsys):
    """`--exec-timeout -1` was taken silently when no exec: bot was named, and with one the error
    said "exec: agent timeout must be ...", not the flag; nothing is played or written either way."""
    for value in ("-1", "0", "nan", "inf"):
        argv = [command, "avinas", "lowest", "avinas/rule", "--deals", "2", "--exec-timeout", value]
        if command == "leaderboard":
            argv += ["--out", str(tmp_path / "lb")]
        assert main(argv) == 2
        assert capsys.readouterr().err == (f"cardzoo {command}: error: --exec-timeout must be a positive number of seconds "
                                           f"(default 10), got {value}\n")
    # 1e300 (finite) ended the run in a traceback at the bot's first answer: select() said "OverflowError: timestamp
    # out of range for platform time_t"; a day is the most
    for value, shown in (("1e300", "1e+300"), ("86401", "86401")):
        argv = [command, "avinas", "exec:python3 training/examples/lowest_bot.py", "avinas/rule", "--deals", "2",
                "--exec-timeout", value]
        if command == "leaderboard":
            argv += ["--out", str(tmp_path / "lb")]
        assert main(argv) == 2
        assert capsys.readouterr().err == (f"cardzoo {command}: error: --exec-timeout must be at most 86,400 seconds (a "
                                           f"day; default 10), got {shown}\n")
    assert list(tmp_path.iterdir()) == []


def test_terminal_play_seats_an_exec_bot(tmp_path):
    """`cardzoo play all_fours --opponents "exec:python3 training/examples/lowest_bot.py"` ended at the
    bot's first move with "call begin(kernel) before act_state (the arena does)", the game lost. The
    bot is now started for the game (and stopped after it): it plays exactly as the in-process lowest
    agent, and a fault is written as the arena writes it."""
    import sys
    from pathlib import Path

    bot = Path(__file__).resolve().parent.parent / "training" / "examples" / "lowest_bot.py"
    said, ref_said = [], []
    got = play("all_fours", "all_fours/rule", f"exec:{sys.executable} {bot}", seed=3, read=lambda p: "0", write=said.append)
    ref = play("all_fours", "all_fours/rule", "lowest", seed=3, read=lambda p: "0", write=ref_said.append)
    assert got == ref and got is not None
    assert [x for x in said if not x.startswith("You are player_0")] == [x for x in ref_said if not x.startswith("You are player_0")]
    illegal = tmp_path / "illegal.py"
    illegal.write_text("import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n"
                       "    if m['type'] == 'hello':\n        print(json.dumps({'type': 'ready'}), flush=True)\n"
                       "    elif m['type'] == 'act':\n        print(json.dumps({'action': -1}), flush=True)\n")
    said = []
    got = play("all_fours", "all_fours/rule", f"exec:{sys.executable} {illegal}", seed=3, read=lambda p: "0", write=said.append)
    assert got == ref  # after its fault the bot plays the lowest legal action: here from its first decision
    faults = [x for x in said if x.startswith("fault: ")]
    # one agent plays both opponents' seats, a process each (an agent per seat faulted twice): its first fault stops it
    assert len(faults) == 1 and all(f"bot 'exec:{sys.executable} {illegal}', game all_fours, decision 1 (seat " in x
                                    and "played illegal action -1 (out of range)" in x for x in faults)


@pytest.mark.parametrize("game, options, word", [
    ("avinas", {}, "deal"), ("ottocento", {"reward": "point_diff"}, "deal"), ("all_fours", {"episode": "match", "target_score": 3}, "match"),
])
def test_terminal_play_ends_with_the_episode_and_the_return_as_they_are(game, options, word):
    """The last line said "hand over" in every partnership game (an Avinas deal, an All Fours match)
    and rounded the return to a whole number: Ottocento's point_diff return (the difference / 100,
    e.g. +1.27) was printed +1."""
    said = []
    returns = play(game, f"{game}/rule", f"{game}/rule", seed=4, env_options=options, read=lambda p: "0", write=said.append)
    assert said[-1] == f"{word} over: your team's return {returns['player_0']:+g}"
    if game == "ottocento":
        assert returns["player_0"] != round(returns["player_0"])  # a return that the former line rounded


def test_demo_refuses_the_render_options_it_sets_itself(capsys):
    """`cardzoo demo all_fours -o render_mode=human` ended in a traceback: "TypeError: cardzoo.envs.make()
    got multiple values for keyword argument 'render_mode'"."""
    for opt in ("render_mode=human", "render_view=0"):
        assert main(["demo", "all_fours", "-o", opt]) == 2
        name = opt.split("=")[0]
        assert capsys.readouterr().err == (f"cardzoo demo: error: -o {name}: cardzoo demo sets them itself (render_mode='ansi', "
                                           "render_view='all': the whole table as text); leave them out and give only the game's options\n")
    assert main(["demo", "all_fours", "-o", "undertrump=forbidden", "--seed", "2"]) == 0
    assert "returns:" in capsys.readouterr().out


@pytest.mark.parametrize("argv, said", [
    (["label", "all_fours", "{tmp}/x.npz", "--label-search-on", "bogus"],
     "--label-search-on bogus: unknown value 'bogus'; valid: ['all', 'cards', 'none', 'others']"),
    # --search-on names the types distilled: 'none' was listed as valid there, then refused by distil() in its keyword's
    # words ("search_on='none' distils nothing")
    (["distil", "all_fours/ppo", "{tmp}/d", "--labels", "{tmp}/x.npz", "--search-on", "bogus"],
     "--search-on bogus: unknown value 'bogus'; valid: ['all', 'cards', 'others']"),
    (["distil", "all_fours/ppo", "{tmp}/d", "--labels", "{tmp}/x.npz", "--search-on", "none"],
     "--search-on none: 'none' distils nothing; valid: ['all', 'cards', 'others']"),
    (["expert-iterate", "all_fours", "--out", "{tmp}/e", "--label-search-on", "bogus"],
     "--label-search-on bogus: unknown value 'bogus'; valid: ['all', 'cards', 'none', 'others']"),
    (["expert-iterate", "all_fours", "--out", "{tmp}/e", "--search-on", "none"],
     "--search-on none: 'none' distils nothing; valid: ['all', 'cards', 'others']"),
])
def test_a_bad_search_on_names_the_flag(argv, said, tmp_path, capsys):
    """`cardzoo label --label-search-on bogus` said "unknown search_on value 'bogus'", the library's
    parameter: which flag? The flag as typed now leads the message, and the parameter's name is left out
    ("unknown value 'bogus'", not "unknown search_on value"); nothing is written."""
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardzoo {argv[0]}: error: {said}"), err
    assert list(tmp_path.iterdir()) == []


def test_arena_refuses_overwrite_without_json(capsys, monkeypatch):
    """`cardzoo arena ... --overwrite` without --json played and wrote nothing to replace, silently."""
    from cardzoo.training import arena

    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: pytest.fail("a deal was played"))
    assert main(["arena", "avinas", "lowest", "avinas/rule", "--deals", "2", "--overwrite"]) == 2
    assert capsys.readouterr().err == ("cardzoo arena: error: --overwrite replaces an existing --json file; give --json FILE "
                                       "with it, or leave --overwrite out\n")


def test_a_mistyped_flag_gets_the_subcommands_usage_and_the_closest_flag(capsys):
    """cardzoo train all_fours --options x=1 printed the top-level usage ("usage: cardzoo [-h] [--version]
    {bench,...}") and "cardzoo: error: unrecognized arguments"; it is now the train command's usage and error,
    naming the closest valid flag."""
    for argv, command, hint in (
        (["train", "all_fours", "--options", "x=1"], "train", "--options: did you mean --option?"),
        (["arena", "all_fours", "random", "all_fours/rule", "--dealz", "3"], "arena", "--dealz: did you mean --deals?"),
        (["demo", "pyanitsa", "--sed", "1"], "demo", "--sed: did you mean --seed?"),
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith(f"usage: cardzoo {command} ")
        assert f"cardzoo {command}: error: unrecognized arguments: " in err and hint in err
        assert f"cardzoo {command} --help lists the options" in err
    with pytest.raises(SystemExit):
        main(["bench-web", "--zzz"])  # nothing close: no guess
    err = capsys.readouterr().err
    assert "unrecognized arguments: --zzz; cardzoo bench-web --help" in err and "did you mean" not in err


def test_label_and_distil_name_the_flag_and_the_api_the_keyword(tmp_path, capsys):
    """cardzoo label and cardzoo distil refused an existing output with "... or overwrite=True (--overwrite)" and
    "overwrite=True (cardzoo distil --overwrite)": a command-line user is now told the flag only, a Python caller
    the keyword only (cardzoo expert-iterate and expert_iterate() likewise for --resume / resume=True)."""
    from cardzoo.training.expert import distil, expert_iterate, label_positions

    labels = tmp_path / "l.npz"
    assert main(["label", "all_fours", str(labels), "--games", "1", "--n-det", "2", "--batch", "1"]) == 0
    capsys.readouterr()
    assert main(["label", "all_fours", str(labels), "--games", "1"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"cardzoo label: error: label file {labels} exists; a run never overwrites another: choose a new name, "
        "or give --overwrite to replace it")
    with pytest.raises(FileExistsError) as e:
        label_positions("all_fours", "all_fours/ppo", 1, labels)
    assert str(e.value).endswith("choose a new name, or pass overwrite=True to replace it")
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "agent.json").write_text("{}")
    assert main(["distil", "all_fours/ppo", str(agent), "--labels", str(labels)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"cardzoo distil: error: {agent} already holds a saved agent; give a new folder, or give --overwrite to replace it")
    with pytest.raises(ValueError) as e:
        distil("all_fours/ppo", [labels], agent)
    assert str(e.value) == f"{agent} already holds a saved agent; give a new folder, or pass overwrite=True to replace it"
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("{}")
    assert main(["expert-iterate", "all_fours", "--out", str(run)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"cardzoo expert-iterate: error: --out {run} holds an earlier expert-iterate run; give a new folder, "
        "or --resume to continue that run")
    with pytest.raises(ValueError) as e:
        expert_iterate("all_fours", run)
    assert str(e.value) == f"out={str(run)!r} holds an earlier expert-iterate run; give a new folder, or resume=True to continue that run"


def test_bench_web_names_its_flags(capsys):
    """cardzoo bench-web --moves 0 said "clients and max_moves must be >= 1 and seconds > 0, got 50, 0, 2.0" (the
    load test's parameters, all at once); each bad flag is now named as typed."""
    for argv, said in ((["--clients", "0"], "--clients must be >= 1, got 0"), (["--moves", "0"], "--moves must be >= 1, got 0"),
                       (["--seconds", "-1"], "--seconds must be a positive number, got -1")):
        assert main(["bench-web", *argv]) == 2
        assert capsys.readouterr().err == f"cardzoo bench-web: error: {said}\n"


def test_a_mistyped_command_or_game_names_the_closest_choice(capsys):
    """cardzoo trian all_fours and cardzoo demo allfours listed every valid choice and left the user to spot the
    typo; the error now ends with the closest one."""
    for argv, said in ((["trian", "all_fours"], "cardzoo: error: argument command: invalid choice: 'trian' (choose from "),
                       (["demo", "allfours"], "cardzoo demo: error: argument game: invalid choice: 'allfours' ")):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        err = capsys.readouterr().err.splitlines()[-1]
        assert err.startswith(said) and err.endswith(f"; did you mean {'train' if argv[0] == 'trian' else 'all_fours'}?"), err
    with pytest.raises(SystemExit):
        main(["demo", "zzz"])  # nothing close: no guess
    assert "did you mean" not in capsys.readouterr().err


def test_lengths_progress_bar_counts_its_settings_in_words(tmp_path, capsys):
    """`cardzoo lengths --only 0` labelled its bar "P'yanitsa lengths (1 settings)"."""
    assert main(["lengths", "--games", "3", "--out", str(tmp_path / "one"), "--only", "0"]) == 0
    err = capsys.readouterr().err
    assert "P'yanitsa lengths (1 setting):" in err and "settings)" not in err
    assert main(["lengths", "--games", "3", "--out", str(tmp_path / "two"), "--only", "0", "1"]) == 0
    assert "P'yanitsa lengths (2 settings):" in capsys.readouterr().err


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc, a folder nobody can make files in")
def test_a_json_path_no_file_can_be_made_in_is_refused_before_the_run(capsys):
    """`cardzoo arena ... --json /proc/a.json` played every deal and then failed with "[Errno 2] No such file or
    directory: '/proc/a.json'" (the folder exists; even root cannot make files in it), losing the results;
    bench and bench-web did the same. Now refused up front, naming the flag and the folder."""
    for argv in (["arena", "all_fours", "all_fours/rule", "random", "--deals", "2"], ["bench", "pyanitsa", "--rounds", "1"],
                 ["bench-web", "--clients", "1"]):
        assert main([*argv, "--json", "/proc/a.json"]) == 2
        captured = capsys.readouterr()
        assert captured.err == (f"cardzoo {argv[0]}: error: cannot write --json /proc/a.json: no file can be made in /proc "
                                "(No such file or directory); give a path in a folder you can write to\n")
        assert captured.out == ""


@pytest.mark.parametrize("argv, example", [
    (["arena", "all_fours", "all_fours/rule", "random", "--deals", "2"], "arena.json"),
    (["bench", "pyanitsa", "--rounds", "1", "--seconds", "0.01", "--skip", "texas", "scaling", "first-use", "pimc"],
     "bench.json"),
    (["bench-web", "--clients", "1", "--moves", "1"], "bench_web.json"),
])
def test_a_json_path_that_names_a_folder_is_refused_before_the_run(tmp_path, monkeypatch, capsys, argv, example):
    """`cardzoo bench --json runs/` (a new name ending in a slash) passed the checks, measured every row and then
    failed with "runs/: Is a directory", losing the run's numbers (bench-web the same); `cardzoo arena --json
    runs/` wrote a file named runs and said "JSON written to runs/". A name ending in / (or . or ..) names a
    folder: refused before anything is played or measured, nothing written."""
    monkeypatch.chdir(tmp_path)
    for path in ("new/", "new/."):
        assert main([*argv, "--json", path]) == 2
        captured = capsys.readouterr()
        assert captured.err == (f"cardzoo {argv[0]}: error: --json {path} names a folder, not a file; give a file name "
                                f"such as new/{example}\n")
        assert captured.out == ""
        assert list(tmp_path.iterdir()) == []
    (tmp_path / "old").mkdir()  # a folder that exists (bench and bench-web said "--json old exists; a run never
    assert main([*argv, "--json", "old"]) == 2  # overwrites another: choose a new path")
    assert capsys.readouterr().err == (f"cardzoo {argv[0]}: error: --json old is a folder; give a file name such as "
                                       f"old/{example}\n")


def test_bench_web_seconds_is_at_most_a_day(monkeypatch, capsys):
    """`cardzoo bench-web --seconds 1e300` (finite and positive, so taken) ran its clients and ended in a traceback,
    "OverflowError: timestamp out of range for platform time_t" from Thread.join (exit 1). Now refused up front,
    before a server is started; loadtest.run the same."""
    from cardzoo.training.web import loadtest

    monkeypatch.setattr(loadtest, "_start_server", lambda *a, **k: pytest.fail("a server was started"))
    for value, shown in (("1e300", "1e+300"), ("86401", "86401")):
        assert main(["bench-web", "--clients", "1", "--seconds", value]) == 2
        assert capsys.readouterr().err == (f"cardzoo bench-web: error: --seconds must be at most 86,400 (a day; default "
                                           f"120), got {shown}\n")
    with pytest.raises(ValueError) as e:
        loadtest.run(clients=1, seconds=1e300)
    assert str(e.value) == "seconds must be at most 86,400 (a day), got 1e+300"


def test_bench_web_never_overwrites_a_json_file(tmp_path, capsys):
    """`cardzoo bench-web --json FILE` replaced an existing FILE (another run's numbers) at the end of its run;
    now refused before the run, as `cardzoo bench --json` is; an empty path is refused too."""
    out = tmp_path / "load.json"
    out.write_text("earlier run")
    assert main(["bench-web", "--clients", "1", "--json", str(out)]) == 2
    assert capsys.readouterr().err == (f"cardzoo bench-web: error: --json {out} exists; a run never overwrites another: "
                                       "choose a new path\n")
    assert out.read_text() == "earlier run"
    assert main(["bench-web", "--json", ""]) == 2
    assert capsys.readouterr().err == ("cardzoo bench-web: error: --json '' is an empty path: give the file to write, "
                                       "e.g. --json bench_web.json (or leave --json out)\n")
    assert main(["bench-web", "--json", str(tmp_path / "no" / "x.json")]) == 2
    assert capsys.readouterr().err == f"cardzoo bench-web: error: --json {tmp_path / 'no' / 'x.json'}: folder {tmp_path / 'no'} does not exist\n"


def test_distil_names_a_file_that_is_not_a_label_archive(tmp_path, capsys):
    """`cardzoo distil ... --labels results.json` said numpy's words for a file it tried as pickled data:
    "This file contains pickled (object) data. If you trust the file you can load it unsafely using the
    `allow_pickle=` keyword argument or `pickle.load()`", advice that has nothing to do with a label file."""
    wrong = tmp_path / "results.json"
    wrong.write_text('{"mean_diff": 0.1}')
    assert main(["distil", "avinas/ppo", str(tmp_path / "agent"), "--labels", str(wrong), "--reference", "none"]) == 2
    assert capsys.readouterr().err == (
        f"cardzoo distil: error: {wrong} is not a label file: a .npz archive with ['obs', 'mask', 'q', 'other_obs', "
        "'other_mask', 'other_q'] was expected (cardzoo label writes them)\n")
    assert not (tmp_path / "agent").exists()


def test_train_refuses_an_empty_out_before_anything(tmp_path, monkeypatch, capsys):
    """`cardzoo train avinas --out ''` was taken as no --out: the run was written to runs/avinas (leaderboard,
    exploit and lengths refuse an empty --out already). The flags keep the run tiny should it ever start."""
    monkeypatch.chdir(tmp_path)
    argv = ["train", "avinas", "--out", "", "--steps", "64", "--n-envs", "2", "--n-steps", "32", "--bc-samples", "0",
            "--eval-deals", "0", "--expert-rounds", "0"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == ("cardzoo train: error: --out '' is an empty path: give the run folder, e.g. --out runs/avinas "
                            "(or leave --out out for that default)\n")
    assert captured.out == "" and list(tmp_path.iterdir()) == []


def test_every_flag_of_every_command_says_what_it_does():
    """`cardzoo demo --help` (and lengths, play, bench-web, exploit, train-rllib) showed a bare "--seed SEED" and
    train-rllib a bare "--lr LR": what they seed, and the default, went unsaid."""
    import argparse

    from cardzoo.training.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    bare = [f"{name} {a.option_strings[-1]}" for name, p in sub.choices.items() for a in p._actions
            if a.option_strings and not a.help]
    assert bare == []


#: a command with an output folder (or file) at a path no folder can be made at, and what it is told; flags keep
#: each run tiny should it ever start
NO_OUT = {
    "train": (["train", "avinas", "--out", "/proc/x", "--steps", "64", "--n-envs", "2", "--n-steps", "32", "--bc-samples", "0",
               "--eval-deals", "0", "--expert-rounds", "0"], "cannot create --out /proc/x: No such file or directory"),
    "exploit": (["exploit", "avinas/rule", "--out", "/proc/x", "--steps", "64", "--n-envs", "2", "--deals", "2"],
                "cannot create --out /proc/x: No such file or directory"),
    "expert-iterate": (["expert-iterate", "avinas", "--out", "/proc/x", "--games", "1", "--n-det", "1"],
                       "cannot create --out /proc/x: No such file or directory"),
    "train-rllib": (["train-rllib", "avinas", "--out", "/proc/x"], "cannot create --out /proc/x: No such file or directory"),
    "leaderboard": (["leaderboard", "avinas", "random", "avinas/rule", "--deals", "1", "--out", "/proc/lb"],
                    "cannot create --out /proc/lb: No such file or directory"),
    "lengths": (["lengths", "--games", "1", "--only", "0", "--out", "/proc/x"], "cannot create --out /proc/x: No such file or directory"),
    "distil": (["distil", "avinas/ppo", "/proc/x", "--epochs", "1"], "cannot create the agent folder /proc/x: No such file or directory"),
    "label": (["label", "avinas", "/proc/l.npz", "--games", "1", "--n-det", "1"],
              "cannot write labels to /proc/l.npz: no file can be made in /proc (No such file or directory); give a path in a "
              "folder you can write to"),
}


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc, a folder nobody can make files in")
@pytest.mark.parametrize("command", sorted(NO_OUT))
def test_a_refusal_of_the_system_is_said_as_the_system_says_it(command, tmp_path, capsys):
    """An output folder the system refuses (/proc/lb) was said in Python's words: "[Errno 2] No such file or
    directory: '/proc/lb'"; then as ls says it, "/proc/lb: No such file or directory", which names neither the
    flag nor what failed; label and distil did their work first and failed writing it. Every command's output
    folder is now checked before the run by one helper (training/common.py check_can_write), as mkdir says it:
    "cannot create --out /proc/x: No such file or directory"."""
    argv, said = NO_OUT[command]
    if command == "distil":
        labels = tmp_path / "l.npz"
        assert main(["label", "avinas", str(labels), "--games", "1", "--n-det", "1"]) == 0
        capsys.readouterr()
        argv = [*argv, "--labels", str(labels)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == f"cardzoo {command}: error: {said}\n"


def test_arena_into_a_pipe_closed_early_still_writes_its_json(tmp_path):
    """`cardzoo arena ... --json out.json | head -1`: rich, on the closed pipe, exited 1 (the arena's status for an
    exec: bot's fault) before the --json file was written; the run now goes on quietly, writes it and exits 0."""
    import subprocess
    import sys

    out = tmp_path / "a.json"
    p = subprocess.Popen([sys.executable, "-m", "cardzoo.training.cli", "arena", "avinas", "random", "avinas/rule",
                          "--deals", "3", "--json", str(out)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdout.close()  # the reader has gone before the first line
    assert p.wait(timeout=120) == 0
    assert json.loads(out.read_text())["n_deals"] == 3


def test_sizes_too_large_for_memory_are_a_clear_error(tmp_path, capsys):
    """`cardzoo label ... --n-det 1000000000000000` (and train/exploit --n-envs, leaderboard --boot of that size) ended
    in numpy's _ArrayMemoryError traceback, exit 1. It said "not enough memory for these sizes" after that; the search
    now refuses more than 4,096 determinizations when it is made (100,000,000 had taken 12.7 GB before the first
    rollout), before any deal is played."""
    out = tmp_path / "x.npz"
    assert main(["label", "avinas", str(out), "--games", "2", "--n-det", "1000000000000000", "--batch", "2"]) == 2
    err = capsys.readouterr().err
    last = err.split("\r")[-1].splitlines()[-1]
    assert last == ("cardzoo label: error: cannot label 'avinas/ppo' (options {'honesty': 'mask'}): n_det must be 1..4096, "
                    "got 1000000000000000") and "Traceback" not in err
    # the empty label file written first (0 of 2 deals) is not left to refuse the next run ("exists; ... --overwrite")
    assert not out.exists()
    assert main(["label", "avinas", str(out), "--games", "2", "--n-det", "1", "--batch", "2"]) == 0
    assert "2 deals: " in capsys.readouterr().out


def test_ctrl_c_in_distil_says_nothing_was_written_and_how_to_run_it_again(tmp_path, capsys, monkeypatch):
    """`cardzoo distil` interrupted said only "cardzoo distil: interrupted" (exit 130): it now says that nothing was
    written (the agent is saved after the last epoch), what OUT holds, and the command to run again; a Ctrl-C while
    the agent is being saved is ignored, so that OUT never holds half an agent."""
    import shlex
    import signal

    from cardzoo.training import expert

    labels = tmp_path / "l.npz"
    assert main(["label", "all_fours", str(labels), "--games", "1", "--n-det", "2", "--batch", "1"]) == 0
    real = expert.distillation_target

    def cut(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(expert, "distillation_target", cut)  # Ctrl-C in the first minibatch
    out = tmp_path / "agent"
    argv = ["distil", "all_fours/ppo", str(out), "--labels", str(labels), "--epochs", "1", "--reference", "none"]
    capsys.readouterr()
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert (f"nothing was written: the distilled agent is saved only after the last of its 1 epoch (--epochs), so {out} "
            f"was not made. To distil, run it again") in err, err
    assert err.rstrip().endswith("cardzoo distil: interrupted") and not out.exists()
    again = err.split("fewer --epochs take less time): ")[1].splitlines()[0]
    assert again == shlex.join(["cardzoo", *argv])
    monkeypatch.setattr(expert, "distillation_target", real)
    # the printed command runs; a Ctrl-C during the save (here: while the plot is drawn) does not cut it
    real_plot = expert.plot_distillation

    def plot(*a, **k):
        os.kill(os.getpid(), signal.SIGINT)
        return real_plot(*a, **k)

    monkeypatch.setattr(expert, "plot_distillation", plot)
    before = signal.getsignal(signal.SIGINT)  # Python's handler, or SIG_IGN where the run was started with & from a script
    assert main(shlex.split(again)[1:]) == 0
    assert (out / "agent.json").is_file() and (out / "distillation.png").is_file()
    assert signal.getsignal(signal.SIGINT) == before  # restored after the save
    # --overwrite of that agent, interrupted: the earlier agent is kept as it was, and said so
    stamp = (out / "agent.json").stat().st_mtime_ns
    monkeypatch.setattr(expert, "distillation_target", cut)
    capsys.readouterr()
    assert main([*argv, "--overwrite"]) == 130
    err = capsys.readouterr().err
    assert f"so {out} still holds the earlier agent, unchanged." in err and "--overwrite" in err.split("run it again")[1]
    assert (out / "agent.json").stat().st_mtime_ns == stamp


def test_distil_says_an_arena_command_that_seats_its_agent(tmp_path, capsys):
    """`cardzoo distil avinas/ppo ...` ended "evaluate: cardzoo arena avinas OUT avinas/rule --deals 2000", but the
    agent plays only the options it was trained for (honesty=mask): that command seated avinas/rule in its place
    ("note: ... seating avinas/rule instead") and measured the rule bot against itself (+0.000). The command now
    gives the agent's options, and run as printed it seats the agent."""
    import shlex

    labels, out = tmp_path / "l.npz", tmp_path / "agent"
    assert main(["label", "avinas", str(labels), "--games", "1", "--n-det", "2", "--batch", "1"]) == 0
    assert main(["distil", "avinas/ppo", str(out), "--labels", str(labels), "--epochs", "1", "--reference", "none"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    command = shlex.split(line.split("evaluate: ", 1)[1])
    assert command == ["cardzoo", "arena", "avinas", str(out), "avinas/rule", "--deals", "2000", "-o", "honesty=mask"]
    assert main([*command[1:5], "--deals", "2", *command[-2:], "--json", str(tmp_path / "r.json")]) == 0
    captured = capsys.readouterr()
    assert "instead" not in captured.out + captured.err
    assert json.loads((tmp_path / "r.json").read_text())["agent_a"] == str(out)  # not "avinas/rule (for ...)"


def test_expert_iterate_says_an_arena_command_that_seats_its_last_agent(tmp_path, capsys):
    """`cardzoo expert-iterate avinas` ended with the pattern "round r's agent: OUT/round_r/agent" and no command: the
    obvious `cardzoo arena avinas OUT/round_1/agent avinas/rule` seats avinas/rule for that agent (it plays only
    honesty=mask, as avinas/ppo). The run now prints the arena command of its last round's agent, with its options."""
    import shlex

    out = tmp_path / "run"
    assert main(["expert-iterate", "avinas", "--out", str(out), "--rounds", "1", "--games", "2", "--n-det", "1",
                 "--batch", "2", "--epochs", "1", "--arena-deals", "0", "--workers", "1"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    command = shlex.split(line.split("evaluate the last round's agent: ", 1)[1])
    agent = str(out / "round_1" / "agent")
    assert command == ["cardzoo", "arena", "avinas", agent, "avinas/rule", "--deals", "2000", "-o", "honesty=mask"]
    assert main([*command[1:5], "--deals", "2", *command[-2:], "--json", str(tmp_path / "r.json")]) == 0
    captured = capsys.readouterr()
    assert "instead" not in captured.out + captured.err
    assert json.loads((tmp_path / "r.json").read_text())["agent_a"] == agent


AGENT_FLAG_EMPTY = ("'' is empty: give an agent name (e.g. all_fours/rule) or a saved agent's folder, or leave the "
                    "flag out for its default")


@pytest.mark.parametrize("argv, flag", [
    (["label", "all_fours", "x.npz", "--policy", ""], "--policy"),
    (["label", "all_fours", "x.npz", "--opponent", ""], "--opponent"),
    (["label", "all_fours", "x.npz", "--rollout", " "], "--rollout"),
    (["play", "all_fours", "--partner", ""], "--partner"),
    (["play", "all_fours", "--opponents", ""], "--opponents"),
    (["train", "all_fours", "--bc-teacher", ""], "--bc-teacher"),
    (["train", "all_fours", "--init-from", ""], "--init-from"),
    (["distil", "all_fours/ppo", "out", "--labels", "l.npz", "--reference", ""], "--reference"),
    (["expert-iterate", "all_fours", "--out", "run", "--init", ""], "--init"),
])
def test_an_empty_agent_flag_is_refused_not_taken_as_its_default(argv, flag, tmp_path, monkeypatch, capsys):
    """`cardzoo label all_fours x.npz --policy "$POLICY"` with the variable unset labelled all_fours/ppo without a
    word (the empty name was taken as no --policy; --bc-teacher '' cloned the rule bot, play --partner '' seated the
    default); --init-from '' was read as the current folder (". is not a saved cardzoo agent")."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    captured = capsys.readouterr()
    quoted = repr(argv[argv.index(flag) + 1])
    assert captured.err.splitlines()[-1] == (f"cardzoo {argv[0]}: error: argument {flag}: "
                                             + AGENT_FLAG_EMPTY.replace("''", quoted, 1))
    assert captured.out == "" and list(tmp_path.iterdir()) == []


def test_an_empty_agent_or_model_without_a_flag_is_refused(tmp_path, monkeypatch, capsys):
    """`cardzoo exploit ''` and `cardzoo train all_fours --init-from ''` said ". is not a saved cardzoo agent";
    `--resume ''` said "cannot resume : it is a folder"; `exploit AGENT --game ''` ran on the agent's game."""
    monkeypatch.chdir(tmp_path)
    expected = {
        ("exploit", ""): "cardzoo exploit: error: argument agent: '' is empty: give an agent name (e.g. all_fours/ppo) "
                         "or a saved agent's folder",
        ("distil", "", "out", "--labels", "l.npz"): "cardzoo distil: error: argument init: '' is empty: give an agent "
                                                     "name (e.g. all_fours/ppo) or a saved agent's folder",
        ("train", "all_fours", "--resume", ""): "cardzoo train: error: argument --resume: '' is empty: give a model .zip "
                                                "such as OUT/model.zip or OUT/checkpoints/model_N.zip, or leave --resume "
                                                "out to start a new run",
        ("exploit", "all_fours/ppo", "--game", ""): "cardzoo exploit: error: argument --game: invalid choice: '' (choose "
                                                    "from 'all_fours', 'aluette', 'avinas', 'ottocento', 'pyanitsa')",
        ("exploit", "all_fours/ppo", "--game", "allfours"): "cardzoo exploit: error: argument --game: invalid choice: "
                                                            "'allfours' (choose from 'all_fours', 'aluette', 'avinas', "
                                                            "'ottocento', 'pyanitsa'); did you mean all_fours?",
    }
    for argv, line in expected.items():
        with pytest.raises(SystemExit) as e:
            main(list(argv))
        assert e.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == line
    assert list(tmp_path.iterdir()) == []


def test_leaderboard_without_a_game_does_not_say_its_agents_are_required(capsys):
    """`cardzoo leaderboard` said "the following arguments are required: game, agents", but the agents have a
    default (random, GAME/rule, GAME/ppo, GAME/pimc): `cardzoo leaderboard avinas` runs."""
    with pytest.raises(SystemExit) as e:
        main(["leaderboard"])
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == "cardzoo leaderboard: error: the following arguments are required: game"


@pytest.mark.parametrize("argv, line", [
    (["label", "all_fours", ""], "cardzoo label: error: label file '' is an empty path: give the file to write, e.g. labels.npz"),
    (["distil", "all_fours/ppo", "agent", "--labels", " "],
     "cardzoo distil: error: --labels ' ' is an empty path: give the label files of cardzoo label, e.g. --labels labels.npz"),
    (["serve", "--agents-dir", "", "--no-browser"],
     "cardzoo serve: error: --agents-dir '' is an empty path: give the folder of your saved agents, e.g. --agents-dir "
     "runs/all_fours (or leave --agents-dir out)"),
])
def test_an_empty_path_is_refused_not_read_as_the_current_folder(argv, line, tmp_path, monkeypatch, capsys):
    """`cardzoo label all_fours ''` said "label file '.' must be named *.npz", `distil ... --labels ''` "no label
    file at .", and `cardzoo serve --agents-dir ''` offered the saved agents of the current folder."""
    if argv[0] == "serve":
        pytest.importorskip("fastapi")
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == line + "\n" and captured.out == ""
    assert list(tmp_path.iterdir()) == []


def test_bench_web_names_the_clients_flag_past_the_table_cap(capsys):
    """cardzoo bench-web --clients 201 said "clients must be 1 to 200 ..." (the load test's parameter); the flag is
    named as typed, as for --clients 0."""
    pytest.importorskip("httpx")
    from cardzoo.training.web import loadtest

    cap = loadtest._max_tables()
    assert main(["bench-web", "--clients", str(cap + 1)]) == 2
    assert capsys.readouterr().err == (f"cardzoo bench-web: error: --clients must be 1 to {cap} (the server holds at most "
                                       f"{cap} open tables; more clients would only be refused with 503), got {cap + 1}\n")


def test_arena_names_a_bad_env_option_as_the_game_does(capsys):
    """`cardzoo arena all_fours random all_fours/rule -o a=b` said "unknown option(s) ['a'] for all_fours/rule; agent
    parameters: ['params', 'rollout_opponents']; game options: ..." (the first agent took -o for its parameters;
    with all_fours/ppo first: "the shipped agent ... these are not valid all_fours options: ..."). -o is the game's:
    the arena now checks it as play, train, exploit and leaderboard do, before loading any agent."""
    from cardzoo import envs

    with pytest.raises(ValueError) as e:
        envs.kernel("all_fours", a="b")
    for agents in (["random", "all_fours/rule"], ["all_fours/ppo", "random"]):
        assert main(["arena", "all_fours", *agents, "--deals", "2", "-o", "a=b"]) == 2
        captured = capsys.readouterr()
        assert captured.err == f"cardzoo arena: error: {e.value}\n" and captured.out == ""
    assert str(e.value).startswith("unknown option(s) ['a']; valid options: ['deal_packet', 'episode', ")


def test_a_registered_agent_takes_its_own_parameters_after_a_colon(tmp_path, capsys):
    """`NAME:KEY=VALUE,...` names a registered agent with its own parameters (values read as -o values), in every
    command that loads agents by name: the arena plays `all_fours/pimc:n_det=2` as that search and names it so.
    Game options, the seed and unknown keys are refused naming what to do; exec: bots and paths are not parsed."""
    from cardzoo.agents import registry
    from cardzoo.training.common import resolve_agent, split_agent_spec
    from cardzoo.training.expert import opponent_names

    assert split_agent_spec("all_fours/pimc:n_det=8,search=phase") == ("all_fours/pimc", {"n_det": 8, "search": "phase"})
    assert split_agent_spec("pyanitsa/pimc: rollout_opponents = random") == ("pyanitsa/pimc", {"rollout_opponents": "random"})
    assert split_agent_spec("exec:python3 bot.py:x=1") == ("exec:python3 bot.py:x=1", {})
    assert split_agent_spec("all_fours/rule") == ("all_fours/rule", {})
    weird = tmp_path / "all_fours" / "pimc:n_det=8"  # an existing path is a path
    weird.mkdir(parents=True)
    assert split_agent_spec(str(weird)) == (str(weird), {})
    said = {"all_fours/pimc:n_det": "parameters go as all_fours/pimc:KEY=VALUE,KEY=VALUE (a value with commas in [...] or "
                                    "{...}); got 'n_det'; all_fours/pimc's parameters: ['n_det', 'rollout_opponents', 'search']",
            "all_fours/pimc:n_det=2,n_det=3": "parameter n_det given twice; give each once",
            "all_fours/pimc:seed=3": "the command's --seed seeds all_fours/pimc; leave seed out of its parameters",
            "all_fours/pimc:episode=match": "episode is an option of the game, not of the agent: give it with -o episode=...",
            "all_fours/pimc:ndet=3": "'ndet' is not a parameter of all_fours/pimc; its parameters: ['n_det', 'rollout_opponents', 'search']"}
    for spec, why in said.items():
        with pytest.raises(ValueError) as e:
            split_agent_spec(spec)
        assert str(e.value) == f"agent {spec!r}: {why}"
    real = registry.agent_parameters  # an entry point's parameters are not known: refused, not a TypeError
    try:
        registry.agent_parameters = lambda name: None
        with pytest.raises(ValueError, match=re.escape("agent 'all_fours/rule:x=1': all_fours/rule is installed from another "
                                                       "package (an entry point) and cardzoo does not know its parameters")):
            split_agent_spec("all_fours/rule:x=1")
    finally:
        registry.agent_parameters = real
    agent = resolve_agent("all_fours/pimc:n_det=3,search=phase", {}, seed=1, game="all_fours")
    assert agent.search.n_det == 3 and agent.search.search == "phase" and agent.name == "pimc3-phase(all_fours/rule)"
    assert resolve_agent("pyanitsa/rule:direction=weak_first", {}, game="pyanitsa").direction == "weak_first"
    assert opponent_names("pyanitsa/rule:direction=weak_first,rank_order=x,random", "pyanitsa") == [
        "pyanitsa/rule:direction=weak_first,rank_order=x", "random"]
    assert opponent_names("pyanitsa/rule:rank_order=[8,7,6,5,4,3,2,1,0],random:x=1", "pyanitsa") == [
        "pyanitsa/rule:rank_order=[8,7,6,5,4,3,2,1,0]", "random:x=1"]  # a list's commas, and a new name with its own
    # a value with commas in brackets or braces (JSON), as the rule bots' rank_order and params take them
    assert split_agent_spec("pyanitsa/rule:rank_order=[8,7,6,5,4,3,2,1,0],direction=null") == (
        "pyanitsa/rule", {"rank_order": [8, 7, 6, 5, 4, 3, 2, 1, 0], "direction": None})
    assert resolve_agent("pyanitsa/rule:rank_order=[8,7,6,5,4,3,2,1,0]", {}, game="pyanitsa").rank_order == (8, 7, 6, 5, 4, 3, 2, 1, 0)
    assert resolve_agent('all_fours/rule:params={"sigma0":0.5,"sigma1":0.25}', {}, game="all_fours").p["sigma1"] == 0.25
    with pytest.raises(ValueError, match=re.escape("agent 'all_fours/rule:params=abc': params must be a mapping of rule-agent "
                                                   'parameters to values (on the command line: params={"name":value}), got ')):
        resolve_agent("all_fours/rule:params=abc", {}, game="all_fours")  # was read letter by letter
    with pytest.raises(ValueError, match=re.escape("agent 'all_fours/rule:seed=1': 'seed' is not a parameter of all_fours/rule")):
        split_agent_spec("all_fours/rule:seed=1")  # a rule bot draws nothing: no --seed to point to
    out = tmp_path / "arena.json"
    assert main(["arena", "all_fours", "all_fours/pimc:n_det=2", "all_fours/rule", "--deals", "2", "--json", str(out)]) == 0
    capsys.readouterr()
    got = json.loads(out.read_text())
    assert (got["agent_a"], got["agent_b"], got["n_deals"]) == ("all_fours/pimc:n_det=2", "all_fours/rule", 2)
    assert main(["arena", "all_fours", "all_fours/pimc:n_det=0", "all_fours/rule", "--deals", "2"]) == 2
    assert capsys.readouterr().err == "cardzoo arena: error: agent 'all_fours/pimc:n_det=0': n_det must be >= 1, got 0\n"
    assert main(["arena", "all_fours", "all_fours/pimc:n_det=99999999999999999999", "all_fours/rule", "--deals", "2"]) == 2
    assert capsys.readouterr().err.endswith("n_det must be 1..4096, got 99999999999999999999\n")  # was numpy's OverflowError
    assert main(["arena", "all_fours", "all_fours/pimc", "all_fours/rule", "-o", "n_det=3", "--deals", "2"]) == 2
    assert capsys.readouterr().err.endswith("; n_det is a parameter of all_fours/pimc, not a game option: give it as all_fours/pimc:n_det=...\n")
    assert main(["arena", "all_fours", "all_fours/pimc:depth=2", "all_fours/rule", "--deals", "2"]) == 2
    assert capsys.readouterr().err == ("cardzoo arena: error: agent 'all_fours/pimc:depth=2': 'depth' is not a parameter of "
                                       "all_fours/pimc; its parameters: ['n_det', 'rollout_opponents', 'search']\n")


@pytest.mark.parametrize("argv", [
    ["train", "all_fours"], ["exploit", "all_fours/rule"], ["distil", "all_fours/ppo", "agent", "--labels", "l.npz"],
    ["expert-iterate", "all_fours", "--out", "run"],
])
def test_torch_threads_past_the_cap_is_refused_naming_the_flag(argv, tmp_path, monkeypatch, capsys):
    """`--torch-threads 2147483648` ended train, exploit, distil and expert-iterate in torch's "Overflow when
    unpacking long" (no flag, no range; expert-iterate had written its run folder), and 100000 started that many
    threads. The flag now takes at most MAX_TORCH_THREADS."""
    import os

    from cardzoo.training.commands import MAX_TORCH_THREADS

    monkeypatch.chdir(tmp_path)
    for value in ("2147483648", str(MAX_TORCH_THREADS + 1)):
        with pytest.raises(SystemExit) as e:
            main([*argv, "--torch-threads", value])
        assert e.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == (
            f"cardzoo {argv[0]}: error: argument --torch-threads: must be at most {MAX_TORCH_THREADS} (threads of "
            f"torch's CPU work; this machine has {os.cpu_count()} cores), got {value}")
    assert list(tmp_path.iterdir()) == []


def test_a_missing_extra_is_an_error_line_as_every_refusal(tmp_path):
    """Without rich, `cardzoo arena GAME A B` said "cardzoo arena: printing the results tables needs the [train]
    extra ..." where a missing torch says "cardzoo train: error: this needs the [train] extra ...": the one line a
    script or a user looks for, "cardzoo COMMAND: error: ...", was missing for the extras named by
    cardzoo.MissingExtraError."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['rich'] = None\n"
            "from cardzoo.training.cli import main\n"
            "sys.exit(main(['arena', 'all_fours', 'all_fours/rule', 'random', '--deals', '2']))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 2, out.stderr
    assert out.stderr.splitlines()[-1] == ("cardzoo arena: error: printing the results tables needs the [train] extra "
                                          "(module 'rich' is not installed): pip install \"cardzoo[train]\"")


def test_serve_on_port_0_announces_the_port_it_listens_on(monkeypatch, capsys):
    """`cardzoo serve --port 0` printed and opened http://127.0.0.1:0/ while uvicorn listened on a port nobody was
    told (1a87529 made the command probe for a free port, and serve() called from Python with port=0 still printed
    :0). serve() binds the socket itself, announces its port and hands that socket to uvicorn."""
    pytest.importorskip("fastapi")
    import re

    import uvicorn

    from cardzoo.training.web.app import serve

    served = []

    def run(self, sockets=None):  # instead of serving until Ctrl-C: what uvicorn was given
        (sock,) = sockets
        served.append((sock.getsockname()[1], self.config.host, self.config.port))
        self.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    for call in (lambda: serve("127.0.0.1", 0, open_browser=False), lambda: main(["serve", "--port", "0", "--no-browser"])):
        call()
        port, host, config_port = served.pop()
        assert port != 0 and config_port == port and host == "127.0.0.1"
        out = capsys.readouterr().out
        assert re.fullmatch(r"cardzoo card table at http://127\.0\.0\.1:(\d+)/  \(Ctrl-C stops it\)\n", out)[1] == str(port)
    assert served == []  # a port in use: test_web_server.py


def test_serve_on_every_address_says_so_and_announces_a_url_a_browser_opens(monkeypatch, capsys):
    """`cardzoo serve --host ''` (every address, as 0.0.0.0) printed "note: listening on , reachable from other
    machines", naming no address; `--host ::` announced (and opened) http://[::]:PORT/, the unspecified address,
    where 0.0.0.0 announces the loopback 127.0.0.1."""
    pytest.importorskip("fastapi")
    import socket

    import uvicorn

    from cardzoo.training.web.app import serve

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: setattr(self, "started", True))
    hosts = [("", "127.0.0.1", "0.0.0.0 (--host '': every address)")]
    if socket.has_ipv6:
        try:
            with socket.socket(socket.AF_INET6) as s6:
                s6.bind(("::", 0))
            hosts.append(("::", "[::1]", "::"))
        except OSError:  # no IPv6 here
            pass
    for host, shown, where in hosts:
        serve(host, 0, open_browser=False)
        first, note = capsys.readouterr().out.splitlines()
        assert first.startswith(f"cardzoo card table at http://{shown}:") and first.endswith("/  (Ctrl-C stops it)")
        assert note == f"note: listening on {where}, reachable from other machines; there is no login"


@pytest.mark.parametrize("cmd", [["demo", "pyanitsa"], ["arena", "pyanitsa", "random", "random"], ["bench", "pyanitsa"],
                                 ["leaderboard", "pyanitsa", "random", "lowest", "--deals", "2"], ["play", "pyanitsa"],
                                 ["exploit", "random", "--game", "pyanitsa"], ["train", "pyanitsa"],
                                 ["train-rllib", "pyanitsa"]])
def test_an_option_given_twice_is_refused(cmd, tmp_path, capsys, monkeypatch):
    """-o num_players=3 -o num_players=4 ran 4 players silently (the last one won)."""
    monkeypatch.chdir(tmp_path)
    assert main(cmd + ["-o", "num_players=3", "-o", "num_players=4"]) == 2
    assert capsys.readouterr().err == (f"cardzoo {cmd[0]}: error: option num_players given twice (-o num_players=3, "
                                       "-o num_players=4); give each option once\n")
    assert list(tmp_path.iterdir()) == []


def test_a_teacher_option_given_twice_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["train", "all_fours", "--bc-teacher-option", "seed=1", "--bc-teacher-option", "seed=2"]) == 2
    assert capsys.readouterr().err == ("cardzoo train: error: option seed given twice (--bc-teacher-option seed=1, "
                                       "--bc-teacher-option seed=2); give each option once\n")


def test_train_rllib_refuses_an_empty_out_before_looking_for_ray(tmp_path, capsys, monkeypatch):
    """train-rllib --out '' trained into runs/GAME-rllib; it is refused as train's --out '' is, before the
    [rllib] extra is looked for (so without ray too)."""
    import cardzoo

    def no_extra(*a, **k):
        raise AssertionError("the extra was looked for before --out was checked")

    monkeypatch.setattr(cardzoo, "require_extra", no_extra)
    monkeypatch.chdir(tmp_path)
    for out in ("", " "):
        assert main(["train-rllib", "avinas", "--out", out, "--iterations", "1"]) == 2
        assert capsys.readouterr().err == (f"cardzoo train-rllib: error: --out {out!r} is an empty path: give the run folder, "
                                           "e.g. --out runs/avinas-rllib (or leave --out out for that default)\n")
    assert main(["train", "avinas", "--out", ""]) == 2
    assert capsys.readouterr().err == ("cardzoo train: error: --out '' is an empty path: give the run folder, e.g. --out "
                                       "runs/avinas (or leave --out out for that default)\n")
    assert list(tmp_path.iterdir()) == []


def test_a_mistyped_policy_name_lists_the_games_trained_policies(tmp_path, capsys, monkeypatch):
    """--policy all_fours/ppox said "no saved agent at all_fours/ppox: the path does not exist"; a GAME/xxx name
    is an unknown agent, and the game's trained policies are listed (as --opponent lists its agents). What is
    written as a path keeps the path's error."""
    from cardzoo.training.expert import _policy_dir

    monkeypatch.chdir(tmp_path)
    said = ("unknown agent 'all_fours/ppox'; trained policies for all_fours: ['all_fours/ppo'], or the path of a "
            "saved policy")
    for cmd in (["label", "all_fours", "x.npz", "--policy", "all_fours/ppox"], ["distil", "all_fours/ppox", "d", "--labels", "x.npz"],
                ["expert-iterate", "all_fours", "--init", "all_fours/ppox", "--out", "E"]):
        assert main(cmd) == 2
        assert capsys.readouterr().err == f"cardzoo {cmd[0]}: error: {said}\n"
    with pytest.raises(FileNotFoundError, match=r"^unknown agent 'pyanitsa/pp'; trained policies for pyanitsa: \['pyanitsa/ppo'\]"):
        _policy_dir("pyanitsa/pp")
    for cmd in (["label", "all_fours", "x.npz", "--policy", "./all_fours/ppox"], ["distil", "./all_fours/ppox", "d", "--labels", "x.npz"],
                ["exploit", "./all_fours/ppox"]):  # the path as written: "./" was dropped ("no saved agent at all_fours/ppox")
        assert main(cmd) == 2
        assert capsys.readouterr().err == f"cardzoo {cmd[0]}: error: no saved agent at ./all_fours/ppox: the path does not exist\n"
    for path in ("./all_fours/ppox", "all_fours/ppox/", "foo/ppox", "all_fours/a/b", "ppox"):
        assert _policy_dir(path) == path  # the loader names the path: "no saved agent at ...: the path does not exist"
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "all_fours").mkdir()  # a folder of that name is a path, not a mistyped name
    assert _policy_dir("all_fours/ppox") == "all_fours/ppox"


def test_train_rllib_without_ray_names_the_command_once(tmp_path, capsys, monkeypatch):
    """Without ray, `cardzoo train-rllib` said "cardzoo train-rllib: error: cardzoo train-rllib needs the [rllib] extra
    ..."; the line names the command once, as a missing extra of any other command is said."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a, **k: None if name == "ray" else real(name, *a, **k))
    monkeypatch.chdir(tmp_path)
    assert main(["train-rllib", "avinas", "--iterations", "1"]) == 2
    assert capsys.readouterr().err == ("cardzoo train-rllib: error: this needs the [rllib] extra (module 'ray' is not "
                                       "installed): pip install \"cardzoo[rllib]\"\n")
    assert list(tmp_path.iterdir()) == []


def test_a_policy_of_another_game_lists_the_games_trained_policies(tmp_path, capsys, monkeypatch):
    """`cardzoo label pyanitsa out.npz --policy all_fours/ppo` said "use an agent of pyanitsa: ['lowest',
    'pyanitsa/ismcts', ..., 'pyanitsa/rule', 'random']", names --policy refuses ("not a trained policy"); the
    game's trained policies are listed."""
    monkeypatch.chdir(tmp_path)
    said = ("policy 'all_fours/ppo' plays all_fours, not pyanitsa; trained policies for pyanitsa: ['pyanitsa/ppo'], or the "
            "path of a saved policy")
    for cmd in (["label", "pyanitsa", "x.npz", "--policy", "all_fours/ppo"], ["expert-iterate", "pyanitsa", "--init", "all_fours/ppo", "--out", "E"],
                ["label", "pyanitsa", "x.npz", "--policy", "all_fours/rule"]):
        assert main(cmd) == 2
        assert capsys.readouterr().err == f"cardzoo {cmd[0]}: error: {said.replace('ppo', 'rule', 1) if 'all_fours/rule' in cmd else said}\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, prog", [(["help"], "cardzoo"), (["train", "help"], "cardzoo train"), (["demo", "help"], "cardzoo demo")])
def test_help_as_a_word_points_to_the_help_flag(argv, prog, capsys):
    """`cardzoo help` (what a new user types) was an invalid choice among the commands, with no word of --help."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"; did you mean {prog} --help?")


def test_a_bad_behaviour_cloning_count_names_its_own_flag(tmp_path, capsys, monkeypatch):
    """`cardzoo train all_fours --bc-epochs 0` said "--bc-samples must be >= 0 and --bc-epochs >= 1, got 500000, 0",
    naming a flag that was not given; each is named alone, as the other counts are."""
    monkeypatch.chdir(tmp_path)
    for flag, value, said in (("--bc-epochs", "0", "--bc-epochs must be a positive int, got 0"),
                              ("--bc-samples", "-1", "--bc-samples must be an int >= 0 (0: no cloning), got -1")):
        assert main(["train", "all_fours", flag, value]) == 2
        assert capsys.readouterr().err == f"cardzoo train: error: {said}\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, hint", [
    (["arena", "all_fours", "--agents", "random", "lowest"],
     "--agents: the agents are named without a flag, after the game, e.g. cardzoo arena all_fours all_fours/rule random"),
    (["leaderboard", "avinas", "--agent", "random"],
     "--agent: the agents are named without a flag, after the game, e.g. cardzoo leaderboard avinas avinas/rule random"),
    (["exploit", "--agent", "all_fours/rule"], "--agent: the agent is named without a flag, e.g. cardzoo exploit GAME/rule"),
])
def test_an_agents_flag_says_the_agents_take_no_flag(argv, hint, capsys):
    """`cardzoo leaderboard all_fours --agents A B` was told "--agents: did you mean --force-agent?" (the closest
    flag), a flag that seats trained agents; arena, leaderboard and exploit name their agents without a flag."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert f"({hint}); cardzoo {argv[0]} --help lists the options" in err and "did you mean" not in err


def test_exploit_refuses_a_file_for_out_before_saying_anything(tmp_path, capsys, monkeypatch):
    """`cardzoo exploit all_fours/rule --out FILE --steps 64` printed "note: --steps 64 is rounded up to 4,096 ..."
    and then refused the file; the refusal comes first, alone."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("mine")
    assert main(["exploit", "all_fours/rule", "--out", "afile", "--steps", "64"]) == 2
    assert capsys.readouterr() == ("", "cardzoo exploit: error: --out afile is a file, not a folder\n")
    assert [p.name for p in tmp_path.iterdir()] == ["afile"] and (tmp_path / "afile").read_text() == "mine"

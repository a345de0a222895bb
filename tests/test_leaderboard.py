"""Leaderboards on the cardzoo-bench v1 deal set (issue 17): outputs, exact agreement with the
arena, resuming from the cached pairings, the published fingerprints."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from cardzoo.training import arena, leaderboard
from cardzoo.training.arena import play_duplicate
from cardzoo.training.cli import main
from cardzoo.training.leaderboard import BENCH_SEED, fingerprint, run_leaderboard
from interrupt_util import interrupt_at_call

# published in training/LEADERBOARD.md: deals 0..63 of cardzoo-bench v1 under default options
FINGERPRINTS = {
    "all_fours": "fad516b62c51c453",
    "avinas": "f633b06ce6209ffe",
    "aluette": "e677fdbc2e86c228",
    "ottocento": "1b7000afd2be3209",
    "pyanitsa": "fb874954c70f9b81",
}


@pytest.mark.parametrize("game", sorted(FINGERPRINTS))
def test_bench_v1_fingerprints(game):
    assert fingerprint(game) == FINGERPRINTS[game]
    assert fingerprint(game, seed=BENCH_SEED + 1) != FINGERPRINTS[game]


def test_a_larger_deal_set_extends_a_smaller_one():
    small = play_duplicate("ottocento", "ottocento/rule", "lowest", 6, seed=BENCH_SEED)
    large = play_duplicate("ottocento", "ottocento/rule", "lowest", 10, seed=BENCH_SEED, batch=3)
    assert np.array_equal(large.deal_diff[:6], small.deal_diff)


def test_leaderboard_outputs_match_the_arena_and_resume(tmp_path, monkeypatch, capsys):
    names = ["lowest", "avinas/rule", "random"]
    p = run_leaderboard("avinas", names, 12, tmp_path, n_boot=50, progress=False)
    for f in ("leaderboard.md", "leaderboard.json", "leaderboard.png"):
        assert (tmp_path / f).stat().st_size > 0
    assert len(list((tmp_path / "pairs").glob("*.json"))) == 3
    d = json.loads((tmp_path / "leaderboard.json").read_text())
    assert d["benchmark"] == "cardzoo-bench v1" and d["seed"] == BENCH_SEED and d["n_deals"] == 12
    assert d["deal_set"]["fingerprint"] == FINGERPRINTS["avinas"] and d["null_win_rate"] == 0.5
    # a matrix cell is the arena's result for that pairing on the same deals
    ref = play_duplicate("avinas", "avinas/rule", "lowest", 12, seed=BENCH_SEED)
    cell = d["matrix"]["avinas/rule"]["lowest"]
    assert cell["mean_diff"] == pytest.approx(ref.mean_diff, abs=1e-12) and cell["win_rate"] == pytest.approx(ref.win_rate, abs=1e-12)
    assert d["matrix"]["lowest"]["avinas/rule"]["mean_diff"] == pytest.approx(-ref.mean_diff, abs=1e-12)
    assert sum(r["rating"] for r in d["ratings"]) == pytest.approx(0.0, abs=1e-6)
    assert all(r["ci"][0] <= r["rating"] <= r["ci"][1] for r in d["ratings"])
    assert d["ratings"][0]["agent"] == "avinas/rule"
    md = (tmp_path / "leaderboard.md").read_text()
    assert "# avinas leaderboard (cardzoo-bench v1)" in md and f"{cell['mean_diff']:+.3f}" in md
    # resume: nothing is replayed and the result is the same
    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: pytest.fail("a cached pairing was replayed"))
    again = run_leaderboard("avinas", names, 12, tmp_path, n_boot=50, progress=False)
    assert again["matrix"] == p["matrix"] and again["ratings"] == p["ratings"]
    # another deal count in the same folder is refused, naming the folder: the keyword out to Python (it told the
    # Python caller to "use another --out folder", a flag it has not got), the flag --out to the command line
    with pytest.raises(ValueError, match="give another folder as out") as e:
        run_leaderboard("avinas", names, 13, tmp_path, n_boot=50, progress=False)
    # naming what differs, not both settings dicts whole ("played with {'benchmark': ..., 'n_deals': 12, ...}, not {...}")
    assert "holds a pairing played with other settings (deals 12, not 13): give another folder as out (a leaderboard" in str(e.value)
    assert "holds a pairing played with other settings (deals 12, not 13): use another --out folder (a leaderboard" in e.value.cli_message
    with pytest.raises(ValueError) as e:
        run_leaderboard("avinas", names, 12, tmp_path, n_boot=50, progress=False, env_options={"honesty": "mask"}, seed=5)
    assert ('holds a pairing played with other settings (deal set "cardzoo-bench v1", not "custom deal set (seed 5)"; '
            f'seed {BENCH_SEED}, not 5; options {{}}, not {{"honesty": "mask"}}): give another folder as out') in str(e.value)
    assert "--out" not in str(e.value) and "use another --out folder" in e.value.cli_message
    assert main(["leaderboard", "avinas", *names, "--deals", "13", "--boot", "50", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "holds a pairing played with other settings (deals 12, not 13): use another --out folder (a leaderboard" in err
    assert "as out" not in err


def test_resume_after_an_interruption_plays_only_the_missing_pairings(tmp_path, monkeypatch):
    names = ["lowest", "ottocento/rule", "random"]
    real = arena.play_duplicate
    interrupt_at_call(monkeypatch, arena, "play_duplicate", 2)
    with pytest.raises(KeyboardInterrupt):
        run_leaderboard("ottocento", names, 5, tmp_path, n_boot=10, progress=False)
    assert len(list((tmp_path / "pairs").glob("*.json"))) == 1
    calls = []
    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: (calls.append((k["name_a"], k["name_b"])), real(*a, **k))[1])
    run_leaderboard("ottocento", names, 5, tmp_path, n_boot=10, progress=False)
    assert calls == [("lowest", "random"), ("ottocento/rule", "random")]


def test_leaderboard_bad_input(tmp_path):
    with pytest.raises(ValueError, match="at least 2 agents"):
        run_leaderboard("avinas", ["lowest"], 5, tmp_path, progress=False)
    with pytest.raises(ValueError, match="must be different"):
        run_leaderboard("avinas", ["lowest", "lowest"], 5, tmp_path, progress=False)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        run_leaderboard("avinas", ["lowest", "nobody"], 5, tmp_path, progress=False)
    with pytest.raises(ValueError, match=r"out '' is an empty path: give the folder to write, e.g. runs/leaderboard/avinas"):
        run_leaderboard("avinas", ["lowest", "avinas/rule"], 5, "", progress=False)
    assert leaderboard.default_agents("all_fours") == ["random", "all_fours/rule", "all_fours/ppo", "all_fours/pimc"]


def test_agent_names_must_be_a_list_of_names_and_exec_timeout_a_positive_number(tmp_path, monkeypatch):
    """One string of names was read letter by letter ("unknown agent 'r'"), an agent object raised a raw "expected
    str, bytes or os.PathLike object", and exec_timeout=-1 or "x" was taken (without an exec: bot, silently). Each is
    refused naming the argument and what is valid, before any agent loads and before anything is written."""
    from cardzoo.agents import load

    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: pytest.fail("a deal was played"))
    out = tmp_path / "lb"
    example = "e.g. ['random', 'avinas/rule']"
    cases = [
        ({"agent_names": "random,lowest"},
         f"agent_names='random,lowest' is one string: give a list of agent names, {example} (a leaderboard needs at least 2)"),
        ({"agent_names": "random"},
         f"agent_names='random' is one string: give a list of agent names, {example} (a leaderboard needs at least 2)"),
        ({"agent_names": Path("x")},
         f"agent_names=PosixPath('x') is one path: give a list of agent names, {example} (a leaderboard needs at least 2)"),
        ({"agent_names": ["lowest", load("random")]},
         "agent_names must hold agent names (registry names, paths, entry points or exec:COMMAND), got RandomAgent "
         "<RandomAgent 'random'>: the leaderboard loads every agent by its name and caches each pairing under the two "
         f"names, so that a later run resumes it ({example})"),
        ({"agent_names": ["lowest", 3]}, "agent_names must hold agent names (registry names, paths, entry points or "
         "exec:COMMAND), got int 3: the leaderboard loads every agent by its name and caches each pairing under the two "
         f"names, so that a later run resumes it ({example})"),
        ({"agent_names": ["lowest", " "]}, f"agent_names holds ' ', an empty name: give agent names, {example}"),
        ({"agent_names": {"lowest", "random"}}, None),
        ({"exec_timeout": -1}, "exec_timeout must be a positive number of seconds (default 10), got -1"),
        ({"exec_timeout": 0}, "exec_timeout must be a positive number of seconds (default 10), got 0"),
        ({"exec_timeout": "x"}, "exec_timeout must be a positive number of seconds (default 10), got 'x'"),
        ({"exec_timeout": True}, "exec_timeout must be a positive number of seconds (default 10), got True"),
        ({"exec_timeout": float("nan")}, "exec_timeout must be a positive number of seconds (default 10), got nan"),
        ({"exec_timeout": 1e300}, "exec_timeout must be at most 86,400 seconds (a day; default 10), got 1e+300"),
    ]
    for kw, msg in cases:
        args = {"agent_names": ["lowest", "avinas/rule"], **kw}
        with pytest.raises(ValueError) as e:
            run_leaderboard("avinas", n_deals=2, out=out, progress=False, **args)
        if msg is None:
            assert str(e.value).startswith("agent_names must be a list of agent names, e.g. ['random', 'avinas/rule'], got set ")
        else:
            assert str(e.value) == msg, kw
    assert list(tmp_path.iterdir()) == []  # nothing written
    # what is valid still plays: a tuple of names, a saved agent's path as a Path, a number of seconds (numpy's too)
    monkeypatch.undo()
    saved = Path(__file__).resolve().parent.parent / "agents" / "shipped" / "avinas_ppo"
    p = run_leaderboard("avinas", ("lowest", saved), 2, out, n_boot=10, progress=False, env_options={"honesty": "mask"},
                        exec_timeout=np.float64(5))
    assert p["agents"] == ["lowest", str(saved)]
    assert leaderboard.default_agents("pyanitsa") == ["random", "pyanitsa/rule", "pyanitsa/ppo", "pyanitsa/pimc"]


def test_cli_leaderboard_refuses_an_empty_out(tmp_path, monkeypatch, capsys):
    """`cardzoo leaderboard GAME --out ""` silently wrote to the default folder runs/leaderboard/GAME
    (an empty --out read as none): it is refused (exit code 2) naming the flag, and nothing is written."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: pytest.fail("a deal was played"))
    assert main(["leaderboard", "avinas", "lowest", "avinas/rule", "--deals", "2", "--out", ""]) == 2
    assert "--out '' is an empty path: give the folder to write, e.g. --out runs/leaderboard/avinas" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_cli_leaderboard_with_an_exec_bot(tmp_path, capsys):
    bot = f"exec:{sys.executable} {Path(__file__).resolve().parent.parent / 'training' / 'examples' / 'lowest_bot.py'}"
    out = tmp_path / "lb"
    assert main(["leaderboard", "ottocento", bot, "ottocento/rule", "lowest", "--deals", "4", "--boot", "20", "--out", str(out)]) == 0
    d = json.loads((out / "leaderboard.json").read_text())
    # the exec: bot and the in-process lowest agent play identically: exactly 0 between them
    assert d["matrix"][bot]["lowest"]["mean_diff"] == 0.0 and d["matrix"][bot]["lowest"]["win_rate"] == 0.5
    assert "written:" in capsys.readouterr().out


def test_the_leaderboard_page_publishes_the_fingerprints():
    page = (Path(__file__).resolve().parent.parent / "training" / "LEADERBOARD.md").read_text()
    for game, fp in FINGERPRINTS.items():
        assert f"`{fp}`" in page, game
    assert "numpy.random.default_rng([20261201, i, crc32(kind)])" in page


def test_a_bad_agent_leaves_no_folder_and_a_faulted_pairing_is_not_kept(tmp_path):
    out = tmp_path / "lb"
    with pytest.raises(ValueError, match="nope"):
        run_leaderboard("avinas", ["random", "avinas/nope"], 5, out, progress=False)
    assert not out.exists()
    missing = tmp_path / "missing_bot.py"
    payload = run_leaderboard("avinas", ["lowest", f"exec:{sys.executable} {missing}"], 4, out, progress=False)
    assert payload["pairs"][0]["faults"]  # reported ...
    assert list((out / "pairs").iterdir()) == []  # ... but not cached: the next run plays it again
    missing.write_text((Path(__file__).resolve().parent.parent / "training" / "examples" / "lowest_bot.py").read_text())
    payload = run_leaderboard("avinas", ["lowest", f"exec:{sys.executable} {missing}"], 4, out, progress=False)
    assert payload["pairs"][0]["faults"] == [] and payload["pairs"][0]["mean_diff"] == 0.0
    assert len(list((out / "pairs").iterdir())) == 1


def test_one_deal_writes_valid_json_with_null_cis_and_resumes(tmp_path, monkeypatch):
    """With 1 deal a CI is undefined: the pair files and leaderboard.json write it as null (valid
    JSON, through arena.json_safe), the keys and the defined values as with more deals; the
    Markdown says n/a; a resumed run reads the cached nulls back. The ratings' bootstrap (n_boot > 0,
    as the CLI's default 1000) gave a zero-width CI [r, r] with 1 deal: now none (null, n/a)."""
    def strict(text):  # json.loads accepts NaN; valid JSON has none
        return json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))

    names = ["lowest", "avinas/rule"]
    p = run_leaderboard("avinas", names, 1, tmp_path, n_boot=50, progress=False)
    d = strict((tmp_path / "leaderboard.json").read_text())
    (pair,) = (tmp_path / "pairs").glob("*.json")
    cached = strict(pair.read_text())
    assert cached["result"]["diff_ci"] == cached["result"]["win_ci"] == [None, None]
    assert isinstance(cached["result"]["mean_diff"], float) and len(cached["deal_diff"]) == 1
    assert [r["ci"] for r in d["ratings"]] == [[None, None]] * 2 and all(isinstance(r["rating"], float) for r in d["ratings"])
    for a, b in (names, names[::-1]):
        cell = d["matrix"][a][b]
        assert cell["diff_ci"] == cell["win_ci"] == [None, None] and isinstance(cell["mean_diff"], float), (a, b)
    assert sorted(d) == sorted(p) and d["matrix"]["avinas/rule"]["lowest"]["mean_diff"] == p["matrix"]["avinas/rule"]["lowest"]["mean_diff"]
    md = (tmp_path / "leaderboard.md").read_text()
    assert "nan" not in md and md.count("n/a (1 deal)") == 2 + 2 + 2  # ratings, differences, win rates
    assert "1 duplicate deal per pairing (deals 0..0 of seed" in md  # was "1 duplicate deals per pairing"
    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: pytest.fail("a cached pairing was replayed"))
    again = run_leaderboard("avinas", names, 1, tmp_path, n_boot=50, progress=False)
    assert strict((tmp_path / "leaderboard.json").read_text()) == d and (tmp_path / "leaderboard.md").read_text() == md
    assert again["matrix"]["avinas/rule"]["lowest"]["mean_diff"] == p["matrix"]["avinas/rule"]["lowest"]["mean_diff"]


def test_leaderboard_bad_counts_and_a_file_for_out_name_the_argument_or_flag(tmp_path, monkeypatch, capsys):
    """`cardzoo leaderboard --deals 0` said "need deals >= 1, batch >= 1, seed >= 0 and n_boot >= 0"
    (which one?), and an --out that is a file failed late with "[Errno 20] Not a directory". Each is
    now named: the argument from Python, the flag from the command line, before any deal is played."""
    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: pytest.fail("a deal was played"))
    two = ["lowest", "avinas/rule"]
    for kw, msg in (({"n_deals": 0}, "n_deals must be an int >= 1, got 0"), ({"batch": 0}, "batch must be an int >= 1, got 0"),
                    ({"n_boot": -1}, "n_boot must be an int >= 0, got -1"), ({"seed": -1}, "seed must be a non-negative int (it fixes the deals), got -1"),
                    ({"n_deals": 2.5}, "n_deals must be an int >= 1, got 2.5")):
        args = {"n_deals": 2, **kw}
        with pytest.raises(ValueError) as e:
            run_leaderboard("avinas", two, out=tmp_path / "lb", progress=False, **args)
        assert str(e.value) == msg
    a_file = tmp_path / "x.json"
    a_file.write_text("{}")
    for out, where in ((a_file, "it is a file"), (a_file / "sub", f"{str(a_file)!r} is a file")):
        with pytest.raises(ValueError) as e:
            run_leaderboard("avinas", two, 2, out, progress=False)
        assert str(e.value) == (f"out {str(out)!r} is not a folder ({where}): out is the folder the leaderboard writes "
                                "leaderboard.md, .json, .png and pairs/ to, e.g. runs/leaderboard/avinas")
    for flags, msg in ((["--deals", "0"], "--deals must be an int >= 1, got 0"), (["--batch", "0"], "--batch must be an int >= 1, got 0"),
                       (["--boot", "-1"], "--boot must be an int >= 0, got -1"),
                       (["--out", str(a_file)], f"--out {str(a_file)!r} is not a folder (it is a file): --out is the folder the leaderboard "
                                                "writes leaderboard.md, .json, .png and pairs/ to, e.g. --out runs/leaderboard/avinas")):
        argv = ["leaderboard", "avinas", *two, "--deals", "2", "--out", str(tmp_path / "lb"), *flags]
        assert main(argv) == 2
        assert msg in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]
    assert a_file.read_text() == "{}"


def test_a_zero_is_printed_as_zero_never_minus_zero(tmp_path):
    """The 1-deal leaderboard printed "-0.000": the cell below the diagonal is the flipped mean
    (-0.0). arena.num_text, the formatter of the leaderboard and the arena tables, writes zero as zero."""
    assert arena.num_text(-0.0, "+.3f") == "+0.000" and arena.num_text(-0.0001, "+.3f") == "+0.000"
    assert arena.num_text(-0.4, "+.0f") == "+0" and arena.num_text(-0.6, "+.0f") == "-1" and arena.num_text(0.25, ".3f") == "0.250"
    assert arena.ci_text(-0.0, 0.0, "+.3f", 5) == "[+0.000, +0.000]"
    p = run_leaderboard("all_fours", ["random", "all_fours/rule", "lowest"], 1, tmp_path / "lb", n_boot=0, progress=False)
    flipped = [c["mean_diff"] for row in p["matrix"].values() for c in row.values() if c["mean_diff"] == 0]
    assert any(math.copysign(1, d) < 0 for d in flipped)  # the case this is about: a -0.0 in the matrix
    text = leaderboard.markdown(p)
    assert "-0.000" not in text and "| `lowest` | +0.000 n/a (1 deal) | +0.000 n/a (1 deal) |  |" in text


SHIPPED_3P = Path(__file__).resolve().parent.parent / "agents" / "shipped" / "pyanitsa_ppo_3p"


def test_a_trained_agent_is_refused_for_options_it_was_not_trained_for(tmp_path, capsys):
    """The leaderboard played pyanitsa/ppo (trained for collect_order=winner_chooses) under the default
    options without a word, and a saved 3-player agent on a 2-player board failed mid-run with
    "expected observation [B, 236] ..." after making OUT/pairs. Both are refused before anything is
    written, naming the options; --force-agent plays the first anyway, with a note."""
    out = tmp_path / "lb"
    with pytest.raises(ValueError) as e:
        run_leaderboard("pyanitsa", ["random", "pyanitsa/ppo"], 2, out, progress=False)
    assert str(e.value) == (
        "pyanitsa/ppo was trained for other pyanitsa options (collect_order: trained 'winner_chooses', here 'winner_first'): "
        "give the options it was trained for (-o collect_order=winner_chooses), or force_agent=True "
        "(cardzoo leaderboard --force-agent) to play it anyway")
    with pytest.raises(ValueError) as e:
        run_leaderboard("pyanitsa", ["random", str(SHIPPED_3P)], 2, out, progress=False, force_agent=True)
    assert str(e.value).startswith(
        f"{SHIPPED_3P} was trained for other pyanitsa options (collect_order: trained 'winner_chooses', here 'winner_first'; "
        "num_players: trained 3, here 2), which give another observation")
    assert not out.exists()
    said = []
    p = run_leaderboard("pyanitsa", ["random", "pyanitsa/ppo"], 2, out, progress=False, force_agent=True, say=said.append)
    assert said == ["note: playing pyanitsa/ppo although it was trained for other options "
                    "(collect_order: trained 'winner_chooses', here 'winner_first')"]
    assert sorted(r["agent"] for r in p["ratings"]) == ["pyanitsa/ppo", "random"]
    argv = ["leaderboard", "pyanitsa", "random", "pyanitsa/ppo", "--deals", "2", "--out", str(tmp_path / "cli")]
    assert main(argv) == 2
    assert "give the options it was trained for (-o collect_order=winner_chooses)" in capsys.readouterr().err
    assert not (tmp_path / "cli").exists()
    assert main([*argv, "-o", "collect_order=winner_chooses"]) == 0
    assert "note:" not in capsys.readouterr().out


def test_the_default_agents_leave_out_a_shipped_agent_trained_for_other_options(tmp_path):
    said = []
    p = run_leaderboard("pyanitsa", None, 2, tmp_path / "lb", progress=False, say=said.append)
    assert sorted(r["agent"] for r in p["ratings"]) == ["pyanitsa/pimc", "pyanitsa/rule", "random"]
    assert said == ["note: pyanitsa/ppo is left out of the default agents: pyanitsa/ppo was trained for other pyanitsa options "
                    "(collect_order: trained 'winner_chooses', here 'winner_first'): give the options it was trained for "
                    "(-o collect_order=winner_chooses), or force_agent=True (cardzoo leaderboard --force-agent) to play it anyway"]
    p = run_leaderboard("pyanitsa", None, 2, tmp_path / "fits", progress=False, say=said.append,
                        env_options={"collect_order": "winner_chooses"})
    assert sorted(r["agent"] for r in p["ratings"]) == ["pyanitsa/pimc", "pyanitsa/ppo", "pyanitsa/rule", "random"]
    assert len(said) == 1


def test_the_batch_help_says_a_stochastic_agent_depends_on_it(tmp_path):
    """`cardzoo leaderboard --help` said --batch is "speed only", but random (a default agent) draws
    for a whole batch: the same board with --batch 7 gives random other results."""
    import argparse

    from cardzoo.training.cli import build_parser

    a = run_leaderboard("all_fours", ["random", "all_fours/rule"], 20, tmp_path / "a", n_boot=0, progress=False)
    b = run_leaderboard("all_fours", ["random", "all_fours/rule"], 20, tmp_path / "b", batch=7, n_boot=0, progress=False)
    assert a["matrix"]["random"]["all_fours/rule"]["mean_diff"] != b["matrix"]["random"]["all_fours/rule"]["mean_diff"]
    sub = next(x for x in build_parser()._actions if isinstance(x, argparse._SubParsersAction))
    text = sub.choices["leaderboard"]._option_string_actions["--batch"].help
    assert "speed only" not in text
    assert "except for stochastic agents (random, GAME/pimc), which draw one batch at a time" in text
    page = (Path(__file__).resolve().parent.parent / "training" / "LEADERBOARD.md").read_text()
    assert "reproduce or resume a board with the same `--batch`" in page


def test_the_leaderboard_page_shows_the_committed_boards():
    """Each game's section of training/LEADERBOARD.md shows the ratings and the mean-difference
    matrix of its board file (training/leaderboards/GAME/leaderboard.md), so a regenerated board is
    regenerated on the page too (the Ottocento board was, after the lone-Matto rules fix)."""
    root = Path(__file__).resolve().parent.parent / "training"
    page = (root / "LEADERBOARD.md").read_text()
    for game in ("all_fours", "avinas", "aluette", "ottocento", "pyanitsa"):
        board = (root / "leaderboards" / game / "leaderboard.md").read_text()
        at = page.index(f"--out training/leaderboards/{game}`")
        section = page[at : page.index("![", at)]
        rows = [x for x in board.split("## Head to head: pairwise win rate")[0].splitlines() if x.startswith("| ")]
        assert rows and all(row in section for row in rows), game


def test_a_cached_pairing_of_another_agent_saved_at_the_same_path_is_refused(tmp_path, monkeypatch):
    """Pairings are cached by agent name; a saved agent given by path that was retrained or replaced there kept
    its old results on a rerun, silently. The pairing now records the agent's files (SHA-256) and a changed agent
    is refused by name, before anything is played; an unchanged one resumes as before."""
    import shutil
    from pathlib import Path

    src = Path(__file__).resolve().parent.parent / "agents" / "shipped" / "avinas_ppo"
    agent = tmp_path / "my_agent"
    agent.mkdir()
    for f in ("agent.json", "weights.safetensors"):
        shutil.copy(src / f, agent / f)
    out = tmp_path / "lb"
    names = [str(agent), "avinas/rule"]
    MASK = {"honesty": "mask"}  # the options the shipped agent was trained for
    first = run_leaderboard("avinas", names, 4, out, n_boot=10, progress=False, env_options=MASK)
    (pair,) = (out / "pairs").glob("*.json")
    ident = json.loads(pair.read_text())["identity"]
    assert ident[0] is not None and len(ident[0]) == 16 and ident[1] is None  # a registered name has no files to compare
    monkeypatch.setattr(arena, "play_duplicate", lambda *a, **k: pytest.fail("a cached pairing was replayed"))
    assert run_leaderboard("avinas", names, 4, out, n_boot=10, progress=False, env_options=MASK)["matrix"] == first["matrix"]
    with open(agent / "weights.safetensors", "ab") as f:  # another agent saved at the same path
        f.write(b"retrained")
    before = pair.read_text()
    with pytest.raises(ValueError) as e:
        run_leaderboard("avinas", names, 4, out, n_boot=10, progress=False, env_options=MASK)
    assert str(e.value).startswith(f"{pair} was played by another agent saved at {agent} (its files have changed since: {ident[0]} -> ")
    assert str(e.value).endswith("delete that file to play the pairing again with the agent there now, or give another folder as out")
    assert e.value.cli_message.endswith("delete that file to play the pairing again with the agent there now, or use another --out folder")
    assert pair.read_text() == before


def test_an_interrupted_leaderboard_says_what_is_cached(tmp_path, monkeypatch, capsys):
    interrupt_at_call(monkeypatch, arena, "play_duplicate", 2)
    with pytest.raises(KeyboardInterrupt):
        run_leaderboard("avinas", ["lowest", "avinas/rule", "random"], 3, tmp_path, n_boot=10, progress=False)
    assert capsys.readouterr().err == (f"\ninterrupted: 1 of 3 pairings are cached in {tmp_path / 'pairs'}; run the same "
                                       "command again (with the same --batch) to play the others\n")
    assert [p.suffix for p in (tmp_path / "pairs").iterdir()] == [".json"]


def test_no_bootstrap_says_so_not_too_few_deals(tmp_path):
    """--boot 0 printed every rating CI as "n/a (6 deals)", as if 6 deals could not give one; it now says no
    bootstrap was asked for (leaderboard.json: null, and n_boot 0)."""
    p = run_leaderboard("avinas", ["lowest", "avinas/rule"], 6, tmp_path, n_boot=0, progress=False)
    md = (tmp_path / "leaderboard.md").read_text()
    assert md.count("| n/a (no bootstrap: --boot 0) |") == 2 and "n/a (6 deals)" not in md
    d = json.loads((tmp_path / "leaderboard.json").read_text())
    assert d["n_boot"] == 0 == p["n_boot"] and all(r["ci"] == [None, None] for r in d["ratings"])
    one = run_leaderboard("avinas", ["lowest", "avinas/rule"], 1, tmp_path / "one", n_boot=0, progress=False)
    assert "| n/a (1 deal) |" in leaderboard.markdown(one)


def test_a_resume_with_another_batch_says_so_and_the_board_records_it(tmp_path):
    """A stochastic agent's pairing depends on --batch, but nothing recorded the batch: a resume with another
    --batch mixed pairings of both without a word and a reader could not reproduce the board. Each pairing now
    records its batch, leaderboard.json lists them, and a resume with another batch says so."""
    said = []
    run_leaderboard("avinas", ["lowest", "random"], 5, tmp_path, batch=2, n_boot=10, progress=False, say=said.append)
    assert said == [] and json.loads((tmp_path / "leaderboard.json").read_text())["batch"] == [2]
    p = run_leaderboard("avinas", ["lowest", "random", "avinas/rule"], 5, tmp_path, batch=3, n_boot=10, progress=False,
                        say=said.append)
    assert said == [f"note: cached pairings in {tmp_path / 'pairs'} were played with batch 2, this run plays with 3: a pairing "
                    "of a stochastic agent (random, GAME/pimc, GAME/ismcts) depends on it (ARENA.md#exact-duplicates); "
                    "give the same --batch to reproduce the board"]
    assert p["batch"] == [2, 3]
    assert sorted(json.loads(f.read_text())["batch"] for f in (tmp_path / "pairs").glob("*.json")) == [2, 3, 3]


def test_with_three_players_each_agent_sits_alone_against_the_other_and_the_order_given_does_not_matter(tmp_path):
    """A P'yanitsa pairing of 3 or 4 players seats A alone against copies of B. The leaderboard played
    each pair once (the first agent named alone) and filled the other cell with minus its result:
    `random` against 2 x `pyanitsa/rule` read -0.100 / 0.450 on 40 deals where random alone against them
    scores -0.350 / 0.325, and the ratings changed with the order the agents were given. Both
    orientations are now played; each cell is the row agent alone, and the ratings count both."""
    opts = {"num_players": 3, "collect_order": "winner_chooses"}
    one = run_leaderboard("pyanitsa", ["pyanitsa/rule", "lowest"], 8, tmp_path / "a", env_options=opts, n_boot=20, progress=False)
    two = run_leaderboard("pyanitsa", ["lowest", "pyanitsa/rule"], 8, tmp_path / "b", env_options=opts, n_boot=20, progress=False)
    assert len(list((tmp_path / "a" / "pairs").glob("*.json"))) == 2
    for a, b in (("pyanitsa/rule", "lowest"), ("lowest", "pyanitsa/rule")):
        ref = play_duplicate("pyanitsa", a, b, 8, seed=BENCH_SEED, env_options=opts)
        for p in (one, two):
            cell = p["matrix"][a][b]
            assert cell["mean_diff"] == pytest.approx(ref.mean_diff, abs=1e-12) and cell["win_rate"] == pytest.approx(ref.win_rate, abs=1e-12)
    rule_alone = play_duplicate("pyanitsa", "pyanitsa/rule", "lowest", 8, seed=BENCH_SEED, env_options=opts)
    low_alone = play_duplicate("pyanitsa", "lowest", "pyanitsa/rule", 8, seed=BENCH_SEED, env_options=opts)
    assert rule_alone.mean_diff != pytest.approx(-low_alone.mean_diff)  # the two orientations do differ here
    # Bradley-Terry on the games of both orientations: 8 deals x 3 seatings each way
    wins = rule_alone.deal_win.sum() * 3 + (24 - low_alone.deal_win.sum() * 3)
    want = arena.bradley_terry(np.array([[0.0, wins], [48.0 - wins, 0.0]]))
    for p in (one, two):
        got = {r["agent"]: r["rating"] for r in p["ratings"]}
        assert [got["pyanitsa/rule"], got["lowest"]] == pytest.approx(want.tolist(), abs=1e-9)
    assert "each cell is the row agent alone against 2 copies of the column agent" in (tmp_path / "a" / "leaderboard.md").read_text()


def test_a_stochastic_agent_cached_at_another_place_in_the_list_is_refused(tmp_path):
    """A stochastic agent is built with seed + its place in the list of agents. A board extended with
    an agent put first reused the cached `random` vs `lowest` pairing (random built with seed + 0)
    where the same command in a fresh folder plays it with seed + 1: random's row read -0.625 on the
    resumed board and -1.188 on the fresh one (avinas, 8 deals), silently. Such a resume is now refused
    before anything is played, naming the agent and the two places; new agents at the end resume."""
    out = tmp_path / "lb"
    run_leaderboard("avinas", ["random", "lowest"], 4, out, n_boot=10, progress=False)
    with pytest.raises(ValueError) as e:
        run_leaderboard("avinas", ["avinas/rule", "random", "lowest"], 4, out, n_boot=10, progress=False)
    assert str(e.value) == (
        f"{out / 'pairs' / 'random__vs__lowest.json'} was played with random built with seed {BENCH_SEED} (the seed plus its "
        f"place, 0, in the list of agents then); here it is at place 1 (seed {BENCH_SEED + 1}), so that pairing is not what "
        "this command plays: give the agents in the order of the earlier run (new ones at the end), or give another folder as out")
    assert e.value.cli_message == str(e.value).replace("give another folder as out", "use another --out folder")
    assert sorted(p.name for p in (out / "pairs").iterdir()) == ["random__vs__lowest.json"]
    # new agents at the end: the cached pairing is the one a fresh run plays
    resumed = run_leaderboard("avinas", ["random", "lowest", "avinas/rule"], 4, out, n_boot=10, progress=False)
    fresh = run_leaderboard("avinas", ["random", "lowest", "avinas/rule"], 4, tmp_path / "fresh", n_boot=10, progress=False)
    assert resumed["matrix"] == fresh["matrix"] and resumed["ratings"] == fresh["ratings"]
    # a deterministic agent may move: lowest and the rule bot take no seed
    again = run_leaderboard("avinas", ["random", "avinas/rule", "lowest"], 4, out, n_boot=10, progress=False)
    assert again["matrix"]["random"]["lowest"] == fresh["matrix"]["random"]["lowest"]


def test_a_folder_holding_another_games_board_is_refused_before_anything_is_written(tmp_path):
    """The pairing files of another game have other names than this run's pairs, so none was read
    and another game's board in --out was overwritten (leaderboard.md/json/png) and mixed with it."""
    run_leaderboard("avinas", ["lowest", "random"], 4, tmp_path, progress=False)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    assert set(before) >= {"leaderboard.md", "leaderboard.json"}
    with pytest.raises(ValueError, match=r"lowest__vs__random\.json holds a pairing played with other settings "
                                         r"\(game \"avinas\", not \"aluette\"\): give another folder as out"):
        run_leaderboard("aluette", ["aluette/rule", "lowest"], 4, tmp_path, progress=False)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert sorted(p.name for p in (tmp_path / "pairs").iterdir()) == ["lowest__vs__random.json"]


def test_an_exec_bot_that_faulted_is_marked_in_the_board(tmp_path):
    """leaderboard.md did not mark an exec: bot that faulted during the run: from its fault on the lowest
    legal action was played in its place, so its rating was not the bot's, and the board looked like any
    other. The bot is now marked "(faulted)" in every table, a note names its pairings and its first fault,
    and leaderboard.json has them under "faulted"; the agents that did not fault are not marked."""
    from bot_util import replying_bot

    bot = "exec:" + replying_bot(tmp_path, "bad_bot", "print('not json', flush=True)")  # faults at its first move
    names = ["lowest", "avinas/rule", bot]
    p = run_leaderboard("avinas", names, 4, tmp_path / "lb", n_boot=0, progress=False)
    bot_faults = [f for r in p["pairs"] if bot in (r["agent_a"], r["agent_b"]) for f in r["faults"]]
    assert bot_faults and all(f.startswith(f"bot {bot!r}, game avinas, ") for f in bot_faults)
    assert p["faulted"] == {bot: {"pairings": ["lowest", "avinas/rule"], "faults": bot_faults}}
    assert sorted(json.loads((tmp_path / "lb" / "leaderboard.json").read_text())["faulted"]) == [bot]
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    n = len(bot_faults)
    note = (f"**Faulted**: `{bot}` faulted in its pairings with `lowest`, `avinas/rule` ({n} faults; the first: {bot_faults[0]}). "
            "From a fault on, the bot is stopped and the lowest legal action is played in its place for the rest of the pairing, "
            "so these results and its rating are not the bot's own. A pairing with a fault is not cached: fix the bot and run "
            "the same command again to replay it.")
    assert f"\n\n{note}\n\n" in md
    assert md.count(f"`{bot}` (faulted)") == 1 + 2 * 2  # the ratings row; the row and the column of both matrices
    assert "`lowest` (faulted)" not in md and "`avinas/rule` (faulted)" not in md
    assert [f.name for f in (tmp_path / "lb" / "pairs").iterdir()] == [leaderboard._pair_file(tmp_path, "lowest", "avinas/rule").name]
    # a clean run marks nothing and says nothing of faults (a cached clean pairing has none)
    clean = run_leaderboard("avinas", names[:2], 4, tmp_path / "lb", n_boot=0, progress=False)
    assert clean["faulted"] == {} and "faulted" not in (tmp_path / "lb" / "leaderboard.md").read_text().lower()

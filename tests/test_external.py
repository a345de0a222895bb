"""Bots from outside the package (issue 17): the exec: JSON-lines protocol (a Python bot and a
bash bot give exactly the in-process lowest-legal agent's results; every kind of fault is named
and never hangs; a process per seat, so that no process sees another seat's cards) and the
``cardzoo.agents`` entry-point group."""

from __future__ import annotations

import json
import re
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from cardzoo import agents, envs
from cardzoo.agents.external import ExecAgent
from cardzoo.training.arena import play_duplicate
from cardzoo.training.cli import main

from bot_util import bot_command, replying_bot

ROOT = Path(__file__).resolve().parent.parent
PY_BOT = f"exec:{sys.executable} {ROOT / 'training' / 'examples' / 'lowest_bot.py'}"
SH_BOT = f"exec:bash {ROOT / 'training' / 'examples' / 'lowest_bot.sh'}"
GAMES = [("all_fours", {}), ("avinas", {}), ("aluette", {}), ("ottocento", {}), ("pyanitsa", {"num_players": 3})]


@pytest.mark.parametrize("game,opts", GAMES, ids=[g for g, _ in GAMES])
def test_python_exec_bot_equals_the_in_process_lowest_agent(game, opts):
    ref = play_duplicate(game, "lowest", f"{game}/rule", 6, seed=4, batch=4, env_options=opts)
    got = play_duplicate(game, PY_BOT, f"{game}/rule", 6, seed=4, batch=4, env_options=opts)
    assert np.array_equal(got.deal_diff, ref.deal_diff) and np.array_equal(got.deal_win, ref.deal_win)
    assert got.faults == [] and got.agent_a == PY_BOT


@pytest.mark.parametrize("game", ["all_fours", "ottocento"])
def test_bash_exec_bot_equals_the_in_process_lowest_agent(game):
    ref = play_duplicate(game, "lowest", f"{game}/rule", 5, seed=6, batch=5)
    got = play_duplicate(game, f"{game}/rule", SH_BOT, 5, seed=6, batch=2)
    assert np.array_equal(got.deal_diff, -ref.deal_diff) and got.faults == []


_bot = bot_command


def _recording_bot(tmp_path, logs: Path, on_act: str = 'print(json.dumps({"action": m["legal_actions"][0]}), flush=True)',
                   name: str = "recorder") -> str:
    """A bot that writes every message it receives to ``logs/<its pid>.jsonl`` (an act message with the
    time it came, ``"t"``: the processes are asked one after another, so the times order the decisions
    of all of them) and runs ``on_act`` (which sees the message as ``m`` and the hello as ``hello``)."""
    logs.mkdir(exist_ok=True)
    return bot_command(tmp_path, name, f"""
        import os
        log = open(os.path.join({str(logs)!r}, f"{{os.getpid()}}.jsonl"), "a")
        hello = None
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "act":
                m["t"] = time.monotonic_ns()
            log.write(json.dumps(m) + "\\n"); log.flush()
            if m["type"] == "hello":
                hello = m
                print(json.dumps({{"type": "ready"}}), flush=True)
            elif m["type"] == "act":
{textwrap.indent(textwrap.dedent(on_act).strip(), " " * 16)}
        """)


def _logs(logs: Path) -> dict[int, list[dict]]:
    """``{pid: the messages that process received, in order}`` of a :func:`_recording_bot`."""
    return {int(f.stem): [json.loads(x) for x in f.read_text().splitlines()] for f in sorted(logs.glob("*.jsonl"))}


def _decisions(logs: Path) -> list[tuple[int, dict]]:
    """Every act message of every process of a :func:`_recording_bot`, ``(pid, message)``, in the order asked."""
    return sorted(((pid, m) for pid, msgs in _logs(logs).items() for m in msgs if m["type"] == "act"), key=lambda x: x[1]["t"])


def test_the_messages_follow_the_protocol(tmp_path):
    logs = tmp_path / "logs"
    bot = ExecAgent(_recording_bot(tmp_path, logs), name="recorder")
    r = play_duplicate("all_fours", bot, "all_fours/rule", 3, seed=2, env_options={"undertrump": "forbidden"})
    bot.close()  # the processes read their last end messages, then their input ends
    k = envs.kernel("all_fours", undertrump="forbidden")
    per_process = _logs(logs)
    assert len(per_process) == 4  # a process per seat: seats 0 and 2 in seating 0, 1 and 3 in seating 1
    hellos = [msgs[0] for msgs in per_process.values()]
    assert sorted(h.pop("seat") for h in hellos) == [0, 1, 2, 3]
    for hello in hellos:
        assert hello == {
            "type": "hello", "protocol": 1, "game": "all_fours", "options": dict(k.options),
            "num_actions": k.num_actions, "action_names": [k.action_name(a) for a in range(k.num_actions)],
        }
    msgs = [m for ms in per_process.values() for m in ms]
    acts = [m for m in msgs if m["type"] == "act"]
    ends = [m for m in msgs if m["type"] == "end"]
    assert all(len([m for m in ms if m["type"] == "end"]) == 3 for ms in per_process.values())  # its seating's 3 episodes
    assert len(ends) == 2 * r.n_hands == 12  # one per episode (both seatings) and process of the bot's seats in it
    assert all(len(e["rewards"]) == 4 and sum(e["rewards"]) == 0 for e in ends)
    a = acts[0]
    assert set(a) == {"type", "seat", "observation", "action_mask", "legal_actions", "text", "t"}  # t: the recording bot's
    assert len(a["observation"]) == k.obs_layout.size and len(a["action_mask"]) == k.num_actions
    assert a["legal_actions"] == [i for i, v in enumerate(a["action_mask"]) if v]
    # the per-seat text view: the seat, and its legal actions by name
    assert a["text"].startswith(f"You are S{a['seat']} (player_{a['seat']}) in all_fours.")
    assert all(k.action_name(x) in a["text"] for x in a["legal_actions"])
    assert {m["seat"] for m in acts} == {0, 1, 2, 3}  # both teams, both seatings


FAULTS = {
    "invalid_json": ("""
        for line in sys.stdin:
            m = json.loads(line)
            print('{"type": "ready"}' if m["type"] == "hello" else "not json", flush=True)
        """, "sent invalid JSON"),
    # a number of over 4,300 digits: json.loads raised "Exceeds the limit (4300 digits) ...", which ended the run
    "huge_number": ("""
        for line in sys.stdin:
            m = json.loads(line)
            print('{"type": "ready"}' if m["type"] == "hello" else '{"action": ' + "9" * 5000 + '}', flush=True)
        """, "sent invalid JSON for the act message: b'{\"action\": 9999"),
    "illegal": ("""
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                print('{"type": "ready"}', flush=True)
            elif m["type"] == "act":
                bad = [i for i, v in enumerate(m["action_mask"]) if not v][0]
                print(json.dumps({"action": bad}), flush=True)
        """, "played illegal action"),
    "crash": ("""
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                print('{"type": "ready"}', flush=True)
            else:
                sys.stderr.write("boom\\n"); sys.exit(3)
        """, "crashed during the act message (exit status 3); its stderr ends: 'boom'"),
    "timeout": ("""
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                print('{"type": "ready"}', flush=True)
            else:
                time.sleep(30)
        """, "gave no answer to the act message within the timeout of 0.5 s"),
    "no_ready": ("""
        time.sleep(30)
        """, "gave no answer to the hello within the timeout of 0.5 s"),
}


@pytest.mark.parametrize("kind", list(FAULTS))
def test_faults_are_named_and_scored_with_the_fallback(tmp_path, kind):
    body, expected = FAULTS[kind]
    name = f"exec:{_bot(tmp_path, kind, body)}"
    bot = ExecAgent(name[5:], timeout=0.5, name=name)
    with pytest.warns(RuntimeWarning, match="the bot is stopped"):
        r = play_duplicate("ottocento", bot, "ottocento/rule", 4, seed=1, batch=4)
    assert len(r.faults) == 1
    msg = r.faults[0]
    assert msg.startswith(f"bot {name!r}, game ottocento, ")
    assert expected in msg
    if kind != "no_ready":
        assert "decision 1 (deal 0, seating 0, seat " in msg and "legal [" in msg
    else:  # the process of the seat of the first decision is started for it, and fails its hello
        assert re.search(r", hello \(seat \d; started for decision 1, deal 0, seating 0\): gave no answer", msg), msg
    # documented scoring: from the fault on, the bot plays the lowest legal action; here the fault
    # is its first decision, so the whole run equals the in-process lowest agent's
    ref = play_duplicate("ottocento", "lowest", "ottocento/rule", 4, seed=1, batch=4)
    assert np.array_equal(r.deal_diff, ref.deal_diff)
    assert bot.procs == {} and bot.failed


def test_cli_reports_faults_and_exits_1(tmp_path, capsys):
    """The fault is one `fault:` line after the results; it was also shown mid-progress-bar as a Python
    RuntimeWarning (file, line and source line), so every fault appeared twice."""
    body, _ = FAULTS["illegal"]
    cmd = _bot(tmp_path, "illegal", body)
    out = tmp_path / "r.json"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rc = main(["arena", "ottocento", f"exec:{cmd}", "ottocento/rule", "--deals", "3", "--exec-timeout", "2", "--json", str(out)])
    assert rc == 1
    assert [w for w in caught if issubclass(w.category, RuntimeWarning)] == []
    text = capsys.readouterr().out
    assert text.count("fault:") == 1 and "illegal" in text
    assert "illegal" in json.loads(out.read_text())["faults"][0]


def test_exec_agent_bad_input():
    with pytest.raises(ValueError, match="needs a command after 'exec:'"):
        agents.load("exec:")
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        ExecAgent("python3 x.py", timeout=0)
    with pytest.raises(ValueError, match="cannot be split into words"):
        ExecAgent("python3 'unclosed")
    with pytest.raises(ValueError, match="call begin"):
        ExecAgent("python3 x.py").act_state(envs.kernel("avinas").init(np.random.default_rng(0), 1))
    with pytest.raises(ValueError, match="the program '/no/such/program' does not exist"):
        agents.load("exec:/no/such/program --flag")  # refused up front (test_a_program_that_cannot_run_is_refused_up_front)


def test_entry_point_agents(tmp_path, monkeypatch):
    """An installed package registers an agent in the group cardzoo.agents; load() and
    available() find it by name."""
    (tmp_path / "fake_cardzoo_bot.py").write_text(
        "from cardzoo.agents.lowest import LowestLegalAgent\n"
        "def make(**env_options):\n"
        "    a = LowestLegalAgent(); a.name = 'plugin-lowest'; a.options = env_options; return a\n"
    )
    info = tmp_path / "fake_cardzoo_bot-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-cardzoo-bot\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[cardzoo.agents]\nplugin-lowest = fake_cardzoo_bot:make\nbroken = fake_cardzoo_bot:nothing\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "plugin-lowest" in agents.available()
    a = agents.load("plugin-lowest", episode="match")
    assert a.name == "plugin-lowest" and a.options == {"episode": "match"}
    r = play_duplicate("avinas", "plugin-lowest", "avinas/rule", 4, seed=3)
    ref = play_duplicate("avinas", "lowest", "avinas/rule", 4, seed=3)
    assert np.array_equal(r.deal_diff, ref.deal_diff)
    with pytest.raises(ValueError, match="'broken' .* does not load: AttributeError"):
        agents.load("broken")


def test_the_protocol_page_shows_the_shipped_example_bot():
    page = (ROOT / "training" / "BOTS.md").read_text()
    bot = (ROOT / "training" / "examples" / "lowest_bot.py").read_text()
    assert f"```python no-run\n{bot}```" in page
    assert len([x for x in bot.splitlines() if x.strip() and not x.startswith(("#", '"""', "Run it"))]) <= 16


@pytest.mark.parametrize("bot_first", [True, False])
def test_a_fault_names_the_deal_it_happened_in(tmp_path, bot_first):
    """With --batch 1 the deals are played one after another, each in its two seatings, so a bot
    that turns illegal at its third decision after 3 ``end`` messages does so in deal 3 (a process,
    one per seat, hears the end of its seating's episode only: one a deal). The fault message named
    deal 38 of 20 and the like: the chunk's first deal was overwritten while the actions were split."""
    cmd = _bot(tmp_path, "late", """
        ends = late = 0
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                print('{"type": "ready"}', flush=True)
            elif m["type"] == "end":
                ends += 1
            elif m["type"] == "act":
                late += ends >= 3
                bad = [i for i, v in enumerate(m["action_mask"]) if not v][0]
                print(json.dumps({"action": bad if late == 3 else m["legal_actions"][0]}), flush=True)
        """)
    bot = ExecAgent(cmd, timeout=5, name="late")
    pair = (bot, "all_fours/rule") if bot_first else ("all_fours/rule", bot)
    with pytest.warns(RuntimeWarning, match="the bot is stopped"):
        r = play_duplicate("all_fours", *pair, 5, seed=1, batch=1)
    assert len(r.faults) == 1
    assert "played illegal action" in r.faults[0]
    assert ", decision " in r.faults[0] and " (deal 3, seating " in r.faults[0], r.faults[0]


def test_every_game_sends_the_seats_text_view_as_the_protocol_page_says(tmp_path):
    """BOTS.md said `text` "is empty ("") until the kernels have a per-seat text view" and showed
    "text": "" in the act message, while every game sends the seat's text view."""
    log = tmp_path / "log.jsonl"
    cmd = _bot(tmp_path, "logger", f"""
        log = open({str(log)!r}, "a")
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                print(json.dumps({{"type": "ready"}}), flush=True)
            elif m["type"] == "act":
                log.write(line); log.flush()
                print(json.dumps({{"action": m["legal_actions"][0]}}), flush=True)
        """)
    for game in sorted(envs.GAMES):
        log.write_text("")
        play_duplicate(game, f"exec:{cmd}", "lowest", 1, seed=3)
        acts = [json.loads(x) for x in log.read_text().splitlines()]
        k = envs.kernel(game)
        assert acts, game
        for a in acts:
            assert a["text"].startswith(f"You are S{a['seat']} (player_{a['seat']}) in {game}."), (game, a["text"][:80])
            assert a["text"].endswith("Legal actions: " + " ".join(k.action_name(x) for x in a["legal_actions"])), game
    page = (ROOT / "training" / "BOTS.md").read_text()
    assert '"text": ""' not in page and "It is empty" not in page
    assert '"text": "You are S2 (player_2) in all_fours. ..."' in page and "Every game\n  sends it." in page


def test_a_program_that_cannot_run_is_refused_up_front(tmp_path, capsys):
    """`cardzoo arena all_fours exec:/no/such/bot all_fours/rule` played the whole run with the lowest-action
    fallback and exited 1 ("could not start"); a script without its interpreter or execute bit
    ("Permission denied") the same. The program (the command's first word) is now checked when the
    agent is made: a ValueError names it and says what is valid, and the CLI exits 2 before any deal."""
    script = tmp_path / "bot.py"
    script.write_text("print('never run')\n")  # not executable
    cases = {
        "/no/such/bot --level 2": "the program '/no/such/bot' does not exist; give the path of an executable file",
        str(script): f"the program '{script}' is not executable; make it executable (chmod +x {script}) or name its "
                     f"interpreter, e.g. exec:python3 {script}",
        str(tmp_path): f"the program '{tmp_path}' is a folder",
        "no_such_program_cardzoo_xyz my_bot.py": "no program 'no_such_program_cardzoo_xyz' on PATH",
    }
    for command, expected in cases.items():
        with pytest.raises(ValueError) as e:
            ExecAgent(command)
        assert str(e.value).startswith(f"exec: agent command {command!r}: ") and expected in str(e.value)
        assert main(["arena", "avinas", f"exec:{command}", "avinas/rule", "--deals", "2"]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and expected in captured.err
    script.chmod(0o755)
    assert ExecAgent(str(script)).argv == [str(script)]  # an executable file is fine (it runs when the arena begins)


def _state(pid: int) -> str | None:
    """The process state letter of ``pid`` from /proc (``None``: no such process)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def _gone(pid: int) -> bool:
    import time

    for _ in range(500):  # the kill is sent at once, the exit is asynchronous: read the state for up to 5 s
        if _state(pid) in (None, "Z", "X"):
            return True
        time.sleep(0.01)
    return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
@pytest.mark.parametrize("how", ["fault", "close"])
def test_stopping_a_bot_stops_what_it_started(tmp_path, how):
    """A bot started a helper (`sleep 300`) and hung: at the timeout the bot was killed but the helper
    was left running, reparented to init; the same after a normal end when the bot left it behind.
    The bot now runs in a process group of its own and the group is killed when the bot is stopped."""
    pidfile = tmp_path / "child.pid"
    cmd = _bot(tmp_path, "spawner", f"""
        import subprocess
        child = subprocess.Popen(["sleep", "300"])
        open({str(pidfile)!r}, "a").write(f"{{child.pid}}\\n")
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                print('{{"type": "ready"}}', flush=True)
            elif m["type"] == "act":
                if {how == "fault"!r}:
                    time.sleep(30)
                print(json.dumps({{"action": m["legal_actions"][0]}}), flush=True)
        """)
    bot = ExecAgent(cmd, timeout=0.5, name="spawner")
    if how == "fault":
        with pytest.warns(RuntimeWarning, match="gave no answer to the act message within the timeout of 0.5 s"):
            play_duplicate("avinas", bot, "lowest", 1, seed=0)
        assert bot.failed
    else:
        play_duplicate("avinas", bot, "lowest", 1, seed=0)
        assert not bot.failed and bot.faults == []
        assert len(bot.procs) == 4  # a process per seat, still running after the run: its caller stops them
        bot.close()  # (the CLI and the leaderboard do; the next run's begin does too)
    assert bot.procs == {}
    children = [int(x) for x in pidfile.read_text().split()]
    assert len(children) == (1 if how == "fault" else 4)  # at the fault, the first process only had started
    for child in children:
        assert _gone(child), f"the bot's helper {child} is still running ({_state(child)})"


def test_an_answer_that_is_too_long_is_quoted_short(tmp_path):
    """`exec:cat` echoes the hello back: the fault quoted the whole hello (every option and action name,
    about 1,500 characters); the answer is now cut to 200 characters and its length said."""
    bot = ExecAgent("cat", timeout=2, name="exec:cat")
    with pytest.warns(RuntimeWarning):
        bot.begin(envs.kernel("all_fours"), seats=[0])  # seat 0's process, started now (cardzoo play starts them so)
    assert len(bot.faults) == 1
    fault = bot.faults[0]
    assert fault.startswith("bot 'exec:cat', game all_fours, hello (seat 0): answered the hello with "
                            "{'type': 'hello', 'protocol': 1, ")
    quoted = fault.split("answered the hello with ", 1)[1].split(", expected", 1)[0]
    assert len(quoted) < 240 and quoted.endswith(" characters)") and "'9S'" not in fault
    assert bot.procs == {}


def test_a_bot_that_floods_stdout_without_a_newline_is_stopped(tmp_path):
    """A bot writing without end and no newline (`exec:cat /dev/zero`) was read into memory until its
    timeout: gigabytes at pipe speed. More than 1 MiB without a newline is now a fault, at once."""
    cmd = replying_bot(tmp_path, "flood", """
        sys.stdout.write("x" * (3 << 20)); sys.stdout.flush()
        time.sleep(30)
        """)
    bot = ExecAgent(cmd, timeout=20, name="flood")
    with pytest.warns(RuntimeWarning, match="the bot is stopped"):
        r = play_duplicate("avinas", bot, "lowest", 1, seed=0)
    assert len(r.faults) == 1
    assert ("sent more than 1,048,576 bytes without a newline for the act message, beginning b'xxxx" in r.faults[0]
            and "an answer is one JSON object on one line" in r.faults[0])
    assert bot.procs == {} and bot.failed


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
@pytest.mark.parametrize("game, opts, bot_is, processes", [
    ("all_fours", {}, "A", 4),  # seats 0 and 2 (partners) in seating 0, seats 1 and 3 in seating 1
    ("avinas", {}, "B", 4),
    ("pyanitsa", {}, "A", 2),  # 2 seats, one a seating
    ("pyanitsa", {}, "B", 2),
    ("pyanitsa", {"num_players": 3}, "A", 3),  # A alone at seat o in seating o
    ("pyanitsa", {"num_players": 3}, "B", 6),  # B's copies: 2 seats in each of 3 seatings, a process each
    ("all_fours", {}, "both", 8),  # the same bot object as A and B: every seat in both seatings
], ids=["all_fours-A", "avinas-B", "pyanitsa2-A", "pyanitsa2-B", "pyanitsa3-A", "pyanitsa3-B", "all_fours-self"])
def test_each_process_plays_one_seat_and_sees_each_deal_once(tmp_path, game, opts, bot_is, processes):
    """One process served every seat the bot played: its partner's (seats 0 and 2 of a team game) and, in
    the other seating of a duplicate deal, the other side's, so a bot that remembered what it was sent
    could play knowing its partner's hand or the whole deal. Each seat now has a process of its own
    (with 3 sides, one per seat and seating), which hears one seat's hello, act and end messages."""
    logs = tmp_path / "logs"
    bot = ExecAgent(_recording_bot(tmp_path, logs), timeout=5, name="recorder")
    pair = {"A": (bot, "lowest"), "B": ("lowest", bot), "both": (bot, bot)}[bot_is]
    n = 3
    r = play_duplicate(game, *pair, n, seed=5, batch=2, env_options=opts)  # 2 chunks: processes live on between them
    assert r.faults == []
    pids = sorted(p.proc.pid for p in bot.procs.values())
    assert all(_state(pid) not in (None, "Z", "X") for pid in pids)  # running until the caller stops the bot
    bot.close()  # (the processes read their last end messages, then their input ends)
    assert bot.procs == {}
    assert all(_gone(pid) for pid in pids), [(pid, _state(pid)) for pid in pids]
    per_process = _logs(logs)
    assert sorted(per_process) == pids
    assert len(per_process) == processes
    for pid, msgs in per_process.items():
        hello = msgs[0]
        assert hello["type"] == "hello" and [m["type"] for m in msgs].count("hello") == 1
        assert {m["seat"] for m in msgs if m["type"] == "act"} == {hello["seat"]}, pid  # its own seat only
        for m in msgs:
            if m["type"] == "act":  # and only what that seat may see (the kernel's per-seat view)
                assert m["text"].startswith(f"You are S{hello['seat']} (player_{hello['seat']})")
        assert [m["type"] for m in msgs].count("end") == n, pid  # each deal once: the episodes of one seating


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_each_pairing_starts_fresh_processes(tmp_path):
    """The arena kept a bot's process running from one pairing to the next, and every pairing plays the
    same deals (the same seed): a process that had seen a deal played out knew every hand of it when the
    deal came again. Each run now starts its own processes and stops those of the run before."""
    logs = tmp_path / "logs"
    bot = ExecAgent(_recording_bot(tmp_path, logs), timeout=5, name="recorder")
    play_duplicate("all_fours", bot, "lowest", 2, seed=1)
    first = set(_logs(logs))
    play_duplicate("all_fours", "all_fours/rule", bot, 2, seed=1)
    second = set(_logs(logs)) - first
    assert len(first) == len(second) == 4 and {p.proc.pid for p in bot.procs.values()} == second
    assert all(_gone(pid) for pid in first)
    bot.close()
    assert all(_gone(pid) for pid in second)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
@pytest.mark.parametrize("kind, seat, seating", [("illegal", 2, 0), ("crash", 3, 1)])
def test_a_fault_at_one_seat_stops_every_process_and_the_bot_plays_the_fallback_at_every_seat(tmp_path, kind, seat, seating):
    """The documented contract with a process per seat: a fault of one seat's process is one fault, naming
    the decision and the seat, and fails the bot: every process is stopped, and from then on every seat
    of the bot plays the lowest legal action. A crash quotes the end of that process's stderr only."""
    k = envs.kernel("all_fours")
    # the clean run: the bot plays the lowest legal action at every seat (as the fallback does)
    clean = tmp_path / "clean"
    clean_bot = ExecAgent(_recording_bot(tmp_path, clean, name="clean"), name="clean")
    play_duplicate("all_fours", clean_bot, "all_fours/rule", 2, seed=1, batch=1)
    clean_bot.close()
    order = _decisions(clean)
    n = next(i for i, (_, m) in enumerate(order) if m["seat"] == seat) + 1  # the seat's first decision
    asked = order[n - 1][1]
    legal = [k.action_name(a) for a in asked["legal_actions"]]
    on_act = {  # every process tells stderr its seat; the faulty seat's process then faults at its first decision
        "illegal": f"""
            if hello["seat"] == {seat}:
                print(json.dumps({{"action": m["action_mask"].index(0)}}), flush=True)
            else:
                print(json.dumps({{"action": m["legal_actions"][0]}}), flush=True)
            """,
        "crash": f"""
            sys.stderr.write(f"seat {{hello['seat']}} acts\\n"); sys.stderr.flush()
            if hello["seat"] == {seat}:
                sys.stderr.write("seat {seat} exits\\n"); sys.exit(3)
            print(json.dumps({{"action": m["legal_actions"][0]}}), flush=True)
            """,
    }[kind]
    logs = tmp_path / "logs"
    bot = ExecAgent(_recording_bot(tmp_path, logs, on_act, name=kind), timeout=5, name=kind)
    with pytest.warns(RuntimeWarning, match="the bot is stopped"):
        r = play_duplicate("all_fours", bot, "all_fours/rule", 2, seed=1, batch=1)
    bad = asked["action_mask"].index(0)
    what = {"illegal": f"played illegal action {bad} ({k.action_name(bad)})",
            "crash": f"crashed during the act message (exit status 3); its stderr ends: 'seat {seat} acts\\nseat {seat} exits'"}[kind]
    assert r.faults == [(f"bot {kind!r}, game all_fours, decision {n} (deal 0, seating {seating}, seat {seat}, legal {legal}): "
                         f"{what}; the bot is stopped and plays the lowest legal action from now on")]
    got = _decisions(logs)
    assert len(got) == n and got[-1][1]["seat"] == seat  # nothing asked after the fault, of any process
    assert len({pid for pid, _ in got}) == len({pid for pid, _ in order[:n]})  # the processes started until then
    assert bot.failed and bot.procs == {}
    assert all(_gone(pid) for pid in _logs(logs))  # every process of the bot, not just the faulty one
    # the fallback from decision n on, at every seat: the run equals the in-process lowest agent's
    ref = play_duplicate("all_fours", "lowest", "all_fours/rule", 2, seed=1, batch=1)
    assert np.array_equal(r.deal_diff, ref.deal_diff)

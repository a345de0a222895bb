"""Bots from outside the package (issue 17): the exec: JSON-lines protocol (a Python bot and a
bash bot give exactly the in-process lowest-legal agent's results; every kind of fault is named
and never hangs) and the ``cardzoo.agents`` entry-point group."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from cardzoo import agents, envs
from cardzoo.agents.external import ExecAgent
from cardzoo.training.arena import play_duplicate
from cardzoo.training.cli import main

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


def _bot(tmp_path, name, body) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text("import json, sys, time\n" + textwrap.dedent(body))
    return f"{sys.executable} {path}"


def test_the_messages_follow_the_protocol(tmp_path):
    log = tmp_path / "log.jsonl"
    cmd = _bot(tmp_path, "logger", f"""
        log = open({str(log)!r}, "a")
        for line in sys.stdin:
            log.write(line); log.flush()
            m = json.loads(line)
            if m["type"] == "hello":
                print(json.dumps({{"type": "ready"}}), flush=True)
            elif m["type"] == "act":
                print(json.dumps({{"action": m["legal_actions"][0]}}), flush=True)
        """)
    r = play_duplicate("all_fours", f"exec:{cmd}", "all_fours/rule", 3, seed=2, env_options={"undertrump": "forbidden"})
    msgs = [json.loads(x) for x in log.read_text().splitlines()]
    k = envs.kernel("all_fours", undertrump="forbidden")
    hello = msgs[0]
    assert hello == {
        "type": "hello", "protocol": 1, "game": "all_fours", "options": dict(k.options),
        "num_actions": k.num_actions, "action_names": [k.action_name(a) for a in range(k.num_actions)],
    }
    acts = [m for m in msgs if m["type"] == "act"]
    ends = [m for m in msgs if m["type"] == "end"]
    assert len(ends) == r.n_hands == 6  # one per episode, both seatings
    assert all(len(e["rewards"]) == 4 and sum(e["rewards"]) == 0 for e in ends)
    a = acts[0]
    assert set(a) == {"type", "seat", "observation", "action_mask", "legal_actions", "text"}
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
    # documented scoring: from the fault on, the bot plays the lowest legal action; here the fault
    # is its first decision, so the whole run equals the in-process lowest agent's
    ref = play_duplicate("ottocento", "lowest", "ottocento/rule", 4, seed=1, batch=4)
    assert np.array_equal(r.deal_diff, ref.deal_diff)
    assert bot.proc is None and bot.failed


def test_cli_reports_faults_and_exits_1(tmp_path, capsys):
    body, _ = FAULTS["illegal"]
    cmd = _bot(tmp_path, "illegal", body)
    out = tmp_path / "r.json"
    with pytest.warns(RuntimeWarning):
        rc = main(["arena", "ottocento", f"exec:{cmd}", "ottocento/rule", "--deals", "3", "--exec-timeout", "2", "--json", str(out)])
    assert rc == 1
    text = capsys.readouterr().out
    assert "fault:" in text and "illegal" in text
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
    bot = agents.load("exec:/no/such/program --flag")
    with pytest.warns(RuntimeWarning, match="could not start"):
        r = play_duplicate("avinas", bot, "lowest", 2, seed=0)
    assert len(r.faults) == 1 and r.mean_diff == 0.0  # the fallback is the lowest agent


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
    that turns illegal at its third decision after 6 ``end`` messages does so in deal 3. The fault
    message named deal 38 of 20 and the like: the chunk's first deal was overwritten while the
    actions were split."""
    cmd = _bot(tmp_path, "late", """
        ends = late = 0
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                print('{"type": "ready"}', flush=True)
            elif m["type"] == "end":
                ends += 1
            elif m["type"] == "act":
                late += ends >= 6
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

"""The web table server's limits and services (issue 19): lazy agents, 413 for large bodies, 429 per
client, closing by beacon, paced frames, replay, hint, your own agents (``--agents-dir``), the "How
to play" pages."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from cardzoo import agents
from cardzoo import envs
from cardzoo.training.cli import build_parser
from cardzoo.training.web.app import MAX_BODY
from cardzoo.training.web.tables import TableManager, game_options

from web_util import make_client, manager, open_table

GAMES = list(envs.GAMES)


def test_games_loads_no_agent(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("an agent was loaded for /api/games")

    c = make_client()
    monkeypatch.setattr(agents, "load", refuse)
    r = c.get("/api/games")
    assert r.status_code == 200
    assert manager(c).loaded_agents() == []
    by_id = {g["id"]: g for g in r.json()["games"]}
    assert by_id["all_fours"]["default_agent"] == "all_fours/ppo"
    assert by_id["all_fours"]["match"] == {"options": {"episode": "match"}, "length": "to 14 points"}
    assert by_id["ottocento"]["match"]["options"] == {"match_target": 800}
    monkeypatch.undo()
    # the first table loads the agents it needs, and only those
    open_table(c, "avinas", seed=1, partner="avinas/rule", opponents="random")
    assert manager(c).loaded_agents() == ["avinas/rule"]


def test_a_body_over_64_kb_is_413_and_not_echoed():
    c = make_client()
    big = "x" * (MAX_BODY + 1)
    r = c.post("/api/tables", content=json.dumps({"game": big}), headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert r.json() == {"detail": f"request body too large: at most {MAX_BODY} bytes"}
    # just under the limit: read, refused as a bad game, and the error quotes only 40 characters of it
    r = c.post("/api/tables", json={"game": "y" * (MAX_BODY - 100)})
    assert r.status_code == 400
    d = r.json()["detail"]
    assert d.startswith("unknown game 'yyyyyyyyy") and "...; games: [" in d and len(d) < 200


def test_streamed_body_without_length_is_413():
    c = make_client()

    def chunks():
        for _ in range(20):
            yield b"z" * 4096

    r = c.post("/api/tables", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_per_client_open_tables_and_tables_a_minute_are_429():
    now = [0.0]
    c = make_client(per_client=3, per_minute=5, clock=lambda: now[0])
    ids = [open_table(c, "pyanitsa", seed=i)["table_id"] for i in range(3)]
    r = c.post("/api/tables", json={"game": "pyanitsa"})
    assert r.status_code == 429 and r.json()["detail"] == (
        "you have 3 open tables (at most 3); close one (DELETE /api/tables/{id})"
    )
    # closing by beacon (the page closes) frees a place; the table itself stays 10 s for a reload
    assert c.post(f"/api/tables/{ids[0]}/close").status_code == 204
    ids.append(open_table(c, "pyanitsa", seed=7)["table_id"])
    now[0] = 11.0
    assert c.get(f"/api/tables/{ids[0]}").status_code == 404
    assert c.delete(f"/api/tables/{ids[1]}").status_code == 204
    ids.append(open_table(c, "pyanitsa", seed=8)["table_id"])  # the 5th this minute
    assert c.delete(f"/api/tables/{ids[2]}").status_code == 204
    r = c.post("/api/tables", json={"game": "pyanitsa"})
    assert r.status_code == 429 and r.json()["detail"] == "too many new tables: at most 5 a minute; wait a little"
    now[0] = 61.0  # a minute later
    open_table(c, "pyanitsa", seed=9)


def test_a_table_closed_by_its_page_comes_back_only_within_the_per_client_cap():
    """A table closed by beacon frees its place, and any request for it within the grace time brings
    it back (a reload). Coming back did not look at the cap: 3 tables opened, closed, 3 more opened and
    the first 3 asked for again made 6 open tables for a client allowed 3 (and round after round, the
    whole server's). Now the table comes back only within the cap; past it the request is 429, the
    table stays closing, and it comes back once the client has closed another."""
    now = [0.0]
    c = make_client(per_client=3, per_minute=100, clock=lambda: now[0])
    first = [open_table(c, "pyanitsa", seed=i)["table_id"] for i in range(3)]
    view = c.get(f"/api/tables/{first[0]}").json()
    for tid in first:
        assert c.post(f"/api/tables/{tid}/close").status_code == 204
    second = [open_table(c, "pyanitsa", seed=i)["table_id"] for i in range(3, 6)]
    r = c.get(f"/api/tables/{first[0]}")
    assert r.status_code == 429 and r.json()["detail"] == (
        "this table was closed by its page and you have 3 other open tables (at most 3); "
        "close one (DELETE /api/tables/{id}) within 10 s to keep this one")
    r = c.post(f"/api/tables/{first[0]}/move", json={"action": view["legal"][0]["action"]})
    assert r.status_code == 429
    assert len(manager(c)) == 6 and manager(c)._tables[first[0]].closing_since == 0.0  # still closing
    assert c.delete(f"/api/tables/{second[0]}").status_code == 204
    now[0] = 5.0
    assert c.get(f"/api/tables/{first[0]}").json() == view  # back, unchanged
    assert c.get(f"/api/tables/{first[1]}").status_code == 429
    now[0] = 11.0
    assert c.get(f"/api/tables/{first[1]}").status_code == 404  # dropped after the grace time
    assert sorted(manager(c)._tables) == sorted([first[0], *second[1:]])


def test_a_reload_within_the_grace_time_keeps_the_table():
    now = [0.0]
    c = make_client(clock=lambda: now[0])
    tid = open_table(c, "pyanitsa", seed=1)["table_id"]
    assert c.post(f"/api/tables/{tid}/close").status_code == 204
    now[0] = 9.0
    assert c.get(f"/api/tables/{tid}").status_code == 200  # the page came back: the close is called off
    now[0] = 100.0
    assert c.get(f"/api/tables/{tid}").status_code == 200
    assert c.post("/api/tables/nope/close").status_code == 404


def test_the_default_cap_is_30_tables_a_minute():
    m = TableManager(per_client=100)
    for i in range(30):
        m.create("pyanitsa", seed=i, opponents="random", client="a")
    with pytest.raises(Exception, match="at most 30 a minute"):
        m.create("pyanitsa", seed=99, opponents="random", client="a")
    m.create("pyanitsa", seed=99, opponents="random", client="b")  # another client is not held back


@pytest.mark.parametrize("game", GAMES)
def test_frames_replay_the_ai_moves_one_by_one(game):
    c = make_client()
    partner = {} if envs.kernel(game).teams is None else {"partner": "random"}  # a partner only where there are partnerships
    out = open_table(c, game, seed=3, opponents="random", **partner)
    tid, v = out["table_id"], out["view"]
    moves = 0
    completed = 0
    while not v["done"] and moves < 400:
        r = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]})
        assert r.status_code == 200, r.text
        before = v
        v = r.json()
        frames = v["frames"]
        assert frames and frames[0]["seat"] == 0  # the person's own move first
        assert [f["seat"] for f in frames[1:]] == [f["seat"] for f in frames[1:] if f["seat"] != 0]
        assert frames[-1]["view"]["to_act"] == v["to_act"] and frames[-1]["view"]["trick"] == v["trick"]
        assert v["moves"] == before["moves"] + len(frames)
        for f in frames:
            if f["completed"] is not None:
                completed += 1
                assert f["completed"]["cards"], f
        moves += 1
    assert v["done"]
    if game != "pyanitsa":
        assert completed > 0
    r = c.get(f"/api/tables/{tid}/replay")
    assert r.status_code == 200
    rep = r.json()
    assert len(rep["frames"]) == v["moves"]
    assert rep["frames"][-1]["view"]["summary"] == v["summary"]
    assert rep["initial"]["to_act"] is not None
    # the replay shows the person's own hand only: every other hand is a count
    for f in rep["frames"]:
        assert set(f["view"]) >= {"hand", "hand_sizes", "trick"}


def test_the_rest_of_a_pyanitsa_game_without_seat_0_comes_condensed():
    """P'yanitsa with 4 players (seed 11): once seat 0 is out (battle 47) the other three battled on
    for 494 battles, and the last answer carried all 993 moves one by one (1.1 MB, about 13 minutes of
    FLIPs at normal speed). Now it carries seat 0's move, the rest of its last battle and the final
    battle as frames, and the 988 moves between summed up in ``skipped`` (public facts only: moves,
    battles, who went out at which battle, the result); the final View, the totals and the replay are
    those of the game played all out."""
    from cardzoo.training.web.views import KEEP_FRAMES, TAIL_FRAMES
    from test_web_hidden_info import cards_named

    c = make_client()
    out = open_table(c, "pyanitsa", seed=11, players=4)
    tid, v = out["table_id"], out["view"]
    assert out["view"]["skipped"] is None
    sizes = []
    while not v["done"]:
        before = v["moves"]
        r = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"], "moves": v["moves"]})
        assert r.status_code == 200, r.text
        sizes.append(len(r.content))
        v = r.json()
        skipped = v["skipped"]
        numbers = [f["move"] for f in v["frames"]]
        gap = set() if skipped is None else set(range(skipped["first"], skipped["first"] + skipped["moves"]))
        assert sorted(numbers + sorted(gap)) == list(range(before, v["moves"]))  # every move: a frame or skipped
        if not v["done"]:
            assert skipped is None and len(v["frames"]) <= TAIL_FRAMES
    assert len(sizes) == 47 and v["moves"] == 1139
    assert max(sizes) == sizes[-1] < 15_000  # was 1,140,144 bytes
    assert [(f["move"], f["seat"]) for f in v["frames"]] == [(146, 0), (147, 2), (148, 3), (1137, 2), (1138, 3)]
    assert len(v["frames"]) <= 1 + 2 * KEEP_FRAMES
    assert v["skipped"] == {
        "after": 3, "first": 149, "moves": 988, "battles": 494, "result": "seat_2_loses",
        "out": [{"seat": 0, "move": 148, "battle": 47}, {"seat": 3, "move": 1138, "battle": 542}],
    }
    assert cards_named(v["skipped"], envs.kernel("pyanitsa", num_players=4).deck) == set()
    assert v["frames"][-1]["view"]["summary"] == v["summary"] and v["frames"][-1]["view"]["done"]
    # the same game played all out by the env: same result, same number of moves
    env = envs.make("pyanitsa", num_players=4)
    env.reset(seed=11)
    steps, returns = 0, np.zeros(4)
    while not env.game_state.done[0]:
        env.step(env.legal_actions()[0])
        returns += [env.rewards[a] for a in env.possible_agents]
        steps += 1
    assert steps == v["moves"] and v["returns"] == returns.tolist() == pytest.approx([1 / 3, 1 / 3, -1, 1 / 3])
    assert v["totals"] == v["returns"]
    again = c.get(f"/api/tables/{tid}").json()
    assert {**v, "frames": None, "skipped": None} == {**again, "frames": None, "skipped": None}
    # the replay still holds every move; "out" and "battles" are read there from seat 0's own views
    rep = c.get(f"/api/tables/{tid}/replay").json()
    assert rep["first"] == 0 and [f["move"] for f in rep["frames"]] == list(range(1139))
    views = [f["view"] for f in rep["frames"]]
    for o in v["skipped"]["out"]:
        assert views[o["move"]]["hand_sizes"][o["seat"]] == 0 < views[o["move"] - 1]["hand_sizes"][o["seat"]]
    battles = [int(next(x["value"] for x in w["facts"] if x["key"] == "battles")) for w in views]
    assert battles[148 + 988] - battles[148] == 494


def test_a_game_seat_0_plays_to_the_end_is_never_condensed():
    """Two-player P'yanitsa ends when seat 0 is out, and every other game asks seat 0 to the end: no answer
    is condensed (the long answers of a 4-player P'yanitsa game before seat 0 is out neither)."""
    c = make_client()
    for game, body in [("pyanitsa", {"players": 2}), ("ottocento", {}), ("pyanitsa", {"players": 3})]:
        out = open_table(c, game, seed=3, **body)
        tid, v = out["table_id"], out["view"]
        while not v["done"]:
            v = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]}).json()
            assert v["skipped"] is None or v["done"]
            if v["skipped"] is None:
                assert [f["move"] for f in v["frames"]] == list(range(v["moves"] - len(v["frames"]), v["moves"]))
        if body.get("players") != 3:
            assert v["skipped"] is None


def test_replay_while_running_is_409_and_hint_is_a_legal_move():
    c = make_client()
    out = open_table(c, "all_fours", seed=4, partner="all_fours/rule", opponents="all_fours/rule")
    tid, v = out["table_id"], out["view"]
    r = c.get(f"/api/tables/{tid}/replay")
    assert r.status_code == 409 and "once the deal is over" in r.json()["detail"]
    r = c.get(f"/api/tables/{tid}/hint")
    assert r.status_code == 200, r.text
    h = r.json()
    assert h["action"] in [m["action"] for m in v["legal"]]
    assert h["name"] == envs.kernel("all_fours").action_name(h["action"])


def test_agents_dir_lists_its_agents_and_nothing_else_loads(tmp_path):
    src = agents.registry.shipped_path("aluette/ppo")
    shutil.copytree(src, tmp_path / "mine")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "agent.json").write_text("not json")
    c = make_client(agents_dir=str(tmp_path))
    games = {g["id"]: g for g in c.get("/api/games").json()["games"]}
    assert "local:mine" in games["aluette"]["agents"]
    assert not any(a.startswith("local:") for a in games["all_fours"]["agents"])
    v = open_table(c, "aluette", seed=2, opponents="local:mine", partner="random")["view"]
    assert [s["agent"] for s in v["seats"]][1] == "local:mine"
    for bad in (str(tmp_path / "mine"), "local:../mine", "local:junk", "../" + src):
        r = c.post("/api/tables", json={"game": "aluette", "opponents": bad})
        assert r.status_code == 400 and "unknown agent" in r.json()["detail"]
    with pytest.raises(ValueError, match="is not a folder"):
        TableManager(agents_dir=str(tmp_path / "nope"))
    args = build_parser().parse_args(["serve", "--agents-dir", str(tmp_path), "--no-browser"])
    assert args.agents_dir == str(tmp_path)


def test_an_agent_folder_that_fails_to_load_reveals_no_server_path(tmp_path, caplog):
    """A saved agent of --agents-dir whose files are damaged, or whose folder went away after the
    server started, was refused with the loader's message, which names the server's files
    ('/srv/.../weights.safetensors is not a valid weights file'). The client is now told the agent is
    unavailable and what to do, with no path; the server's console (log) has the whole error; no table
    is opened and the other agents still play."""
    import logging

    src = agents.registry.shipped_path("aluette/ppo")
    shutil.copytree(src, tmp_path / "broken")
    (tmp_path / "broken" / "weights.safetensors").write_bytes(b"garbage")
    shutil.copytree(src, tmp_path / "gone")
    c = make_client(agents_dir=str(tmp_path))
    shutil.rmtree(tmp_path / "gone")
    for name, file in (("local:broken", "weights.safetensors"), ("local:gone", "no agent file or folder")):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="cardzoo.training.web.tables"):
            r = c.post("/api/tables", json={"game": "aluette", "opponents": name, "partner": "random", "seed": 1})
        assert r.status_code == 400, r.text
        d = r.json()["detail"]
        assert d.startswith(f"agent {name!r} is unavailable: the server could not load it from its agent folder (its files "
                            "are missing or damaged; the server's console says why). Choose another agent (")
        assert d.endswith("or ask whoever runs the server to check its agent folder (--agents-dir)")
        assert str(tmp_path) not in d and file not in d and "/" not in d.replace("aluette/", "")
        assert "'aluette/rule'" in d and f"'{name}'" not in d.split("Choose another agent")[1]
        logged = caplog.text
        assert str(tmp_path / name.split(":")[1]) in logged and file in logged  # the operator sees it all
    assert len(manager(c)) == 0
    open_table(c, "aluette", seed=2, opponents="aluette/rule", partner="random")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ["en", "id"])
def test_howto_pages(game, lang):
    c = make_client()
    r = c.get(f"/api/howto/{game}?lang={lang}")
    assert r.status_code == 200
    d = r.json()
    assert d["game"] == game and d["lang"] == lang
    heads = {"en": ["Goal", "Set-up", "A turn", "Scoring and the end"], "id": ["Tujuan", "Persiapan", "Giliran", "Skor dan akhir"]}
    for h in heads[lang]:
        assert f"<h2>{h}" in d["html"], (game, lang, h)


def test_howto_errors_name_the_valid_values():
    c = make_client()
    r = c.get("/api/howto/chess?lang=en")
    assert r.status_code == 404 and r.json()["detail"].startswith("unknown game 'chess'; games: [")
    r = c.get("/api/howto/aluette?lang=fr")
    assert r.status_code == 400 and r.json()["detail"] == "unknown language 'fr'; languages: ['en', 'id']"


def test_warm_up_loads_each_default_agent_and_games_never_waits_for_it():
    m = TableManager()
    m._load_lock.acquire()  # a load in progress elsewhere: /api/games must still answer
    try:
        assert [g["default_agent"] for g in m.games()] == [f"{g}/ppo" for g in envs.GAMES]
    finally:
        m._load_lock.release()
    # `cardzoo serve` warms up after the first /api/games answer, in a background thread
    import threading

    from fastapi.testclient import TestClient

    from cardzoo.training.web.app import create_app

    c = TestClient(create_app(m, warm_up=True))
    assert m.loaded_agents() == []
    assert c.get("/api/games").status_code == 200
    (thread,) = [t for t in threading.enumerate() if t.name == "agent-warm-up"]
    thread.join(timeout=120)
    assert sorted(m.loaded_agents()) == sorted(f"{g}/ppo" for g in envs.GAMES)
    c.get("/api/games")  # started once only
    assert not [t for t in threading.enumerate() if t.name == "agent-warm-up"]


def test_a_long_episode_keeps_its_last_moves_for_pacing_and_replay(monkeypatch):
    from cardzoo.training.web.tables import Table

    monkeypatch.setattr(Table, "MAX_HISTORY", 40)
    c = make_client()
    out = open_table(c, "pyanitsa", seed=5, opponents="random")
    tid, v = out["table_id"], out["view"]
    while not v["done"]:
        before = v["moves"]
        v = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]}).json()
        assert v["moves"] == before + len(v["frames"])  # each answer still carries all its moves
    assert v["moves"] > 40
    rep = c.get(f"/api/tables/{tid}/replay").json()
    assert rep["first"] == v["moves"] - 40 and len(rep["frames"]) == 40
    assert rep["frames"][-1]["view"]["summary"] == v["summary"]
    assert len(manager(c).get(tid).history) == 40


def test_serve_on_a_port_in_use_fails_before_announcing(capsys):
    import socket

    from cardzoo.training.cli import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--no-browser", "--port", str(port)]) == 2
    out = capsys.readouterr()
    assert f"cannot listen on 127.0.0.1:{port}" in out.err and "give another --port" in out.err
    assert "card table at" not in out.out


def test_serve_on_a_host_that_is_no_address_of_this_machine_names_the_host():
    """`cardzoo serve --host 999.1.1.1` (no such address) said "... (Name or service not known): give another --port":
    the host was wrong, and another port would fail the same way."""
    from cardzoo.training.web.app import serve

    for host in ("999.1.1.1", "192.0.2.1"):  # not an address at all; a documentation address no machine here has
        with pytest.raises(OSError) as e:
            serve(host, 18999, open_browser=False)
        assert str(e.value).startswith(f"cannot listen on {host}:18999 (")
        assert str(e.value).endswith("): give another --host, an address of this machine (127.0.0.1: this machine only, "
                                     "the default; 0.0.0.0: every network)"), str(e.value)


def test_frames_carry_the_dealer_of_their_moment():
    """In a match a deal ends and the next is dealt within one answer; the frames had no "dealer",
    so the page drew every paced move (and every replay step) with the dealer of the answer's last
    state: the next deal's dealer was marked while the last trick of the deal before was shown."""
    c = make_client()
    out = open_table(c, "all_fours", seed=4, partner="random", opponents="random", options={"episode": "match"})
    tid, v = out["table_id"], out["view"]
    table = manager(c).get(tid)
    changes = 0
    while not v["done"]:
        r = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]})
        v = r.json()
        dealers = [f["view"]["dealer"] for f in v["frames"]]
        first = len(table.history) - len(v["frames"])
        assert dealers == [int(st.dealer[0]) for st, *_ in table.history[first:]]
        assert dealers[-1] == v["dealer"]
        changes += len(set(dealers)) > 1
    assert changes >= 2  # answers in which a new deal began: their frames show two dealers
    assert "dealer" in c.get(f"/api/tables/{tid}").json()


@pytest.mark.parametrize("game", ["all_fours", "aluette"])
def test_frames_and_replay_carry_the_text_view_of_their_moment(game):
    """A frame had no "text", so the page's text view showed the answer's last state while the moves
    were paced (every AI move at once), and every replay step showed the end of the deal. Each frame
    and the replay's start now carry seat 0's text render of their own state: the last frame's is the
    View's, and the replay repeats the texts the answers gave."""
    c = make_client()
    partner = {} if envs.kernel(game).teams is None else {"partner": "random"}
    out = open_table(c, game, seed=2, opponents="random", **partner)
    tid, v = out["table_id"], out["view"]
    first_text = manager(c).get(tid).kernel.render(manager(c).get(tid).initial_state, 0, 0)
    texts = [f["view"]["text"] for f in v["frames"]]
    while not v["done"]:
        v = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]}).json()
        assert v["frames"][-1]["view"]["text"] == v["text"]
        assert len({f["view"]["text"] for f in v["frames"]}) == len(v["frames"])  # each move changes it
        texts += [f["view"]["text"] for f in v["frames"]]
    rep = c.get(f"/api/tables/{tid}/replay").json()
    assert rep["initial"]["text"] == first_text and "view of S0" in first_text
    assert [f["view"]["text"] for f in rep["frames"]] == texts


@pytest.mark.parametrize("game, agent, options", [
    ("all_fours", "all_fours/pimc", {"episode": "match"}),
    ("aluette", "aluette/ismcts", {"episode": "match"}),
])
def test_a_search_agent_refused_for_a_match_says_why(game, agent, options, caplog):
    """A search agent cannot play a whole match (its rollouts play one deal to the end). The page
    offers "whole match" and every agent, but the refusal only said the agent 'is unavailable: the
    server could not load it (the server's console says why)', which a player cannot read. A
    registered agent's own refusal of the options names no file of the server: it is now passed on."""
    with pytest.raises(ValueError) as e:
        agents.load(agent, **game_options(game, options))
    c = make_client()
    r = c.post("/api/tables", json={"game": game, "opponents": agent, "options": options})
    assert r.status_code == 400
    # the other agents offered are those that can play them: no other search agent
    others = [n for n in manager(c).agent_names(game)
              if n != agent and not n.endswith(("/pimc", "/pimc-bids", "/ismcts"))]
    assert r.json()["detail"] == (f"agent {agent!r} cannot play these {game} options: {e.value}. "
                                  f"Choose another agent ({others})")
    assert len(manager(c)) == 0


def test_answers_are_gzipped_for_a_client_that_accepts_it():
    """Answers went uncompressed: an Avinas match's replay was 1.3 MB and every P'yanitsa answer
    several KB, on a phone's connection. An answer of GZIP_MIN (1024) bytes or more is now gzipped
    when the client accepts it (a replay about 30 times smaller); a client that does not gets it plain."""
    from cardzoo.training.web.app import GZIP_MIN

    assert GZIP_MIN == 1024
    c = make_client()
    out = open_table(c, "ottocento", seed=3, partner="ottocento/rule", opponents="ottocento/rule")
    tid, v = out["table_id"], out["view"]
    while not v["done"]:
        v = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]}).json()
    for url in (f"/api/tables/{tid}/replay", f"/api/tables/{tid}", "/static/table.js"):
        r = c.get(url, headers={"Accept-Encoding": "gzip"})
        assert r.status_code == 200 and r.headers["content-encoding"] == "gzip", url
        assert r.num_bytes_downloaded * 3 < len(r.content), url
        plain = c.get(url, headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.content == r.content
    r = c.get(f"/api/tables/{tid}/replay", headers={"Accept-Encoding": "gzip"})
    assert r.num_bytes_downloaded * 20 < len(r.content)
    small = c.get("/api/tables/nope", headers={"Accept-Encoding": "gzip"})  # under GZIP_MIN: plain
    assert small.status_code == 404 and "content-encoding" not in small.headers

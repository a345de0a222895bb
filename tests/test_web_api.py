"""The web card table's HTTP API (training/web/app.py) for every game: games, tables, moves, errors,
whole episodes, new deals, table isolation and locking, caps and idle expiry, rules pages."""

from __future__ import annotations

import threading

import pytest

from cardzoo import agents
from cardzoo import envs
from cardzoo.envs.core.cards import DECKS
from cardzoo.training.cli import main

from web_util import FRAMED_KEYS, make_client, manager, open_table, step_bound

GAMES = list(envs.GAMES)


@pytest.fixture(scope="module")
def client():
    return make_client()


def test_games_lists_every_game_with_its_players_agents_and_pack(client):
    r = client.get("/api/games")
    assert r.status_code == 200
    games = {g["id"]: g for g in r.json()["games"]}
    assert list(games) == GAMES
    af = games["all_fours"]
    assert af["name"] == "All Fours" and af["players"] == {"min": 4, "max": 4, "default": 4} and af["teams"] is True
    assert af["pack"] == "french" and af["default_agent"] == "all_fours/ppo"
    assert {"all_fours/ppo", "all_fours/rule", "all_fours/random", "random"} <= set(af["agents"])
    assert games["pyanitsa"]["players"] == {"min": 2, "max": 4, "default": 2} and games["pyanitsa"]["teams"] is False
    assert games["ottocento"]["pack"] == "tarocco" and games["aluette"]["pack"] == "spanish"
    assert games["ottocento"]["default_agent"] == "ottocento/ppo" and games["aluette"]["default_agent"] == "aluette/ppo"
    for g in games.values():
        assert g["default_agent"] in g["agents"]
        assert all(n == "random" or (n.startswith(g["id"] + "/") and n in agents.available()) for n in g["agents"])


@pytest.mark.parametrize("game", GAMES)
def test_a_new_table_shows_seat_0_its_hand_and_legal_moves(client, game):
    out = open_table(client, game, seed=3)
    v = out["view"]
    assert set(v) == FRAMED_KEYS and v["table_id"] == out["table_id"] and len(out["table_id"]) >= 20
    k = envs.kernel(game)
    deck = k.deck
    assert (v["game"], v["seat"], v["num_players"]) == (game, 0, k.num_players)
    assert [s["role"] for s in v["seats"]][0] == "you" and v["seats"][0]["agent"] is None
    assert all(s["agent"] in manager(client).agent_names(game) for s in v["seats"][1:])
    table = manager(client).get(out["table_id"])
    assert [c["id"] for c in v["hand"]] == sorted(k.hands(table.env.game_state, 0)[0])
    for c in v["hand"]:
        assert c["code"] == deck.names[c["id"]] and c["pack"] == v["pack"]
    assert v["your_turn"] is (not v["done"]) and v["to_act"] == (None if v["done"] else 0)
    assert [m["action"] for m in v["legal"]] == table.env.legal_actions()
    for m in v["legal"]:
        assert m["name"] == k.action_name(m["action"])
        if m["card"] is not None:
            assert m["card"]["code"] == deck.names[m["card"]["id"]] and m["card"]["code"] in m["name"]
    assert v["returns"] is None and v["totals"] == [0.0] * k.num_players and isinstance(v["text"], str)


@pytest.mark.parametrize("game", GAMES)
def test_illegal_move_is_400_naming_it_and_the_legal_ones_and_changes_nothing(client, game):
    tid = open_table(client, game, seed=5)["table_id"]
    before = client.get(f"/api/tables/{tid}").json()
    k = envs.kernel(game)
    legal = [m["action"] for m in before["legal"]]
    bad = next(a for a in range(k.num_actions) if a not in legal)
    r = client.post(f"/api/tables/{tid}/move", json={"action": bad})
    assert r.status_code == 400
    msg = r.json()["detail"]
    assert f"illegal action {k.action_name(bad)}" in msg and all(k.action_name(a) in msg for a in legal)
    r = client.post(f"/api/tables/{tid}/move", json={"action": 10_000})
    assert r.status_code == 400 and "out of range" in r.json()["detail"]
    assert client.get(f"/api/tables/{tid}").json() == before


@pytest.mark.parametrize("game", GAMES)
def test_move_when_not_your_turn_or_over_is_409_and_changes_nothing(client, game):
    tid = open_table(client, game, seed=7)["table_id"]
    table = manager(client).get(tid)
    with table.lock:  # seat 0 moves outside the API until another seat is to act
        for _ in range(100):
            if table.done or table.to_act != 0:
                break
            table.env.step(table.env.legal_actions()[0])
    if not table.done:
        before = client.get(f"/api/tables/{tid}").json()
        assert before["your_turn"] is False and before["legal"] == []
        r = client.post(f"/api/tables/{tid}/move", json={"action": 0})
        assert r.status_code == 409 and f"not your turn: player_{table.to_act} is to act" in r.json()["detail"]
        assert client.get(f"/api/tables/{tid}").json() == before
    with table.lock:
        table._advance()
        while not table.done:
            table.move(table.env.legal_actions()[0])
    before = client.get(f"/api/tables/{tid}").json()
    r = client.post(f"/api/tables/{tid}/move", json={"action": 0})
    assert r.status_code == 409 and "the episode is over" in r.json()["detail"]
    assert client.get(f"/api/tables/{tid}").json() == before


def test_unknown_table_is_404_everywhere(client):
    for method, path, body in [
        ("get", "/api/tables/nope", None),
        ("post", "/api/tables/nope/move", {"action": 0}),
        ("post", "/api/tables/nope/new", None),
        ("delete", "/api/tables/nope", None),
        ("post", "/api/tables/nope/close", None),
        ("get", "/api/tables/nope/hint", None),
        ("get", "/api/tables/nope/replay", None),
    ]:
        r = client.request(method.upper(), path, json=body)
        # the same words everywhere (DELETE and close said only "no table 'nope'")
        assert (r.status_code, r.json()) == (404, {"detail": "no table 'nope' (unknown, closed, or dropped after 1200 s idle)"})


def test_an_unknown_api_path_or_method_names_what_is_valid(client):
    """An API path no endpoint takes was answered by the front end's files, a bare {"detail": "Not
    Found"} (GET /api/tables/{id}/nothing, GET /api/game), and a wrong method "Method Not Allowed",
    neither naming what is valid. Now 404 lists the endpoints and 405 the path's methods."""
    from cardzoo.training.web.app import API_ENDPOINTS

    r = client.get("/api/game")
    assert r.status_code == 404
    assert r.json() == {"detail": "no API endpoint GET /api/game; endpoints: " + ", ".join(API_ENDPOINTS)}
    assert API_ENDPOINTS[:2] == ("GET /api/games", "POST /api/tables") and len(API_ENDPOINTS) == 11
    assert client.post("/api/tables/nope/nothing").json()["detail"].startswith(
        "no API endpoint POST /api/tables/nope/nothing; endpoints: GET /api/games,")
    assert client.get("/api/" + "x" * 100).json()["detail"].startswith(f"no API endpoint GET /api/{'x' * 32}...; ")
    for method, path, allowed in [("GET", "/api/tables", "POST"), ("PUT", "/api/tables", "POST"),
                                  ("POST", "/api/games", "GET, HEAD"), ("GET", "/api/tables/nope/move", "POST")]:
        r = client.request(method, path)
        assert (r.status_code, r.headers["allow"]) == (405, allowed)
        assert r.json() == {"detail": f"{method} is not allowed on {path}; allowed: {allowed}"}
    assert client.get("/nothing.html").status_code == 404  # the front end's own 404


def test_head_and_options_on_the_api_name_what_is_valid_too(client):
    """HEAD and OPTIONS were left out of the catch-all: HEAD /api/games (curl -I) was a bare 404 "Not
    Found" from the front end's files, as if the endpoint did not exist, and OPTIONS a bare 405 "Method
    Not Allowed"; app.py's docstring promises 404 listing the endpoints and 405 naming the methods.
    HEAD on a GET endpoint is then answered as GET without the body (HTTP; it was a 405)."""
    for method, path, allowed in [("OPTIONS", "/api/games", "GET, HEAD"), ("HEAD", "/api/tables/nope/close", "POST"),
                                  ("OPTIONS", "/api/tables", "POST")]:
        r = client.request(method, path)
        assert (r.status_code, r.headers["allow"]) == (405, allowed), (method, path)
        if method != "HEAD":  # a HEAD answer has no body
            assert r.json() == {"detail": f"{method} is not allowed on {path}; allowed: {allowed}"}
    for path in ("/api/games", "/api/rules/all_fours", "/api/howto/ottocento"):
        plain = {"accept-encoding": "identity"}  # a gzipped length is not len(content), which httpx decodes
        got, head = client.get(path, headers=plain), client.head(path, headers=plain)
        assert (head.status_code, head.content) == (200, b""), path
        assert head.headers["content-length"] == got.headers["content-length"] == str(len(got.content))
    assert client.head("/api/tables/nope").status_code == 404  # as GET: no such table
    assert "head" not in client.get("/api/openapi.json").json()["paths"]["/api/games"]
    r = client.options("/api/nothing")
    assert r.status_code == 404 and r.json()["detail"].startswith("no API endpoint OPTIONS /api/nothing; endpoints: ")
    assert client.head("/api/nothing").status_code == 404


@pytest.mark.parametrize(
    "body, words",
    [
        ({"action": "x"}, "action"),
        ({"action": 1.5}, "action"),
        ({"action": True}, "action"),
        ({"action": "3"}, "action"),
        ({}, 'malformed request: action: missing; it is required, e.g. {"action": 3}'),
        ({"action": 1, "extra": 2}, "extra"),
        (None, 'malformed request: the body is empty; send a JSON object, e.g. {"action": 3}'),
    ],
)
def test_malformed_move_body_is_422_with_a_message(client, body, words):
    tid = open_table(client, "all_fours", seed=1)["table_id"]
    before = client.get(f"/api/tables/{tid}").json()
    r = client.post(f"/api/tables/{tid}/move", json=body)
    assert r.status_code == 422
    assert isinstance(r.json()["detail"], str) and words in r.json()["detail"]
    r = client.post(f"/api/tables/{tid}/move", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and "malformed request" in r.json()["detail"]
    assert client.get(f"/api/tables/{tid}").json() == before


@pytest.mark.parametrize(
    "body, status, words",
    [
        ({"game": "all_fours", "opponents": "nobody"}, 400, "unknown agent 'nobody' for all_fours; valid agents"),
        ({"game": "all_fours", "partner": "/etc/passwd"}, 400, "unknown agent '/etc/passwd'"),
        ({"game": "all_fours", "opponents": "agents/shipped/all_fours_ppo"}, 400, "unknown agent"),
        ({"game": "all_fours", "opponents": "agents/shipped/all_fours_ppo/agent.json"}, 400, "unknown agent"),
        ({"game": "all_fours", "opponents": "avinas/rule"}, 400, "all_fours/rule"),
        ({"game": "pyanitsa", "opponents": "nobody"}, 400, "unknown agent"),
        ({"game": "pyanitsa", "partner": "pyanitsa/rule"}, 400,
         "partner is for partnership games; in pyanitsa every player plays alone: use opponents"),
        ({"game": "pyanitsa", "players": 4, "partner": "nobody"}, 400, "partner is for partnership games"),
        ({"game": "chess"}, 400, "unknown game 'chess'; games: ['all_fours'"),
        ({"game": "all_fours", "players": 3}, 400, "all_fours is played by 4 players, not 3"),
        ({"game": "pyanitsa", "players": 5}, 400, "pyanitsa is played by 2 to 4 players, not 5"),
        ({"game": "all_fours", "options": {"target_score": 0}}, 400, "target_score"),
        ({"game": "all_fours", "options": {"colour": 1}}, 400, "unknown option"),
        ({"game": "all_fours", "seed": -1}, 422, "seed"),
        ({"game": "all_fours", "players": "4"}, 422, 'malformed request: players: must be a JSON integer, not "4"'),
        ({"game": "all_fours", "seed": "abc"}, 422, 'malformed request: seed: must be a JSON integer, not "abc"'),
        ({"game": "all_fours", "seed": 1.5}, 422, "malformed request: seed: must be a JSON integer, not 1.5"),
        ({"players": 4}, 422, 'malformed request: game: missing; it is required, e.g. {"game": "all_fours"}'),
        # force_agent is a JSON boolean: "yes", "no", "true", 1, 0, null were read as true/false (or a
        # bare 'valid boolean'); the refusal names the field and the valid values, and opens nothing
        ({"game": "all_fours", "force_agent": "yes"}, 422, 'force_agent: must be a JSON boolean, true or false, not "yes"'),
        ({"game": "all_fours", "force_agent": "no"}, 422, 'force_agent: must be a JSON boolean, true or false, not "no"'),
        ({"game": "all_fours", "force_agent": "true"}, 422, 'force_agent: must be a JSON boolean, true or false, not "true"'),
        ({"game": "all_fours", "force_agent": 1}, 422, "force_agent: must be a JSON boolean, true or false, not 1"),
        ({"game": "all_fours", "force_agent": 0}, 422, "force_agent: must be a JSON boolean, true or false, not 0"),
        ({"game": "all_fours", "force_agent": None}, 422, "force_agent: must be a JSON boolean, true or false, not null"),
    ],
)
def test_bad_new_table_requests_are_clear_errors(client, body, status, words):
    n = len(manager(client))
    r = client.post("/api/tables", json=body)
    assert r.status_code == status and words in r.json()["detail"], r.json()
    assert len(manager(client)) == n


@pytest.mark.parametrize(
    "path, body, headers, detail",
    [
        # a body that is not a JSON object, or not sent as JSON (curl -d without -H): FastAPI's own words
        # were "body: Input should be a valid dictionary or object to extract fields from" (the body of
        # curl -d '{"game": "all_fours"}' IS an object: it lacked the Content-Type), "body: Field required"
        ("/api/tables", b'{"game": "all_fours"}', {}, "malformed request: the body was sent without a Content-Type; "
         'send a JSON object with Content-Type: application/json, e.g. {"game": "all_fours"}'),
        ("/api/tables", b'{"game": "all_fours"}', {"content-type": "text/plain"}, "malformed request: the body was "
         "sent as 'text/plain', not as JSON; send a JSON object with Content-Type: application/json, e.g. "
         '{"game": "all_fours"}'),
        ("/move", b'{"action": 3}', {"content-type": "application/x-www-form-urlencoded"}, "malformed request: the "
         "body was sent as 'application/x-www-form-urlencoded', not as JSON; send a JSON object with Content-Type: "
         'application/json, e.g. {"action": 3}'),
        ("/api/tables", b"", {}, 'malformed request: the body is empty; send a JSON object, e.g. {"game": "all_fours"}'),
        ("/api/tables", b"[]", None, 'malformed request: the body must be a JSON object, not []; e.g. {"game": "all_fours"}'),
        ("/move", b"[36]", None, 'malformed request: the body must be a JSON object, not [36]; e.g. {"action": 3}'),
        # a field FastAPI refused in its words ("Input should be a valid dictionary", "Extra inputs are not
        # permitted", "Input should be greater than or equal to 0"): now what is valid
        ("/api/tables", b'{"game": "all_fours", "options": [1]}', None,
         "malformed request: options: must be a JSON object of option names and values, not [1]"),
        ("/api/tables", b'{"game": 5}', None, "malformed request: game: must be a JSON string, not 5"),
        ("/api/tables", b'{"game": "all_fours", "seed": -1}', None,
         "malformed request: seed: must be an integer from 0 to 9223372036854775807, not -1"),
        ("/api/tables", b'{"game": "all_fours", "seed": 9223372036854775808}', None,
         "malformed request: seed: must be an integer from 0 to 9223372036854775807, not 9223372036854775808"),
        ("/api/tables", b'{"game": "all_fours", "colour": 1}', None, "malformed request: 'colour': unknown field; "
         "the fields are game, players, partner, opponents, seed, options, force_agent"),
        ("/move", b'{"action": 3, "move": 0}', None,
         "malformed request: 'move': unknown field; the fields are action, moves, deal"),
    ],
)
def test_a_body_not_a_json_object_or_a_bad_field_is_422_naming_what_is_valid(client, path, body, headers, detail):
    tid = open_table(client, "all_fours", seed=1)["table_id"]
    before, n = client.get(f"/api/tables/{tid}").json(), len(manager(client))
    url = f"/api/tables/{tid}/move" if path == "/move" else path
    r = client.post(url, content=body, headers={"content-type": "application/json"} if headers is None else headers)
    assert r.status_code == 422 and r.json()["detail"] == detail
    assert client.get(f"/api/tables/{tid}").json() == before and len(manager(client)) == n


def test_force_agent_true_and_false_through_the_api(client):
    """force_agent as a JSON boolean: true seats the trained agent asked for under options it was not
    trained for, false (and leaving it out) seats the rule bot instead (the view's seats say which)."""
    body = {"game": "all_fours", "opponents": "all_fours/ppo", "seed": 3, "options": {"undertrump": "forbidden"}}
    seats = lambda extra: [s["agent"] for s in open_table(client, **{**body, **extra})["view"]["seats"]][1]  # noqa: E731
    assert seats({"force_agent": True}) == "all_fours/ppo"
    assert seats({"force_agent": False}) == seats({}) == "all_fours/rule"


def test_string_option_values_are_read_as_cardzoo_play_reads_o_values(client):
    """The table page sends its opt.NAME=VALUE URL parameters as written; the API reads a string
    value as `cardzoo play -o NAME=VALUE` does (common.parse_option_value, one parser): 03, +3 and
    ' 3' are 3 (03 was refused), 'true' is True, names stay names; values no game allows are still
    refused naming the valid ones."""
    from cardzoo.training.common import parse_options

    for written in ("03", "+3", " 3", "3"):
        r = client.post("/api/tables", json={"game": "pyanitsa", "opponents": "random", "options": {"num_players": written}})
        assert r.status_code == 201, (written, r.json())
        assert r.json()["view"]["num_players"] == 3
        table = manager(client).get(r.json()["table_id"])
        assert table.options["num_players"] == 3 and table.options["num_players"] == parse_options([f"num_players={written}"])["num_players"]
        client.delete(f"/api/tables/{table.id}")
    body = {"game": "all_fours", "opponents": "random", "partner": "random",
            "options": {"score_rejected_kicks": "false", "target_score": "007", "undertrump": " forbidden "}}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.json()
    t = manager(client).get(r.json()["table_id"])
    assert (t.options["score_rejected_kicks"], t.options["target_score"], t.options["undertrump"]) == (False, 7, "forbidden")
    client.delete(f"/api/tables/{t.id}")
    r = client.post("/api/tables", json={"game": "pyanitsa", "options": {"num_players": "05"}})
    assert r.status_code == 400 and "num_players" in r.json()["detail"], r.json()
    r = client.post("/api/tables", json={"game": "pyanitsa", "options": {"collect_order": "winner_picks"}})
    assert r.status_code == 400 and "winner_chooses" in r.json()["detail"], r.json()


def test_a_partner_in_a_game_without_partnerships_is_refused_before_any_agent_loads():
    """As `cardzoo play --partner` (training/commands.py): P'yanitsa has no partner seat, so a partner
    named for it is a mistake (400 naming what to use), not silently dropped; nothing is loaded."""
    from cardzoo.training.web.tables import BadRequest, TableManager

    m = TableManager()
    with pytest.raises(BadRequest, match="partner is for partnership games; in pyanitsa every player plays alone: use opponents"):
        m.create("pyanitsa", partner="pyanitsa/ppo", opponents="pyanitsa/rule")
    assert m.loaded_agents() == [] and len(m) == 0
    t = m.create("pyanitsa", opponents="pyanitsa/rule", seed=1)  # the same without a partner
    assert {v[0] for v in t.seat_agents.values()} == {"pyanitsa/rule"}


@pytest.mark.parametrize("game", GAMES)
def test_whole_episode_to_the_end_then_a_new_deal(client, game):
    players = 3 if game == "pyanitsa" else None
    out = open_table(client, game, seed=11, players=players)
    tid, v = out["table_id"], out["view"]
    bound = step_bound(game)
    moves = 0
    while not v["done"]:
        assert moves < bound and v["your_turn"] and v["legal"]
        r = client.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]})
        assert r.status_code == 200, r.text
        v = r.json()
        moves += 1
    assert v["to_act"] is None and v["legal"] == [] and v["your_turn"] is False and v["phase"] == "over"
    assert sum(1 for e in v["log"] if e["seat"] == 0) == moves
    k = envs.kernel(game, **({} if players is None else {"num_players": players}))
    assert len(v["returns"]) == k.num_players and v["totals"] == v["returns"]
    if k.zero_sum:
        assert sum(v["returns"]) == pytest.approx(0.0, abs=1e-6)
    assert v["summary"] is not None and v["summary"]["lines"] and v["summary"]["result"]
    if k.teams is not None:
        for team in k.teams:
            assert len({v["returns"][s] for s in team}) == 1  # partners share the result
    first = v
    r = client.post(f"/api/tables/{tid}/new")
    assert r.status_code == 200
    v = r.json()
    assert v["table_id"] == tid and v["totals"] == first["totals"]
    assert v["done"] or (v["your_turn"] and v["returns"] is None)
    assert sum(1 for e in v["log"] if e["seat"] == 0) == 0
    assert v["text"] != first["text"]


def test_no_redeal_while_the_deal_is_running(client):
    """POST /new mid-deal is a 409 and changes nothing: a dropped deal would not count in the totals,
    so redealing bad hands would flatter them; once the deal is over it deals the next one."""
    tid = open_table(client, "all_fours", seed=8)["table_id"]
    before = client.get(f"/api/tables/{tid}").json()
    assert not before["done"] and before["your_turn"]
    r = client.post(f"/api/tables/{tid}/new")
    assert r.status_code == 409
    assert "the deal is not over" in r.json()["detail"] and "open a new table" in r.json()["detail"]
    assert client.get(f"/api/tables/{tid}").json() == before
    v = before
    while not v["done"]:
        v = client.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]}).json()
    r = client.post(f"/api/tables/{tid}/new")
    assert r.status_code == 200 and r.json()["totals"] == v["totals"] == v["returns"]


def test_delete_closes_the_table(client):
    tid = open_table(client, "avinas", seed=2)["table_id"]
    assert client.delete(f"/api/tables/{tid}").status_code == 204
    assert client.get(f"/api/tables/{tid}").status_code == 404


def test_tables_are_isolated(client):
    a = open_table(client, "all_fours", seed=21)
    b = open_table(client, "all_fours", seed=21)
    assert a["table_id"] != b["table_id"]
    assert {**a["view"], "table_id": None} == {**b["view"], "table_id": None}  # same seed, same deal
    before = client.get(f"/api/tables/{b['table_id']}").json()
    v = a["view"]
    for _ in range(5):
        if v["done"]:
            break
        v = client.post(f"/api/tables/{a['table_id']}/move", json={"action": v["legal"][-1]["action"]}).json()
    client.post(f"/api/tables/{a['table_id']}/new")
    assert client.get(f"/api/tables/{b['table_id']}").json() == before
    assert client.get(f"/api/tables/{a['table_id']}").json() != before


def test_concurrent_moves_on_one_table_apply_exactly_one(client):
    out = open_table(client, "all_fours", seed=4)
    tid, v = out["table_id"], out["view"]
    a = v["legal"][0]["action"]
    codes = []
    barrier = threading.Barrier(8)

    def go():
        barrier.wait()
        codes.append(client.post(f"/api/tables/{tid}/move", json={"action": a}).status_code)

    threads = [threading.Thread(target=go) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert codes.count(200) == 1 and all(c in (400, 409) for c in codes if c != 200), codes
    v = client.get(f"/api/tables/{tid}").json()
    assert [e["text"] for e in v["log"] if e["seat"] == 0] == [envs.kernel("all_fours").action_name(a)]


def test_a_repeated_or_stale_move_is_409_and_changes_nothing(client):
    """A move carries the "moves" of the View it answers. Without it a repeated request (a retry, a
    double click) or one sent from an old view (a second tab) was played on a table that had moved on:
    the same P'yanitsa flip sent 10 times played 10 flips, and a stale Aluette move was taken whenever
    it was legal again."""
    out = open_table(client, "pyanitsa", seed=1)
    tid, v = out["table_id"], out["view"]
    flip = v["legal"][0]["action"]
    assert v["moves"] == 0 and v["your_turn"]
    body = {"action": flip, "moves": 0}
    v1 = client.post(f"/api/tables/{tid}/move", json=body).json()
    assert v1["moves"] == 2 and v1["your_turn"] and [l["action"] for l in v1["legal"]] == [flip]
    before = client.get(f"/api/tables/{tid}").json()
    r = client.post(f"/api/tables/{tid}/move", json=body)  # the same request again: the flip is legal again
    assert r.status_code == 409
    assert r.json()["detail"] == (
        "stale move: it answers the view at move 0, but the table is at move 2 (the move was already made, or "
        'another request moved the table on); GET /api/tables/{id} for the current view and send its "moves" '
        "with your action")
    assert client.get(f"/api/tables/{tid}").json() == before
    r = client.post(f"/api/tables/{tid}/move", json={"action": flip, "moves": 10**60})
    assert r.status_code == 409 and r.json()["detail"].startswith(
        "stale move: it answers the view at move 1000000000000000000000000000000000000..., but the table is at move 2")
    r = client.post(f"/api/tables/{tid}/move", json={"action": flip, "moves": "2"})
    assert r.status_code == 422 and r.json()["detail"] == 'malformed request: moves: must be a JSON integer, not "2"'
    assert client.get(f"/api/tables/{tid}").json() == before
    v2 = client.post(f"/api/tables/{tid}/move", json={"action": flip, "moves": 2}).json()  # the current view's
    assert v2["moves"] == 4
    v3 = client.post(f"/api/tables/{tid}/move", json={"action": flip}).json()  # "moves" stays optional
    assert v3["moves"] == 6


def test_a_move_from_a_view_of_the_last_deal_is_409_though_its_move_count_is_the_table_s(client):
    """Every deal counts its moves from 0, so "moves" alone let a move from the last deal's view (a second
    tab left at its first turn) be played on the new deal whenever the count and the action matched: in
    All Fours (seed 0) both deals start with seat 0's stand-or-beg at move 0. The View's "deal", sent
    back with the move, tells them apart; a client that sends no "deal" is served as before."""
    out = open_table(client, "all_fours", seed=0, partner="all_fours/rule", opponents="all_fours/rule")
    tid, first = out["table_id"], out["view"]
    assert (first["deal"], first["moves"]) == (1, 0)
    v = first
    while not v["done"]:
        v = client.post(f"/api/tables/{tid}/move",
                        json={"action": v["legal"][0]["action"], "moves": v["moves"], "deal": v["deal"]}).json()
    new = client.post(f"/api/tables/{tid}/new").json()
    assert (new["deal"], new["moves"]) == (2, 0) and new["your_turn"]
    stale = {"action": first["legal"][0]["action"], "moves": first["moves"], "deal": first["deal"]}
    assert stale["action"] in [m["action"] for m in new["legal"]]  # legal in the new deal too: only "deal" tells
    before = client.get(f"/api/tables/{tid}").json()
    r = client.post(f"/api/tables/{tid}/move", json=stale)
    assert (r.status_code, r.json()["detail"]) == (409, (
        "stale move: it answers a view of deal 1, but the table is at deal 2 (a new deal was dealt since); "
        'GET /api/tables/{id} for the current view and send its "deal" and "moves" with your action'))
    assert client.get(f"/api/tables/{tid}").json() == before
    r = client.post(f"/api/tables/{tid}/move", json={**stale, "deal": "2"})
    assert r.status_code == 422 and r.json()["detail"] == 'malformed request: deal: must be a JSON integer, not "2"'
    ok = client.post(f"/api/tables/{tid}/move", json={**stale, "deal": 2})
    assert ok.status_code == 200 and ok.json()["deal"] == 2 and ok.json()["moves"] > 0
    # without "deal" (a client written before it) the move count alone is checked, as it was
    again = client.post(f"/api/tables/{tid}/move", json={"action": ok.json()["legal"][0]["action"], "moves": ok.json()["moves"]})
    assert again.status_code == 200, again.json()


class _Crashing:
    """An agent whose every move raises (a bug in an agent, a damaged saved agent)."""

    def act(self, obs, mask):
        raise RuntimeError("agent crashed")


def test_a_failing_ai_player_is_503_and_the_table_plays_it_again_at_the_next_request():
    """An AI seat's agent that raised gave a bare 500 "Internal Server Error" and left the table at that
    seat's turn for good: every later move was 409 "not your turn: player_2 is to act", the hint 409,
    even once the agent worked again. Now it is 503 naming the seat and what to do, the moves before it
    stand, and the next GET plays the AI seat again."""
    from fastapi.testclient import TestClient

    from cardzoo.training.web.app import create_app
    from cardzoo.training.web.tables import TableManager

    c = TestClient(create_app(TableManager(per_client=100, per_minute=100)), raise_server_exceptions=False)
    out = open_table(c, "all_fours", seed=1)
    tid, v = out["table_id"], out["view"]
    table = manager(c).get(tid)
    name, agent, lock = table.seat_agents[2]
    table.seat_agents[2] = (name, _Crashing(), None)
    stand = v["legal"][0]
    r = c.post(f"/api/tables/{tid}/move", json={"action": stand["action"], "moves": v["moves"]})
    detail = (f"the AI player at seat 2 ({name}) failed to choose its move (the server's console says why); the moves "
              "before it stand and it plays again at the next request: GET /api/tables/{id}")
    assert r.status_code == 503 and r.json()["detail"] == detail
    assert table.to_act == 2 and [e.seat for e in table.log][-1] == 1  # the person's move and seat 1's stand
    assert c.get(f"/api/tables/{tid}").status_code == 503  # still failing: tried again, same answer
    r = c.post(f"/api/tables/{tid}/move", json={"action": 0})
    assert r.status_code == 503 and r.json()["detail"] == detail
    table.seat_agents[2] = (name, agent, lock)  # the agent works again
    moves = table.moves
    r = c.post(f"/api/tables/{tid}/move", json={"action": 0})  # a move from the view before the failure
    assert r.status_code == 409 and r.json()["detail"] == (
        "the AI players have made the moves a failed request left undone; GET /api/tables/{id} for the current "
        "view, then move")
    assert table.moves > moves and [e.seat for e in table.log][moves] == 2
    v = c.get(f"/api/tables/{tid}").json()
    assert v["your_turn"] and v["to_act"] == 0
    v = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"], "moves": v["moves"]}).json()
    assert v["your_turn"] or v["done"]
    # a table whose first deal fails at an AI seat is not opened
    m = manager(c)
    real = m._agent
    m._agent = lambda game, name, options, seed: (_Crashing(), None)
    n = len(m)
    r = c.post("/api/tables", json={"game": "all_fours", "seed": 3, "options": {"first_dealer": 0},
                                    "partner": "all_fours/rule", "opponents": "all_fours/rule"})  # S1 begs first
    m._agent = real
    assert r.status_code == 503 and r.json()["detail"].startswith(
        "the table could not be dealt: the AI player at seat 1 (all_fours/rule) failed to choose its move; open it "
        "again or choose another agent (['all_fours/ismcts',")
    assert len(m) == n


def test_a_failing_hint_agent_is_503_and_changes_nothing():
    """The hint's agent raising gave a bare 500 "Internal Server Error"; now 503 saying there is no hint
    and why, the table unchanged."""
    from fastapi.testclient import TestClient

    from cardzoo.training.web.app import create_app
    from cardzoo.training.web.tables import TableManager

    c = TestClient(create_app(TableManager(per_client=100, per_minute=100)), raise_server_exceptions=False)
    tid = open_table(c, "aluette", seed=2, partner="aluette/rule", opponents="aluette/rule")["table_id"]
    m = manager(c)
    name = m.default_agent("aluette", m.get(tid).options)
    before = c.get(f"/api/tables/{tid}").json()
    real = m._agent
    m._agent = lambda game, agent_name, options, seed: (_Crashing(), None)
    r = c.get(f"/api/tables/{tid}/hint")
    m._agent = real
    assert r.status_code == 503 and r.json()["detail"] == (
        f"no hint: its agent ({name}) failed to choose a move (the server's console says why); the table is "
        "unchanged: play your move, or ask again")
    assert c.get(f"/api/tables/{tid}").json() == before
    assert c.get(f"/api/tables/{tid}/hint").status_code == 200


def test_table_cap_is_503_and_idle_tables_expire():
    now = [0.0]
    c = make_client(max_tables=2, idle_seconds=60, clock=lambda: now[0])
    t1 = open_table(c, "pyanitsa", seed=1)["table_id"]
    open_table(c, "pyanitsa", seed=2)
    r = c.post("/api/tables", json={"game": "pyanitsa"})
    assert r.status_code == 503 and "too many open tables (2 of 2)" in r.json()["detail"]
    now[0] = 30.0
    assert c.get(f"/api/tables/{t1}").status_code == 200  # used: its idle clock restarts
    now[0] = 80.0  # the second table has been idle 80 s, the first 50 s
    t3 = open_table(c, "pyanitsa", seed=3)["table_id"]
    assert c.get(f"/api/tables/{t1}").status_code == 200 and c.get(f"/api/tables/{t3}").status_code == 200
    assert len(manager(c)) == 2


def test_agents_chosen_by_name_play_their_seats(client):
    v = open_table(client, "all_fours", seed=8, partner="all_fours/rule", opponents="random")["view"]
    assert [s["agent"] for s in v["seats"]] == [None, "random", "all_fours/rule", "random"]
    assert [s["team"] for s in v["seats"]] == [0, 1, 0, 1]
    assert [s["role"] for s in v["seats"]] == ["you", "right", "partner", "left"]
    v = open_table(client, "pyanitsa", players=4, opponents="pyanitsa/rule")["view"]
    assert [s["role"] for s in v["seats"]] == ["you", "left", "across", "right"]
    assert [s["team"] for s in v["seats"]] == [None] * 4 and v["teams"] is None


def test_same_seed_same_game_and_card_dicts_are_complete(client):
    a = open_table(client, "ottocento", seed=9)["view"]
    b = open_table(client, "ottocento", seed=9)["view"]
    assert a["hand"] == b["hand"] and a["log"] == b["log"]
    suits = {c["suit"] for c in a["hand"]}
    assert suits <= {"swords", "batons", "cups", "coins", "trumps", None}
    mat = DECKS["tarocco62"].card_id("MAT")
    from cardzoo.training.web.views import card_dict

    assert card_dict(DECKS["tarocco62"], mat) == {"id": 61, "code": "MAT", "rank": "MAT", "suit": None,
                                                  "pack": "tarocco", "label": "Matto"}
    assert card_dict(DECKS["french52"], 34)["label"] == "10 of hearts"
    assert card_dict(DECKS["spanish48"], DECKS["spanish48"].card_id("3Co"))["suit"] == "coins"
    assert card_dict(DECKS["french52"], None)["id"] is None


@pytest.mark.parametrize("game", GAMES)
def test_rules_page_is_the_rendered_rules(client, game):
    r = client.get(f"/api/rules/{game}")
    assert r.status_code == 200
    html = r.json()["html"]
    assert r.json()["game"] == game and html.startswith("<h1>") and "<table>" in html and "<h2>" in html


def test_unknown_rules_and_front_end(client):
    r = client.get("/api/rules/chess")
    assert r.status_code == 404 and "games: ['all_fours'" in r.json()["detail"]
    r = client.get("/")
    assert r.status_code == 200 and "<html" in r.text.lower()


def test_cli_serve_and_bench_web_arguments(capsys):
    assert main(["serve", "--port", "70000", "--no-browser"]) == 2
    assert "--port must be 0..65535" in capsys.readouterr().err
    assert main(["bench-web", "--clients", "0"]) == 2
    assert "clients" in capsys.readouterr().err


def test_ai_moves_are_logged_face_down_when_seat_0_does_not_see_them(client):
    # Ottocento: the dealer discards two cards face down (§3.5); find a deal with an AI dealer
    for seed in range(20):
        v = open_table(client, "ottocento", seed=seed)["view"]
        if v["dealer"] != 0:
            break
    dealer = v["dealer"]
    assert [e["text"] for e in v["log"] if e["seat"] == dealer][:2] == ["face_down", "face_down"]
    assert all(e["text"] != "face_down" for e in v["log"] if e["seat"] != dealer)


@pytest.mark.parametrize("game", ["all_fours", "ottocento", "avinas", "aluette"])
def test_the_last_trick_shows_its_cards_as_seat_0_saw_them_played(client, game):
    """The last completed trick comes with its cards (from the kernel, or from the table's record
    of the moves where the kernel keeps only the winner): one per seat, in play order, each the
    card that seat was logged playing (face-down ones stay hidden), and the winner among them."""
    out = open_table(client, game, seed=5)
    tid, v = out["table_id"], out["view"]
    seen_tricks = 0
    for _ in range(step_bound(game)):
        lt = v["last_trick"]
        if lt is not None:
            cards = lt["cards"]
            assert len(cards) == 4, lt
            assert len({c["seat"] for c in cards}) == 4
            assert lt["winner"] is None or lt["winner"] in {c["seat"] for c in cards}
            logged = [(e["seat"], e["text"]) for e in v["log"]]
            for c in cards:
                if c["card"]["id"] is None:
                    assert c["seat"] != 0  # only another seat's card can be face down to seat 0
                else:
                    assert any(s == c["seat"] and c["card"]["code"] in t for s, t in logged), (c, logged)
            seen_tricks += 1
        if v["done"]:
            break
        r = client.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]})
        assert r.status_code == 200, r.text
        v = r.json()
    assert seen_tricks >= 3


def test_refused_requests_load_no_agent_and_the_agent_cache_is_bounded(client):
    from cardzoo.training.web.tables import TableManager

    m = manager(client)
    before = (len(m._shared), len(m._defaults))
    for i in range(1, 6):
        r = client.post("/api/tables", json={"game": "all_fours", "partner": "nope", "options": {"max_hands": i}})
        assert r.status_code == 400 and "unknown agent 'nope'" in r.json()["detail"]
    assert (len(m._shared), len(m._defaults)) == before
    full = TableManager(max_tables=1)
    full.create("all_fours", seed=1)
    with pytest.raises(Exception, match="too many open tables"):
        full.create("all_fours", options={"max_hands": 3})
    assert not any('"max_hands": 3' in key[1] for key in full._shared)
    fresh = TableManager()
    for i in range(1, TableManager.MAX_CACHED + 9):
        fresh._agent("all_fours", "all_fours/rule", {"max_hands": i}, None)
    assert len(fresh._shared) == TableManager.MAX_CACHED


@pytest.mark.parametrize("opponents", ["avinas/pimc", "avinas/ismcts"])
def test_the_same_seed_plays_the_same_deal_against_a_search_agent(client, opponents):
    """A table's seed reproduces its deal with every agent: a search agent (it draws determinizations)
    was one instance shared by all tables and never seeded, so two tables with seed 5 played
    differently. Now a table with a seed seats its own search agents, seeded like the random ones."""

    def play(seed):
        out = open_table(client, "avinas", seed=seed, partner=opponents, opponents=opponents)
        tid, v = out["table_id"], out["view"]
        while not v["done"]:
            v = client.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]}).json()
        return v["log"], v["returns"]

    first = play(5)
    assert play(5) == first
    assert len(first[0]) > 30


def test_players_and_a_different_num_players_option_are_refused(client):
    """``players`` 2 with ``options.num_players`` 3 opened a 2-player table, silently dropping the
    option; now the two must agree (the same number, as written or as a string, is fine)."""
    n = len(manager(client))
    r = client.post("/api/tables", json={"game": "pyanitsa", "players": 2, "options": {"num_players": 3}})
    assert r.status_code == 400
    assert r.json()["detail"] == ("players is 2 but options.num_players is 3: give the number of players once "
                                  "(players, 2 to 4)")
    assert len(manager(client)) == n
    r = client.post("/api/tables", json={"game": "pyanitsa", "players": 3, "options": {"num_players": "03"}})
    assert r.status_code == 201 and r.json()["view"]["num_players"] == 3


def test_refusals_quote_long_input_briefly(client):
    """Error messages quote input in at most 40 characters (training/web/README.md): an illegal
    action of 200 digits, an unknown option name or a bad option value of 1,000 characters were
    echoed whole (the option messages up to 300 characters)."""
    tid = open_table(client, "all_fours", seed=1)["table_id"]
    r = client.post(f"/api/tables/{tid}/move", content=b'{"action": ' + b"9" * 200 + b"}",
                    headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert r.json()["detail"] == ("illegal action " + "9" * 37 + "... (out of range 0..55); legal actions: "
                                  "15 4D, 16 5D, 22 JD, 24 KD")
    r = client.post("/api/tables", json={"game": "pyanitsa", "options": {"x" * 1000: 1}})
    assert r.status_code == 400
    assert r.json()["detail"] == (
        'bad pyanitsa options: unknown option(s) ["' + "x" * 36 + '...]; valid options: ["collect_order", "deck", '
        '"detect_cycles", "max_battles", "num_players", "objective", "observe_history", "runout", "six_beats_ace", '
        '"tie_mode", "tie_players"]')
    r = client.post("/api/tables", json={"game": "all_fours", "options": {"undertrumps": True}})  # misspelt
    assert r.status_code == 400
    assert r.json()["detail"].startswith('bad all_fours options: unknown option(s) ["undertrumps"] (did you mean "undertrump"?); '
                                         'valid options: [')
    r = client.post("/api/tables", json={"game": "pyanitsa", "options": {"collect_order": "y" * 1000}})
    assert r.status_code == 400
    detail = r.json()["detail"]
    assert detail.startswith('bad pyanitsa options: option collect_order="' + "y" * 36 + "... is not valid; valid values:")
    assert "y" * 37 not in detail


@pytest.mark.parametrize("body, detail", [
    # the kernel's words were Python's: "valid values: [None, 0, 1, 2, 3]", "episode=None", "game_tie=True",
    # "{'a': 1}", "options.num_players is None"; a client of the API writes JSON: null, true, "x"
    ({"game": "all_fours", "options": {"first_dealer": 9}},
     "bad all_fours options: option first_dealer=9 is not valid; valid values: [null, 0, 1, 2, 3]"),
    ({"game": "all_fours", "options": {"episode": None}},
     'bad all_fours options: option episode=null is not valid; valid values: ["hand", "match"]'),
    ({"game": "all_fours", "options": {"game_tie": True}},
     'bad all_fours options: option game_tie=true is not valid; valid values: ["none", "beggar_team", "dealer_team"]'),
    ({"game": "all_fours", "options": {"target_score": {"a": 1}}},
     'bad all_fours options: option target_score={"a": 1} is not valid; valid values: an int from 1 to 10000'),
    ({"game": "aluette", "options": {"match_target": False}},
     "bad aluette options: option match_target=false is not valid; valid values: null or an int from 1 to 1000"),
    ({"game": "pyanitsa", "players": 3, "options": {"num_players": None}},
     "players is 3 but options.num_players is null: give the number of players once (players, 2 to 4)"),
    # options valid one by one that do not go together: the kernel's own message, its constants as JSON's
    ({"game": "aluette", "options": {"surrender": True, "mordienne": False}},
     "bad aluette options: option surrender=true requires mordienne=true (RULES.md §4.4); valid: surrender=false "
     "or mordienne=true"),
])
def test_option_refusals_are_written_in_json_terms(client, body, detail):
    n = len(manager(client))
    r = client.post("/api/tables", json=body)
    assert (r.status_code, r.json()) == (400, {"detail": detail})
    assert len(manager(client)) == n


UNREADABLE = ("malformed request: the body could not be read as JSON (it must be UTF-8 text, numbers of at most 4300 "
              "digits, arrays and objects nested a few hundred deep at most); send a JSON object, e.g. {\"action\": 3}")


def test_a_body_that_is_not_json_is_422_saying_so(client):
    """Broken JSON was answered 'malformed request: 1: JSON decode error' (the '1' a character
    position, unexplained), and a body that is not UTF-8 or holds a 5,000-digit number got 400
    'There was an error parsing the body', naming neither the problem nor what is valid."""
    tid = open_table(client, "all_fours", seed=1)["table_id"]
    before = client.get(f"/api/tables/{tid}").json()
    cases = [
        (b"{action: 3}", "malformed request: the body is not valid JSON (Expecting property name enclosed in double "
                         "quotes at character 1); send a JSON object, e.g. {\"action\": 3}"),
        # the parser's own message ends in "at": it read "starting at at character 1"
        (b'{"act', "malformed request: the body is not valid JSON (Unterminated string starting at character 1); "
                   "send a JSON object, e.g. {\"action\": 3}"),
        (b'{"action": "\xff"}', UNREADABLE),
        (b'{"action": ' + b"9" * 5000 + b"}", UNREADABLE),
        # nested past the parser's recursion limit: the message named only UTF-8 and long numbers as what can go wrong
        (b'{"action": ' + b"[" * 5000 + b"]" * 5000 + b"}", UNREADABLE),
    ]
    for body, detail in cases:
        r = client.post(f"/api/tables/{tid}/move", content=body, headers={"content-type": "application/json"})
        assert (r.status_code, r.json()) == (422, {"detail": detail}), body[:20]
    assert client.get(f"/api/tables/{tid}").json() == before
    r = client.post("/api/tables", content=b'{"game": "\xff"}', headers={"content-type": "application/json"})
    assert r.status_code == 422 and "send a JSON object, e.g. {\"game\": \"all_fours\"}" in r.json()["detail"]
    assert client.get("/api/tables/nope").status_code == 404  # other HTTP errors as before
    assert client.put(f"/api/tables/{tid}").json() == {"detail": f"PUT is not allowed on /api/tables/{tid}; "
                                                                "allowed: DELETE, GET, HEAD"}


def test_a_long_pyanitsa_game_sends_only_the_last_moves_of_its_log():
    """The View's move log is the episode's last ``LOG_WINDOW`` (150) moves, ``log_start`` the number
    of the first: the whole log went in every answer (29 bytes a move), so a long P'yanitsa game's
    answers grew without bound (a 758-move game's last answer was 22.8 KB, 22 KB of it log). The
    frames of the answers, put together, are the whole log, and the log sent is its tail."""
    from cardzoo.training.web.views import LOG_WINDOW

    assert LOG_WINDOW == 150
    client = make_client()
    out = open_table(client, "pyanitsa", seed=4, players=2)
    tid, v = out["table_id"], out["view"]
    heard = [{"seat": f["seat"], "text": f["text"]} for f in v["frames"]]
    largest = 0
    while not v["done"]:
        r = client.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]})
        assert r.status_code == 200, r.text
        v = r.json()
        largest = max(largest, len(r.content))
        heard += [{"seat": f["seat"], "text": f["text"]} for f in v["frames"]]
        assert v["moves"] == len(heard)
        assert len(v["log"]) == min(len(heard), 150) and v["log_start"] == len(heard) - len(v["log"])
        assert v["log"] == heard[v["log_start"]:]
    assert (v["moves"], v["log_start"]) == (206, 56)
    assert largest < 9000
    again = client.get(f"/api/tables/{tid}").json()
    assert (again["log"], again["log_start"]) == (v["log"], 56)
    rep = client.get(f"/api/tables/{tid}/replay").json()
    assert rep["first"] == 0 and [{"seat": f["seat"], "text": f["text"]} for f in rep["frames"]] == heard


def test_pyanitsa_takes_n_players_the_rules_name_as_the_env_does(client):
    """The env takes n_players (the rules' name) as an alias of num_players; the web table refused it
    as an unknown option."""
    r = client.post("/api/tables", json={"game": "pyanitsa", "options": {"n_players": 3}})
    assert r.status_code == 201 and len(r.json()["view"]["hand_sizes"]) == 3
    r = client.post("/api/tables", json={"game": "pyanitsa", "options": {"n_players": 3, "num_players": 3}})
    assert (r.status_code, r.json()) == (400, {"detail": "bad pyanitsa options: options 'n_players' and 'num_players' "
                                                         "name the same thing; pass only one of them"})

"""The end-of-deal explanations (issue 19, item 2): for many random deals of each game, every line of
``summary["explain"]`` agrees with the env's own scoring (the state and the summary's numbers), and
no training reward is among them."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo import envs
from cardzoo.envs.core.cards import FRENCH52

DEALS = 40


def _finished(game: str, seed: int, **options):
    env = envs.make(game, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not env.game_state.done[0]:
        env.step(int(rng.choice(env.legal_actions())))
    k = env.unwrapped.kernel
    st = env.game_state
    return k, st, k.table_view(st, 0, 0)["summary"]


def _lines(summary) -> dict:
    return {ln["key"]: ln["values"] for ln in summary["lines"]}


def _by_key(summary) -> dict:
    out = {}
    for e in summary["explain"]:
        out.setdefault(e["key"], []).append(e["args"])
    return out


def test_all_fours_high_low_jack_game_from_the_dealt_cards():
    seen = set()
    for seed in range(DEALS):
        _, st, s = _finished("all_fours", seed)
        if st.truncated[0]:
            continue
        ex, lines = _by_key(s), _lines(s)
        trump = int(st.trump[0])
        trumps = [(c, seat) for seat in range(4) for c in range(52) if (int(st.dealt[0, seat]) >> c) & 1 and c // 13 == trump]
        if not trumps:
            assert "af_no_trump" in ex
            continue
        hc, hs = max(trumps)
        lc, ls = min(trumps)
        assert ex["af_high"] == [{"card": FRENCH52.names[hc], "seat": f"S{hs}", "team": "AB"[hs % 2]}]
        assert ex["af_low"] == [{"card": FRENCH52.names[lc], "seat": f"S{ls}", "team": "AB"[ls % 2]}]
        assert lines["high"][hs % 2] == "1" and lines["low"][ls % 2] == "1"
        jack = 13 * trump + 9
        holder = [seat for c, seat in trumps if c == jack]
        if not holder:
            assert "af_no_jack" in ex
        else:
            won_by = next(t for t in range(2) if (int(st.captured[0, t]) >> jack) & 1)
            key = "af_jack" if won_by == holder[0] % 2 else "af_hang_jack"
            seen.add(key)
            assert ex[key] == [{"seat": f"S{holder[0]}", "team": "AB"[won_by], "points": 1 if key == "af_jack" else 3}]
            assert lines["hang_jack" if key == "af_hang_jack" else "jack"][won_by] == ("1" if key == "af_jack" else "3")
        gv = [int(v) for v in st.game_value[0]]
        assert [str(v) for v in gv] == lines["game_value"]
        if gv[0] != gv[1]:
            assert ex["af_game"] == [{"a": gv[0], "b": gv[1], "team": "AB"[int(gv[1] > gv[0])], "points": 1}]
        else:
            assert ex["af_game_tie"] == [{"a": gv[0], "b": gv[1]}]
        kicks = [int(v) for v in lines["kicks_and_give_one"]]
        assert ex.get("af_kicks", [{"a": 0, "b": 0}]) == [{"a": kicks[0], "b": kicks[1]}]
    assert seen == {"af_jack", "af_hang_jack"}


def test_ottocento_combinations_and_card_points_add_up_to_the_summary():
    from cardzoo.envs.ottocento.render import combo_items

    for seed in range(DEALS):
        k, st, s = _finished("ottocento", seed)
        ex, lines = _by_key(s), _lines(s)
        captured = [0, 0]
        for a in ex.get("oc_captured", []):
            t = "AB".index(a["team"])
            items = [x.rsplit(" ", 1) for x in a["combos"].split(", ")]
            assert sum(int(p) for _, p in items) == a["points"]
            captured[t] = a["points"]
        assert [str(v) for v in captured] == lines["captured_combinations"]
        declared = [0, 0]
        for a in ex.get("oc_declared", []):
            seat = int(a["seat"][1])
            declared[seat % 2] += a["points"]
            assert a["points"] == int(st.decl_points[0, seat])
            assert sum(int(x.rsplit(" ", 1)[1]) for x in a["combos"].split(", ")) == a["points"]
        assert [str(v) for v in declared] == lines["declarations"]
        tricks = ex["oc_tricks_points"][0]
        disc = ex.get("oc_discards", [])
        matto = (ex.get("oc_matto") or ex.get("oc_matto_gift"))[0]
        total = [tricks["a"] + matto["a"], tricks["b"] + matto["b"]]
        for d in disc:
            total["AB".index(d["team"])] += d["points"]
        assert [float(v) for v in lines["card_points"]] == [float(v) for v in total]
        assert sum(total) == 87
        last = [0, 0]
        for a in ex.get("oc_last_trick", []):
            last["AB".index(a["team"])] = a["points"]
        assert [str(v) for v in last] == lines["last_trick"]
        # the kernel's own scorer gives the captured value of each final pile
        for t in range(2):
            assert combo_items(int(st.final_piles[0, t]), k)[1] == captured[t]


def test_avinas_target_outcome_and_the_rams_or_pips_written():
    kinds = set()
    for seed in range(DEALS * 2):
        _, st, s = _finished("avinas", seed)
        if st.truncated[0]:
            continue
        ex, lines = _by_key(s), _lines(s)
        took = ex["av_took"][0]
        t = "AB".index(took["team"])
        assert str(took["points"]) == lines["card_points"][t] and str(took["tricks"]) == lines["tricks_won"][t]
        loser = 1 - int(s["result"][5])
        if "av_target_61" in ex:
            kinds.add("61")
            if "av_lied" not in ex and "av_stopped" not in ex:
                assert (took["points"] >= 61) == (loser != t)
        else:
            kinds.add("all")
            assert (took["tricks"] == 8) == (loser != t)
        if "av_rams" in ex:
            assert ex["av_rams"][0]["team"] == "AB"[loser]
            assert str(ex["av_rams"][0]["n"]) == lines["rams"][loser]
            assert ex["av_rams"][0]["knocks"] == int(st.knocked[0].sum())
        else:
            kinds.add("pips")
            p = ex["av_pips_detail"][0]
            assert p["team"] == "AB"[loser] and str(p["n"]) == lines["pips"][loser]
            assert p["n"] == (6 if p["tricks"] == 0 else 4 if p["points"] <= 30 else 2)
    assert kinds == {"61", "all", "pips"}


def test_aluette_tricks_per_player_spoiled_and_mordienne():
    for seed in range(DEALS):
        _, st, s = _finished("aluette", seed)
        ex = _by_key(s)
        won = [int(st.won[0, p]) for p in range(4)]
        assert ex["al_tricks"] == [{"list": ", ".join(f"S{p} {won[p]}" for p in range(4))}]
        results = [int(r) for r in st.results[0, : int(st.tricks_done[0])]]
        assert ex.get("al_spoiled", [{"n": 0}]) == [{"n": results.count(4)}]
        if "al_winner_detail" in ex:
            w = ex["al_winner_detail"][0]
            seat = int(w["seat"][1])
            assert w["n"] == max(won) == won[seat]
            assert w["points"] == (2 if "al_mordienne_detail" in ex else 1)
            if "al_mordienne_detail" in ex:
                first = ex["al_mordienne_detail"][0]["first"]
                assert results[first - 1 :] == [seat] * (10 - first) and seat not in results[: first - 1]
        else:
            assert max(won) == 0 and "al_nobody" in ex


@pytest.mark.parametrize("objective", ["last_holder_loses", "first_out_loses"])
def test_pyanitsa_who_lost_and_why(objective):
    for seed in range(DEALS // 4):
        _, st, s = _finished("pyanitsa", seed, num_players=3, objective=objective)
        ex = s["explain"]
        sizes = [int(n) for n in st.size[0]]
        if st.truncated[0] or st.draw[0]:
            assert ex[0]["key"] in ("py_truncated", "py_dead_battle")
        elif objective == "last_holder_loses":
            (e,) = ex
            assert e["key"] == "py_last_holder" and e["args"]["n"] == sum(sizes) == sizes[int(e["args"]["seat"][1])]
        else:
            (e,) = ex
            losers = [int(x[1]) for x in e["args"]["seats"].split()]
            assert e["key"] == "py_first_out" and all(sizes[p] == 0 for p in losers)


def test_avinas_explanations_state_the_tables_own_scoring_schedule():
    """The pips sentence said "(6 with no trick, 4 with 30 points or fewer, else 2)" also at a table
    with ``pip_schedule="flat"``, where 2 pips are written whatever the loser took (RULES.md §6.3):
    'lost with 0 card points in 0 tricks: 2 pips written (6 with no trick, ...)'. Such a table now
    gets the sentence of its own schedule, and so does a table with ``ram_schedule="graded"`` (§6.2)."""
    import json
    from pathlib import Path

    from web_util import make_client

    import cardzoo.training.web as web

    en = json.loads((Path(web.__file__).parent / "i18n" / "en.json").read_text(encoding="utf-8"))["explain"]
    assert en["av_pips_detail_flat"] == ("{team} lost with {points} card {points|point|points} in {tricks} "
                                         "{tricks|trick|tricks}: {n} pips written (always 2 at this table).")
    client = make_client()
    seen = set()
    for options in ({"pip_schedule": "flat"}, {"ram_schedule": "graded"}, {}):
        for seed in range(12):
            out = client.post("/api/tables", json={"game": "avinas", "seed": seed, "partner": "avinas/rule",
                                                    "opponents": "avinas/rule", "options": options}).json()
            tid, v = out["table_id"], out["view"]
            while not v["done"]:
                v = client.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]}).json()
            ex = _by_key(v["summary"])
            rep = client.get(f"/api/tables/{tid}/replay").json()
            assert rep["frames"][-1]["view"]["summary"] == v["summary"]  # the replay says the same
            if options.get("pip_schedule") == "flat":
                assert "av_pips_detail" not in ex
                if "av_pips_detail_flat" in ex:
                    seen.add("flat")
                    assert ex["av_pips_detail_flat"][0]["n"] == 2
            elif options.get("ram_schedule") == "graded":
                assert "av_rams" not in ex
                if "av_rams_graded" in ex:
                    seen.add("graded")
            else:
                assert "av_pips_detail_flat" not in ex and "av_rams_graded" not in ex
                seen.add("default")
    assert seen == {"flat", "graded", "default"}


def test_avinas_rams_written_mid_match_name_no_knocks():
    """In a match the next deal begins at once, and the summary then shows only the rams written: it
    said "Team A lost the deal: 4 rams written (0 knocks, each doubling the stake)" though two knocks
    had doubled the stake twice (the knocks were read from the new deal). Off the table the line is
    ``av_rams_written`` (team, n), with no knock count; on the table ``av_rams`` counts them."""
    import random

    from web_util import make_client

    client = make_client()
    out = client.post("/api/tables", json={"game": "avinas", "seed": 0, "partner": "avinas/rule",
                                            "opponents": "avinas/rule", "options": {"episode": "match"}}).json()
    tid, v = out["table_id"], out["view"]
    rng = random.Random(0)
    off_table = []
    while not v["done"]:
        v = client.post(f"/api/tables/{tid}/move", json={"action": rng.choice(v["legal"])["action"]}).json()
        s = v["summary"]
        if s and s["explain"]:
            ex = _by_key(s)
            if "av_took" in ex:  # the deal is still on the table
                assert "av_rams_written" not in ex
            elif (ex.get("av_rams_written") or [None])[0] not in off_table[-1:]:
                assert "av_rams" not in ex
                off_table += ex.get("av_rams_written", [])
    assert off_table == [{"team": "A", "n": 1}, {"team": "B", "n": 1}, {"team": "A", "n": 1}, {"team": "A", "n": 4},
                         {"team": "A", "n": 1}, {"team": "A", "n": 4}]

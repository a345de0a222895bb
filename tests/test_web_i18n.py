"""The web table's translations (training/web/i18n/en.json and id.json, issue 8).

Both languages have the same keys with non-empty text; every text key the front end's pages and
scripts use exists; and every key a game's table view sends (phase, fact, score, summary and
result keys, collected by playing seeded random games through ``Kernel.table_view`` for every
seat) has a translation, except the result patterns the front end builds its own sentence for
(``team_N_wins``, ``seat_N_loses``, ``seats_..._lose``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from cardzoo import envs

WEB = Path(__file__).resolve().parent.parent / "training" / "web"
SECTIONS = {"ui", "key", "value", "action", "card", "game", "explain"}
PATTERNS = [r"team_\d+_wins", r"seat_\d+_(wins|loses)", r"seats_[\d_]+_lose"]


def _load(lang):
    return json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def test_both_languages_have_the_same_keys_and_no_empty_text():
    en, id_ = _load("en"), _load("id")
    assert set(en) == set(id_) == SECTIONS
    for section in SECTIONS:
        assert set(en[section]) == set(id_[section]), section
        for key in en[section]:
            assert isinstance(en[section][key], str) and en[section][key].strip(), (section, key)
            assert isinstance(id_[section][key], str) and id_[section][key].strip(), (section, key)
    # The Indonesian file is a translation, not a copy: most interface text differs.
    same = [k for k in en["ui"] if en["ui"][k] == id_["ui"][k]]
    assert len(same) <= 5, same
    # Placeholders survive translation.
    for section in SECTIONS:
        for key, text in en[section].items():
            assert set(re.findall(r"\{\w+\}", text)) == set(re.findall(r"\{\w+\}", id_[section][key])), (section, key)


def test_every_ui_key_the_pages_use_exists():
    en = _load("en")
    used = set()
    for path in (WEB / "static").iterdir():
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", path.read_text(encoding="utf-8"), flags=re.S)
        used |= set(re.findall(r'data-i18n(?:-aria|-title)?="(\w+)"', text))
        used |= set(re.findall(r'\bui\("(\w+)"\s*[,)]', text))
        used |= set(re.findall(r't\("ui", "(\w+)"\s*[,)]', text))
        used |= {m for m in re.findall(r'"data-i18n": "(\w+)"', text)}
        used |= {"lang_" + x for x in ("en", "id")} | {"theme_" + x for x in ("felt", "dark", "light")}
        used |= {"contrast_" + x for x in ("normal", "high")} | {"size_" + x for x in "SML"}
        used |= {"grain_" + x for x in ("on", "off")} | {"warmth_" + x for x in ("neutral", "warm", "cool")}
        used |= {"speed_" + x for x in ("slow", "normal", "fast", "instant")} | {"auto_on", "auto_off"}
        used |= {"role_" + x for x in ("you", "partner", "left", "right", "across", "opponent")}
        used |= {"pack_" + x for x in ("french", "spanish", "tarocco")} | {"agent_" + x for x in ("ppo", "rule", "random")}
    assert len(used) > 50
    missing = sorted(k for k in used if k not in en["ui"])
    assert not missing, f"ui keys used by training/web/static but missing in en.json: {missing}"


def test_every_env_action_name_has_a_label():
    """Non-card actions get a translated button label (patterns: CALL_n, DECLARE_suit, FD_card, ORDER_card)."""
    en = _load("en")
    for game in envs.GAMES:
        env = envs.make(game)
        k = env.unwrapped.kernel
        for a in range(env.action_space(env.possible_agents[0]).n):
            name = env.action_name(a)
            if name in k.deck.names or name in en["action"]:
                continue
            pattern = re.sub(r"^CALL_\d+$", "CALL_n", name)
            pattern = re.sub(r"^DECLARE_[CDHS]$", "DECLARE_suit", pattern)
            pattern = re.sub(r"^FD_\w+$", "FD_card", pattern)
            pattern = re.sub(r"^ORDER\(\w+\)$", "ORDER_card", pattern)
            assert pattern in en["action"], f"{game}: action {name!r} has no label in en.json"


def _view_keys(game, options, episodes, max_steps):
    keys = set()
    for ep in range(episodes):
        env = envs.make(game, **options)
        env.reset(seed=ep)
        k = env.unwrapped.kernel
        rng = np.random.default_rng(ep)
        for _ in range(max_steps):
            for seat in range(len(env.possible_agents)):
                v = k.table_view(env.unwrapped.game_state, 0, seat)
                keys.add(v["phase"])
                keys |= {f["key"] for f in v["facts"]} | {s["key"] for s in v["scores"]}
                if v["summary"]:
                    keys |= {v["summary"]["key"], v["summary"]["result"]} | {x["key"] for x in v["summary"]["lines"]}
                    explain = v["summary"].get("explain", [])
                    keys |= {"explain:" + e["key"] for e in explain}
                    for e in explain:  # every placeholder of the sentence is filled by the view
                        text = _load("en")["explain"].get(e["key"], "")
                        names = set(re.findall(r"\{(\w+)\}", text)) - {"A", "B"}
                        assert names == set(e["args"]), (e, text)
            if any(env.terminations.values()) or any(env.truncations.values()):
                break
            env.step(int(rng.choice(env.legal_actions())))
    return keys


SETTINGS = [
    ("all_fours", {}, 6, 400),
    ("ottocento", {}, 6, 400),
    ("avinas", {}, 20, 400),
    ("aluette", {}, 12, 400),
    ("pyanitsa", {"num_players": 4, "objective": "first_out_loses", "collect_order": "winner_chooses"}, 4, 400),
    ("pyanitsa", {"num_players": 2}, 1, 1500),
]


@pytest.mark.parametrize("game,options,episodes,max_steps", SETTINGS, ids=[f"{g}-{i}" for i, (g, *_) in enumerate(SETTINGS)])
def test_every_key_a_table_view_sends_is_translated(game, options, episodes, max_steps):
    keys = _view_keys(game, options, episodes, max_steps)
    assert "play" in keys or "flip" in keys
    en, id_ = _load("en"), _load("id")
    def known(k):
        if k.startswith("explain:"):
            return k[8:] in en["explain"] and k[8:] in id_["explain"]
        return (k in en["key"] and k in id_["key"]) or any(re.fullmatch(p, k) for p in PATTERNS)

    missing = sorted(k for k in keys if not known(k))
    assert not missing, f"{game}: view keys without a translation in training/web/i18n: {missing}"


def test_the_mordienne_line_without_its_first_trick_says_some_trick():
    """In a match the next deal begins at once and the Aluette summary keeps only al_mordienne (no
    first trick): it said "took every trick from one trick to the ninth", read as from trick one,
    where RULES.md §6 means tricks k to 9 for some k >= 2."""
    en, id_ = _load("en")["explain"], _load("id")["explain"]
    assert en["al_mordienne"] == "Mordienne: {seat} took every trick from some trick on to the ninth, and none before it — worth 2."
    assert id_["al_mordienne"] == ("Mordienne: {seat} mengambil setiap trik sejak trik tertentu sampai trik kesembilan, "
                                   "dan tidak satu pun sebelumnya — bernilai 2.")


def test_a_truncated_all_fours_episode_has_a_translated_result():
    """An All Fours match cut off by max_hands (or a deal by max_redeals) ends with the summary result
    "truncated", which had no text: the page showed the key itself, "truncated", in both languages."""
    from web_util import make_client, open_table

    c = make_client()
    out = open_table(c, "all_fours", seed=1, partner="random", opponents="random",
                     options={"episode": "match", "max_hands": 1})
    tid, v = out["table_id"], out["view"]
    while not v["done"]:
        v = c.post(f"/api/tables/{tid}/move", json={"action": v["legal"][0]["action"]}).json()
    assert (v["summary"]["result"], v["returns"], v["match_result"]) == ("truncated", [0.0] * 4, None)
    assert _load("en")["key"]["truncated"] == "Stopped at the table's limit (hands or redeals): no result"
    assert _load("id")["key"]["truncated"] == "Dihentikan pada batas meja (tangan atau pembagian ulang): tanpa hasil"

"""Expert iteration for every game (training/expert.py): labels of both decision types, distillation
per type, rounds. Sizes are tiny (a few deals, one or two determinizations)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from cardzoo import agents, envs
from cardzoo.agents.policy import read_meta
from cardzoo.training import cli
from cardzoo.training.expert import (
    DECISION_TYPES, LABEL_KEYS, _policy_dir, agreement_and_regret, decision_types, distil, expert_iterate, label_positions,
    load_labels, parse_search_on, regret_change,
)
from interrupt_util import interrupt_at_call


def _policy(game, tmp_path_factory) -> str:
    """The shipped policy of ``game``; P'yanitsa's with a cap of 30 battles (a whole game is the
    episode, and every rollout of the search plays it to the end)."""
    if game != "pyanitsa":
        return f"{game}/ppo"
    folder = tmp_path_factory.mktemp("pya") / "pyanitsa_short"
    shutil.copytree(agents.registry.shipped_path("pyanitsa/ppo"), folder)
    meta = json.loads((folder / "agent.json").read_text())
    meta["env_options"]["max_battles"] = 30
    (folder / "agent.json").write_text(json.dumps(meta))
    return str(folder)


@pytest.fixture(scope="module")
def game_labels(tmp_path_factory):
    """``{game: (label file, counts, policy)}``, made on first use."""
    made = {}

    def get(game):
        if game not in made:
            policy = _policy(game, tmp_path_factory)
            out = tmp_path_factory.mktemp(f"labels_{game}") / "l.npz"
            counts = label_positions(game, policy, 2, out, n_det=1, seed=3, batch=2, progress=False)
            made[game] = (out, counts, policy)
        return made[game]

    return get


def test_decision_types_worked_example():
    # 4 cards (ids 0-3) and 2 other actions (4, 5)
    mask = np.array([
        [1, 1, 0, 0, 0, 0],  # two cards: card decision
        [1, 0, 0, 0, 1, 0],  # a card or a bid: other decision
        [0, 0, 0, 0, 1, 1],  # two bids: other decision
        [0, 0, 1, 0, 0, 0],  # one legal action: no choice
        [0, 0, 0, 0, 0, 0],  # nothing legal (finished game)
    ], dtype=bool)
    assert decision_types(mask, 4).tolist() == [0, 1, 1, -1, -1]


class _Fixed:
    """An agent that plays a fixed action per position."""

    def __init__(self, actions):
        self.actions = np.array(actions)

    def act(self, obs, mask):
        return self.actions[obs[:, 0]]


def test_regret_and_its_paired_change_worked_example():
    q = np.array([[1.0, 0.0, np.nan], [0.5, 0.2, np.nan], [0.0, 3.0, 1.0]], dtype=np.float32)
    labels = {"other_obs": np.arange(3, dtype=np.uint8)[:, None], "other_mask": ~np.isnan(q), "other_q": q}
    before, after = _Fixed([1, 0, 0]), _Fixed([0, 0, 1])
    assert agreement_and_regret(before, labels, kind="others") == pytest.approx((1 / 3, 4 / 3))  # lost 1, 0, 3
    assert agreement_and_regret(after, labels, kind="others") == pytest.approx((1.0, 0.0))  # the best every time
    ch = regret_change(before, after, labels, np.arange(3), "others")  # differences -1, 0, -3
    half = 1.959964 * np.sqrt(7 / 3) / np.sqrt(3)  # sample sd sqrt(7/3)
    assert ch["n"] == 3 and ch["mean"] == pytest.approx(-4 / 3)
    assert ch["ci"] == pytest.approx([-4 / 3 - half, -4 / 3 + half], abs=1e-5)


@pytest.mark.parametrize("game", sorted(envs.GAMES))
def test_labels_of_every_game(game, game_labels):
    out, counts, policy = game_labels(game)
    d = load_labels([out])
    meta = read_meta(_policy_dir(policy))
    k = envs.kernel(game, **meta["env_options"])
    n, m = len(d["obs"]), len(d["other_obs"])
    assert counts == {"games": 2, "card_positions": n, "other_positions": m}
    assert d["labelled"] == DECISION_TYPES
    assert set(d) == {*LABEL_KEYS, "labelled"}
    assert n >= 10  # every game has card play with a choice
    D, A = k.obs_layout.size, k.num_actions
    for (ko, km, kq), rows in ((("obs", "mask", "q"), n), (("other_obs", "other_mask", "other_q"), m)):
        assert d[ko].shape == (rows, D) and d[ko].dtype == np.uint8
        assert d[km].shape == d[kq].shape == (rows, A) and d[km].dtype == bool and d[kq].dtype == np.float32
        assert (d[km].sum(axis=1) > 1).all()  # only decisions with a choice
        assert np.array_equal(~np.isnan(d[kq]), d[km])  # a value on every legal action, NaN elsewhere
        assert np.isfinite(d[kq][d[km]]).all()
    assert not d["mask"][:, k.deck.n:].any()  # card decisions: cards only
    assert d["other_mask"][:, k.deck.n:].any(axis=1).all()  # other decisions: a non-card action
    if game == "pyanitsa":
        assert m == 0  # its only non-card action (flip) is never a choice
    else:
        assert m >= 2  # bids, declarations, signals


def test_labels_only_for_the_types_asked(tmp_path):
    out = tmp_path / "cards.npz"
    c = label_positions("avinas", "avinas/ppo", 2, out, n_det=1, seed=3, batch=2, search_on="cards", progress=False)
    d = load_labels([out])
    assert d["labelled"] == ("cards",)
    assert np.isnan(d["other_q"]).all() and len(d["other_obs"]) == c["other_positions"] > 0
    assert np.array_equal(~np.isnan(d["q"]), d["mask"])
    # the same positions as a run labelling both types: the search has its own random stream, so
    # searching more decisions changes no deal, no policy choice (the values differ: the stream moved on)
    both = tmp_path / "both.npz"
    label_positions("avinas", "avinas/ppo", 2, both, n_det=1, seed=3, batch=2, progress=False)
    e = load_labels([both])
    for key in ("obs", "mask", "other_obs", "other_mask"):
        assert np.array_equal(e[key], d[key]), key
    assert load_labels([out, both])["labelled"] == ("cards",)  # a type is labelled only where every file has its values


def test_old_label_files_still_load(tmp_path, game_labels):
    d = load_labels([game_labels("aluette")[0]])
    old = tmp_path / "old.npz"
    np.savez(old, obs=d["obs"], mask=d["mask"], q=d["q"], bid_obs=d["other_obs"], bid_mask=d["other_mask"])
    o = load_labels([old])
    assert o["labelled"] == ("cards",)
    assert np.array_equal(o["other_obs"], d["other_obs"]) and np.array_equal(o["other_mask"], d["other_mask"])
    assert np.isnan(o["other_q"]).all() and o["other_q"].shape == d["other_mask"].shape
    assert np.array_equal(o["q"], d["q"], equal_nan=True)


def _actor_and_critic(agent):
    p = agent.policy
    actor = [t.detach().clone() for t in (*p.mlp_extractor.policy_net.parameters(), *p.action_net.parameters())]
    critic = [t.detach().clone() for t in (*p.mlp_extractor.value_net.parameters(), *p.value_net.parameters())]
    return actor, critic


@pytest.mark.parametrize("search_on, kept", [("all", []), ("others", ["cards"])])
def test_distil_changes_only_the_actor_and_reports_both_types(search_on, kept, game_labels, tmp_path):
    out, counts, _ = game_labels("aluette")
    s = distil("aluette/ppo", [out], tmp_path / "s", search_on=search_on, epochs=2, batch_size=16, reference="aluette/rule", progress=False)
    assert s["search_on"] == list(parse_search_on(search_on)) and s["kept"] == kept
    n, m = counts["card_positions"], counts["other_positions"]
    assert s["val_positions"] == {"cards": max(1, int(n * 0.1)), "others": max(1, int(m * 0.1))}
    for part in (s["before"], s["after"], s["history"][-1]["val"]):
        assert set(part) == {"cards", "others"}
        for t in DECISION_TYPES:
            assert 0 <= part[t]["agreement"] <= 1 and part[t]["regret"] >= 0
    assert set(s["reference"]) == {"agent", "cards", "others"}
    for t in DECISION_TYPES:  # the paired change is the difference of the two regrets on the same positions
        ch = s["regret_change"][t]
        assert ch["n"] == s["val_positions"][t]
        assert ch["mean"] == pytest.approx(s["after"][t]["regret"] - s["before"][t]["regret"], abs=1e-6)
    a0, c0 = _actor_and_critic(agents.load("aluette/ppo"))
    a1, c1 = _actor_and_critic(agents.load(str(tmp_path / "s")))
    assert all(np.array_equal(x, y) for x, y in zip(c0, c1))  # the critic is untouched
    assert any(not np.array_equal(x, y) for x, y in zip(a0, a1))  # the actor learned
    meta = json.loads((tmp_path / "s" / "agent.json").read_text())
    assert meta["distillation"]["search_on"] == s["search_on"]


def test_distil_bad_search_on(game_labels, tmp_path):
    out = game_labels("aluette")[0]
    with pytest.raises(ValueError, match=r"unknown search_on value 'bids'; valid: \['all', 'cards', 'none', 'others'\]"):
        distil("aluette/ppo", [out], tmp_path / "s", search_on="bids", progress=False)
    with pytest.raises(ValueError, match="search_on='none' distils nothing; valid: 'cards', 'others' or 'all'"):
        distil("aluette/ppo", [out], tmp_path / "s", search_on="none", progress=False)
    cards_only = tmp_path / "cards.npz"
    label_positions("avinas", "avinas/ppo", 2, cards_only, n_det=1, seed=3, batch=2, search_on="cards", progress=False)
    with pytest.raises(ValueError, match=r"distils others decisions, but the labels carry PIMC values for \['cards'\] only; "
                                         r"label them with cardzoo label --label-search-on others"):
        distil("avinas/ppo", [cards_only], tmp_path / "s", search_on="others", progress=False)
    pya_out, _, pya_policy = game_labels("pyanitsa")
    with pytest.raises(ValueError, match=r"too few labels: 0 others positions"):
        distil(pya_policy, [pya_out], tmp_path / "s", search_on="all", progress=False)
    assert not (tmp_path / "s").exists()
    assert cli.main(["distil", "avinas/ppo", str(tmp_path / "s"), "--labels", str(cards_only), "--search-on", "bids"]) == 2


def test_distil_of_labels_without_values_says_so_in_flags(tmp_path, capsys):
    """Labels made with --label-search-on none carry positions only: distil said "... or distil with
    search_on among ['(none)']", a keyword and a value that do not exist. Now it says the labels carry
    no values, in the command's flags, and suggests only relabelling."""
    none = tmp_path / "none.npz"
    label_positions("avinas", "avinas/ppo", 2, none, n_det=1, seed=3, batch=2, search_on="none", progress=False)
    assert cli.main(["distil", "avinas/ppo", str(tmp_path / "s"), "--labels", str(none)]) == 2
    err = capsys.readouterr().err
    assert ("error: --search-on cards distils cards decisions, but the labels carry no PIMC values (labelled with "
            "--label-search-on none: positions only); label them with cardzoo label --label-search-on cards (or all)\n") in err
    assert "among" not in err and not (tmp_path / "s").exists()


def test_distil_says_a_labelled_type_without_positions_is_not_measured(game_labels, tmp_path, capsys):
    """`cardzoo distil pyanitsa/ppo out --labels l.npz` on labels made with the default --label-search-on all said "no
    PIMC values for ['others'] in these labels (cardzoo label --label-search-on all measures them too)": the labels
    had others labelled, with no position (P'yanitsa's FLIP is never a choice), and relabelling as told changes
    nothing. Now it says how many positions there are; labels without values for a type still get the advice."""
    pya_out, counts, pya_policy = game_labels("pyanitsa")
    assert counts["other_positions"] == 0
    assert cli.main(["distil", pya_policy, str(tmp_path / "p"), "--labels", str(pya_out), "--epochs", "1",
                     "--reference", "none"]) == 0
    out = capsys.readouterr().out
    assert "others not measured: these labels hold 0 others positions (2 or more are needed to hold some out)\n" in out
    assert "no PIMC values" not in out
    cards_only = tmp_path / "cards.npz"
    label_positions("avinas", "avinas/ppo", 2, cards_only, n_det=1, seed=3, batch=2, search_on="cards", progress=False)
    assert cli.main(["distil", "avinas/ppo", str(tmp_path / "a"), "--labels", str(cards_only), "--epochs", "1",
                     "--reference", "none"]) == 0
    out = capsys.readouterr().out
    assert "no PIMC values for ['others'] in these labels (cardzoo label --label-search-on all measures them too)\n" in out
    assert "not measured" not in out


def test_two_rounds_make_two_folders_and_refuse_to_overwrite(tmp_path, capsys):
    run = tmp_path / "run"
    kw = dict(rounds=2, games=2, n_det=1, batch=2, epochs=1, batch_size=16, arena_deals=4, seed=1, progress=False)
    rows = expert_iterate("avinas", run, **kw)
    assert [r["round"] for r in rows] == [0, 1, 2]
    assert rows[1]["policy"] == "avinas/ppo" and rows[2]["policy"] == str(run / "round_1" / "agent")
    for r in (1, 2):
        folder = run / f"round_{r}"
        assert (folder / "labels.npz").is_file() and (folder / "agent" / "agent.json").is_file()
        row = json.loads((folder / "round.json").read_text())
        assert set(row["before"]) == set(row["after"]) == {"cards", "others"}
        assert row["arena"]["n_deals"] == row["arena_vs_start"]["n_deals"] == 4
    assert rows[0]["arena"]["n_deals"] == 4
    table = (run / "rounds.md").read_text()
    assert table.count("\n| ") == 3 and "| 0 (start) |" in table and "| 2 |" in table
    assert (run / "rounds.png").stat().st_size > 10_000
    assert json.loads((run / "rounds.json").read_text()) == rows
    with pytest.raises(ValueError, match=r"run' holds an earlier expert-iterate run; give a new folder, or resume=True to"):
        expert_iterate("avinas", run, **kw)
    assert cli.main(["expert-iterate", "avinas", "--out", str(run), "--rounds", "1"]) == 2
    # the last line: a cold numba cache adds "compiling the avinas rules ..." above it
    assert capsys.readouterr().err.splitlines()[-1] == (f"cardzoo expert-iterate: error: --out {run} holds an earlier "
                                                        "expert-iterate run; give a new folder, or --resume to continue that run")
    stamp = (run / "round_2" / "round.json").stat().st_mtime_ns
    assert expert_iterate("avinas", run, **{**kw, "resume": True}) == rows  # complete rounds are kept
    assert (run / "round_2" / "round.json").stat().st_mtime_ns == stamp
    with pytest.raises(ValueError, match="cannot resume .*run: it is a run with game='avinas', not 'aluette'"):
        expert_iterate("aluette", run, **{**kw, "resume": True})


def test_aggregated_rounds_in_two_processes(tmp_path):
    """workers=2: each round is labelled by two processes (labels.npz, labels_1.npz, seeds seed + r and
    seed + r + 100000); aggregate: every round distils the starting policy on all labels so far."""
    from cardzoo.training.expert import load_labels

    run = tmp_path / "run"
    kw = dict(rounds=2, games=4, n_det=1, batch=2, epochs=1, batch_size=16, arena_deals=0, seed=3, progress=False,
              label_search_on="cards", workers=2, aggregate=True)
    rows = expert_iterate("all_fours", run, init="all_fours/ppo", **kw)
    n = {}
    for r in (1, 2):
        files = [run / f"round_{r}" / "labels.npz", run / f"round_{r}" / "labels_1.npz"]
        n[r] = [len(load_labels([f])["obs"]) for f in files]
        assert min(n[r]) > 0 and rows[r]["positions"]["cards"] == sum(n[r])  # both processes' labels are counted
        assert rows[r]["distilled_from"] == "all_fours/ppo"  # the starting policy, every round
    assert rows[2]["policy"] == str(run / "round_1" / "agent")  # round 2's positions come from round 1's agent
    assert rows[1]["trained_on"]["cards"] == sum(n[1])
    assert rows[2]["trained_on"]["cards"] == sum(n[1]) + sum(n[2])  # round 2 learns from both rounds' labels
    # the worker's file is its own seeded run: label_positions with seed 3 + 1 + 100000 writes the same labels
    again = tmp_path / "again.npz"
    label_positions("all_fours", "all_fours/ppo", 2, again, n_det=1, seed=100_004, batch=2, search_on="cards", progress=False)
    a, b = load_labels([again]), load_labels([run / "round_1" / "labels_1.npz"])
    assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in ("obs", "mask", "q"))
    with pytest.raises(ValueError, match="cannot resume .*run: it is a run with workers=2, not 1"):
        expert_iterate("all_fours", run, init="all_fours/ppo", **{**kw, "workers": 1, "resume": True})
    with pytest.raises(ValueError, match="cannot resume .* with other options: games=8 \\(the run has 4\\); give the run's own values"):
        expert_iterate("all_fours", run, init="all_fours/ppo", **{**kw, "games": 8, "resume": True})
    for bad in (0, 5):  # more processes than deals would label more deals than asked
        with pytest.raises(ValueError, match=f"1 <= workers <= games, got .*games=4, .*workers={bad}"):
            expert_iterate("all_fours", tmp_path / "w", init="all_fours/ppo", **{**kw, "workers": bad})
    assert not (tmp_path / "w").exists()


def test_rounds_refuse_a_folder_that_holds_something_else(tmp_path, capsys):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("not a run")
    for extra in ([], ["--resume"]):
        assert cli.main(["expert-iterate", "avinas", "--out", str(other), "--rounds", "1", *extra]) == 2
        assert capsys.readouterr().err == (f"cardzoo expert-iterate: error: --out {other} is not empty and is not an "
                                           "expert-iterate run (no run.json); give a new or empty folder\n")
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]
    # --resume into a new folder (a typo in --out?) starts a new run: said, not silent
    new = tmp_path / "new"
    assert cli.main(["expert-iterate", "avinas", "--out", str(new), "--rounds", "1", "--games", "1", "--batch", "1",
                     "--n-det", "1", "--epochs", "1", "--arena-deals", "0", "--resume"]) == 0
    assert (f"note: --resume: {new} holds no expert-iterate run (it is new or empty); starting a new run there\n"
            in capsys.readouterr().err)
    assert (new / "round_1" / "round.json").is_file()


def test_rounds_bad_input(tmp_path):
    with pytest.raises(ValueError, match=r"distils \['others'\] decisions, which label_search_on='cards' leaves without values"):
        expert_iterate("avinas", tmp_path / "r", search_on="others", label_search_on="cards", progress=False)
    with pytest.raises(ValueError, match=r"unknown search_on value 'card'; valid: \['all', 'cards', 'none', 'others'\]"):
        expert_iterate("avinas", tmp_path / "r", search_on="card", progress=False)
    with pytest.raises(ValueError, match="need rounds >= 1"):
        expert_iterate("avinas", tmp_path / "r", rounds=0, progress=False)
    for bad in ({"rounds": 1.5}, {"games": True}, {"workers": 2.0}, {"arena_deals": "4"}):  # were taken, or a raw TypeError
        with pytest.raises(ValueError, match=r"rounds, games, arena_deals and workers must be ints, got rounds="):
            expert_iterate("avinas", tmp_path / "r", progress=False, **bad)
    with pytest.raises(ValueError, match="'avinas/rule' is not a trained policy"):
        expert_iterate("avinas", tmp_path / "r", init="avinas/rule", progress=False)
    assert not (tmp_path / "r").exists()  # nothing written before the inputs are checked


def test_search_on_none_cannot_be_combined():
    from cardzoo.training.expert import parse_search_on

    assert parse_search_on("none") == ()
    with pytest.raises(ValueError, match="contradictory"):
        parse_search_on(["none", "cards"])


def test_rounds_read_back_with_an_undefined_ci_are_shown_and_plotted(tmp_path):
    """An arena row of 1 deal read back from round.json / start.json has null CIs (arena.json_text):
    the rounds' table says n/a and the plot draws no bar rather than failing."""
    from cardzoo.training.arena import json_text
    from cardzoo.training.expert import plot_rounds, rounds_table

    a = {"n_deals": 1, "mean_diff": 0.25, "diff_ci": [float("nan"), float("nan")], "win_rate": 1.0, "win_ci": [float("nan")] * 2}
    rows = json.loads(json_text([{"round": 0, "policy": "avinas/ppo", "arena": a}]))
    assert rows[0]["arena"]["diff_ci"] == [None, None]
    assert "| 0 (start) | - | - | - | +0.250 n/a (1 deal) | 1.000 | - |" in rounds_table(rows)
    plot_rounds(rows, tmp_path / "rounds.png")
    assert (tmp_path / "rounds.png").stat().st_size > 0


def test_rounds_check_the_labelling_and_distillation_settings_before_writing(tmp_path, monkeypatch, capsys):
    """expert_iterate checked n_det, batch and distil's settings only when it used them: a bad --tau
    failed after round 1's labelling, leaving OUT/run.json, so the corrected command was refused
    ("holds an earlier expert-iterate run; give --resume") and --resume refused the other value.
    They are checked first, nothing written; the CLI names the flag as typed."""
    from cardzoo.training import expert

    monkeypatch.setattr(expert, "_label_round", lambda *a, **k: pytest.fail("a round was labelled"))
    out = tmp_path / "r"
    for kwargs, message in (({"n_det": 0}, "n_det must be >= 1, got 0"), ({"batch": 0}, "batch must be >= 1, got 0"),
                            ({"tau": -1.0}, "need finite numbers with epochs >= 1, batch_size >= 2, lr > 0, tau >= 0, "),
                            ({"epochs": 0}, "got epochs=0, "), ({"torch_threads": 0}, "torch_threads must be >= 1 and seed >= 0")):
        with pytest.raises(ValueError) as e:
            expert_iterate("avinas", out, progress=False, **kwargs)
        assert message in str(e.value), (kwargs, str(e.value))
    assert not out.exists()
    for flags, message in ((["--tau", "-1"], "--tau must be a finite number >= 0, got -1"),
                           (["--lr", "nan"], "--lr must be a finite number > 0, got nan"),
                           (["--batch-size", "1"], "--batch-size must be >= 2, got 1"),
                           (["--n-det", "0"], "--n-det must be >= 1, got 0"),
                           (["--workers", "3", "--games", "2"], "--workers 3 is more than --games 2: each labelling process needs a deal")):
        assert cli.main(["expert-iterate", "avinas", "--out", str(out), *flags]) == 2
        assert capsys.readouterr().err == f"cardzoo expert-iterate: error: {message}\n"
    assert cli.main(["distil", "avinas/ppo", str(tmp_path / "d"), "--labels", "x.npz", "--prior", "-0.5"]) == 2
    assert capsys.readouterr().err == "cardzoo distil: error: --prior must be a finite number >= 0, got -0.5\n"
    assert sorted(tmp_path.iterdir()) == []


def test_an_empty_out_is_refused_not_taken_as_the_current_folder(tmp_path, monkeypatch, capsys):
    """`cardzoo distil avinas/ppo '' --labels l.npz` wrote agent.json, weights.safetensors and distillation.png
    into the current folder and said "agent written to  (with distillation.png)" (Path('') is '.');
    `cardzoo expert-iterate avinas --out ''` ran its rounds there. Both are refused before any work."""
    from cardzoo.training import cli

    monkeypatch.chdir(tmp_path)
    assert cli.main(["distil", "avinas/ppo", "", "--labels", "l.npz"]) == 2
    assert capsys.readouterr().err == "cardzoo distil: error: '' is an empty path: give the agent's folder, e.g. my_agent\n"
    assert cli.main(["expert-iterate", "avinas", "--out", " ", "--rounds", "1", "--games", "2", "--n-det", "1"]) == 2
    assert capsys.readouterr().err == (
        "cardzoo expert-iterate: error: ' ' is an empty path: give the run folder (--out), e.g. --out runs/expert/avinas\n")
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_run_says_what_it_keeps_and_the_command_to_finish_it(tmp_path, monkeypatch, capsys):
    """Ctrl-C during `cardzoo expert-iterate` said only "interrupted"; it now says how many rounds the folder keeps
    and prints the command with --resume, which finishes the run (and not cardzoo label's advice to label another
    file, when the Ctrl-C comes during a round's labelling)."""
    import cardzoo.training.expert as ex

    real = ex._label_batch
    interrupt_at_call(monkeypatch, ex, "_label_batch", 2)  # in round 2
    run = tmp_path / "run"
    argv = ["expert-iterate", "avinas", "--out", str(run), "--rounds", "2", "--games", "2", "--n-det", "1", "--batch", "2",
            "--epochs", "1", "--batch-size", "16", "--arena-deals", "0", "--seed", "1"]
    assert cli.main(argv) == 130
    err = capsys.readouterr().err
    assert err.endswith(f"\n{run} keeps 1 finished round(s) of 2; finish the run with: cardzoo {' '.join(argv)} --resume\n"
                        "\ncardzoo expert-iterate: interrupted\n"), err
    assert "label more deals" not in err and "Traceback" not in err
    assert (run / "round_1" / "round.json").is_file() and not (run / "round_2" / "round.json").exists()
    monkeypatch.setattr(ex, "_label_batch", real)
    assert cli.main([*argv, "--resume"]) == 0
    assert json.loads((run / "round_2" / "round.json").read_text())["round"] == 2


def test_a_damaged_run_file_is_named_with_what_to_do(tmp_path, monkeypatch, capsys):
    """`cardzoo expert-iterate ... --resume` on a run whose run.json, start.json or round_N/round.json was damaged
    said only "error: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)", naming
    neither the file nor what to do. Now the file and the way on; nothing in the run changes."""
    import cardzoo.training.expert as ex

    real = ex._label_batch
    interrupt_at_call(monkeypatch, ex, "_label_batch", 2)  # in round 2: round 1 finished
    run = tmp_path / "run"
    argv = ["expert-iterate", "avinas", "--out", str(run), "--rounds", "2", "--games", "2", "--n-det", "1", "--batch", "2",
            "--epochs", "1", "--batch-size", "16", "--arena-deals", "0", "--seed", "1", "--resume"]
    assert cli.main(argv) == 130
    monkeypatch.setattr(ex, "_label_batch", real)
    capsys.readouterr()
    for rel, bad, why, then in (
        ("round_1/round.json", "{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
         "delete it to redo round 1 (a round without round.json is redone)"),
        ("start.json", "[1]", "it holds list, not a JSON object", "delete it to measure the starting policy again"),
        ("run.json", "", "Expecting value: line 1 column 1 (char 0)", "this run cannot be resumed: use another --out"),
    ):
        good = (run / rel).read_text()
        (run / rel).write_text(bad)
        before = sorted(str(p.relative_to(run)) for p in run.rglob("*"))
        assert cli.main(argv) == 2
        err = capsys.readouterr().err.split("\r")[-1].splitlines()[-1]  # after the progress bar
        assert err == f"cardzoo expert-iterate: error: {run / rel} is damaged ({why}); {then}"
        assert sorted(str(p.relative_to(run)) for p in run.rglob("*")) == before and (run / rel).read_text() == bad
        (run / rel).write_text(good)


def test_a_reference_that_reads_the_game_state_is_refused_before_training(tmp_path, capsys, monkeypatch):
    """`cardzoo distil ... --reference avinas/pimc` trained the whole distillation, then failed with a TypeError
    traceback measuring the reference on the held-out observations; it is refused before training."""
    from cardzoo.training import cli

    import cardzoo.training.expert as ex

    labels = tmp_path / "l.npz"
    ex.label_positions("avinas", "avinas/ppo", 2, labels, n_det=1, seed=2, batch=2, progress=False)
    monkeypatch.setattr(ex, "_actor_logits", lambda *a, **k: pytest.fail("trained before refusing the reference"))
    assert cli.main(["distil", "avinas/ppo", str(tmp_path / "s"), "--labels", str(labels), "--reference", "avinas/pimc"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "cardzoo distil: error: reference agent 'avinas/pimc' reads the game state (a search or exec: bot); the held-out "
        "positions are observations: give an agent that acts from them (e.g. avinas/rule), or --reference none")  # the flag only
    assert not (tmp_path / "s").exists()


def test_labels_record_their_game_and_options_and_distil_refuses_others(tmp_path):
    """A label file did not say which game or options its positions came from: labels of a game with the same
    observation and action sizes, or of other options of the same game (Avinas' honesty=mask or not), were
    distilled into any policy that fit the sizes. The file now records both; distil and load_labels refuse a mix."""
    from pathlib import Path

    from cardzoo.training.expert import label_positions, load_labels

    av = tmp_path / "av.npz"
    label_positions("avinas", "avinas/ppo", 2, av, n_det=1, seed=2, batch=2, progress=False)
    with np.load(av) as z:
        assert str(z["game"]) == "avinas" and json.loads(str(z["env_options"])) == {"honesty": "mask"}
    assert set(load_labels([av])) == {*LABEL_KEYS, "labelled"}  # what load_labels returns is unchanged
    # the same agent, saved as trained under the default options: the same sizes, other positions
    other = tmp_path / "avinas_default"
    shutil.copytree(Path(__file__).resolve().parent.parent / "agents" / "shipped" / "avinas_ppo", other)
    meta = json.loads((other / "agent.json").read_text())
    meta["env_options"] = {}
    (other / "agent.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError) as e:
        distil(str(other), [av], tmp_path / "s", epochs=1, progress=False)
    assert str(e.value) == (f"the labels are positions of avinas with options {{'honesty': 'mask'}}; {other} plays avinas with "
                            "options {}: distil labels made with a policy of the same game and options (cardzoo label --policy)")
    # two files of other options given together
    af = tmp_path / "af.npz"
    with np.load(av) as z:
        arrays = {k: z[k] for k in z.files}
    np.savez_compressed(af, **{**arrays, "env_options": np.array("{}")})
    with pytest.raises(ValueError, match=r"af.npz holds labels of avinas with options \{\}, .*av.npz of avinas with options "
                                         r"\{'honesty': 'mask'\}: label files given together must be of one game and option set"):
        load_labels([av, af])
    # a file from before the game was recorded still loads and distils
    old = tmp_path / "old.npz"
    np.savez_compressed(old, **{k: v for k, v in arrays.items() if k not in ("game", "env_options")})
    assert len(load_labels([old, av])["obs"]) == 2 * len(arrays["obs"])
    s = distil("avinas/ppo", [old], tmp_path / "from_old", epochs=1, progress=False)  # no game recorded: not refused
    assert s["game"] == "avinas"
    assert not (tmp_path / "s").exists()


def test_a_resume_with_fewer_rounds_than_finished_is_refused(tmp_path):
    """`--resume --rounds 1` on a run of 2 finished rounds rewrote rounds.md, rounds.json, rounds.png and run.json
    with round 1 only (round 2's summary was gone from the tables); it is refused and nothing changes."""
    run = tmp_path / "run"
    kw = dict(games=2, n_det=1, batch=2, epochs=1, batch_size=16, arena_deals=0, seed=3, progress=False)
    rows = expert_iterate("avinas", run, rounds=2, **kw)
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    with pytest.raises(ValueError) as e:
        expert_iterate("avinas", run, rounds=1, resume=True, **kw)
    assert str(e.value) == (f"cannot resume {run} with rounds=1: it holds 2 finished rounds; give rounds=2 or more "
                            "(a resumed run keeps its finished rounds)")  # the keyword; cardzoo expert-iterate: --rounds 2
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before
    assert expert_iterate("avinas", run, rounds=2, resume=True, **kw) == rows


def test_rounds_that_label_no_values_say_so(tmp_path, capsys):
    """`cardzoo expert-iterate GAME --label-search-on none` said "valid: search_on within []"; it now says that
    nothing can be distilled and what to give, before anything is written."""
    from cardzoo.training import cli

    assert cli.main(["expert-iterate", "avinas", "--out", str(tmp_path / "run"), "--label-search-on", "none"]) == 2
    assert capsys.readouterr().err == (
        "cardzoo expert-iterate: error: --label-search-on none gives the labels no PIMC values, so "
        "nothing can be distilled; valid: --label-search-on cards, others or all (including the --search-on types)\n")
    assert cli.main(["expert-iterate", "avinas", "--out", str(tmp_path / "run"), "--label-search-on", "cards",
                     "--search-on", "others"]) == 2
    assert capsys.readouterr().err == (
        "cardzoo expert-iterate: error: --search-on others distils ['others'] decisions, which --label-search-on cards "
        "leaves without values; valid: --search-on cards, or label them too (--label-search-on all)\n")  # flags only
    assert not (tmp_path / "run").exists()


def test_agreement_counts_any_action_of_a_tie_for_the_best_value():
    """Agreement compared the agent's action with q.argmax, the lowest id among equal values: an agent that picked
    another action of the best value scored no agreement and no regret (Aluette, 2 deals at n_det 1: agreement
    0.000, regret 0.0000 for the policy and the rule bot alike). Any action of the best value now agrees."""
    q = np.array([[1.0, 1.0, np.nan], [0.5, 0.5, 0.5], [0.0, 3.0, 1.0]], dtype=np.float32)
    labels = {"other_obs": np.arange(3, dtype=np.uint8)[:, None], "other_mask": ~np.isnan(q), "other_q": q}
    assert agreement_and_regret(_Fixed([1, 2, 1]), labels, kind="others") == pytest.approx((1.0, 0.0))
    assert agreement_and_regret(_Fixed([0, 0, 2]), labels, kind="others") == pytest.approx((2 / 3, 2 / 3))


def test_labelling_opponents_take_turns_deal_by_deal_and_the_rollouts_take_an_opponent_model(tmp_path, tmp_path_factory, monkeypatch):
    """``opponent="pyanitsa/rule,random"``: deal ``i`` is played against name ``i % 2``, even when one
    batch holds every deal (the random agent is asked for the odd deals' seats, never for the even
    ones); the default plays the rule bot alone. ``rollout_opponents="mixed"`` changes the search's
    values of the same positions, not the positions. A path with a comma is one name; a list works."""
    from cardzoo.agents.random_agent import RandomAgent

    policy = _policy("pyanitsa", tmp_path_factory)
    kw = dict(n_det=2, seed=5, batch=4, progress=False)
    asked = []
    act = RandomAgent.act
    monkeypatch.setattr(RandomAgent, "act", lambda self, obs, mask: asked.append(len(obs)) or act(self, obs, mask))

    def run(name, games, **more):
        asked.clear()
        label_positions("pyanitsa", policy, games, tmp_path / f"{name}.npz", **kw, **more)
        with np.load(tmp_path / f"{name}.npz") as z:
            return z["obs"], z["q"], sum(asked)

    obs_rule, q_rule, by_random = run("rule", 2)
    assert by_random == 0
    obs_both, _, by_random = run("both", 2, opponent="pyanitsa/rule,random")  # one batch of 2 deals
    assert by_random > 0 and not (len(obs_both) == len(obs_rule) and np.array_equal(obs_both, obs_rule))
    obs_list, _, _ = run("list", 2, opponent=["pyanitsa/rule", "random"])
    assert np.array_equal(obs_list, obs_both)
    obs_mixed, q_mixed, _ = run("mixed", 2, rollout_opponents="mixed")
    assert np.array_equal(obs_mixed, obs_rule) and not np.array_equal(q_mixed, q_rule)
    with np.load(tmp_path / "both.npz") as z:  # each file records who played and searched
        assert json.loads(str(z["labelling"])) == {"policy": policy, "opponents": ["pyanitsa/rule", "random"],
                                                   "rollout": "pyanitsa/rule", "rollout_opponents": None, "n_det": 2, "seed": 5}
    with np.load(tmp_path / "mixed.npz") as z:
        assert json.loads(str(z["labelling"]))["rollout_opponents"] == "mixed"
    obs_spec, q_spec, _ = run("spec", 2, rollout="pyanitsa/rule:rollout_opponents=mixed")  # the model in the agent's name
    assert np.array_equal(obs_spec, obs_mixed) and np.array_equal(q_spec, q_mixed, equal_nan=True)
    with np.load(tmp_path / "spec.npz") as z:  # recorded as the same search
        assert json.loads(str(z["labelling"]))["rollout_opponents"] == "mixed"
    comma = tmp_path / "ppo,v2"
    shutil.copytree(policy, comma)
    obs_path, _, _ = run("path", 2, opponent=str(comma))  # the policy itself as the opponent, one name
    assert len(obs_path) > 0
    obs_pathlib, _, _ = run("pathlib", 2, opponent=[comma, "random"])  # a pathlib.Path, as agents.load takes it
    assert len(obs_pathlib) > 0
    obs_rule_model, q_rule_model, _ = run("rule_model", 2, rollout_opponents="rule")  # the default, said aloud
    assert np.array_equal(obs_rule_model, obs_rule) and np.array_equal(q_rule_model, q_rule, equal_nan=True)
    with np.load(tmp_path / "rule_model.npz") as z:
        assert json.loads(str(z["labelling"]))["rollout_opponents"] is None  # recorded as the default, as expert-iterate does
    four = Path(agents.__file__).parent / "shipped" / "pyanitsa_ppo_4p"  # trained for 4 players; the policy plays 2
    for bad, said in ((dict(rollout="random", rollout_opponents="mixed"), "rollout_opponents='mixed': the rollout agent 'random' has no opponent model"),
                      (dict(rollout_opponents="Mixed"), "rollout_opponents='Mixed' is not an opponent model of pyanitsa/rule; valid: rule, random, mixed"),
                      (dict(opponent="pyanitsa/rule,"), "opponent='pyanitsa/rule,' is not valid"),
                      (dict(opponent=1), "opponent=1 is not valid"),
                      (dict(opponent=str(four)), f"opponent agent {str(four)!r} cannot play the labelled policy's game (pyanitsa, options "
                                                 "{'collect_order': 'winner_chooses', 'max_battles': 30}): " + f"{four} was trained for other pyanitsa options "
                                                 "(num_players: trained 4, here 2)"),
                      (dict(opponent="exec:cat"), "opponent agent 'exec:cat': an exec: bot plays one game at a time over a pipe"),
                      (dict(rollout="pyanitsa/rule:rollout_opponents=mixed", rollout_opponents="rule"),  # was taken silently
                       "the rollout agent's model of the other seats is given twice: rollout='pyanitsa/rule:rollout_opponents=mixed' "
                       "and rollout_opponents='rule'; give it once"),
                      (dict(search_on="none", rollout_opponents="mixed"),
                       "rollout_opponents='mixed' has no effect: no decision is searched (search_on='none'), so no rollout is played"),
                      (dict(search_on="none", rollout="pyanitsa/rule:rollout_opponents=mixed"),  # the model in the agent's name
                       "rollout='pyanitsa/rule:rollout_opponents=mixed' plays rollout_opponents='mixed', which has no effect: no "
                       "decision is searched (search_on='none'), so no rollout is played")):
        with pytest.raises(ValueError, match=re.escape(said)):
            label_positions("pyanitsa", policy, 2, tmp_path / "x.npz", **kw, **bad)
    with pytest.raises(ValueError, match=re.escape("rollout_opponents='random': the rollout agent 'avinas/rule' has no opponent model")):
        label_positions("avinas", "avinas/ppo", 2, tmp_path / "x.npz", rollout_opponents="random", **kw)
    assert not (tmp_path / "x.npz").exists()
    # "rule" (every seat plays the rollout agent) is every rollout agent's model, as cardzoo expert-iterate takes it
    label_positions("avinas", "avinas/ppo", 1, tmp_path / "avinas.npz", rollout_opponents="rule", **kw)
    with np.load(tmp_path / "avinas.npz") as z:
        assert json.loads(str(z["labelling"]))["rollout_opponents"] is None


def test_expert_iterate_checks_and_keeps_its_labelling_opponents(tmp_path, tmp_path_factory, capsys):
    """expert-iterate checks --opponent and --rollout-opponents before any work (no folder left), keeps
    them in run.json with the defaults as null, and a resume compares them as settings, not as text."""
    policy = _policy("pyanitsa", tmp_path_factory)
    run = tmp_path / "run"
    assert cli.main(["expert-iterate", "avinas", "--out", str(run), "--rollout-opponents", "random"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "cardzoo expert-iterate: error: --rollout-opponents random: the rollout agent 'avinas/rule' has no opponent model "
        "(all_fours/rule and pyanitsa/rule have one: leave it out for the other games, or name one of those rule bots as "
        "the rollout agent)")
    assert not run.exists()
    kw = dict(rounds=1, games=2, n_det=1, batch=2, epochs=1, batch_size=16, arena_deals=0, seed=1, progress=False, init=policy)
    expert_iterate("pyanitsa", run, opponent="pyanitsa/rule, random", rollout_opponents="mixed", **kw)
    saved = json.loads((run / "run.json").read_text())
    assert saved["opponent"] == ["pyanitsa/rule", "random"] and saved["rollout_opponents"] == "mixed"
    again = expert_iterate("pyanitsa", run, opponent=["pyanitsa/rule", "random"], rollout_opponents="mixed", resume=True, **kw)
    assert [r["round"] for r in again] == [0, 1]
    with pytest.raises(ValueError, match=re.escape("rollout_opponents=None (the run has 'mixed')")):
        expert_iterate("pyanitsa", run, opponent="pyanitsa/rule,random", resume=True, **kw)
    other = tmp_path / "other"
    expert_iterate("pyanitsa", other, opponent="pyanitsa/rule", rollout_opponents="rule", **kw)
    saved = json.loads((other / "run.json").read_text())
    assert saved["opponent"] is None and saved["rollout_opponents"] is None  # the defaults
    assert len(expert_iterate("pyanitsa", other, resume=True, **kw)) == 2

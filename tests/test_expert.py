"""Expert iteration (training/expert.py): PIMC labels of a policy's positions, distillation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardzoo import agents
from cardzoo.envs.all_fours.constants import NUM_CARDS
from cardzoo.training import cli
from cardzoo.training.expert import LABEL_KEYS, agreement_and_regret, distil, distillation_target, label_positions, load_labels
from interrupt_util import interrupt_at_call


@pytest.fixture(scope="module")
def labels(tmp_path_factory):
    out = tmp_path_factory.mktemp("labels") / "l.npz"
    counts = label_positions("all_fours", "all_fours/ppo", 24, out, n_det=2, seed=5, batch=12, progress=False)
    return out, counts


def test_label_file_contents(labels):
    out, counts = labels
    d = load_labels([out])
    assert counts == {"games": 24, "card_positions": len(d["obs"]), "other_positions": len(d["other_obs"])}
    assert d["labelled"] == ("cards", "others")
    n = len(d["obs"])
    assert n > 24 * 8  # about 22 card decisions with a choice per deal (both teams)
    assert d["obs"].dtype == np.uint8 and d["obs"].shape == (n, 402)
    assert d["mask"].shape == d["q"].shape == (n, 56)
    # card positions: a choice between cards only; values exactly on the legal cards
    assert (d["mask"].sum(axis=1) > 1).all() and not d["mask"][:, NUM_CARDS:].any()
    assert np.array_equal(~np.isnan(d["q"]), d["mask"])
    # All Fours hand rewards are whole points, so the mean over 2 determinizations is a multiple of 1/2
    vals = d["q"][d["mask"]] * 2
    assert np.allclose(vals, np.round(vals)) and np.abs(vals).max() <= 2 * 30
    # bid positions (the "others" type): every one offers a non-card action and a choice, valued like the cards
    assert len(d["other_obs"]) >= 24 and d["other_mask"][:, NUM_CARDS:].any(axis=1).all()
    assert (d["other_mask"].sum(axis=1) > 1).all()
    assert np.array_equal(~np.isnan(d["other_q"]), d["other_mask"])
    vals = d["other_q"][d["other_mask"]] * 2
    assert np.allclose(vals, np.round(vals))


def test_labels_are_reproducible(labels, tmp_path):
    out, _ = labels
    again = tmp_path / "again.npz"
    label_positions("all_fours", "all_fours/ppo", 24, again, n_det=2, seed=5, batch=12, progress=False)
    a, b = load_labels([out]), load_labels([again])
    for key in LABEL_KEYS:
        assert np.array_equal(a[key], b[key], equal_nan=True), key
    other = tmp_path / "other.npz"
    label_positions("all_fours", "all_fours/ppo", 12, other, n_det=2, seed=6, batch=12, progress=False)
    assert not np.array_equal(load_labels([other])["obs"][:50], a["obs"][:50])


def test_label_plays_exactly_the_deals_asked_for(tmp_path, capsys):
    """--games 3 with --batch 8 labels 3 deals, not a whole batch of 8: the last batch is cut to the
    deals left, so the file is the one a batch of 3 writes; 5 deals in batches of 3 are 3 + 2."""
    out = tmp_path / "three.npz"
    assert cli.main(["label", "all_fours", str(out), "--games", "3", "--batch", "8", "--n-det", "1", "--seed", "4"]) == 0
    assert capsys.readouterr().out.startswith("3 deals: ")
    one_batch = tmp_path / "batch3.npz"
    assert label_positions("all_fours", "all_fours/ppo", 3, one_batch, n_det=1, seed=4, batch=3, progress=False)["games"] == 3
    a, b = load_labels([out]), load_labels([one_batch])
    for key in LABEL_KEYS:
        assert np.array_equal(a[key], b[key], equal_nan=True), key
    five = label_positions("all_fours", "all_fours/ppo", 5, tmp_path / "five.npz", n_det=1, seed=4, batch=3, progress=False)
    assert five["games"] == 5 and five["card_positions"] > len(a["obs"])


def test_label_bad_input(tmp_path):
    with pytest.raises(ValueError, match=r"unknown search_on value 'bids'; valid: \['all', 'cards', 'none', 'others'\]"):
        label_positions("all_fours", "all_fours/ppo", 4, tmp_path / "x.npz", search_on="bids", progress=False)
    with pytest.raises(ValueError, match="'ottocento/ppo' plays ottocento, not all_fours"):
        label_positions("all_fours", "ottocento/ppo", 4, tmp_path / "x.npz", progress=False)
    with pytest.raises(FileNotFoundError, match="nowhere"):
        label_positions("all_fours", "all_fours/ppo", 4, tmp_path / "nowhere" / "x.npz", progress=False)
    with pytest.raises(ValueError, match="'all_fours/rule' is not a trained policy"):
        label_positions("all_fours", "all_fours/rule", 4, tmp_path / "x.npz", progress=False)
    with pytest.raises(ValueError, match="n_games must be >= 1, got 0"):
        label_positions("all_fours", "all_fours/ppo", 0, tmp_path / "x.npz", progress=False)
    with pytest.raises(ValueError, match="batch must be >= 1, got 0"):
        label_positions("all_fours", "all_fours/ppo", 4, tmp_path / "x.npz", batch=0, progress=False)
    with pytest.raises(FileNotFoundError, match="no-such-agent"):
        label_positions("all_fours", str(tmp_path / "no-such-agent"), 4, tmp_path / "x.npz", progress=False)
    assert cli.main(["label", "all_fours", str(tmp_path / "none" / "x.npz")]) == 2


def test_label_numbers_are_checked_up_front_naming_the_keyword(tmp_path, monkeypatch):
    """n_games=1.5 labelled one deal, wrote the file, then failed with "batch must be an int >= 0, got 0.5" (the
    wrong argument); n_games=True and batch=1.5 were taken; n_games="2" and seed=None raised raw TypeErrors. Every
    number is an int (numpy's too, never a bool) checked before anything is read or written, its keyword named."""
    import cardzoo.training.expert as ex

    monkeypatch.setattr(ex, "_label_batch", lambda *a, **k: pytest.fail("a deal was played"))
    out = tmp_path / "x.npz"
    for kw, msg in [
        ({"n_games": 1.5}, "n_games must be an int >= 1, got 1.5"),
        ({"n_games": True}, "n_games must be an int >= 1, got True"),
        ({"n_games": "2"}, "n_games must be an int >= 1, got '2'"),
        ({"n_games": np.int64(0)}, "n_games must be >= 1, got 0"),
        ({"batch": 1.5}, "batch must be an int >= 1, got 1.5"),
        ({"batch": np.bool_(True)}, "batch must be an int >= 1, got np.True_"),
        ({"n_det": 2.5}, "n_det must be an int >= 1, got 2.5"),
        ({"n_det": 0}, "n_det must be >= 1, got 0"),
        ({"n_det": 5000}, "cannot label 'all_fours/ppo' (options {}): n_det must be 1..4096, got 5000"),
        ({"seed": None}, "seed must be an int >= 0, got None"),
        ({"seed": 1.5}, "seed must be an int >= 0, got 1.5"),
        ({"seed": False}, "seed must be an int >= 0, got False"),
        ({"seed": -1}, "seed must be >= 0, got -1"),
        ({"seed": 2**32}, "seed must be at most 4294967295 (2**32 - 1, the seeds SB3 and torch take), got 4294967296"),
    ]:
        args = {"n_games": 2, **kw}
        with pytest.raises(ValueError) as e:
            label_positions("all_fours", "all_fours/ppo", args.pop("n_games"), out, progress=False, **args)
        assert str(e.value) == msg, kw
    assert list(tmp_path.iterdir()) == []  # nothing written
    # numpy integers are integers
    monkeypatch.undo()
    c = label_positions("all_fours", "all_fours/ppo", np.int64(2), out, n_det=np.int32(1), batch=np.int64(2), seed=np.uint32(3),
                        progress=False)
    assert c["games"] == 2
    made = json.loads(str(np.load(out)["labelling"]))
    assert made["n_det"] == 1 and made["seed"] == 3


def test_load_labels_errors(tmp_path, labels):
    with pytest.raises(FileNotFoundError, match="missing.npz"):
        load_labels([labels[0], tmp_path / "missing.npz"])
    bad = tmp_path / "bad.npz"
    np.savez(bad, obs=np.zeros((2, 402), np.uint8))
    with pytest.raises(ValueError, match=r"bad.npz is not a label file: it lacks \['mask'"):
        load_labels([bad])
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="junk.npz"):
        load_labels([junk])


def _relabel_lowest_card(src, dst):
    """The same positions with made-up values: the lowest legal card id is worth 1, others 0."""
    d = load_labels([src])
    q = np.where(d["mask"], 0.0, np.nan).astype(np.float32)
    q[np.arange(len(q)), d["mask"].argmax(axis=1)] = 1.0
    np.savez(dst, **{**d, "q": q})
    return dst


def test_distil_learns_the_labels_and_keeps_the_bids(labels, tmp_path):
    data = _relabel_lowest_card(labels[0], tmp_path / "lowest.npz")
    before = agents.load("all_fours/ppo")
    d = load_labels([data])
    agree0, regret0 = agreement_and_regret(before, d)
    s = distil(
        "all_fours/ppo", [data], tmp_path / "student", epochs=40, lr=3e-3, tau=0.0, batch_size=128,
        reference="all_fours/rule", progress=False,
    )
    after = agents.load(str(tmp_path / "student"))
    agree1, regret1 = agreement_and_regret(after, d)
    assert agree0 < 0.7 and agree1 > agree0 + 0.25  # it learned the made-up rule
    assert regret1 == pytest.approx(1 - agree1)  # values are 1 for the target card, 0 otherwise
    assert s["after"]["cards"]["agreement"] > s["before"]["cards"]["agreement"]
    assert s["search_on"] == ["cards"] and s["kept"] == ["others"]
    # the bids are held by the KL term: the same greedy bid in nearly all bid positions
    same = (before.act(d["other_obs"], d["other_mask"]) == after.act(d["other_obs"], d["other_mask"])).mean()
    assert same >= 0.9
    meta = json.loads((tmp_path / "student" / "agent.json").read_text())
    assert meta["game"] == "all_fours" and meta["distillation"]["card_positions"] == len(d["obs"])
    assert meta["distillation"]["epochs"] == 40 and meta["name"] == "student"
    ref = meta["distillation"]["reference"]
    assert ref["agent"] == "all_fours/rule" and 0 < ref["cards"]["agreement"] < 1
    assert (tmp_path / "student" / "distillation.png").stat().st_size > 10_000


def test_distillation_target_exact_values():
    q = np.array([[1.0, 0.9, np.nan], [0.5, 0.5, 0.2]])
    mask = np.array([[True, True, False], [True, True, True]])
    hard = distillation_target(q, mask, tau=0.0)
    assert hard.tolist() == [[1, 0, 0], [1, 0, 0]]  # a tie goes to the lowest action id
    e = np.e
    soft = distillation_target(q, mask, tau=0.1)
    assert soft[0] == pytest.approx([e / (e + 1), 1 / (e + 1), 0.0])  # exp(10) : exp(9)
    assert soft[1] == pytest.approx(np.array([1, 1, np.exp(-3)]) / (2 + np.exp(-3)))
    log_p = np.log(np.array([[0.2, 0.8, 1e-9], [0.5, 0.25, 0.25]]))
    reg = distillation_target(q, mask, tau=0.1, prior=1.0, log_p_start=log_p)
    assert reg[0] == pytest.approx([0.2 * e / (0.2 * e + 0.8), 0.8 / (0.2 * e + 0.8), 0.0])  # 0.4046, 0.5954
    half = distillation_target(q, mask, tau=0.1, prior=0.5, log_p_start=log_p)
    w = np.array([np.sqrt(0.2) * e, np.sqrt(0.8), 0.0])
    assert half[0] == pytest.approx(w / w.sum())
    with pytest.raises(ValueError, match="log_p_start"):
        distillation_target(q, mask, tau=0.1, prior=1.0)


def test_distil_bad_input(labels, tmp_path):
    with pytest.raises(ValueError, match="epochs >= 1"):
        distil("all_fours/ppo", [labels[0]], tmp_path / "s", epochs=0, progress=False)
    with pytest.raises(ValueError, match="prior=-1"):
        distil("all_fours/ppo", [labels[0]], tmp_path / "s", prior=-1.0, progress=False)
    with pytest.raises(ValueError, match="lr > 0"):
        distil("all_fours/ppo", [labels[0]], tmp_path / "s", lr=-1.0, progress=False)
    with pytest.raises(FileNotFoundError, match="no-agent"):
        distil(str(tmp_path / "no-agent"), [labels[0]], tmp_path / "s", progress=False)
    # another game's policy: named by game (it said only "labels have observations of size 402 and 56 actions;
    # aluette/ppo expects ..."); the sizes are still checked for label files that record no game
    with pytest.raises(ValueError, match=r"the labels are positions of all_fours with options \{\}; aluette/ppo plays aluette"):
        distil("aluette/ppo", [labels[0]], tmp_path / "s", progress=False)
    assert cli.main(["distil", "all_fours/ppo", str(tmp_path / "s"), "--labels", str(tmp_path / "none.npz")]) == 2


def test_distil_files_may_be_one_path_and_its_numbers_are_checked_naming_the_keyword(labels, tmp_path):
    """files given as one string was read letter by letter ("label file / is given twice"), a pathlib.Path
    raised "'PosixPath' object is not iterable"; epochs=1.5 and batch_size=2.5 raised "'float' object cannot be
    interpreted as an integer", seed=None "'<' not supported", seed=1.5 numpy's SeedSequence error, and epochs=True
    and torch_threads=1.5 were taken. One path is a list of one; the rest is refused naming the keyword, before
    anything is written."""
    f = labels[0]
    out = tmp_path / "s"
    example = "['labels.npz', 'labels_1.npz']"
    for kw, msg in [
        ({"files": 3}, f"files must be a label file's path or a list of them (e.g. {example}), got int 3"),
        ({"files": {str(f)}}, f"files must be a label file's path or a list of them (e.g. {example}), got set {{{str(f)!r}}}"),
        ({"files": [f, None]}, f"files must hold paths of label files (str or pathlib.Path, e.g. {example}), got NoneType None among them"),
        ({"files": [f, " "]}, f"files holds ' ', an empty path: give the label files of label_positions, e.g. {example}"),
        ({"epochs": 1.5}, "epochs must be an int >= 1, got 1.5"),
        ({"epochs": True}, "epochs must be an int >= 1, got True"),
        ({"batch_size": 2.5}, "batch_size must be an int >= 2, got 2.5"),
        ({"torch_threads": 1.5}, "torch_threads must be an int >= 1, got 1.5"),
        ({"seed": None}, "seed must be an int >= 0, got None"),
        ({"seed": 1.5}, "seed must be an int >= 0, got 1.5"),
        ({"seed": 2**32}, "seed must be at most 4294967295 (2**32 - 1, the seeds SB3 and torch take), got 4294967296"),
        ({"lr": "0.1"}, "lr must be a finite number, got '0.1'"),
        ({"tau": None}, "tau must be a finite number, got None"),
        ({"prior": True}, "prior must be a finite number, got True"),
    ]:
        args = {"files": [f], **kw}
        with pytest.raises(ValueError) as e:
            distil("all_fours/ppo", args.pop("files"), out, progress=False, **args)
        assert str(e.value) == msg, kw
    assert not out.exists()  # nothing written
    # one path, as a str or a pathlib.Path, is a list of one (load_labels too); numpy ints are ints
    assert load_labels(f)["obs"].shape == load_labels(str(f))["obs"].shape == load_labels((f,))["obs"].shape
    s = distil("all_fours/ppo", str(f), tmp_path / "a", epochs=np.int64(1), batch_size=np.int32(64), seed=np.int64(1), progress=False)
    assert s["label_files"] == [str(f)] and s["epochs"] == 1 and type(s["epochs"]) is int
    s = distil("all_fours/ppo", f, tmp_path / "b", epochs=1, batch_size=64, seed=1, progress=False)
    assert s["label_files"] == [str(f)]
    a, b = (json.loads((tmp_path / d / "agent.json").read_text())["distillation"] for d in "ab")
    assert a["after"] == b["after"]  # the same training


def test_label_output_is_checked_first_and_written_atomically(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match=r"'noext' must be named \*.npz"):
        label_positions("all_fours", "all_fours/ppo", 4, "noext", progress=False)
    (tmp_path / "adir.npz").mkdir()
    with pytest.raises(ValueError, match="it is a folder"):
        label_positions("all_fours", "all_fours/ppo", 4, tmp_path / "adir.npz", progress=False)
    with pytest.raises(ValueError, match="seed must be >= 0"):
        label_positions("all_fours", "all_fours/ppo", 4, tmp_path / "x.npz", seed=-1, progress=False)
    with pytest.raises(ValueError, match="'aluette/rule' plays aluette, not all_fours"):
        label_positions("all_fours", "all_fours/ppo", 4, tmp_path / "x.npz", opponent="aluette/rule", progress=False)
    with pytest.raises(ValueError, match="trained for aluette"):
        label_positions("all_fours", "all_fours/ppo", 4, tmp_path / "x.npz", rollout="agents/shipped/aluette_ppo", progress=False)
    with pytest.raises(ValueError, match="rollout agent 'all_fours/pimc' searches the game state"):
        label_positions("all_fours", "all_fours/ppo", 4, tmp_path / "x.npz", rollout="all_fours/pimc", progress=False)
    # a save that dies half-way leaves the previous complete file in place
    out = tmp_path / "l.npz"
    label_positions("all_fours", "all_fours/ppo", 4, out, n_det=1, batch=4, progress=False)
    before = load_labels([out])
    import cardzoo.training.expert as ex

    def broken_save(file, **arrays):
        with open(file, "wb") as f:
            f.write(b"PK half a zip")
        raise OSError(28, "No space left on device")

    # an existing label file is never replaced unless asked
    with pytest.raises(FileExistsError, match="l.npz exists; a run never overwrites another"):
        label_positions("all_fours", "all_fours/ppo", 4, out, n_det=1, batch=4, seed=9, progress=False)
    monkeypatch.setattr(ex.np, "savez_compressed", broken_save)
    with pytest.raises(OSError, match="cannot write labels to .*l.npz: No space left on device"):
        label_positions("all_fours", "all_fours/ppo", 4, out, n_det=1, batch=4, seed=9, progress=False, overwrite=True)
    after = load_labels([out])
    assert np.array_equal(before["obs"], after["obs"])


def test_load_labels_rejects_damaged_and_inconsistent_files(tmp_path, labels):
    good = load_labels([labels[0]])
    with pytest.raises(ValueError, match="is given twice"):
        load_labels([labels[0], labels[0]])
    raw = labels[0].read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match="cut.npz is not a readable .npz label file"):
        load_labels([cut])
    npy = tmp_path / "a.npy"
    np.save(npy, np.zeros(3))
    with pytest.raises(ValueError, match="a.npy is not a label file"):
        load_labels([npy])
    txt = tmp_path / "t.npz"
    txt.write_text("hello")
    # not a zip archive: said numpy's "This file contains pickled (object) data ... allow_pickle=" before
    with pytest.raises(ValueError, match=r"t.npz is not a label file: a .npz archive with \['obs', .* was expected "
                       r"\(cardzoo label writes them\)$"):
        load_labels([txt])
    for name, change, message in [
        ("flat", {"obs": good["obs"][:, 0]}, "obs has shape"),
        ("floatmask", {"mask": good["mask"].astype(np.float32)}, "mask and other_mask must be boolean"),
        ("nanq", {"q": np.full_like(good["q"], np.nan)}, "q has NaN or infinite values on legal actions \\(cards decisions are labelled\\)"),
        ("short", {"q": good["q"][:-1]}, "obs, mask and q disagree"),
    ]:
        f = tmp_path / f"{name}.npz"
        np.savez(f, **{**good, **change})
        with pytest.raises(ValueError, match=f"{name}.npz is not a valid label file: {message}"):
            load_labels([f])
    narrow = tmp_path / "narrow.npz"
    np.savez(narrow, **{**good, "obs": good["obs"][:, :100], "other_obs": good["other_obs"][:, :100]})
    with pytest.raises(ValueError, match="narrow.npz has observations of size 100 and 56 actions, .*l.npz has 402 and 56"):
        load_labels([labels[0], narrow])


def test_distil_checks_before_training(labels, tmp_path):
    f = [labels[0]]
    for kwargs, message in [
        ({"tau": float("nan")}, "need finite numbers"),
        ({"prior": float("inf")}, "need finite numbers"),
        ({"bid_weight": float("nan")}, "need finite numbers"),
        ({"torch_threads": 0}, "torch_threads must be >= 1"),
        ({"seed": -1}, "seed >= 0"),
        ({"reference": "aluette/rule"}, "'aluette/rule' plays aluette, not all_fours"),
        ({"reference": str(tmp_path / "nope")}, "nope"),
    ]:
        with pytest.raises((ValueError, FileNotFoundError), match=message):
            distil("all_fours/ppo", f, tmp_path / "s", progress=False, **kwargs)
    assert not (tmp_path / "s").exists()  # nothing written
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ValueError, match="it is a file"):
        distil("all_fours/ppo", f, tmp_path / "afile", progress=False)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="busy is a folder with other files in it"):
        distil("all_fours/ppo", f, tmp_path / "busy", progress=False)
    distil("all_fours/ppo", f, tmp_path / "student0", epochs=1, progress=False)
    weights = (tmp_path / "student0" / "weights.safetensors").read_bytes()
    with pytest.raises(ValueError, match="student0 already holds a saved agent; give a new folder, or pass overwrite=True to replace it"):
        distil("all_fours/ppo", f, tmp_path / "student0", epochs=1, lr=1e-2, progress=False)
    assert (tmp_path / "student0" / "weights.safetensors").read_bytes() == weights  # nothing lost
    distil("all_fours/ppo", f, tmp_path / "student0", epochs=1, lr=1e-2, progress=False, overwrite=True)
    assert (tmp_path / "student0" / "weights.safetensors").read_bytes() != weights  # replaced when asked
    with pytest.raises(ValueError, match="the starting agent's own folder"):
        distil(str(tmp_path / "student0"), f, tmp_path / "student0", progress=False)


def test_cli_reports_an_interrupt_without_a_traceback(monkeypatch, tmp_path, capsys):
    import cardzoo.training.expert as ex

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(ex, "label_positions", interrupted)
    assert cli.main(["label", "all_fours", str(tmp_path / "x.npz")]) == 130
    assert "cardzoo label: interrupted" in capsys.readouterr().err


def test_label_search_on_flag_and_its_deprecated_spelling(monkeypatch, tmp_path, capsys):
    """``cardzoo label --label-search-on`` names the types that get PIMC values (as in expert-iterate); in distil and
    expert-iterate ``--search-on`` names the types distilled. label's former ``--search-on`` still works, with a warning."""
    import cardzoo.training.expert as ex

    calls = []
    monkeypatch.setattr(ex, "label_positions", lambda *a, **k: calls.append(k["search_on"]) or
                        {"games": 2, "card_positions": 0, "other_positions": 0})
    base = ["label", "all_fours", str(tmp_path / "x.npz")]
    assert cli.main(base) == 0
    assert cli.main([*base, "--label-search-on", "cards"]) == 0
    assert capsys.readouterr().err == ""
    assert cli.main([*base, "--search-on", "others"]) == 0
    assert capsys.readouterr().err == (
        "cardzoo label: warning: --search-on is deprecated here, use --label-search-on (the types that get PIMC values; "
        "in distil and expert-iterate --search-on names the types distilled)\n")
    assert calls == [["all"], ["cards"], ["others"]]
    assert cli.main([*base, "--search-on", "others", "--label-search-on", "cards"]) == 2
    assert capsys.readouterr().err == ("cardzoo label: error: --search-on is the deprecated name of --label-search-on; "
                                       "give only --label-search-on\n")
    assert len(calls) == 3
    # the help of each says what its flag does
    helps = {}
    for cmd in ("label", "distil", "expert-iterate"):
        with pytest.raises(SystemExit):
            cli.main([cmd, "--help"])
        helps[cmd] = " ".join(capsys.readouterr().out.split())
    assert "--label-search-on TYPE [TYPE ...] decision types whose positions get PIMC values in the label file" in helps["label"]
    assert "--search-on TYPE [TYPE ...] deprecated name of --label-search-on" in helps["label"]
    assert "--search-on SEARCH_ON decision types distilled: trained towards the labels' PIMC values" in helps["distil"]
    assert ("--label-search-on LABEL_SEARCH_ON decision types that get PIMC values in each round's labels "
            "(cardzoo label --label-search-on)") in helps["expert-iterate"]
    assert ("--search-on SEARCH_ON decision types distilled each round, trained towards the PIMC values "
            "(cardzoo distil --search-on)") in helps["expert-iterate"]


def test_label_values_bids_by_default_as_its_help_says(tmp_path, capsys):
    """`cardzoo label --help` said the bids get values only "with --label-search-on"; without the flag
    every decision type is labelled (default all), as its --label-search-on help and training/README.md say."""
    from cardzoo.training.cli import build_parser

    text = " ".join(build_parser()._subparsers._group_actions[0].choices["label"].format_help().split())
    assert "and of each bid, declaration or signal (--label-search-on chooses which; default all)" in text
    out = tmp_path / "x.npz"
    assert cli.main(["label", "all_fours", str(out), "--games", "2", "--batch", "2", "--n-det", "1"]) == 0
    with np.load(out) as f:
        assert [str(t) for t in f["labelled"]] == ["cards", "others"]
        assert np.array_equal(np.isfinite(f["other_q"]), f["other_mask"]) and f["other_mask"].any()  # every legal bid has a value


def test_an_interrupted_label_run_leaves_a_complete_file_that_says_so(tmp_path, monkeypatch, capsys):
    """Ctrl-C during `cardzoo label` said only "interrupted": the file held the deals done so far with nothing
    telling it from a finished run, and Ctrl-C during a save left a half-written `.NAME.partial.npz` beside it.
    Now the file records `deals` of `deals_asked`, the interrupt says how many deals it holds, and the temporary
    file is removed."""
    import cardzoo.training.expert as ex

    real = ex._label_batch
    interrupt_at_call(monkeypatch, ex, "_label_batch", 2)
    out = tmp_path / "l.npz"
    assert cli.main(["label", "all_fours", str(out), "--games", "6", "--batch", "2", "--n-det", "1", "--seed", "3"]) == 130
    err = capsys.readouterr().err
    assert (f"\ninterrupted after 2 of 6 deals: {out} holds the labels of those 2 (a complete label file, its 'deals' says "
            "how many); label more deals into another file with another --seed and give cardzoo distil both\n") in err
    assert err.endswith("cardzoo label: interrupted\n") and "Traceback" not in err
    with np.load(out) as z:
        assert int(z["deals"]) == 2 and int(z["deals_asked"]) == 6
    monkeypatch.setattr(ex, "_label_batch", real)
    two = tmp_path / "two.npz"
    label_positions("all_fours", "all_fours/ppo", 2, two, n_det=1, seed=3, batch=2, progress=False)
    a, b = load_labels([out]), load_labels([two])
    for key in LABEL_KEYS:  # the interrupted file is the file of the deals it holds
        assert np.array_equal(a[key], b[key], equal_nan=True), key
    with np.load(two) as z:
        assert int(z["deals"]) == int(z["deals_asked"]) == 2

    def interrupted_save(file, **arrays):
        with open(file, "wb") as f:
            f.write(b"PK half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(ex.np, "savez_compressed", interrupted_save)
    with pytest.raises(KeyboardInterrupt):
        label_positions("all_fours", "all_fours/ppo", 2, two, n_det=1, seed=4, batch=2, progress=False, overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.npz", "two.npz"]  # no .two.npz.partial.npz left
    assert np.array_equal(load_labels([two])["obs"], b["obs"])  # the previous complete file stays


def test_label_interrupted_before_its_first_batch_keeps_the_earlier_file_or_writes_none(tmp_path, monkeypatch, capsys):
    """`cardzoo label --overwrite` interrupted before its first batch replaced a good label file with an
    empty one (0 deals), which distil then refused; without --overwrite it left a 0-deal file that
    refused the re-run. Now the earlier file stays byte for byte until a batch replaces it, and a new
    file is not made; a failure before the first batch does the same."""
    import cardzoo.training.expert as ex

    out = tmp_path / "l.npz"
    label_positions("all_fours", "all_fours/ppo", 2, out, n_det=1, seed=3, batch=2, progress=False)
    before = out.read_bytes()
    real = ex._label_batch
    interrupt_at_call(monkeypatch, ex, "_label_batch", 1)
    argv = ["label", "all_fours", str(out), "--games", "4", "--batch", "2", "--n-det", "1", "--seed", "5"]
    assert cli.main([*argv, "--overwrite"]) == 130
    err = capsys.readouterr().err
    assert f"interrupted after 0 of 4 deals: nothing was written; {out} still holds the earlier labels\n" in err
    assert out.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["l.npz"]
    new = tmp_path / "new.npz"
    interrupt_at_call(monkeypatch, ex, "_label_batch", 1)
    assert cli.main(["label", "all_fours", str(new), *argv[3:]]) == 130
    assert f"interrupted after 0 of 4 deals: nothing was written; {new} was not made\n" in capsys.readouterr().err
    assert not new.exists()

    def failing(*a, **k):
        raise RuntimeError("a failure in the first batch")

    monkeypatch.setattr(ex, "_label_batch", failing)
    with pytest.raises(RuntimeError, match="a failure in the first batch"):
        label_positions("all_fours", "all_fours/ppo", 4, out, n_det=1, seed=5, batch=2, progress=False, overwrite=True)
    assert out.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["l.npz"]
    monkeypatch.setattr(ex, "_label_batch", real)
    label_positions("all_fours", "all_fours/ppo", 4, out, n_det=1, seed=5, batch=2, progress=False, overwrite=True)
    with np.load(out) as z:  # a finished run replaces it
        assert int(z["deals"]) == 4


def test_a_new_expert_iterate_run_that_fails_in_round_1_is_not_left_behind(tmp_path, capsys):
    """--n-det too large for memory failed in round 1 but left out/run.json, so the same command with a
    fixed --n-det was refused ("holds an earlier expert-iterate run ... --resume"). The failed run is
    removed (an empty folder given stays, empty); the run that follows is not refused."""
    args = ["--rounds", "1", "--games", "1", "--batch", "1", "--epochs", "1", "--arena-deals", "0"]
    empty = tmp_path / "empty"
    empty.mkdir()
    for out in (tmp_path / "E", empty):
        assert cli.main(["expert-iterate", "all_fours", "--out", str(out), "--n-det", "99999999999999"] + args) == 2
        err = capsys.readouterr().err.splitlines()[-1]  # after the progress bars
        # (the search now refuses it when round 1 makes it; it said "not enough memory for these sizes" then)
        assert err == "cardzoo expert-iterate: error: cannot label 'all_fours/ppo' (options {}): n_det must be 1..4096, got 99999999999999"
    assert not (tmp_path / "E").exists() and list(empty.iterdir()) == []
    assert cli.main(["expert-iterate", "all_fours", "--out", str(tmp_path / "E"), "--n-det", "1"] + args) == 0
    assert (tmp_path / "E" / "round_1" / "round.json").is_file()

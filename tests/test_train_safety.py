"""Safe training runs (issue 16, item 5): --out never overwrites an earlier run, Ctrl-C saves a
resumable checkpoint, the curve line only when a curve exists, no empty folder after a failure."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest

from cardzoo.training.cli import main
from cardzoo.training.config import TrainConfig, check_out_folder

# the smallest run: 2 rollouts of 16 games x 8 steps, a tiny network, no evaluation
TINY = ["--steps", "256", "--n-envs", "16", "--n-steps", "8", "--batch-size", "64", "--bc-samples", "0",
        "--eval-deals", "0", "--torch-threads", "1", "--opponents", "random=1", "--expert-rounds", "0"]


def _expert_flags(rounds: int) -> list[str]:
    """The smallest expert stage: ``rounds`` rounds of 4 deals, one labelling process, no arena."""
    return ["--expert-rounds", str(rounds), "--expert-games", "4", "--expert-n-det", "1", "--expert-epochs", "1",
            "--expert-arena-deals", "0", "--expert-workers", "1"]


def _tiny_cfg(out, **kw) -> TrainConfig:
    base = dict(game="all_fours", total_steps=256, n_envs=16, n_steps=8, batch_size=64, bc_samples=0, eval_deals=0,
                torch_threads=1, opponents={"random": 1.0}, net_arch=[16], out=str(out), expert_rounds=0)
    return TrainConfig(**(base | kw))


def test_out_folder_with_an_earlier_run_is_refused(tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    assert main(["train", "all_fours", "--out", str(out), *TINY]) == 0
    first = capsys.readouterr().out
    assert "agent (weights + JSON)" in first
    weights = (out / "agent" / "weights.safetensors").read_bytes()
    # a second run into the same folder: refused, naming the folder and both flags; nothing touched
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--seed", "5"]) == 2
    err = capsys.readouterr().err
    assert str(out) in err and "--resume" in err and "--overwrite" in err and "earlier run" in err
    assert (out / "agent" / "weights.safetensors").read_bytes() == weights
    # --overwrite starts afresh: one TensorBoard run only, new weights
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--seed", "5", "--overwrite"]) == 0
    assert len(list((out / "tb").iterdir())) == 1
    assert (out / "agent" / "weights.safetensors").read_bytes() != weights
    # --resume continues from the model zip, the history keeps the earlier rows
    rows = len(json.loads((out / "history.json").read_text()))
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--resume", str(out / "model.zip")]) == 0
    meta = json.loads((out / "agent" / "agent.json").read_text())
    assert meta["training"]["steps"] == 512  # the agent's PPO steps in all: 256 before the resume, 256 after
    before = meta["training"]["resumed_from"]  # and the overwriting run's command and seconds
    assert before == {"model": str(out / "model.zip"), "steps": 256, "seconds_in_all": before["seconds_in_all"],
                      "command": "cardzoo train all_fours --out " + str(out) + " " + " ".join(TINY) + " --seed 5 --overwrite"}
    assert len(json.loads((out / "history.json").read_text())) >= rows
    # without --out, --resume continues the model's own run (it trained into runs/all_fours, a new run)
    monkeypatch.chdir(tmp_path)
    assert main(["train", "all_fours", *TINY, "--resume", str(out / "model.zip")]) == 0
    assert json.loads((out / "agent" / "agent.json").read_text())["training"]["steps"] == 768
    assert not (tmp_path / "runs").exists()


def test_check_out_folder_cases(tmp_path):
    check_out_folder(tmp_path / "missing")  # a new folder is fine
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    check_out_folder(tmp_path / "other")  # unrelated files are fine
    (tmp_path / "other" / "model.zip").write_text("x")
    with pytest.raises(FileExistsError, match="model.zip"):
        check_out_folder(tmp_path / "other")
    check_out_folder(tmp_path / "other", overwrite=True)
    check_out_folder(tmp_path / "other", resume=str(tmp_path / "other" / "model.zip"))  # its own model
    with pytest.raises(FileExistsError) as e:  # another run's model would replace the run held here
        check_out_folder(tmp_path / "other", resume="x.zip")
    assert str(e.value) == (
        f"--out {tmp_path / 'other'} holds another run (model.zip) and --resume x.zip is not one of its models "
        f"({tmp_path / 'other' / 'model.zip'} or {tmp_path / 'other' / 'checkpoints'}/model_N.zip): continue that model in "
        "its own run folder or in a new --out, or give this folder's own model to continue this run")
    check_out_folder(tmp_path / "new", resume="x.zip")  # a model continued into a new folder is fine
    with pytest.raises(ValueError, match="exclude each other"):
        check_out_folder(tmp_path / "other", resume="x.zip", overwrite=True)
    with pytest.raises(NotADirectoryError, match="notes.txt"):
        check_out_folder(tmp_path / "other" / "notes.txt")


def _interrupt_at(n_calls: int):
    from stable_baselines3.common.callbacks import BaseCallback

    class Interrupt(BaseCallback):
        def _on_step(self) -> bool:
            if self.n_calls >= n_calls:
                raise KeyboardInterrupt
            return True

    return Interrupt()


def test_ctrl_c_saves_a_resumable_checkpoint_and_the_agent(tmp_path):
    from cardzoo import agents
    from cardzoo.training.selfplay import TrainingInterrupted, train

    out = tmp_path / "run"
    # one rollout (16 games x 8 steps = 128 steps), then interrupted at the 3rd step of the second
    with pytest.raises(TrainingInterrupted) as e:
        train(_tiny_cfg(out, total_steps=1024), callback=_interrupt_at(8 + 3))
    steps = e.value.steps
    assert steps == 128 + 3 * 16
    assert e.value.model == out / "checkpoints" / f"model_{steps}.zip" and e.value.model.is_file()
    assert e.value.agent == out / "checkpoints" / f"agent_{steps}"
    meta = json.loads((e.value.agent / "agent.json").read_text())
    assert meta["training"]["interrupted"] is True and meta["training"]["steps"] == steps
    agents.load(str(e.value.agent))  # the agent so far plays
    # and the run continues from the checkpoint
    summary = train(_tiny_cfg(out, total_steps=256, resume=str(e.value.model)))
    assert summary["steps"] >= 256 - steps


def test_ctrl_c_on_the_command_line_exits_130_and_says_where(tmp_path, capsys, monkeypatch):
    from cardzoo.training import selfplay

    real = selfplay.train
    monkeypatch.setattr(selfplay, "train", lambda cfg: real(cfg, callback=_interrupt_at(2)))
    out = tmp_path / "run"
    assert main(["train", "all_fours", "--out", str(out), *TINY]) == 130
    err = capsys.readouterr().err
    model = out / "checkpoints" / "model_32.zip"
    assert "interrupted after 32 PPO steps" in err and str(model) in err and str(out / "checkpoints" / "agent_32") in err
    assert f"--resume {model}" in err and model.is_file()
    # the printed command keeps the run's options and asks for the 256 - 32 steps left; it runs
    line = next(x for x in err.splitlines() if "continue with:" in x).split("continue with:")[1].strip()
    assert "--n-envs 16" in line and "--opponents random=1" in line and line.endswith(f"--resume {model} --steps 224")
    import shlex

    monkeypatch.setattr(selfplay, "train", real)
    assert main(shlex.split(line)[1:]) == 0
    assert json.loads((out / "summary.json").read_text())["steps"] >= 224


def test_curve_line_only_when_a_curve_was_written(tmp_path, capsys):
    # 128 steps = one rollout of 8 steps: no episode ends, so no history row and no curve
    out = tmp_path / "short"
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--steps", "128"]) == 0
    assert "learning curve" not in capsys.readouterr().out
    assert not (out / "learning_curve.png").exists()
    out = tmp_path / "long"
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--steps", "1024", "--n-steps", "32"]) == 0
    said = capsys.readouterr().out
    assert f"learning curve:          {out / 'learning_curve.png'}" in said and (out / "learning_curve.png").is_file()


def test_failed_validation_leaves_no_folder(tmp_path, capsys):
    out = tmp_path / "never"
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--lr", "-1"]) == 2
    assert not out.exists()
    # a failure after validation (here: an unreadable model zip to resume) also leaves nothing behind
    bad = tmp_path / "bad.zip"
    bad.write_text("not a zip")
    from cardzoo.training.selfplay import train

    with pytest.raises(Exception):
        train(_tiny_cfg(out, resume=str(bad)))
    assert not out.exists()


def test_a_second_run_into_a_folder_in_use_is_refused(tmp_path, capsys):
    """Two runs at once into one --out: the second stops before writing anything (lock file), and a
    finished run leaves no lock behind."""
    out = tmp_path / "busy"
    out.mkdir()
    (out / ".run.lock").write_text("4242")  # another run holds the folder
    assert main(["train", "all_fours", "--out", str(out), *TINY]) == 2
    err = capsys.readouterr().err
    assert f"--out {out} is in use by another training run (process 4242" in err
    assert sorted(p.name for p in out.iterdir()) == [".run.lock"]
    (out / ".run.lock").unlink()
    assert main(["train", "all_fours", "--out", str(out), *TINY]) == 0
    assert not (out / ".run.lock").exists() and (out / "agent").is_dir()


def _dead_pid() -> int:
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_the_lock_of_a_killed_run_is_taken_over(tmp_path, capsys):
    """A run killed by SIGKILL leaves its lock; its process (on this host) is gone, so the next run takes
    the lock over with a note instead of refusing forever. A lock without a host name (written before
    host names were recorded) is still refused, with the hint that the process is gone."""
    import socket

    out = tmp_path / "killed"
    out.mkdir()
    dead = _dead_pid()
    (out / ".run.lock").write_text(f"{dead} {socket.gethostname()}")
    assert main(["train", "all_fours", "--out", str(out), *TINY]) == 0
    said = capsys.readouterr().out
    assert f"--out {out}: removed the lock of an earlier run that was stopped (process {dead} on this host is gone)" in said
    assert not (out / ".run.lock").exists() and (out / "agent").is_dir()
    assert not list(out.glob(".run.lock*"))
    # on another host the process cannot be checked: refused
    other = tmp_path / "other"
    other.mkdir()
    (other / ".run.lock").write_text(f"{dead} some-other-host")
    assert main(["train", "all_fours", "--out", str(other), *TINY]) == 2
    err = capsys.readouterr().err
    assert f"in use by another training run (process {dead} on some-other-host; lock file {other / '.run.lock'})" in err
    (other / ".run.lock").write_text(str(dead))
    assert main(["train", "all_fours", "--out", str(other), *TINY]) == 2
    err = capsys.readouterr().err
    assert f"(process {dead}; lock file" in err and f"no process {dead} runs on this machine" in err and "delete the lock file" in err
    # a live holder (this test's process) is respected
    (other / ".run.lock").write_text(f"{os.getpid()} {socket.gethostname()}")
    assert main(["train", "all_fours", "--out", str(other), *TINY]) == 2
    assert f"(process {os.getpid()} on {socket.gethostname()}; lock file" in capsys.readouterr().err


def test_sigterm_saves_like_ctrl_c(tmp_path, capsys):
    """kill PID (SIGTERM) during PPO saves the model and agent so far, as Ctrl-C does, and exits 130."""
    import signal

    from stable_baselines3.common.callbacks import BaseCallback

    from cardzoo.training.selfplay import train

    class Term(BaseCallback):
        def _on_step(self) -> bool:
            if self.n_calls >= 2:
                os.kill(os.getpid(), signal.SIGTERM)
            return True

    before = signal.getsignal(signal.SIGTERM)
    out = tmp_path / "term"
    with pytest.raises(KeyboardInterrupt) as e:
        train(_tiny_cfg(out), callback=Term())
    assert Path(e.value.model).is_file() and (Path(e.value.agent) / "agent.json").is_file()
    assert e.value.model == out / "checkpoints" / f"model_{e.value.steps}.zip"
    assert not (out / ".run.lock").exists()
    assert signal.getsignal(signal.SIGTERM) is before  # restored after the run


def test_ctrl_c_in_the_expert_rounds_keeps_ppo_and_finished_rounds(tmp_path, capsys, monkeypatch):
    """Ctrl-C after PPO, in round 2 of the expert iteration: exit 130; the PPO model and agent and round
    1 are kept, and the printed cardzoo expert-iterate command finishes the rounds from there."""
    import shlex

    from cardzoo.training import expert

    real = expert.distil

    def distil(init, files, out, **kw):
        if "round_2" in str(out):
            raise KeyboardInterrupt
        return real(init, files, out, **kw)

    monkeypatch.setattr(expert, "distil", distil)
    out = tmp_path / "run"
    assert main(["train", "all_fours", "--out", str(out), *TINY, *_expert_flags(rounds=2)]) == 130
    err = capsys.readouterr().err
    assert "interrupted in the expert iteration after 256 PPO steps" in err
    assert f"agent so far:     {out / 'expert' / 'round_1' / 'agent'}" in err
    assert (out / "model.zip").is_file() and (out / "ppo_agent" / "agent.json").is_file()
    line = next(x for x in err.splitlines() if "finish the rounds with:" in x).split("finish the rounds with:")[1].strip()
    assert line.startswith(f"cardzoo expert-iterate all_fours --out {out / 'expert'} --init {out / 'ppo_agent'} --rounds 2")
    assert line.endswith("--workers 1 --aggregate --resume")
    stamp = (out / "expert" / "round_1" / "round.json").stat().st_mtime_ns
    monkeypatch.setattr(expert, "distil", real)
    assert main(shlex.split(line)[1:]) == 0
    assert (out / "expert" / "round_2" / "agent" / "agent.json").is_file()
    assert (out / "expert" / "round_1" / "round.json").stat().st_mtime_ns == stamp  # round 1 was kept, not redone


def test_expert_rounds_that_cannot_label_keep_the_ppo_stage(tmp_path, capsys):
    """P'yanitsa's default collect order has no choice to label: the rounds fail after PPO, with exit 2 and a
    message naming the PPO agent and model that were kept and the command that runs the rounds."""
    out = tmp_path / "run"
    assert main(["train", "pyanitsa", "--out", str(out), *TINY, *_expert_flags(rounds=1)]) == 2
    err = capsys.readouterr().err
    assert "expert iteration failed after PPO: too few labels" in err
    assert f"The PPO stage is saved: agent {out / 'ppo_agent'}, model {out / 'model.zip'}" in err
    assert f"run the rounds with: cardzoo expert-iterate pyanitsa --out {out / 'expert'}" in err
    assert (out / "ppo_agent" / "agent.json").is_file() and (out / "model.zip").is_file() and (out / "summary.json").is_file()


def test_init_from_an_agent_of_another_game_is_refused_before_anything_is_written(tmp_path, capsys):
    from cardzoo.agents.registry import SHIPPED

    out = tmp_path / "o"
    aluette = os.path.join(SHIPPED, "aluette_ppo")
    assert main(["train", "ottocento", "--out", str(out), *TINY, "--bc-samples", "0", "--init-from", aluette]) == 2
    assert f"cannot start a ottocento run from {aluette}: that agent plays aluette" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    "kw, error, message",
    [
        ({"bc_teacher": "all_fours/rule"}, ValueError, "bc_teacher 'all_fours/rule' does not play pyanitsa"),
        ({"bc_teacher": "no/such/teacher"}, FileNotFoundError, "neither a registered agent nor a saved agent's path"),
        ({"bc_teacher_options": {"sideways": 1}}, ValueError, "does not take the options {'sideways': 1}"),
        ({"bc_teacher_options": {"rank_order": "0,1"}}, ValueError, "every rank 0..8 once"),
        ({"bc_teacher_options": {"rank_order": "0,1,2,3,4,5,6,8,7"}, "bc_samples": 0}, ValueError, "needs bc_samples > 0"),
        ({"bc_teacher_options": {"deck": 52}}, ValueError, "bc_teacher_options ['deck'] are options of the game pyanitsa"),
        ({"bc_teacher": "SHIPPED/pyanitsa_ppo", "env_options": {"collect_order": "winner_chooses", "objective": "first_out_loses"}},
         ValueError, "was trained for other pyanitsa options than this run's (objective: trained 'last_holder_loses', here 'first_out_loses')"),
    ],
)
def test_a_bad_behaviour_cloning_teacher_fails_at_validation(tmp_path, kw, error, message):
    from cardzoo.agents.registry import SHIPPED

    if str(kw.get("bc_teacher", "")).startswith("SHIPPED/"):
        kw = kw | {"bc_teacher": os.path.join(SHIPPED, kw["bc_teacher"].split("/", 1)[1])}
    cfg = _tiny_cfg(tmp_path / "o", **({"game": "pyanitsa", "bc_samples": 100, "env_options": {"collect_order": "winner_chooses"}} | kw))
    with pytest.raises(error, match=re.escape(message)):
        cfg.validate()
    assert not (tmp_path / "o").exists()


def test_a_teacher_with_options_is_cloned_and_named(tmp_path, capsys):
    """--bc-teacher-option builds the registered teacher with those options; the cloning line and
    agent.json name it, and the clone plays its order (held-out agreement 1.000 for a fixed order)."""
    out = tmp_path / "t"
    args = ["train", "pyanitsa", "-o", "collect_order=winner_chooses", "--skip-forced", "--out", str(out), *TINY,
            "--bc-samples", "2000", "--bc-teacher-option", "rank_order=0,1,2,3,4,5,6,8,7"]
    assert main(args) == 0
    said = capsys.readouterr().out
    assert "agreement with pyanitsa/rule(rank_order=0,1,2,3,4,5,6,8,7)" in said
    meta = json.loads((out / "agent" / "agent.json").read_text())
    assert meta["training"]["bc_teacher_options"] == {"rank_order": "0,1,2,3,4,5,6,8,7"}
    assert "--bc-teacher-option rank_order=0,1,2,3,4,5,6,8,7" in meta["training"]["command"]


def test_the_teacher_takes_its_parameters_after_its_name_as_every_agent_flag_does(tmp_path, capsys):
    """--bc-teacher pyanitsa/rule:rank_order=... is --bc-teacher pyanitsa/rule --bc-teacher-option
    rank_order=... (it was refused as "neither a registered agent nor a saved agent's path")."""
    out = tmp_path / "o"
    args = ["train", "pyanitsa", "-o", "collect_order=winner_chooses", "--skip-forced", "--out", str(out), *TINY,
            "--bc-samples", "2000", "--bc-teacher", "pyanitsa/rule:rank_order=[0,1,2,3,4,5,6,8,7]"]
    assert main(args) == 0
    assert "agreement with pyanitsa/rule(rank_order=[0, 1, 2, 3, 4, 5, 6, 8, 7])" in capsys.readouterr().out
    meta = json.loads((out / "agent" / "agent.json").read_text())
    assert meta["training"]["bc_teacher_options"] == {"rank_order": [0, 1, 2, 3, 4, 5, 6, 8, 7]}


def test_a_game_without_decisions_fails_cleanly(tmp_path, capsys):
    """P'yanitsa's default rules have no decision: with --skip-forced no deal reaches one; the run stops
    with exit 2, a message naming the options, and no output folder. (The vector env refuses it when
    made, Kernel.has_choices; it used to play 100 deals first.)"""
    out = tmp_path / "none"
    assert main(["train", "pyanitsa", "--skip-forced", "--out", str(out), *TINY]) == 2
    err = capsys.readouterr().err
    assert "skip_forced=True: pyanitsa with options" in err and "'collect_order': 'winner_first'" in err
    assert "has no decision with more than one legal action, so the learner would never act" in err
    assert not out.exists()


def test_a_failed_run_into_new_nested_folders_removes_the_folders_it_made(tmp_path, capsys):
    """--out a/b/c where only tmp_path exists: a failure with nothing saved removes a/ (the folders the
    run made), and leaves an existing parent alone."""
    (tmp_path / "keep").mkdir()
    for out, gone in [(tmp_path / "a" / "b" / "c", tmp_path / "a"), (tmp_path / "keep" / "x" / "y", tmp_path / "keep" / "x")]:
        assert main(["train", "pyanitsa", "--skip-forced", "--out", str(out), *TINY]) == 2  # fails building its env
        assert "has no decision with more than one legal action, so the learner would never act" in capsys.readouterr().err
        assert not gone.exists()
    assert (tmp_path / "keep").is_dir()


def test_a_one_deal_evaluation_says_n_a_not_nan(tmp_path, capsys):
    """With 1 deal a CI is undefined: the warm-start line, evaluation.md, the printed table and the
    next: line say "n/a (1 deal)" (arena.ci_text), never "+nan", and the next: line gives no verdict."""
    from rich.console import Console

    from cardzoo.training.selfplay import evaluation_table, next_step, train

    out = tmp_path / "run"
    summary = train(_tiny_cfg(out, total_steps=128, bc_samples=200, bc_epochs=1, bc_eval_deals=1, eval_deals=1))
    said = capsys.readouterr().out
    cloning = next(x for x in said.splitlines() if x.startswith("behaviour cloning:"))
    assert "over 1 duplicate deal:" in cloning and "per hand n/a (1 deal), win rate" in cloning, cloning
    rows = summary["evaluation"]
    assert [r["n_deals"] for r in rows] == [1] * len(rows) and len(rows) >= 2
    md = (out / "evaluation.md").read_text()
    assert md.count("n/a (1 deal)") == 2 * len(rows) and "nan" not in md
    con = Console(record=True, width=200)
    con.print(evaluation_table(rows, "t"))
    table = con.export_text()
    assert table.count("n/a (1 deal)") == 2 * len(rows) and "nan" not in table
    line = next_step("all_fours", rows, str(out / "agent"), str(out))
    assert "CI n/a (1 deal)" in line and "evaluate on more deals" in line and "--deals 2000" in line, line
    assert "nan" not in line and "beats" not in line and "loses" not in line and "level" not in line


@pytest.mark.parametrize(
    "args, cli, kw, api",
    [
        (["--eval-deals", "-1"], "--eval-deals must be >= 0, got -1", {"eval_deals": -1}, "eval_deals must be >= 0, got -1"),
        (["--steps", "0"], "--steps must be a positive int, got 0", {"total_steps": 0}, "total_steps must be a positive int, got 0"),
        (["--lr", "0"], "--lr must be a finite number > 0, got 0.0", {"learning_rate": 0.0}, "learning_rate must be a finite number > 0, got 0.0"),
        # inf and nan used to pass and fail in torch mid-training (nan) or train nothing (inf)
        (["--lr", "inf"], "--lr must be a finite number > 0, got inf", {"learning_rate": math.inf},
         "learning_rate must be a finite number > 0, got inf"),
        (["--ent-coef", "nan"], "--ent-coef must be a finite number >= 0, got nan", {"ent_coef": math.nan},
         "ent_coef must be a finite number >= 0, got nan"),
        (["--ent-coef", "inf"], "--ent-coef must be a finite number >= 0, got inf", {"ent_coef": math.inf},
         "ent_coef must be a finite number >= 0, got inf"),
        (["--clip-range", "nan"], "--clip-range must be a finite number > 0 and <= 1, got nan", {"clip_range": math.nan},
         "clip_range must be a finite number > 0 and <= 1, got nan"),
        (["--lr", "1e9", "--ent-coef=-inf"], "--ent-coef must be a finite number >= 0, got -inf", {"gamma": math.nan},
         "gamma must be a finite number >= 0 and <= 1, got nan"),
        (["--critic-warmup", "-1"], "--critic-warmup must be an int >= 0, got -1", {"critic_warmup_steps": -1},
         "critic_warmup_steps must be an int >= 0, got -1"),
        (["--opponents", "foe=1"], "--opponents: unknown opponent families ['foe']", {"opponents": {"foe": 1.0}},
         "opponents: unknown opponent families ['foe']"),
        (["--expert-rounds", "2", "-o", "episode=match"], "--expert-rounds=2 needs episodes that end with the deal",
         {"expert_rounds": 2, "env_options": {"episode": "match"}}, "give expert_rounds=0 or drop the match options"),
        # opponent weights: named by the flag; snapshot alone has no opponent to draw at the start
        (["--opponents", "random=-1"], "--opponents: each weight must be a finite number >= 0, got {'random': -1.0}",
         {"opponents": {"random": -1.0}}, "opponents: each weight must be a finite number >= 0, got {'random': -1.0}"),
        (["--opponents", "random=nan,rule=1"], "--opponents: each weight must be a finite number >= 0, got {'random': nan}",
         {"opponents": {"random": math.nan, "rule": 1.0}}, "opponents: each weight must be a finite number >= 0"),
        (["--opponents", "snapshot=1"], "--opponents snapshot=1: at least one opponent available from the start needs a "
         "weight > 0: random or rule (snapshot has no snapshots until the first is saved, every --snapshot-every rollouts), "
         "e.g. --opponents rule=0.5,snapshot=0.5", {"opponents": {"snapshot": 1.0}},
         "opponents snapshot=1: at least one opponent available from the start needs a weight > 0: random or rule "
         "(snapshot has no snapshots until the first is saved, every snapshot_every rollouts)"),
        (["--opponents", "rule"], "--opponents: 'rule' must look like NAME=NUMBER (e.g. rule=0.5)", {"opponents": {"rule": 0.0}},
         "opponents rule=0: at least one opponent available from the start"),
        (["--bc-teacher-option", "x"], "--bc-teacher-option 'x' must look like NAME=VALUE", {"opponents": {"random": 0.0, "snapshot": 1.0}},
         "opponents random=0,snapshot=1: at least one"),
        (["--bc-teacher", "nosuch"], "--bc-teacher 'nosuch' is neither a registered agent nor a saved agent's path (agents "
         "that play all_fours: ['all_fours/ismcts', 'all_fours/pimc', 'all_fours/pimc-bids', 'all_fours/ppo', 'all_fours/random', "
         "'all_fours/rule', 'lowest', 'random'])", {"bc_teacher": "nosuch", "bc_samples": 10},
         "bc_teacher 'nosuch' is neither a registered agent"),
    ],
)
def test_a_bad_option_is_named_as_typed(tmp_path, capsys, args, cli, kw, api):
    """cardzoo train names a bad option by the flag given (--eval-deals), TrainConfig by its field
    (eval_deals); nothing is written either way."""
    out = tmp_path / "o"
    assert main(["train", "all_fours", "--out", str(out), *TINY, *args]) == 2
    err = capsys.readouterr().err
    assert f"cardzoo train: error: {cli}" in err and "_" not in err.split("error:")[1].split("(")[0], err
    with pytest.raises((ValueError, FileNotFoundError), match=re.escape(api)):
        _tiny_cfg(out, **kw).validate()
    assert not out.exists()


@pytest.mark.parametrize(
    "args, said",
    [
        # search agents play from the game state: they were accepted, then cloning failed with a traceback
        (["--bc-teacher", "all_fours/pimc"], "--bc-teacher 'all_fours/pimc' plays from the game state, not from observations, "
         "so its games cannot be cloned; give a teacher that acts on observations (e.g. all_fours/rule), or learn from "
         "search with cardzoo label and distil (training/EXPERT.md)"),
        (["--bc-teacher", "all_fours/ismcts"], "--bc-teacher 'all_fours/ismcts' plays from the game state"),
        (["--bc-teacher", "all_fours/pimc-bids"], "--bc-teacher 'all_fours/pimc-bids' plays from the game state"),
        (["--bc-teacher", "all_fours/rule:params={}", "--bc-teacher-option", "params={}"],
         "--bc-teacher 'all_fours/rule:params={}' and --bc-teacher-option both give ['params']; give each once"),
    ],
)
def test_a_teacher_that_cannot_be_cloned_is_refused_before_anything_is_touched(tmp_path, capsys, args, said):
    """With --overwrite, the earlier run stays: the teacher is checked before it is deleted (a search
    teacher used to pass the checks, the earlier run was deleted, then cloning failed)."""
    out = tmp_path / "o"
    assert main(["train", "all_fours", "--out", str(out), *TINY]) == 0
    before = _files(out)
    capsys.readouterr()
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--bc-samples", "100", "--overwrite", *args]) == 2
    assert f"cardzoo train: error: {said}" in capsys.readouterr().err
    assert _files(out) == before


def test_a_large_finite_learning_rate_is_accepted(tmp_path):
    """Only non-finite floats are refused: there is no upper bound on the learning rate."""
    _tiny_cfg(tmp_path / "o", learning_rate=1e9, gae_lambda=1.0, gamma=0.0, ent_coef=0.0).validate()


def test_every_flag_named_in_errors_is_a_train_flag():
    """config.FLAGS (the flag of each TrainConfig option set from the command line) matches cardzoo
    train's parser: every flag exists, and every flag of the parser is listed."""
    import argparse
    import dataclasses

    from cardzoo.training.cli import build_parser
    from cardzoo.training.config import FLAGS, flag

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["train"]
    strings = {s for a in sub._actions for s in a.option_strings} | {"GAME"}
    assert set(FLAGS.values()) <= strings, set(FLAGS.values()) - strings
    named = {s for a in sub._actions if a.option_strings and a.dest != "help" for s in a.option_strings[:1]}
    assert named - {"--option"} <= set(FLAGS.values()), named - set(FLAGS.values())  # -o is --option's short form
    assert set(FLAGS) <= {f.name for f in dataclasses.fields(TrainConfig)}
    assert flag("eval_deals") == "--eval-deals" and flag("total_steps") == "--steps" and flag("n_epochs") == "n_epochs"


def _files(folder) -> dict:
    """Every file under ``folder`` with its bytes, and every sub-folder."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in folder.rglob("*")}


def test_resume_under_other_settings_is_refused_and_changes_nothing(tmp_path, capsys):
    """--resume with other game options, another --skip-forced or another game than the run's is
    refused naming each difference (the run's value, the given one) and the fix; nothing in --out
    changes. --change-options continues under other game options on purpose, and the agent records
    them with the steps in all (as the summary and the history do)."""
    out = tmp_path / "run"
    assert main(["train", "all_fours", "--out", str(out), *TINY]) == 0
    capsys.readouterr()
    before = _files(out)
    resume = ["--out", str(out), *TINY, "--resume", str(out / "model.zip")]
    assert main(["train", "all_fours", *resume, "-o", "undertrump=forbidden"]) == 2
    err = capsys.readouterr().err
    assert "game option undertrump: the run's 'allowed', given 'forbidden'" in err and str(out / "agent" / "agent.json") in err
    assert "drop the -o options (the run had none)" in err and "add --change-options" in err
    assert main(["train", "all_fours", *resume, "--skip-forced", "-o", "target_score=11"]) == 2
    err = capsys.readouterr().err
    assert "game option target_score: the run's 14, given 11; --skip-forced: the run's False, given True" in err
    assert "drop the -o options (the run had none) and drop --skip-forced" in err
    assert main(["train", "pyanitsa", *resume]) == 2  # a model of another game: named before SB3 would say it
    err = capsys.readouterr().err
    assert "that model was trained for all_fours" in err and "402 numbers and has 56 actions, pyanitsa here 195 and 37" in err
    with pytest.raises(ValueError, match=re.escape("give the run's env_options={}")):  # from Python: the field names
        _tiny_cfg(out, resume=str(out / "model.zip"), env_options={"undertrump": "forbidden"}, net_arch=[256, 256]).validate()
    with pytest.raises(ValueError, match=re.escape("net_arch: the run's [256, 256], given [16]")):
        _tiny_cfg(out, resume=str(out / "model.zip")).validate()
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--change-options"]) == 2
    assert "--change-options goes with --resume" in capsys.readouterr().err
    assert _files(out) == before
    # on purpose: the run continues under the new options and says so
    assert main(["train", "all_fours", *resume, "-o", "undertrump=forbidden", "--change-options"]) == 0
    assert "trained 256 more steps (512 in all)" in capsys.readouterr().out
    meta = json.loads((out / "agent" / "agent.json").read_text())
    assert meta["env_options"] == {"undertrump": "forbidden"} and meta["game_options"]["undertrump"] == "forbidden"
    resumed = {"model": str(out / "model.zip"), "steps": 256, "env_options": {},
               "command": "cardzoo train all_fours --out " + str(out) + " " + " ".join(TINY),  # the first run's
               "seconds_in_all": meta["training"]["resumed_from"]["seconds_in_all"]}
    assert meta["training"]["resumed_from"] == resumed and meta["training"]["change_options"] is True
    summary = json.loads((out / "summary.json").read_text())
    history = json.loads((out / "history.json").read_text())
    assert summary["steps"] == meta["training"]["steps"] == history[-1]["steps"] == 512 and summary["resumed_from"] == resumed


def test_resuming_a_model_of_another_game_names_both_spaces(tmp_path):
    """A model zip with no agent saved beside it (so no recorded run) is checked against the env
    before SB3 loads it: another game's model is refused naming the file and both observation
    shapes and action counts, a file that is no model zip naming what is expected; nothing written."""
    from cardzoo.training.selfplay import train

    run = tmp_path / "run"
    train(_tiny_cfg(run, total_steps=128))
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "m.zip").write_bytes((run / "model.zip").read_bytes())
    before = _files(alone)
    message = (f"cannot resume {alone / 'm.zip'}: that model was trained for another game or other game options: it reads "
               "observations of shape (402,) and has 56 actions, but pyanitsa with the game options {} gives (195,) and 37")
    with pytest.raises(ValueError, match=re.escape(message)):
        train(_tiny_cfg(alone, game="pyanitsa", resume=str(alone / "m.zip")))
    # the network comes from the zip, and the agent saved from it records the run's: they must agree
    message = (f"cannot resume {alone / 'm.zip'}: its network is net_arch=[16], activation ReLU, but this run has "
               "net_arch=[32], activation='relu'")
    with pytest.raises(ValueError, match=re.escape(message)):
        train(_tiny_cfg(alone, net_arch=[32], resume=str(alone / "m.zip")))
    with pytest.raises(ValueError, match=re.escape("its network is net_arch=[16], activation ReLU, but this run has net_arch=[16], activation='tanh'")):
        train(_tiny_cfg(alone, activation="tanh", resume=str(alone / "m.zip")))
    (alone / "bad.zip").write_text("not a zip")
    with pytest.raises(ValueError, match=re.escape(f"cannot resume {alone / 'bad.zip'}: the file is not a readable zip (File is not a zip file): "
                                                 "damaged or cut short") + ".* or not a model saved by cardzoo train$"):
        train(_tiny_cfg(alone, resume=str(alone / "bad.zip")))
    assert _files(alone) == before | {"bad.zip": b"not a zip"}


def test_resume_from_an_earlier_checkpoint_into_the_same_out_is_refused(tmp_path, capsys):
    """Resuming checkpoint 128 of a run whose --out holds checkpoints 256 would branch the run and leave
    the abandoned branch's later checkpoints beside the new ones: refused before anything is written,
    naming them and the two fixes, both of which work. A resume with --eval-deals 0 renames the earlier
    evaluation (it describes the agent before the resume) to evaluation_before_resume.*."""
    out = tmp_path / "run"
    i = TINY.index("--eval-deals")
    flags = TINY[:i] + TINY[i + 2:] + ["--checkpoint-every", "128"]
    assert main(["train", "all_fours", "--out", str(out), *flags, "--eval-deals", "2"]) == 0
    capsys.readouterr()
    ck = out / "checkpoints"
    assert sorted(p.name for p in ck.iterdir()) == ["agent_128", "agent_256", "model_128.zip", "model_256.zip"]
    before = _files(out)
    early = ck / "model_128.zip"
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--resume", str(early)]) == 2
    err = capsys.readouterr().err
    assert (f"cannot resume {early} into --out {out}: {ck} holds later checkpoints of that run (agent_256, model_256.zip)"
            in err), err
    assert f"Either resume from the latest (--resume {ck / 'model_256.zip'}), or resume into a new --out (--out NEW --resume {early})" in err
    assert _files(out) == before
    # into a new --out: works, and the old run is untouched
    new = tmp_path / "branch"
    assert main(["train", "all_fours", "--out", str(new), *TINY, "--resume", str(early)]) == 0
    assert "trained 256 more steps (384 in all)" in capsys.readouterr().out
    assert (new / "agent" / "agent.json").is_file() and _files(out) == before
    # from the latest into the same --out: works; the earlier evaluation is set aside, not left as if it were the new agent's
    old_eval = (out / "evaluation.md").read_text()
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--resume", str(ck / "model_256.zip")]) == 0
    said = capsys.readouterr().out
    assert (f"{out}: the earlier evaluation describes the agent before this resume: renamed to evaluation_before_resume.md "
            f"and evaluation_before_resume.json (--eval-deals 0: no new evaluation)") in said
    assert not (out / "evaluation.md").exists() and not (out / "evaluation.json").exists()
    assert (out / "evaluation_before_resume.md").read_text() == old_eval


def test_resuming_a_lone_model_zip_says_what_was_not_checked(tmp_path, capsys):
    """A model zip with no agent folder beside it (nothing records its run's options) resumes with one line
    saying the game options and settings could not be compared; the sizes were."""
    import shutil

    out = tmp_path / "run"
    assert main(["train", "all_fours", "--out", str(out), *TINY]) == 0
    lone = tmp_path / "lone" / "model.zip"
    lone.parent.mkdir()
    shutil.copy(out / "model.zip", lone)
    capsys.readouterr()
    assert main(["train", "all_fours", "--out", str(tmp_path / "more"), *TINY, "--resume", str(lone)]) == 0
    said = capsys.readouterr().out
    assert (f"resuming {lone}: no agent folder beside it records its run, so its game options and settings "
            f"(--skip-forced, --privileged-critic, network) could not be compared with this run's; only its "
            f"observation and action sizes were checked (they match)") in said
    # with its agent beside it, no such line
    assert main(["train", "all_fours", "--out", str(tmp_path / "more2"), *TINY, "--resume", str(out / "model.zip")]) == 0
    assert "no agent folder beside it" not in capsys.readouterr().out


def test_resuming_another_runs_model_into_a_folder_with_a_run_is_refused_and_changes_nothing(tmp_path, capsys):
    """`cardzoo train all_fours --resume A/model.zip --out B`, B holding its own run, trained on and replaced
    B's agent, model and evaluation (exit 0, no warning): a run overwrote another. It is refused now, before
    anything is written; into a new folder the same resume is fine."""
    import hashlib

    a, b = tmp_path / "A", tmp_path / "B"
    for out in (a, b):
        assert main(["train", "all_fours", "--out", str(out), *TINY]) == 0
    files = sorted(p for p in b.rglob("*") if p.is_file())
    before = {p: hashlib.md5(p.read_bytes()).hexdigest() for p in files}
    capsys.readouterr()
    assert main(["train", "all_fours", "--out", str(b), *TINY, "--resume", str(a / "model.zip")]) == 2
    err = capsys.readouterr().err
    assert f"--out {b} holds another run (" in err and f"--resume {a / 'model.zip'} is not one of its models" in err
    assert sorted(p for p in b.rglob("*") if p.is_file()) == files
    assert {p: hashlib.md5(p.read_bytes()).hexdigest() for p in files} == before


def test_resume_from_a_model_older_than_out_model_zip_is_refused(tmp_path, capsys):
    """--out's model.zip went further than the checkpoint resumed (a resume of the latest checkpoint
    ran on): resuming that checkpoint again into --out would replace the later model.zip, agent, history
    and summary. Refused naming model.zip and both step counts and the two fixes; nothing written.
    Resuming the latest checkpoint while model.zip has the same steps, and model.zip itself, stay fine."""
    out = tmp_path / "run"
    ck = out / "checkpoints" / "model_256.zip"
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--checkpoint-every", "256"]) == 0
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--resume", str(ck)]) == 0  # same steps as model.zip
    capsys.readouterr()
    before = _files(out)
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--resume", str(ck)]) == 2
    err = capsys.readouterr().err
    assert (f"cannot resume {ck} (256 steps) into --out {out}: {out / 'model.zip'} holds a later model of 512 steps, "
            f"which this run would replace (with its agent, history and summary). Either resume from it (--resume "
            f"{out / 'model.zip'}), or resume into a new --out (--out NEW --resume {ck}) to keep both") in err, err
    assert _files(out) == before
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--resume", str(out / "model.zip")]) == 0
    assert json.loads((out / "summary.json").read_text())["steps"] == 768


def test_a_diverging_run_fails_with_a_short_message_and_leaves_no_folder(tmp_path, capsys):
    """--lr 1e9 makes the policy's logits NaN: exit 2 with one short line (no NaN tensor printed) naming
    the steps and the learning rate; nothing of the diverged model is saved, so the folder this run created
    is gone. Resumed into an earlier run's --out, the earlier run (checkpoints and all) is left as it was."""
    out = tmp_path / "run"
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--lr", "1e9"]) == 2
    err = capsys.readouterr().err
    assert "cardzoo train: error: training diverged: the policy's outputs became NaN after " in err, err
    assert "steps; lower --lr (1e+09 given)" in err and "tensor(" not in err
    assert not out.exists()
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--checkpoint-every", "256"]) == 0
    before = _files(out)
    capsys.readouterr()
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--lr", "1e9", "--resume", str(out / "model.zip")]) == 2
    err = capsys.readouterr().err
    assert "training diverged" in err and "tensor(" not in err
    assert f"The checkpoints in {out / 'checkpoints'} (model_256.zip) are kept" in err
    assert _files(out) == before


def test_an_opponent_family_given_twice_is_refused(tmp_path, capsys):
    """--opponents random=1,random=1 named a family twice and the last weight silently won: refused
    naming the entry; nothing written."""
    out = tmp_path / "run"
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--opponents", "random=1,rule=0.5,random=0.2"]) == 2
    err = capsys.readouterr().err
    assert ("--opponents random=1,rule=0.5,random=0.2: 'random' is given twice ('random=0.2'); give each family once"
            in err), err
    assert not out.exists()


def test_the_refusal_of_an_existing_out_names_only_what_can_be_resumed(tmp_path):
    """The refusal of an --out holding an earlier run names the model zips there that --resume can take
    (model.zip, the latest checkpoint unless model.zip went further), and none when there is none (a run
    killed before saving: no model.zip; no checkpoints/): then it says there is nothing to resume."""
    import shutil

    from cardzoo.training.selfplay import train

    src = tmp_path / "src"
    train(_tiny_cfg(src, total_steps=128))
    out = tmp_path / "out"
    (out / "tb").mkdir(parents=True)
    with pytest.raises(FileExistsError) as e:
        check_out_folder(out)
    assert str(e.value) == (f"--out {out} holds an earlier run (tb) with nothing to resume in it (no model.zip, no "
                            f"checkpoints/model_N.zip): give --overwrite to delete it and start afresh, or another --out")
    (out / "checkpoints").mkdir()
    for n in (64, 128):
        shutil.copy(src / "model.zip", out / "checkpoints" / f"model_{n}.zip")
    with pytest.raises(FileExistsError, match=re.escape(f"give --resume {out / 'checkpoints' / 'model_128.zip'} to continue it, "
                                                        "--overwrite")):
        check_out_folder(out)
    shutil.copy(src / "model.zip", out / "model.zip")  # same steps as the latest checkpoint: both resumable
    with pytest.raises(FileExistsError, match=re.escape(
            f"give --resume {out / 'model.zip'} (or {out / 'checkpoints' / 'model_128.zip'}) to continue it")):
        check_out_folder(out)


@pytest.mark.parametrize("trained, given, fix", [(False, True, "drop"), (True, False, "add")])
def test_a_lone_zip_resumed_with_the_other_privileged_critic_setting_says_so(tmp_path, capsys, trained, given, fix):
    """A lone model zip (no agent beside it) whose observation width is this game's with the other
    --privileged-critic setting: the refusal says so and to drop (or add) the flag, not that the model
    was trained for another game."""
    import shutil

    from cardzoo.training.selfplay import train

    run = tmp_path / "run"
    train(_tiny_cfg(run, total_steps=128, privileged_critic=trained, net_arch=[256, 256]))  # the CLI's network
    lone = tmp_path / "lone" / "m.zip"
    lone.parent.mkdir()
    shutil.copy(run / "model.zip", lone)
    out = tmp_path / "more"
    argv = ["train", "all_fours", "--out", str(out), *TINY, "--resume", str(lone)] + (["--privileged-critic"] if given else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    had = "with" if trained else "without"
    assert f"cannot resume {lone}: that model was trained {had} the privileged critic: it reads observations of shape" in err, err
    assert f"Resume it {had} the privileged critic: {fix} --privileged-critic" in err and "another game" not in err
    assert not out.exists()


def test_init_from_a_registry_name_names_the_shipped_folder(tmp_path, capsys):
    """`--init-from all_fours/ppo` said only "no saved agent there"; --init-from takes a folder, and the
    error now gives the shipped agent's folder (or what a folder looks like for other names)."""
    from cardzoo.agents.registry import shipped_path

    assert main(["train", "all_fours", "--out", str(tmp_path / "r"), *TINY, "--init-from", "all_fours/ppo"]) == 2
    assert capsys.readouterr().err == (
        "cardzoo train: error: cannot initialise from all_fours/ppo: no saved agent there; --init-from takes a saved "
        f"agent's folder: the shipped all_fours/ppo is {shipped_path('all_fours/ppo')}\n")
    assert main(["train", "all_fours", "--out", str(tmp_path / "r"), *TINY, "--init-from", str(tmp_path / "nothing")]) == 2
    assert capsys.readouterr().err.endswith(
        "; --init-from takes a saved agent's folder (e.g. runs/GAME/agent, or agents/shipped/GAME_ppo in the package)\n")
    assert not (tmp_path / "r").exists()


def test_train_says_up_front_what_it_will_run(tmp_path, capsys):
    """cardzoo train rounded --steps up to whole rollouts (n_envs x n_steps) and said so only at the end
    ("runs end on a whole rollout"); --bc-samples 2,000 cloned 13,050 decisions (1,024 teacher games at once, each
    kept whole) and the clone was checked over 500 deals even with --eval-deals 4. Now a plan is printed first
    (what was asked, what runs, why), the teacher plays at most one game per 48 decisions asked, the cloning line
    says how many decisions it used, and the check uses --eval-deals deals where fewer than 500."""
    out = tmp_path / "run"
    argv = ["train", "all_fours", "--out", str(out), "--steps", "3000", "--n-envs", "16", "--bc-samples", "2000",
            "--bc-epochs", "1", "--eval-deals", "4", "--torch-threads", "1", "--expert-rounds", "0"]
    assert main(argv) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[:3] == [
        "plan: behaviour cloning of all_fours/rule on 2,000 decisions (--bc-samples; whole games are kept, so a few more), "
        "checked against all_fours/rule over 4 duplicate deals (500, or --eval-deals if fewer)",
        "      PPO for 3,072 steps: --steps 3,000 rounded up to whole rollouts (PPO learns from whole ones), 3 rollouts "
        "of --n-envs 16 games x --n-steps 64 steps = 1,024 steps",
        "      evaluation over 4 duplicate deals per opponent (--eval-deals)",
    ]
    cloning = next(x for x in said if x.startswith("behaviour cloning:"))
    n = int(cloning.split()[2].replace(",", ""))
    assert 2000 <= n <= 3000 and "(2,000 asked, rounded up to whole games)" in cloning, cloning
    assert "against all_fours/rule over 4 duplicate deals" in cloning
    assert json.loads((out / "summary.json").read_text())["steps"] == 3072
    assert any(x.startswith("trained 3,072 steps in ") for x in said)


def test_train_says_when_the_game_has_no_decision_to_learn(capsys):
    """cardzoo train pyanitsa (default rules: every move a forced FLIP) trained and evaluated an agent that plays like
    every other (+0.000 against both opponents) and was told to 'train longer'; the plan now says there is no
    decision to learn and names a variant with choices. Games with choices get no such note."""
    from cardzoo.training.commands import _train_plan

    plan = _train_plan(TrainConfig(game="pyanitsa", bc_samples=0, expert_rounds=0))
    assert plan[-1] == ("note: pyanitsa under these options has no decision to learn: every move is forced (one legal move "
                        "each), so every agent plays alike; train a variant with choices, e.g. -o collect_order=winner_chooses "
                        "--skip-forced (training/README.md)")
    chooses = TrainConfig(game="pyanitsa", bc_samples=0, expert_rounds=0, env_options={"collect_order": "winner_chooses"})
    assert not any(line.startswith("note:") for line in _train_plan(chooses))
    assert not any(line.startswith("note:") for line in _train_plan(TrainConfig()))


def test_a_damaged_or_missing_resume_model_names_the_path_and_the_runs_other_models(tmp_path):
    from cardzoo.training.selfplay import train

    out = tmp_path / "run"
    train(_tiny_cfg(out, checkpoint_every=128))  # checkpoints at 128 and 256 steps, model.zip at 256
    model, ck = out / "model.zip", out / "checkpoints" / "model_256.zip"
    good = model.read_bytes()
    assert len(good) > 100_000
    import zipfile

    at = zipfile.ZipFile(model).getinfo("policy.pth").header_offset + 200
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))

    def refused(match: str):
        with pytest.raises(ValueError, match=match) as e:
            train(_tiny_cfg(out, resume=str(model)))
        text = str(e.value)
        assert text.startswith(f"cannot resume {model}: ") and f"({ck}) or start afresh (--overwrite)" in text
        assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before  # nothing written
        return text

    model.write_bytes(good[:100_000])  # cut short: the zip's directory is gone
    refused("holds no whole model .* damaged or cut short")
    model.write_bytes(good[:at] + bytes(100) + good[at + 100:])  # zeros written over the start of policy.pth's data
    refused("the file is damaged: its entry 'policy.pth' fails its checksum")
    model.write_bytes(b"")
    refused("not a readable zip")
    # --resume the run folder itself, or a checkpoint that is not there: say which models there are
    model.write_bytes(good)
    with pytest.raises(FileNotFoundError) as e:
        train(_tiny_cfg(out, resume=str(out)))
    assert str(e.value) == (f"cannot resume {out}: it is a folder, not a model file; give one of the run's models: "
                            f"--resume {model} or --resume {ck}")
    with pytest.raises(FileNotFoundError) as e:
        train(_tiny_cfg(out, resume=str(out / "checkpoints" / "model_5.zip")))
    assert str(e.value) == (f"cannot resume {out / 'checkpoints' / 'model_5.zip'}: no such file; give one of the run's "
                            f"models: --resume {model} or --resume {ck}")


def test_agent_json_keeps_the_cost_and_commands_of_interrupted_and_resumed_runs(tmp_path, monkeypatch):
    """An interrupted run's agent records its seconds (and, in the cloning, that the cloning was cut);
    a resumed run's agent keeps the earlier run's command and seconds in ``resumed_from`` (a chain
    over several resumes) and ``seconds_in_all`` sums them."""
    from cardzoo.training import imitation
    from cardzoo.training.selfplay import TrainingInterrupted, train

    out = tmp_path / "run"

    def cut(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(imitation, "pretrain", cut)  # Ctrl-C in the behaviour cloning
    with pytest.raises(TrainingInterrupted) as e:
        train(_tiny_cfg(out, bc_samples=300, command="cardzoo train first"))
    first = json.loads((e.value.agent / "agent.json").read_text())["training"]
    assert e.value.steps == 0 and first["behaviour_cloning"] == {"interrupted": True} and first["interrupted"] is True
    assert first["command"] == "cardzoo train first" and isinstance(first["seconds"], float) and "seconds_in_all" not in first
    monkeypatch.undo()
    # resumed (no cloning), then interrupted in PPO after one rollout and 3 steps
    with pytest.raises(TrainingInterrupted) as e2:
        train(_tiny_cfg(out, total_steps=1024, resume=str(e.value.model), command="cardzoo train second"),
              callback=_interrupt_at(8 + 3))
    second = json.loads((e2.value.agent / "agent.json").read_text())["training"]
    assert second["command"] == "cardzoo train second" and second["steps"] == 128 + 3 * 16
    assert second["resumed_from"] == {"model": str(e.value.model), "steps": 0, "command": "cardzoo train first",
                                      "seconds_in_all": first["seconds"], "behaviour_cloning": {"interrupted": True}}
    assert second["seconds_in_all"] == round(first["seconds"] + second["seconds"], 1)
    summary = train(_tiny_cfg(out, total_steps=128, resume=str(e2.value.model), command="cardzoo train third"))
    third = json.loads((out / "agent" / "agent.json").read_text())["training"]
    assert third["command"] == "cardzoo train third" and third["steps"] == 176 + 128 and "behaviour_cloning" not in third
    assert third["resumed_from"] == {"model": str(e2.value.model), "steps": 176, "command": "cardzoo train second",
                                     "seconds_in_all": second["seconds_in_all"], "resumed_from": second["resumed_from"]}
    assert third["seconds_in_all"] == summary["seconds_in_all"] == round(second["seconds_in_all"] + third["seconds"], 1)


def test_a_folder_in_use_is_named_in_use_before_its_files_are_judged(tmp_path, capsys):
    """A run in progress has written tb/ (and maybe checkpoints) already: a second run into its --out was
    told the folder 'holds an earlier run ... give --overwrite to delete it'; it is now told the folder is
    in use, with or without --overwrite, and nothing there changes."""
    import socket

    out = tmp_path / "busy"
    (out / "tb").mkdir(parents=True)
    (out / "tb" / "events").write_text("x")
    (out / ".run.lock").write_text(f"{os.getpid()} {socket.gethostname()}")  # a live run (this process) holds it
    said = (f"--out {out} is in use by another training run (process {os.getpid()} on {socket.gethostname()}; lock file "
            f"{out / '.run.lock'}): wait for it, give another --out, or delete the lock file if no run is using the folder")
    for extra in ([], ["--overwrite"]):
        assert main(["train", "all_fours", "--out", str(out), *TINY, *extra]) == 2
        assert capsys.readouterr().err.strip() == f"cardzoo train: error: {said}"
        assert (out / "tb" / "events").read_text() == "x" and (out / ".run.lock").is_file()
    with pytest.raises(FileExistsError, match=re.escape(said)):
        check_out_folder(out)


def test_the_next_line_of_a_game_without_choices_does_not_say_train_longer(tmp_path, capsys):
    """pyanitsa's default rules (every move forced): the evaluation (20 deals) is exactly 0 against random and
    the rule bot; the last line said 'level with the rule bot (CI [+0.000, +0.000]): train longer'."""
    out = tmp_path / "py"
    at = TINY.index("--eval-deals")
    tiny = TINY[:at] + ["--eval-deals", "20"] + TINY[at + 2:]
    assert main(["train", "pyanitsa", "--out", str(out), *tiny]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == ("next: every result is exactly 0 on every deal, against random too: under these options the agent's "
                    "moves change nothing (every move forced?), so training longer cannot help; train a variant with "
                    "choices (e.g. -o collect_order=winner_chooses --skip-forced)")
    from cardzoo.training.selfplay import next_step

    rows = json.loads((out / "evaluation.json").read_text())
    assert [(r["opponent"], r["mean_diff"], r["n_deals"]) for r in rows] == [("random", 0.0, 20), ("pyanitsa/rule", 0.0, 20)]
    moved = [dict(r, mean_diff=0.5, diff_ci=[0.1, 0.9]) if r["opponent"] == "random" else r for r in rows]
    assert next_step("pyanitsa", moved, "A", "O").startswith("next: level with the rule bot")  # one real result: as before
    few = [dict(r, n_deals=19) for r in rows]  # too few deals to tell
    assert next_step("pyanitsa", few, "A", "O").startswith("next: level with the rule bot")


def test_init_from_an_agent_of_another_observation_or_a_run_folder_is_refused_up_front(tmp_path, capsys):
    """--init-from the 3-player P'yanitsa agent into a 2-player run was accepted: the first layer was cut
    from 236 inputs to 195 and PPO started from weights that read other features. Now refused before
    anything, naming both layouts and the fix; a run's folder in place of its agent names the agent."""
    from cardzoo.agents.registry import SHIPPED

    three = str(Path(SHIPPED) / "pyanitsa_ppo_3p")
    out = tmp_path / "p2"
    assert main(["train", "pyanitsa", "-o", "collect_order=winner_chooses", "--init-from", three, "--out", str(out), *TINY]) == 2
    err = capsys.readouterr().err
    assert (f"cannot start this run from {three}: that agent was trained for pyanitsa with the game options "
            "{'collect_order': 'winner_chooses', 'num_players': 3}, whose observation (236 features, layout ") in err
    assert ("is not this run's ({'collect_order': 'winner_chooses'}: 195 features, layout " in err
            and "give --init-from an agent trained for these options, or train with its options "
                "(-o collect_order=winner_chooses -o num_players=3)" in err)
    assert not out.exists()
    run = tmp_path / "run"
    assert main(["train", "all_fours", "--out", str(run), *TINY]) == 0
    capsys.readouterr()
    assert main(["train", "all_fours", "--init-from", str(run), "--out", str(tmp_path / "b"), *TINY]) == 2
    assert f"it holds a training run, whose agent is {run / 'agent'}" in capsys.readouterr().err
    assert not (tmp_path / "b").exists()
    # the fitting agent still starts the run
    assert main(["train", "pyanitsa", "-o", "collect_order=winner_chooses", "-o", "num_players=3", "--init-from", three,
                 "--out", str(tmp_path / "p3"), *TINY]) == 0
    assert "note: --init-from" not in capsys.readouterr().out
    # other options with the same observation: it starts, and one note says so
    assert main(["train", "all_fours", "-o", "undertrump=forbidden", "--init-from", str(run / "agent"),
                 "--out", str(tmp_path / "u"), *TINY]) == 0
    assert (f"note: --init-from {run / 'agent'} was trained for other options (undertrump: trained 'allowed', here "
            "'forbidden'); its actor starts this run under this run's options all the same") in capsys.readouterr().out


def test_ctrl_c_in_the_final_evaluation_says_the_training_is_done_and_how_to_evaluate(tmp_path, capsys, monkeypatch):
    """Ctrl-C in the final evaluation printed "continue with: ... --resume OUT/model.zip --steps 256", which would
    train the whole budget again: it now says the training had finished and was saved, and prints the cardzoo
    arena command that evaluates the agent (exit 130; the agent and model are kept)."""
    import shlex

    from cardzoo.training import selfplay

    def cut(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(selfplay, "evaluate", cut)
    out = tmp_path / "run"
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--eval-deals", "4"]) == 130
    err = capsys.readouterr().err
    assert "interrupted in the final evaluation, after the training had finished (256 PPO steps) and was saved" in err
    assert "continue with" not in err and "--steps" not in err, err
    assert f"trained agent:    {out / 'agent'}" in err and f"model:            {out / 'model.zip'}" in err
    assert (out / "agent" / "agent.json").is_file() and (out / "model.zip").is_file()
    assert "evaluation" not in json.loads((out / "summary.json").read_text())
    line = next(x for x in err.splitlines() if "evaluate it with:" in x).split("evaluate it with:")[1].strip()
    assert line == f"cardzoo arena all_fours {out / 'agent'} all_fours/rule random --deals 4"
    monkeypatch.undo()
    assert main(shlex.split(line)[1:]) == 0


def test_the_end_of_train_line_names_the_whole_run_and_the_ppo_time(tmp_path, capsys):
    """"trained N steps in S s (R env steps/s)" mixed two spans (S: the run up to the end of PPO, cloning included;
    R: over PPO's time only): the line now gives both, as summary.json's seconds and ppo_seconds."""
    out = tmp_path / "run"
    assert main(["train", "all_fours", "--out", str(out), *TINY, "--bc-samples", "200", "--bc-epochs", "1"]) == 0
    said = capsys.readouterr().out
    s = json.loads((out / "summary.json").read_text())
    assert s["ppo_seconds"] <= s["seconds"]
    line = next(x for x in said.splitlines() if x.startswith("trained "))
    m = re.fullmatch(r"trained 256 steps in ([\d.]+) s \(PPO: ([\d.]+) s, ([\d,]+) env steps/s incl\. opponents and updates\)",
                     line)
    assert m, line
    assert math.isclose(float(m[1]), s["seconds"], abs_tol=0.5) and math.isclose(float(m[2]), s["ppo_seconds"], abs_tol=0.5)
    assert int(m[3].replace(",", "")) == round(s["steps_per_second"])


def test_the_continue_command_drops_abbreviated_overwrite_and_steps(tmp_path, capsys, monkeypatch):
    """argparse takes a unique prefix of an option, so `cardzoo train ... --over --st 256` ran with --overwrite and
    --steps 256; Ctrl-C then printed "continue with: cardzoo train ... --over --st 256 ... --resume MODEL --steps N",
    which was refused ("--resume and --overwrite exclude each other"). The printed command drops abbreviated
    --overwrite/--steps/--resume as it drops the full names, and it runs."""
    import shlex

    from cardzoo.training import selfplay

    real = selfplay.train
    monkeypatch.setattr(selfplay, "train", lambda cfg: real(cfg, callback=_interrupt_at(2)))
    out = tmp_path / "run"
    tiny = [t for t in TINY if t not in ("--steps", "256")]
    assert main(["train", "all_fours", "--out", str(out), *tiny, "--over", "--st", "256"]) == 130
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "continue with:" in x).split("continue with:")[1].strip()
    model = out / "checkpoints" / "model_32.zip"
    words = shlex.split(line)
    assert "--over" not in words and "--st" not in words and line.endswith(f"--resume {model} --steps 224"), line
    monkeypatch.setattr(selfplay, "train", real)
    assert main(words[1:]) == 0
    assert json.loads((out / "summary.json").read_text())["steps"] >= 224


_SEED = "an int from 0 to 4294967295 (2**32 - 1, the seeds SB3 and torch take)"
_OPPONENTS = "a dict of opponent family to weight, e.g. {'random': 0.2, 'rule': 0.5, 'snapshot': 0.3}"
_ARCH = "net_arch must be a non-empty list of layer sizes, ints >= 1 (e.g. [256, 256]), got "


@pytest.mark.parametrize(
    "kw, api, cli",
    [
        # a bool is no number (expert_rounds=True was refused, these were taken as 1)
        ({"total_steps": True}, "total_steps must be a positive int, got True", "--steps must be a positive int, got True"),
        ({"n_envs": True}, "n_envs must be a positive int, got True", "--n-envs must be a positive int, got True"),
        ({"torch_threads": True}, "torch_threads must be a positive int, got True", None),
        ({"critic_warmup_steps": True}, "critic_warmup_steps must be an int >= 0, got True",
         "--critic-warmup must be an int >= 0, got True"),
        ({"learning_rate": True}, "learning_rate must be a finite number > 0, got True", None),
        # options that were not checked at all
        ({"seed": -1}, f"seed must be {_SEED}, got -1", f"--seed must be {_SEED}, got -1"),
        ({"seed": 2**32}, f"seed must be {_SEED}, got 4294967296", None),
        ({"seed": "x"}, f"seed must be {_SEED}, got 'x'", None),
        ({"seed": None}, f"seed must be {_SEED}, got None", None),
        ({"seed": 1.5}, f"seed must be {_SEED}, got 1.5", None),
        ({"bc_samples": 1.5}, "bc_samples must be an int >= 0 (0: no cloning), got 1.5", None),
        ({"bc_epochs": 2.5}, "bc_epochs must be a positive int, got 2.5", None),
        ({"eval_deals": 2.5}, "eval_deals must be an int >= 0, got 2.5", "--eval-deals must be an int >= 0, got 2.5"),
        ({"bc_eval_deals": -5}, "bc_eval_deals must be an int >= 0 (0: no check of the cloned policy), got -5", None),
        ({"max_snapshots": -1}, "max_snapshots must be a positive int, got -1", None),
        ({"net_arch": "256,256"}, _ARCH + "the str '256,256'", None),
        ({"net_arch": [0]}, _ARCH + "[0]", None),
        ({"net_arch": []}, _ARCH + "[]", None),
        ({"net_arch": [64, 2.5]}, _ARCH + "[64, 2.5]", None),
        ({"activation": "bogus"}, "activation must be 'relu' or 'tanh', got 'bogus'", None),  # was a KeyError in training
        ({"activation": None}, "activation must be 'relu' or 'tanh', got None", None),
        # a str or int for an on/off setting: "no" counted as on
        ({"skip_forced": "no"}, "skip_forced must be True or False, got the str 'no'", "--skip-forced must be True or False"),
        ({"privileged_critic": 1}, "privileged_critic must be True or False, got the int 1", None),
        ({"overwrite": "yes"}, "overwrite must be True or False, got the str 'yes'", None),
        ({"change_options": None}, "change_options must be True or False, got None", None),
        ({"bc_until_converged": 0}, "bc_until_converged must be True or False, got the int 0", None),
        ({"compare_shipped": "False"}, "compare_shipped must be True or False, got the str 'False'", None),
        # raw errors: "'<' not supported", "'NoneType' object is not iterable", "argument after ** must be a
        # mapping", "unknown opponent families ['a', 'd', 'm', 'n', 'o', 'r']"
        ({"eval_deals": "x"}, "eval_deals must be an int >= 0, got 'x'", None),
        ({"opponents": None}, f"opponents must be {_OPPONENTS}; got None", None),
        ({"opponents": "random"}, f"opponents must be {_OPPONENTS}; got the str 'random'", None),
        ({"env_options": None}, "env_options must be a dict of game option to value, e.g. {'episode': 'match'} ({} for "
         "the game's defaults); got None", None),
        ({"bc_teacher_options": ["rank_order"]}, "bc_teacher_options must be a dict of teacher option to value, e.g. "
         "{'rank_order': '0,1,2,3,4,5,6,8,7'} ({} for none); got the list ['rank_order']", None),
        # an empty path was the current folder
        ({"out": ""}, "out '' is an empty path: give the run folder, e.g. out='runs/all_fours'",
         "--out '' is an empty path: give the run folder, e.g. --out runs/all_fours"),
        ({"out": "  "}, "out '  ' is an empty path: give the run folder, e.g. out='runs/all_fours'", None),
        ({"out": None}, "out must be a path (a str or os.PathLike): give the run folder; got None", None),
        ({"resume": ""}, "resume '' is an empty path: give the model .zip to continue (OUT/model.zip or "
         "OUT/checkpoints/model_N.zip), or None to start afresh", None),
        ({"init_from": 3}, "init_from must be a path (a str or os.PathLike): give a saved agent's folder (e.g. "
         "runs/GAME/agent), or None; got the int 3", None),
    ],
)
def test_an_option_of_the_wrong_kind_is_refused_at_validation(tmp_path, kw, api, cli):
    """Every TrainConfig option is checked by its kind (ints, numbers, bools, dicts, paths, net_arch,
    activation): the error names the field and what is valid (its cli_message the flag); nothing is written."""
    import dataclasses

    import numpy as np

    out = tmp_path / "o"
    cfg = _tiny_cfg(out, **{k: v for k, v in kw.items() if k != "out"})  # constructing never fails (env_options=None did)
    if "out" in kw:
        cfg = dataclasses.replace(cfg, out=kw["out"])
    with pytest.raises(ValueError) as e:
        cfg.validate()
    assert str(e.value) == api
    assert cli is None or e.value.cli_message.startswith(cli), e.value.cli_message
    assert not out.exists() and list(tmp_path.iterdir()) == []
    if "seed" in kw and kw["seed"] == -1:  # the numpy version of a bad value is refused too, shown as given
        with pytest.raises(ValueError, match=re.escape(f"seed must be {_SEED}, got np.int64(-1)")):
            _tiny_cfg(out, seed=np.int64(-1)).validate()


def test_numpy_numbers_are_accepted_and_kept_as_python_numbers(tmp_path):
    """np.float32(1e-4) was refused as "must be a finite number > 0, got np.float32(1e-04)" and np.int64
    counts as "not a positive int"; accepted now, and recorded as the Python int/float they stand for
    (agent.json is written from the config)."""
    import dataclasses

    import numpy as np

    cfg = _tiny_cfg(tmp_path / "o", learning_rate=np.float32(1e-4), total_steps=np.int64(5), expert_n_det=np.int64(2),
                    seed=np.uint32(7), eval_deals=np.int32(0), gamma=np.float64(0.99), net_arch=(np.int64(16), 8),
                    skip_forced=np.bool_(False), opponents={"random": np.float32(0.5)})
    cfg.validate()
    assert (cfg.total_steps, cfg.expert_n_det, cfg.seed, cfg.eval_deals) == (5, 2, 7, 0)
    assert cfg.learning_rate == pytest.approx(1e-4) and cfg.gamma == 0.99 and cfg.net_arch == [16, 8]
    assert cfg.skip_forced is False and cfg.opponents == {"random": 0.5}
    json.dumps(dataclasses.asdict(cfg))  # every value a plain Python one
    assert not (tmp_path / "o").exists()


def test_an_out_that_is_a_file_is_named_as_the_field_for_python_and_the_flag_for_the_command_line(tmp_path, capsys):
    afile = tmp_path / "notes.txt"
    afile.write_text("keep")
    with pytest.raises(NotADirectoryError) as e:
        _tiny_cfg(afile).validate()
    assert str(e.value) == f"out {afile} is a file, not a folder"
    assert e.value.cli_message == f"--out {afile} is a file, not a folder"
    assert main(["train", "all_fours", "--out", str(afile), *TINY]) == 2
    assert f"cardzoo train: error: --out {afile} is a file, not a folder" in capsys.readouterr().err
    assert afile.read_text() == "keep" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    # resume and overwrite together: the fields for Python, the flags on the command line
    with pytest.raises(ValueError) as e:
        _tiny_cfg(tmp_path / "o", resume=str(afile), overwrite=True).validate()
    assert str(e.value) == "resume and overwrite exclude each other: resume continues the run in out, overwrite deletes it"
    assert e.value.cli_message == ("--resume and --overwrite exclude each other: resume continues the run in --out, "
                                   "overwrite deletes it")
    assert not (tmp_path / "o").exists()


def test_every_activation_validate_accepts_is_one_training_builds():
    from cardzoo.training.config import ACTIVATIONS
    from cardzoo.training.selfplay import _activation

    for name in ACTIVATIONS:
        assert _activation(TrainConfig(activation=name)).__name__ == ACTIVATIONS[name]

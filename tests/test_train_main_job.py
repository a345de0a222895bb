"""The main job's reporting (issue 16, item 4): behaviour cloning to convergence with its agreement
and arena result printed before PPO, the final table against random / rule bot / shipped agent,
and one line saying what to do next."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from cardzoo.training import cli
from cardzoo.training.config import TrainConfig
from cardzoo.training.selfplay import next_step


def _row(opp, mean, lo, hi):
    return {"opponent": opp, "mean_diff": mean, "diff_ci": [lo, hi]}


def test_next_step_says_what_to_do():
    a, out = "runs/af/agent", "runs/af"
    beats = [_row("random", 1.2, 1.1, 1.3), _row("all_fours/rule", 0.2, 0.1, 0.3), _row("all_fours/ppo", 0.1, -0.05, 0.25)]
    assert next_step("all_fours", beats, a, out) == (
        "next: it beats the rule bot: play it (cardzoo play all_fours --opponents runs/af/agent); to beat the shipped agent "
        "too, train longer (cardzoo train all_fours --out runs/af --resume runs/af/model.zip --steps N)"
    )
    beats[2] = _row("all_fours/ppo", 0.1, 0.02, 0.2)
    line = next_step("all_fours", beats, a, out)
    assert line.startswith("next: it beats the rule bot and the shipped agent")
    # a run that beats those two may have learned only them: the line gives its score against random and the check
    assert line.endswith("; against random it scores +1.200 per episode: to see that it did not only learn to beat those "
                         "two, compare it with the rule bot against random (cardzoo arena all_fours runs/af/agent "
                         "all_fours/rule random --deals 2000)")
    loses = [_row("all_fours/rule", -0.344, -0.4, -0.29)]
    line = next_step("all_fours", loses, a, out)
    assert line.startswith("next: it loses to the rule bot (-0.344 per episode): the behaviour-cloned start is printed above; ")
    # a run without behaviour cloning (--bc-samples 0, --resume) printed none: the line does not point at it
    assert next_step("all_fours", loses, a, out, cloned=False).startswith(
        "next: it loses to the rule bot (-0.344 per episode): train longer (cardzoo train all_fours --out runs/af --resume ")
    init = line.split("--init-from ")[1].rstrip(")")  # a folder the command accepts as it is printed
    assert Path(init).is_dir() and (Path(init) / "agent.json").is_file() and init.endswith("all_fours_ppo")
    level = [_row("all_fours/rule", 0.01, -0.04, 0.06)]
    assert next_step("all_fours", level, a, out).startswith("next: level with the rule bot (CI [-0.040, +0.060])")
    # after expert iteration the way on is more rounds, from the agent the run made
    more = ("cardzoo expert-iterate all_fours --init runs/af/agent --out runs/af_more_rounds --rounds 2 --games 5120 "
            "--n-det 32 --label-search-on cards --batch 256 --epochs 8 --workers 2 --aggregate --arena-deals 2000")
    beats[2] = _row("all_fours/ppo", 0.1, -0.05, 0.25)
    assert next_step("all_fours", beats, a, out, expert=True).endswith(f"run more rounds of expert iteration ({more})")
    line = next_step("all_fours", level, a, out, expert=True)
    assert line.startswith("next: level with the rule bot (CI [-0.040, +0.060]): the rounds' table above") and more in line
    assert next_step("all_fours", loses, a, out, expert=True).startswith("next: it loses to the rule bot (-0.344 per episode)")


def test_behaviour_cloning_runs_to_convergence():
    import torch

    from cardzoo import agents, envs
    from cardzoo.agents.policy import _build_policy
    from cardzoo.training import imitation

    data = imitation.collect("all_fours", agents.load("all_fours/rule"), 12_000, seed=0, batch=128)
    torch.manual_seed(0)
    policy = _build_policy(402, 56, [32], "relu")
    info = imitation.pretrain(policy, data, envs.kernel("all_fours").obs_layout.high(), epochs=60, batch_size=1024,
                              until_converged=True, patience=2)
    n_train = len(data.action) - min(20_000, len(data.action) // 10)
    assert 3 <= info["epochs"] < 60  # stopped by the held-out agreement, not by the cap
    assert info["steps"] == info["epochs"] * (n_train // 1024)
    chance = float(np.mean(1.0 / data.mask.sum(axis=1)))
    assert info["val_accuracy"] > chance + 0.1


def test_expert_rounds_default_per_game_and_bad_values():
    assert TrainConfig().expert_rounds == 3  # All Fours: measured to help (training/EXPERT.md)
    assert TrainConfig(game="aluette").expert_rounds == 0 and TrainConfig(game="pyanitsa").expert_rounds == 0
    assert TrainConfig(env_options={"episode": "match"}).expert_rounds == 0  # PIMC cannot play a match out
    with pytest.raises(ValueError, match=r"expert_rounds=2 needs episodes that end with the deal .* give expert_rounds=0"):
        TrainConfig(expert_rounds=2, env_options={"episode": "match"}).validate()
    for name, bad in (("expert_rounds", -1), ("expert_games", 0), ("expert_workers", 0), ("expert_epochs", 1.5)):
        with pytest.raises(ValueError, match=f"{name} must be an int >= ., got {bad}"):
            TrainConfig(**{name: bad}).validate()


def test_train_prints_cloning_result_and_compares_with_the_shipped_agent(tmp_path, capsys):
    """The main job end to end at toy size: cloning, PPO, one round of expert iteration in two
    processes, the final table and the next step."""
    from safetensors.numpy import load_file

    from cardzoo.training.cli import main

    out = tmp_path / "run"
    argv = ["train", "all_fours", "--out", str(out), "--steps", "256", "--n-envs", "16", "--n-steps", "8", "--batch-size", "64",
            "--bc-samples", "3000", "--bc-epochs", "3", "--eval-deals", "12", "--torch-threads", "1",
            "--expert-rounds", "1", "--expert-games", "8", "--expert-n-det", "2", "--expert-epochs", "1",
            "--expert-arena-deals", "6", "--expert-workers", "2"]
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert "expert iteration: 1 round, each labelling 8 deals" in said and "| 1 | " in said  # the rounds' table
    assert (out / "ppo_agent" / "agent.json").is_file() and (out / "expert" / "round_1" / "labels_1.npz").is_file()
    final, round_1 = load_file(str(out / "agent" / "weights.safetensors")), load_file(str(out / "expert" / "round_1" / "agent" / "weights.safetensors"))
    assert final.keys() == round_1.keys() and all(np.array_equal(final[k], round_1[k]) for k in final)
    meta = json.loads((out / "agent" / "agent.json").read_text())
    assert meta["training"]["command"] == "cardzoo " + " ".join(argv) and meta["training"]["expert_rounds"] == 1
    assert [r["round"] for r in meta["expert_iteration"]["rounds"]] == [0, 1]
    assert meta["expert_iteration"]["rounds"][1]["arena"]["n_deals"] == 6
    assert meta["evaluation"][1]["opponent"] == "all_fours/rule"  # the final agent was the one evaluated
    summary = json.loads((out / "summary.json").read_text())
    assert summary["agent"] == str(out / "agent") and summary["ppo_agent"] == str(out / "ppo_agent")
    line = next(x for x in said.splitlines() if x.startswith("behaviour cloning:"))
    assert "agreement with all_fours/rule" in line and "against all_fours/rule over 12 duplicate deals" in line  # 500, or --eval-deals where fewer
    assert line.endswith("PPO starts from it")
    assert "all_fours/ppo" in said  # the final table has the shipped agent's row
    assert said.rstrip().splitlines()[-1].startswith("next: ")
    rows = json.loads((out / "evaluation.json").read_text())
    assert [r["opponent"] for r in rows] == ["random", "all_fours/rule", "all_fours/ppo"]
    assert TrainConfig().bc_until_converged and TrainConfig().bc_eval_deals == 500


def test_next_step_repeats_the_runs_options_in_every_command():
    """The next: line printed `cardzoo train GAME --out OUT --resume OUT/model.zip --steps N` without
    the run's -o options and --skip-forced, which cardzoo train refuses for such a run ('cannot resume
    ... game option episode: the run's 'match', given 'hand'), and play/arena commands in which the
    agent, trained for other options, would be replaced by the rule bot."""
    a, out, o, flags = "runs/af/agent", "runs/af", ["-o", "episode=match"], ["--skip-forced"]
    loses = [_row("all_fours/rule", -0.344, -0.4, -0.29)]
    line = next_step("all_fours", loses, a, out, options=o, train_flags=flags)
    assert "(cardzoo train all_fours -o episode=match --skip-forced --out runs/af --resume runs/af/model.zip --steps N: N more steps)" in line
    assert "(cardzoo train all_fours -o episode=match --skip-forced --out runs/af_from_shipped --init-from " in line
    beats = [_row("all_fours/rule", 0.2, 0.1, 0.3), _row("all_fours/ppo", 0.1, 0.02, 0.2)]
    assert next_step("all_fours", beats, a, out, options=o, train_flags=flags) == (
        "next: it beats the rule bot and the shipped agent: play it (cardzoo play all_fours -o episode=match --opponents "
        "runs/af/agent) or confirm on fresh seeds (cardzoo arena all_fours -o episode=match runs/af/agent all_fours/ppo --seed 1)"
    )
    level = [_row("all_fours/rule", 0.01, -0.04, 0.06)]
    for rows, expert in ((loses, False), (beats[:1], False), (level, False), (level, True), (beats[:1], True)):
        line = next_step("all_fours", rows, a, out, expert=expert, options=o, train_flags=flags)
        for cmd in re.findall(r"cardzoo (?:play|arena|train) \S+", line):
            assert line.split(cmd, 1)[1].startswith(" -o episode=match"), (cmd, line)


def test_the_printed_resume_command_runs_as_printed(tmp_path, capsys):
    """A run with -o options, --skip-forced and --expert-rounds 0: the next: line's resume command,
    run as printed (N and small PPO settings filled in), continues the run instead of being refused
    (and does not start All Fours' default three rounds of expert iteration)."""
    out = tmp_path / "run"
    small = ["--n-envs", "8", "--n-steps", "16", "--batch-size", "64", "--torch-threads", "1"]
    argv = ["train", "all_fours", "-o", "undertrump=forbidden", "--skip-forced", "--steps", "128", "--bc-samples", "200",
            "--bc-epochs", "1", "--eval-deals", "2", "--expert-rounds", "0", "--out", str(out), *small]
    assert cli.main(argv) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("next:"))
    resume = re.search(r"\(cardzoo (train all_fours [^()]*?--resume \S+ --steps) N", line).group(1)
    assert "-o undertrump=forbidden --skip-forced --expert-rounds 0" in resume, line
    assert cli.main([*shlex.split(resume), "128", "--eval-deals", "0", *small]) == 0
    assert "more steps (256 in all)" in capsys.readouterr().out


def test_next_step_suggests_only_a_shipped_start_that_reads_the_runs_observations():
    """--init-from needs the observation layout of the run: a three-player P'yanitsa run is pointed at
    agents/shipped/pyanitsa_ppo_3p (the two-player agent cannot read its 236 values), a two-player
    run at pyanitsa_ppo, and All Fours at all_fours_ppo whatever its rule options."""
    from cardzoo.agents.registry import SHIPPED

    loses = [_row("pyanitsa/rule", -0.3, -0.4, -0.2)]
    o3 = ["-o", "num_players=3", "-o", "collect_order=winner_chooses"]
    line = next_step("pyanitsa", loses, "runs/p3/agent", "runs/p3", options=o3, train_flags=["--skip-forced"],
                     env_options={"num_players": 3, "collect_order": "winner_chooses"})
    assert line.endswith(f"--out runs/p3_from_shipped --init-from {Path(SHIPPED) / 'pyanitsa_ppo_3p'})")
    line = next_step("pyanitsa", loses, "runs/p2/agent", "runs/p2", env_options={"num_players": 2})
    assert line.endswith(f"--init-from {Path(SHIPPED) / 'pyanitsa_ppo'})")
    af = next_step("all_fours", [_row("all_fours/rule", -0.3, -0.4, -0.2)], "runs/af/agent", "runs/af",
                   env_options={"undertrump": "forbidden"})
    assert af.endswith(f"--init-from {Path(SHIPPED) / 'all_fours_ppo'})")

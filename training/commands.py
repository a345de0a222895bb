"""Sub-commands of ``cardzoo`` that need agents and training: train, arena, play."""

from __future__ import annotations

import contextlib
import shlex
import sys
import warnings
from pathlib import Path


def _refuse_empty(text: str, what: str) -> str:
    """``text`` unless it is empty or blank (``argparse.ArgumentTypeError``: argparse prints it after the flag's name)."""
    import argparse

    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is empty: give {what}")
    return text


def agent_arg(text: str) -> str:
    """The argparse ``type`` of the flags that name one agent (``--policy``, ``--partner``, ``--bc-teacher``,
    ``--init-from``, ...): an empty value is refused. It was taken as the flag left out (``--policy "$POLICY"``
    with the variable unset labelled GAME/ppo, ``--bc-teacher ''`` cloned GAME/rule, ``play --partner ''`` seated
    the default) or as the current folder (``--init-from ''``: ". is not a saved cardzoo agent")."""
    return _refuse_empty(text, "an agent name (e.g. all_fours/rule) or a saved agent's folder, or leave the flag out "
                               "for its default")


def agent_positional(text: str) -> str:
    """:func:`agent_arg` for an agent given without a flag (``cardzoo distil INIT``, ``cardzoo exploit AGENT``)."""
    return _refuse_empty(text, "an agent name (e.g. all_fours/ppo) or a saved agent's folder")


def model_arg(text: str) -> str:
    """The argparse ``type`` of ``train --resume``: an empty value is refused (it read as the current folder:
    "cannot resume : it is a folder, not a model file")."""
    return _refuse_empty(text, "a model .zip such as OUT/model.zip or OUT/checkpoints/model_N.zip, or leave --resume "
                               "out to start a new run")


#: the most ``--torch-threads`` a command takes: torch took up to 2**31 - 1 (past it: "Overflow when unpacking long",
#: naming neither the flag nor the range) and started that many threads
MAX_TORCH_THREADS = 1024


def torch_threads_arg(text: str) -> int:
    """The argparse ``type`` of ``--torch-threads`` (train, exploit, distil, expert-iterate): an int of at most
    :data:`MAX_TORCH_THREADS` (the commands refuse less than 1 themselves, naming the flag)."""
    import argparse
    import os

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value > MAX_TORCH_THREADS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_TORCH_THREADS} (threads of torch's CPU work; this machine "
                                         f"has {os.cpu_count()} cores), got {text}")
    return value


def _opponent_weights(text: str) -> dict:
    """``"random=0.2,rule=0.5,snapshot=0.3"`` -> dict (``ValueError`` on a malformed entry)."""
    out = {}
    for part in text.split(","):
        name, _, w = part.partition("=")
        try:
            weight = float(w)
        except ValueError:
            raise ValueError(f"--opponents: {part!r} must look like NAME=NUMBER (e.g. rule=0.5)") from None
        if name.strip() in out:
            raise ValueError(f"--opponents {text}: {name.strip()!r} is given twice ({part.strip()!r}); give each family once")
        out[name.strip()] = weight
    return out


def _continue_command(args, cfg, e) -> str:
    """The command that resumes an interrupted run: the run's own options (``args.argv``, when
    the CLI recorded them), without ``--resume``/``--overwrite``/``--steps``, plus ``--resume`` the
    saved model and ``--steps`` the steps of the budget left (on resume ``--steps`` counts more steps)."""

    given = list(getattr(args, "argv", None) or ["train", args.game, "--out", str(cfg.out)])
    kept, skip = [], False
    for tok in given:
        if skip:
            skip = False
            continue
        # argparse takes a unique prefix of an option (--over for --overwrite, --st 256 for --steps), and the run was
        # started, so a prefix of one of these options as typed is that option: kept, --over made the command refused
        # ("--resume and --overwrite exclude each other")
        name = tok.split("=", 1)[0]
        dropped = len(name) > 2 and name.startswith("--") and any(o.startswith(name) for o in ("--resume", "--steps", "--overwrite"))
        if dropped:
            skip = "=" not in tok and not "--overwrite".startswith(name)
            continue
        kept.append(tok)
    if "--out" not in kept and not any(t.startswith("--out=") for t in kept):
        kept += ["--out", str(cfg.out)]
    steps = e.remaining if e.remaining is not None else cfg.total_steps
    return shlex.join(["cardzoo", *kept, "--resume", str(e.model), "--steps", str(steps)])


def _play_command(cfg, agent: str) -> str:
    """``cardzoo play`` with the trained agent in every other seat (as partner too where the game
    has partnerships), under the run's game options, so that play seats the agent itself."""
    from cardzoo import envs

    from .config import option_args

    opts = option_args(cfg.env_options)
    seats = ["--opponents", agent] if envs.kernel(cfg.game, **cfg.env_options).teams is None else ["--partner", agent, "--opponents", agent]
    return shlex.join(["cardzoo", "play", cfg.game, *opts, *seats])


def _arena_command(cfg, agent, deals: int) -> str:
    """``cardzoo arena`` of a run's agent against the rule bot (where the game has one) and random, under the
    run's game options (an agent is seated only under its options)."""
    from cardzoo import agents

    from .config import option_args

    rule = [f"{cfg.game}/rule"] if f"{cfg.game}/rule" in agents.available() else []
    return shlex.join(["cardzoo", "arena", cfg.game, str(agent), *rule, "random", "--deals", str(deals),
                       *option_args(cfg.env_options)])


def _train_plan(cfg) -> list[str]:
    """What ``cardzoo train`` will run, said before it starts: the behaviour cloning (``--bc-samples``
    counts decisions, but whole games are kept) and its check, the PPO steps (``--steps`` rounded up to
    whole rollouts of ``--n-envs`` x ``--n-steps``), expert iteration and the evaluation."""
    from cardzoo import agents

    from .arena import duplicate_deals

    steps, rollout = cfg.ppo_steps()
    parts = []
    if cfg.bc_samples and not cfg.resume and not cfg.init_from:
        teacher = cfg.bc_teacher or f"{cfg.game}/rule"
        bc = (f"behaviour cloning of {teacher} on {cfg.bc_samples:,} decisions (--bc-samples; whole games are kept, "
              "so a few more)")
        check = cfg.bc_check_deals()
        if check and f"{cfg.game}/rule" in agents.available():
            bc += f", checked against {cfg.game}/rule over {duplicate_deals(check)} (500, or --eval-deals if fewer)"
        parts.append(bc)
    more = " more" if cfg.resume else ""
    n = steps // rollout
    rollouts = f"{n:,} rollout{'s' if n != 1 else ''}"
    shape = f"--n-envs {cfg.n_envs} games x --n-steps {cfg.n_steps} steps = {rollout:,} steps"
    if steps != cfg.total_steps:
        parts.append(f"PPO for {steps:,}{more} steps: --steps {cfg.total_steps:,} rounded up to whole rollouts (PPO "
                     f"learns from whole ones), {rollouts} of {shape}")
    else:
        parts.append(f"PPO for {steps:,}{more} steps: {rollouts} of {shape}")
    if cfg.expert_rounds:
        parts.append(f"{cfg.expert_rounds} round{'s' if cfg.expert_rounds != 1 else ''} of expert iteration "
                     f"(--expert-rounds; {cfg.expert_games:,} deals labelled each)")
    if cfg.eval_deals:
        parts.append(f"evaluation over {duplicate_deals(cfg.eval_deals)} per opponent (--eval-deals)")
    lines = [("plan: " if i == 0 else "      ") + p for i, p in enumerate(parts)]
    if not _has_choices(cfg.game, cfg.env_options):
        hint = " e.g. -o collect_order=winner_chooses --skip-forced (training/README.md)" if cfg.game == "pyanitsa" else ""
        lines.append(f"note: {cfg.game} under these options has no decision to learn: every move is forced (one legal move "
                     f"each), so every agent plays alike; train a variant with choices,{hint or ' (see the game options)'}")
    return lines


def _has_choices(game: str, env_options: dict, batch: int = 8, max_steps: int = 4000) -> bool:
    """Whether a game under ``env_options`` ever offers more than one legal move: ``batch`` games with the
    first legal move each, for at most ``max_steps`` steps (P'yanitsa's default rules are all forced FLIPs)."""
    import numpy as np

    from cardzoo import envs

    k = envs.kernel(game, **env_options)
    rng = np.random.default_rng(0)
    st = k.init(rng, batch)
    for _ in range(max_steps):
        mask = k.legal_actions(st)
        if (mask.sum(axis=-1) > 1).any():
            return True
        k.step(st, mask.argmax(axis=-1), rng)
        if st.done.all():
            return False
        k.reset_done(st, rng)
    return False


def check_run_out(out: str | None, default: str) -> None:
    """Refuse ``--out ''`` (or blanks) of a training command: "" was taken as no --out, and the run went
    to its ``default`` folder; and an ``--out`` no folder can be made at (``/proc/x``,
    :func:`~cardzoo.training.common.check_can_write`). ``cardzoo train`` and ``cardzoo train-rllib``."""
    if out is not None and not out.strip():
        raise ValueError(f"--out {out!r} is an empty path: give the run folder, e.g. --out {default} (or leave "
                         "--out out for that default)")
    if out is not None:
        from .common import check_can_write

        check_can_write(out, "--out", makes_folder=True)  # --out /proc/x: refused before the run starts


def resumed_run_folder(model) -> str | None:
    """The run folder of a saved model of ``cardzoo train`` (``OUT`` of ``OUT/model.zip`` or
    ``OUT/checkpoints/model_N.zip``, where the run saved its agent beside it: :func:`~.config.resumed_run`);
    ``None`` for a model from elsewhere."""
    from .config import resumed_run

    if resumed_run(model) is None:
        return None
    model = Path(model)
    return str(model.parent.parent if model.parent.name == "checkpoints" else model.parent)


def cmd_train(args, parse_options) -> int:
    from .common import report_console
    from .selfplay import TrainConfig, TrainingInterrupted, evaluation_table, next_step, train

    if args.out is None and args.resume is not None:  # "continue the run": in the model's own run folder, not runs/GAME
        args.out = resumed_run_folder(args.resume)
    check_run_out(args.out, f"runs/{args.game}")
    for p in args.bc_teacher_option or []:  # parse_options would name it an "env option"
        if "=" not in p:
            raise ValueError(f"--bc-teacher-option {p!r} must look like NAME=VALUE (a keyword option of the teacher, "
                             f"e.g. --bc-teacher-option seed=1)")
    teacher, teacher_options = args.bc_teacher, parse_options(args.bc_teacher_option, "--bc-teacher-option")
    if teacher is not None:  # NAME:KEY=VALUE,... as every agent flag takes it; the same as --bc-teacher-option KEY=VALUE
        from .common import split_agent_spec

        teacher, own = split_agent_spec(teacher)
        both = sorted(set(own) & set(teacher_options))
        if both:
            raise ValueError(f"--bc-teacher {args.bc_teacher!r} and --bc-teacher-option both give {both}; give each once")
        teacher_options = {**own, **teacher_options}
    cfg = TrainConfig(
        game=args.game,
        total_steps=args.steps,
        bc_samples=args.bc_samples,
        bc_epochs=args.bc_epochs,
        bc_teacher=teacher,
        bc_teacher_options=teacher_options,
        n_envs=args.n_envs,
        seed=args.seed,
        opponents=_opponent_weights(args.opponents),
        snapshot_every=args.snapshot_every,
        checkpoint_every=args.checkpoint_every,
        eval_deals=args.eval_deals,
        out=args.out or f"runs/{args.game}",
        resume=args.resume,
        overwrite=args.overwrite,
        change_options=args.change_options,
        env_options=parse_options(args.option),
        skip_forced=args.skip_forced,
        privileged_critic=args.privileged_critic,
        init_from=args.init_from,
        critic_warmup_steps=args.critic_warmup,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        learning_rate=args.lr,
        clip_range=args.clip_range,
        ent_coef=args.ent_coef,
        torch_threads=args.torch_threads,
        expert_rounds=args.expert_rounds,
        expert_games=args.expert_games,
        expert_n_det=args.expert_n_det,
        expert_epochs=args.expert_epochs,
        expert_workers=args.expert_workers,
        expert_arena_deals=args.expert_arena_deals,
        command=shlex.join(["cardzoo", *(getattr(args, "argv", None) or ["train", args.game])]),
    )
    try:
        cfg.validate()  # before the plan is printed (train() checks again)
        for line in _train_plan(cfg):
            print(line, flush=True)
        summary = train(cfg)
    except (ValueError, OSError) as e:
        if getattr(e, "cli_message", None) is None:
            raise
        raise type(e)(e.cli_message) from None  # the option as typed here: --eval-deals, not the field eval_deals
    except TrainingInterrupted as e:
        if e.evaluating:  # training was finished and saved: only the final table is missing
            print(f"\ncardzoo train: interrupted in the final evaluation, after the training had finished ({e.steps:,} PPO "
                  f"steps) and was saved: only the evaluation is missing, nothing needs resuming", file=sys.stderr)
            print(f"  trained agent:    {e.agent}", file=sys.stderr)
            print(f"  model:            {e.model} (--resume it only to train more steps)", file=sys.stderr)
            print(f"  not written:      the evaluation table ({Path(cfg.out) / 'evaluation.md'}) and the agent's evaluation "
                  f"record", file=sys.stderr)
            print(f"  evaluate it with: {_arena_command(cfg, e.agent, cfg.eval_deals)}", file=sys.stderr)
            return 130
        if e.continue_command:  # PPO was done: the expert stage was interrupted
            print(f"\ncardzoo train: interrupted in the expert iteration after {e.steps:,} PPO steps; saved", file=sys.stderr)
            print(f"  PPO model:        {e.model}", file=sys.stderr)
            print(f"  agent so far:     {e.agent}", file=sys.stderr)
            print(f"  finish the rounds with: {e.continue_command}", file=sys.stderr)
            final = Path(cfg.out) / "expert" / f"round_{cfg.expert_rounds}" / "agent"
            print(f"  then evaluate its final agent: {_arena_command(cfg, final, 2000)}", file=sys.stderr)
            return 130
        print(f"\ncardzoo train: interrupted after {e.steps:,} PPO steps; saved", file=sys.stderr)
        print(f"  resumable model:  {e.model}", file=sys.stderr)
        print(f"  agent so far:     {e.agent}", file=sys.stderr)
        print(f"  continue with:    {_continue_command(args, cfg, e)}", file=sys.stderr)
        return 130
    con = report_console()
    if "evaluation" in summary:
        con.print(evaluation_table(summary["evaluation"], f"{args.game}: trained agent, duplicate deals"))
    resumed = summary.get("resumed_from")
    more = f"{summary['steps'] - resumed['steps']:,} more steps ({summary['steps']:,} in all)" if resumed else f"{summary['steps']:,} steps"
    lines = [
        f"trained {more} in {_secs(summary['seconds'])} s "
        f"(PPO: {_secs(summary['ppo_seconds'])} s, {summary['steps_per_second']:,.0f} env steps/s incl. opponents and updates)",
        f"agent (weights + JSON):  {summary['agent']}",
    ]
    if "ppo_agent" in summary:
        lines.append(f"PPO stage's agent:       {summary['ppo_agent']}")
        lines.append(f"expert iteration:        {Path(cfg.out) / 'expert' / 'rounds.md'} (and rounds.png)")
    if "curve" in summary:
        lines.append(f"learning curve:          {summary['curve']}")
    if "evaluation" in summary:
        lines.append(f"evaluation table:        {Path(cfg.out) / 'evaluation.md'}")
    lines += [
        f"TensorBoard logs:        {Path(cfg.out) / 'tb'}",
        f"play against it:         {_play_command(cfg, summary['agent'])}",
    ]
    if "evaluation" in summary:
        from .config import option_args

        flags = [f for f, on in (("--skip-forced", cfg.skip_forced), ("--privileged-critic", cfg.privileged_critic)) if on]
        if args.expert_rounds is not None:  # a resume without it would run the game's default rounds
            flags += ["--expert-rounds", str(args.expert_rounds)]
        lines.append(next_step(args.game, summary["evaluation"], summary["agent"], cfg.out, expert="ppo_agent" in summary,
                               options=option_args(cfg.env_options), train_flags=flags, env_options=cfg.env_options,
                               cloned="behaviour_cloning" in summary))
    for line in lines:
        print(line)
    return 0


def _secs(seconds: float) -> str:
    """Seconds as the end-of-train line says them: whole ones, tenths under 10 s (a tiny run is not "0 s")."""
    return f"{seconds:.0f}" if seconds >= 10 else f"{seconds:.1f}"


def cmd_arena(args, parse_options) -> int:
    from . import arena
    from .common import (check_can_write, check_game_options, missing_folder_error, refuse_existing_file, refuse_folder_name,
                         report_console, seat_agent)

    env_options = parse_options(args.option)
    # a bad -o fails as the game's own error, before any agent is loaded (each agent would take it for one of its
    # parameters: "unknown option(s) ['a'] for all_fours/rule; agent parameters: ['params', 'rollout_opponents']; ...")
    check_game_options(args.game, env_options, args.agents)
    if args.deals < 1:
        raise ValueError(f"--deals must be >= 1, got {args.deals}")
    if args.batch < 1:
        raise ValueError(f"--batch must be >= 1, got {args.batch}")
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    check_exec_timeout(args.exec_timeout)
    if args.json is not None and not args.json.strip():
        raise ValueError(f"--json {args.json!r} is an empty path: give the file to write, e.g. --json arena.json (or leave --json out)")
    if args.overwrite and args.json is None:  # it replaces a --json file only: alone it did nothing, silently
        raise ValueError("--overwrite replaces an existing --json file; give --json FILE with it, or leave --overwrite out")
    if args.json:  # "out/" was written to a file "out"
        refuse_folder_name(args.json, "--json", "arena.json")
    if args.json and not Path(args.json).resolve().parent.is_dir():
        raise missing_folder_error(args.json, "--json")
    if args.json and Path(args.json).is_dir():
        raise ValueError(f"--json {args.json} is a folder; give a file name such as {Path(args.json) / 'arena.json'}")
    if args.json:
        refuse_existing_file(args.json, "--json", args.overwrite)
        check_can_write(args.json, "--json")  # the deals' results would be lost at the end of the run
    if len(args.agents) < 2:
        raise ValueError("arena needs at least two agents, e.g. cardzoo arena all_fours all_fours/rule random")
    loaded = {}
    con = report_console()
    for i, name in enumerate(args.agents):
        agent, seated, note = seat_agent(
            name, args.game, env_options, seed=args.seed + i, force=args.force_agent, exec_timeout=args.exec_timeout,
            warn=False,  # the note below says it
        )
        if note:
            print(f"note: {note}", flush=True)
        if seated != name:
            seated = f"{seated} (for {name})"
        key = seated if seated not in loaded else f"{seated}#{i}"
        loaded[key] = agent
    with _faults_said_at_the_end():
        if len(loaded) == 2:
            (na, a), (nb, b) = loaded.items()
            res = arena.play_duplicate(
                args.game, a, b, args.deals, seed=args.seed, batch=args.batch, env_options=env_options, progress=True,
                name_a=na, name_b=nb,
            )
            arena.print_results([res], console=con)
            payload = res.to_dict()
        else:
            rr = arena.round_robin(args.game, loaded, args.deals, seed=args.seed, batch=args.batch, env_options=env_options,
                                   progress=True)
            arena.print_results(rr, console=con)
            payload = rr.to_dict()
    elsewhere = False
    if args.json:
        text = arena.json_text(payload, indent=2)  # an undefined CI (1 deal): null
        path = Path(args.json)
        try:
            with open(path, "w" if args.overwrite else "x") as f:  # "x": a file made meanwhile is not replaced
                f.write(text)
            con.print(f"JSON written to {args.json}")
        except FileExistsError:  # made by something else during the run: neither replaced nor the run's results lost
            n = 1
            while (free := path.with_name(f"{path.stem}.{n}{path.suffix}")).exists():
                n += 1
            with open(free, "x") as f:
                f.write(text)
            elsewhere = True
            print(f"cardzoo arena: error: --json {path} was made by something else during the run and is left as it is; "
                  f"the results are written to {free}", file=sys.stderr)
    faults = [f for r in ([res] if len(loaded) == 2 else rr.pairs) for f in r.faults]
    for f in faults:
        con.print(f"[red]fault:[/red] {f}", markup=True, highlight=False)
    return 1 if faults or elsewhere else 0


@contextlib.contextmanager
def _faults_said_at_the_end():
    """A context in which an ``exec:`` bot's fault is not also shown as a Python ``RuntimeWarning``
    (file, line and source line, in the middle of the progress bar): ``cardzoo arena`` and
    ``cardzoo leaderboard`` list every fault as a ``fault:`` line after the results, and exit 1."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=RuntimeWarning, message="bot ")
        yield


def cmd_leaderboard(args, parse_options) -> int:
    """Round robin on the cardzoo-bench v1 deal set (training/leaderboard.py); resumable."""
    import time

    from . import leaderboard

    t = time.monotonic()
    with _faults_said_at_the_end():
        p = leaderboard.run_leaderboard(
            args.game, args.agents, args.deals, args.out, seed=args.seed, batch=args.batch, env_options=parse_options(args.option),
            n_boot=args.boot, exec_timeout=args.exec_timeout, force_agent=args.force_agent, say=lambda s: print(s, flush=True),
        )
    print(leaderboard.markdown(p))
    out = Path(args.out)
    print(f"written: {out / 'leaderboard.md'}, {out / 'leaderboard.json'}, {out / 'leaderboard.png'} ({time.monotonic() - t:.0f} s)")
    faults = [f for r in p["pairs"] for f in r.get("faults", [])]
    for f in faults:
        print(f"fault: {f}")
    return 1 if faults else 0


def cmd_exploit(args, parse_options) -> int:
    """Best-response learner against a frozen agent; prints its edge with a CI (training/exploit.py)."""
    from .arena import check_count
    from .exploit import exploit

    for flag, value, least in (("--steps", args.steps, 1), ("--n-envs", args.n_envs, 1), ("--deals", args.deals, 1),
                               ("--bc-samples", args.bc_samples, 0), ("--torch-threads", args.torch_threads, 1)):
        check_count(value, flag, least)  # exploit() names its parameters (eval_deals, n_envs), not these flags
    game = args.game or args.agent.split("/", 1)[0]
    from cardzoo import envs

    if args.game is None and game not in envs.GAMES and Path(args.agent).exists():  # a saved agent knows its game
        from cardzoo.agents.policy import read_meta

        game = read_meta(args.agent).get("game", game)  # not a saved agent: its own error names the path
    if game not in envs.GAMES:
        if "/" in args.agent and not Path(args.agent).exists() and args.agent.startswith(("/", ".")):
            raise FileNotFoundError(f"no saved agent at {args.agent}: the path does not exist")
        raise ValueError(f"cannot tell the game of {args.agent!r}: pass --game (one of {sorted(envs.GAMES)})")
    r = exploit(game, args.agent, steps=args.steps, n_envs=args.n_envs, bc_samples=args.bc_samples, eval_deals=args.deals,
                seed=args.seed, out=args.out, env_options=parse_options(args.option), torch_threads=args.torch_threads,
                skip_forced=args.skip_forced, say=lambda line: print(line, flush=True))
    e = r["edge"]
    episode = envs.kernel(game, **parse_options(args.option)).episode_name
    from .arena import ci_text  # an undefined CI (1 deal): "n/a (1 deal)"

    whole = "" if r["steps"] == args.steps else f" (--steps {args.steps:,} rounded up to whole rollouts of {args.n_envs} games x 64 steps)"
    print(f"{args.agent}: learner's edge after {r['steps']:,} steps{whole} ({r['seconds']:.0f} s): "
          f"{e['mean_diff']:+.3f} {ci_text(*e['diff_ci'], '+.3f', e['n_deals'])} per {episode}, "
          f"win rate {e['win_rate']:.3f} {ci_text(*e['win_ci'], '.3f', e['n_deals'])} over {e['n_deals']:,} fresh duplicate deal{'' if e['n_deals'] == 1 else 's'}")
    if r["start"] is not None:
        s = r["start"]
        print(f"the learner before training (rule-bot clone): {s['mean_diff']:+.3f} {ci_text(*s['diff_ci'], '+.3f', s['n_deals'])} "
              f"per {episode}; gain {r['gain']:+.3f} {ci_text(*r['gain_ci'], '+.3f', s['n_deals'])} (paired by deal)")
    print(f"written: {Path(r['learner']).parent / 'exploit.json'}")
    return 0


def cmd_play(args, parse_options) -> int:
    from .play import main_play

    check_exec_timeout(args.exec_timeout)
    return main_play(args.game, args.partner, args.opponents, args.seed, parse_options(args.option),
                     force_agent=getattr(args, "force_agent", False), said=getattr(args, "said", ()),
                     exec_timeout=args.exec_timeout)


def cmd_label(args) -> int:
    from .expert import label_positions

    if not args.out.strip():  # it was read as the current folder: "label file '.' must be named *.npz"
        raise ValueError(f"label file {args.out!r} is an empty path: give the file to write, e.g. labels.npz")
    labelled = args.label_search_on
    if args.old_search_on is not None:  # the former name; in distil and expert-iterate --search-on means distilled
        if labelled is not None:
            raise ValueError("--search-on is the deprecated name of --label-search-on; give only --label-search-on")
        print("cardzoo label: warning: --search-on is deprecated here, use --label-search-on (the types that get PIMC "
              "values; in distil and expert-iterate --search-on names the types distilled)", file=sys.stderr)
        labelled = args.old_search_on
    _check_search_on("--label-search-on" if args.old_search_on is None else "--search-on", labelled or ["all"])
    for flag, v in (("--games", args.games), ("--batch", args.batch), ("--n-det", args.n_det)):
        if v < 1:  # label_positions would name its parameters (n_games, batch)
            raise ValueError(f"{flag} must be >= 1, got {v}")
    from .expert import LabellingInterrupted

    try:
        counts = label_positions(
            args.game, args.policy, args.games, args.out, n_det=args.n_det, seed=args.seed, batch=args.batch,
            opponent=args.opponent, rollout=args.rollout, rollout_opponents=args.rollout_opponents, search_on=labelled or ["all"],
            overwrite=args.overwrite,
        )
    except LabellingInterrupted as e:  # say what the file holds (main() then says "interrupted", exit 130)
        more = "; label more deals into another file with another --seed and give cardzoo distil both" if e.deals else ""
        print(f"\n{e}{more}", file=sys.stderr)
        raise
    print(f"{counts['games']:,} deals: {counts['card_positions']:,} card positions and "
          f"{counts['other_positions']:,} other positions (bids, declarations, signals) -> {args.out}")
    return 0


def _print_type_table(s) -> None:
    """Held-out agreement and regret per decision type: start policy, result, reference."""
    for t in s["before"]:
        b, a = s["before"][t], s["after"][t]
        how = "distilled to search" if t in s["search_on"] else "kept near the start policy"
        ch = s["regret_change"][t]
        ci = f" [{ch['ci'][0]:+.4f}, {ch['ci'][1]:+.4f}]" if ch["ci"][0] is not None else ""
        line = (f"{t:>6} ({how}, {s['val_positions'][t]:,} held out): agreement with PIMC {b['agreement']:.3f} -> "
                f"{a['agreement']:.3f}, regret {b['regret']:.4f} -> {a['regret']:.4f} (change {ch['mean']:+.4f}{ci})")
        if s["reference"] and t in s["reference"]:
            r = s["reference"][t]
            line += f"; {s['reference']['agent']}: {r['agreement']:.3f}, {r['regret']:.4f}"
        print(line)
    # a type the labels carry values for, with too few positions to hold one out (P'yanitsa's others: FLIP is never a
    # choice), was told to relabel with --label-search-on all, which the labels already had
    labelled = s.get("labelled", list(s["before"]))
    unlabelled = [t for t in ("cards", "others") if t not in s["before"] and t not in labelled]
    if unlabelled:
        print(f"no PIMC values for {unlabelled} in these labels (cardzoo label --label-search-on all measures them too)")
    for t in ("cards", "others"):
        if t not in s["before"] and t in labelled:
            n = s["card_positions"] if t == "cards" else s["other_positions"]
            print(f"{t} not measured: these labels hold {n:,} {t} position{'' if n == 1 else 's'} (2 or more are needed to "
                  "hold some out)")


def _check_numbers(args, flags) -> None:
    """Each ``--flag`` of ``flags`` (``{flag: (least, whole)}``) must be a finite number >= ``least``
    (> 0 for ``least=None``; an int if ``whole``): ``ValueError`` naming the flag, as typed, else (distil()
    and expert_iterate() name their parameters, all at once: "need finite numbers with epochs >= 1, ...")."""
    import math

    for flag, (least, whole) in flags.items():
        v = getattr(args, flag[2:].replace("-", "_"))
        if whole:
            if v < least:
                raise ValueError(f"{flag} must be >= {least}, got {v}")
        elif not math.isfinite(v) or (v <= 0 if least is None else v < least):
            raise ValueError(f"{flag} must be a finite number {'> 0' if least is None else f'>= {least:g}'}, got {v:g}")


def _check_search_on(flag: str, value, distilled: bool = False) -> None:
    """A ``--search-on``/``--label-search-on`` value, refused naming the flag as typed (the library's
    message names its parameter: "unknown search_on value 'card'"). ``distilled``: the flag names the types
    distilled (distil's and expert-iterate's ``--search-on``): ``none`` is refused there, and not listed as valid."""
    from .expert import parse_search_on

    try:
        parse_search_on(value, what=None, distilled=distilled)  # the flag names it
    except ValueError as e:
        raise ValueError(f"{flag} {' '.join(value) if isinstance(value, list) else value}: {e}") from None


_DISTIL_FLAGS = {"--epochs": (1, True), "--batch-size": (2, True), "--lr": (None, False), "--tau": (0, False),
                 "--prior": (0, False), "--bid-weight": (0, False), "--torch-threads": (1, True)}


def cmd_distil(args) -> int:
    from cardzoo.agents.options import option_args
    from cardzoo.agents.policy import read_meta

    from .expert import _policy_dir, distil

    _check_numbers(args, _DISTIL_FLAGS)
    _check_search_on("--search-on", args.search_on, distilled=True)
    for name in args.labels:  # '' was read as the current folder: "no label file at ."
        if not name.strip():
            raise ValueError(f"--labels {name!r} is an empty path: give the label files of cardzoo label, e.g. --labels labels.npz")

    reference = args.reference or f"{read_meta(_policy_dir(args.init))['game']}/rule"
    meta_file = Path(args.out) / "agent.json"
    stamp = meta_file.stat().st_mtime_ns if meta_file.is_file() else None  # an earlier agent there (--overwrite)
    try:
        s = distil(
            args.init, args.labels, args.out, epochs=args.epochs, lr=args.lr, tau=args.tau, prior=args.prior,
            bid_weight=args.bid_weight, batch_size=args.batch_size, seed=args.seed, torch_threads=args.torch_threads,
            reference=None if reference == "none" else reference, search_on=args.search_on, overwrite=args.overwrite,
        )
    except KeyboardInterrupt:  # say what was written and how to run it again (main() then says "interrupted", exit 130)
        if meta_file.is_file() and meta_file.stat().st_mtime_ns != stamp:  # only after the agent was saved whole
            print(f"\nthe distilled agent was written to {args.out} before the interrupt", file=sys.stderr)
            raise
        kept = (f"{args.out} still holds the earlier agent, unchanged" if stamp is not None else
                f"{args.out} was not made" if not Path(args.out).exists() else f"{args.out} is unchanged")
        again = shlex.join(["cardzoo", *(getattr(args, "argv", None) or ["distil", args.init, args.out, "--labels", *args.labels])])
        print(f"\nnothing was written: the distilled agent is saved only after the last of its {args.epochs} epoch"
              f"{'s' if args.epochs != 1 else ''} (--epochs), so {kept}. To distil, run it again (from the start; fewer "
              f"--epochs take less time): {again}", file=sys.stderr)
        raise
    print(f"{s['card_positions']:,} card positions, {s['other_positions']:,} other positions, {s['seconds']:.0f} s; "
          f"regret in reward units per decision (lower: closer to the search; whether it plays better, the arena says):")
    _print_type_table(s)
    # the agent plays only the options it was trained for (avinas/ppo: honesty=mask): the command gives them, else the
    # arena would seat the rule bot in its place and measure the rule bot against itself
    evaluate = shlex.join(["cardzoo", "arena", s["game"], str(args.out), f"{s['game']}/rule", "--deals", "2000",
                           *option_args(read_meta(args.out).get("env_options") or {})])
    print(f"agent written to {args.out} (with distillation.png); evaluate: {evaluate}")
    return 0


def cmd_expert_iterate(args) -> int:
    from .expert import expert_iterate, rounds_table

    _check_numbers(args, {"--rounds": (1, True), "--games": (1, True), "--n-det": (1, True), "--batch": (1, True),
                          "--arena-deals": (0, True), "--workers": (1, True), **_DISTIL_FLAGS})
    _check_search_on("--label-search-on", args.label_search_on)
    _check_search_on("--search-on", args.search_on, distilled=True)
    if args.workers > args.games:
        raise ValueError(f"--workers {args.workers} is more than --games {args.games}: each labelling process needs a deal")
    out = Path(args.out)
    if args.resume and not (out.is_dir() and any(out.iterdir())):  # a typo in --out would start over unnoticed
        print(f"note: --resume: {args.out} holds no expert-iterate run (it is new or empty); starting a new run there",
              file=sys.stderr)

    try:
        rows = expert_iterate(
            args.game, args.out, rounds=args.rounds, init=args.init, games=args.games, n_det=args.n_det,
            label_search_on=args.label_search_on, search_on=args.search_on, batch=args.batch, epochs=args.epochs, lr=args.lr,
            tau=args.tau, prior=args.prior, bid_weight=args.bid_weight, batch_size=args.batch_size, arena_deals=args.arena_deals,
            seed=args.seed, resume=args.resume, workers=args.workers, aggregate=args.aggregate, torch_threads=args.torch_threads,
            opponent=args.opponent, rollout_opponents=args.rollout_opponents,
        )
    except KeyboardInterrupt:  # say what is kept and how to go on (main() then says "interrupted", exit 130)
        if (Path(args.out) / "run.json").is_file():
            done = sum((Path(args.out) / f"round_{r}" / "round.json").is_file() for r in range(1, args.rounds + 1))
            argv = [*args.argv, *([] if args.resume else ["--resume"])]
            print(f"\n{args.out} keeps {done} finished round(s) of {args.rounds}; finish the run with: "
                  f"cardzoo {shlex.join(argv)}", file=sys.stderr)
        raise
    print(rounds_table(rows))
    print(f"written: {args.out}/rounds.md, rounds.json, rounds.png; round r's agent: {args.out}/round_r/agent")
    last = next((r["agent"] for r in reversed(rows) if r.get("agent")), None)
    if last is not None:  # under the agent's options (avinas: honesty=mask), else the arena seats the rule bot for it
        from cardzoo.agents.options import option_args
        from cardzoo.agents.policy import read_meta

        evaluate = shlex.join(["cardzoo", "arena", args.game, str(last), f"{args.game}/rule", "--deals", "2000",
                               *option_args(read_meta(last).get("env_options") or {})])
        print(f"evaluate the last round's agent: {evaluate}")
    return 0


def add_commands(sub, games, parse_options) -> None:
    """Register the train / arena / play sub-commands on ``sub``."""
    # every default comes from TrainConfig (training/config.py imports neither torch nor SB3)
    from .common import seed_arg
    from .config import EXPERT_ROUNDS, TrainConfig

    d = TrainConfig()
    opp = ",".join(f"{k}={v:g}" for k, v in d.opponents.items())

    t = sub.add_parser("train", help="self-play training with MaskablePPO, then evaluation")
    t.add_argument("game", choices=games)
    t.add_argument("--steps", type=int, default=d.total_steps, help=f"PPO environment steps (default {d.total_steps:,}), "
                   "rounded up to whole rollouts of --n-envs x --n-steps")
    t.add_argument(
        "--bc-samples", type=int, default=d.bc_samples,
        help=f"rule-bot decisions to behaviour-clone first (default {d.bc_samples:,}; 0: start from scratch); whole "
        "games are collected, so a few more",
    )
    t.add_argument(
        "--bc-epochs", type=int, default=d.bc_epochs,
        help=f"most epochs of behaviour cloning (default {d.bc_epochs}); it stops once the held-out agreement stops rising",
    )
    t.add_argument(
        "--bc-teacher", type=agent_arg, default=None,
        help="agent to behaviour-clone (a registered name of this game or a saved agent's path; default: GAME/rule)",
    )
    t.add_argument(
        "--bc-teacher-option", action="append", default=[], metavar="NAME=VALUE",
        help="keyword option of a registered teacher (repeatable), e.g. rank_order=0,1,2,3,4,5,6,8,7 for pyanitsa/rule",
    )
    t.add_argument("--n-envs", type=int, default=d.n_envs, help=f"games in lockstep (default {d.n_envs})")
    t.add_argument("--seed", type=seed_arg, default=d.seed, help=f"seeds the deals, the network and the opponents (default {d.seed})")
    t.add_argument("--opponents", default=opp, help=f"opponent-pool family weights (default {opp})")
    t.add_argument(
        "--snapshot-every", type=int, default=d.snapshot_every,
        help=f"rollouts between learner snapshots into the pool (default {d.snapshot_every})",
    )
    t.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every, help=f"steps between checkpoints (default {d.checkpoint_every:,})")
    t.add_argument("--eval-deals", type=int, default=d.eval_deals,
                   help=f"duplicate deals per evaluation pairing (default {d.eval_deals}; 0: skip); the behaviour-cloned "
                   f"start is checked on {d.bc_eval_deals} deals, or this many if fewer")
    t.add_argument("--out", default=None, help="output directory (default runs/GAME; with --resume, the resumed model's own run "
                   "folder); must not hold an earlier run unless --resume or --overwrite")
    t.add_argument("--resume", type=model_arg, default=d.resume, help="continue the run in --out from one of its model .zip files (OUT/checkpoints/model_N.zip or OUT/model.zip)")
    t.add_argument("--overwrite", action="store_true", default=d.overwrite, help="delete the earlier run's outputs in --out and start afresh")
    t.add_argument(
        "--change-options", action="store_true", default=d.change_options,
        help="with --resume: continue the model under other game options (-o) than its run's, e.g. to fine-tune on a variant "
        "(refused otherwise)",
    )
    t.add_argument("--option", "-o", action="append", help="env option name=value (repeatable)")
    t.add_argument("--skip-forced", action="store_true", default=d.skip_forced, help="the env plays decisions with one legal action itself (e.g. P'yanitsa's FLIP)")
    t.add_argument(
        "--privileged-critic", action="store_true", default=d.privileged_critic,
        help="the critic also sees the hidden cards (kernel global_state); the actor still sees only its observation",
    )
    t.add_argument("--init-from", type=agent_arg, default=d.init_from, help="start the actor from a saved agent (path), instead of behaviour cloning")
    t.add_argument("--critic-warmup", type=int, default=d.critic_warmup_steps, help="steps during which only the critic learns (e.g. after --init-from)")
    t.add_argument("--n-steps", type=int, default=d.n_steps, help=f"steps per game per rollout (default {d.n_steps})")
    t.add_argument("--batch-size", type=int, default=d.batch_size, help=f"PPO minibatch size (default {d.batch_size})")
    t.add_argument("--lr", type=float, default=d.learning_rate, help=f"learning rate (default {d.learning_rate})")
    t.add_argument("--clip-range", type=float, default=d.clip_range, help=f"PPO clip range (default {d.clip_range})")
    t.add_argument("--ent-coef", type=float, default=d.ent_coef, help=f"entropy bonus (default {d.ent_coef})")
    t.add_argument("--torch-threads", type=torch_threads_arg, default=d.torch_threads, help=f"torch threads (default {d.torch_threads})")
    t.add_argument(
        "--expert-rounds", type=int, default=None,
        help="rounds of expert iteration after PPO: PIMC labels of the agent's card decisions, then distillation "
        f"(training/EXPERT.md); default: {', '.join(f'{g} {n}' for g, n in EXPERT_ROUNDS.items())}, 0 for the other games",
    )
    t.add_argument("--expert-games", type=int, default=d.expert_games, help=f"deals labelled per round (default {d.expert_games:,})")
    t.add_argument("--expert-n-det", type=int, default=d.expert_n_det, help=f"PIMC determinizations per label (default {d.expert_n_det})")
    t.add_argument("--expert-epochs", type=int, default=d.expert_epochs, help=f"distillation epochs per round (default {d.expert_epochs})")
    t.add_argument("--expert-arena-deals", type=int, default=d.expert_arena_deals,
                   help=f"duplicate deals of each round's agent against the rule bot (default {d.expert_arena_deals}; 0: none)")
    t.add_argument("--expert-workers", type=int, default=d.expert_workers,
                   help=f"labelling processes at once, one per core (default {d.expert_workers})")
    t.set_defaults(fn=lambda a: cmd_train(a, parse_options))

    a = sub.add_parser("arena", help="duplicate-deal evaluation of agents, with CIs and ratings")
    a.add_argument("game", choices=games)
    a.add_argument("agents", nargs="+", help="agent names (e.g. all_fours/ppo all_fours/rule random), a name with the agent's own "
                   "parameters (all_fours/pimc:n_det=8,search=phase) or saved-agent paths")
    a.add_argument("--deals", type=int, default=2000, help="duplicate deals per pairing (default 2000; a CI needs 2 or more: with 1 it is n/a, null in --json)")
    a.add_argument("--seed", type=seed_arg, default=0, help="seeds the deals (default 0) and, as seed + i, the i-th agent "
                   "named (random, search): the same list of agents and seed give the same numbers")
    a.add_argument("--json", default=None, help="also write the results as JSON to this file (a new file, unless --overwrite)")
    a.add_argument("--overwrite", action="store_true", help="replace an existing --json file (refused otherwise)")
    a.add_argument("--option", "-o", action="append", help="env option name=value (repeatable)")
    a.add_argument("--batch", type=int, default=256, help="deals played at once (default 256); speed and memory only: the same results for any batch, except for stochastic agents (random, search), which draw one batch at a time")
    a.add_argument("--exec-timeout", type=float, default=10.0, help="seconds an exec: bot has for each answer (default 10)")
    a.add_argument(
        "--force-agent", action="store_true",
        help="play a trained agent even where it was trained for other game options (default: the rule bot plays instead)",
    )
    a.set_defaults(fn=lambda a_: cmd_arena(a_, parse_options))

    lbd = sub.add_parser(
        "leaderboard", help="round robin of a game's agents on the cardzoo-bench v1 deals: matrix, ratings, heatmap",
        description="Every pair of agents plays duplicate deals of the published deal set cardzoo-bench v1 "
        "(training/LEADERBOARD.md); writes leaderboard.md, leaderboard.json and leaderboard.png to --out. "
        "Pairings are cached in OUT/pairs: run the same command again to resume.",
    )
    lbd.add_argument("game", choices=games)
    lbd.add_argument("agents", nargs="*", default=[], help="agents: names (with parameters: GAME/pimc:n_det=8), paths, entry points or exec:COMMAND "
                     "(default: random, GAME/rule, GAME/ppo, GAME/pimc where they exist)")
    lbd.add_argument("--deals", type=int, default=1000, help="deals per pairing (default 1000)")
    lbd.add_argument("--seed", type=seed_arg, default=20261201, help="deal set seed (default 20261201: cardzoo-bench v1)")
    lbd.add_argument("--out", default=None, help="output folder (default runs/leaderboard/GAME); cached pairings there are reused")
    lbd.add_argument("--batch", type=int, default=256, help="deals played at once (default 256); speed and memory only, except for "
                     "stochastic agents (random, GAME/pimc), which draw one batch at a time: give the same --batch to reproduce or resume a board")
    lbd.add_argument("--boot", type=int, default=1000, help="bootstrap resamples for the rating CIs (default 1000)")
    lbd.add_argument("--exec-timeout", type=float, default=10.0, help="seconds an exec: bot has for each answer (default 10)")
    lbd.add_argument("--option", "-o", action="append", help="env option name=value (repeatable)")
    lbd.add_argument(
        "--force-agent", action="store_true",
        help="play a trained agent even where it was trained for other game options (default: refused, naming its "
        "options; a default GAME/ppo that does not fit is left out)",
    )
    lbd.set_defaults(fn=lambda a_: cmd_leaderboard(_leaderboard_out(a_), parse_options))

    ex = sub.add_parser(
        "exploit", help="exploitability proxy: train a best-response learner against a frozen agent, report its edge",
        description="A MaskablePPO learner (started from a behaviour clone of the rule bot) trains for a fixed budget "
        "against the frozen agent only, then plays it on fresh duplicate deals: its edge (mean score difference per "
        "hand, deal or game, with its 95% CI) is a lower bound of the agent's exploitability for that budget (training/exploit.py).",
    )
    ex.add_argument("agent", type=agent_positional, help="the frozen agent: a name such as all_fours/ppo (with its parameters: all_fours/rule:KEY=VALUE), "
                    "or a saved agent's path")
    ex.add_argument("--game", choices=games, default=None, help="the game (default: the agent name's prefix, or the game a saved agent "
                    "was trained for)")
    ex.add_argument("--steps", type=int, default=100_000, help="learner's PPO steps (default 100,000)")
    ex.add_argument("--n-envs", type=int, default=64, help="games in the training batch (default 64)")
    ex.add_argument("--bc-samples", type=int, default=50_000, help="rule-bot behaviour-cloning samples to start from (default 50,000; 0: scratch, needed for P'yanitsa)")
    ex.add_argument("--skip-forced", action="store_true", help="the training env plays decisions with one legal action itself (P'yanitsa's FLIP)")
    ex.add_argument("--deals", type=int, default=1000, help="fresh duplicate deals for the edge (default 1000)")
    ex.add_argument("--seed", type=seed_arg, default=0, help="seeds the training (default 0); the edge is measured on the "
                    "deals of seed + 4242, never trained on")
    ex.add_argument("--out", default=None, help="run folder (default runs/exploit/GAME_AGENT; never overwritten)")
    ex.add_argument("--torch-threads", type=torch_threads_arg, default=1, help="torch threads (default 1)")
    ex.add_argument("--option", "-o", action="append", help="env option name=value (repeatable)")
    ex.set_defaults(fn=lambda a_: cmd_exploit(a_, parse_options))

    lb = sub.add_parser(
        "label", help="expert iteration, step 1: label a policy's positions (card play, bids) with PIMC search",
        description="Play deals between a trained policy (one team) and an opponent; at every card decision with a "
        "choice, store the observation and the PIMC search value of each legal card (agents/shipped/README.md, All Fours: how the "
        "shipped agent was made) and of each bid, declaration or signal (--label-search-on chooses which; default all); every game can be labelled "
        "(training/EXPERT.md). About 900 labels per second per core (All Fours, n-det 32, the compiled kernel); run one process per core with different seeds.",
    )
    lb.add_argument("game", choices=games, help="the game")
    lb.add_argument("out", help="label file to write (a name ending in .npz); rewritten after every batch")
    lb.add_argument("--policy", type=agent_arg, default=None, help="saved policy directory or shipped name that plays one team (default GAME/ppo)")
    lb.add_argument("--games", type=int, default=10_000, help="deals to play (default 10,000; about 22 labels each)")
    lb.add_argument("--n-det", type=int, default=32, help="PIMC determinizations per label (default 32)")
    lb.add_argument("--batch", type=int, default=256, help="deals played at once (default 256)")
    lb.add_argument("--opponent", type=agent_arg, default=None,
                    help="the other team's agent (default GAME/rule; a name may carry its parameters, GAME/rule:KEY=VALUE); "
                    "several joined by commas take turns deal by deal")
    lb.add_argument("--rollout", type=agent_arg, default=None, help="the search's rollout agent (default GAME/rule; with its parameters: GAME/rule:KEY=VALUE)")
    lb.add_argument("--rollout-opponents", default=None, metavar="MODEL",
                    help="the rollout agent's model of the other seats (all_fours/rule: rule, random; pyanitsa/rule: rule, "
                    "random, mixed); default: the agent's own (rule)")
    lb.add_argument("--seed", type=seed_arg, default=0, help="seeds the deals, the policy's sampling and the search (default 0)")
    lb.add_argument(
        "--label-search-on", nargs="+", default=None, metavar="TYPE",
        help="decision types whose positions get PIMC values in the label file: cards, others (bids, declarations, "
        "signals), all (default), none; the other types' positions are stored without values (for distil's KL term)",
    )
    lb.add_argument("--search-on", nargs="+", dest="old_search_on", default=None, metavar="TYPE",
                    help="deprecated name of --label-search-on")
    lb.add_argument("--overwrite", action="store_true", help="replace an existing label file (refused otherwise)")
    lb.set_defaults(fn=lambda a_: cmd_label(_policy_default(a_)))

    ds = sub.add_parser(
        "distil", help="expert iteration, step 2: train a saved policy's card play on PIMC labels",
        description="Train the actor of a saved policy towards p_start(a)**prior * exp(q(a)/tau) over the legal cards "
        "of labelled positions, keeping its bids by a KL term; prints held-out agreement and regret against the "
        "search, and writes the new agent with distillation.png. The defaults are the shipped All Fours recipe.",
    )
    ds.add_argument("init", type=agent_positional, help="saved policy directory or shipped name to start from (e.g. all_fours/ppo)")
    ds.add_argument("out", help="directory for the new agent (a new or empty folder, unless --overwrite)")
    ds.add_argument("--overwrite", action="store_true", help="replace a saved agent already in out (refused otherwise)")
    ds.add_argument("--labels", nargs="+", required=True, help="label files from cardzoo label")
    ds.add_argument("--epochs", type=int, default=4, help="passes over the labels (default 4)")
    ds.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 1e-3)")
    ds.add_argument("--tau", type=float, default=0.05, help="temperature on PIMC values, reward units (default 0.05; 0: PIMC's best card)")
    ds.add_argument(
        "--prior", type=float, default=0.25,
        help="target proportional to p_start(a)**prior * exp(q(a) / tau) (default 0.25; 0: a softmax of the values alone)",
    )
    ds.add_argument("--reference", type=agent_arg, default=None, help="agent whose held-out agreement/regret is shown for comparison (default GAME/rule; 'none': skip)")
    ds.add_argument("--bid-weight", type=float, default=1.0, help="weight of the KL term that keeps the bids (default 1)")
    ds.add_argument("--batch-size", type=int, default=1024, help="card positions per minibatch (default 1024)")
    ds.add_argument("--seed", type=seed_arg, default=0, help="seeds the held-out split, the shuffling and torch (default 0)")
    ds.add_argument("--torch-threads", type=torch_threads_arg, default=1, help="torch threads (default 1)")
    ds.add_argument(
        "--search-on", default="cards",
        help="decision types distilled: trained towards the labels' PIMC values: cards (default, the All Fours recipe), "
        "others, all; each must have values in the labels (cardzoo label --label-search-on); the other types are kept "
        "near the start policy (KL term)",
    )
    ds.set_defaults(fn=cmd_distil)

    ei = sub.add_parser(
        "expert-iterate", help="expert iteration in rounds: label -> distil -> label the new policy -> ...",
        description="Each round labels the current policy's positions with PIMC search (cardzoo label), distils them "
        "(cardzoo distil) and plays the result against the rule bot; round r goes to OUT/round_r/. Prints and writes "
        "a table of held-out regret per decision type and arena result per round (rounds.md, rounds.json) and a plot "
        "(rounds.png). Refuses an OUT that holds an earlier run unless --resume, and a non-empty OUT that holds no "
        "expert-iterate run (training/EXPERT.md).",
    )
    ei.add_argument("game", choices=games)
    ei.add_argument("--out", required=True, help="run folder (new, or an earlier run with --resume)")
    ei.add_argument("--rounds", type=int, default=2, help="rounds (default 2)")
    ei.add_argument("--init", type=agent_arg, default=None, help="starting policy: saved directory or shipped name (default GAME/ppo)")
    ei.add_argument("--games", type=int, default=200, help="deals labelled per round (default 200)")
    ei.add_argument("--n-det", type=int, default=8, help="PIMC determinizations per label (default 8)")
    ei.add_argument("--batch", type=int, default=64, help="deals labelled at once (default 64)")
    ei.add_argument(
        "--label-search-on", default="all",
        help="decision types that get PIMC values in each round's labels (cardzoo label --label-search-on): cards, "
        "others, all (default: all, so that the table measures both)",
    )
    ei.add_argument(
        "--search-on", default="cards",
        help="decision types distilled each round, trained towards the PIMC values (cardzoo distil --search-on): "
        "cards (default), others, all; must be among --label-search-on; the others are kept near the round's start policy",
    )
    ei.add_argument("--epochs", type=int, default=4, help="distillation epochs per round (default 4)")
    ei.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 1e-3)")
    ei.add_argument("--tau", type=float, default=0.05, help="temperature on PIMC values (default 0.05)")
    ei.add_argument("--prior", type=float, default=0.25, help="exponent of the start policy in the target (default 0.25)")
    ei.add_argument("--bid-weight", type=float, default=1.0, help="weight of the KL term on the kept decision types (default 1)")
    ei.add_argument("--batch-size", type=int, default=1024, help="positions per minibatch (default 1024)")
    ei.add_argument("--arena-deals", type=int, default=100, help="duplicate deals vs GAME/rule per round (default 100; 0: none)")
    ei.add_argument("--seed", type=seed_arg, default=0, help="seeds labels (seed + round), distillation and arena (seed + 10000)")
    ei.add_argument("--resume", action="store_true", help="continue the run in --out (complete rounds are kept)")
    ei.add_argument("--workers", type=int, default=1, help="labelling processes at once, one per core (default 1)")
    ei.add_argument(
        "--aggregate", action="store_true",
        help="each round distils the starting policy on the labels of every round so far (DAgger-style), not the round's "
        "policy on its own labels",
    )
    ei.add_argument("--torch-threads", type=torch_threads_arg, default=1, help="torch threads of the distillation (default 1)")
    ei.add_argument("--opponent", type=agent_arg, default=None,
                    help="whom the round's policy plays while labelled (default GAME/rule; a name may carry its parameters, "
                    "GAME/rule:KEY=VALUE); several joined by commas take turns deal by deal")
    ei.add_argument("--rollout-opponents", default=None, metavar="MODEL",
                    help="the search's model of the other seats in its rollouts (all_fours/rule: rule, random; pyanitsa/rule: "
                    "rule, random, mixed); default: the rule bot")
    ei.set_defaults(fn=cmd_expert_iterate)

    p = sub.add_parser(
        "play", help="play seat 0 in the terminal against AI players (with an AI partner in partnership games)"
    )
    p.add_argument("game", choices=games)
    p.add_argument("--partner", type=agent_arg, default=None, help="partner agent (default: GAME/ppo if shipped and fitting the options, else GAME/rule; a name may "
                   "carry its parameters: GAME/pimc:n_det=8)")
    p.add_argument("--opponents", type=agent_arg, default=None, help="opponents' agent (same default as --partner)")
    p.add_argument("--seed", type=seed_arg, default=None, help="seeds the deals (default: new cards every time)")
    p.add_argument("--option", "-o", action="append", help="env option name=value (repeatable)")
    p.add_argument(
        "--force-agent", action="store_true",
        help="seat a trained agent even where it was trained for other game options (default: the rule bot plays instead)",
    )
    p.add_argument("--exec-timeout", type=float, default=10.0,
                   help="seconds an exec: bot has for each answer, its ready included (default 10)")
    p.set_defaults(fn=lambda a_: cmd_play(_default_ai(a_, parse_options), parse_options))


def _leaderboard_out(args):
    if args.out is not None and not args.out.strip():
        raise ValueError(f"--out {args.out!r} is an empty path: give the folder to write, e.g. --out runs/leaderboard/{args.game} "
                         "(or leave --out out for that default)")
    args.out = args.out or str(Path("runs") / "leaderboard" / args.game)
    from . import arena, leaderboard

    leaderboard.check_out(args.out, args.game, "--out")  # a file: refused before any agent loads
    for flag, value, least in (("--deals", args.deals, 1), ("--batch", args.batch, 1), ("--boot", args.boot, 0)):
        arena.check_count(value, flag, least)  # "--deals must be an int >= 1, got 0" (run_leaderboard would say n_deals)
    check_exec_timeout(args.exec_timeout)
    return args


def check_exec_timeout(seconds: float) -> None:
    """``--exec-timeout`` must be a positive number of seconds, whether or not an ``exec:`` bot is named
    (the bot's own check says "exec: agent timeout", and without a bot -1 was taken silently)."""
    import math

    from cardzoo.agents.external import MAX_TIMEOUT

    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"--exec-timeout must be a positive number of seconds (default 10), got {seconds:g}")
    if seconds > MAX_TIMEOUT:  # 1e300 ended the run in a traceback (select: timestamp out of range for platform time_t)
        raise ValueError(f"--exec-timeout must be at most {MAX_TIMEOUT:,.0f} seconds (a day; default 10), got {seconds:g}")


def _policy_default(args):
    args.policy = args.policy or f"{args.game}/ppo"
    return args


def _default_ai(args, parse_options):
    """Fill in the AI names: the shipped trained agent if it loads, else the rule bot."""
    from cardzoo import envs

    from .common import check_partner, default_agent

    options = parse_options(args.option)
    kernel = envs.kernel(args.game, **options)  # bad options fail first (ValueError), before any agent is loaded or announced
    check_partner(args.game, kernel, args.partner)
    alone = kernel.teams is None  # every player alone: only --opponents is used, the partner stays None
    if args.opponents and (alone or args.partner):  # all named: no default to load
        return args
    default, note = default_agent(args.game, options, force=getattr(args, "force_agent", False))
    if note:
        print(f"note: {note}; playing with {default}")
        # play() says nothing more about seating it (with --force-agent it would say it again), nor about
        # the shipped agent this note is about, when it is also named for the other seats
        args.said = (default, f"{args.game}/ppo")
    args.partner = None if alone else args.partner or default
    args.opponents = args.opponents or default
    return args

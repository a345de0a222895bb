"""The ``cardzoo`` command line: train, arena, play, label, distil, bench, demo, serve, bench-web.

Run ``cardzoo --help`` or ``cardzoo COMMAND --help``. Heavy imports (torch, sb3) happen
inside the commands that need them, so ``cardzoo bench`` starts fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .common import parse_options, seed_arg


def _one_core() -> None:
    """Pin this process to one core and one thread (benchmarks are per core)."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
        os.environ[var] = "1"
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        except OSError:
            pass


def _check_json_path(path: str, example: str = "bench.json") -> None:
    """A ``--json`` file of ``bench`` and ``bench-web``, before the run: a new file in a folder that exists and
    takes files (a run never overwrites another)."""
    from .common import check_can_write, refuse_folder_name

    refuse_folder_name(path, "--json", example)  # "runs/" passed every check, then open() failed at the run's end
    if os.path.isdir(path):  # said "--json /tmp exists; a run never overwrites another" (arena: "is a folder")
        raise ValueError(f"--json {path} is a folder; give a file name such as {os.path.join(path, example)}")
    if os.path.exists(path):
        raise ValueError(f"--json {path} exists; a run never overwrites another: choose a new path")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ValueError(f"--json {path}: folder {parent} does not exist")
    check_can_write(path, "--json")


def cmd_bench(args) -> int:
    """``cardzoo bench [GAME ...]``: one interleaved benchmark run (training/bench.py, training/BENCHMARKS.md)."""
    import math

    from cardzoo import envs

    games = args.game or sorted(envs.GAMES)
    bad = [g for g in games if g not in envs.GAMES]
    if bad:
        raise ValueError(f"unknown game(s) {bad}; available games: {sorted(envs.GAMES)} (none: all of them)")
    if any(b < 1 for b in args.batch):
        raise ValueError(f"--batch sizes must be >= 1, got {args.batch}")
    if not (math.isfinite(args.seconds) and args.seconds > 0):
        raise ValueError(f"--seconds must be a positive number, got {args.seconds}")
    if args.rounds < 1:
        raise ValueError(f"--rounds must be >= 1, got {args.rounds}")
    if args.option and len(games) != 1:
        raise ValueError(f"--option applies to one game: give exactly one GAME (got {len(games)} games)")
    if args.json is not None and not args.json.strip():  # "" was taken as no --json: the numbers went unwritten
        raise ValueError(f"--json {args.json!r} is an empty path: give the file to write, e.g. --json bench.json (or leave --json out)")
    if args.json:
        _check_json_path(args.json)
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    _one_core()  # the rows are per core; the 2-core rows run in a worker process given `cpus`
    from . import bench
    from .common import report_console

    try:
        res = bench.run(
            games, args.batch, args.seconds, args.rounds,
            options=parse_options(args.option), skip=args.skip or (), cpus=cpus,
        )
    except MemoryError as e:  # --batch 99999999999 ended in numpy's _ArrayMemoryError traceback
        raise ValueError(f"--batch {max(args.batch):,} games at once do not fit in memory ({e}); give smaller --batch "
                         "sizes (default 4096)") from None
    res["settings"]["command"] = "cardzoo " + " ".join(args.argv)
    console = report_console()
    for table in bench.rich_tables(res):
        console.print(table)
    if args.markdown:
        print(bench.markdown(res))
    if args.json:
        with open(args.json, "x") as f:
            json.dump(res, f, indent=2)
        print(f"written: {args.json}")
    return 0


def cmd_lengths(args) -> int:
    """P'yanitsa game-length study (training/STUDIES.md): every setting, ``--games`` games each."""
    if args.games < 1:
        raise ValueError(f"--games must be >= 1, got {args.games}")
    from . import pyanitsa_lengths

    settings = pyanitsa_lengths.SETTINGS
    if args.only:
        n = len(settings)
        bad = [i for i in args.only if not 0 <= i < n]
        if bad or len(set(args.only)) != len(args.only):
            listing = "; ".join(
                f"{i}: {s['num_players']} players, {s['objective']}, {s['collect_order']}" for i, s in enumerate(settings)
            )
            raise ValueError(f"--only takes distinct setting indices 0..{n - 1}, got {args.only}; settings: {listing}")
        settings = [settings[i] for i in args.only]
    from .common import check_can_write

    check_can_write(args.out, "--out", makes_folder=True)  # /proc/x: refused before the games are played
    rows = pyanitsa_lengths.run_all(args.games, args.out, settings, seed=args.seed)
    print(pyanitsa_lengths.markdown(rows))
    print(f"written: {args.out}/lengths.json, lengths.md, game_lengths.png")
    return 0


#: tables a demo prints after battles (P'yanitsa: a game of forced FLIPs, often hundreds of battles) before it
#: only counts them; after tricks it prints every one (a hand has at most 15)
DEMO_BATTLE_TABLES = 3
#: a run of more forced moves (one legal action) than this is summarised in one line, unless --every-move
DEMO_FORCED_RUN = 8


def cmd_demo(args) -> int:
    """Play one hand with random legal actions, printing every decision and the table after each trick
    (after the first battles only, in P'yanitsa, then its decisions alone); forced moves (one legal move)
    in long runs, or after those battles, are summarised in one line unless ``--every-move``."""
    import numpy as np

    from cardzoo import envs

    options = parse_options(args.option)
    fixed = sorted(k for k in options if k in ("render_mode", "render_view"))
    if fixed:  # envs.make would raise TypeError: got multiple values for keyword argument 'render_mode'
        raise ValueError(f"-o {', '.join(fixed)}: cardzoo demo sets them itself (render_mode='ansi', render_view='all': "
                         "the whole table as text); leave them out and give only the game's options")
    env = envs.make(args.game, render_mode="ansi", render_view="all", **options)
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    state = env.unwrapped.game_state
    counter = "tricks_done" if hasattr(state, "tricks_done") else "battles" if hasattr(state, "battles") else None
    word = {"tricks_done": "trick", "battles": "battle"}.get(counter)
    events = int(getattr(state, counter)[0]) if counter else 0
    every = getattr(args, "every_move", False)
    shown = [env.render()]  # the last table printed
    print(shown[0])
    forced: list[tuple[str, str, int]] = []  # (agent, move, events before it): forced moves not yet printed
    hidden: list[tuple[str, str, int]] = []  # forced moves after the battles with tables: one line at the end

    def flush(moves: list, summary: bool = False) -> None:
        if not summary and len(moves) <= DEMO_FORCED_RUN:
            for agent, move, _ in moves:
                print(f"{agent} plays {move}")
        elif moves:
            names = {}
            for _, move, _ in moves:
                names[move] = names.get(move, 0) + 1
            kinds = ", ".join(f"{m} x{n}" for m, n in names.items())
            span = ""
            if counter:
                first, last = moves[0][2] + 1, max(events, moves[-1][2] + 1)
                span = f" in {word}s {first}-{last}" if last > first else f" in {word} {first}"
            print(f"... {len(moves)} forced moves{span} not shown ({kinds}; each the only legal move; "
                  "--every-move shows them) ...")
        moves.clear()

    returns = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        move = env.action_name(action)
        quiet = counter == "battles" and events >= DEMO_BATTLE_TABLES and not every  # no more tables: decisions only
        if len(legal) == 1 and not every:
            (hidden if quiet else forced).append((agent, move, events))
        else:
            flush(forced)
            print(f"after {word} {events}: {agent} plays {move}" if quiet else f"{agent} plays {move}")
        env.step(action)
        now = int(getattr(state, counter)[0]) if counter else events
        if now != events:
            events = now
            if every or counter == "tricks_done" or events <= DEMO_BATTLE_TABLES:
                flush(forced)
                shown[0] = env.render()
                print(shown[0])
    flush(forced)
    flush(hidden, summary=True)
    final = env.render()
    if final != shown[0]:  # the last trick's table is the final one: not printed twice
        print(final)
    print("returns:", {a: round(float(v), 6) for a, v in returns.items()})  # 0.333333: a game's returns as people read them
    return 0


def cmd_serve(args) -> int:
    """Run the web card table (``training/web``) until interrupted."""
    from .web.app import serve

    if args.agents_dir is not None and not args.agents_dir.strip():  # it offered the current folder's agents
        raise ValueError(f"--agents-dir {args.agents_dir!r} is an empty path: give the folder of your saved agents, "
                         "e.g. --agents-dir runs/all_fours (or leave --agents-dir out)")
    serve(args.host, args.port, open_browser=not args.no_browser, agents_dir=args.agents_dir)
    return 0


def cmd_bench_web(args) -> int:
    """Load test of the web card table; exit code 1 if any client saw an error."""
    import math

    for flag, v in (("--clients", args.clients), ("--moves", args.moves)):
        if v < 1:  # loadtest.run names its parameters: "clients and max_moves must be >= 1 ..."
            raise ValueError(f"{flag} must be >= 1, got {v}")
    if not (math.isfinite(args.seconds) and args.seconds > 0):
        raise ValueError(f"--seconds must be a positive number, got {args.seconds:g}")
    if args.seconds > 86_400:  # 1e300 ended the run in a traceback (Thread.join: timestamp out of range for platform time_t)
        raise ValueError(f"--seconds must be at most 86,400 (a day; default 120), got {args.seconds:g}")
    if args.json is not None and not args.json.strip():
        raise ValueError(f"--json {args.json!r} is an empty path: give the file to write, e.g. --json bench_web.json "
                         "(or leave --json out)")
    if args.json:  # it was opened with "w" at the end: another run's file was replaced, an unwritable path lost the run
        _check_json_path(args.json, "bench_web.json")
    from .web import loadtest

    cap = loadtest._max_tables()
    if args.clients > cap:  # loadtest.run names its parameter: "clients must be 1 to 200 ..."
        raise ValueError(f"--clients must be 1 to {cap} (the server holds at most {cap} open tables; more clients would "
                         f"only be refused with 503), got {args.clients}")
    res = loadtest.run(clients=args.clients, games=args.games, max_moves=args.moves, seconds=args.seconds, seed=args.seed)
    print(loadtest.format_report(res))
    if args.json:
        with open(args.json, "x") as f:  # "x": a file made meanwhile is not replaced
            json.dump(res, f, indent=2)
        print(f"written: {args.json}")
    return 1 if res["errors"] else 0


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose "invalid choice" error also names the closest valid choice
    (``cardzoo trian``: "did you mean train?"; ``cardzoo demo allfours``: "did you mean all_fours?"), or
    ``--help`` (``cardzoo help``: "did you mean cardzoo --help?")."""

    def error(self, message):
        import difflib
        import re

        m = re.match(r"argument .*: invalid choice: '(.*)' \(choose from (.*)\)$", message)
        if m and m.group(1) in ("help", "-help"):  # cardzoo help, cardzoo train help
            message += f"; did you mean {self.prog} --help?"
        elif m:
            close = difflib.get_close_matches(m.group(1), re.findall(r"'([^']*)'", m.group(2)), n=1, cutoff=0.6)
            if close:
                message += f"; did you mean {close[0]}?"
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    from cardzoo import envs

    import cardzoo

    p = _Parser(prog="cardzoo", description="cardzoo: card-game environments, training and evaluation")
    p.add_argument("--version", action="version", version=f"cardzoo {cardzoo.__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    games = sorted(envs.GAMES)

    b = sub.add_parser("bench", help="throughput of every game's env() and batched kernel, against a null AEC env")
    b.add_argument("game", nargs="*", metavar="GAME", help=f"games to measure (default all: {', '.join(games)})")
    b.add_argument("--batch", type=int, nargs="+", default=[4096], help="kernel batch sizes (default 4096)")
    b.add_argument("--seconds", type=float, default=1.0, help="seconds per row per round (default 1)")
    b.add_argument("--rounds", type=int, default=5, help="interleaved rounds; rows give medians over them (default 5)")
    b.add_argument("--option", "-o", action="append", help="env option name=value (repeatable; one GAME only)")
    b.add_argument("--skip", nargs="+", choices=["texas", "scaling", "first-use", "pimc"], help="leave these parts out")
    b.add_argument("--json", default=None, metavar="PATH", help="also write every number as JSON to PATH (a new file)")
    b.add_argument("--markdown", action="store_true", help="also print the tables as Markdown")
    b.set_defaults(fn=cmd_bench)

    g = sub.add_parser("lengths", help="P'yanitsa game-length study: battles per game for 2/3/4 players and collect orders")
    g.add_argument("--games", type=int, default=1_000_000, help="games per setting (default 1,000,000)")
    g.add_argument("--out", default="runs/pyanitsa_lengths", help="output folder (default runs/pyanitsa_lengths)")
    g.add_argument("--only", type=int, nargs="+", help="indices 0-14 of the settings to run (default all; a bad index lists them)")
    g.add_argument("--seed", type=seed_arg, default=0, help="setting i plays with seed + i (default 0); a folder holds one seed")
    g.set_defaults(fn=cmd_lengths)

    d = sub.add_parser("demo", help="play one random hand and print the table")
    d.add_argument("game", choices=games)
    d.add_argument("--seed", type=seed_arg, default=0, help="seeds the deal and the random moves (default 0)")
    d.add_argument("--option", "-o", action="append", help="env option name=value (repeatable)")
    d.add_argument("--every-move", action="store_true",
                   help=f"print every move and the table after every battle (default: a run of more than {DEMO_FORCED_RUN} "
                   f"forced moves, each the only legal one, is one line; P'yanitsa's table after its first {DEMO_BATTLE_TABLES} battles only)")
    d.set_defaults(fn=cmd_demo)

    w = sub.add_parser("serve", help="the web card table: play in a browser against AI players")
    w.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    w.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free port, printed)")
    w.add_argument("--no-browser", action="store_true", help="do not open a browser")
    w.add_argument(
        "--agents-dir", default=None, metavar="DIR",
        help="also offer the saved agents in DIR (its sub-folders with an agent.json) as AI players",
    )
    w.set_defaults(fn=cmd_serve)

    lw = sub.add_parser("bench-web", help="load test of the web card table: simulated players at once")
    lw.add_argument("--clients", type=int, default=50, help="simulated players (default 50)")
    lw.add_argument("--games", nargs="+", choices=games, help="games, round robin over the clients (default all)")
    lw.add_argument("--moves", type=int, default=300, help="moves per client at most (default 300)")
    lw.add_argument("--seconds", type=float, default=120.0, help="wall-clock limit of the run (default 120)")
    lw.add_argument("--seed", type=seed_arg, default=0, help="client i's table and moves use seed + i (default 0)")
    lw.add_argument("--json", default=None, metavar="PATH", help="also write the results as JSON to PATH (a new file)")
    lw.set_defaults(fn=cmd_bench_web)

    from . import commands

    commands.add_commands(sub, games, parse_options)

    from . import rllib  # imports ray only when the command runs

    r = sub.add_parser("train-rllib", help="RLlib PPO with action masking over the batched kernel ([rllib] extra)")
    rllib.add_arguments(r, games)
    r.set_defaults(fn=rllib.cmd_train_rllib)
    return p


def unknown_arguments(parser: argparse.ArgumentParser, command: str, extra: list[str], args=None) -> None:
    """Exit 2 with the sub-command's usage and an error naming each unknown flag's closest valid ones
    (``cardzoo train all_fours --options x=1``: "did you mean --option?"). ``args`` (the parsed ones):
    ``cardzoo exploit GAME AGENT``, the arena's and leaderboard's order, is told that exploit takes the
    agent alone (argparse took the game for the agent and said only "unrecognized arguments: AGENT")."""
    import difflib

    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    flags = [f for a in sub._actions for f in a.option_strings if f.startswith("--") and f != "--help"]
    hints = []
    positional = {a.dest for a in sub._actions if not a.option_strings} & {"agent", "agents"}
    for tok in extra:
        if tok.startswith("-") and len(tok) > 1 and not tok[1:].replace(".", "").isdigit():
            name = tok.split("=", 1)[0]
            if positional and name in ("--agent", "--agents"):  # not "did you mean --force-agent?"
                game = getattr(args, "game", None) or "GAME"
                hints.append(f"{name}: the agent is named without a flag, e.g. cardzoo exploit {game}/rule" if command == "exploit" else
                             f"{name}: the agents are named without a flag, after the game, e.g. cardzoo {command} {game} {game}/rule random")
                continue
            close = difflib.get_close_matches(name, flags, n=1, cutoff=0.6)
            if close:
                hints.append(f"{name}: did you mean {close[0]}?")
    msg = f"unrecognized arguments: {' '.join(extra)}"
    from cardzoo import envs

    given = getattr(args, "agent", None)
    if command == "exploit" and isinstance(given, str) and given in envs.GAMES and not extra[0].startswith("-"):
        hints.append(f"exploit takes the agent alone, its game from the agent's name or --game: "
                     f"cardzoo exploit {extra[0] if '/' in extra[0] else f'{extra[0]} --game {given}'}")
    if hints:
        msg += " (" + "; ".join(hints) + ")"
    sub.error(msg + f"; cardzoo {command} --help lists the options")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; the exit status is 0 on success, 2 for bad input or a missing extra
    (the message names the extra to install), 130 when interrupted."""
    from cardzoo import MissingExtraError, extra_of

    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # argparse's own error came from the top parser: its usage, not the sub-command's
        unknown_arguments(parser, args.command, extra, args)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command as given (e.g. to print how to resume)
    try:
        return int(args.fn(args) or 0)
    except MissingExtraError as e:  # "error:" as every other refusal (and the ModuleNotFoundError below) says it
        if e.feature == f"cardzoo {args.command}":  # the line names the command already: "this needs", as below
            e = MissingExtraError(e.extra, e.module)
        print(f"cardzoo {args.command}: error: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:
        extra = extra_of(e.name or "")
        if extra is None:
            raise
        print(f"cardzoo {args.command}: error: {MissingExtraError(extra, e.name)}", file=sys.stderr)
        return 2
    except MemoryError as e:  # --n-det / --n-envs / --boot 10**15 ended in numpy's _ArrayMemoryError traceback
        print(f"cardzoo {args.command}: error: not enough memory for these sizes ({e}); give smaller ones "
              f"(cardzoo {args.command} --help lists them)", file=sys.stderr)
        return 2
    except BrokenPipeError:  # cardzoo demo pyanitsa | head: the reader has gone; nothing to say to it
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's exit flush would fail again on the closed pipe
        return 141  # as a shell reports a process ended by SIGPIPE
    except (ValueError, OSError) as e:  # cli_message: the error in flags (--overwrite), not keywords (overwrite=True)
        message = getattr(e, "cli_message", None) or e
        if isinstance(e, OSError) and e.strerror and e.filename is not None and str(e).startswith("[Errno "):
            message = f"{e.filename}: {e.strerror}"  # the system's own refusal: "/proc/x: No such file or directory", as ls says it
        print(f"cardzoo {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ncardzoo {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

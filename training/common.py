"""Small helpers shared by the training-side commands (train, arena, play)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from pathlib import Path

from cardzoo import agents
from cardzoo.agents import registry
from cardzoo import envs
from cardzoo.envs.core.kernel import is_real


def check_agent_game(agent, game: str, label) -> None:
    """Raise ``ValueError`` if ``agent`` (called ``label``: a registry name or a path) was made for
    another game than ``game``: a registry name ``"<other game>/..."``, or a saved policy whose
    metadata names another game. Agents for every game (e.g. ``random``) pass."""
    prefix = label.split("/", 1)[0] if isinstance(label, str) else None
    if prefix in envs.GAMES and prefix != game:  # the game's agents and those of every game, not all ~28 names
        raise ValueError(f"agent {label!r} plays {prefix}, not {game}; use an agent of {game}: {game_agents(game)}")
    meta_game = (getattr(agent, "meta", None) or {}).get("game")
    if meta_game and meta_game != game:
        raise ValueError(f"agent {label!r} was trained for {meta_game}, not {game}")


def game_agents(game: str) -> list[str]:
    """The registered agents that play ``game``: its own (``"<game>/..."``) and those of every game (``random``)."""
    return [a for a in agents.available() if a.startswith(f"{game}/") or "/" not in a]


def refuse_exec_bot(agent, where: str) -> None:
    """``ValueError`` when ``agent`` (an agent or its name) is an ``exec:`` bot (agents/external.py): such a bot is a process
    started for one run of games by the arena or ``cardzoo play`` (``begin``/``end_episodes``/``close``);
    ``where`` (e.g. "the vector env's opponents") does not run that protocol."""
    from cardzoo.agents.external import ExecAgent

    name = agent if isinstance(agent, str) else getattr(agent, "name", "")
    if isinstance(agent, ExecAgent) or (isinstance(agent, str) and agent.startswith("exec:")):
        raise ValueError(
            f"{name} is an exec: bot: it plays in `cardzoo arena`, `cardzoo leaderboard` and `cardzoo play`, "
            f"not as {where}; give a registered agent, a saved agent's path or an act(obs, mask) callable"
        )


def split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside brackets, braces and quotes (``"a=[1,2],b=3"`` -> two items)."""
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def split_agent_spec(text: str) -> tuple[str, dict]:
    """A registered agent's name with its own parameters, as the commands take it: ``"NAME:KEY=VALUE,..."``
    (``"all_fours/pimc:n_det=8,search=phase"``) -> ``("all_fours/pimc", {"n_det": 8, "search": "phase"})``.

    Only a registered name before the first ``:`` starts parameters (``exec:COMMAND`` and saved
    agents' paths, an existing path with a ``:`` included, are returned as they are, with ``{}``).
    Each value is read as ``-o`` values are (:func:`parse_option_value`: JSON where it is JSON, so a
    list or an object is written ``rank_order=[8,7,6,5,4,3,2,1,0]`` or ``params={"a":1,"b":2}``, its
    commas inside the brackets). The keys must be the agent's own parameters
    (:func:`cardzoo.agents.registry.agent_parameters`) other than ``seed`` (the command's ``--seed``
    seeds it); the agent checks the values when built.

    Raises ``ValueError`` for an item without ``=``, a key given twice, ``seed``, a game option (give
    it with ``-o``) or another unknown key, naming the agent's parameters, and for parameters of an
    agent installed from another package (an entry point: cardzoo does not know its parameters)."""
    from cardzoo.agents.registry import agent_parameters

    head, sep, tail = text.partition(":")
    if not sep or head not in agents.available() or Path(text).exists():
        return text, {}
    known = agent_parameters(head)
    if known is None:
        raise ValueError(f"agent {text!r}: {head} is installed from another package (an entry point) and cardzoo does "
                         f"not know its parameters; name it without them ({head})")
    own = [p for p in known if p != "seed"]
    params: dict = {}
    for item in split_top_level(tail):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ValueError(f"agent {text!r}: parameters go as {head}:KEY=VALUE,KEY=VALUE (a value with commas in "
                             f"[...] or {{...}}); got {item!r}; {head}'s parameters: {own}")
        if key in params:
            raise ValueError(f"agent {text!r}: parameter {key} given twice; give each once")
        if key == "seed" and "seed" in known:
            raise ValueError(f"agent {text!r}: the command's --seed seeds {head}; leave seed out of its parameters")
        if key not in own:
            game = head.split("/", 1)[0]
            if game in envs.GAMES and key in envs.kernel_class(game).OPTIONS:
                raise ValueError(f"agent {text!r}: {key} is an option of the game, not of the agent: give it with -o {key}=...")
            raise ValueError(f"agent {text!r}: {key!r} is not a parameter of {head}; its parameters: {own}")
        params[key] = parse_option_value(value)
    return head, params


def check_game_options(game: str, env_options: dict, agent_names=()) -> None:
    """``envs.kernel(game, **env_options)``: ``ValueError`` for a bad option as the game says it, with a
    hint where an unknown option is a parameter of one of the agents named (``-o n_det=8`` next to
    ``all_fours/pimc``: give it as ``all_fours/pimc:n_det=8``, :func:`split_agent_spec`)."""
    from cardzoo.agents.registry import agent_parameters

    try:
        envs.kernel(game, **env_options)
    except ValueError as e:
        if game not in envs.GAMES:
            raise
        hints = []
        for key in env_options:
            if key in envs.kernel_class(game).OPTIONS:
                continue
            for name in dict.fromkeys(str(n).partition(":")[0] for n in agent_names):
                if key in (agent_parameters(name) or ()) and key != "seed":
                    hints.append(f"{key} is a parameter of {name}, not a game option: give it as {name}:{key}=...")
        if not hints:
            raise
        raise ValueError(f"{e}; {'; '.join(hints)}") from None


def resolve_agent(name: str, env_options: dict | None = None, seed: int | None = None, game: str | None = None, exec_timeout: float | None = None):
    """Load an agent by registry name or path, passing what each kind needs.

    ``"random"`` and the agents that draw random numbers (PIMC search) get ``seed``; other registered names get the env options (rule bots read the
    observation layout from them); a registered name may carry the agent's own parameters,
    ``"all_fours/pimc:n_det=8"`` (:func:`split_agent_spec`); ``"exec:COMMAND"`` is an external bot (``exec_timeout``
    seconds per answer, default 10; ``agents/external.py``); anything else is loaded as a saved
    policy path.
    With ``game``, an agent made for another game is refused (:func:`check_agent_game`).
    Raises ``ValueError`` / ``FileNotFoundError`` with the name or path in the message, ``TypeError``
    for what is neither a name nor a path (``registry.agent_name``).
    """
    name = registry.agent_name(name)  # TypeError for None or an agent object, saying what is accepted
    env_options = dict(env_options or {})
    if game is not None:
        check_agent_game(None, game, name)  # by name, before loading
    spec = name
    name, params = split_agent_spec(name)  # "all_fours/pimc:n_det=8": the agent's own parameters
    if params:
        try:
            return _resolve(name, env_options, seed, game, exec_timeout, params)
        except ValueError as e:  # "n_det must be >= 1": of which agent, when two are named
            raise ValueError(f"agent {spec!r}: {e}") from None
    return _resolve(name, env_options, seed, game, exec_timeout, params)


def _resolve(name: str, env_options: dict, seed, game, exec_timeout, params: dict):
    """The body of :func:`resolve_agent` for a ``name`` without parameters and the agent's ``params``."""
    if name == "random":
        return agents.load("random", seed=seed, **params)
    if name.startswith("exec:"):
        from cardzoo.agents.external import DEFAULT_TIMEOUT, ExecAgent

        return ExecAgent(name[len("exec:"):], timeout=DEFAULT_TIMEOUT if exec_timeout is None else exec_timeout, name=name)
    if name in agents.available():
        if seed is not None and registry.takes_seed(name):  # search agents draw determinizations
            env_options["seed"] = seed
        agent = agents.load(name, **env_options, **params)
    else:
        try:
            agent = agents.load(name)
        except (ValueError, FileNotFoundError) as e:
            if game is None:
                raise
            # the game is known: list its agents and the game-less ones, not every game's (about 28 names)
            mine = game_agents(game)
            if isinstance(e, FileNotFoundError) and str(e).startswith(f"no agent file or folder at {name!r} "):
                raise FileNotFoundError(
                    f"no agent file or folder at {name!r} (and no registered agent of that name; agents for {game}: {mine})"
                ) from None
            if not str(e).startswith(f"unknown agent {name!r}; available agents: "):
                raise
            raise ValueError(f"unknown agent {name!r}; agents for {game}: {mine}, or the path of a saved policy") from None
    if game is not None:
        check_agent_game(agent, game, name)
    return agent


def agent_action(agent, env) -> int:
    """The action ``agent`` takes for the seat to act in ``env`` (a reset AEC env, ``B = 1``).

    A search agent (``needs_state``, e.g. ``all_fours/pimc``) reads the game state; every other
    agent acts on the seat's observation and action mask. Returns an ``int`` action id.
    """
    if getattr(agent, "needs_state", False):
        return int(agent.act_state(env.unwrapped.game_state)[0])
    obs = env.observe(env.agent_selection)
    return int(agent.act(obs["observation"][None], obs["action_mask"][None])[0])


def seat_agent(
    name: str, game: str, env_options: dict | None = None, seed: int | None = None, force: bool = False,
    exec_timeout: float | None = None, warn: bool = True,
):
    """Load agent ``name`` to play ``game`` with ``env_options``, keeping trained agents to what they learned.

    The decision is :func:`cardzoo.agents.options.seat_decision`: a trained agent (shipped or saved)
    whose ``agent.json`` records other game options is replaced by the game's rule bot, unless
    ``force``: then it is seated and an :class:`~cardzoo.agents.options.OptionsMismatchWarning` is
    raised as a warning (unless ``warn=False``: ``cardzoo play`` and ``cardzoo arena`` show the
    note instead, so that the same fact is said once). One that cannot read these options' observation is replaced by the rule
    bot, and with ``force`` :class:`~cardzoo.agents.options.LayoutMismatchError` (a ``ValueError``)
    is raised. Returns ``(agent, seated name, note)``; ``note`` says what was done and why (``None``
    when ``name`` was seated as it fits). Errors as :func:`resolve_agent`.
    """
    import warnings

    from cardzoo.agents.options import OptionsMismatchWarning, seat_decision, warn_if_differs

    env_options = dict(env_options or {})

    def load():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptionsMismatchWarning)  # decided (and said) by seat_decision
            return resolve_agent(name, env_options, seed=seed, game=game, exec_timeout=exec_timeout)

    seated = seat_decision(load, name, game, env_options, force)
    if seated.agent is None:  # the rule bot instead
        return resolve_agent(seated.name, env_options, seed=seed, game=game), seated.name, seated.note
    if force and warn:
        warn_if_differs(seated.agent, game, env_options, name)
    return seated.agent, seated.name, seated.note


def check_fits(agent, name: str, game: str, env_options: dict | None, force: bool = False, how: str = "") -> str | None:
    """For the commands that play an agent under the name asked for, with no rule bot to seat instead
    (``cardzoo leaderboard``, ``cardzoo exploit``): refuse a trained ``agent`` (called ``name``) that
    was trained for other ``game`` options than ``env_options``.

    Raises :class:`~cardzoo.agents.options.LayoutMismatchError` when it cannot read these options'
    observation (even with ``force``), and ``ValueError`` when its recorded options differ: the message
    names the differences, the ``-o`` options it was trained for and ``how`` (e.g. "or --force-agent
    to play it anyway"). With ``force`` a difference is allowed: the returned note says so. Returns
    ``None`` when the agent fits (agents without training metadata always do)."""
    import shlex

    from cardzoo.agents.options import check_layout, describe, option_args, option_differences

    check_layout(agent, game, env_options, name)
    diff = option_differences(agent, game, env_options)
    if not diff:
        return None
    if force:
        return f"playing {name} although it was trained for other options ({describe(diff)})"
    trained = shlex.join(option_args({k: a for k, (a, _) in diff.items()}))
    raise ValueError(f"{name} was trained for other {game} options ({describe(diff)}): give the options it was "
                     f"trained for ({trained}){', ' + how if how else ''}")


def default_agent(game: str, env_options: dict | None = None, force: bool = False) -> tuple[str, str | None]:
    """The AI that plays ``game`` by default: ``"<game>/ppo"`` when a trained agent is shipped and
    was trained for ``env_options`` (its observation layout and its recorded game options,
    :mod:`cardzoo.agents.options`), else ``"<game>/rule"``. With ``force`` (``--force-agent``) the
    shipped agent is taken also where its recorded options differ, as long as it loads for these
    options (same observation layout); the note then says so. The decision is
    :func:`cardzoo.agents.options.seat_decision` (``default=True``).

    Also the rule bot when the ``[train]`` extra (torch) that trained agents need is missing.
    Returns ``(name, note)``; ``note`` says why the shipped agent was not taken (``None`` otherwise).
    """
    import warnings

    from cardzoo.agents.options import OptionsMismatchWarning, seat_decision

    ppo = f"{game}/ppo"
    if ppo not in agents.available():
        return f"{game}/rule", None

    def load():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptionsMismatchWarning)  # decided (and said) by seat_decision
            return agents.load(ppo, **dict(env_options or {}))

    try:
        seated = seat_decision(load, ppo, game, env_options, force, default=True)
    except ImportError as e:  # cardzoo.MissingExtraError: trained agents need the [train] extra
        return f"{game}/rule", str(e)
    except (ValueError, OSError) as e:  # another observation layout (LayoutMismatchError) included
        return f"{game}/rule", f"{ppo} does not fit these options ({e})"
    return seated.name, seated.note


def check_partner(game: str, kernel, partner, partner_flag: str = "--partner", opponents_flag: str = "--opponents") -> None:
    """Raise ``ValueError`` if a ``partner`` agent is named (not ``None`` or empty) for ``game`` played
    by ``kernel`` (``envs.kernel(game, **options)``) where every player plays alone (``kernel.teams``
    is ``None``): there is no partner seat, the others are all opponents. ``partner_flag`` and
    ``opponents_flag`` are the names the caller's user knows (``--partner`` in ``cardzoo play``,
    ``partner`` in the web API)."""
    named = partner is not None and not (isinstance(partner, str) and partner == "")  # never `if partner`: an array
    if named and kernel.teams is None:
        raise ValueError(f"{partner_flag} is for partnership games; in {game} every player plays alone: use {opponents_flag}")


def refuse_folder_name(path: str, what: str, example: str) -> None:
    """Raise ``ValueError`` if ``path`` (a file to write, e.g. ``--json``) names a folder by its form: it ends
    in ``/``, ``.`` or ``..`` (``runs/`` passed the other checks, then the run's end failed with "Is a
    directory", or wrote a file named ``runs``). The message suggests ``path/example``. Checked before a run,
    by every command that writes a ``--json`` file."""
    import os

    if os.path.basename(path) in ("", ".", ".."):
        raise ValueError(f"{what} {path} names a folder, not a file; give a file name such as "
                         f"{os.path.join(os.path.normpath(path), example)}")


def refuse_existing_file(path, what: str, overwrite: bool = False, how: str = "--overwrite") -> None:
    """Raise ``FileExistsError`` if ``path`` exists and not ``overwrite`` (a run never overwrites
    another). The message names ``what`` (e.g. ``"label file"``), the path and ``how`` to replace it.
    Used by ``cardzoo label`` and ``cardzoo arena --json`` before any deal is played."""
    if Path(path).exists() and not overwrite:
        raise FileExistsError(f"{what} {path} exists; a run never overwrites another: choose a new name, or {how}")


def api_error(kind: type[Exception], python: str, cli: str) -> Exception:
    """``kind(python)``, a message naming the Python keywords (``pass overwrite=True``, ``out``), with
    ``cli_message`` ``cli``, the same in flags (``give --overwrite``, ``--out``), which the ``cardzoo``
    commands print instead."""
    e = kind(python)
    e.cli_message = cli
    return e


def check_exec_timeout(exec_timeout) -> float | None:
    """``exec_timeout`` (seconds an ``exec:`` bot has for each answer) as a ``float``, ``None`` for the default;
    anything but a positive number of at most :data:`cardzoo.agents.external.MAX_TIMEOUT` seconds raises
    ``ValueError`` naming it, whether or not an ``exec:`` bot is named (:func:`cardzoo.training.play.play`, the leaderboard)."""
    from cardzoo.agents.external import MAX_TIMEOUT

    if exec_timeout is None:
        return None
    if not (is_real(exec_timeout) and math.isfinite(exec_timeout) and exec_timeout > 0):
        raise ValueError(f"exec_timeout must be a positive number of seconds (default 10), got {exec_timeout!r}")
    if exec_timeout > MAX_TIMEOUT:
        raise ValueError(f"exec_timeout must be at most {MAX_TIMEOUT:,.0f} seconds (a day; default 10), got {exec_timeout!r}")
    return float(exec_timeout)


def missing_folder_error(path, what: str) -> OSError:
    """The error for a ``path`` whose folder does not exist: ``NotADirectoryError`` "cannot write WHAT
    PATH: 'a' is a file, not a folder" when a file stands on the way (``a/x.json`` with ``a`` a file),
    else ``FileNotFoundError`` "cannot write WHAT PATH: its folder 'a/b' does not exist"."""
    parent = Path(path).parent
    on_way = next((p for p in (parent, *parent.parents) if p.exists()), None)
    if on_way is not None and not on_way.is_dir():
        return NotADirectoryError(f"cannot write {what} {path}: {str(on_way)!r} is a file, not a folder")
    return FileNotFoundError(f"cannot write {what} {path}: its folder {str(parent)!r} does not exist")


def check_can_write(path, what: str, makes_folder: bool = False) -> None:
    """Raise ``OSError`` naming ``what`` (e.g. ``"--json"``) when no new file can be made in the folder of
    ``path``, which exists: a read-only or virtual folder such as ``/proc``, which even root cannot write.
    Checked before a run (by making and removing an empty file there), so that its results are not lost
    at its end to "[Errno 2] No such file or directory".

    With ``makes_folder``, ``path`` is the output folder of a run (``--out``), made when missing: ``OSError``
    "cannot create --out /proc/x: No such file or directory" (as mkdir says it) when no folder can be made
    in its nearest existing folder (or, when it exists, none in it), and ``NotADirectoryError`` "cannot create
    --out a/b: 'a' is a file, not a folder" for a file on the way. ``path`` itself a file is left to the
    callers' own checks ("is a file, not a folder"). The one check of every command's ``--out``."""
    import os
    import tempfile

    if makes_folder:
        path = Path(path)
        base = next((p for p in (path, *path.parents) if p.exists()), None)
        if base is None or base == path and not base.is_dir():
            return
        if not base.is_dir():  # mkdir would say only "Not a directory"
            raise NotADirectoryError(f"cannot create {what} {path}: {str(base)!r} is a file, not a folder")
        try:
            probe = tempfile.mkdtemp(dir=base, prefix=".cardzoo-write-check-")
        except OSError as e:
            raise OSError(f"cannot create {what} {path}: {e.strerror or e}") from None
        os.rmdir(probe)
        return
    folder = Path(path).resolve().parent
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".cardzoo-write-check-")
    except OSError as e:
        raise OSError(f"cannot write {what} {path}: no file can be made in {folder} ({e.strerror}); give a path in a "
                      "folder you can write to") from None
    os.close(fd)
    os.unlink(probe)


#: the largest ``--seed``: what SB3 (numpy's legacy seeding) takes in ``train`` and ``exploit``; the same for every
#: command, so that a seed that works in one works in all (a trained agent seeded with more than 2**63 - 1 failed
#: with torch's "Overflow when unpacking long long")
SEED_MAX = 2**32 - 1


def seed_arg(text: str) -> int:
    """The argparse ``type`` of every ``--seed`` of the commands: an integer from 0 to :data:`SEED_MAX` (what
    numpy, SB3 and torch all seed with). Anything else is refused by argparse as ``argument --seed: must be a
    non-negative integer, got -3`` (numpy's own words were "expected non-negative integer") or ``... must be at
    most 4294967295 ...``."""
    import argparse

    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}") from None
    if seed < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text}")
    if seed > SEED_MAX:
        raise argparse.ArgumentTypeError(f"must be at most {SEED_MAX} (2**32 - 1, the seeds SB3 and torch take), got {text}")
    return seed


def parse_options(pairs: list[str] | None, flag: str = "-o") -> dict:
    """``["episode=match", "target_score=7"]`` -> dict (the ``-o name=value`` options of the commands).

    Space around the name is dropped; each value is read by :func:`parse_option_value`. The game
    checks the values (``envs.kernel``: a ``ValueError`` naming the valid ones). Raises
    ``ValueError`` for an item without ``=``, or a name given twice (``flag``, the command's flag
    for them, names both in the message), rather than keep the last silently.
    """
    out, given = {}, {}
    for p in pairs or []:
        if "=" not in p:
            raise ValueError(f"env option {p!r} must look like name=value (e.g. episode=match)")
        k, v = p.split("=", 1)
        k = k.strip()
        if k in given:
            raise ValueError(f"option {k} given twice ({flag} {given[k]}, {flag} {p}); give each option once")
        given[k] = p
        out[k] = parse_option_value(v)
    return out


def parse_option_value(text: str):
    """An option value written as text (``-o name=VALUE``, the web table's ``opt.NAME=VALUE`` URL
    parameters) as the game option it means.

    Space around it is dropped. It is read as JSON where it is JSON (``7``, ``-1``, ``0.5``,
    ``true``, ``null``, ``"x"``); a whole number written with leading zeros or a plus sign (``03``,
    ``+3``), which JSON refuses, is that ``int`` too, so that ``num_players=03`` means what
    ``num_players=3`` and ``num_players=' 3'`` do; ``None``, ``True`` and ``False`` (as a refused
    value's message prints the valid ones, e.g. ``first_dealer``'s ``[None, 0, 1, 2, 3]``) are
    ``None``, ``True`` and ``False`` as JSON's ``null``, ``true`` and ``false`` are; anything else is
    the string itself. Lower-case ``none`` stays the string: it is a choice of several options
    (All Fours' ``game_tie``, Ottocento's ``declaration_mode``, Avinas' ``facedown_signal``).
    """
    v = text.strip()
    if v in _PYTHON_CONSTANTS:
        return _PYTHON_CONSTANTS[v]
    try:
        return json.loads(v)
    except json.JSONDecodeError:
        pass
    except ValueError:  # a number of over 4,300 digits (Python's int() limit) said only "Exceeds the limit ...",
        return v  # naming neither the option nor its values: as the string, the option's own check names both
    try:
        return int(v) if re.fullmatch(r"[+-]?[0-9]+", v) else v
    except ValueError:  # the same, written with leading zeros or a plus sign
        return v


_PYTHON_CONSTANTS = {"None": None, "True": True, "False": False}


def report_console():
    """The ``rich`` console of the commands' tables: the terminal's width on a terminal, else 200
    columns, so that a file or a pipe gets whole agent names and unwrapped rows (rich would
    assume 80 columns there and squeeze the tables). :class:`cardzoo.MissingExtraError` (the
    ``train`` extra) if ``rich`` is not installed."""
    import sys

    try:
        from rich.console import Console
    except ModuleNotFoundError as e:  # print_results from Python said only "No module named 'rich'"
        from cardzoo import MissingExtraError

        raise MissingExtraError("train", (e.name or "rich").split(".")[0], "printing the results tables") from None

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # the reader has gone (cardzoo arena ... --json out.json | head): rich exits 1 here, the status of an
            # exec: bot's fault, and the run's --json went unwritten; the run goes on quietly instead
            self.quiet = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # print() and the exit flush would fail on the closed pipe too

    return _Console(width=None if sys.stdout.isatty() else 200)


@contextlib.contextmanager
def signal_handled(signum, handler):
    """``handler`` for signal ``signum`` inside the block, the previous handler back after it.
    Outside the main thread, where signals cannot be set, nothing changes."""
    import signal

    try:
        old = signal.signal(signum, handler)
    except ValueError:
        old = None
    try:
        yield
    finally:
        if old is not None:
            signal.signal(signum, old)

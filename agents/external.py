"""Bots from outside this package: the ``exec:`` JSON-lines protocol and the ``cardzoo.agents``
entry-point group (``training/BOTS.md`` documents both for bot authors).

``exec:COMMAND`` runs COMMAND (split into words as a POSIX shell would, :func:`shlex.split`; no
shell runs) as subprocesses that read one JSON object per line on stdin and write one per line
on stdout. Protocol 1:

1. cardzoo sends ``{"type": "hello", "protocol": 1, "game": ..., "options": {...}, "num_actions":
   A, "action_names": [...], "seat": s}``; the bot answers ``{"type": "ready"}``. (``seat``, the
   one seat this process plays, was added within protocol 1: a bot may ignore it.)
2. For each decision: ``{"type": "act", "seat": s, "observation": [ints], "action_mask": [0/1
   ints], "legal_actions": [ids], "text": "..."}``; the bot answers ``{"action": id}``.
3. At the end of each episode: ``{"type": "end", "rewards": [one float per seat]}``; no answer.

**One process per seat.** An agent runs one process for each seat it plays, at each table: a
process is sent the hello, the ``act`` messages and the ``end`` messages of one seat only, so it
never sees another seat's cards (its partner's hand, or in the arena the other side of a
duplicate deal). A *table* is one of the arena's seatings (:attr:`ExecAgent.table`, which the arena
sets; ``cardzoo play`` has one): in a game of two sides each seat is played at one table only, so
this is one process per seat; with 3 or 4 sides (P'yanitsa) the agent that plays the copies plays
a seat at several tables, and each has its own process, so that no process sees the same deal
twice (what the other seats showed at one table would tell it their cards at another). A process
is started, and says hello, at its seat's first decision; :meth:`ExecAgent.begin` with ``seats``
starts those seats' processes (table 0) at once (``cardzoo play`` does, so that a bot that fails
its hello is said before the game). :meth:`ExecAgent.begin` stops the processes of an earlier run
first: every run (each pairing of the arena, which plays the same deals as the others) starts
fresh ones. Each process has its own timeout, stdout buffer and stderr file. Separate processes
keep a bot from *remembering* another seat's cards; they are no sandbox: processes that talk to
each other (files, sockets) are not stopped.

Faults (invalid JSON, an illegal action, a crash, no answer within ``timeout`` seconds) never
hang the caller: the message names the bot, the game, the decision (``"illegal"`` for an illegal
action) and the seat (a fault at a process's hello: ``hello (seat s; started for decision n,
...)``), and one seat's fault fails the whole bot: all its processes are stopped and every later
decision of that bot in the run, at every seat, is the lowest legal action (the *fallback*). The
arena lists the faults with its result.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from typing import Any

import numpy as np

from .base import Agent, first_legal

__all__ = ["ENTRY_POINT_GROUP", "ExecAgent", "ExecBotError", "entry_point_agents", "text_view"]

#: the Python entry-point group other installed packages register agents in
ENTRY_POINT_GROUP = "cardzoo.agents"
PROTOCOL = 1
DEFAULT_TIMEOUT = 10.0
#: the longest timeout (seconds) a process may have per answer: a day. Far more (1e300) made select() raise
#: "OverflowError: timestamp out of range for platform time_t" at the first answer, a traceback that ended the run
MAX_TIMEOUT = 86_400.0
#: the longest line a bot may send (an answer is a few bytes); more without a newline is a fault
MAX_LINE = 1 << 20


class ExecBotError(RuntimeError):
    """A fault of an ``exec:`` bot (invalid JSON, illegal action, crash, timeout)."""


def text_view(kernel, state, b: int, seat: int) -> str:
    """The per-seat text view of game ``b`` for ``seat`` sent in ``act`` messages: the kernel's
    :meth:`~cardzoo.envs.core.kernel.Kernel.text_view` (only what ``seat`` may know)."""
    return kernel.text_view(state, b, seat)


def _json_options(options: dict) -> dict:
    out = {}
    for k, v in options.items():
        out[k] = v.item() if isinstance(v, np.generic) else v
    return out


class _Process:
    """One process of an :class:`ExecAgent`: the one that plays ``seat`` at ``table``."""

    __slots__ = ("buf", "err", "proc", "seat", "table")

    def __init__(self, table: int, seat: int, proc: subprocess.Popen, err) -> None:
        self.table, self.seat, self.proc, self.err = table, seat, proc, err
        self.buf = b""


class ExecAgent(Agent):
    """A bot in other processes, any language, over the JSON-lines protocol (module docstring): one
    process per seat it plays (per seat and table, :attr:`table`).

    Args:
        command: the command line (after ``exec:``), e.g. ``"python3 my_bot.py --level 2"``;
            split with :func:`shlex.split`, run without a shell.
        timeout: seconds a process has for each answer (``ready`` and each ``action``); default 10, at most
            :data:`MAX_TIMEOUT` (a day).
        name: name in tables (default ``"exec:" + command``).

    It needs the game before it plays: :meth:`begin` (the arena calls it). It reads the game state
    through ``act_state`` (like search agents) only to build the acting seat's observation, action
    mask and text view; nothing else is sent, and only to that seat's process.

    Attributes (the arena and the leaderboard read them): ``faults`` (the fault messages, kept over
    runs), ``failed`` (this run had a fault: every seat plays the fallback), ``kernel`` (the game of
    the run, after :meth:`begin`), ``decisions`` (the run's decisions, all seats), ``procs`` (the
    running processes, ``{(table, seat): process}``), ``row_labels`` and ``table`` (set by the
    caller before ``act_state``).

    ``private_in_faults`` (default True): a fault message lists the acting seat's legal actions by
    name, names the illegal action the bot played and quotes the bot's faulty answer or, when it crashed, the end
    of its stderr. Terminal play sets it False: those are another seat's cards (a bot may well print its hand to
    stderr; an illegal card may be one it holds but may not play), hidden from the person.

    Each process runs in a process group of its own: when it is stopped (at the end, or at a
    fault) the group is killed, so programs the bot started do not outlive it.

    Raises ``ValueError`` for an empty command, a program that is not found or not executable
    (naming it), or a timeout that is not a positive number of at most :data:`MAX_TIMEOUT` seconds.
    """

    needs_state = True

    def __init__(self, command: str, timeout: float = DEFAULT_TIMEOUT, name: str | None = None) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise ValueError(f"exec: agent command {command!r} cannot be split into words: {e}") from None
        if not argv:
            raise ValueError("exec: agent needs a command after 'exec:', e.g. exec:python3 my_bot.py")
        if not (isinstance(timeout, (int, float)) and np.isfinite(timeout) and timeout > 0):
            raise ValueError(f"exec: agent timeout must be a positive number of seconds, got {timeout!r}")
        if timeout > MAX_TIMEOUT:
            raise ValueError(f"exec: agent timeout must be at most {MAX_TIMEOUT:,.0f} seconds (a day), got {timeout!r}")
        _check_program(command, argv[0])
        self.command, self.argv, self.timeout = command, argv, float(timeout)
        self.private_in_faults = True
        self.name = name or f"exec:{command}"
        self.kernel = None
        #: the running processes, one per (table, seat) played so far in this run
        self.procs: dict[tuple[int, int], _Process] = {}
        self.failed = False
        self.faults: list[str] = []
        self.decisions = 0
        #: labels of the rows of the next ``act_state`` call (the arena sets e.g. "deal 17, seating 1")
        self.row_labels: list[str] | None = None
        #: the table (the arena's seating) of the next ``act_state`` / ``end_episodes`` call: a seat
        #: has a process of its own at each table (the arena sets it; ``cardzoo play`` has table 0)
        self.table = 0

    # ---------------------------------------------------------------- processes
    def begin(self, kernel, seats=()) -> None:
        """Get ready to play ``kernel``'s game: stop the processes of an earlier run (and forget
        its failure); the processes of this run start at each seat's first decision, those of
        ``seats`` (at table 0) now, each with its hello / ready."""
        self.close()
        self.kernel, self.failed, self.decisions, self.table = kernel, False, 0, 0
        for s in seats:
            if self.failed:
                break
            self._start(0, int(s), where=f"hello (seat {int(s)})")

    def _start(self, table: int, seat: int, where: str) -> _Process | None:
        """Start the process of ``seat`` at ``table`` and exchange hello / ready; ``None`` after a
        fault (named ``where``; the bot has failed)."""
        k = self.kernel
        err = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process; closed when it is stopped
        try:
            # a session (process group) of its own: _stop kills the group, programs the bot started included
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                    start_new_session=True)
        except OSError as e:
            err.close()
            self._fault(f"could not start ({e})", where=where)
            return None
        os.set_blocking(proc.stdin.fileno(), False)
        os.set_blocking(proc.stdout.fileno(), False)
        p = self.procs[(table, seat)] = _Process(table, seat, proc, err)
        hello = {
            "type": "hello",
            "protocol": PROTOCOL,
            "game": k.name,
            "options": _json_options(k.options),
            "num_actions": int(k.num_actions),
            "action_names": [k.action_name(a) for a in range(k.num_actions)],
            "seat": seat,
        }
        try:
            self._send(p, hello)
            msg = self._receive(p, "hello")
            if not (isinstance(msg, dict) and msg.get("type") == "ready"):
                raise ExecBotError(f'answered the hello with {_short(msg)}, expected {{"type": "ready"}}')
        except ExecBotError as e:
            self._fault(str(e), where=where, faulty=p)
            return None
        return p

    def close(self) -> None:
        """Stop every process of the bot (closing their stdin first; a process that has not exited
        1 s later is killed, with whatever it started)."""
        procs = list(self.procs.values())
        self.procs = {}
        for p in procs:
            try:
                p.proc.stdin.close()
            except OSError:
                pass
        deadline = time.monotonic() + 1.0  # one grace period for all: they exit at the same time
        for p in procs:
            _stop(p.proc, grace=max(0.0, deadline - time.monotonic()))
            p.proc.stdout.close()
            p.err.close()

    def __del__(self) -> None:  # pragma: no cover - interpreter shutdown order varies
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110 - nothing to report to at interpreter shutdown
            pass

    def _quote(self, answer, limit: int = 200) -> str:
        """The bot's answer as a fault quotes it (cut to ``limit`` characters), or, where faults must not
        show private things (``private_in_faults`` False), a note that it is not shown."""
        if not self.private_in_faults:
            return "(an answer not shown at this table: it may name the bot's cards)"
        return _short(answer[:limit] if isinstance(answer, bytes) else answer, limit)

    def _stderr_tail(self, p: _Process) -> str:
        if not self.private_in_faults:
            return ""
        p.err.seek(0)
        tail = p.err.read()[-400:].decode("utf-8", "replace").strip()
        return f"; its stderr ends: {tail!r}" if tail else ""

    def _dead(self, p: _Process, during: str) -> ExecBotError:
        code = _exit_status(p.proc, wait=0.5)
        return ExecBotError(f"crashed during {during} (exit status {code}){self._stderr_tail(p)}")

    def _send(self, p: _Process, msg: dict) -> None:
        data = (json.dumps(msg, separators=(",", ":")) + "\n").encode()
        fd = p.proc.stdin.fileno()
        deadline = time.monotonic() + self.timeout
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ExecBotError(f"did not read its input within the timeout of {self.timeout:g} s")
            _, w, _ = select.select([], [fd], [], left)
            if not w:
                continue
            try:
                n = os.write(fd, data)
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                raise self._dead(p, f"a {msg['type']} message") from None
            data = data[n:]

    def _receive(self, p: _Process, what: str) -> Any:
        fd = p.proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        while b"\n" not in p.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ExecBotError(f"gave no answer to the {what} within the timeout of {self.timeout:g} s")
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                continue
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                raise self._dead(p, f"the {what}")
            p.buf += chunk
            if b"\n" not in p.buf and len(p.buf) > MAX_LINE:  # e.g. exec:cat /dev/zero: memory, not an answer
                raise ExecBotError(f"sent more than {MAX_LINE:,} bytes without a newline for the {what}, "
                                   f"beginning {self._quote(p.buf, 60)}; an answer is one JSON object on one line")
        line, _, p.buf = p.buf.partition(b"\n")
        try:
            return json.loads(line.decode("utf-8"))
        except ValueError as e:  # also a number of over 4,300 digits ("Exceeds the limit ..."), which ended the run
            raise ExecBotError(f"sent invalid JSON for the {what}: {self._quote(line)} ({e})") from None

    def _fault(self, message: str, where: str, faulty: _Process | None = None) -> None:
        """Record a fault; the bot has failed: the ``faulty`` process is killed at once, the others
        are stopped (:meth:`close`), and every later decision of the run is the fallback."""
        game = self.kernel.name if self.kernel is not None else "?"
        text = f"bot {self.name!r}, game {game}, {where}: {message}; the bot is stopped and plays the lowest legal action from now on"
        self.faults.append(text)
        self.failed = True
        if faulty is not None:
            _stop(faulty.proc, grace=0.0)
        self.close()  # before the warning, which a caller may have made an error
        warnings.warn(text, RuntimeWarning, stacklevel=3)

    # ---------------------------------------------------------------- acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Always ``ValueError``: an ``exec:`` bot is told the seat to act, which an observation does
        not say; call :meth:`act_state` (after :meth:`begin`), as the arena and the leaderboard do."""
        raise ValueError(
            f"{self.name} reads the game state to know the seat to act: call act_state(state) "
            "(the arena and the leaderboard do), after begin(kernel)"
        )

    def act_state(self, state) -> np.ndarray:
        """``int64[B]``: the bot's action for the seat to act in each game of ``state`` (at table
        :attr:`table`), each asked of that seat's process (started here at the seat's first
        decision); the fallback, the lowest legal action, after a fault. Needs :meth:`begin` first
        (``ValueError``). A fault of the bot (an ``ExecBotError``: a crash, a timeout, invalid JSON,
        an illegal action) is not raised: it is recorded in :attr:`faults`, warned as a
        ``RuntimeWarning``, and every later decision is the fallback."""
        if self.kernel is None:
            raise ValueError(f"{self.name}: call begin(kernel) before act_state (the arena does)")
        k = self.kernel
        masks = k.legal_actions(state)
        seats = state.current_player.astype(np.int64)
        obs = k.observe(state, seats)
        out = first_legal(masks)
        labels = self.row_labels
        self.row_labels = None
        table = int(self.table)
        for b in range(state.batch_size):
            if not masks[b].any():
                continue
            self.decisions += 1
            if self.failed:
                continue
            seat = int(seats[b])
            label = labels[b] if labels else None
            p = self.procs.get((table, seat))
            if p is None:
                started = f"started for decision {self.decisions}" + (f", {label}" if label else "")
                p = self._start(table, seat, where=f"hello (seat {seat}; {started})")
                if p is None:
                    continue
            legal = np.flatnonzero(masks[b])
            shown = f", legal {[k.action_name(int(a)) for a in legal]}" if self.private_in_faults else ""
            where = f"decision {self.decisions} ({label + ', ' if label else ''}seat {seat}{shown})"
            try:
                self._send(p, {
                    "type": "act",
                    "seat": seat,
                    "observation": obs[b].astype(int).tolist(),
                    "action_mask": masks[b].astype(int).tolist(),
                    "legal_actions": legal.astype(int).tolist(),
                    "text": text_view(k, state, b, seat),
                })
                msg = self._receive(p, "act message")
                a = msg.get("action") if isinstance(msg, dict) else None
                if not (isinstance(a, int) and not isinstance(a, bool)):
                    raise ExecBotError(f'answered {self._quote(msg)}, expected {{"action": <int id>}}')
                if not (0 <= a < k.num_actions and masks[b, a]):
                    if 0 <= a < k.num_actions and not self.private_in_faults:
                        # the card tried may be one of the bot's hidden cards (a revoke: held, but it must follow)
                        raise ExecBotError("played an illegal action (not shown at this table: it may name the "
                                           "bot's cards)")
                    name = k.action_name(a) if 0 <= a < k.num_actions else "out of range"
                    raise ExecBotError(f"played illegal action {a} ({name})")
                out[b] = a
            except ExecBotError as e:
                self._fault(str(e), where=where, faulty=p)
        return out

    def end_episodes(self, returns: np.ndarray) -> None:
        """Send ``{"type": "end", "rewards": [...]}`` for each finished episode (``float[n, P]``) of
        table :attr:`table` to every process of that table (one per seat the bot plays there); a
        process hears of no other table's episodes."""
        if self.failed:
            return
        table = int(self.table)
        rows = np.asarray(returns, dtype=np.float64)
        for (t, seat), p in sorted(self.procs.items()):
            if t != table:
                continue
            for r in rows:
                try:
                    self._send(p, {"type": "end", "rewards": [float(x) for x in r]})
                except ExecBotError as e:
                    self._fault(str(e), where=f"end of an episode (seat {seat})", faulty=p)
                    return


def _short(msg, limit: int = 200) -> str:
    """``repr(msg)``, cut to ``limit`` characters (a bot that echoes the hello back is not quoted in full)."""
    text = repr(msg)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _check_program(command: str, program: str) -> None:
    """``ValueError`` naming ``program`` (the command's first word) when it cannot be run: a path
    that is no file or not executable, or a name not found on ``PATH``."""
    if os.sep in program or (os.altsep and os.altsep in program):
        if not os.path.isfile(program):
            what = "is a folder" if os.path.isdir(program) else "does not exist"
            raise ValueError(f"exec: agent command {command!r}: the program {program!r} {what}; give the path of an "
                             "executable file, or a program on PATH and the script, e.g. exec:python3 my_bot.py")
        if not os.access(program, os.X_OK):
            raise ValueError(f"exec: agent command {command!r}: the program {program!r} is not executable; "
                             f"make it executable (chmod +x {shlex.quote(program)}) or name its interpreter, "
                             f"e.g. exec:python3 {shlex.quote(program)}")
    elif shutil.which(program) is None:
        raise ValueError(f"exec: agent command {command!r}: no program {program!r} on PATH; give a program on PATH "
                         "(e.g. exec:python3 my_bot.py) or the path of an executable file (exec:./my_bot)")


def _exit_status(p: subprocess.Popen, wait: float = 0.0) -> int | None:
    """The exit status of ``p`` once it has exited (within ``wait`` seconds), else ``None``; it is
    not reaped (where ``os.waitid`` exists), so its process group stays reserved for :func:`_stop`."""
    deadline = time.monotonic() + wait
    while True:
        if p.returncode is not None:
            return p.returncode
        if hasattr(os, "waitid"):
            try:
                info = os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:  # reaped elsewhere
                return p.poll()
            if info is not None:
                return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        elif p.poll() is not None:  # pragma: no cover - platforms without waitid
            return p.returncode
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.01)


def _stop(p: subprocess.Popen, grace: float) -> None:
    """Stop the bot ``p`` and reap it: give it ``grace`` seconds to exit by itself, then kill its
    process group (the bot and whatever it started, which would otherwise be left running) while
    the bot, exited or not, is not yet reaped: its pid keeps the group's id from being reused."""
    _exit_status(p, wait=grace)
    if p.returncode is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):  # the group is gone already
            pass
        except OSError:  # pragma: no cover - no process groups: the bot alone
            p.kill()
    p.wait()


def entry_point_agents() -> dict:
    """``{name: factory}`` of the agents other installed packages register in the entry-point group
    ``cardzoo.agents`` (``[project.entry-points."cardzoo.agents"] my_bot = "my_pkg:make_agent"``).
    A factory is called like the built-in ones, ``factory(**env_options)``, and returns an Agent."""
    from importlib.metadata import entry_points

    out = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        out[ep.name] = ep
    return out


if __name__ == "__main__":  # pragma: no cover
    sys.exit("agents/external.py is a library module; see training/BOTS.md")

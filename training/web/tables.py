"""Tables of the web card table: one game in progress each, a person at seat 0 and AI seats.

A :class:`Table` holds a PettingZoo env (``B = 1``, ``render_view=0``), the AI agents of the
other seats, this episode's move log and the running totals. The person's move is applied and
then the AI seats play (:func:`cardzoo.training.common.agent_action`) until it is seat 0's turn again
or the episode ends; every table operation runs under the table's own lock, so one table is
never changed by two requests at once while different tables proceed in parallel.

A :class:`TableManager` creates tables with unguessable ids (``secrets.token_urlsafe``), caps
the number of open tables, forgets tables idle for too long, and checks agent names against the
registry (``cardzoo.agents.available()`` names of the game, plus ``"random"``; never a file path).

Errors are :class:`TableError` subclasses carrying the HTTP status and a message that names what
was wrong and what is valid; a failed operation changes nothing.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import secrets
import threading
import time
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np

from cardzoo import agents
from cardzoo import envs
from cardzoo.agents.options import LayoutMismatchError, OptionsMismatchWarning, seat_decision
from cardzoo.agents.registry import takes_seed
from cardzoo.envs.core.kernel import did_you_mean

from ..common import agent_action, check_partner, parse_option_value

__all__ = [
    "AIFailed",
    "BadRequest",
    "Conflict",
    "LogEntry",
    "NotFound",
    "Table",
    "TableError",
    "TableManager",
    "TooManyRequests",
    "TooManyTables",
    "game_options",
]

#: where a server-side failure is told in full (the server's console): never sent to the client
log = logging.getLogger(__name__)

def short(value, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters (error messages never echo large input)."""
    r = repr(value)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def json_short(value, limit: int = 40) -> str:
    """``value`` written as JSON (``null``, ``true``, ``"mask"``, ``[2, 3, 4]``: the terms a client of the API
    writes), cut to ``limit`` characters; :func:`short` (``repr``) for what JSON cannot write."""
    try:
        r = json.dumps(value)
    except (TypeError, ValueError):
        return short(value, limit)
    return r if len(r) <= limit else r[: limit - 3] + "..."


#: a Python constant in a kernel's message (``surrender=True``), not inside a quoted string
_PY_CONSTANT = re.compile(r"(?<![\w'\"])(None|True|False)(?![\w'\"])")


def _json_terms(message: str) -> str:
    """A kernel's message with its Python constants as JSON writes them (``True`` -> ``true``)."""
    return _PY_CONSTANT.sub(lambda m: {"None": "null", "True": "true", "False": "false"}[m.group(1)], message)


class TableError(Exception):
    """An error of a table operation; ``status`` is the HTTP status code, ``str(e)`` the message."""

    status = 400


class BadRequest(TableError):
    """Bad input (unknown game or agent, bad option, illegal move): 400."""

    status = 400


class CannotPlay(BadRequest):
    """A trained agent asked for options that change its observation (another player count or
    pack): it cannot play them (:class:`~cardzoo.agents.options.LayoutMismatchError`); 400."""


class NotFound(TableError):
    """No table of that id: 404."""

    status = 404


class Conflict(TableError):
    """Not the person's turn, or the episode is over: 409."""

    status = 409


class TooManyTables(TableError):
    """The cap on open tables is reached: 503."""

    status = 503


class AIFailed(TableError):
    """An AI seat's agent raised while choosing its move: 503. The moves made before stand (the
    person's included) and the AI seat plays again at the table's next request (:meth:`Table.resume`).
    ``what``: which agent failed, for a message that goes on differently (a table that could not be dealt)."""

    status = 503

    def __init__(self, message: str, what: str = "") -> None:
        super().__init__(message)
        self.what = what


class TooManyRequests(TableError):
    """This client has too many open tables, or opened too many in the last minute: 429."""

    status = 429


@dataclasses.dataclass(frozen=True)
class LogEntry:
    """One move of the episode: ``seat`` took ``action``; ``seen`` is whether seat 0 may know which
    action it was (its own moves, public moves, and moves the game tells it about)."""

    seat: int
    action: int
    seen: bool


def game_options(game: str, options: dict | None = None, players: int | None = None) -> dict:
    """The env options of a web table of ``game``: one episode is one deal/hand where the game has
    an ``episode`` option (its non-``"match"`` value), then ``options`` on top, then ``players``
    (the ``num_players`` option of games with a choice of players; an ``options.num_players`` that
    differs from ``players`` is refused). A string value in ``options``
    is read as ``cardzoo play -o NAME=VALUE`` reads its value
    (:func:`cardzoo.training.common.parse_option_value`: ``"3"``, ``"03"`` and ``" 3"`` are ``3``,
    ``"true"`` is ``True``, ``"winner_chooses"`` stays a string): the table page sends its
    ``opt.NAME=VALUE`` URL parameters as they are written.

    Raises :class:`BadRequest` for an unknown game, a player count the game does not allow, or an
    option the kernel refuses (the message lists the valid values).
    """
    if game not in envs.GAMES:
        raise BadRequest(f"unknown game {short(game)}; games: {sorted(envs.GAMES)}")
    spec = envs.kernel(game).OPTIONS
    out = {}
    if "episode" in spec and spec["episode"].choices:
        out["episode"] = next(c for c in spec["episode"].choices if c != "match")
    if options is not None and not isinstance(options, dict):
        raise BadRequest(f"options must be an object of {game} options; valid options: {sorted(spec)}")
    given = {k: parse_option_value(v) if isinstance(v, str) else v for k, v in (options or {}).items()}
    try:  # an alias (P'yanitsa's n_players, the rules' name) as the option it names, as the env takes it
        out.update(envs.kernel_class(game).canonical_options(given))
    except ValueError as e:  # both names given
        raise BadRequest(f"bad {game} options: {_json_terms(str(e))}") from None
    if players is not None:
        lo, hi, _ = player_range(game)
        valid = f"{lo}" if lo == hi else f"{lo} to {hi}"
        if not lo <= players <= hi:
            raise BadRequest(f"{game} is played by {valid} players, not {short(players)}")
        if "num_players" in spec:
            given = out.get("num_players", players)
            if given != players or type(given) is bool:
                raise BadRequest(f"players is {players} but options.num_players is {json_short(given)}: give the "
                                 f"number of players once (players, {valid})")
            out["num_players"] = players
    unknown = [name for name in out if name not in spec]
    if unknown:  # named here, each briefly (the kernel's message would quote a long name whole)
        # the closest valid name, for names a hint can quote whole in JSON's quotes (letters, digits, _)
        near = did_you_mean([n for n in unknown if isinstance(n, str) and re.fullmatch(r"\w{1,40}", n)], spec)
        raise BadRequest(f"bad {game} options: unknown option(s) [{', '.join(json_short(n) for n in unknown)}]"
                         f"{near.replace(chr(39), chr(34))}; valid options: {json.dumps(sorted(spec))}")
    # each value checked here, so that the refusal is written in the client's JSON terms (null, true,
    # "mask"), not in the kernel's Python ones (None, True, 'mask')
    for name, value in out.items():
        try:
            spec[name].validate(name, value)
        except (ValueError, TypeError):
            valid = _json_terms(spec[name].valid) if spec[name].choices is None else json.dumps(list(spec[name].choices))
            raise BadRequest(f"bad {game} options: option {name}={json_short(value)} is not valid; valid values: {valid}") from None
    try:
        envs.kernel(game, **out)
    except (ValueError, TypeError) as e:  # options valid one by one that do not go together
        message = str(e)
        for value in out.values():  # the kernel quotes a refused value whole: briefly here
            if len(repr(value)) > 40:
                message = message.replace(repr(value), short(value))
        raise BadRequest(f"bad {game} options: {_json_terms(message)[:300]}") from None
    return out


def player_range(game: str) -> tuple[int, int, int]:
    """``(min, max, default)`` number of players of ``game``."""
    k = envs.kernel(game)
    opt = k.OPTIONS.get("num_players")
    if opt is not None and opt.choices:
        return min(opt.choices), max(opt.choices), int(opt.default)
    return k.num_players, k.num_players, k.num_players


class Table:
    """One game in progress: a person at seat 0 and AI agents at the other seats.

    Args:
        table_id: the table's id.
        game: a name of ``envs.GAMES``.
        options: the env options (see :func:`game_options`).
        seat_agents: seat -> ``(agent name, agent, lock or None)`` for seats ``1..P-1``; an agent
            shared between tables comes with the lock that serialises its use.
        seed: seed of the first deal (``None``: fresh entropy); later deals continue the generator.
        force_agent: whether the table was opened with ``force_agent`` (its default AI, and so
            :meth:`TableManager.hint`, is then the one :meth:`TableManager.default_agent` gives with ``force``).

    Attributes: ``env``, ``kernel``, ``log`` (this episode's :class:`LogEntry` list), ``returns``
    (``float[P]`` this episode's rewards so far), ``totals`` (``float[P]`` over finished episodes),
    ``episodes`` (finished episodes), ``lock``, ``last_used`` (``time.monotonic()``).
    """

    def __init__(
        self, table_id: str, game: str, options: dict, seat_agents: dict, seed: int | None = None, force_agent: bool = False,
    ) -> None:
        self.id = table_id
        self.game = game
        self.options = dict(options)
        self.force_agent = bool(force_agent)
        self.env = envs.make(game, render_mode="ansi", render_view=0, **self.options)
        self.kernel = self.env.unwrapped.kernel
        self.num_players = self.kernel.num_players
        self.seat_agents = seat_agents
        self.lock = threading.Lock()
        self.log: list[LogEntry] = []
        self.returns = np.zeros(self.num_players)
        self.totals = np.zeros(self.num_players)
        self.episodes = 0
        self.last_used = time.monotonic()
        #: when the page that showed it closed: the table goes after a grace time unless the page
        #: comes back (a reload) and asks for it again
        self.closing_since: float | None = None
        self._seed = seed
        #: deals dealt at this table (1 for the first): with :attr:`moves` it names the state a move answers
        self.deals = 0
        self._counted = False
        #: an AI seat failed (:class:`AIFailed`) and its moves are still to be played (:meth:`resume`)
        self.stalled = False
        self._max_steps = self.kernel.max_episode_steps or 1_000_000
        self.completed_trick: list[dict] | None = None
        #: this episode's moves that seat 0 heard of, for pacing and replay: ``(state after the move,
        #: seat, action, seen, heard (always True), completed trick as seat 0 saw it or None)``: the
        #: last :attr:`MAX_HISTORY` of them; ``history[0]`` is move number ``history_start``, ``initial_state`` the state before it
        self.history: list[tuple] = []
        self.history_start = 0
        self.initial_state = None
        self.completed_before: list[dict] | None = None  # last completed trick before history[0]

    #: moves of one episode kept for pacing and replay (a longer episode keeps its last ones; about
    #: 3-7 KB a move)
    MAX_HISTORY = 1500

    @property
    def moves(self) -> int:
        """Moves of this episode so far that seat 0 heard of (an uncaught Aluette signal does not count)."""
        return self.history_start + len(self.history)

    # ------------------------------------------------------------------ state
    @property
    def done(self) -> bool:
        """Whether the episode is over (terminated or truncated)."""
        return bool(self.env.game_state.done[0])

    @property
    def to_act(self) -> int | None:
        """Seat to act, ``None`` once the episode is over."""
        return None if self.done else int(self.env.game_state.current_player[0])

    # ------------------------------------------------------------------ play
    def deal(self) -> None:
        """Deal a new episode (the first with the table's seed, later ones from the same generator)
        and let the AI seats play up to seat 0's first turn. Running totals are kept."""
        self.env.reset(seed=self._seed)
        self._seed = None
        self.deals += 1
        self.log = []
        self.completed_trick = None
        self.history = []
        self.history_start = 0
        self.completed_before = None
        self.initial_state = self.env.game_state.copy()
        self._counted = False
        self.returns = np.array([self.env.rewards[a] for a in self.env.possible_agents], dtype=float)
        self._advance()

    def new_deal(self) -> None:
        """Deal the next episode once this one is over (:meth:`deal`); the running totals count every
        finished episode.

        Raises :class:`Conflict` while the episode is running: a deal dropped half way would not count
        in :attr:`totals`, so a person could redeal every hand that looks bad and keep the good ones.
        Finish the deal, or open a new table (its totals start from zero).
        """
        if not self.done:
            raise Conflict(
                "the deal is not over: finish it first (a deal left unfinished would not count in the running "
                "totals), or open a new table with POST /api/tables"
            )
        self.deal()

    def resume(self) -> int:
        """Play the AI seats' moves that a request left undone (an AI seat raised :class:`AIFailed`:
        :attr:`stalled`), up to seat 0's turn; nothing otherwise. Returns :attr:`moves`
        before the call. Raises :class:`AIFailed` if the AI seat fails again."""
        start = self.moves
        if self.stalled and not self.done and self.to_act != 0:
            self.stalled = False
            self._advance()
        return start

    def move(self, action: int, expected_moves: int | None = None, expected_deal: int | None = None) -> int:
        """Apply the person's ``action`` at seat 0, then the AI seats' moves up to seat 0's next turn.
        ``expected_moves``: the :attr:`moves` of the view the move answers (``None``: not checked);
        ``expected_deal``: its :attr:`deals` (``None``: not checked). Within a deal the count of moves
        names the state (seat 0's own move always counts), but every deal counts from 0 again: a move
        from the last deal's view at the same count (its first turn, say) needs the deal to be caught.

        Returns the number of the person's move in the episode (:attr:`moves` before the call; the
        moves from there on are the ones this call made, for the browser to show one at a time).

        Raises :class:`Conflict` when the episode is over, another seat is to act or
        ``expected_moves`` is not :attr:`moves` or ``expected_deal`` not :attr:`deals` (a stale move: a
        repeated request, or one sent from an old view, would else be played on a table that has moved on), and :class:`BadRequest` for an
        action that is not legal now (naming it and the legal ones); the table is unchanged then.
        """
        if self.resume() != self.moves:  # AI moves a failed request left: seat 0 has not seen them
            raise Conflict("the AI players have made the moves a failed request left undone; "
                           "GET /api/tables/{id} for the current view, then move")
        if self.done:
            raise Conflict("the episode is over; POST /api/tables/{id}/new deals a new one")
        if self.to_act != 0:
            raise Conflict(f"not your turn: player_{self.to_act} is to act")
        if expected_deal is not None and expected_deal != self.deals:
            raise Conflict(
                f"stale move: it answers a view of deal {short(expected_deal)}, but the table is at deal {self.deals} "
                "(a new deal was dealt since); GET /api/tables/{id} for the current view and send its \"deal\" and "
                "\"moves\" with your action"
            )
        if expected_moves is not None and expected_moves != self.moves:
            raise Conflict(
                f"stale move: it answers the view at move {short(expected_moves)}, but the table is at move "
                f"{self.moves} (the move was already made, or another request moved the table on); "
                "GET /api/tables/{id} for the current view and send its \"moves\" with your action"
            )
        legal = self.env.legal_actions()
        if not isinstance(action, (int, np.integer)) or action not in legal:
            k = self.kernel
            if 0 <= action < k.num_actions:
                what = k.action_name(action)
            else:
                what = f"{short(action)} (out of range 0..{k.num_actions - 1})"
            names = ", ".join(f"{a} {k.action_name(a)}" for a in legal)
            raise BadRequest(f"illegal action {what}; legal actions: {names}")
        start = self.moves
        self._apply(0, action)
        self._advance()
        return start

    def _advance(self) -> None:
        """AI seats play until seat 0 is to act or the episode ends (at most ``max_episode_steps``)."""
        for _ in range(self._max_steps + 1):
            if self.done or self.to_act == 0:
                break
            seat = self.to_act
            name, agent, lock = self.seat_agents[seat]
            try:
                if lock is None:
                    a = agent_action(agent, self.env)
                else:
                    with lock:
                        a = agent_action(agent, self.env)
            except Exception:
                # a bare 500 left the table stuck at the AI's turn: every move was "not your turn" for good
                log.exception("AI seat %d (%s) of table %s failed to choose its move", seat, name, self.id)
                self.stalled = True
                what = f"the AI player at seat {seat} ({name}) failed to choose its move"
                raise AIFailed(
                    f"{what} (the server's console says why); the moves before it stand and it plays again at the "
                    "next request: GET /api/tables/{id}", what
                ) from None
            self._apply(seat, a)
        if self.done and not self._counted:
            self.totals += self.returns
            self.episodes += 1
            self._counted = True

    def _apply(self, seat: int, action: int) -> None:
        """Step the env with ``seat``'s ``action``; log it with whether seat 0 sees which it was."""
        k, env = self.kernel, self.env
        st = env.game_state
        seen = seat == 0 or k.action_is_public(st, 0, action)
        before = st.copy() if not seen else None  # for a game that tells each seat what it learns (announce)
        trick = self._trick_seen_by_seat0()
        before_completed = self.completed_trick
        env.step(action)
        self._note_completed_trick(trick, seat, action, seen)
        completed = self.completed_trick if self.completed_trick is not before_completed else None
        heard = True
        lines = None if before is None else k.announce(before, env.game_state, action, seat, 0)
        if lines is not None:
            name = k.action_name(action)
            seen = any(name in line.split() for line in lines)
            heard = bool(lines)
        self.returns += [env.rewards[a] for a in env.possible_agents]
        if not heard:
            # a move seat 0 learns nothing of (an uncaught Aluette signal) leaves no trace for seat 0: no
            # log entry, no frame, no count in ``moves`` (a frame or a count would let seat 0 count the
            # opponents' signals); the next move's frame is drawn from the state that includes it
            return
        self.log.append(LogEntry(seat, int(action), bool(seen)))
        self.history.append((env.game_state.copy(), seat, int(action), bool(seen), True, completed))
        if len(self.history) > self.MAX_HISTORY:
            first = self.history.pop(0)
            self.initial_state = first[0]
            self.completed_before = first[5] or self.completed_before
            self.history_start += 1


    def _trick_seen_by_seat0(self) -> list[dict] | None:
        try:
            return self.kernel.table_view(self.env.game_state, 0, 0)["trick"]
        except NotImplementedError:
            return None

    def _note_completed_trick(self, trick: list[dict] | None, seat: int, action: int, seen: bool) -> None:
        """Keep the cards of a trick that ``action`` completed, as seat 0 saw them (face-down cards
        stay ``None``), for views whose kernel keeps only the last trick's winner."""
        card = self.kernel.action_card(action)
        if trick is None or card is None:
            return
        after = self._trick_seen_by_seat0()
        if after is not None and len(after) < len(trick) + 1:
            self.completed_trick = [*trick, {"seat": seat, "card": card if seen else None}]


#: an absolute file path in a message (POSIX or Windows): such a message stays on the server's console
_ABSOLUTE_PATH = re.compile(r"(?:^|[\s'\"(=])(?:/[^\s/'\"]+/|[A-Za-z]:\\)")


def _trim(cache: OrderedDict, size: int) -> None:
    while len(cache) > size:
        cache.popitem(last=False)


class TableManager:
    """The open tables of a server.

    Args:
        max_tables: open tables at most; creating one more raises :class:`TooManyTables` (503)
            once idle tables have been dropped.
        idle_seconds: a table not used for this long is dropped (checked whenever a table is created).
        per_client: open tables at most per client (its address); one more raises
            :class:`TooManyRequests` (429).
        per_minute: tables one client may open in any 60 s; one more raises :class:`TooManyRequests`.
        agents_dir: a folder of saved agents (sub-folders with an ``agent.json``), listed as
            ``"local:<folder>"`` for the game their ``agent.json`` names; nothing outside it is ever
            loaded, and a request names only such a listed name, never a path.
        clock: time source (``time.monotonic``; tests pass a fake one).

    Agents load lazily: :meth:`games` loads none (the first ``/api/games`` answers at once); an
    agent is loaded the first time a table needs it and then shared.
    """

    #: loaded agents (and default-agent answers) kept for reuse across tables
    MAX_CACHED = 32

    def __init__(
        self,
        max_tables: int = 200,
        idle_seconds: float = 1200.0,
        clock=time.monotonic,
        per_client: int = 8,
        per_minute: int = 30,
        agents_dir: str | None = None,
    ) -> None:
        if max_tables < 1:
            raise ValueError(f"max_tables must be >= 1, got {max_tables}")
        if not idle_seconds > 0:
            raise ValueError(f"idle_seconds must be > 0, got {idle_seconds}")
        if per_client < 1 or per_minute < 1:
            raise ValueError(f"per_client and per_minute must be >= 1, got {per_client} and {per_minute}")
        self.max_tables = max_tables
        self.idle_seconds = idle_seconds
        self.per_client = per_client
        self.per_minute = per_minute
        self.clock = clock
        self._tables: dict[str, Table] = {}
        self._owner: dict[str, str] = {}
        self._opened: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        # loaded agents per (name, options) and default names per options; bounded (least
        # recently used dropped) since every distinct options object would add an entry
        self._shared: OrderedDict[tuple, tuple[Any, threading.Lock]] = OrderedDict()
        self._defaults: OrderedDict[tuple, str] = OrderedDict()
        self._load_lock = threading.RLock()
        self.agents_dir = None
        self._local: dict[str, tuple[str, str]] = {}  # "local:<folder>" -> (game, absolute folder)
        if agents_dir is not None:
            self.agents_dir = os.path.realpath(agents_dir)
            if not os.path.isdir(self.agents_dir):
                raise ValueError(f"--agents-dir {agents_dir!r} is not a folder")
            self._local = scan_agents_dir(self.agents_dir)

    # ------------------------------------------------------------------ games and agents
    def agent_names(self, game: str) -> list[str]:
        """Names that may play ``game``: its registry names (``"<game>/..."``), the saved agents of
        ``agents_dir`` for it (``"local:<folder>"``) and ``"random"``."""
        local = [n for n, (g, _) in sorted(self._local.items()) if g == game]
        return [n for n in agents.available() if n.startswith(game + "/")] + local + ["random"]

    def default_agent(self, game: str, options: dict, force: bool = False) -> str:
        """``"<game>/ppo"`` when shipped and fitting ``options`` (with ``force`` also where its recorded
        options differ, as long as it can read their observation), else ``"<game>/rule"``: the
        decision of :func:`cardzoo.training.common.default_agent`
        (:func:`cardzoo.agents.options.seat_decision`); the loaded agent stays cached for the tables."""
        key = (game, json.dumps(options, sort_keys=True), bool(force))
        with self._load_lock:
            if key not in self._defaults:
                ppo = f"{game}/ppo"
                try:
                    seated = seat_decision(lambda: self._load(game, ppo, options)[0], ppo, game, options, force, default=True)
                    self._defaults[key] = seated.name
                except (BadRequest, LayoutMismatchError):  # not shipped, or another observation layout
                    self._defaults[key] = f"{game}/rule"
                _trim(self._defaults, self.MAX_CACHED)
            self._defaults.move_to_end(key)
            return self._defaults[key]

    def default_agent_name(self, game: str) -> str:
        """The default agent for the game's default options without loading anything (and without
        waiting for a load in progress): the answer of :meth:`default_agent` once known, else
        ``"<game>/ppo"`` when shipped, else ``"<game>/rule"``."""
        key = (game, json.dumps(game_options(game), sort_keys=True), False)
        known = self._defaults.get(key)  # a plain read: the load lock may be held for seconds
        if known is not None:
            return known
        return f"{game}/ppo" if f"{game}/ppo" in agents.available() else f"{game}/rule"

    def warm_up(self) -> None:
        """Load each game's default agent for its default options (run in a background thread
        when the server starts; a game whose agent fails to load falls back as in :meth:`default_agent`)."""
        for game in envs.GAMES:
            self.default_agent(game, game_options(game))

    def games(self) -> list[dict]:
        """Metadata of every game: id, name, players (min/max/default), teams, pack, agents, default
        agent. Loads no agent."""
        out = []
        for game in envs.GAMES:
            k = envs.kernel(game)
            lo, hi, default = player_range(game)
            out.append(
                {
                    "id": game,
                    "name": k.display_name or game,
                    "players": {"min": lo, "max": hi, "default": default},
                    "teams": k.teams is not None,
                    "pack": k.deck.name.rstrip("0123456789"),
                    "agents": self.agent_names(game),
                    "default_agent": self.default_agent_name(game),
                    "match": match_info(game),
                }
            )
        return out

    def loaded_agents(self) -> list[str]:
        """Names of the agents loaded so far (for tests and diagnostics)."""
        with self._load_lock:
            return [name for name, _ in self._shared]

    def _agent(self, game: str, name: str, options: dict, seed: int | None):
        """``(agent, lock)`` for ``name``: a fresh seeded agent for the random ones, and for a search
        agent (one that takes a ``seed``) when ``seed`` is given (lock ``None``), else one shared
        instance per (name, options) with its lock. :class:`BadRequest`
        for an unknown name or one that fails to load, :class:`CannotPlay` for a trained agent
        that cannot read these options' observation."""
        try:
            return self._load(game, name, options, seed)
        except LayoutMismatchError as e:
            raise CannotPlay(str(e)[:600]) from None

    def _load(self, game: str, name: str, options: dict, seed: int | None = None):
        """:meth:`_agent`, but :class:`~cardzoo.agents.options.LayoutMismatchError` is raised as it is
        (for :func:`~cardzoo.agents.options.seat_decision`)."""
        valid = self.agent_names(game)
        if not isinstance(name, str) or name not in valid:
            raise BadRequest(f"unknown agent {short(name)} for {game}; valid agents: {valid}")
        if name == "random" or name.endswith("/random"):
            return agents.load(name, seed=seed), None
        if seed is not None and not name.endswith("/ppo") and name not in self._local and takes_seed(name):
            # a search agent draws random numbers (determinizations): a table with a seed gets its own,
            # seeded, so that the same seed plays the same deal (a shared one is never reseeded)
            try:
                return agents.load(name, seed=seed, **options), None
            except (ValueError, OSError, ImportError) as e:
                raise BadRequest(self._load_failure(game, name, e, options)) from None
        key = (name, json.dumps(options, sort_keys=True))
        with self._load_lock:
            if key not in self._shared:
                try:
                    if name in self._local:  # a folder found under agents_dir, never a path from a request
                        loaded = agents.load(self._local[name][1])
                    else:
                        with warnings.catch_warnings():  # create() decides what to seat (seat_decision)
                            warnings.simplefilter("ignore", OptionsMismatchWarning)
                            loaded = agents.load(name, **options)
                    self._shared[key] = (loaded, threading.Lock())
                except LayoutMismatchError:
                    raise
                except (ValueError, OSError, ImportError) as e:
                    raise BadRequest(self._load_failure(game, name, e, options)) from None
                _trim(self._shared, self.MAX_CACHED)
            self._shared.move_to_end(key)
            return self._shared[key]

    @staticmethod
    def _may_play(name: str, options: dict) -> bool:
        """Whether agent ``name`` may be offered for ``options``: a search agent (registered, taking a
        seed, not trained) is built to see whether it refuses them (cheap: a kernel and a rule bot);
        every other agent is offered (a trained one is checked when seated)."""
        if name.endswith("/ppo") or name not in agents.available() or not takes_seed(name) or name.endswith("/random"):
            return True
        try:
            agents.load(name, **options)
        except (ValueError, TypeError):
            return False
        return True

    def _load_failure(self, game: str, name: str, error: Exception, options: dict | None = None) -> str:
        """The client's message for agent ``name`` failing to load with ``error``. The error names
        files of the server (the agent folder, the package's shipped agents), so it goes to the server's
        console (logger ``cardzoo.training.web.tables``) and the client is told only what failed and
        what to do; a missing extra (:class:`cardzoo.MissingExtraError`) is named, it holds no path, and
        so is a registered agent's refusal of the options (``ValueError`` naming no absolute path: a
        search agent asked to play a whole match)."""
        from cardzoo import MissingExtraError

        if isinstance(error, MissingExtraError):
            return f"agent {name!r} cannot play {game} on this server: {error}"
        if (isinstance(error, ValueError) and name in agents.available() and not name.endswith("/ppo")
                and not _ABSOLUTE_PATH.search(str(error))):
            # a registered agent (search, rule bot) refusing the options (a search agent plays single
            # deals, not a match): its message is about the options and names no file; pass it on
            others = [n for n in self.agent_names(game) if n != name and self._may_play(n, options or {})]
            return f"agent {name!r} cannot play these {game} options: {error}. Choose another agent ({others})"
        where = f"from the server's agent folder {self._local[name][1]}" if name in self._local else "on the server"
        log.warning("agent %r could not be loaded %s for %s: %s: %s", name, where, game, type(error).__name__, error)
        others = [n for n in self.agent_names(game) if n != name]
        if name in self._local:
            return (f"agent {name!r} is unavailable: the server could not load it from its agent folder (its files "
                    f"are missing or damaged; the server's console says why). Choose another agent "
                    f"({others}), or ask whoever runs the server to check its agent folder (--agents-dir)")
        return (f"agent {name!r} is unavailable: the server could not load it (the server's console says why). "
                f"Choose another agent ({others})")

    def _trained_or_rule(self, game: str, name: str, options: dict, force: bool) -> str:
        """The agent to seat for the trained agent ``name`` (:func:`~cardzoo.agents.options.seat_decision`):
        itself when it was trained for ``options`` (or ``force``), else ``"<game>/rule"``. An agent
        that cannot read these options' observation is never seated: the rule bot, or with
        ``force`` :class:`CannotPlay`."""
        try:
            return seat_decision(lambda: self._load(game, name, options)[0], name, game, options, force).name
        except LayoutMismatchError as e:
            raise CannotPlay(str(e)[:600]) from None

    def hint(self, table: Table) -> int:
        """The action the game's default agent would take for seat 0 now (loaded on first use): the
        default AI of this table, decided as for its seats (:meth:`default_agent` with the table's
        ``force_agent``). :class:`Conflict` when it is not seat 0's turn."""
        if table.done or table.to_act != 0:
            raise Conflict("a hint is given only on your turn")
        name = self.default_agent(table.game, table.options, table.force_agent)
        agent, lock = self._agent(table.game, name, table.options, None)
        try:
            with lock if lock is not None else threading.Lock():
                return int(agent_action(agent, table.env))
        except Exception:  # was a bare 500; the table is unchanged (the agent only reads it)
            log.exception("the hint's agent %s failed at table %s", name, table.id)
            raise AIFailed(f"no hint: its agent ({name}) failed to choose a move (the server's console says why); "
                           "the table is unchanged: play your move, or ask again") from None

    # ------------------------------------------------------------------ tables
    def _check_capacity(self) -> None:
        if len(self._tables) >= self.max_tables:
            raise TooManyTables(
                f"too many open tables ({len(self._tables)} of {self.max_tables}); "
                "close one with DELETE /api/tables/{id} or try again later"
            )

    def _check_client(self, client: str) -> None:
        """:class:`TooManyRequests` when ``client`` holds ``per_client`` open tables or opened
        ``per_minute`` in the last 60 s. Call holding ``self._lock``."""
        now = self.clock()
        recent = [t for t in self._opened.get(client, []) if now - t < 60.0]
        self._opened[client] = recent
        if len(recent) >= self.per_minute:
            raise TooManyRequests(f"too many new tables: at most {self.per_minute} a minute; wait a little")
        mine = sum(1 for i, o in self._owner.items() if o == client and self._tables[i].closing_since is None)
        if mine >= self.per_client:
            raise TooManyRequests(
                f"you have {mine} open tables (at most {self.per_client}); close one (DELETE /api/tables/{{id}})"
            )

    def create(
        self,
        game: str,
        players: int | None = None,
        partner: str | None = None,
        opponents: str | None = None,
        seed: int | None = None,
        options: dict | None = None,
        force_agent: bool = False,
        client: str = "local",
    ) -> Table:
        """Open a table of ``game`` for ``client`` and deal its first episode (AI seats play up to
        seat 0's turn).

        ``partner`` plays seat 0's partners (team games only), ``opponents`` every other seat;
        ``None`` takes :meth:`default_agent`. Raises :class:`BadRequest` for an unknown game, a bad
        player count, option or agent name, or a ``partner`` in a game without partnerships,
        :class:`TooManyRequests` past the per-client limits and :class:`TooManyTables` when
        ``max_tables`` tables are open. A trained agent that was trained for other options, asked
        for or the default, is replaced by the rule bot unless ``force_agent``; one that cannot
        read these options' observation is never seated (asked for with ``force_agent``:
        :class:`CannotPlay`) (:func:`cardzoo.agents.options.seat_decision`); the view's seats name
        the agents seated.
        """
        opts = game_options(game, options, players)
        k = envs.kernel(game, **opts)
        try:
            check_partner(game, k, partner, "partner", "opponents")
        except ValueError as e:
            raise BadRequest(str(e)) from None
        for name in (partner, opponents):  # names and capacity first: a refused request loads nothing
            if name is not None and name not in self.agent_names(game):
                raise BadRequest(f"unknown agent {short(name)} for {game}; valid agents: {self.agent_names(game)}")
        self.expire()
        with self._lock:
            self._check_client(client)
        self._check_capacity()
        default = None
        names = {}
        for role, name in (("partner", partner), ("opponents", opponents)):
            if name is None:
                default = default or self.default_agent(game, opts, force_agent)
                name = default
            elif name.endswith("/ppo") or name in self._local:  # a trained agent: only for what it learned
                name = self._trained_or_rule(game, name, opts, force_agent)
            names[role] = name
        mates = set() if k.teams is None else set(next(t for t in k.teams if 0 in t)) - {0}
        seat_agents = {}
        for seat in range(1, k.num_players):
            name = names["partner" if seat in mates else "opponents"]
            agent, lock = self._agent(game, name, opts, None if seed is None else seed + seat)
            seat_agents[seat] = (name, agent, lock)
        with self._lock:
            self._check_capacity()
            self._check_client(client)
            table_id = secrets.token_urlsafe(16)
            table = Table(table_id, game, opts, seat_agents, seed, force_agent)
            table.last_used = self.clock()
            self._tables[table_id] = table
            self._owner[table_id] = client
            self._opened.setdefault(client, []).append(self.clock())
        try:
            with table.lock:
                table.deal()
        except Exception as e:
            self.delete(table_id)
            if isinstance(e, AIFailed):  # the table is gone: no GET to retry
                raise AIFailed(f"the table could not be dealt: {e.what}; open it again "
                               f"or choose another agent ({self.agent_names(game)})") from None
            raise
        return table

    #: seconds a table stays after its page closed (:meth:`close_soon`), so that a reload finds it
    CLOSE_GRACE = 10.0

    def close_soon(self, table_id: str) -> None:
        """The page of table ``table_id`` closed (``navigator.sendBeacon``): the table is dropped
        :attr:`CLOSE_GRACE` seconds from now unless it is asked for again (a reload), and no longer
        counts towards its client's open tables. :class:`NotFound` if there is none."""
        self.expire()
        with self._lock:
            table = self._tables.get(table_id)
            if table is None:
                raise NotFound(self._no_table(table_id))
            table.closing_since = self.clock()

    def _no_table(self, table_id) -> str:
        """The refusal of an id no open table has (every endpoint says the same: DELETE and close said less)."""
        return f"no table {short(table_id)} (unknown, closed, or dropped after {self.idle_seconds:g} s idle)"

    def get(self, table_id: str) -> Table:
        """The open table ``table_id`` (its idle clock restarts, a pending close is called off);
        :class:`NotFound` if there is none. A table closed by its page comes back (a reload) only while
        its client holds fewer than ``per_client`` other open tables, else :class:`TooManyRequests` and
        it stays closing: a closed table frees its place, so coming back without that check let a
        client open 8 tables, close them, open 8 more and reload the first 8, holding 16 and more."""
        self.expire()
        with self._lock:
            table = self._tables.get(table_id)
            if table is None:
                raise NotFound(self._no_table(table_id))
            if table.closing_since is not None:
                owner = self._owner.get(table_id)
                mine = sum(1 for i, o in self._owner.items() if o == owner and self._tables[i].closing_since is None)
                if mine >= self.per_client:
                    raise TooManyRequests(
                        f"this table was closed by its page and you have {mine} other open tables (at most "
                        f"{self.per_client}); close one (DELETE /api/tables/{{id}}) within {self.CLOSE_GRACE:g} s "
                        "to keep this one"
                    )
            table.last_used = self.clock()
            table.closing_since = None
        return table

    def delete(self, table_id: str) -> None:
        """Close table ``table_id``; :class:`NotFound` if there is none."""
        with self._lock:
            self._owner.pop(table_id, None)
            if self._tables.pop(table_id, None) is None:
                raise NotFound(self._no_table(table_id))

    def expire(self) -> int:
        """Drop the tables idle for more than ``idle_seconds`` and those closed by their page more
        than :attr:`CLOSE_GRACE` seconds ago; returns how many were dropped."""
        now = self.clock()
        with self._lock:
            old = [
                i
                for i, t in self._tables.items()
                if now - t.last_used > self.idle_seconds
                or (t.closing_since is not None and now - t.closing_since > self.CLOSE_GRACE)
            ]
            for i in old:
                del self._tables[i]
                self._owner.pop(i, None)
        return len(old)

    def __len__(self) -> int:
        with self._lock:
            return len(self._tables)


def scan_agents_dir(folder: str) -> dict[str, tuple[str, str]]:
    """Saved agents directly under ``folder``: ``{"local:<name>": (game, absolute path)}`` for each
    sub-folder holding an ``agent.json`` whose ``"game"`` is a cardzoo game (others are skipped).
    Links that lead outside ``folder`` are skipped too."""
    out = {}
    root = os.path.realpath(folder)
    for name in sorted(os.listdir(root)):
        path = os.path.realpath(os.path.join(root, name))
        if os.path.dirname(path) != root or not os.path.isfile(os.path.join(path, "agent.json")):
            continue
        try:
            with open(os.path.join(path, "agent.json"), encoding="utf-8") as f:
                game = json.load(f).get("game")
        except (OSError, ValueError, AttributeError):
            continue
        if game in envs.GAMES:
            out[f"local:{name}"] = (game, path)
    return out


#: how a whole match of each game is played at the web table (the ``episode="match"`` option and
#: the match length its RULES.md gives), shown as the table page's "whole match" choice
MATCH = {
    "all_fours": {"options": {"episode": "match"}, "length": "to 14 points"},
    "avinas": {"options": {"episode": "match"}, "length": "to 12 pips"},
    "aluette": {"options": {"episode": "match"}, "length": "5 deals"},
    "ottocento": {"options": {"match_target": 800}, "length": "to 800 points"},
}
# P'yanitsa has no match: one game (until a single player holds every card) is its whole match


def match_info(game: str) -> dict | None:
    """``{"options", "length"}`` of a whole match of ``game`` at the web table (see :data:`MATCH`);
    ``None`` for P'yanitsa, whose one game is already the whole match."""
    return MATCH.get(game)

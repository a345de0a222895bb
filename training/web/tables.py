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
import secrets
import threading
import time
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np

from cardzoo import agents
from cardzoo import envs
from cardzoo.agents.options import OptionsMismatchWarning, option_differences

from ..common import agent_action

__all__ = [
    "BadRequest",
    "Conflict",
    "GAME_NAMES",
    "LogEntry",
    "NotFound",
    "Table",
    "TableError",
    "TableManager",
    "TooManyTables",
    "game_options",
]

#: display name of each game
GAME_NAMES = {
    "all_fours": "All Fours",
    "ottocento": "Ottocento",
    "avinas": "Avinas",
    "aluette": "Aluette",
    "pyanitsa": "P'yanitsa",
}


class TableError(Exception):
    """An error of a table operation; ``status`` is the HTTP status code, ``str(e)`` the message."""

    status = 400


class BadRequest(TableError):
    """Bad input (unknown game or agent, bad option, illegal move): 400."""

    status = 400


class NotFound(TableError):
    """No table of that id: 404."""

    status = 404


class Conflict(TableError):
    """Not the person's turn, or the episode is over: 409."""

    status = 409


class TooManyTables(TableError):
    """The cap on open tables is reached: 503."""

    status = 503


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
    (the ``num_players`` option of games with a choice of players).

    Raises :class:`BadRequest` for an unknown game, a player count the game does not allow, or an
    option the kernel refuses (the message lists the valid values).
    """
    if game not in envs.GAMES:
        raise BadRequest(f"unknown game {game!r}; games: {sorted(envs.GAMES)}")
    spec = envs.kernel(game).OPTIONS
    out = {}
    if "episode" in spec and spec["episode"].choices:
        out["episode"] = next(c for c in spec["episode"].choices if c != "match")
    if options is not None and not isinstance(options, dict):
        raise BadRequest(f"options must be an object of {game} options; valid options: {sorted(spec)}")
    out.update(options or {})
    if players is not None:
        lo, hi, _ = player_range(game)
        if not lo <= players <= hi:
            valid = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise BadRequest(f"{game} is played by {valid} players, not {players}")
        if "num_players" in spec:
            out["num_players"] = players
    try:
        envs.kernel(game, **out)
    except (ValueError, TypeError) as e:
        raise BadRequest(f"bad {game} options: {e}") from None
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

    Attributes: ``env``, ``kernel``, ``log`` (this episode's :class:`LogEntry` list), ``returns``
    (``float[P]`` this episode's rewards so far), ``totals`` (``float[P]`` over finished episodes),
    ``episodes`` (finished episodes), ``lock``, ``last_used`` (``time.monotonic()``).
    """

    def __init__(self, table_id: str, game: str, options: dict, seat_agents: dict, seed: int | None = None) -> None:
        self.id = table_id
        self.game = game
        self.options = dict(options)
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
        self._seed = seed
        self._counted = False
        self._max_steps = self.kernel.max_episode_steps or 1_000_000
        self.completed_trick: list[dict] | None = None

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
        self.log = []
        self.completed_trick = None
        self._counted = False
        self.returns = np.array([self.env.rewards[a] for a in self.env.possible_agents], dtype=float)
        self._advance()

    def move(self, action: int) -> None:
        """Apply the person's ``action`` at seat 0, then the AI seats' moves up to seat 0's next turn.

        Raises :class:`Conflict` when the episode is over or another seat is to act, and
        :class:`BadRequest` for an action that is not legal now (naming it and the legal ones);
        the table is unchanged then.
        """
        if self.done:
            raise Conflict("the episode is over; POST /api/tables/{id}/new deals a new one")
        if self.to_act != 0:
            raise Conflict(f"not your turn: player_{self.to_act} is to act")
        legal = self.env.legal_actions()
        if action not in legal:
            k = self.kernel
            if 0 <= action < k.num_actions:
                what = k.action_name(action)
            else:
                what = f"{action} (out of range 0..{k.num_actions - 1})"
            names = ", ".join(f"{a} {k.action_name(a)}" for a in legal)
            raise BadRequest(f"illegal action {what}; legal actions: {names}")
        self._apply(0, action)
        self._advance()

    def _advance(self) -> None:
        """AI seats play until seat 0 is to act or the episode ends (at most ``max_episode_steps``)."""
        for _ in range(self._max_steps + 1):
            if self.done or self.to_act == 0:
                break
            seat = self.to_act
            _, agent, lock = self.seat_agents[seat]
            if lock is None:
                a = agent_action(agent, self.env)
            else:
                with lock:
                    a = agent_action(agent, self.env)
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
        announce = getattr(k, "announce", None)  # a game that tells each seat what it learns (Aluette)
        before = st.copy() if not seen and announce is not None else None
        trick = self._trick_seen_by_seat0()
        env.step(action)
        self._note_completed_trick(trick, seat, action, seen)
        heard = True
        if before is not None:
            name = k.action_name(action)
            lines = announce(before, env.game_state, action, seat, 0)
            seen = any(name in line.split() for line in lines)
            heard = bool(lines)
        if heard:  # a move seat 0 learns nothing of (an uncaught Aluette signal) is not logged at all
            self.log.append(LogEntry(seat, int(action), bool(seen)))
        self.returns += [env.rewards[a] for a in env.possible_agents]


    def _trick_seen_by_seat0(self) -> list[dict] | None:
        try:
            return self.kernel.table_view(self.env.game_state, 0, 0)["trick"]
        except NotImplementedError:
            return None

    def _note_completed_trick(self, trick: list[dict] | None, seat: int, action: int, seen: bool) -> None:
        """Keep the cards of a trick that ``action`` completed, as seat 0 saw them (face-down cards
        stay ``None``), for views whose kernel keeps only the last trick's winner."""
        from .views import action_card

        card = action_card(self.kernel, action)
        if trick is None or card is None:
            return
        after = self._trick_seen_by_seat0()
        if after is not None and len(after) < len(trick) + 1:
            self.completed_trick = [*trick, {"seat": seat, "card": card if seen else None}]


def _trim(cache: OrderedDict, size: int) -> None:
    while len(cache) > size:
        cache.popitem(last=False)


class TableManager:
    """The open tables of a server.

    Args:
        max_tables: open tables at most; creating one more raises :class:`TooManyTables` (503)
            once idle tables have been dropped.
        idle_seconds: a table not used for this long is dropped (checked whenever a table is created).
        clock: time source (``time.monotonic``; tests pass a fake one).
    """

    #: loaded agents (and default-agent answers) kept for reuse across tables
    MAX_CACHED = 32

    def __init__(self, max_tables: int = 200, idle_seconds: float = 3600.0, clock=time.monotonic) -> None:
        if max_tables < 1:
            raise ValueError(f"max_tables must be >= 1, got {max_tables}")
        if not idle_seconds > 0:
            raise ValueError(f"idle_seconds must be > 0, got {idle_seconds}")
        self.max_tables = max_tables
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._tables: dict[str, Table] = {}
        self._lock = threading.Lock()
        # loaded agents per (name, options) and default names per options; bounded (least
        # recently used dropped) since every distinct options object would add an entry
        self._shared: OrderedDict[tuple, tuple[Any, threading.Lock]] = OrderedDict()
        self._defaults: OrderedDict[tuple, str] = OrderedDict()
        self._load_lock = threading.RLock()

    # ------------------------------------------------------------------ games and agents
    def agent_names(self, game: str) -> list[str]:
        """Registry names that may play ``game``: its own (``"<game>/..."``) and ``"random"``."""
        return [n for n in agents.available() if n.startswith(game + "/")] + ["random"]

    def default_agent(self, game: str, options: dict) -> str:
        """``"<game>/ppo"`` when shipped and fitting ``options``, else ``"<game>/rule"`` (the rule of
        :func:`cardzoo.training.common.default_agent`; the loaded agent stays cached for the tables)."""
        key = (game, json.dumps(options, sort_keys=True))
        with self._load_lock:
            if key not in self._defaults:
                ppo = f"{game}/ppo"
                try:
                    fits = not option_differences(self._agent(game, ppo, options, None)[0], game, options)
                    self._defaults[key] = ppo if fits else f"{game}/rule"
                except BadRequest:  # not shipped, or another observation layout
                    self._defaults[key] = f"{game}/rule"
                _trim(self._defaults, self.MAX_CACHED)
            self._defaults.move_to_end(key)
            return self._defaults[key]

    def games(self) -> list[dict]:
        """Metadata of every game: id, name, players (min/max/default), teams, pack, agents, default agent."""
        out = []
        for game in envs.GAMES:
            k = envs.kernel(game)
            lo, hi, default = player_range(game)
            out.append(
                {
                    "id": game,
                    "name": GAME_NAMES.get(game, game),
                    "players": {"min": lo, "max": hi, "default": default},
                    "teams": k.teams is not None,
                    "pack": k.deck.name.rstrip("0123456789"),
                    "agents": self.agent_names(game),
                    "default_agent": self.default_agent(game, game_options(game)),
                }
            )
        return out

    def _agent(self, game: str, name: str, options: dict, seed: int | None):
        """``(agent, lock)`` for registry ``name``: a fresh seeded agent for the random ones (lock
        ``None``), else one shared instance per (name, options) with its lock."""
        valid = self.agent_names(game)
        if not isinstance(name, str) or name not in valid:
            raise BadRequest(f"unknown agent {name!r} for {game}; valid agents: {valid}")
        if name == "random" or name.endswith("/random"):
            return agents.load(name, seed=seed), None
        key = (name, json.dumps(options, sort_keys=True))
        with self._load_lock:
            if key not in self._shared:
                try:
                    with warnings.catch_warnings():  # create() decides what to seat (option_differences)
                        warnings.simplefilter("ignore", OptionsMismatchWarning)
                        self._shared[key] = (agents.load(name, **options), threading.Lock())
                except (ValueError, OSError) as e:
                    raise BadRequest(f"agent {name!r} cannot play {game} with these options: {e}") from None
                _trim(self._shared, self.MAX_CACHED)
            self._shared.move_to_end(key)
            return self._shared[key]

    # ------------------------------------------------------------------ tables
    def _check_capacity(self) -> None:
        if len(self._tables) >= self.max_tables:
            raise TooManyTables(
                f"too many open tables ({len(self._tables)} of {self.max_tables}); "
                "close one with DELETE /api/tables/{id} or try again later"
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
    ) -> Table:
        """Open a table of ``game`` and deal its first episode (AI seats play up to seat 0's turn).

        ``partner`` plays seat 0's partners (team games; unused otherwise), ``opponents`` every
        other seat; ``None`` takes :meth:`default_agent`. Raises :class:`BadRequest` for an unknown
        game, a bad player count, option or agent name, and
        :class:`TooManyTables` when ``max_tables`` tables are open. A trained agent asked for that
        was trained for other options is replaced by the rule bot unless ``force_agent``
        (:mod:`cardzoo.agents.options`); the view's seats name the agents seated.
        """
        opts = game_options(game, options, players)
        for name in (partner, opponents):  # names and capacity first: a refused request loads nothing
            if name is not None and name not in self.agent_names(game):
                raise BadRequest(f"unknown agent {name!r} for {game}; valid agents: {self.agent_names(game)}")
        self.expire()
        self._check_capacity()
        default = None
        names = {}
        for role, name in (("partner", partner), ("opponents", opponents)):
            if name is None:
                default = default or self.default_agent(game, opts)
                name = default
            elif not force_agent and name.endswith("/ppo"):  # a trained agent: only for what it learned
                if option_differences(self._agent(game, name, opts, None)[0], game, opts):
                    name = f"{game}/rule"  # the table's seats name the agent seated
            names[role] = name
        k = envs.kernel(game, **opts)
        mates = set() if k.teams is None else set(next(t for t in k.teams if 0 in t)) - {0}
        seat_agents = {}
        for seat in range(1, k.num_players):
            name = names["partner" if seat in mates else "opponents"]
            agent, lock = self._agent(game, name, opts, None if seed is None else seed + seat)
            seat_agents[seat] = (name, agent, lock)
        if partner is not None:
            self._agent(game, partner, opts, None)  # validated even where no seat is a partner
        with self._lock:
            self._check_capacity()
            table_id = secrets.token_urlsafe(16)
            table = Table(table_id, game, opts, seat_agents, seed)
            table.last_used = self.clock()
            self._tables[table_id] = table
        try:
            with table.lock:
                table.deal()
        except Exception:
            self.delete(table_id)
            raise
        return table

    def get(self, table_id: str) -> Table:
        """The open table ``table_id`` (its idle clock restarts); :class:`NotFound` if there is none."""
        with self._lock:
            table = self._tables.get(table_id)
        if table is None:
            raise NotFound(f"no table {table_id!r} (unknown, closed, or dropped after {self.idle_seconds:g} s idle)")
        table.last_used = self.clock()
        return table

    def delete(self, table_id: str) -> None:
        """Close table ``table_id``; :class:`NotFound` if there is none."""
        with self._lock:
            if self._tables.pop(table_id, None) is None:
                raise NotFound(f"no table {table_id!r}")

    def expire(self) -> int:
        """Drop the tables idle for more than ``idle_seconds``; returns how many were dropped."""
        now = self.clock()
        with self._lock:
            old = [i for i, t in self._tables.items() if now - t.last_used > self.idle_seconds]
            for i in old:
                del self._tables[i]
        return len(old)

    def __len__(self) -> int:
        with self._lock:
            return len(self._tables)

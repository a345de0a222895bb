"""Avinas rules as a batched kernel.

Implements ``envs/avinas/RULES.md`` (sections cited as §n): the deal in packets of four with
the exposure of the 4th and 8th cards (§3), the sevens game with its knocks and the no-sevens
game with its calls, throw-ins, naming of trumps, honesty check and the declarer's stop (§4),
trick play with the trick-1 trump lead and the trick-2 face-down lead and its one-bit signal
(§5), scoring in rams and pips and the match to ``pip_limit`` pips (§6).

State is an :class:`AvinasState` of numpy arrays with a leading batch axis ``B``; card sets are
``uint64`` bitboards over the 32 card ids of :data:`cardzoo.envs.core.cards.FRENCH32` (``8*suit + rank``,
suits C D H S, ranks 7 8 9 10 J Q K A). The rules themselves are compiled single-game functions
(:mod:`cardzoo.envs.avinas.rules`, numba) that the core's compiled driver
(:class:`cardzoo.envs.core.compiled.Drivers`) runs over the batch; this module holds the frame:
options, validation, chance (every shuffle is drawn here, in Python, through
:mod:`cardzoo.envs.core.chance`), views and search.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.cards import FRENCH32, mask_to_cards, unpack_bits
from ..core import chance
from ..core.compiled import Drivers, arrays_type
from ..core.kernel import BatchState, Kernel, Layout, Option, bool_option, int_option
from . import observation as _obs
from . import render as _render
from . import rules as _rules
from .constants import (
    FACEDOWN,
    GAME_NAMES,
    NO_SEVENS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    PHASE_ACTIONS,
    PLAIN_BB,
    SIG_NOT_VALUABLE,
    SIG_VALUABLE,
    SUITS,
    TRUMP_BB,
)

_U64 = np.uint64


def _hook_ints(name: str, value, shape: tuple, lo: int, hi: int) -> np.ndarray:
    """Validate an ``init`` test hook: ints broadcastable to ``shape``, each in ``[lo, hi]``."""
    try:
        arr = np.asarray(value)
        if arr.dtype.kind not in "iu" or arr.ndim > len(shape):
            raise TypeError
        arr = np.broadcast_to(arr, shape)
    except (TypeError, ValueError):
        raise ValueError(
            f"reset option {name}={value!r} must be int(s) of shape {shape[1:] or '()'} (or {shape})"
        ) from None
    if arr.size and (arr.min() < lo or arr.max() > hi):
        raise ValueError(f"reset option {name}={value!r} is out of range: each value must be in {lo}..{hi}")
    return arr


@dataclasses.dataclass
class AvinasState(BatchState):
    """Batched Avinas state; ``B`` games, seats 0..3 clockwise, teams ``seat % 2`` (A = 0, B = 1).

    Fields beyond :class:`BatchState` (card sets are ``uint64`` bitboards):

    * ``stock``: ``int8[B, 32]`` the shuffled pack of this deal (position 0 dealt first, §3).
    * ``hands``, ``dealt``, ``played``: ``uint64[B, 4]`` held now / dealt / played this deal
      (a face-down card is in its leader's ``played`` from the moment it is led).
    * ``exposed``: ``uint64[B]`` key cards turned face up for everyone (§3.3);
      ``dealer_seen``: ``uint64[B]`` the dealer's side's key cards that stayed hidden (seen by
      the dealer only).
    * ``game`` (:data:`SEVENS` / :data:`NO_SEVENS`), ``phase``, ``dealer``, ``declarer``
      (-1 none), ``trump`` (-1 not yet named): ``int8[B]``.
    * ``knock_stage``: ``int8[B]`` 0 declarer, 1 his partner, 2 his left, 3 his right (§4.1);
      ``knocked``: ``bool[B, 4]`` by seat.
    * ``calls``: ``int8[B, 4]`` by seat, -1 not yet acted, 0 pass, N call N; ``high_call``,
      ``n_calls``: ``int8[B]``.
    * ``leader``, ``led`` (-1 none, 0..3 plain suit, 4 trumps), ``trick_winner``, ``n_in_trick``,
      ``tricks_done``: ``int8[B]``; ``trick_best``: ``int8[B]`` strength of the winning card;
      ``trick_card``: ``int8[B, 4]`` by seat (-1 none); ``trick``: ``uint64[B]``.
    * ``fd_seat``: ``int8[B]`` seat that led face down to the current trick (-1 none);
      ``signal``: ``int8[B]`` the partner's bit (-1 none/not yet, 0 not valuable, 1 valuable).
    * ``points``: ``int16[B, 2]`` card points won this deal by team; ``tricks_won``: ``int8[B, 2]``.
    * ``lied``, ``stopped``: ``bool[B]`` of this deal (the last scored deal once scored).
    * ``ram_balance``: ``int16[B]`` rams(A) - rams(B); ``pips``: ``int16[B, 2]``.
    * ``deals``, ``throw_ins``: ``int16[B]`` scored deals / consecutive throw-ins.
    * ``last_loser``: ``int8[B]`` team that lost the last scored deal (-1 none); ``last_penalty``:
      ``int16[B]`` rams or pips it received; ``last_game``: ``int8[B]`` its game type.
    * ``last_lied``, ``last_stopped``: ``bool[B]`` the last scored deal's declarer lied / stopped.
    * ``winner``: ``int8[B]`` match winner team (-1 none); ``clean``: ``bool[B]`` clean defeat (§6.4).
    * ``voids``: ``uint8[B, 4]`` what each seat showed it lacks this deal (§5): bit ``s`` the plain
      cards of suit ``s`` (not following it), bit 4 trumps (not following a trump or face-down
      lead, or leading face down); read by :meth:`AvinasKernel.determinize`.
    """

    stock: np.ndarray
    hands: np.ndarray
    dealt: np.ndarray
    played: np.ndarray
    exposed: np.ndarray
    dealer_seen: np.ndarray
    game: np.ndarray
    phase: np.ndarray
    dealer: np.ndarray
    declarer: np.ndarray
    trump: np.ndarray
    knock_stage: np.ndarray
    knocked: np.ndarray
    calls: np.ndarray
    high_call: np.ndarray
    n_calls: np.ndarray
    leader: np.ndarray
    led: np.ndarray
    trick_winner: np.ndarray
    trick_best: np.ndarray
    n_in_trick: np.ndarray
    tricks_done: np.ndarray
    trick_card: np.ndarray
    trick: np.ndarray
    fd_seat: np.ndarray
    signal: np.ndarray
    points: np.ndarray
    tricks_won: np.ndarray
    lied: np.ndarray
    stopped: np.ndarray
    ram_balance: np.ndarray
    pips: np.ndarray
    deals: np.ndarray
    throw_ins: np.ndarray
    last_loser: np.ndarray
    last_penalty: np.ndarray
    last_game: np.ndarray
    last_lied: np.ndarray
    last_stopped: np.ndarray
    winner: np.ndarray
    clean: np.ndarray
    voids: np.ndarray


#: the state's arrays as compiled code sees them (a namedtuple with the fields of :class:`AvinasState`)
AvinasArrays = arrays_type(AvinasState, "AvinasArrays", __name__)

_DRIVERS: dict[bool, Drivers] = {}


def _drivers(parallel: bool) -> Drivers:
    """The compiled drivers of Avinas (built once per process and flag; compiled on first use)."""
    if parallel not in _DRIVERS:
        _DRIVERS[parallel] = Drivers(
            AvinasArrays, _rules.step_one, _rules.deal_one, _rules.legal_one, _rules.observe_one, parallel=parallel
        )
    return _DRIVERS[parallel]


def _params(o: dict, pips_high: int) -> np.ndarray:
    """The option vector ``int64[rules.P_SIZE]`` of the compiled rules (``RULES.md`` §8)."""
    P = np.zeros(_rules.P_SIZE, dtype=np.int64)
    P[_rules.P_MATCH] = o["episode"] == "match"
    P[_rules.P_REWARD_WIN] = o["reward"] == "win"
    P[_rules.P_KNOCK_BACK] = ("after_knock", "always", "never").index(o["knock_back"])
    P[_rules.P_RAM_GRADED] = o["ram_schedule"] == "graded"
    P[_rules.P_PIP_GRADED] = o["pip_schedule"] == "graded"
    P[_rules.P_CALL_SUIT] = o["call_count"] == "suit"
    P[_rules.P_HONESTY_MASK] = o["honesty"] == "mask"
    P[_rules.P_SIGNAL] = ("auto", "free", "none").index(o["facedown_signal"])
    P[_rules.P_VMIN] = o["valuable_min_points"]
    P[_rules.P_NO7_STOP] = bool(o["no7_stop"])
    P[_rules.P_EVERY_LEAD] = o["trump_lead_rule"] == "every_lead"
    P[_rules.P_PIP_LIMIT] = o["pip_limit"]
    P[_rules.P_MAX_THROW_INS] = o["max_throw_ins"]
    P[_rules.P_MAX_DEALS] = o["max_deals"]
    P[_rules.P_PIPS_HIGH] = pips_high
    return P


class AvinasKernel(Kernel):
    """Batched Avinas (``RULES.md``).

    Options (``RULES.md`` §8; a bad value raises ``ValueError`` naming the option and the valid values):

    =======================  ================================================  ================
    option                   values                                            default
    =======================  ================================================  ================
    ``first_dealer``         ``"random"``, seat 0..3                           ``"random"``
    ``episode``              ``"deal"``, ``"match"``                           ``"deal"``
    ``reward``               ``"score"`` (§6.5), ``"win"``                     ``"score"``
    ``knock_back``           ``"after_knock"``, ``"always"``, ``"never"``      ``"after_knock"``
    ``ram_schedule``         ``"flat"``, ``"graded"``                          ``"flat"``
    ``pip_schedule``         ``"graded"``, ``"flat"``                          ``"graded"``
    ``call_count``           ``"trumps"``, ``"suit"``                          ``"trumps"``
    ``honesty``              ``"penalize"``, ``"mask"``                        ``"penalize"``
    ``facedown_signal``      ``"auto"``, ``"free"``, ``"none"``                ``"auto"``
    ``valuable_min_points``  int 0..12                                         10
    ``no7_stop``             bool                                              True
    ``trump_lead_rule``      ``"trick2"``, ``"every_lead"``                    ``"trick2"``
    ``pip_limit``            int 1..100                                        12
    ``max_throw_ins``        int 1..10000                                      50
    ``max_deals``            int 1..10000                                      500
    =======================  ================================================  ================
    """

    name = "avinas"
    deck = FRENCH32
    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    teams = [[0, 2], [1, 3]]
    zero_sum = True
    OPTIONS = {
        "first_dealer": Option("random", choices=("random", 0, 1, 2, 3)),
        "episode": Option("deal", choices=("deal", "match")),
        "reward": Option("score", choices=("score", "win")),
        "knock_back": Option("after_knock", choices=("after_knock", "always", "never")),
        "ram_schedule": Option("flat", choices=("flat", "graded")),
        "pip_schedule": Option("graded", choices=("graded", "flat")),
        "call_count": Option("trumps", choices=("trumps", "suit")),
        "honesty": Option("penalize", choices=("penalize", "mask")),
        "facedown_signal": Option("auto", choices=("auto", "free", "none")),
        "valuable_min_points": int_option(10, 0, 12),
        "no7_stop": bool_option(True),
        "trump_lead_rule": Option("trick2", choices=("trick2", "every_lead")),
        "pip_limit": int_option(12, 1, 100),
        "max_throw_ins": int_option(50, 1, 10_000),
        "max_deals": int_option(500, 1, 10_000),
    }
    INIT_HOOKS = ("deck", "dealer", "pips", "ram_balance")

    def __init__(self, **options) -> None:
        super().__init__(**options)
        o = self.options
        self.match = o["episode"] == "match"
        self.count_bb = TRUMP_BB if o["call_count"] == "trumps" else PLAIN_BB
        self.vmin = int(o["valuable_min_points"])
        self._obs_layout = _obs.observation_layout(o["pip_limit"])
        self._state_layout = _obs.state_layout(o["pip_limit"])
        pips_high = next(e.high for e in self._obs_layout.entries if e.name == "pips")
        #: ``int64[P_SIZE]`` the options as the compiled rules read them (indices ``rules.P_*``)
        self.params = _params(o, int(pips_high))
        #: the compiled batch drivers (one core; :meth:`set_parallel` spreads the batch over cores)
        self.drivers = _drivers(False)

    # ------------------------------------------------------------------ layouts
    @property
    def obs_layout(self) -> Layout:
        return self._obs_layout

    @property
    def state_layout(self) -> Layout:
        return self._state_layout

    @property
    def max_episode_steps(self) -> int:
        """Agent steps bound: 4 calls per thrown-in deal; at most 51 decisions in a scored deal
        (4 calls, 1 declaration, 32 cards, 7 stop decisions, 7 free signals under
        ``trump_lead_rule="every_lead"``; a sevens deal has fewer)."""
        per_deal = 4 * self.options["max_throw_ins"] + 51
        return per_deal * (self.options["max_deals"] if self.match else 1)

    # ------------------------------------------------------------------ names
    def action_name(self, action: int) -> str:
        """``"QC"`` for 0..31 (face up), ``"FD_QC"`` for 32..63 (lead face down), then ``PASS``,
        ``CALL_1``..``CALL_8``, ``DECLARE_C``..``DECLARE_S``, ``KNOCK``, ``NO_KNOCK``, ``CONTINUE``,
        ``STOP``, ``SIGNAL_VALUABLE``, ``SIGNAL_NOT_VALUABLE`` (64..82). ``ValueError`` if out of range."""
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            raise ValueError(f"action must be an int id 0..{NUM_ACTIONS - 1}, got {action!r}")
        a = int(action)
        if 0 <= a < NUM_CARDS:
            return FRENCH32.names[a]
        if FACEDOWN <= a < FACEDOWN + NUM_CARDS:
            return "FD_" + FRENCH32.names[a - FACEDOWN]
        if a in PHASE_ACTIONS:
            return PHASE_ACTIONS[a]
        raise ValueError(f"action {action!r} is out of range; valid ids are 0..{NUM_ACTIONS - 1}")

    # ------------------------------------------------------------------ init / dealing (§3)
    def init(
        self, rng: np.random.Generator, batch: int, *, deck=None, dealer=None, pips=None, ram_balance=None
    ) -> AvinasState:
        """Shuffle and deal ``batch`` games.

        Test hooks (also ``reset(options=...)`` of the env):
            deck: ``int[32]`` or ``int[B, 32]`` pack order (position 0 is dealt first) for the first
                deal instead of a shuffle (a redeal after a throw-in is shuffled from ``rng``).
            dealer: seat or ``int[B]`` first dealer (else the ``first_dealer`` option).
            pips: ``int[2]`` or ``int[B, 2]`` pips of teams A, B before the first deal (< ``pip_limit``).
            ram_balance: int or ``int[B]`` rams(A) - rams(B) before the first deal (-100..100).

        Raises ``ValueError`` when a hook is not a permutation / seat / value in range.
        """
        B = int(batch)
        z = lambda dt, *shape: np.zeros((B, *shape), dtype=dt)  # noqa: E731
        m1 = lambda *shape: np.full((B, *shape), -1, dtype=np.int8)  # noqa: E731
        st = AvinasState(
            current_player=z(np.int8), done=z(bool), truncated=z(bool), rewards=z(np.float32, 4),
            stock=z(np.int8, 32), hands=z(_U64, 4), dealt=z(_U64, 4), played=z(_U64, 4),
            exposed=z(_U64), dealer_seen=z(_U64), game=z(np.int8), phase=z(np.int8), dealer=z(np.int8),
            declarer=m1(), trump=m1(), knock_stage=z(np.int8), knocked=z(bool, 4), calls=m1(4),
            high_call=z(np.int8), n_calls=z(np.int8), leader=z(np.int8), led=m1(), trick_winner=m1(),
            trick_best=z(np.int8), n_in_trick=z(np.int8), tricks_done=z(np.int8), trick_card=m1(4),
            trick=z(_U64), fd_seat=m1(), signal=m1(), points=z(np.int16, 2), tricks_won=z(np.int8, 2),
            lied=z(bool), stopped=z(bool), ram_balance=z(np.int16), pips=z(np.int16, 2), deals=z(np.int16),
            throw_ins=z(np.int16), last_loser=m1(), last_penalty=z(np.int16), last_game=m1(), last_lied=z(bool),
            last_stopped=z(bool), winner=m1(),
            clean=z(bool), voids=z(np.uint8, 4),
        )
        if dealer is None:
            dealer = self.options["first_dealer"]
        if isinstance(dealer, str):  # "random"
            st.dealer[:] = chance.integers(rng, B, 0, 4, kind="dealer")
        else:
            st.dealer[:] = _hook_ints("dealer", dealer, (B,), 0, 3)
        if pips is not None:
            st.pips[:] = _hook_ints("pips", pips, (B, 2), 0, self.options["pip_limit"] - 1)
        if ram_balance is not None:
            st.ram_balance[:] = _hook_ints("ram_balance", ram_balance, (B,), -100, 100)
        stock = None
        if deck is not None:
            stock = _hook_ints("deck", deck, (B, 32), 0, 31).astype(np.int8)
            if not (np.sort(stock, axis=1) == np.arange(32)).all():
                raise ValueError("deck must be a permutation of the 32 card ids 0..31 (each id exactly once)")
        rows = np.arange(B, dtype=np.int64)
        if stock is None:
            self.draw_chance(st, rows, _rules.NEED_DEAL_PLAY, rng)
        else:
            st.stock[:] = stock
        self.drivers.deal(st, rows, _rules.NEED_DEAL_PLAY, self.params)
        return st

    def set_parallel(self, parallel: bool = True) -> None:
        """Run the batch drivers over numba's threads (``numba.set_num_threads`` sets how many; one
        chunk of games each) or, with ``False``, on one core (the default). Results are identical."""
        self.drivers = _drivers(bool(parallel))

    def __getstate__(self) -> dict:
        # the compiled drivers are per process: pickle the flag, not the functions
        state = dict(self.__dict__)
        state["drivers"] = state["drivers"].parallel
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        state["drivers"] = _drivers(state["drivers"])
        self.__dict__.update(state)

    def draw_chance(self, st: AvinasState, rows: np.ndarray, code: int, rng) -> None:
        """Shuffle the pack of games ``rows`` (``int64[n]``) for chance ``code`` (``rules.NEED_REDEAL``:
        after a throw-in, kind ``"redeal"``; the other codes: a new deal, kind ``"deal"``; §3). The
        compiled :func:`rules.deal_one` then deals it."""
        kind = "redeal" if code == _rules.NEED_REDEAL else "deal"
        st.stock[rows] = chance.uniform(rng, rows, (32,), np.float32, kind).argsort(axis=1).astype(np.int8)

    # ------------------------------------------------------------------ legal actions (§4, §5)
    def legal_bitboard(self, st: AvinasState) -> np.ndarray:
        """Legal actions as ``uint64[B, 2]`` bit words: action ``a`` is bit ``a % 64`` of word ``a // 64``
        (all 0 in finished games). Written by the compiled :func:`rules.legal_one` (§4, §5)."""
        out = np.empty((st.batch_size, _rules.WORDS), dtype=_U64)
        _rules.legal_batch(self.drivers.arrays(st), self.params, out)
        return out

    DEAL_CATEGORIES = ("sevens", "no_sevens")

    def deal_category(self, st: AvinasState) -> np.ndarray:
        """``int64[B]``: 0 for a sevens game, 1 for a no-sevens game (RULES.md §3.3: decided by the
        exposed key cards of the deal, before any decision)."""
        return (st.game == NO_SEVENS).astype(np.int64)

    def determinize(self, st: AvinasState, seat, rng: np.random.Generator) -> AvinasState:
        """A copy of ``st`` with the cards ``seat`` cannot see dealt again uniformly among the deals
        consistent with what it has seen (for PIMC search; :mod:`cardzoo.envs.avinas.determinize`)."""
        from .determinize import determinize

        return determinize(self, st, seat, rng)

    def legal_actions(self, st: AvinasState) -> np.ndarray:
        """Action mask ``bool[B, 83]`` of the player to act (§4, §5); all False in finished games."""
        return unpack_bits(self.legal_bitboard(st), 64).reshape(-1, 128)[:, :NUM_ACTIONS].view(bool)

    def check_actions(self, st: AvinasState, actions) -> None:
        """Raise ``ValueError`` if any live game's action is illegal (names the action and the legal ones)."""
        self._check(st, np.asarray(actions, dtype=np.int64), self.legal_bitboard(st), ~st.done)

    def _check(self, st: AvinasState, actions: np.ndarray, legal: np.ndarray, live: np.ndarray) -> None:
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        a = np.clip(actions, 0, NUM_ACTIONS - 1)
        ok &= (legal[np.arange(st.batch_size), a // 64] >> (a % 64).astype(_U64)) & _U64(1) == 1
        bad = np.flatnonzero(~ok & live)
        if bad.size:
            b = int(bad[0])
            act = int(actions[b])
            name = self.action_name(act) if 0 <= act < NUM_ACTIONS else repr(act)
            mask = unpack_bits(legal[b : b + 1], 64).reshape(-1)[:NUM_ACTIONS]
            names = [self.action_name(int(x)) for x in np.flatnonzero(mask)]
            raise ValueError(f"illegal action {name} in game {b} for seat {st.current_player[b]}; legal: {names}")

    # ------------------------------------------------------------------ step
    def step(self, st: AvinasState, actions, rng: np.random.Generator, active=None) -> None:
        """Apply ``actions`` (``int[B]``, legal for each live game) and advance each game to its next
        decision, compiled (:func:`rules.step_one`).

        ``active`` (``bool[B]``, optional): step only these games; the others are untouched (their
        rewards are zeroed). Rewards of the step land in ``st.rewards`` (``float32[B, 4]``; zero unless
        a deal or the match ended). Chance (the shuffle of a new deal) is drawn here, in Python: first
        the deals after a last trick, then the redeals after a throw-in, then the deals after a stop,
        rows ascending (``rules.CHANCE_ORDER``).

        Raises ``ValueError`` (state unchanged) if ``actions`` or ``active`` has the wrong shape, or an
        active live game's action is not legal (the message names it and the legal actions).
        """
        B = st.batch_size
        acts = np.asarray(actions)
        if acts.shape != (B,) or acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be ints of shape ({B},), got {acts.dtype} {acts.shape}")
        acts = acts.astype(np.int64, copy=False)
        if active is None:
            act = np.ones(B, dtype=bool)
        else:
            act = np.asarray(active)
            if act.shape != (B,) or act.dtype != bool:
                raise ValueError(f"active must be bool of shape ({B},), got {act.dtype} {act.shape}")
        self._check(st, acts, self.legal_bitboard(st), act & ~st.done)
        need = self.drivers.step(st, acts, act, self.params)
        if need.any():
            for code in _rules.CHANCE_ORDER:
                rows = np.flatnonzero(need == code)
                if rows.size:
                    self.draw_chance(st, rows, code, rng)
                    self.drivers.deal(st, rows, code, self.params)

    def single_game(self, st: AvinasState):
        """No separate B = 1 path yet: the AEC env runs the batched (compiled) methods at B = 1."""
        return None

    # ------------------------------------------------------------------ observations (§7)
    def observe(self, st: AvinasState, seat) -> np.ndarray:
        """Observation ``uint8[B, D]`` of ``seat`` (int or ``int[B]``, each 0..3; ``ValueError`` otherwise);
        layout :attr:`obs_layout` (§7). Written by the compiled :func:`rules.observe_one`."""
        B = st.batch_size
        try:
            seats = np.broadcast_to(np.asarray(seat), (B,))
        except ValueError:
            raise ValueError(f"seat must be an int or int[{B}], got shape {np.shape(seat)}") from None
        if seats.dtype.kind not in "iu" or (B and (seats.min() < 0 or seats.max() >= NUM_PLAYERS)):
            raise ValueError(f"seat {seat!r} is not valid; seats are ints 0..{NUM_PLAYERS - 1}")
        return self.drivers.observe(st, seats.astype(np.int64), self.params, self._obs_layout.size)

    def global_state(self, st: AvinasState) -> np.ndarray:
        """Perfect-information vector ``uint8[B, S]`` (every hand, the face-down card, the signal)."""
        out = np.empty((st.batch_size, self._state_layout.size), dtype=np.uint8)
        _rules.global_batch(self.drivers.arrays(st), self.params, out)
        return out

    # ------------------------------------------------------------------ views
    def hands(self, st: AvinasState, b: int = 0) -> list[list[int]]:
        """Card ids each seat holds in game ``b`` (exposed cards included: they stay in the hand)."""
        return [mask_to_cards(st.hands[b, s]) for s in range(4)]

    def known_cards(self, st: AvinasState, b: int = 0) -> list[list[int]]:
        """Held cards of each seat that another seat has seen: the exposed 4th/8th cards (everyone)
        and the dealer's side's hidden 4th/8th cards (seen by the dealer), §3.3."""
        seen = int(st.exposed[b]) | int(st.dealer_seen[b])
        return [mask_to_cards(int(st.hands[b, s]) & seen) for s in range(4)]

    def render(self, st: AvinasState, b: int = 0, view=None) -> str:
        """Text table of game ``b``: ``view`` None = public, a seat = that seat's view, ``"all"`` = everything."""
        return _render.render(self, st, b, view)

    def table_view(self, st: AvinasState, b: int, seat: int) -> dict:
        """What ``seat`` sees at the table in game ``b`` as JSON-able data (``Kernel.table_view``, §7);
        see :func:`cardzoo.envs.avinas.render.table_view`."""
        return _render.table_view(self, st, b, seat)

    def action_is_public(self, st: AvinasState, b: int, action: int) -> bool:
        """Whether the other seats see which ``action`` the seat to act takes (§7): not a face-down
        lead ``FD_<card>`` (§5: its card stays hidden until the trick is complete, so front ends and
        logs must not name it) and not a ``"free"`` valuable signal (§11.3: for the partner alone);
        every other action is public."""
        a = int(action)
        return not (FACEDOWN <= a < FACEDOWN + NUM_CARDS or a in (SIG_VALUABLE, SIG_NOT_VALUABLE))

    def info(self, st: AvinasState, b: int = 0) -> dict:
        """Public facts (end of the episode): game, declarer, trump, calls, knocks, card points,
        the last deal's loser and penalty, whether its declarer lied or stopped, rams, pips, winner."""
        tr = int(st.trump[b])
        out = {
            "game": GAME_NAMES[int(st.last_game[b])] if st.last_game[b] >= 0 else GAME_NAMES[int(st.game[b])],
            "dealer": int(st.dealer[b]),
            "declarer": int(st.declarer[b]),
            "trump": SUITS[tr] if tr >= 0 else None,
            "calls": st.calls[b].tolist(),
            "knocked": st.knocked[b].tolist(),
            "card_points": st.points[b].tolist(),
            "tricks_won": st.tricks_won[b].tolist(),
            "last_loser": "AB"[int(st.last_loser[b])] if st.last_loser[b] >= 0 else None,
            "last_penalty": int(st.last_penalty[b]),
            "declarer_lied": bool(st.last_lied[b]),
            "declarer_stopped": bool(st.last_stopped[b]),
            "ram_balance": int(st.ram_balance[b]),
            "pips": st.pips[b].tolist(),
            "deals": int(st.deals[b]),
        }
        if st.winner[b] >= 0:
            out["match_winner"] = "AB"[int(st.winner[b])]
            out["clean_defeat"] = bool(st.clean[b])
        if st.truncated[b]:
            out["truncation"] = (
                f"max_throw_ins={self.options['max_throw_ins']} reached"
                if st.throw_ins[b] >= self.options["max_throw_ins"]
                else f"max_deals={self.options['max_deals']} reached"
            )
        return out

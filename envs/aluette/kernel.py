"""Aluette (La Vache) rules as a batched kernel.

Implements ``envs/aluette/RULES.md`` (sections cited as §n): the optional partnership draw
and the deal in threes (§3), the chant vote, chant and discards (§4.1, §4.2), the signal
channel (§4.3, §4.5), the optional surrender (§4.4), trick play where any card is legal and a
tie for the highest power spoils the trick (§5), and scoring per player with "first to reach
the most tricks" and mordienne (§6), per deal or per match.

State is an :class:`AluetteState` of numpy arrays with a leading batch axis ``B``; card sets
are ``uint64`` bitboards over the 48 card ids of :data:`cardzoo.envs.core.cards.SPANISH48`
(``12*suit + rank``). The rules themselves are compiled single-game functions
(:mod:`cardzoo.envs.aluette.rules`, numba) that the core's compiled driver
(:mod:`cardzoo.envs.core.compiled`) runs over the batch; this module holds the frame: options,
validation, chance (every shuffle and intercepted signal is drawn here, in Python, through
:mod:`cardzoo.envs.core.chance`), views and search.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from numba import njit

from ..core.cards import SPANISH48, mask_to_cards, unpack_bits
from ..core import chance
from ..core.compiled import CompiledSingleGame, Drivers, arrays_type
from ..core.kernel import BatchState, Kernel, Layout, Option, bool_option, int_option
from . import observation as _obs
from . import render as _render
from . import rules as _rules
from .constants import (
    DISCARD,
    END_SIGNALS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    NUM_SIGNALS,
    NUM_TRICKS,
    PHASE_ACTIONS,
    PHASE_NAMES,
    PLAY,
    POWER,
    SIGNAL0,
)

_U64 = np.uint64
_ONE = _U64(1)
SPOILED = _rules.SPOILED  # value of ``results`` for a spoiled trick
#: §3 partnership draw: the four drawing cards 3Co, 3Cu, 2Co, 2Cu and the seat their holder takes
DRAW_CARDS = (2, 14, 1, 13)
DRAW_SEAT = (2, 0, 3, 1)
_DRAW_INDEX = np.full(NUM_CARDS, -1, dtype=np.int8)
for _k, _c in enumerate(DRAW_CARDS):
    _DRAW_INDEX[_c] = _k


def _hook_ints(name: str, value, shape: tuple, lo: int, hi: int) -> np.ndarray:
    """Validate an ``init`` test hook: ints broadcastable to ``shape``, each in ``[lo, hi]``."""
    try:
        arr = np.asarray(value)
        if arr.dtype.kind not in "iu" or arr.ndim > len(shape):
            raise TypeError
        arr = np.broadcast_to(arr, shape)
    except (TypeError, ValueError):
        raise ValueError(f"reset option {name}={value!r} must be int(s) of shape {shape[1:] or '()'} (or {shape})") from None
    if arr.size and (arr.min() < lo or arr.max() > hi):
        raise ValueError(f"reset option {name}={value!r} is out of range: each value must be in {lo}..{hi}")
    return arr


def _hook_deck(name: str, value, B: int) -> np.ndarray:
    arr = _hook_ints(name, value, (B, NUM_CARDS), 0, NUM_CARDS - 1).astype(np.int8)
    if not (np.sort(arr, axis=1) == np.arange(NUM_CARDS)).all():
        raise ValueError(f"{name} must be a permutation of the 48 card ids 0..47 (each id exactly once)")
    return arr


@dataclasses.dataclass
class AluetteState(BatchState):
    """Batched Aluette state; ``B`` games, seats 0..3 clockwise, teams ``seat % 2``.

    Card-set fields are ``uint64`` bitboards. Fields (beyond :class:`BatchState`):

    * ``hands``, ``dealt``, ``played``, ``received``, ``discarded``: ``uint64[B, 4]`` by absolute
      seat: held now / the 9 dealt / played this deal / talon cards received in the chant /
      discarded in the chant. ``talon``: ``uint64[B]`` the 12 undealt cards.
    * ``stock``: ``int8[B, 48]`` shuffled pack of the deal (positions 0..35 dealt, 36..47 the talon).
    * ``phase``: ``int8[B]`` (:data:`VOTE` .. :data:`OVER`); ``dealer``, ``leader``: ``int8[B]``.
    * ``votes``: ``int8[B, 4]`` chant vote by seat (-1 not asked, 0 refused, 1 accepted); ``chanted``: ``bool[B]``.
    * ``sent``: ``int16[B, 4]`` signals sent by each seat (bit ``s`` = signal ``s``);
      ``heard``: ``uint64[B, 4]`` signals each seat has observed, bit ``10*sender + s``.
    * ``trick_card``: ``int8[B, 4]`` card each seat put in the current trick (-1 none);
      ``trick``: ``uint64[B]``; ``n_in_trick``; ``top``: best power so far; ``top_count``: how many
      cards share it; ``top_seat``: the seat that played it first (all ``int8[B]``).
    * ``tricks_done``: ``int8[B]``; ``results``: ``int8[B, 9]`` winner seat of each trick, 4 =
      spoiled, -1 not played; ``res_word``: ``uint64[B]`` the same as bits (trick ``t``: bit ``5t + seat``,
      or ``5t + 4`` when spoiled); ``won``: ``int8[B, 4]`` tricks won per seat.
    * ``offerer``: ``int8[B]`` seat that offered surrender (-1 none); ``refused``, ``accepted``: ``bool[B]``.
    * ``points``: ``int16[B, 2]`` points of the last scored deal; ``score``: ``int16[B, 2]`` match
      score; ``deal_winner``: ``int8[B]`` seat that won the last deal (-1 none); ``mordienne``: ``bool[B]``.
    * ``deals``: ``int16[B]`` deals completed; ``winner``: ``int8[B]`` match result (-1 running,
      0/1 team, 2 draw); ``draw_map``: ``int8[B, 4]`` partnership draw: new seat of the agent
      drawing at each seat (identity without the draw).
    * ``pending``: ``uint64[B]`` the ``heard`` bit of a signal waiting for the intercept draw (§4.5;
      0 between steps); ``catch``: ``bool[B, 2]`` that draw: the sender's left / right opponent caught it.
    """

    hands: np.ndarray
    dealt: np.ndarray
    played: np.ndarray
    received: np.ndarray
    discarded: np.ndarray
    talon: np.ndarray
    stock: np.ndarray
    phase: np.ndarray
    dealer: np.ndarray
    leader: np.ndarray
    votes: np.ndarray
    chanted: np.ndarray
    sent: np.ndarray
    heard: np.ndarray
    trick_card: np.ndarray
    trick: np.ndarray
    n_in_trick: np.ndarray
    top: np.ndarray
    top_count: np.ndarray
    top_seat: np.ndarray
    tricks_done: np.ndarray
    results: np.ndarray
    res_word: np.ndarray
    won: np.ndarray
    offerer: np.ndarray
    refused: np.ndarray
    accepted: np.ndarray
    points: np.ndarray
    score: np.ndarray
    deal_winner: np.ndarray
    mordienne: np.ndarray
    deals: np.ndarray
    winner: np.ndarray
    draw_map: np.ndarray
    pending: np.ndarray
    catch: np.ndarray


#: the state's arrays as compiled code sees them (a namedtuple with the fields of :class:`AluetteState`)
AluetteArrays = arrays_type(AluetteState, "AluetteArrays", __name__)


@njit(cache=True, inline="always", _nrt=False)
def _legal_word0(S, b, P):
    """Word 0 of the legal actions (the core driver's one-word contract; word 1 comes from :func:`_legal_batch`)."""
    return _rules.legal_words(S, b, P)[0]


@njit(cache=True, nogil=True, _nrt=False)
def _legal_batch(S, P, out):
    """:func:`rules.legal_one` for every game (``out``: ``uint64[B, 2]``, zeroed)."""
    for b in range(out.shape[0]):
        _rules.legal_one(S, b, P, out[b])


@njit(cache=True, nogil=True, _nrt=False)
def _global_batch(S, P, out):
    """:func:`rules.global_one` for every game (``out``: ``uint8[B, S]``, zeroed)."""
    for b in range(out.shape[0]):
        _rules.global_one(S, b, P, out[b])


_DRIVERS: dict[bool, Drivers] = {}


def _drivers(parallel: bool) -> Drivers:
    """The compiled drivers of Aluette (built once per process and flag; compiled on first use)."""
    if parallel not in _DRIVERS:
        _DRIVERS[parallel] = Drivers(
            AluetteArrays, _rules.step_one, _rules.deal_one, _legal_word0, _rules.observe_one, parallel=parallel
        )
    return _DRIVERS[parallel]


class _SingleGame(CompiledSingleGame):
    """The B = 1 path: the core's compiled single-game step, with two-word legal actions."""

    def legal_bits(self) -> int:
        """Legal actions of the seat to act as an int bitboard (0 once the game is over)."""
        if self._bits is None:
            w = self.k.legal_bitboard(self.st)[0]
            self._bits = int(w[0]) | (int(w[1]) << 64)
        return self._bits

    def legal_mask(self) -> np.ndarray:
        """``bool[65]`` action mask."""
        bits = self.legal_bits()
        return np.array([(bits >> a) & 1 for a in range(NUM_ACTIONS)], dtype=bool)

    def step(self, action: int, rng) -> None:
        """Apply a legal ``action`` (unchecked: the caller validates) and advance, exactly like ``kernel.step``."""
        need, _ = self._step_fn(self.S, int(action), self.P)
        if need:
            self.k.draw_chance(self.st, self._rows, int(need), rng)
            self._deal_fn(self.S, int(need), self.P)
        self._bits = None


def _params(o: dict, match: bool, target, deal_high: int, score_high: int) -> np.ndarray:
    """The option vector ``int64[rules.P_SIZE]`` of the compiled rules (``RULES.md`` §8)."""
    R = _rules
    P = np.zeros(R.P_SIZE, dtype=np.int64)
    P[R.P_CHANT] = bool(o["chant"])
    P[R.P_SECOND_OFFSET] = 0 if o["chant_recipients"] == "left_and_dealer" else 2
    P[R.P_SURRENDER] = bool(o["surrender"])
    P[R.P_MORDIENNE] = bool(o["mordienne"])
    P[R.P_SIGNALS] = {"off": R.SIGNALS_OFF, "truthful": R.SIGNALS_TRUTHFUL, "free": R.SIGNALS_FREE}[o["signals"]]
    P[R.P_TURN_SIGNALS] = o["signal_timing"] == "round_and_turns"
    P[R.P_PUBLIC] = o["signal_visibility"] == "public"
    P[R.P_INTERCEPT] = float(o["signal_intercept"]) > 0
    P[R.P_MATCH] = match
    P[R.P_REWARD_WIN] = o["reward"] == "win"
    P[R.P_TARGET] = 0 if target is None else int(target)
    P[R.P_MATCH_DEALS] = o["match_deals"]
    P[R.P_MAX_DEALS] = o["max_deals"]
    P[R.P_DEAL_HIGH] = deal_high
    P[R.P_SCORE_HIGH] = score_high
    return P


def _target_option() -> Option:
    ok = lambda v: v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and 1 <= v <= 100)  # noqa: E731
    return Option(None, check=ok, valid="None or an int from 1 to 100")


def _prob_option() -> Option:
    ok = lambda v: isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) and 0 <= v <= 1  # noqa: E731
    return Option(0.0, check=ok, valid="a number from 0 to 1")


class AluetteKernel(Kernel):
    """Batched Aluette (``RULES.md``).

    Options (``RULES.md`` §8; a bad value raises ``ValueError`` listing the valid ones):

    ======================  ===============================================  ======================
    option                  values                                           default
    ======================  ===============================================  ======================
    ``partnership_draw``    bool                                             False
    ``first_dealer``        ``"random"``, 0..3                               ``"random"``
    ``episode``             ``"deal"``, ``"match"``                          ``"deal"``
    ``reward``              ``"score"``, ``"win"``                           ``"score"``
    ``chant``               bool                                             True
    ``chant_recipients``    ``"left_and_dealer"``, ``"left_and_partner"``    ``"left_and_dealer"``
    ``mordienne``           bool                                             True
    ``surrender``           bool (needs ``mordienne=True``)                  False
    ``signals``             ``"truthful"``, ``"free"``, ``"off"``            ``"truthful"``
    ``signal_visibility``   ``"partner"``, ``"public"``                      ``"partner"``
    ``signal_timing``       ``"round_and_turns"``, ``"round"``               ``"round_and_turns"``
    ``signal_intercept``    0..1: chance each opponent catches a signal      0.0
    ``match_deals``         int 1..100                                       5
    ``match_target``        None or int 1..100                               None
    ``max_deals``           int 1..10000 (cap with ``match_target``)         1000
    ======================  ===============================================  ======================

    ``signal_intercept`` and ``max_deals`` are not in the spec's table (RULES.md §9 D3, D9).
    """

    name = "aluette"
    deck = SPANISH48
    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    teams = [[0, 2], [1, 3]]
    zero_sum = True
    OPTIONS = {
        "partnership_draw": bool_option(False),
        "first_dealer": Option("random", choices=("random", 0, 1, 2, 3)),
        "episode": Option("deal", choices=("deal", "match")),
        "reward": Option("score", choices=("score", "win")),
        "chant": bool_option(True),
        "chant_recipients": Option("left_and_dealer", choices=("left_and_dealer", "left_and_partner")),
        "mordienne": bool_option(True),
        "surrender": bool_option(False),
        "signals": Option("truthful", choices=("truthful", "free", "off")),
        "signal_visibility": Option("partner", choices=("partner", "public")),
        "signal_timing": Option("round_and_turns", choices=("round_and_turns", "round")),
        "signal_intercept": _prob_option(),
        "match_deals": int_option(5, 1, 100),
        "match_target": _target_option(),
        "max_deals": int_option(1000, 1, 10_000),
    }
    INIT_HOOKS = ("deck", "dealer", "score", "draw_deck")

    def __init__(self, **options) -> None:
        super().__init__(**options)
        o = self.options
        if o["surrender"] and not o["mordienne"]:
            raise ValueError("option surrender=True requires mordienne=True (RULES.md §4.4); valid: surrender=False or mordienne=True")
        if o["signal_visibility"] == "public" and o["signal_intercept"] not in (0, 0.0):
            raise ValueError(
                f"option signal_intercept={o['signal_intercept']!r} only applies with signal_visibility='partner' "
                "(with 'public' every signal is seen); valid: 0.0 with 'public'"
            )
        self.match = o["episode"] == "match"
        self.target = o["match_target"]
        self.signals_on = o["signals"] != "off"
        self.turn_signals = self.signals_on and o["signal_timing"] == "round_and_turns"
        self.intercept = float(o["signal_intercept"])
        self.second_offset = 0 if o["chant_recipients"] == "left_and_dealer" else 2  # from the dealer
        if self.target is not None:
            score_high = self.target + 1
        else:
            score_high = 2 * o["match_deals"]
        deal_high = o["max_deals"] if self.target is not None else o["match_deals"]
        self._obs_layout = _obs.observation_layout(score_high, min(deal_high, 255))
        self._state_layout = _obs.state_layout(score_high, min(deal_high, 255))
        #: ``int64[P_SIZE]`` the options as the compiled rules read them (indices ``rules.P_*``)
        self.params = _params(o, self.match, self.target, min(deal_high, 255), score_high)
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
        """Agent steps bound: per deal 4 votes + 12 discards + 4 x (10 signals + end) + 5 surrender + 36 cards."""
        per_deal = 4 + 12 + 4 * (NUM_SIGNALS + 1) + 5 + 36
        if not self.match:
            return per_deal
        return per_deal * (self.options["max_deals"] if self.target is not None else self.options["match_deals"])

    # ------------------------------------------------------------------ names
    def action_name(self, action: int) -> str:
        """``"3Co"`` for card ids 0..47, then the phase actions 48..64 (``accept_chant`` ... ``refuse_surrender``)."""
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            raise ValueError(f"action must be an int id 0..{NUM_ACTIONS - 1}, got {action!r}")
        a = int(action)
        if 0 <= a < NUM_CARDS:
            return SPANISH48.names[a]
        if NUM_CARDS <= a < NUM_ACTIONS:
            return PHASE_ACTIONS[a - NUM_CARDS]
        raise ValueError(f"action {action!r} is out of range; valid ids are 0..{NUM_ACTIONS - 1}")

    # ------------------------------------------------------------------ init / dealing (§3)
    def init(self, rng: np.random.Generator, batch: int, *, deck=None, dealer=None, score=None, draw_deck=None) -> AluetteState:
        """Shuffle and deal ``batch`` games (§3).

        Test hooks (used by the worked-example tests and the arena's duplicate deals):
            deck: ``int[48]`` or ``int[B, 48]`` pack order of the first deal (position 0 is
                dealt first: three cards to the dealer's left, ...; positions 36..47 = t1..t12).
            dealer: seat or ``int[B]`` of the first dealer (else ``first_dealer``; seat 0 with
                ``partnership_draw``; else random).
            score: ``int[2]`` or ``int[B, 2]`` match score before the first deal (0..100).
            draw_deck: ``int[48]`` or ``int[B, 48]`` pack order of the partnership draw (with
                ``partnership_draw=True``), position 0 turned first.

        Raises ``ValueError`` when a hook value is not a permutation / seat / score in range.
        """
        B = int(batch)
        z = lambda dt, *shape: np.zeros((B, *shape), dtype=dt)  # noqa: E731
        st = AluetteState(
            current_player=z(np.int8),
            done=z(bool),
            truncated=z(bool),
            rewards=z(np.float32, 4),
            hands=z(_U64, 4),
            dealt=z(_U64, 4),
            played=z(_U64, 4),
            received=z(_U64, 4),
            discarded=z(_U64, 4),
            talon=z(_U64),
            stock=z(np.int8, NUM_CARDS),
            phase=z(np.int8),
            dealer=z(np.int8),
            leader=z(np.int8),
            votes=np.full((B, 4), -1, dtype=np.int8),
            chanted=z(bool),
            sent=z(np.int16, 4),
            heard=z(_U64, 4),
            trick_card=np.full((B, 4), -1, dtype=np.int8),
            trick=z(_U64),
            n_in_trick=z(np.int8),
            top=z(np.int8),
            top_count=z(np.int8),
            top_seat=z(np.int8),
            tricks_done=z(np.int8),
            results=np.full((B, NUM_TRICKS), -1, dtype=np.int8),
            res_word=z(_U64),
            won=z(np.int8, 4),
            offerer=np.full(B, -1, dtype=np.int8),
            refused=z(bool),
            accepted=z(bool),
            points=z(np.int16, 2),
            score=z(np.int16, 2),
            deal_winner=np.full(B, -1, dtype=np.int8),
            mordienne=z(bool),
            deals=z(np.int16),
            winner=np.full(B, -1, dtype=np.int8),
            draw_map=np.tile(np.arange(4, dtype=np.int8), (B, 1)),
            pending=z(_U64),
            catch=z(bool, 2),
        )
        if self.options["partnership_draw"]:
            order = self._shuffle(rng, np.arange(B), "dealer") if draw_deck is None else _hook_deck("draw_deck", draw_deck, B)
            st.draw_map[:] = partnership_draw(order)
        elif draw_deck is not None:
            raise ValueError("reset option draw_deck needs partnership_draw=True")
        if dealer is None:
            dealer = 0 if self.options["partnership_draw"] else self.options["first_dealer"]
        if isinstance(dealer, str) and dealer == "random":
            st.dealer[:] = chance.integers(rng, B, 0, 4, kind="dealer")
        else:
            st.dealer[:] = _hook_ints("dealer", dealer, (B,), 0, 3)
        if score is not None:
            st.score[:] = _hook_ints("score", score, (B, 2), 0, 100 if self.target is None else self.target - 1)
        stock = None if deck is None else _hook_deck("deck", deck, B)
        self._new_deal(st, np.arange(B), rng, stock=stock)
        return st

    @staticmethod
    def _shuffle(rng, idx: np.ndarray, kind: str = "deal") -> np.ndarray:
        """Pack orders ``int8[len(idx), NUM_CARDS]`` for games ``idx`` (``rng``: see :mod:`~cardzoo.envs.core.chance`)."""
        return chance.uniform(rng, idx, (NUM_CARDS,), np.float32, kind).argsort(axis=1).astype(np.int8)

    def _new_deal(self, st: AluetteState, idx: np.ndarray, rng, stock=None) -> None:
        """Shuffle (or use ``stock``, ``int8[len(idx), 48]``) and deal games ``idx`` (§3, compiled
        :func:`rules.deal_one`): 9 cards each in threes, L P R D; start the vote."""
        idx = np.asarray(idx, dtype=np.int64)
        if idx.size == 0:
            return
        st.stock[idx] = self._shuffle(rng, idx) if stock is None else stock
        self.drivers.deal(st, idx, _rules.NEED_DEAL, self.params)

    def draw_chance(self, st: AluetteState, rows: np.ndarray, code: int, rng) -> None:
        """Draw the chance of ``code`` for games ``rows`` (``int64[n]``) into the state; the compiled
        :func:`rules.deal_one` goes on from there. ``NEED_DEAL`` / ``NEED_DEAL_ANSWER``: shuffle the
        next deal's pack (kind ``"deal"``, §3); ``NEED_INTERCEPT``: whether each opponent (left,
        right) catches the signal just sent, probability ``signal_intercept`` (kind ``"play"``, §4.5)."""
        if code == _rules.NEED_INTERCEPT:
            st.catch[rows] = chance.uniform(rng, rows, (2,), np.float64, "play") < self.intercept
        else:
            st.stock[rows] = self._shuffle(rng, rows)

    # ------------------------------------------------------------------ legal actions (§4, §5)
    def legal_bitboard(self, st: AluetteState) -> np.ndarray:
        """Legal actions as ``uint64[B, 2]`` words: action ``a`` = bit ``a % 64`` of word ``a // 64``
        (all zero in finished games)."""
        out = np.zeros((st.batch_size, _rules.LEGAL_WORDS), dtype=_U64)
        _legal_batch(self.drivers.arrays(st), self.params, out)
        return out

    def determinize(self, st: AluetteState, seat, rng: np.random.Generator) -> AluetteState:
        """A copy of ``st`` with the cards ``seat`` cannot see dealt again uniformly among the deals
        consistent with what it has seen, signals heard included (for PIMC search;
        :mod:`cardzoo.envs.aluette.determinize`)."""
        from .determinize import determinize

        return determinize(self, st, seat, rng)

    def legal_actions(self, st: AluetteState) -> np.ndarray:
        """Action mask ``bool[B, 65]`` of the seat to act (§4, §5); all False in finished games."""
        return unpack_bits(self.legal_bitboard(st), 64).reshape(st.batch_size, 128)[:, :NUM_ACTIONS].view(bool)

    def check_actions(self, st: AluetteState, actions) -> None:
        """Raise ``ValueError`` if any live game's action is illegal (names the action and the legal ones)."""
        self._check(st, np.asarray(actions, dtype=np.int64), self.legal_bitboard(st), ~st.done)

    def _check(self, st: AluetteState, actions: np.ndarray, legal: np.ndarray, live: np.ndarray) -> None:
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        a = np.clip(actions, 0, NUM_ACTIONS - 1)
        ok &= (legal[np.arange(st.batch_size), a // 64] >> (a % 64).astype(_U64)) & _ONE == 1
        bad = np.flatnonzero(~ok & live)
        if bad.size:
            b = int(bad[0])
            a = int(actions[b])
            name = self.action_name(a) if 0 <= a < NUM_ACTIONS else repr(a)
            legal_names = [self.action_name(x) for x in mask_to_cards(legal[b, 0])] + [
                self.action_name(64 + x) for x in mask_to_cards(legal[b, 1])
            ]
            raise ValueError(f"illegal action {name} in game {b} for seat {st.current_player[b]}; legal: {legal_names}")

    # ------------------------------------------------------------------ step
    def step(self, st: AluetteState, actions, rng: np.random.Generator, active=None) -> None:
        """Apply ``actions`` (``int[B]``, legal for each live game) and advance each game to its next
        decision, compiled (:func:`rules.step_one`).

        ``active`` (``bool[B]``, optional): step only these games; the others are untouched (their
        rewards are zeroed). Rewards of the step land in ``st.rewards`` (``float32[B, 4]``; zero
        unless a deal or match ended). Chance is drawn here, in Python, in the numpy kernel's order
        (:data:`rules.CHANCE_ORDER`: new deals after trick play, intercepted signals, new deals after
        an accepted surrender; rows ascending).

        Raises ``ValueError`` (state unchanged) if ``actions`` or ``active`` has the wrong shape, or an
        active live game's action is not legal (the message names it and the legal actions): the
        compiled rules only ever see legal actions.
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

    def single_game(self, st: AluetteState):
        """The B = 1 fast path used by the AEC env: the same compiled rules, one game."""
        return _SingleGame(self, st)

    # ------------------------------------------------------------------ observations (§7)
    def observe(self, st: AluetteState, seat) -> np.ndarray:
        """Observation ``uint8[B, D]`` of ``seat`` (int or ``int[B]``); layout: :attr:`obs_layout` (§7).
        ``ValueError`` for a seat outside 0..3."""
        B = st.batch_size
        seats = np.asarray(seat)
        if seats.dtype.kind not in "iu" or seats.ndim > 1 or (seats.ndim == 1 and seats.shape != (B,)):
            raise ValueError(f"seat must be an int or ints of shape ({B},), got {seat!r}")
        if seats.size and (seats.min() < 0 or seats.max() > 3):
            raise ValueError(f"seat {seat!r} is out of range; seats are 0..3")
        seats = np.ascontiguousarray(np.broadcast_to(seats.astype(np.int64), (B,)))
        return self.drivers.observe(st, seats, self.params, self._obs_layout.size)

    def global_state(self, st: AluetteState) -> np.ndarray:
        """Perfect-information vector ``uint8[B, S]`` (all hands, the talon, every signal sent)."""
        out = np.zeros((st.batch_size, self._state_layout.size), dtype=np.uint8)
        _global_batch(self.drivers.arrays(st), self.params, out)
        return out

    # ------------------------------------------------------------------ views
    def hands(self, st: AluetteState, b: int = 0) -> list[list[int]]:
        """Card ids each seat holds in game ``b`` (private to that seat)."""
        return [mask_to_cards(st.hands[b, s]) for s in range(4)]

    def known_cards(self, st: AluetteState, b: int = 0) -> list[list[int]]:
        """Aluette never shows a held card to another player: empty lists."""
        return [[] for _ in range(4)]

    def render(self, st: AluetteState, b: int = 0, view=None) -> str:
        """Text table of game ``b``: ``view`` None = public, a seat = that seat's view, ``"all"`` = every hand."""
        return _render.render(self, st, b, view)

    def table_view(self, st: AluetteState, b: int, seat: int) -> dict:
        """What ``seat`` sees at the table in game ``b`` as JSON-able data (``Kernel.table_view``, §7);
        see :func:`cardzoo.envs.aluette.render.table_view`."""
        return _render.table_view(self, st, b, seat)

    def info(self, st: AluetteState, b: int = 0) -> dict:
        """Public facts: phase, dealer, the last deal's winner seat, points and mordienne, the match score
        and result, and the partnership draw's seat map (``agent_seat[i]`` = seat now taken by the
        agent who drew at seat ``i``) when that option is on."""
        out = {
            "phase": PHASE_NAMES[int(st.phase[b])],
            "dealer": int(st.dealer[b]),
            "deal_winner": int(st.deal_winner[b]),
            "deal_points": st.points[b].tolist(),
            "mordienne": bool(st.mordienne[b]),
            "score": st.score[b].tolist(),
            "deals": int(st.deals[b]),
        }
        if self.match:
            out["match_result"] = ("running", "team A wins", "team B wins", "draw")[int(st.winner[b]) + 1]
        if self.options["partnership_draw"]:
            out["agent_seat"] = st.draw_map[b].tolist()
        if st.truncated[b]:
            out["truncation"] = f"max_deals={self.options['max_deals']} reached"
        return out


    def action_is_public(self, st: AluetteState, b: int, action: int) -> bool:
        """Whether every other seat sees ``action`` of the seat to act in game ``b`` (§7): not a chant
        discard, and not a signal unless ``signal_visibility="public"``. (:meth:`announce` gives the
        viewer-specific account used by terminal play.)"""
        a = int(action)
        if a < NUM_CARDS:
            return int(st.phase[b]) != DISCARD
        if SIGNAL0 <= a < END_SIGNALS:
            return self.options["signal_visibility"] == "public"
        return True

    def announce(self, before: AluetteState, after: AluetteState, action: int, actor: int, viewer: int) -> list[str]:
        """Lines telling ``viewer`` what it may learn (§7) from ``actor``'s ``action`` in game 0, given
        the states ``before`` and ``after`` the step (terminal play). Hidden facts are left out: an
        opponent's signal that ``viewer`` did not see, the cards of another player's discard."""
        a = int(action)
        name = self.action_name(a)
        who = f"player_{actor}"
        out = []
        if SIGNAL0 <= a < END_SIGNALS:
            seen = (int(after.heard[0, viewer]) >> (10 * actor + a - SIGNAL0)) & 1
            if actor != viewer and seen:
                out.append(f"{who} signals {name}")
        elif a < NUM_CARDS and int(before.phase[0]) == DISCARD:
            if actor != viewer:
                out.append(f"{who} discards a card")
        elif actor != viewer:
            out.append(f"{who} {'plays' if a < NUM_CARDS else 'says'} {name}")
        if a < NUM_CARDS and int(before.phase[0]) == PLAY and int(before.n_in_trick[0]) == 3:
            k = int(before.tricks_done[0])
            pw, top, cnt = int(POWER[a]), int(before.top[0]), int(before.top_count[0])
            if pw > top:
                res = actor
            elif pw == top or cnt > 1:
                res = SPOILED
            else:
                res = int(before.top_seat[0])
            out.append(f"-- trick {k + 1} " + ("spoiled: nobody wins it" if res == SPOILED else f"won by player_{res}"))
        return out


def partnership_draw(order: np.ndarray) -> np.ndarray:
    """§3 partnership draw for ``order`` (``int8[B, 48]``, the face-up pack, position 0 first).

    Seat 0 turns cards to seats 1, 2, 3, 0, ... skipping anyone who already holds one of 3Co,
    3Cu, 2Co, 2Cu, until the four are placed. Returns ``int8[B, 4]``: the new seat of the player
    who drew at each seat (3Cu -> 0, 2Cu -> 1, 3Co -> 2, 2Co -> 3). Loops over the 48 pack
    positions, not over the games.
    """
    B = order.shape[0]
    ar = np.arange(B)
    ptr = np.ones(B, dtype=np.int64)
    has = np.zeros((B, 4), dtype=bool)
    out = np.zeros((B, 4), dtype=np.int8)
    for i in range(NUM_CARDS):
        live = ~has.all(axis=1)
        if not live.any():
            break
        k = _DRAW_INDEX[order[:, i]].astype(np.int64)
        got = live & (k >= 0)
        g = ar[got]
        has[g, ptr[got]] = True
        out[g, ptr[got]] = np.asarray(DRAW_SEAT, dtype=np.int8)[k[got]]
        nxt = ptr.copy()
        found = np.zeros(B, dtype=bool)
        for step in range(1, 5):
            cand = (ptr + step) % 4
            take = ~found & ~has[ar, cand]
            nxt = np.where(take, cand, nxt)
            found |= take
        ptr = nxt
    return out

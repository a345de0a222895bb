"""Ottocento (Bolognese Tarocchino, the Cardavia table rules) as a batched kernel.

Implements ``envs/ottocento/RULES.md`` (sections cited as §n): the deal of 15 cards each and
17 to the dealer (§3), the dealer's two discards (§3), declare-all-or-pass before each
player's first card (§4), 15 tricks with follow suit / else trump / else anything, the Matto
and the Moors tie (§5), and the end-of-deal scoring in the order of §6
(:func:`cardzoo.envs.ottocento.scoring.score_deal`), per deal or per match (§8 ``match_target``).

State is an :class:`OttocentoState` of numpy arrays with a leading batch axis ``B``; card
sets are ``uint64`` bitboards over the 62 ids of :data:`cardzoo.envs.core.cards.TAROCCO62`. The
rules themselves are compiled single-game functions (:mod:`cardzoo.envs.ottocento.rules`, numba)
that the core's compiled driver (:class:`cardzoo.envs.core.compiled.Drivers`) runs over the batch;
this module holds the frame: options, validation, chance (every shuffle is drawn here, in Python,
through :mod:`cardzoo.envs.core.chance`), views and search.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core import chance
from ..core.cards import TAROCCO62, mask_to_cards, unpack_bits
from ..core.compiled import CompiledSingleGame, Drivers, arrays_type
from ..core.kernel import BatchState, Kernel, Layout, Option, bool_option, int_option
from . import observation as _obs
from . import render as _render
from . import rules as _rules
from .constants import DISCARD, NUM_ACTIONS, NUM_CARDS, NUM_PLAYERS, PHASE_ACTIONS, PHASE_NAMES

_U64 = np.uint64


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


def deal_positions(packet: int) -> np.ndarray:
    """``int[4, 17]`` stock positions of the k-th player's cards counted from the dealer's right
    (k = 0 is dealer+1, k = 3 the dealer, §3): three rounds of packets of 5 (by default), then
    the dealer takes positions 60 and 61. Columns 15-16 are -1 for k < 3."""
    pos = np.full((4, 17), -1, dtype=np.intp)
    rounds = 15 // packet
    for k in range(4):
        for r in range(rounds):
            base = r * 4 * packet + k * packet
            pos[k, r * packet : (r + 1) * packet] = np.arange(base, base + packet)
    pos[3, 15:] = (60, 61)
    return pos


@dataclasses.dataclass
class OttocentoState(BatchState):
    """Batched Ottocento state; ``B`` games, seats 0..3, teams ``seat % 2`` (A = {0, 2}, B = {1, 3}).

    Card-set fields are ``uint64`` bitboards. Fields beyond :class:`BatchState`:

    * ``hands``, ``dealt``, ``played``: ``uint64[B, 4]`` held now / dealt (17 for the dealer) /
      played this deal, by absolute seat. ``discards``: ``uint64[B]`` the dealer's discards.
    * ``piles``: ``uint64[B, 2]`` cards won in tricks by team. ``trick``: ``uint64[B]``;
      ``trick_card``: ``int8[B, 4]`` card of each seat in the current trick (-1 none).
    * ``led``: ``int8[B]`` suit to follow (0-3 S B C D, 4 trumps, -1 none yet);
      ``trick_winner``: ``int8[B]`` seat winning the trick so far, ``trick_best`` its key.
    * ``phase``: ``int8[B]`` (DISCARD, DECLARING, PLAY, OVER); ``dealer``, ``leader``,
      ``n_in_trick``, ``tricks_done``, ``n_discarded``: ``int8[B]``; ``tricks_won``: ``int8[B, 2]``.
    * ``decided``, ``declared``: ``bool[B, 4]`` declaration decision made / declared (§4);
      ``decl_value``: ``int16[B, 4]`` worth of each hand (set after the discard);
      ``decl_cards``: ``uint64[B, 4]`` the cards a declaration would show; ``shown``: ``uint64[B, 4]``
      cards shown by declarations; ``decl_points``: ``int16[B, 4]`` points declared.
    * ``matto_owner``: ``int8[B]`` seat dealt the Matto; ``matto_winner``: seat that won its trick
      (-1 before); ``last_winner``: winner of trick 15 (-1 before).
    * Deal results (§6; set when a deal is scored): ``final_piles`` ``uint64[B, 2]``, ``res_cards``
      (half-points), ``res_captured``, ``res_declared``, ``res_last``, ``res_total`` (half-points):
      ``int32[B, 2]``; ``gift``, ``matto_fate``, ``discards_to``: ``int8[B]``.
    * ``score``: ``int32[B, 2]`` match score in half-points; ``winner``: ``int8[B]`` winning team
      (-1 none / draw); ``deals_played``: ``int16[B]``.
    * ``voids``: ``uint8[B, 4]`` suits each seat showed it lacks this deal (bit ``s`` for suit
      ``s`` 0-3, bit 4 trumps): not following the suit led, or not trumping then (§5); read by
      :meth:`OttocentoKernel.determinize`.
    * ``stock``: ``int8[B, 62]`` the shuffled pack of the current deal, dealt from position 0 (§3).
    """

    hands: np.ndarray
    dealt: np.ndarray
    played: np.ndarray
    discards: np.ndarray
    piles: np.ndarray
    trick: np.ndarray
    trick_card: np.ndarray
    led: np.ndarray
    trick_winner: np.ndarray
    trick_best: np.ndarray
    phase: np.ndarray
    dealer: np.ndarray
    leader: np.ndarray
    n_in_trick: np.ndarray
    tricks_done: np.ndarray
    n_discarded: np.ndarray
    tricks_won: np.ndarray
    decided: np.ndarray
    declared: np.ndarray
    decl_value: np.ndarray
    decl_cards: np.ndarray
    shown: np.ndarray
    decl_points: np.ndarray
    matto_owner: np.ndarray
    matto_winner: np.ndarray
    last_winner: np.ndarray
    final_piles: np.ndarray
    res_cards: np.ndarray
    res_captured: np.ndarray
    res_declared: np.ndarray
    res_last: np.ndarray
    res_total: np.ndarray
    gift: np.ndarray
    matto_fate: np.ndarray
    discards_to: np.ndarray
    score: np.ndarray
    winner: np.ndarray
    deals_played: np.ndarray
    voids: np.ndarray
    stock: np.ndarray


#: the state's arrays as compiled code sees them (a namedtuple with the fields of :class:`OttocentoState`)
OttocentoArrays = arrays_type(OttocentoState, "OttocentoArrays", __name__)

_DRIVERS: dict[bool, Drivers] = {}


def _drivers(parallel: bool) -> Drivers:
    """The compiled drivers of Ottocento (built once per process and flag; compiled on first use)."""
    if parallel not in _DRIVERS:
        _DRIVERS[parallel] = Drivers(
            OttocentoArrays, _rules.step_one, _rules.deal_one, _rules.legal_bits, _rules.observe_one, parallel=parallel
        )
    return _DRIVERS[parallel]


def _params(o: dict) -> np.ndarray:
    """The option vector ``int64[rules.P_SIZE]`` of the compiled rules (``RULES.md`` §8)."""
    R = _rules
    P = np.zeros(R.P_SIZE, dtype=np.int64)
    P[R.P_DECL_MODE] = ("all_or_pass", "auto_all", "none").index(o["declaration_mode"])
    P[R.P_STRICT] = bool(o["natural_skip_counts_as_gap"])
    P[R.P_LAST_PLAYED] = o["moors_tie"] == "last_played"
    P[R.P_MATCH] = o["match_target"] is not None
    P[R.P_TARGET_HALF] = 2 * int(o["match_target"] or 0)
    P[R.P_WIN_NOW] = bool(o["declarations_win_immediately"])
    P[R.P_REWARD_DIFF] = o["reward"] == "point_diff"
    P[R.P_MAX_DEALS] = o["max_deals"]
    P[R.P_FOLLOW] = bool(o["discards_follow_tricks"])
    P[R.P_IN_COMBOS] = bool(o["discards_in_captured_combos"])
    P[R.P_MATTO_CAPTURED] = o["matto_rule"] == "captured"
    P[R.P_FORFEIT] = o["matto_fallback"] == "forfeit"
    P[R.P_GIFT_LOWEST] = o["matto_gift"] == "lowest_id"
    P[R.P_LAST_BONUS] = int(o["last_trick_bonus"])
    P[R.P_POS : R.P_POS + 68] = deal_positions(int(o["deal_packets"])).reshape(-1)
    return P


def _target_option() -> Option:
    return Option(
        None,
        check=lambda v: v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 1 <= v <= 5000),
        valid="None (one deal) or an int from 1 to 5000",
    )


class OttocentoKernel(Kernel):
    """Batched Ottocento (``RULES.md``).

    Options (``RULES.md`` §8; a bad value raises ``ValueError`` listing the valid ones):

    ================================  ===============================================  =====================
    option                            values                                           default
    ================================  ===============================================  =====================
    ``dealer``                        ``"random"`` or a seat 0..3                      ``"random"``
    ``deal_packets``                  1, 3, 5, 15                                      5
    ``forbidden_discards``            ``"kings_and_honours"``, ``"five_point_cards"``  ``"kings_and_honours"``
    ``discards_follow_tricks``        bool                                             True
    ``discards_in_captured_combos``   bool                                             True
    ``declaration_mode``              ``"all_or_pass"``, ``"auto_all"``, ``"none"``    ``"all_or_pass"``
    ``natural_skip_counts_as_gap``    bool                                             False
    ``moors_tie``                     ``"last_played"``, ``"first_played"``            ``"last_played"``
    ``last_trick_bonus``              int -1000..1000                                  6
    ``matto_rule``                    ``"exchange_at_end"``, ``"captured"``            ``"exchange_at_end"``
    ``matto_fallback``                ``"lowest_value"``, ``"forfeit"``                ``"lowest_value"``
    ``matto_gift``                    ``"best_for_owner"``, ``"lowest_id"``            ``"best_for_owner"``
    ``reward``                        ``"win_loss"``, ``"point_diff"``                 ``"win_loss"``
    ``match_target``                  None or int 1..5000                              None
    ``declarations_win_immediately``  bool (match mode only)                           False
    ``max_deals``                     int 1..10000 (match safety cap, truncation)      200
    ================================  ===============================================  =====================
    """

    name = "ottocento"
    deck = TAROCCO62
    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    teams = [[0, 2], [1, 3]]
    zero_sum = True
    OPTIONS = {
        "dealer": Option("random", choices=("random", 0, 1, 2, 3)),
        "deal_packets": Option(5, choices=(1, 3, 5, 15)),
        "forbidden_discards": Option("kings_and_honours", choices=("kings_and_honours", "five_point_cards")),
        "discards_follow_tricks": bool_option(True),
        "discards_in_captured_combos": bool_option(True),
        "declaration_mode": Option("all_or_pass", choices=("all_or_pass", "auto_all", "none")),
        "natural_skip_counts_as_gap": bool_option(False),
        "moors_tie": Option("last_played", choices=("last_played", "first_played")),
        "last_trick_bonus": Option(
            6, check=lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool) and -1000 <= v <= 1000, valid="an int from -1000 to 1000"
        ),
        "matto_rule": Option("exchange_at_end", choices=("exchange_at_end", "captured")),
        "matto_fallback": Option("lowest_value", choices=("lowest_value", "forfeit")),
        "matto_gift": Option("best_for_owner", choices=("best_for_owner", "lowest_id")),
        "reward": Option("win_loss", choices=("win_loss", "point_diff")),
        "match_target": _target_option(),
        "declarations_win_immediately": bool_option(False),
        "max_deals": int_option(200, 1, 10_000),
    }

    INIT_HOOKS = ("deck", "dealer", "score")

    def __init__(self, **options) -> None:
        super().__init__(**options)
        o = self.options
        if o["declarations_win_immediately"] and o["match_target"] is None:
            raise ValueError("option declarations_win_immediately=True needs match mode: set match_target (e.g. 800)")
        self.match = o["match_target"] is not None
        self.target_half = 2 * int(o["match_target"] or 0)
        self.strict_skip = bool(o["natural_skip_counts_as_gap"])
        self._obs_layout = _obs.observation_layout()
        self._state_layout = _obs.state_layout()
        #: ``int64[P_SIZE]`` the options as the compiled rules read them (indices ``rules.P_*``)
        self.params = _params(o)
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
        """Agent steps bound: per deal 2 discards + 4 declarations + 60 cards."""
        return 66 * (self.options["max_deals"] if self.match else 1)

    # ------------------------------------------------------------------ names
    def action_name(self, action: int) -> str:
        """``"KS"``, ``"10C"``, ``"T16"``, ``"MAT"`` for card ids 0..61; ``"DECLARE"`` 62, ``"PASS"`` 63."""
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            raise ValueError(f"action must be an int id 0..{NUM_ACTIONS - 1}, got {action!r}")
        a = int(action)
        if 0 <= a < NUM_CARDS:
            return TAROCCO62.names[a]
        if a in PHASE_ACTIONS:
            return PHASE_ACTIONS[a]
        raise ValueError(f"action {action!r} is out of range; valid ids are 0..{NUM_ACTIONS - 1}")

    # ------------------------------------------------------------------ init / dealing (§3)
    def init(self, rng: np.random.Generator, batch: int, *, deck=None, dealer=None, score=None) -> OttocentoState:
        """Shuffle and deal ``batch`` games (§3).

        Test hooks:
            deck: ``int[62]`` or ``int[B, 62]`` stock order (position 0 dealt first) instead of a shuffle.
            dealer: seat or ``int[B]`` (else the ``dealer`` option, else random).
            score: ``int[2]`` or ``int[B, 2]`` match score in points before the first deal (match mode).

        Raises ``ValueError`` for a hook that is not a permutation / seat / score in range.
        """
        B = int(batch)
        z = lambda dt, *shape: np.zeros((B, *shape), dtype=dt)  # noqa: E731
        full = lambda dt, *shape: np.full((B, *shape), -1, dtype=dt)  # noqa: E731
        st = OttocentoState(
            current_player=z(np.int8),
            done=z(bool),
            truncated=z(bool),
            rewards=z(np.float32, 4),
            hands=z(_U64, 4),
            dealt=z(_U64, 4),
            played=z(_U64, 4),
            discards=z(_U64),
            piles=z(_U64, 2),
            trick=z(_U64),
            trick_card=full(np.int8, 4),
            led=full(np.int8),
            trick_winner=full(np.int8),
            trick_best=z(np.int8),
            phase=z(np.int8),
            dealer=z(np.int8),
            leader=z(np.int8),
            n_in_trick=z(np.int8),
            tricks_done=z(np.int8),
            n_discarded=z(np.int8),
            tricks_won=z(np.int8, 2),
            decided=z(bool, 4),
            declared=z(bool, 4),
            decl_value=z(np.int16, 4),
            decl_cards=z(_U64, 4),
            shown=z(_U64, 4),
            decl_points=z(np.int16, 4),
            matto_owner=z(np.int8),
            matto_winner=full(np.int8),
            last_winner=full(np.int8),
            final_piles=z(_U64, 2),
            res_cards=z(np.int32, 2),
            res_captured=z(np.int32, 2),
            res_declared=z(np.int32, 2),
            res_last=z(np.int32, 2),
            res_total=z(np.int32, 2),
            gift=full(np.int8),
            matto_fate=z(np.int8),
            discards_to=full(np.int8),
            score=z(np.int32, 2),
            winner=full(np.int8),
            deals_played=z(np.int16),
            voids=z(np.uint8, 4),
            stock=z(np.int8, NUM_CARDS),
        )
        if dealer is None:
            dealer = self.options["dealer"]
        if isinstance(dealer, str):
            st.dealer[:] = chance.integers(rng, B, 0, 4, kind="dealer")
        else:
            st.dealer[:] = _hook_ints("dealer", dealer, (B,), 0, 3)
        if score is not None:
            if not self.match:
                raise ValueError("reset option score needs match mode (option match_target)")
            st.score[:] = 2 * _hook_ints("score", score, (B, 2), 0, self.target_half // 2 - 1)
        rows = np.arange(B, dtype=np.int64)
        if deck is not None:
            stock = _hook_ints("deck", deck, (B, NUM_CARDS), 0, NUM_CARDS - 1)
            if not (np.sort(stock, axis=1) == np.arange(NUM_CARDS)).all():
                raise ValueError("deck must be a permutation of the 62 card ids 0..61 (each id exactly once)")
            st.stock[:] = stock
        elif B:
            self.draw_chance(st, rows, _rules.NEED_DEAL, rng)
        if B:
            self.drivers.deal(st, rows, _rules.NEED_DEAL, self.params)
        return st

    def draw_chance(self, st: OttocentoState, rows: np.ndarray, code: int, rng) -> None:
        """Shuffle the stock of games ``rows`` (``int64[n]``) for chance ``code`` (``rules.NEED_DEAL``:
        a new deal, kind ``"deal"``). The compiled :func:`rules.deal_one` then deals it (§3)."""
        st.stock[rows] = chance.uniform(rng, rows, (NUM_CARDS,), np.float32, "deal").argsort(axis=1)

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

    # ------------------------------------------------------------------ legal actions (§3, §4, §5)
    def legal_bitboard(self, st: OttocentoState) -> np.ndarray:
        """Legal actions as ``uint64[B]`` bitboards (bit ``a`` set = action ``a`` legal; 0 in finished
        games), computed by the compiled :func:`rules.legal_bits`."""
        return self.drivers.legal(st, self.params)

    def legal_actions(self, st: OttocentoState) -> np.ndarray:
        """Action mask ``bool[B, 64]`` of the player to act; all False in finished games."""
        return unpack_bits(self.legal_bitboard(st)[:, None], NUM_ACTIONS)[:, 0].view(bool)

    def determinize(self, st: OttocentoState, seat, rng: np.random.Generator) -> OttocentoState:
        """A copy of ``st`` with the cards ``seat`` cannot see dealt again uniformly among the deals
        consistent with what it has seen (for PIMC search; :mod:`cardzoo.envs.ottocento.determinize`)."""
        from .determinize import determinize

        return determinize(self, st, seat, rng)

    # ------------------------------------------------------------------ step
    def step(self, st: OttocentoState, actions, rng: np.random.Generator, active=None) -> None:
        """Apply ``actions`` (``int[B]``, legal for each live game) and advance to the next decision,
        compiled (:func:`rules.step_one`).

        ``active`` (``bool[B]``, optional): step only these games; the others are untouched
        (their rewards are zeroed). Rewards of the step land in ``st.rewards`` (``float32[B, 4]``).
        Chance (the next deal's shuffle in match mode) is drawn here, in Python, rows ascending.

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
            rows = np.flatnonzero(need == _rules.NEED_DEAL)
            self.draw_chance(st, rows, _rules.NEED_DEAL, rng)
            self.drivers.deal(st, rows, _rules.NEED_DEAL, self.params)

    def check_actions(self, st: OttocentoState, actions) -> None:
        """Raise ``ValueError`` if any live game's action is illegal (names the action and the legal ones)."""
        self._check(st, np.asarray(actions, dtype=np.int64), self.legal_bitboard(st), ~st.done)

    def _check(self, st: OttocentoState, actions: np.ndarray, legal: np.ndarray, live: np.ndarray) -> None:
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        ok &= (legal >> np.clip(actions, 0, 63).astype(_U64)) & _U64(1) == 1
        bad = np.flatnonzero(~ok & live)
        if bad.size:
            b = int(bad[0])
            a = int(actions[b])
            name = self.action_name(a) if 0 <= a < NUM_ACTIONS else repr(a)
            legal_names = [self.action_name(x) for x in mask_to_cards(legal[b])]
            raise ValueError(f"illegal action {name} in game {b} for seat {st.current_player[b]}; legal: {legal_names}")

    def single_game(self, st: OttocentoState) -> CompiledSingleGame:
        """The B = 1 fast path used by the AEC env: the same compiled rules, one compiled call per step
        (:class:`cardzoo.envs.core.compiled.CompiledSingleGame`)."""
        return CompiledSingleGame(self, st)

    def action_is_public(self, st: OttocentoState, b: int, action: int) -> bool:
        """The dealer's discards are face down (§3.5): hidden from the other seats; every other action is public."""
        return int(st.phase[b]) != DISCARD

    # ------------------------------------------------------------------ observations (§7)
    def observe(self, st: OttocentoState, seat) -> np.ndarray:
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

    def global_state(self, st: OttocentoState) -> np.ndarray:
        """Perfect-information vector ``uint8[B, S]`` (every hand and the discards), layout :attr:`state_layout`."""
        out = np.empty((st.batch_size, self._state_layout.size), dtype=np.uint8)
        _rules.global_batch(self.drivers.arrays(st), self.params, out)
        return out

    # ------------------------------------------------------------------ views
    def hands(self, st: OttocentoState, b: int = 0) -> list[list[int]]:
        """Card ids each seat holds in game ``b``."""
        return [mask_to_cards(st.hands[b, s]) for s in range(4)]

    def known_cards(self, st: OttocentoState, b: int = 0) -> list[list[int]]:
        """Cards each seat declared and still holds (public since the declaration, §4.1, §7)."""
        return [mask_to_cards(st.hands[b, s] & st.shown[b, s]) for s in range(4)]

    def render(self, st: OttocentoState, b: int = 0, view=None) -> str:
        """Text table of game ``b``: ``view`` None = public, a seat = that seat's view, ``"all"`` = every hand."""
        return _render.render(self, st, b, view)

    def table_view(self, st: OttocentoState, b: int, seat: int) -> dict:
        """What ``seat`` sees at the table in game ``b`` as JSON-able data (``Kernel.table_view``, §7);
        see :func:`cardzoo.envs.ottocento.render.table_view`."""
        return _render.table_view(self, st, b, seat)

    def info(self, st: OttocentoState, b: int = 0) -> dict:
        """Public facts for ``infos``; once the deal is scored everything is revealed (§7), in points."""
        out = {
            "phase": PHASE_NAMES[int(st.phase[b])],
            "dealer": int(st.dealer[b]),
            "tricks_won": st.tricks_won[b].tolist(),
            "declarations": [int(v) for v in st.decl_points[b]],
            "declared": [bool(v) for v in st.declared[b]],
            "match_score": (st.score[b] / 2).tolist(),
        }
        if st.deals_played[b] > 0 and st.done[b]:
            out.update(self.deal_result(st, b))
        if st.truncated[b]:
            out["truncation"] = f"max_deals={self.options['max_deals']} reached"
        return out

    def deal_result(self, st: OttocentoState, b: int = 0) -> dict:
        """Every score component of the last scored deal of game ``b`` (points; team A first)."""
        names = TAROCCO62.names
        return {
            "discards": [names[c] for c in mask_to_cards(st.discards[b])],
            "discards_to": "AB"[int(st.discards_to[b])] if st.discards_to[b] >= 0 else None,
            "matto": ("kept by its team", "moved back for a gift card", "stayed with the opponents")[int(st.matto_fate[b])],
            "matto_gift": names[int(st.gift[b])] if st.gift[b] >= 0 else None,
            "piles": [[names[c] for c in mask_to_cards(st.final_piles[b, t])] for t in range(2)],
            "card_points": (st.res_cards[b] / 2).tolist(),
            "captured_combinations": st.res_captured[b].tolist(),
            "declarations_team": st.res_declared[b].tolist(),
            "last_trick": st.res_last[b].tolist(),
            "totals": (st.res_total[b] / 2).tolist(),
            "winner": "AB"[int(st.winner[b])] if st.winner[b] >= 0 else None,
        }

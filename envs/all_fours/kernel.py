"""All Fours (Trinidad) rules as a batched kernel.

Implements ``envs/all_fours/RULES.md`` (sections cited as §n below): dealing and kicks
(§3), stand / beg / give one / run the pack with re-kicks and pack exhaustion (§4), trick
play with the follow rules and both ``undertrump`` settings (§5), and scoring High, Low,
Jack / Hang jack and Game in the counting order of §6, per hand or per match.

State is a :class:`AllFoursState` of numpy arrays with a leading batch axis ``B``; every
card set is a ``uint64`` bitboard over the 52 card ids of :data:`cardzoo.envs.core.cards.FRENCH52`
(``id = 13*suit + rank``, suits C D H S, ranks 2..A). The rules themselves are compiled
single-game functions (:mod:`cardzoo.envs.all_fours.rules`, numba) that the core's compiled
driver (:class:`cardzoo.envs.core.compiled.Drivers`) runs over the batch; this module holds the
frame: options, validation, chance (every shuffle is drawn here, in Python, through
:mod:`cardzoo.envs.core.chance`), views and search.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.cards import FRENCH52, bit, mask_to_cards, popcount, unpack_bits
from ..core import chance
from ..core.compiled import CompiledSingleGame, Drivers, arrays_type
from ..core.kernel import BatchState, Kernel, Layout, Option, bool_option, int_option
from . import observation as _obs
from . import render as _render
from . import rules as _rules
from .constants import (
    ALL_CARDS,
    FIRST_KICK,
    KICK_POINTS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    PHASE_ACTIONS,
    PHASE_NAMES,
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
        raise ValueError(f"reset option {name}={value!r} must be int(s) of shape {shape[1:] or '()'} (or {shape})") from None
    if arr.size and (arr.min() < lo or arr.max() > hi):
        raise ValueError(f"reset option {name}={value!r} is out of range: each value must be in {lo}..{hi}")
    return arr


@dataclasses.dataclass
class AllFoursState(BatchState):
    """Batched All Fours state; ``B`` games, seats 0..3, teams ``seat % 2``.

    Card-set fields are ``uint64`` bitboards. Fields (beyond :class:`BatchState`):

    * ``hands``, ``dealt``, ``played``: ``uint64[B, 4]`` cards held now / dealt this deal /
      played this deal, by absolute seat.
    * ``stock``: ``int8[B, 52]`` shuffled pack, dealt from position 0 (§3).
    * ``kicked``: ``uint64[B]`` every card turned this deal; ``orig_suit``, ``trump``: ``int8[B]``.
    * ``phase``: ``int8[B]`` (:data:`BEG_DECISION`, :data:`DEALER_DECISION`, :data:`PLAY`, :data:`OVER`).
    * ``dealer``, ``leader``: ``int8[B]`` seats; ``trick_card``: ``int8[B, 4]`` card played to
      the current trick by each seat (-1 none); ``trick``: ``uint64[B]``; ``led_suit``: ``int8[B]``;
      ``trick_winner``: ``int8[B]`` seat winning the current trick so far (-1 none), ``trick_best``
      its ranking key.
    * ``n_in_trick``, ``tricks_done``, ``hand_size``, ``runs``: ``int8[B]``; ``begged``, ``gave_one``: ``bool[B]``.
    * ``captured``: ``uint64[B, 2]`` cards won in tricks by each team; ``game_value``: ``int16[B, 2]``
      their Game value (§2).
    * ``points``: ``int16[B, 2]`` points of the current hand; ``score``: ``int16[B, 2]`` match score.
    * ``items``: ``int8[B, 4]`` team credited with High, Low, Jack/Hang jack, Game of the last
      scored hand (-1 none); ``hang``: ``bool[B]`` the jack was hanged.
    * ``winner``: ``int8[B]`` team that won the match (-1 none); ``redeals``, ``hands_played``: ``int16[B]``.
    * ``voids``: ``uint8[B, 4]`` suits each seat has shown it lacks this deal (bit ``s`` = suit ``s``;
      public: not following a trump lead shows no trumps, playing a plain card of another suit to
      a plain lead shows no card of the suit led, §5). Used by search (:meth:`AllFoursKernel.determinize`).
    * ``last_trick``: ``int8[B, 4]`` card each seat played to the last completed trick of this deal
      (-1 none yet); ``last_leader``, ``last_winner``: ``int8[B]`` its leader and winner (-1 none).
      Public (§7); read by :meth:`AllFoursKernel.table_view`.
    * ``last_points``, ``last_game_value``: ``int16[B, 2]`` the hand points and Game values of the
      last scored hand, kept when a match deals the next hand (read by ``table_view``'s summary).
    * ``last_high_low``: ``int8[B, 5]`` of the last scored hand: the High card and the seat dealt it,
      the Low card and its seat, the seat dealt the jack of trumps (-1 none) (§6; ``table_view``).
    """

    hands: np.ndarray
    dealt: np.ndarray
    played: np.ndarray
    stock: np.ndarray
    kicked: np.ndarray
    orig_suit: np.ndarray
    trump: np.ndarray
    phase: np.ndarray
    dealer: np.ndarray
    leader: np.ndarray
    trick_card: np.ndarray
    trick: np.ndarray
    led_suit: np.ndarray
    trick_winner: np.ndarray
    trick_best: np.ndarray
    n_in_trick: np.ndarray
    tricks_done: np.ndarray
    hand_size: np.ndarray
    runs: np.ndarray
    begged: np.ndarray
    gave_one: np.ndarray
    captured: np.ndarray
    game_value: np.ndarray
    points: np.ndarray
    score: np.ndarray
    items: np.ndarray
    hang: np.ndarray
    winner: np.ndarray
    redeals: np.ndarray
    hands_played: np.ndarray
    voids: np.ndarray
    last_trick: np.ndarray
    last_leader: np.ndarray
    last_winner: np.ndarray
    last_points: np.ndarray
    last_game_value: np.ndarray
    last_high_low: np.ndarray


#: the state's arrays as compiled code sees them (a namedtuple with the fields of :class:`AllFoursState`)
AllFoursArrays = arrays_type(AllFoursState, "AllFoursArrays", __name__)

_DRIVERS: dict[bool, Drivers] = {}


def _drivers(parallel: bool) -> Drivers:
    """The compiled drivers of All Fours (built once per process and flag; compiled on first use)."""
    if parallel not in _DRIVERS:
        _DRIVERS[parallel] = Drivers(
            AllFoursArrays, _rules.step_one, _rules.deal_one, _rules.legal_one, _rules.observe_one, parallel=parallel
        )
    return _DRIVERS[parallel]


def _params(o: dict, match: bool, target: int, score_high: int) -> np.ndarray:
    """The option vector ``int64[rules.P_SIZE]`` of the compiled rules (``RULES.md`` §8)."""
    P = np.zeros(_rules.P_SIZE, dtype=np.int64)
    P[_rules.P_MATCH] = match
    P[_rules.P_TARGET] = target
    P[_rules.P_REWARD_WIN] = o["reward"] == "win"
    P[_rules.P_SCORE_REJECTED] = bool(o["score_rejected_kicks"])
    P[_rules.P_JACK] = o["jack_points"]
    P[_rules.P_HANG] = o["hang_jack_points"]
    P[_rules.P_GAME] = o["game_points"]
    P[_rules.P_GAME_TIE] = ("none", "beggar_team", "dealer_team").index(o["game_tie"])
    P[_rules.P_UNDERTRUMP_FORBIDDEN] = o["undertrump"] == "forbidden"
    P[_rules.P_FORBID_GIVE] = bool(o["forbid_game_ending_give_one"])
    P[_rules.P_PACKET] = o["deal_packet"]
    P[_rules.P_MAX_REDEALS] = o["max_redeals"]
    P[_rules.P_MAX_HANDS] = o["max_hands"]
    P[_rules.P_SCORE_HIGH] = score_high
    P[_rules.P_KICK : _rules.P_KICK + 13] = KICK_POINTS[o["kick_points"]]
    return P


class AllFoursKernel(Kernel):
    """Batched All Fours, Trinidad rules (``RULES.md``).

    Options (``RULES.md`` §8; a bad value raises ``ValueError`` listing the valid ones):

    ============================  ===========================================  ============
    option                        values                                       default
    ============================  ===========================================  ============
    ``episode``                   ``"hand"``, ``"match"``                      ``"hand"``
    ``reward``                    ``"score"`` (points difference), ``"win"``   ``"score"``
    ``target_score``              int 1..200                                   14
    ``kick_points``               ``"trinidad"``, ``"tobago"``                 ``"trinidad"``
    ``score_rejected_kicks``      bool                                         True
    ``jack_points``               int 0..100                                   1
    ``hang_jack_points``          int 0..100                                   3
    ``game_points``               int 0..100                                   1
    ``game_tie``                  ``"none"``, ``"beggar_team"``, ``"dealer_team"``  ``"none"``
    ``undertrump``                ``"allowed"``, ``"forbidden"``               ``"allowed"``
    ``forbid_game_ending_give_one``  bool                                      False
    ``deal_packet``               3, 1                                         3
    ``first_dealer``              seat 0..3 or None (random)                   None
    ``max_redeals``               int 1..10000                                 50
    ``max_hands``                 int 1..10000                                 500
    ============================  ===========================================  ============
    """

    name = "all_fours"
    deck = FRENCH52
    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    teams = [[0, 2], [1, 3]]
    zero_sum = True
    OPTIONS = {
        "episode": Option("hand", choices=("hand", "match")),
        "reward": Option("score", choices=("score", "win")),
        "target_score": int_option(14, 1, 200),  # bounded so scores fit the uint8 observation
        "kick_points": Option("trinidad", choices=("trinidad", "tobago")),
        "score_rejected_kicks": bool_option(True),
        "jack_points": int_option(1, 0, 100),
        "hang_jack_points": int_option(3, 0, 100),
        "game_points": int_option(1, 0, 100),
        "game_tie": Option("none", choices=("none", "beggar_team", "dealer_team")),
        "undertrump": Option("allowed", choices=("allowed", "forbidden")),
        "forbid_game_ending_give_one": bool_option(False),
        "deal_packet": Option(3, choices=(3, 1)),
        "first_dealer": Option(None, choices=(None, 0, 1, 2, 3)),
        "max_redeals": int_option(50, 1, 10_000),
        "max_hands": int_option(500, 1, 10_000),
    }

    INIT_HOOKS = ("deck", "dealer", "score")

    def __init__(self, **options) -> None:
        super().__init__(**options)
        o = self.options
        self.match = o["episode"] == "match"
        self.target = int(o["target_score"])
        self._obs_layout = _obs.observation_layout(self.target)
        self._state_layout = _obs.state_layout(self.target)
        #: ``int64[P_SIZE]`` the options as the compiled rules read them (indices ``rules.P_*``)
        self.params = _params(o, self.match, self.target, int(self._obs_layout.entries[-1].high))
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
        """Agent steps bound: per deal at most 2 decisions; 48 card plays per hand."""
        per_hand = 2 * self.options["max_redeals"] + 48
        return per_hand * (self.options["max_hands"] if self.match else 1)

    # ------------------------------------------------------------------ names
    def action_name(self, action: int) -> str:
        """``"10H"`` for card ids 0..51, ``"STAND"``/``"BEG"``/``"GIVE_ONE"``/``"RUN"`` for 52..55."""
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            raise ValueError(f"action must be an int id 0..{NUM_ACTIONS - 1}, got {action!r}")
        a = int(action)
        if 0 <= a < NUM_CARDS:
            return FRENCH52.names[a]
        if a in PHASE_ACTIONS:
            return PHASE_ACTIONS[a]
        raise ValueError(f"action {action!r} is out of range; valid ids are 0..{NUM_ACTIONS - 1}")

    # ------------------------------------------------------------------ init / dealing (§3)
    def init(self, rng: np.random.Generator, batch: int, *, deck=None, dealer=None, score=None) -> AllFoursState:
        """Shuffle and deal ``batch`` games.

        Test hooks (documented, used by the worked-example tests):
            deck: ``int[52]`` or ``int[B, 52]`` stock order (position 0 is the top) instead of a shuffle.
            dealer: seat or ``int[B]`` of the first dealer (else ``first_dealer`` option, else random).
            score: ``int[2]`` or ``int[B, 2]`` match score (team A, team B) before the first deal,
                each below ``target_score``.

        Raises ``ValueError`` when a hook value is not a permutation / seat / score in range.
        """
        B = int(batch)
        z = lambda dt, *shape: np.zeros((B, *shape), dtype=dt)  # noqa: E731
        st = AllFoursState(
            current_player=z(np.int8),
            done=z(bool),
            truncated=z(bool),
            rewards=z(np.float32, 4),
            hands=z(_U64, 4),
            dealt=z(_U64, 4),
            played=z(_U64, 4),
            stock=z(np.int8, 52),
            kicked=z(_U64),
            orig_suit=z(np.int8),
            trump=z(np.int8),
            phase=z(np.int8),
            dealer=z(np.int8),
            leader=z(np.int8),
            trick_card=np.full((B, 4), -1, dtype=np.int8),
            trick=z(_U64),
            led_suit=np.full(B, -1, dtype=np.int8),
            trick_winner=np.full(B, -1, dtype=np.int8),
            trick_best=z(np.int8),
            n_in_trick=z(np.int8),
            tricks_done=z(np.int8),
            hand_size=z(np.int8),
            runs=z(np.int8),
            begged=z(bool),
            gave_one=z(bool),
            captured=z(_U64, 2),
            game_value=z(np.int16, 2),
            points=z(np.int16, 2),
            score=z(np.int16, 2),
            items=np.full((B, 4), -1, dtype=np.int8),
            hang=z(bool),
            winner=np.full(B, -1, dtype=np.int8),
            redeals=z(np.int16),
            hands_played=z(np.int16),
            voids=z(np.uint8, 4),
            last_trick=np.full((B, 4), -1, dtype=np.int8),
            last_leader=np.full(B, -1, dtype=np.int8),
            last_winner=np.full(B, -1, dtype=np.int8),
            last_points=z(np.int16, 2),
            last_game_value=z(np.int16, 2),
            last_high_low=np.full((B, 5), -1, dtype=np.int8),
        )
        if dealer is None:
            dealer = self.options["first_dealer"]
        if dealer is None:
            st.dealer[:] = chance.integers(rng, B, 0, 4, kind="dealer")
        else:
            st.dealer[:] = _hook_ints("dealer", dealer, (B,), 0, 3)
        if score is not None:
            st.score[:] = _hook_ints("score", score, (B, 2), 0, self.target - 1)
        stock = None
        if deck is not None:
            stock = _hook_ints("deck", deck, (B, 52), 0, 51).astype(np.int8)
            if not (np.sort(stock, axis=1) == np.arange(52)).all():
                raise ValueError("deck must be a permutation of the 52 card ids 0..51 (each id exactly once)")
        rows = np.arange(B, dtype=np.int64)
        st.stock[:] = self._shuffle(rng, rows, "deal") if stock is None else stock
        self.drivers.deal(st, rows, _rules.NEED_DEAL, self.params)
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

    @staticmethod
    def _shuffle(rng, idx: np.ndarray, kind: str = "deal") -> np.ndarray:
        """Stock orders ``int8[len(idx), 52]`` for games ``idx`` (``rng``: see :mod:`~cardzoo.envs.core.chance`)."""
        return chance.uniform(rng, idx, (52,), np.float32, kind).argsort(axis=1).astype(np.int8)

    def draw_chance(self, st: AllFoursState, rows: np.ndarray, code: int, rng) -> None:
        """Shuffle the stock of games ``rows`` (``int64[n]``) for chance ``code`` (``rules.NEED_DEAL``: a
        new hand, kind ``"deal"``; ``rules.NEED_REDEAL``: pack exhaustion, kind ``"redeal"``, §4).
        The compiled :func:`rules.deal_one` then deals it (§3)."""
        st.stock[rows] = self._shuffle(rng, rows, "deal" if code == _rules.NEED_DEAL else "redeal")

    # ------------------------------------------------------------------ legal actions (§4, §5)
    def legal_bitboard(self, st: AllFoursState) -> np.ndarray:
        """Legal actions as ``uint64[B]`` bitboards (bit ``a`` set = action ``a`` legal; 0 in finished games)."""
        return self.drivers.legal(st, self.params)

    def legal_actions(self, st: AllFoursState) -> np.ndarray:
        """Action mask ``bool[B, 56]`` of the player to act (§4, §5); all False in finished games."""
        return unpack_bits(self.legal_bitboard(st)[:, None], NUM_ACTIONS)[:, 0].view(bool)

    # ------------------------------------------------------------------ step
    def step(self, st: AllFoursState, actions, rng: np.random.Generator, active=None) -> None:
        """Apply ``actions`` (``int[B]``, legal for each live game) and advance to the next decision,
        compiled (:func:`rules.step_one`).

        ``active`` (``bool[B]``, optional): step only these games; the others are untouched
        (their rewards are zeroed). Rewards of the step land in ``st.rewards`` (zero unless a
        hand or match ended). Chance (a new hand's or a redeal's shuffle) is drawn here, in Python:
        first every redeal, then every new hand, rows ascending.

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
            for code in (_rules.NEED_REDEAL, _rules.NEED_DEAL):  # the numpy kernel's order of chance
                rows = np.flatnonzero(need == code)
                if rows.size:
                    self.draw_chance(st, rows, code, rng)
                    self.drivers.deal(st, rows, code, self.params)

    def check_actions(self, st: AllFoursState, actions) -> None:
        """Raise ``ValueError`` if any live game's action is illegal (names the action and the legal ones)."""
        self._check(st, np.asarray(actions, dtype=np.int64), self.legal_bitboard(st), ~st.done)

    def _check(self, st: AllFoursState, actions: np.ndarray, legal: np.ndarray, live: np.ndarray) -> None:
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        ok &= (legal >> np.clip(actions, 0, 63).astype(_U64)) & _U64(1) == 1
        bad = np.flatnonzero(~ok & live)
        if bad.size:
            b = int(bad[0])
            a = int(actions[b])
            name = self.action_name(a) if 0 <= a < NUM_ACTIONS else repr(a)
            legal_names = [self.action_name(x) for x in mask_to_cards(legal[b])]
            raise ValueError(f"illegal action {name} in game {b} for seat {st.current_player[b]}; legal: {legal_names}")

    # ------------------------------------------------------------------ search (determinization)
    def determinize(self, st: AllFoursState, seat, rng: np.random.Generator) -> AllFoursState:
        """A copy of ``st`` with the cards ``seat`` cannot see dealt again at random (for PIMC search).

        ``seat``: int or ``int[B]``. Kept: ``seat``'s hand, every card played (and by whom), the
        turned-up cards, trump, scores, captured cards. Redealt uniformly: the unseen cards (the
        other seats' hands, keeping each hand's size, and the undealt stock positions 25..51 that a
        run of the pack deals, §3-§4). Played cards stay in each seat's ``dealt`` set, so High and
        Low (§6) are scored on a consistent deal. Voids that earlier tricks showed (``voids``) are
        respected where the counts allow it. Stock positions that are never read again are
        set to -1, so the copy holds no hidden card of ``st``: the result depends only on what
        ``seat`` may know and on ``rng``.
        """
        out = st.copy()
        B = st.batch_size
        ar = np.arange(B)
        seat = np.broadcast_to(np.asarray(seat, dtype=np.intp), (B,))
        played_all = np.bitwise_or.reduce(st.played, axis=1)
        seen = st.hands[ar, seat] | played_all | st.kicked
        unseen = unpack_bits((ALL_CARDS & ~seen)[:, None], NUM_CARDS)[:, 0].astype(bool)  # [B, 52]
        keys = rng.random((B, NUM_CARDS), dtype=np.float32)
        keys[~unseen] = 2.0
        order = np.argsort(keys, axis=1, kind="stable")  # unseen cards first, in random order
        # deal the unseen cards one by one (in that random order) to the other seats or the stock,
        # each to a destination with room that has not shown a void in its suit, with probability
        # proportional to the room left (if none qualifies, to any destination with room)
        others = (seat[:, None] + np.arange(1, 4)) % 4  # [B, 3]
        room = np.zeros((B, 4), dtype=np.int64)
        room[:, :3] = popcount(st.hands[ar[:, None], others])
        n_unseen = unseen.sum(axis=1)
        room[:, 3] = n_unseen - room[:, :3].sum(axis=1)  # the undealt stock
        voids = np.zeros((B, 4), dtype=np.uint8)
        voids[:, :3] = st.voids[ar[:, None], others]
        new_hands = np.zeros((B, 4), dtype=_U64)
        rest = np.full((B, NUM_CARDS), -1, dtype=np.int8)  # stock cards, in order
        n_rest = np.zeros(B, dtype=np.int64)
        u = rng.random((NUM_CARDS, B))
        for jj in range(int(n_unseen.max(initial=0))):
            live = jj < n_unseen
            card = order[:, jj]
            ok = (room > 0) & ((voids >> (card // 13)[:, None].astype(np.uint8)) & 1 == 0)
            w = np.where(ok.any(axis=1)[:, None], ok, room > 0) * room
            cum = np.cumsum(w, axis=1)
            dest = (u[jj][:, None] * cum[:, 3:4] >= cum).sum(axis=1)
            dest = np.minimum(dest, 3)
            rows = np.flatnonzero(live)
            d = dest[rows]
            room[rows, d] -= 1
            hand_rows = rows[d < 3]
            new_hands[hand_rows, d[d < 3]] |= bit(card[hand_rows])
            stock_rows = rows[d == 3]
            rest[stock_rows, n_rest[stock_rows]] = card[stock_rows]
            n_rest[stock_rows] += 1
        for k in range(3):
            other = others[:, k]
            out.hands[ar, other] = new_hands[:, k]
            out.dealt[ar, other] = new_hands[:, k] | st.played[ar, other]
        fill = rest[:, : NUM_CARDS - 25]
        ok = n_rest >= NUM_CARDS - 25  # a stand/beg or give-one/run decision: the pack may be run
        out.stock[:, :FIRST_KICK] = -1  # dealt positions are never read again
        out.stock[ok, 25:] = fill[ok]
        out.stock[~ok, 25:] = -1  # trick play: nothing more is dealt this hand
        return out

    def single_game(self, st: AllFoursState) -> CompiledSingleGame:
        """The B = 1 fast path used by the AEC env: the same compiled rules, one compiled call per step
        (:class:`cardzoo.envs.core.compiled.CompiledSingleGame`)."""
        return CompiledSingleGame(self, st)

    # ------------------------------------------------------------------ observations (§7)
    def observe(self, st: AllFoursState, seat) -> np.ndarray:
        """Observation ``uint8[B, D]`` of ``seat`` (int or ``int[B]``, each 0..3; ``ValueError`` otherwise);
        layout: :meth:`observation_layout`. Written by the compiled :func:`rules.observe_one`."""
        B = st.batch_size
        try:
            seats = np.broadcast_to(np.asarray(seat), (B,))
        except ValueError:
            raise ValueError(f"seat must be an int or int[{B}], got shape {np.shape(seat)}") from None
        if seats.dtype.kind not in "iu" or (B and (seats.min() < 0 or seats.max() >= NUM_PLAYERS)):
            raise ValueError(f"seat {seat!r} is not valid; seats are ints 0..{NUM_PLAYERS - 1}")
        return self.drivers.observe(st, seats.astype(np.int64), self.params, self._obs_layout.size)

    def global_state(self, st: AllFoursState) -> np.ndarray:
        """Perfect-information vector ``uint8[B, S]`` (all hands and the stock) for centralised critics."""
        out = np.empty((st.batch_size, self._state_layout.size), dtype=np.uint8)
        _rules.global_batch(self.drivers.arrays(st), self.params, out)
        return out

    # ------------------------------------------------------------------ views
    def hands(self, st: AllFoursState, b: int = 0) -> list[list[int]]:
        """Card ids each seat holds in game ``b`` (private to that seat)."""
        return [mask_to_cards(st.hands[b, s]) for s in range(4)]

    def known_cards(self, st: AllFoursState, b: int = 0) -> list[list[int]]:
        """All Fours never exposes a held card (a kicked card is not held): empty lists."""
        return [[] for _ in range(4)]

    def render(self, st: AllFoursState, b: int = 0, view=None) -> str:
        """Text table of game ``b``: ``view`` None = public, a seat = that seat's view, ``"all"`` = every hand."""
        return _render.render(self, st, b, view)

    def table_view(self, st: AllFoursState, b: int, seat: int) -> dict:
        """What ``seat`` sees in game ``b`` as JSON-able data (contract: :meth:`Kernel.table_view`;
        details: :func:`cardzoo.envs.all_fours.render.table_view`)."""
        return _render.table_view(self, st, b, self.check_seat(seat))

    def info(self, st: AllFoursState, b: int = 0) -> dict:
        """Public facts: phase, dealer, trump, match score, and the last hand's items and reason for truncation."""
        out = {
            "phase": PHASE_NAMES[int(st.phase[b])],
            "dealer": int(st.dealer[b]),
            "trump": FRENCH52.suit_names[int(st.trump[b])],
            "hand_points": st.points[b].tolist(),
            "score": st.score[b].tolist(),
        }
        if st.truncated[b]:
            out["truncation"] = (
                f"max_redeals={self.options['max_redeals']} reached"
                if st.redeals[b] >= self.options["max_redeals"]
                else f"max_hands={self.options['max_hands']} reached"
            )
        return out

    def hand_size_counts(self, st: AllFoursState) -> np.ndarray:
        """Cards held per seat, ``uint8[B, 4]``."""
        return popcount(st.hands)

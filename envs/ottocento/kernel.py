"""Ottocento (Bolognese Tarocchino, the Cardavia table rules) as a batched kernel.

Implements ``envs/ottocento/RULES.md`` (sections cited as §n): the deal of 15 cards each and
17 to the dealer (§3), the dealer's two discards (§3), declare-all-or-pass before each
player's first card (§4), 15 tricks with follow suit / else trump / else anything, the Matto
and the Moors tie (§5), and the end-of-deal scoring in the order of §6
(:func:`cardzoo.envs.ottocento.scoring.score_deal`), per deal or per match (§8 ``match_target``).

State is an :class:`OttocentoState` of numpy arrays with a leading batch axis ``B``; card
sets are ``uint64`` bitboards over the 62 ids of :data:`cardzoo.envs.core.cards.TAROCCO62`. The
step path has no Python loop over the batch: games are grouped by phase and each group is
advanced with array operations.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.cards import TAROCCO62, bit, mask_to_cards, popcount, unpack_bits
from ..core import chance
from ..core.kernel import BatchState, Kernel, Layout, Option, bool_option, int_option
from . import observation as _obs
from . import render as _render
from .combos import combo_breakdown
from .constants import (
    BASE_KEY,
    CARD_SUIT,
    DECLARE,
    DECLARING,
    DISCARD,
    FORBIDDEN_DISCARDS_BB,
    MAT,
    MAT_BIT,
    MOOR_KEY,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    OVER,
    PASS,
    PHASE_ACTIONS,
    PHASE_NAMES,
    PLAY,
    SUIT_BB,
    TRUMP_SUIT,
)
from .scoring import score_deal

_U64 = np.uint64
_ZERO = _U64(0)
_DECISION_BITS = _U64((1 << DECLARE) | (1 << PASS))


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
        self.positions = deal_positions(int(o["deal_packets"]))
        self.last_played_wins = o["moors_tie"] == "last_played"
        self.strict_skip = bool(o["natural_skip_counts_as_gap"])
        self._obs_layout = _obs.observation_layout()
        self._state_layout = _obs.state_layout()

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
            trick_card=np.full((B, 4), -1, dtype=np.int8),
            led=np.full(B, -1, dtype=np.int8),
            trick_winner=np.full(B, -1, dtype=np.int8),
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
            matto_winner=np.full(B, -1, dtype=np.int8),
            last_winner=np.full(B, -1, dtype=np.int8),
            final_piles=z(_U64, 2),
            res_cards=z(np.int32, 2),
            res_captured=z(np.int32, 2),
            res_declared=z(np.int32, 2),
            res_last=z(np.int32, 2),
            res_total=z(np.int32, 2),
            gift=np.full(B, -1, dtype=np.int8),
            matto_fate=z(np.int8),
            discards_to=np.full(B, -1, dtype=np.int8),
            score=z(np.int32, 2),
            winner=np.full(B, -1, dtype=np.int8),
            deals_played=z(np.int16),
            voids=z(np.uint8, 4),
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
        stock = None
        if deck is not None:
            stock = _hook_ints("deck", deck, (B, NUM_CARDS), 0, NUM_CARDS - 1)
            if not (np.sort(stock, axis=1) == np.arange(NUM_CARDS)).all():
                raise ValueError("deck must be a permutation of the 62 card ids 0..61 (each id exactly once)")
        self._new_deal(st, np.arange(B), rng, stock=stock)
        return st

    def _new_deal(self, st: OttocentoState, idx: np.ndarray, rng, stock=None) -> None:
        """Shuffle (or use ``stock``) and deal games ``idx``: 15 each, 17 to the dealer (§3)."""
        n = idx.size
        if n == 0:
            return
        if stock is None:
            stock = chance.uniform(rng, idx, (NUM_CARDS,), np.float32, "deal").argsort(axis=1)
        stock = np.asarray(stock, dtype=np.int64)
        for name in ("hands", "dealt", "played", "piles", "shown", "decl_cards"):
            getattr(st, name)[idx] = 0
        st.discards[idx] = 0
        st.voids[idx] = 0
        st.trick[idx] = 0
        st.trick_card[idx] = -1
        st.led[idx] = -1
        st.trick_winner[idx] = -1
        st.trick_best[idx] = 0
        st.n_in_trick[idx] = 0
        st.tricks_done[idx] = 0
        st.n_discarded[idx] = 0
        st.tricks_won[idx] = 0
        st.decided[idx] = False
        st.declared[idx] = False
        st.decl_value[idx] = 0
        st.decl_points[idx] = 0
        st.matto_winner[idx] = -1
        st.last_winner[idx] = -1
        pos = self.positions
        valid = pos >= 0
        cards = stock[:, np.where(valid, pos, 0)]  # [n, 4, 17]
        bb = np.bitwise_or.reduce(np.where(valid, bit(cards), _ZERO), axis=2)  # [n, 4] by k from dealer+1
        seats = (st.dealer[idx, None].astype(np.intp) + 1 + np.arange(4)) % 4
        rows = idx[:, None]
        st.hands[rows, seats] = bb
        st.dealt[rows, seats] = bb
        st.matto_owner[idx] = ((st.hands[idx] & MAT_BIT) != 0).argmax(axis=1)
        st.phase[idx] = DISCARD
        st.current_player[idx] = st.dealer[idx]
        st.leader[idx] = (st.dealer[idx] + 1) % 4

    # ------------------------------------------------------------------ legal actions (§3, §4, §5)
    def legal_bitboard(self, st: OttocentoState) -> np.ndarray:
        """Legal actions as ``uint64[B]`` bitboards (bit ``a`` set = action ``a`` legal)."""
        B = st.batch_size
        p = st.current_player.astype(np.intp)
        hand = st.hands[np.arange(B), p]
        led = st.led.astype(np.intp)
        follow = hand & SUIT_BB[np.maximum(led, 0)]
        trumps = hand & SUIT_BB[TRUMP_SUIT]
        matto = hand & MAT_BIT
        # §5: suit led if held (or the Matto), else a trump (or the Matto), else anything
        legal = np.where(led < 0, hand, np.where(follow != _ZERO, follow | matto, np.where(trumps != _ZERO, trumps | matto, hand)))
        phase = st.phase
        legal = np.where(phase == PLAY, legal, _ZERO)
        legal |= np.where(phase == DISCARD, hand & ~FORBIDDEN_DISCARDS_BB, _ZERO)
        legal |= np.where(phase == DECLARING, _DECISION_BITS, _ZERO)
        return np.where(st.done, _ZERO, legal)

    def determinize(self, st: OttocentoState, seat, rng: np.random.Generator) -> OttocentoState:
        """A copy of ``st`` with the cards ``seat`` cannot see dealt again uniformly among the deals
        consistent with what it has seen (for PIMC search; :mod:`cardzoo.envs.ottocento.determinize`)."""
        from .determinize import determinize

        return determinize(self, st, seat, rng)

    def legal_actions(self, st: OttocentoState) -> np.ndarray:
        """Action mask ``bool[B, 64]`` of the player to act; all False in finished games."""
        return unpack_bits(self.legal_bitboard(st)[:, None], NUM_ACTIONS)[:, 0].view(bool)

    def check_actions(self, st: OttocentoState, actions) -> None:
        """Raise ``ValueError`` if any live game's action is illegal (names the action and the legal ones)."""
        actions = np.asarray(actions, dtype=np.int64)
        legal = self.legal_bitboard(st)
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        ok &= (legal >> np.clip(actions, 0, 63).astype(_U64)) & _U64(1) == 1
        bad = np.flatnonzero(~ok & ~st.done)
        if bad.size:
            b = int(bad[0])
            a = int(actions[b])
            name = self.action_name(a) if 0 <= a < NUM_ACTIONS else repr(a)
            legal_names = [self.action_name(x) for x in mask_to_cards(legal[b])]
            raise ValueError(f"illegal action {name} in game {b} for seat {st.current_player[b]}; legal: {legal_names}")

    # ------------------------------------------------------------------ step
    def step(self, st: OttocentoState, actions, rng: np.random.Generator, active=None) -> None:
        """Apply ``actions`` (``int[B]``, legal for each live game; unchecked here, see
        :meth:`check_actions`) and advance to the next decision. ``active`` (``bool[B]``):
        step only those games. Rewards of the step land in ``st.rewards`` (``float32[B, 4]``)."""
        actions = np.asarray(actions).astype(np.int64)
        st.rewards[:] = 0
        phase = st.phase.copy()
        if active is None and (phase == PLAY).all():
            self._play(st, np.arange(st.batch_size), actions, rng)
            return
        live = ~st.done if active is None else active & ~st.done
        for ph, fn in ((DISCARD, self._discard), (DECLARING, self._decide), (PLAY, self._play)):
            idx = np.flatnonzero((phase == ph) & live)
            if idx.size:
                fn(st, idx, actions[idx], rng)

    def _discard(self, st, idx, card, rng) -> None:
        """§3: the dealer puts one card face down; after the second, play (and declarations) begin."""
        p = st.dealer[idx].astype(np.intp)
        cb = bit(card)
        st.hands[idx, p] ^= cb
        st.discards[idx] |= cb
        st.n_discarded[idx] += 1
        done = idx[st.n_discarded[idx] == 2]
        if done.size == 0:
            return
        st.phase[done] = PLAY
        st.current_player[done] = st.leader[done]
        if self.options["declaration_mode"] != "none":
            b = combo_breakdown(st.hands[done], self.strict_skip)
            st.decl_value[done] = b.total
            st.decl_cards[done] = b.shown
        self._enter_turn(st, done)

    def _enter_turn(self, st, idx) -> None:
        """§4.1: before his first card a player with a scoring hand declares or passes."""
        p = st.current_player[idx].astype(np.intp)
        first = (st.tricks_done[idx] == 0) & ~st.decided[idx, p]
        if not first.any():
            return
        i, p = idx[first], p[first]
        mode = self.options["declaration_mode"]
        value = st.decl_value[i, p]
        if mode == "all_or_pass":
            ask = value > 0
            st.phase[i[ask]] = DECLARING
            st.decided[i[~ask], p[~ask]] = True
        else:
            st.decided[i, p] = True
            if mode == "auto_all":
                self._declare(st, i[value > 0], p[value > 0])

    def _declare(self, st, i, p) -> None:
        st.declared[i, p] = True
        st.shown[i, p] = st.decl_cards[i, p]
        st.decl_points[i, p] = st.decl_value[i, p]
        if self.options["declarations_win_immediately"] and i.size:
            team = p % 2
            decl = st.decl_points[i][:, [0, 1]] + st.decl_points[i][:, [2, 3]]
            reached = st.score[i, team] + 2 * decl[np.arange(i.size), team] >= self.target_half
            w = i[reached]
            if w.size:
                st.score[w] += 2 * decl[reached]
                self._finish(st, w, team[reached], diff_half=2 * (decl[reached, 0] - decl[reached, 1]))

    def _decide(self, st, idx, a, rng) -> None:
        """§4: DECLARE shows the scoring cards and banks the points; PASS does neither."""
        p = st.current_player[idx].astype(np.intp)
        st.decided[idx, p] = True
        dec = a == DECLARE
        self._declare(st, idx[dec], p[dec])
        live = idx[~st.done[idx]]
        st.phase[live] = PLAY

    def _play(self, st, idx, card, rng) -> None:
        """§5: play ``card`` for the seat to act; resolve full tricks and finished deals."""
        p = st.current_player[idx].astype(np.intp)
        cb = bit(card)
        st.hands[idx, p] ^= cb
        st.played[idx, p] |= cb
        st.trick[idx] |= cb
        st.trick_card[idx, p] = card
        suit = CARD_SUIT[card]
        n = st.n_in_trick[idx]
        led = st.led[idx]
        # §5 shown voids: a card off the suit led (not the Matto) shows no card of it; not a trump either shows no trump
        off = (led >= 0) & (card != MAT) & (suit != led)
        if off.any():
            no_trump = off & (suit != TRUMP_SUIT)
            st.voids[idx, p] |= np.where(off, np.left_shift(1, np.maximum(led, 0)), 0).astype(np.uint8)
            st.voids[idx, p] |= np.where(no_trump, 1 << TRUMP_SUIT, 0).astype(np.uint8)
        led = np.where((led < 0) & (card != MAT), suit, led)  # the Matto led: the next card sets the suit
        st.led[idx] = led
        key = BASE_KEY[card] + np.where((suit == led) & (suit >= 0) & (suit != TRUMP_SUIT), 20, 0)
        best = st.trick_best[idx]
        tie = (key == MOOR_KEY) & (best == MOOR_KEY) if self.last_played_wins else False
        better = (n == 0) | (key > best) | tie
        st.trick_best[idx] = np.where(better, key, best)
        win = np.where(better, p, st.trick_winner[idx])
        st.trick_winner[idx] = win
        n = n + 1
        st.n_in_trick[idx] = n
        full = n == 4
        st.current_player[idx] = np.where(full, win, (p + 1) % 4)
        if full.any():
            self._resolve(st, idx[full], win[full], rng)
        open_ = idx[~full]
        if open_.size:
            self._enter_turn(st, open_[st.tricks_done[open_] == 0])

    def _resolve(self, st, t, win, rng) -> None:
        team = win % 2
        st.piles[t, team] |= st.trick[t]
        has_matto = (st.trick[t] & MAT_BIT) != 0
        st.matto_winner[t[has_matto]] = win[has_matto]
        st.tricks_won[t, team] += 1
        st.leader[t] = win
        st.trick[t] = 0
        st.trick_card[t] = -1
        st.led[t] = -1
        st.trick_winner[t] = -1
        st.n_in_trick[t] = 0
        st.tricks_done[t] += 1
        end = st.tricks_done[t] == 15
        st.last_winner[t[end]] = win[end]
        if end.any():
            self._score(st, t[end], rng)

    # ------------------------------------------------------------------ scoring (§6)
    def _score(self, st, idx, rng) -> None:
        o = self.options
        decl = st.decl_points[idx].astype(np.int32)
        res = score_deal(
            st.piles[idx],
            st.discards[idx],
            st.dealer[idx],
            st.tricks_won[idx],
            st.matto_owner[idx],
            st.matto_winner[idx],
            st.last_winner[idx],
            decl[:, [0, 1]] + decl[:, [2, 3]],
            discards_follow_tricks=o["discards_follow_tricks"],
            discards_in_captured_combos=o["discards_in_captured_combos"],
            matto_rule=o["matto_rule"],
            matto_fallback=o["matto_fallback"],
            matto_gift=o["matto_gift"],
            last_trick_bonus=o["last_trick_bonus"],
            natural_skip_counts_as_gap=self.strict_skip,
        )
        st.final_piles[idx] = res.piles
        st.res_cards[idx] = res.cards
        st.res_captured[idx] = res.captured
        st.res_declared[idx] = res.declared
        st.res_last[idx] = res.last
        st.res_total[idx] = res.total
        st.gift[idx] = res.gift
        st.matto_fate[idx] = res.matto
        st.discards_to[idx] = res.discards_to
        st.deals_played[idx] += 1
        diff = res.total[:, 0] - res.total[:, 1]
        st.phase[idx] = OVER
        if not self.match:
            self._finish(st, idx, np.where(diff > 0, 0, np.where(diff < 0, 1, -1)), diff_half=diff)
            return
        st.score[idx] += res.total
        s = st.score[idx]
        reached = s.max(axis=1) >= self.target_half
        winner = np.where(s[:, 0] > s[:, 1], 0, np.where(s[:, 1] > s[:, 0], 1, -1))
        over = reached & (winner >= 0)
        self._finish(st, idx[over], winner[over], diff_half=diff[over])
        go = ~over
        nxt = idx[go]
        if self.options["reward"] == "point_diff":
            self._pay(st, nxt, diff[go].astype(np.float32) / 200.0)
        cap = st.deals_played[nxt] >= self.options["max_deals"]
        self._truncate(st, nxt[cap])
        nxt = nxt[~cap]
        st.dealer[nxt] = (st.dealer[nxt] + 1) % 4
        self._new_deal(st, nxt, rng)

    def _pay(self, st, idx, r) -> None:
        st.rewards[idx, 0] += r
        st.rewards[idx, 2] += r
        st.rewards[idx, 1] -= r
        st.rewards[idx, 3] -= r

    def _finish(self, st, idx, winner, diff_half) -> None:
        """End the episode of games ``idx``: ``winner`` team (-1 draw), rewards per §7 / §8 ``reward``."""
        if idx.size == 0:
            return
        st.done[idx] = True
        st.phase[idx] = OVER
        st.winner[idx] = winner
        if self.options["reward"] == "win_loss":
            r = np.where(winner == 0, 1.0, np.where(winner == 1, -1.0, 0.0)).astype(np.float32)
        else:
            r = np.asarray(diff_half, dtype=np.float32) / 200.0
        self._pay(st, idx, r)

    def _truncate(self, st, idx) -> None:
        if idx.size:
            st.done[idx] = True
            st.truncated[idx] = True
            st.phase[idx] = OVER

    def single_game(self, st: OttocentoState):
        """The B = 1 fast path (:class:`cardzoo.envs.ottocento.single.SingleGame`) used by the AEC env."""
        from .single import SingleGame

        return SingleGame(self, st)

    def action_is_public(self, st: OttocentoState, b: int, action: int) -> bool:
        """The dealer's discards are face down (§3.5): hidden from the other seats; every other action is public."""
        return int(st.phase[b]) != DISCARD

    # ------------------------------------------------------------------ observations (§7)
    def observe(self, st: OttocentoState, seat) -> np.ndarray:
        """Observation ``uint8[B, D]`` of ``seat`` (int or ``int[B]``); layout :attr:`obs_layout` (§7)."""
        return _obs.observe(self, st, seat)

    def global_state(self, st: OttocentoState) -> np.ndarray:
        """Perfect-information vector ``uint8[B, S]`` (every hand and the discards), layout :attr:`state_layout`."""
        return _obs.global_state(self, st)

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

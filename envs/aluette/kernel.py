"""Aluette (La Vache) rules as a batched kernel.

Implements ``envs/aluette/RULES.md`` (sections cited as §n): the optional partnership draw
and the deal in threes (§3), the chant vote, chant and discards (§4.1, §4.2), the signal
channel (§4.3, §4.5), the optional surrender (§4.4), trick play where any card is legal and a
tie for the highest power spoils the trick (§5), and scoring per player with "first to reach
the most tricks" and mordienne (§6), per deal or per match.

State is an :class:`AluetteState` of numpy arrays with a leading batch axis ``B``; card sets
are ``uint64`` bitboards over the 48 card ids of :data:`cardzoo.envs.core.cards.SPANISH48`
(``12*suit + rank``). The step path has no Python loop over the batch: games are grouped by
the kind of action they take and each group advances with array operations.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.cards import SPANISH48, bit, mask_to_cards, popcount, unpack_bits
from ..core import chance
from ..core.kernel import BatchState, Kernel, Layout, Option, bool_option, int_option
from . import observation as _obs
from . import render as _render
from .constants import (
    ACCEPT_CHANT,
    ANSWER,
    DEAL_POS,
    DISCARD,
    END_SIGNALS,
    HAND,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    NUM_SIGNALS,
    NUM_TRICKS,
    OFFER,
    OFFER_SURRENDER,
    OVER,
    PHASE_ACTIONS,
    PHASE_NAMES,
    PLAY,
    POWER,
    SIGNAL,
    SIGNAL0,
    SIGNAL_BB,
    TALON_POS,
    VOTE,
    ACCEPT_SURRENDER,
)

_U64 = np.uint64
_ONE = _U64(1)
SPOILED = 4  # value of ``results`` for a spoiled trick
#: §3 partnership draw: the four drawing cards 3Co, 3Cu, 2Co, 2Cu and the seat their holder takes
DRAW_CARDS = (2, 14, 1, 13)
DRAW_SEAT = (2, 0, 3, 1)
_DRAW_INDEX = np.full(NUM_CARDS, -1, dtype=np.int8)
for _k, _c in enumerate(DRAW_CARDS):
    _DRAW_INDEX[_c] = _k
_KEY_CARDS = [int(b).bit_length() - 1 for b in SIGNAL_BB[:8]]
_TALON_L = TALON_POS[0::2]  # t1, t3, ..., t11 -> dealer's left
_TALON_2 = TALON_POS[1::2]  # t2, t4, ..., t12 -> dealer (or partner)


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


def _bits_of(cards: np.ndarray) -> np.ndarray:
    """``int8[n, k]`` card ids -> ``uint64[n]`` bitboard."""
    return np.bitwise_or.reduce(bit(cards), axis=1)


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
        """Shuffle (or use ``stock``) and deal 9 cards each in threes, L P R D (§3); start the vote."""
        n = idx.size
        if n == 0:
            return
        st.stock[idx] = self._shuffle(rng, idx) if stock is None else stock
        for name in ("played", "received", "discarded", "sent", "heard", "won", "res_word"):
            getattr(st, name)[idx] = 0
        st.votes[idx] = -1
        st.chanted[idx] = False
        st.trick_card[idx] = -1
        st.trick[idx] = 0
        st.n_in_trick[idx] = 0
        st.top[idx] = 0
        st.top_count[idx] = 0
        st.top_seat[idx] = 0
        st.tricks_done[idx] = 0
        st.results[idx] = -1
        st.offerer[idx] = -1
        st.refused[idx] = False
        st.accepted[idx] = False
        stock = st.stock[idx]
        seats = (st.dealer[idx, None].astype(np.intp) + 1 + np.arange(4)) % 4  # L P R D
        rows = idx[:, None]
        for k in range(4):
            st.hands[idx, seats[:, k]] = _bits_of(stock[:, DEAL_POS[k]])
        st.dealt[rows, seats] = st.hands[rows, seats]
        st.talon[idx] = _bits_of(stock[:, TALON_POS])
        left = seats[:, 0]
        if self.options["chant"]:
            st.phase[idx] = VOTE
            st.current_player[idx] = left
        else:
            self._after_chant(st, idx)

    # ------------------------------------------------------------------ phase transitions (§4)
    def _after_chant(self, st, idx) -> None:
        if self.signals_on:
            st.phase[idx] = SIGNAL
            st.current_player[idx] = (st.dealer[idx] + 1) % 4
        else:
            self._after_signals(st, idx)

    def _after_signals(self, st, idx) -> None:
        if self.options["surrender"]:
            st.phase[idx] = OFFER
            st.current_player[idx] = (st.dealer[idx] + 1) % 4
        else:
            self._start_play(st, idx)

    def _start_play(self, st, idx) -> None:
        left = (st.dealer[idx] + 1) % 4
        st.phase[idx] = PLAY
        st.leader[idx] = left
        st.current_player[idx] = left

    # ------------------------------------------------------------------ legal actions
    def signal_bits(self, st: AluetteState, p: np.ndarray | None = None) -> np.ndarray:
        """``int64[B]``: signals seat ``p`` (default: the seat to act) may send now, ignoring the phase
        (bit ``s`` = signal ``s``): not yet sent this deal and, with ``signals="truthful"``, true
        of the hand (§4.5)."""
        B = st.batch_size
        if p is None:
            p = st.current_player.astype(np.intp)
        ar = np.arange(B)
        if self.options["signals"] == "free":
            avail = np.full(B, (1 << NUM_SIGNALS) - 1, dtype=np.int64)
        else:
            hand = st.hands[ar, p]
            avail = np.zeros(B, dtype=_U64)
            for s, c in enumerate(_KEY_CARDS):  # signals 0..7: the one key card
                avail |= ((hand >> _U64(c)) & _ONE) << _U64(s)
            avail |= ((hand & SIGNAL_BB[8]) != 0).astype(_U64) << _U64(8)
            avail |= ((hand & SIGNAL_BB[9]) == 0).astype(_U64) << _U64(9)
            avail = avail.astype(np.int64)
        return avail & ~st.sent[ar, p].astype(np.int64)

    def legal_words(self, st: AluetteState) -> np.ndarray:
        """Legal actions as ``uint64[B, 2]``: word 0 bit ``a`` = action ``a`` for ``a < 64``, word 1
        bit 0 = action 64 (all zero in finished games)."""
        B = st.batch_size
        ar = np.arange(B)
        ph = st.phase
        hand = st.hands[ar, st.current_player.astype(np.intp)]
        cards = np.where((ph == PLAY) | (ph == DISCARD), hand, _U64(0))
        extra = np.zeros(B, dtype=np.int64)  # bit j = action 48 + j
        extra[ph == VOTE] = 0b11
        if self.signals_on:
            sig_phase = (ph == SIGNAL) | ((ph == PLAY) & self.turn_signals)
            if sig_phase.any():
                sig = self.signal_bits(st)
                extra = np.where(sig_phase, extra | (sig << 2), extra)
                extra[ph == SIGNAL] |= 1 << (END_SIGNALS - NUM_CARDS)
        if self.options["surrender"]:
            extra[ph == OFFER] = 0b11 << (OFFER_SURRENDER - NUM_CARDS)
            extra[ph == ANSWER] = 0b11 << (ACCEPT_SURRENDER - NUM_CARDS)
        out = np.empty((B, 2), dtype=_U64)
        ex = extra.astype(_U64)
        out[:, 0] = cards | (ex << _U64(NUM_CARDS))
        out[:, 1] = ex >> _U64(64 - NUM_CARDS)
        out[st.done] = 0
        return out

    def determinize(self, st: AluetteState, seat, rng: np.random.Generator) -> AluetteState:
        """A copy of ``st`` with the cards ``seat`` cannot see dealt again uniformly among the deals
        consistent with what it has seen, signals heard included (for PIMC search;
        :mod:`cardzoo.envs.aluette.determinize`)."""
        from .determinize import determinize

        return determinize(self, st, seat, rng)

    def legal_actions(self, st: AluetteState) -> np.ndarray:
        """Action mask ``bool[B, 65]`` of the seat to act (§4, §5); all False in finished games."""
        return unpack_bits(self.legal_words(st), 64).reshape(st.batch_size, 128)[:, :NUM_ACTIONS].view(bool)

    def check_actions(self, st: AluetteState, actions) -> None:
        """Raise ``ValueError`` if any live game's action is illegal (names the action and the legal ones)."""
        actions = np.asarray(actions, dtype=np.int64)
        legal = self.legal_actions(st)
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        ok &= legal[np.arange(st.batch_size), np.clip(actions, 0, NUM_ACTIONS - 1)]
        bad = np.flatnonzero(~ok & ~st.done)
        if bad.size:
            b = int(bad[0])
            a = int(actions[b])
            name = self.action_name(a) if 0 <= a < NUM_ACTIONS else repr(a)
            legal_names = [self.action_name(x) for x in np.flatnonzero(legal[b])]
            raise ValueError(f"illegal action {name} in game {b} for seat {st.current_player[b]}; legal: {legal_names}")

    # ------------------------------------------------------------------ step
    def step(self, st: AluetteState, actions, rng: np.random.Generator, active=None) -> None:
        """Apply ``actions`` (``int[B]``, legal for each live game; unchecked here: the AEC env and
        :meth:`check_actions` validate) and advance each game to its next decision.

        ``active`` (``bool[B]``, optional): step only these games. Rewards of the step land in
        ``st.rewards`` (``float32[B, 4]``; zero unless a deal or match ended).
        """
        a = np.asarray(actions).astype(np.int64)
        st.rewards[:] = 0
        phase = st.phase
        if active is None and (phase == PLAY).all() and (a < NUM_CARDS).all():
            self._play(st, np.arange(st.batch_size), a, rng)
            return
        live = ~st.done if active is None else active & ~st.done
        phase = phase.copy()
        card = a < NUM_CARDS
        groups = (
            (card & (phase == PLAY), self._play),
            (card & (phase == DISCARD), self._discard),
            ((a == ACCEPT_CHANT) | (a == ACCEPT_CHANT + 1), self._vote),
            ((a >= SIGNAL0) & (a < END_SIGNALS), self._signal),
            (a == END_SIGNALS, self._end_signals),
            ((a == OFFER_SURRENDER) | (a == OFFER_SURRENDER + 1), self._offer),
            ((a == ACCEPT_SURRENDER) | (a == ACCEPT_SURRENDER + 1), self._answer),
        )
        for sel, fn in groups:
            idx = np.flatnonzero(sel & live)
            if idx.size:
                fn(st, idx, a[idx], rng)

    def _vote(self, st, idx, a, rng) -> None:
        """§4.1: a refusal ends the vote (no chant); the dealer's acceptance (the fourth) starts the chant."""
        p = st.current_player[idx].astype(np.intp)
        acc = a == ACCEPT_CHANT
        st.votes[idx, p] = acc
        last = p == st.dealer[idx]
        refused = idx[~acc]
        if refused.size:
            self._after_chant(st, refused)
        chant = idx[acc & last]
        if chant.size:
            self._chant(st, chant)
        more = acc & ~last
        st.current_player[idx[more]] = (p[more] + 1) % 4

    def _chant(self, st, idx) -> None:
        """§4.2: t1, t3, ... to the dealer's left, t2, t4, ... to the dealer (or his partner); L discards first."""
        left = (st.dealer[idx] + 1).astype(np.intp) % 4
        second = (st.dealer[idx] + self.second_offset).astype(np.intp) % 4
        stock = st.stock[idx]
        to_l = _bits_of(stock[:, _TALON_L])
        to_2 = _bits_of(stock[:, _TALON_2])
        st.hands[idx, left] |= to_l
        st.received[idx, left] = to_l
        st.hands[idx, second] |= to_2
        st.received[idx, second] = to_2
        st.chanted[idx] = True
        st.phase[idx] = DISCARD
        st.current_player[idx] = left

    def _discard(self, st, idx, card, rng) -> None:
        """§4.2: one card out of play per action until the recipient holds 9 again."""
        p = st.current_player[idx].astype(np.intp)
        cb = bit(card)
        st.hands[idx, p] ^= cb
        st.discarded[idx, p] |= cb
        full = popcount(st.hands[idx, p]) == HAND
        left = p == (st.dealer[idx] + 1) % 4
        nxt = full & left
        st.current_player[idx[nxt]] = (st.dealer[idx[nxt]] + self.second_offset) % 4
        self._after_chant(st, idx[full & ~left])

    def _signal(self, st, idx, a, rng) -> None:
        """§4.5: record a signal; the partner hears it (everyone with ``"public"``; each opponent with
        probability ``signal_intercept``); the sender keeps the turn."""
        p = st.current_player[idx].astype(np.intp)
        s = a - SIGNAL0
        st.sent[idx, p] |= (1 << s).astype(np.int16)
        b = _ONE << (10 * p + s).astype(_U64)
        st.heard[idx, p] |= b
        st.heard[idx, (p + 2) % 4] |= b
        if self.options["signal_visibility"] == "public":
            st.heard[idx, (p + 1) % 4] |= b
            st.heard[idx, (p + 3) % 4] |= b
        elif self.intercept > 0:
            catch = chance.uniform(rng, idx, (2,), np.float64, "play") < self.intercept
            st.heard[idx, (p + 1) % 4] |= np.where(catch[:, 0], b, _U64(0))
            st.heard[idx, (p + 3) % 4] |= np.where(catch[:, 1], b, _U64(0))

    def _end_signals(self, st, idx, a, rng) -> None:
        """§4.3: the round goes clockwise from L; the dealer's ``end_signals`` closes it."""
        p = st.current_player[idx]
        last = p == st.dealer[idx]
        st.current_player[idx] = (p + 1) % 4
        self._after_signals(st, idx[last])

    def _offer(self, st, idx, a, rng) -> None:
        """§4.4: an offer goes to the offerer's left-hand opponent; four ``no_offer`` start the play."""
        p = st.current_player[idx]
        offer = a == OFFER_SURRENDER
        o = idx[offer]
        st.offerer[o] = p[offer]
        st.phase[o] = ANSWER
        st.current_player[o] = (p[offer] + 1) % 4
        last = ~offer & (p == st.dealer[idx])
        st.current_player[idx[~offer & ~last]] = (p[~offer & ~last] + 1) % 4
        self._start_play(st, idx[last])

    def _answer(self, st, idx, a, rng) -> None:
        """§4.4: ``accept_surrender`` scores 1 for the accepting team and ends the deal; a refusal commits
        the refusing team to mordienne (§6)."""
        acc = a == ACCEPT_SURRENDER
        i = idx[acc]
        if i.size:
            st.accepted[i] = True
            team = (st.current_player[i] % 2).astype(np.int64)
            self._end_deal(st, i, team, np.ones(i.size, dtype=np.int16), np.full(i.size, -1, np.int8), np.zeros(i.size, bool), rng)
        r = idx[~acc]
        st.refused[r] = True
        self._start_play(st, r)

    def _play(self, st, idx, a, rng) -> None:
        """§5: play a card; a full trick goes to the single highest power, or is spoiled on a tie."""
        if not (a < NUM_CARDS).all():  # signals during a trick-play turn
            sig = a >= NUM_CARDS
            self._signal(st, idx[sig], a[sig], rng)
            idx, a = idx[~sig], a[~sig]
            if idx.size == 0:
                return
        p = st.current_player[idx].astype(np.intp)
        cb = bit(a)
        st.hands[idx, p] ^= cb
        st.played[idx, p] |= cb
        st.trick[idx] |= cb
        st.trick_card[idx, p] = a
        pw = POWER[a]
        n = st.n_in_trick[idx]
        first = n == 0
        top = st.top[idx]
        better = first | (pw > top)
        tie = ~better & (pw == top)
        st.top[idx] = np.where(better, pw, top)
        st.top_count[idx] = np.where(better, 1, st.top_count[idx] + tie)
        seat = np.where(better, p, st.top_seat[idx])
        st.top_seat[idx] = seat
        n = n + 1
        st.n_in_trick[idx] = n
        full = n == 4
        st.current_player[idx] = (p + 1) % 4
        if not full.any():
            return
        t = idx[full]
        spoiled = st.top_count[t] > 1
        w = seat[full]
        k = st.tricks_done[t].astype(np.intp)
        r = np.where(spoiled, SPOILED, w)
        st.results[t, k] = r
        st.res_word[t] |= _ONE << (5 * k + r).astype(_U64)
        st.won[t, w] += ~spoiled
        lead = np.where(spoiled, st.leader[t], w)
        st.leader[t] = lead
        st.current_player[t] = lead
        st.trick[t] = 0
        st.trick_card[t] = -1
        st.n_in_trick[t] = 0
        st.top_count[t] = 0
        st.top[t] = 0
        st.tricks_done[t] += 1
        end = k == NUM_TRICKS - 1
        if end.any():
            self._score_deal(st, t[end], rng)

    def _score_deal(self, st, idx, rng) -> None:
        """§6: the deal winner is the first player to reach the most tricks; mordienne doubles."""
        won = st.won[idx].astype(np.int64)
        res = st.results[idx].astype(np.int64)  # [n, 9]
        M = won.max(axis=1)
        reach = np.full(won.shape, 99, dtype=np.int64)
        for s in range(4):
            cum = np.cumsum(res == s, axis=1)
            first = np.argmax(cum == M[:, None], axis=1)
            reach[:, s] = np.where((won[:, s] == M) & (M > 0), first, 99)
        w = reach.argmin(axis=1)
        someone = M > 0
        tail = np.arange(NUM_TRICKS)[None, :] >= NUM_TRICKS - M[:, None]
        block = ((res == w[:, None]) | ~tail).all(axis=1) & (M <= NUM_TRICKS - 1) & someone
        mord = block & self.options["mordienne"]
        team = np.where(someone, w % 2, -1)
        pts = np.where(mord, 2, 1).astype(np.int16)
        ref = st.refused[idx]
        if ref.any():  # §6 after a refused surrender: 2 to the refusing team only if it makes mordienne
            committed = (st.offerer[idx] + 1) % 2
            keeps = someone & (team == committed) & mord
            team = np.where(ref, np.where(keeps, committed, 1 - committed), team)
            pts = np.where(ref, 2, pts).astype(np.int16)
        self._end_deal(st, idx, team, pts, np.where(someone, w, -1).astype(np.int8), mord, rng)

    def _end_deal(self, st, idx, team, pts, deal_winner, mord, rng) -> None:
        """Record the deal's points (``team`` -1 = nobody), then end the episode or deal again (§6)."""
        st.points[idx] = 0
        ok = team >= 0
        st.points[idx[ok], team[ok]] = pts[ok]
        st.score[idx] += st.points[idx]
        st.deal_winner[idx] = deal_winner
        st.mordienne[idx] = mord
        st.deals[idx] += 1
        if not self.match:
            self._finish(st, idx)
            return
        score = st.score[idx]
        if self.target is None:
            over = st.deals[idx] >= self.options["match_deals"]
        else:
            over = score.max(axis=1) >= self.target
        res = np.where(score[:, 0] > score[:, 1], 0, np.where(score[:, 1] > score[:, 0], 1, 2)).astype(np.int8)
        st.winner[idx[over]] = res[over]
        if self.options["reward"] == "score":
            self._deal_rewards(st, idx)
        self._finish(st, idx[over], deal_rewards=False)
        go = idx[~over]
        if self.target is not None:
            cap = st.deals[go] >= self.options["max_deals"]
            c = go[cap]
            st.done[c] = True
            st.truncated[c] = True
            st.phase[c] = OVER
            st.rewards[c] = 0
            go = go[~cap]
        st.dealer[go] = (st.dealer[go] + 1) % 4
        self._new_deal(st, go, rng)

    def _deal_rewards(self, st, idx) -> None:
        diff = (st.points[idx, 0] - st.points[idx, 1]).astype(np.float32)
        st.rewards[idx, 0] += diff
        st.rewards[idx, 2] += diff
        st.rewards[idx, 1] -= diff
        st.rewards[idx, 3] -= diff

    def _finish(self, st, idx, deal_rewards: bool = True) -> None:
        """End the episode of games ``idx`` and pay the rewards of §6 (score: per deal; win: at the end)."""
        st.done[idx] = True
        st.phase[idx] = OVER
        if self.options["reward"] == "win":
            if self.match:
                w = st.winner[idx]
                v = np.where(w == 0, 1.0, np.where(w == 1, -1.0, 0.0)).astype(np.float32)
            else:
                v = np.sign(st.points[idx, 0] - st.points[idx, 1]).astype(np.float32)
            st.rewards[idx, 0] += v
            st.rewards[idx, 2] += v
            st.rewards[idx, 1] -= v
            st.rewards[idx, 3] -= v
        elif deal_rewards:
            self._deal_rewards(st, idx)

    def single_game(self, st: AluetteState):
        """The B = 1 fast path (:class:`cardzoo.envs.aluette.single.SingleGame`) used by the AEC env."""
        from .single import SingleGame

        return SingleGame(self, st)

    # ------------------------------------------------------------------ observations (§7)
    def observe(self, st: AluetteState, seat) -> np.ndarray:
        """Observation ``uint8[B, D]`` of ``seat`` (int or ``int[B]``); layout: :attr:`obs_layout` (§7)."""
        return _obs.observe(self, st, seat)

    def global_state(self, st: AluetteState) -> np.ndarray:
        """Perfect-information vector ``uint8[B, S]`` (all hands, the talon, every signal sent)."""
        return _obs.global_state(self, st)

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

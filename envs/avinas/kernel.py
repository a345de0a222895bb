"""Avinas rules as a batched kernel.

Implements ``envs/avinas/RULES.md`` (sections cited as §n): the deal in packets of four with
the exposure of the 4th and 8th cards (§3), the sevens game with its knocks and the no-sevens
game with its calls, throw-ins, naming of trumps, honesty check and the declarer's stop (§4),
trick play with the trick-1 trump lead and the trick-2 face-down lead and its one-bit signal
(§5), scoring in rams and pips and the match to ``pip_limit`` pips (§6).

State is an :class:`AvinasState` of numpy arrays with a leading batch axis ``B``; card sets are
``uint64`` bitboards over the 32 card ids of :data:`cardzoo.envs.core.cards.FRENCH32` (``8*suit + rank``,
suits C D H S, ranks 7 8 9 10 J Q K A). Games are grouped by phase and each group is advanced
with array operations: no Python loop over the batch.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.cards import FRENCH32, bit, mask_to_cards, popcount, unpack_bits
from ..core import chance
from ..core.kernel import BatchState, Kernel, Layout, Option, bool_option, int_option
from . import observation as _obs
from . import render as _render
from .constants import (
    CALL1,
    CALLING,
    CONTINUE,
    DEAL_POS,
    DECLARE,
    DECLARING,
    FACEDOWN,
    GAME_NAMES,
    KEY_K,
    KEY_POS,
    KNOCK,
    KNOCKING,
    NO_KNOCK,
    NO_SEVENS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    OVER,
    PASS,
    PHASE_ACTIONS,
    PLAIN_BB,
    PLAIN_STRENGTH,
    PLAY,
    POINTS,
    SEVENS,
    SIG_NOT_VALUABLE,
    SIG_VALUABLE,
    SIGNAL,
    STOP,
    STOPPING,
    SUITS,
    TRUMP_BB,
    TRUMP_STRENGTH,
)

_U64 = np.uint64
_ZERO = _U64(0)
TRUMPS_LED = 4  # led "suit" code for a trump (or face-down) lead


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
        self._new_deal(st, np.arange(B), rng, stock)
        return st

    def _new_deal(self, st: AvinasState, idx: np.ndarray, rng, stock=None, kind: str = "deal") -> None:
        """Shuffle (or use ``stock``), deal 8 cards each in packets of 4, expose the key cards and
        start the sevens game's knocks or the no-sevens game's calls (§3, §4). ``kind``: the kind of
        chance (:mod:`~cardzoo.envs.core.chance`), ``"redeal"`` after a throw-in."""
        n = idx.size
        if n == 0:
            return
        if stock is None:
            stock = chance.uniform(rng, idx, (32,), np.float32, kind).argsort(axis=1).astype(np.int8)
        st.stock[idx] = stock
        d = st.dealer[idx].astype(np.intp)
        seats = (d[:, None] + 1 + np.arange(4)) % 4  # [n, 4]: seat of the k-th player from the dealer's left
        bb = np.bitwise_or.reduce(bit(stock[:, DEAL_POS]), axis=2)  # [n, 4] by k
        hands = np.zeros((n, 4), dtype=_U64)
        hands[np.arange(n)[:, None], seats] = bb
        st.hands[idx] = hands
        st.dealt[idx] = hands
        for name in ("played", "voids", "knocked", "points", "tricks_won", "lied", "stopped", "trick", "n_in_trick",
                     "tricks_done", "high_call", "n_calls", "knock_stage", "trick_best"):
            getattr(st, name)[idx] = 0
        for name in ("calls", "led", "trick_winner", "trick_card", "fd_seat", "signal"):
            getattr(st, name)[idx] = -1
        # exposure (§3.3): opponents' key cards always, the dealer's side's only if a seven
        key = stock[:, KEY_POS].astype(np.int64)  # [n, 8]
        seven = key % 8 == 0
        shown = seven | (KEY_K % 2 == 0)[None, :]
        kb = bit(key)
        st.exposed[idx] = np.bitwise_or.reduce(np.where(shown, kb, _ZERO), axis=1)
        st.dealer_seen[idx] = np.bitwise_or.reduce(np.where(shown, _ZERO, kb), axis=1)
        sevens = seven.any(axis=1)
        last = 7 - np.argmax(seven[:, ::-1], axis=1)  # last seven in deal order (§9.3)
        rows = np.arange(n)
        decl = seats[rows, KEY_K[last]]
        st.game[idx] = np.where(sevens, SEVENS, NO_SEVENS)
        st.declarer[idx] = np.where(sevens, decl, -1)
        st.trump[idx] = np.where(sevens, key[rows, last] // 8, -1)
        st.phase[idx] = np.where(sevens, KNOCKING, CALLING)
        st.current_player[idx] = np.where(sevens, decl, seats[:, 0])

    # ------------------------------------------------------------------ legal actions
    def legal_words(self, st: AvinasState) -> tuple[np.ndarray, np.ndarray]:
        """Legal actions as two ``uint64[B]`` bitboards: bit ``a`` of ``lo`` = action ``a`` (0..63,
        face-up and face-down cards), bit ``a - 64`` of ``hi`` = action ``a`` (64..82). §4, §5."""
        B = st.batch_size
        ar = np.arange(B)
        p = st.current_player.astype(np.intp)
        hand = st.hands[ar, p]
        phase = st.phase
        t = np.maximum(st.trump, 0).astype(np.intp)
        trumps = hand & TRUMP_BB[t]
        led = st.led
        # ---- leads
        k = st.tricks_done
        lead = st.n_in_trick == 0
        if self.options["trump_lead_rule"] == "trick2":
            must = k == 1
        else:
            must = k >= 1
        has_t = trumps != _ZERO
        lead_bits = np.where(k == 0, trumps, np.where(must & has_t, trumps, hand))
        fd_ok = must & ~has_t
        lead_bits = lead_bits | np.where(fd_ok, hand << _U64(32), _ZERO)
        # ---- follows
        plain = hand & PLAIN_BB[np.clip(led, 0, 3).astype(np.intp)]
        follow = np.where(led == TRUMPS_LED, trumps, plain)
        follow = np.where(follow != _ZERO, follow, hand)
        lo = np.where(phase == PLAY, np.where(lead, lead_bits, follow), _ZERO)
        # ---- decision phases (bits relative to action 64)
        hi = np.zeros(B, dtype=_U64)
        hi = np.where(phase == KNOCKING, _U64((1 << (KNOCK - 64)) | (1 << (NO_KNOCK - 64))), hi)
        hi = np.where(phase == STOPPING, _U64((1 << (CONTINUE - 64)) | (1 << (STOP - 64))), hi)
        hi = np.where(phase == SIGNAL, _U64((1 << (SIG_VALUABLE - 64)) | (1 << (SIG_NOT_VALUABLE - 64))), hi)
        mask_h = self.options["honesty"] == "mask"
        bid = np.flatnonzero((phase == CALLING) | (phase == DECLARING))
        if bid.size:
            h = hand[bid]
            counts = popcount(h[:, None] & self.count_bb[None, :]).astype(np.int64)  # [n, 4]
            # calls: N in high+1..8 (mask: N <= best count); PASS always
            top = counts.max(axis=1) if mask_h else np.full(bid.size, 8)
            lo_n = st.high_call[bid].astype(np.int64) + 1
            n_bits = np.where(top >= lo_n, (_U64(2) << top.astype(_U64)) - (_U64(1) << lo_n.astype(_U64)), _ZERO)
            call_bits = n_bits | _U64(1)
            held = popcount(h[:, None] & TRUMP_BB[None, :]) > 0
            if mask_h:
                held &= counts >= st.high_call[bid, None]
            shifts = np.arange(DECLARE - 64, DECLARE - 60, dtype=_U64)[None, :]
            dec_bits = (held.astype(np.uint64) << shifts).sum(axis=1, dtype=_U64)
            hi[bid] = np.where(phase[bid] == CALLING, call_bits, dec_bits)
        done = st.done
        return np.where(done, _ZERO, lo), np.where(done, _ZERO, hi)

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
        lo, hi = self.legal_words(st)
        return unpack_bits(np.stack([lo, hi], axis=1), 64).reshape(-1, 128)[:, :NUM_ACTIONS].view(bool)

    def check_actions(self, st: AvinasState, actions) -> None:
        """Raise ``ValueError`` if any live game's action is illegal (names the action and the legal ones)."""
        actions = np.asarray(actions, dtype=np.int64)
        mask = self.legal_actions(st)
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        ok &= mask[np.arange(st.batch_size), np.clip(actions, 0, NUM_ACTIONS - 1)]
        bad = np.flatnonzero(~ok & ~st.done)
        if bad.size:
            b = int(bad[0])
            a = int(actions[b])
            name = self.action_name(a) if 0 <= a < NUM_ACTIONS else repr(a)
            legal = [self.action_name(x) for x in np.flatnonzero(mask[b])]
            raise ValueError(f"illegal action {name} in game {b} for seat {st.current_player[b]}; legal: {legal}")

    # ------------------------------------------------------------------ step
    def step(self, st: AvinasState, actions, rng: np.random.Generator, active=None) -> None:
        """Apply ``actions`` (``int[B]``, legal for each live game; unchecked here: the AEC env and
        :meth:`check_actions` validate) and advance each game to its next decision.

        ``active`` (``bool[B]``, optional): step only these games. Rewards of the step land in
        ``st.rewards`` (``float32[B, 4]``; zero unless a deal or the match ended).
        """
        actions = np.asarray(actions).astype(np.int64)
        st.rewards[:] = 0
        phase = st.phase.copy()
        live = ~st.done if active is None else active & ~st.done
        if active is None and (phase == PLAY).all() and live.all():
            self._play(st, np.arange(st.batch_size), actions, rng)
            return
        for ph, fn in ((PLAY, self._play), (KNOCKING, self._knock), (CALLING, self._call),
                       (DECLARING, self._declare), (SIGNAL, self._signal), (STOPPING, self._stop)):
            idx = np.flatnonzero((phase == ph) & live)
            if idx.size:
                fn(st, idx, actions[idx], rng)

    # ---- §4.1 knocks
    def _knock(self, st, idx, a, rng) -> None:
        stage = st.knock_stage[idx]
        decl = st.declarer[idx].astype(np.int64)
        seat = (decl + np.array([0, 2, 1, 3])[stage]) % 4
        k = a == KNOCK
        st.knocked[idx, seat] = k
        kb = self.options["knock_back"]
        decl_knocked = st.knocked[idx, decl] | st.knocked[idx, (decl + 2) % 4]
        decl_done = (stage == 1) | ((stage == 0) & k)
        if kb == "never":
            to_def = np.zeros(idx.size, dtype=bool)
        elif kb == "always":
            to_def = decl_done
        else:
            to_def = decl_done & decl_knocked
        nxt = np.where(stage == 0, np.where(k, np.where(to_def, 2, 4), 1),
                       np.where(stage == 1, np.where(to_def, 2, 4),
                                np.where(stage == 2, np.where(k, 4, 3), 4)))
        st.knock_stage[idx] = np.minimum(nxt, 3)
        st.current_player[idx] = (decl + np.array([0, 2, 1, 3, 0])[nxt]) % 4
        go = idx[nxt == 4]
        self._start_play(st, go)

    def _start_play(self, st, idx) -> None:
        st.phase[idx] = PLAY
        st.leader[idx] = st.declarer[idx]
        st.current_player[idx] = st.declarer[idx]

    # ---- §4.2 calls, throw-in, naming trumps, honesty
    def _call(self, st, idx, a, rng) -> None:
        p = st.current_player[idx].astype(np.intp)
        n = np.where(a == PASS, 0, a - CALL1 + 1)
        st.calls[idx, p] = n
        up = n > 0
        st.high_call[idx] = np.where(up, n, st.high_call[idx])
        st.declarer[idx] = np.where(up, p, st.declarer[idx])
        st.n_calls[idx] += 1
        st.current_player[idx] = (p + 1) % 4
        end = st.n_calls[idx] == 4
        if not end.any():
            return
        e = idx[end]
        thrown = st.high_call[e] == 0
        dec = e[~thrown]
        st.phase[dec] = DECLARING
        st.current_player[dec] = st.declarer[dec]
        th = e[thrown]
        if th.size:  # §4.2.2: thrown in, the next dealer deals (no score)
            st.throw_ins[th] += 1
            cap = st.throw_ins[th] >= self.options["max_throw_ins"]
            self._truncate(st, th[cap])
            go = th[~cap]
            st.dealer[go] = (st.dealer[go] + 1) % 4
            self._new_deal(st, go, rng, kind="redeal")

    def _declare(self, st, idx, a, rng) -> None:
        t = (a - DECLARE).astype(np.intp)
        st.trump[idx] = t
        p = st.declarer[idx].astype(np.intp)
        held = popcount(st.hands[idx, p] & self.count_bb[t])
        st.lied[idx] = held < st.high_call[idx]  # §4.2.4: the referee's honesty check
        self._start_play(st, idx)

    def _signal(self, st, idx, a, rng) -> None:
        st.signal[idx] = (a == SIG_VALUABLE).astype(np.int8)
        st.phase[idx] = PLAY
        st.current_player[idx] = (st.current_player[idx] + 1) % 4

    def _stop(self, st, idx, a, rng) -> None:
        stop = a == STOP
        s = idx[stop]
        st.stopped[s] = True
        self._score_deal(st, s, rng)
        c = idx[~stop]
        st.phase[c] = PLAY
        st.current_player[c] = st.leader[c]

    # ---- §5 trick play
    def _play(self, st, idx, a, rng) -> None:
        p = st.current_player[idx].astype(np.intp)
        fd = a >= FACEDOWN
        card = a & 31
        cb = bit(card)
        st.hands[idx, p] ^= cb
        st.played[idx, p] |= cb
        st.trick[idx] |= cb
        st.trick_card[idx, p] = card
        t = st.trump[idx].astype(np.intp)
        ts = TRUMP_STRENGTH[t, card]
        suit = card // 8
        n = st.n_in_trick[idx]
        first = n == 0
        old = st.led[idx]
        # §5 shown voids: not following a trump (or face-down) lead shows no trump; not following a
        # plain suit shows none of its plain cards; a face-down lead is only open to a leader without trumps
        no_trump = (~first & (old == TRUMPS_LED) & (ts == 0)) | (first & fd)
        no_plain = ~first & (old >= 0) & (old < TRUMPS_LED) & ((suit != old) | (ts > 0))
        if no_trump.any() or no_plain.any():
            v = np.where(no_trump, 1 << TRUMPS_LED, 0) | np.where(no_plain, np.left_shift(1, np.clip(old, 0, 3)), 0)
            st.voids[idx, p] |= v.astype(np.uint8)
        led = np.where(first, np.where(fd | (ts > 0), TRUMPS_LED, suit), old)
        st.led[idx] = led
        key = np.where(fd, 0, np.where(ts > 0, 20 + ts, np.where(suit == led, PLAIN_STRENGTH[card], 0)))
        best = st.trick_best[idx]
        better = first | (key > best)
        st.trick_best[idx] = np.where(better, key, best)
        win = np.where(better, p, st.trick_winner[idx])
        st.trick_winner[idx] = win
        n = n + 1
        st.n_in_trick[idx] = n
        st.current_player[idx] = (p + 1) % 4
        full = n == 4
        if fd.any():
            f = fd
            fi = idx[f]
            st.fd_seat[fi] = p[f]
            mode = self.options["facedown_signal"]
            if mode == "auto":
                st.signal[fi] = POINTS[card[f]] >= self.vmin
            elif mode == "free":
                st.phase[fi] = SIGNAL
                st.current_player[fi] = p[f]
        if not full.any():
            return
        tix = idx[full]
        w = win[full]
        team = w % 2
        trick = st.trick_card[tix].astype(np.intp)
        st.points[tix, team] += POINTS[trick].sum(axis=1, dtype=np.int16)
        st.tricks_won[tix, team] += 1
        st.leader[tix] = w
        st.current_player[tix] = w
        st.trick[tix] = 0
        st.trick_card[tix] = -1
        st.led[tix] = -1
        st.trick_winner[tix] = -1
        st.trick_best[tix] = 0
        st.n_in_trick[tix] = 0
        st.fd_seat[tix] = -1
        st.signal[tix] = -1
        td = st.tricks_done[tix] + 1
        st.tricks_done[tix] = td
        end = td == 8
        if self.options["no7_stop"]:
            ask = ~end & (st.game[tix] == NO_SEVENS)
            a_ix = tix[ask]
            st.phase[a_ix] = STOPPING
            st.current_player[a_ix] = st.declarer[a_ix]
        if end.any():
            self._score_deal(st, tix[end], rng)

    # ---- §6 scoring
    def _score_deal(self, st, idx, rng) -> None:
        n = idx.size
        if n == 0:
            return
        rows = np.arange(n)
        decl = st.declarer[idx].astype(np.intp)
        dteam = decl % 2
        pts = st.points[idx]
        tw = st.tricks_won[idx]
        pd = pts[rows, dteam]
        sev = st.game[idx] == SEVENS
        kn = st.knocked[idx]
        decl_knock = kn[rows, decl] | kn[rows, (decl + 2) % 4]
        nk = kn.sum(axis=1)
        win = np.where(sev & decl_knock, tw[rows, dteam] == 8, pd >= 61)
        win &= ~(~sev & st.lied[idx])
        loser = np.where(win, 1 - dteam, dteam)
        lpts = pts[rows, loser]
        ltricks = tw[rows, loser]
        # rams (§6.2)
        if self.options["ram_schedule"] == "graded":
            base = np.where(decl_knock, 1, np.where(ltricks == 0, 3, np.where(lpts <= 30, 2, 1)))
        else:
            base = np.ones(n, dtype=np.int64)
        rams = base << nk
        # pips (§6.3)
        if self.options["pip_schedule"] == "graded":
            pips = np.where(ltricks == 0, 6, np.where(lpts <= 30, 4, 2))
        else:
            pips = np.full(n, 2)
        pen = np.where(sev, rams, pips)
        st.last_loser[idx] = loser
        st.last_penalty[idx] = pen
        st.last_game[idx] = st.game[idx]
        st.last_lied[idx] = st.lied[idx]
        st.last_stopped[idx] = st.stopped[idx]
        st.throw_ins[idx] = 0
        st.ram_balance[idx] += np.where(sev, np.where(loser == 0, rams, -rams), 0).astype(np.int16)
        gp = np.where(sev, 0, pips)
        st.pips[idx, loser] += gp.astype(np.int16)
        u = np.where(sev, rams, pips / 2.0).astype(np.float32)
        if self.options["reward"] == "win":
            u = np.ones(n, dtype=np.float32)
        sign = np.where(loser == 0, -1.0, 1.0).astype(np.float32)  # team A's view
        if not self.match:
            self._pay(st, idx, sign * u)
            st.done[idx] = True
            st.phase[idx] = OVER
            return
        if self.options["reward"] == "score":
            self._pay(st, idx, sign * u)
        st.deals[idx] += 1
        # §6.4 end of match
        lim = self.options["pip_limit"]
        pp = st.pips[idx]
        over = (pp >= lim).any(axis=1)
        big = np.where(pp[:, 0] >= lim, 0, 1)
        other_zero = pp[rows, 1 - big] == 0
        rb = st.ram_balance[idx]
        ram_loser = np.where(rb > 0, 0, 1)
        more = np.where(pp[:, 0] > pp[:, 1], 0, 1)
        mloser = np.where(other_zero, big, np.where(rb != 0, ram_loser, more))
        e = idx[over]
        if e.size:
            st.winner[e] = 1 - mloser[over]
            st.clean[e] = other_zero[over]
            st.done[e] = True
            st.phase[e] = OVER
            if self.options["reward"] == "win":
                self._pay(st, e, np.where(mloser[over] == 0, -1.0, 1.0).astype(np.float32))
        go = idx[~over]
        cap = st.deals[go] >= self.options["max_deals"]
        self._truncate(st, go[cap])
        nx = go[~cap]
        st.dealer[nx] = (st.dealer[nx] + 1) % 4
        self._new_deal(st, nx, rng)

    @staticmethod
    def _pay(st, idx, ua) -> None:
        st.rewards[idx, 0] += ua
        st.rewards[idx, 2] += ua
        st.rewards[idx, 1] -= ua
        st.rewards[idx, 3] -= ua

    @staticmethod
    def _truncate(st, idx) -> None:
        if idx.size:
            st.done[idx] = True
            st.truncated[idx] = True
            st.phase[idx] = OVER

    def single_game(self, st: AvinasState):
        """The B = 1 fast path (:class:`cardzoo.envs.avinas.single.SingleGame`) used by the AEC env."""
        from .single import SingleGame

        return SingleGame(self, st)

    # ------------------------------------------------------------------ observations (§7)
    def observe(self, st: AvinasState, seat) -> np.ndarray:
        """Observation ``uint8[B, D]`` of ``seat`` (int or ``int[B]``); layout :attr:`obs_layout` (§7)."""
        return _obs.observe(self, st, seat)

    def global_state(self, st: AvinasState) -> np.ndarray:
        """Perfect-information vector ``uint8[B, S]`` (every hand, the face-down card, the signal)."""
        return _obs.global_state(self, st)

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

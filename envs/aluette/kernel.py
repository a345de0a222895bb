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
chance (every shuffle and intercepted signal is drawn here, in Python, through
:mod:`cardzoo.envs.core.chance`), views and search; the core's
:class:`~cardzoo.envs.core.compiled.CompiledKernel` does init, validation, step, masks and observations.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.cards import SPANISH48
from ..core import chance
from ..core.compiled import CompiledKernel, arrays_type
from ..core.kernel import BatchState, Option, bool_option, hook_deck, hook_ints, int_option, state_field
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

_ONE = np.uint64(1)
SPOILED = _rules.SPOILED  # value of ``results`` for a spoiled trick
#: §3 partnership draw: the four drawing cards 3Co, 3Cu, 2Co, 2Cu and the seat their holder takes
DRAW_CARDS = (2, 14, 1, 13)
DRAW_SEAT = (2, 0, 3, 1)
_DRAW_INDEX = np.full(NUM_CARDS, -1, dtype=np.int8)
for _k, _c in enumerate(DRAW_CARDS):
    _DRAW_INDEX[_c] = _k



def _hook_deck(name: str, value, B: int) -> np.ndarray:
    return hook_deck(name, value, (B, NUM_CARDS)).astype(np.int8)


U64 = np.uint64
_f = state_field


@dataclasses.dataclass
class AluetteState(BatchState):
    """Batched Aluette state; ``B`` games, seats 0..3 clockwise, teams ``seat % 2``. Card sets are
    ``uint64`` bitboards over the 48 card ids. Private: ``hands``, ``dealt``, ``received``,
    ``discarded``, ``talon``, ``stock``, ``heard`` (each seat's own), ``sent``, ``pending``, ``catch``."""

    hands: np.ndarray = _f(U64, (4,), 0, "cards held now, by absolute seat")
    dealt: np.ndarray = _f(U64, (4,), 0, "the 9 cards dealt to each seat this deal")
    played: np.ndarray = _f(U64, (4,), 0, "cards each seat played this deal")
    received: np.ndarray = _f(U64, (4,), 0, "talon cards each seat received in the chant")
    discarded: np.ndarray = _f(U64, (4,), 0, "cards each seat discarded in the chant")
    talon: np.ndarray = _f(U64, (), 0, "the 12 undealt cards")
    stock: np.ndarray = _f(np.int8, (NUM_CARDS,), 0, "shuffled pack of the deal (positions 0..35 dealt, 36..47 the talon)")
    phase: np.ndarray = _f(np.int8, (), 0, "VOTE, DISCARD, SIGNAL, OFFER, ANSWER, PLAY or OVER")
    dealer: np.ndarray = _f(np.int8, (), 0, "dealer's seat")
    leader: np.ndarray = _f(np.int8, (), 0, "seat that led the current trick")
    votes: np.ndarray = _f(np.int8, (4,), -1, "chant vote by seat (-1 not asked, 0 refused, 1 accepted)")
    chanted: np.ndarray = _f(bool, (), False, "the chant took place this deal")
    sent: np.ndarray = _f(np.int16, (4,), 0, "signals sent by each seat this deal (bit s = signal s)")
    heard: np.ndarray = _f(U64, (4,), 0, "signals each seat has observed this deal, bit 10*sender + s")
    as_aces: np.ndarray = _f(
        U64, (4,), 0,
        "aces each seat had played when it sent `as` this deal (§4.5: it held another then); read by determinize",
    )
    trick_card: np.ndarray = _f(np.int8, (4,), -1, "card each seat put in the current trick (-1 none)")
    trick: np.ndarray = _f(U64, (), 0, "cards in the current trick")
    n_in_trick: np.ndarray = _f(np.int8, (), 0, "cards in the current trick")
    top: np.ndarray = _f(np.int8, (), 0, "best power in the current trick so far")
    top_count: np.ndarray = _f(np.int8, (), 0, "how many cards of the current trick share that power")
    top_seat: np.ndarray = _f(np.int8, (), 0, "seat that played the best power first")
    tricks_done: np.ndarray = _f(np.int8, (), 0, "tricks completed this deal")
    results: np.ndarray = _f(np.int8, (NUM_TRICKS,), -1, "winner seat of each trick (4 spoiled, -1 not played)")
    res_word: np.ndarray = _f(U64, (), 0, "the results as bits: trick t at bit 5t + seat, or 5t + 4 when spoiled")
    won: np.ndarray = _f(np.int8, (4,), 0, "tricks won this deal per seat")
    offerer: np.ndarray = _f(np.int8, (), -1, "seat that offered surrender (-1 none)")
    refused: np.ndarray = _f(bool, (), False, "the surrender offer was refused")
    accepted: np.ndarray = _f(bool, (), False, "the surrender offer was accepted")
    points: np.ndarray = _f(np.int16, (2,), 0, "points of the last scored deal per team")
    score: np.ndarray = _f(np.int16, (2,), 0, "match score per team")
    deal_winner: np.ndarray = _f(np.int8, (), -1, "seat that won the last deal (-1 none)")
    last_results: np.ndarray = _f(
        np.int8, (NUM_TRICKS,), -1, "the last scored deal's results (winner seat, 4 spoiled, -1 not played; §7)")
    mordienne: np.ndarray = _f(bool, (), False, "the last deal was won by mordienne (§6)")
    deals: np.ndarray = _f(np.int16, (), 0, "deals completed in this episode")
    winner: np.ndarray = _f(np.int8, (), -1, "match result (-1 running, 0/1 team, 2 draw)")
    draw_map: np.ndarray = _f(
        np.int8, (4,), np.arange(4, dtype=np.int8),
        "partnership draw: new seat of the agent drawing at each seat (identity without the draw, §3)",
    )
    pending: np.ndarray = _f(U64, (), 0, "the heard bit of a signal waiting for the intercept draw (§4.5; 0 between steps)")
    catch: np.ndarray = _f(bool, (2,), False, "that draw: the sender's left / right opponent caught the signal")


#: the state's arrays as compiled code sees them (a namedtuple with the fields of :class:`AluetteState`)
AluetteArrays = arrays_type(AluetteState, "AluetteArrays", __name__)


def _target_option() -> Option:
    ok = lambda v: v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and 1 <= v <= 1_000)  # noqa: E731
    return Option(None, check=ok, valid="None or an int from 1 to 1000")


def _prob_option() -> Option:
    ok = lambda v: isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) and 0 <= v <= 1  # noqa: E731
    return Option(0.0, check=ok, valid="a number from 0 to 1")


class AluetteKernel(CompiledKernel):
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
    ``match_deals``         int 1..1000                                      5
    ``match_target``        None or int 1..1000                              None
    ``max_deals``           int 1..10000 (cap with ``match_target``)         1000
    ======================  ===============================================  ======================

    ``signal_intercept`` and ``max_deals`` are not in the spec's table (RULES.md §9 D3, D9).
    """

    renderer = _render  # render() and table_view() (Kernel)
    DEAL_COUNTER = "deals"  # §7: in a match, infos give each deal's result (its trick results too) when it ends

    name = "aluette"
    display_name = "Aluette"  # play goes clockwise: next_seat_side "left", the default
    deck = SPANISH48
    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    teams = [[0, 2], [1, 3]]
    zero_sum = True
    OPTIONS = {
        "partnership_draw": bool_option(False),
        "first_dealer": Option("random", choices=("random", 0, 1, 2, 3), aliases=((None, "random"),)),
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
        "match_deals": int_option(5, 1, 1_000),  # §8 int; int16 scores; the observation clips at 255
        "match_target": _target_option(),
        "max_deals": int_option(1000, 1, 10_000),
    }
    INIT_HOOKS = ("deck", "dealer", "score", "draw_deck")
    CARD_HOOKS = ("deck",)  # (draw_deck fixes the partnership draw only)
    State = AluetteState
    Arrays = AluetteArrays
    rules = _rules
    CHANCE_ORDER = _rules.CHANCE_ORDER

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
        self._deal_high = min(deal_high, 255)
        self._score_high = min(score_high, 255)  # uint8 observation: clipped beyond
        self._obs_layout = _obs.observation_layout(self._score_high, self._deal_high)
        self._state_layout = _obs.state_layout(self._score_high, self._deal_high)

    def make_params(self) -> np.ndarray:
        """The option vector ``int64[rules.P_SIZE]`` of the compiled rules (``RULES.md`` §8)."""
        o, R = self.options, _rules
        P = np.zeros(R.P_SIZE, dtype=np.int64)
        P[R.P_CHANT] = bool(o["chant"])
        P[R.P_SECOND_OFFSET] = self.second_offset
        P[R.P_SURRENDER] = bool(o["surrender"])
        P[R.P_MORDIENNE] = bool(o["mordienne"])
        P[R.P_SIGNALS] = {"off": R.SIGNALS_OFF, "truthful": R.SIGNALS_TRUTHFUL, "free": R.SIGNALS_FREE}[o["signals"]]
        P[R.P_TURN_SIGNALS] = o["signal_timing"] == "round_and_turns"
        P[R.P_PUBLIC] = o["signal_visibility"] == "public"
        P[R.P_INTERCEPT] = self.intercept > 0
        P[R.P_MATCH] = self.match
        P[R.P_REWARD_WIN] = o["reward"] == "win"
        P[R.P_TARGET] = 0 if self.target is None else int(self.target)
        P[R.P_MATCH_DEALS] = o["match_deals"]
        P[R.P_MAX_DEALS] = o["max_deals"]
        P[R.P_DEAL_HIGH] = self._deal_high
        P[R.P_SCORE_HIGH] = self._score_high
        return P

    # ------------------------------------------------------------------ layouts
    @property
    def max_episode_steps(self) -> int:
        """Agent steps bound: per deal 4 votes + 12 discards + 4 x (10 signals + end) + 5 surrender + 36 cards."""
        per_deal = 4 + 12 + 4 * (NUM_SIGNALS + 1) + 5 + 36
        if not self.match:
            return per_deal
        return per_deal * (self.options["max_deals"] if self.target is not None else self.options["match_deals"])

    # ------------------------------------------------------------------ names
    def action_name(self, action: int) -> str:
        """``"3Co"`` for card ids 0..47, then the phase actions 48..64 (``accept_chant`` ... ``refuse_surrender``),
        as listed in RULES.md §4; ``ValueError`` for anything else (:meth:`valid_action_id`)."""
        a = self.valid_action_id(action)
        return SPANISH48.names[a] if a < NUM_CARDS else PHASE_ACTIONS[a - NUM_CARDS]

    # ------------------------------------------------------------------ init / dealing (§3)
    def new_games(self, st: AluetteState, rng, rows: np.ndarray, deck=None, dealer=None, score=None, draw_deck=None) -> int:
        """The partnership draw (with ``partnership_draw``), the first dealer, then the shuffle of the
        fresh games ``rows`` (``int64[n]``) of ``st`` (§3); returns the chance code with which the
        compiled ``deal_one`` deals them (``CompiledKernel.new_games``).

        Test hooks (``init(rng, B, deck=..., ...)``; the worked-example tests and the arena's duplicate deals; ``n`` games):
            deck: ``int[48]`` or ``int[n, 48]`` pack order of the first deal (position 0 is
                dealt first: three cards to the dealer's left, ...; positions 36..47 = t1..t12).
            dealer: seat or ``int[n]`` of the first dealer (else ``first_dealer``; seat 0 with
                ``partnership_draw``; else random).
            score: ``int[2]`` or ``int[n, 2]`` match score before the first deal (0..100).
            draw_deck: ``int[48]`` or ``int[n, 48]`` pack order of the partnership draw (with
                ``partnership_draw=True``), position 0 turned first.

        Raises ``ValueError`` when a hook value is not a permutation / seat / score in range.
        """
        n = rows.size
        if self.options["partnership_draw"]:
            order = self._shuffle(rng, rows, "dealer") if draw_deck is None else _hook_deck("draw_deck", draw_deck, n)
            st.draw_map[rows] = partnership_draw(order)
        elif draw_deck is not None:
            raise ValueError("reset option draw_deck needs partnership_draw=True")
        option = 0 if self.options["partnership_draw"] else self.options["first_dealer"]
        if dealer is None and option == "random":  # a hook must be seats (hook_ints)
            st.dealer[rows] = chance.integers(rng, rows, 0, 4, kind="dealer")
        else:
            st.dealer[rows] = hook_ints("dealer", option if dealer is None else dealer, (n,), 0, 3)
        if score is not None:
            st.score[rows] = hook_ints("score", score, (n, 2), 0, 100 if self.target is None else self.target - 1)
        st.stock[rows] = self._shuffle(rng, rows) if deck is None else _hook_deck("deck", deck, n)
        return _rules.NEED_DEAL

    @staticmethod
    def _shuffle(rng, idx: np.ndarray, kind: str = "deal") -> np.ndarray:
        """Pack orders ``int8[len(idx), NUM_CARDS]`` for games ``idx`` (``rng``: see :mod:`~cardzoo.envs.core.chance`)."""
        return chance.permutations(rng, idx, NUM_CARDS, kind)

    def draw_chance(self, st: AluetteState, rows: np.ndarray, code: int, rng) -> None:
        """Draw the chance of ``code`` for games ``rows`` (``int64[n]``) into the state; the compiled
        :func:`rules.deal_one` goes on from there. ``NEED_DEAL`` / ``NEED_DEAL_ANSWER``: shuffle the
        next deal's pack (kind ``"deal"``, §3); ``NEED_INTERCEPT``: whether each opponent (left,
        right) catches the signal just sent, probability ``signal_intercept`` (kind ``"play"``, §4.5)."""
        if code == _rules.NEED_INTERCEPT:
            st.catch[rows] = chance.uniform(rng, rows, (2,), np.float64, "play") < self.intercept
        else:
            st.stock[rows] = self._shuffle(rng, rows)

    def determinize(self, st: AluetteState, seat, rng: np.random.Generator) -> AluetteState:
        """A copy of ``st`` (a new state of the same batch size; ``st`` is unchanged) in which what
        ``seat`` cannot see is dealt again uniformly among the deals consistent with what it has
        seen, signals heard included (for PIMC search; RULES.md §7, chant §4.2, signals §4.5; what
        is kept and what is redealt: :mod:`cardzoo.envs.aluette.determinize`). The result depends
        only on ``seat``'s information and ``rng``.

        ``seat``: an int (a seat of this game) or ``int[B]``, one per game; ``rng``: a
        ``numpy.random.Generator`` (all the chance). ``ValueError`` for another seat or rng
        (:meth:`~cardzoo.envs.core.kernel.Kernel.check_determinize`) or a state made for another
        game or other options."""
        from .determinize import determinize

        return determinize(self, st, self.check_determinize(st, seat, rng), rng)

    # ------------------------------------------------------------------ views
    def info(self, st: AluetteState, b: int = 0) -> dict:
        """Public facts: phase, dealer, the last deal's winner seat, points, mordienne and trick results
        (winner seat, ``"spoiled"`` or ``None`` for a trick not played), the match score and result, and
        the partnership draw's seat map (``agent_seat[i]`` = seat now taken by the
        agent who drew at seat ``i``) when that option is on. Only what §7 makes public; the scoring is §6.
        ``ValueError`` for a game index ``b`` the state has not."""
        b = self.check_game(st, b)
        out = {
            "phase": PHASE_NAMES[int(st.phase[b])],
            "dealer": int(st.dealer[b]),
            "deal_winner": int(st.deal_winner[b]),
            "deal_points": st.points[b].tolist(),
            "mordienne": bool(st.mordienne[b]),
            "score": st.score[b].tolist(),
            "deals": int(st.deals[b]),
        }
        if int(st.deals[b]) > 0:  # §7: every trick's result is public; in a match the next deal clears them
            out["trick_results"] = [None if r < 0 else "spoiled" if r == 4 else int(r) for r in st.last_results[b].tolist()]
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
        b, a = self.check_public_args(st, b, action)
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

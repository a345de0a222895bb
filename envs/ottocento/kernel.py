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
from ..core.cards import TAROCCO62, mask_to_cards
from ..core.compiled import CompiledKernel, arrays_type
from ..core.kernel import BatchState, Option, bool_option, hook_deck, hook_ints, int_option, state_field
from . import observation as _obs
from . import render as _render
from . import rules as _rules
from .constants import DISCARD, NUM_ACTIONS, NUM_CARDS, NUM_PLAYERS, PHASE_ACTIONS, PHASE_NAMES


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


U64 = np.uint64
_f = state_field


@dataclasses.dataclass
class OttocentoState(BatchState):
    """Batched Ottocento state; ``B`` games, seats 0..3, teams ``seat % 2`` (A = {0, 2}, B = {1, 3}).
    Card sets are ``uint64`` bitboards over the 62 card ids. Private: ``hands``, ``dealt``,
    ``discards`` (the dealer's), ``decl_value``, ``decl_cards`` (until declared), ``stock``; the rest is public."""

    hands: np.ndarray = _f(U64, (4,), 0, "cards held now, by absolute seat")
    dealt: np.ndarray = _f(U64, (4,), 0, "cards dealt to each seat this deal (17 to the dealer)")
    played: np.ndarray = _f(U64, (4,), 0, "cards each seat played this deal")
    discards: np.ndarray = _f(U64, (), 0, "the dealer's discards (§3)")
    piles: np.ndarray = _f(U64, (2,), 0, "cards won in tricks by each team")
    trick: np.ndarray = _f(U64, (), 0, "cards in the current trick")
    trick_card: np.ndarray = _f(np.int8, (4,), -1, "card of each seat in the current trick (-1 none)")
    led: np.ndarray = _f(np.int8, (), -1, "suit to follow: 0-3 S B C D, 4 trumps, -1 none yet (§5)")
    trick_winner: np.ndarray = _f(np.int8, (), -1, "seat winning the current trick so far (-1 none)")
    trick_best: np.ndarray = _f(np.int8, (), 0, "ranking key of the winning card so far (§2.2)")
    phase: np.ndarray = _f(np.int8, (), 0, "DISCARD, DECLARING, PLAY or OVER")
    dealer: np.ndarray = _f(np.int8, (), 0, "dealer's seat")
    leader: np.ndarray = _f(np.int8, (), 0, "seat that led the current trick")
    n_in_trick: np.ndarray = _f(np.int8, (), 0, "cards in the current trick")
    tricks_done: np.ndarray = _f(np.int8, (), 0, "tricks completed this deal")
    n_discarded: np.ndarray = _f(np.int8, (), 0, "cards the dealer has discarded (0-2)")
    tricks_won: np.ndarray = _f(np.int8, (2,), 0, "tricks won by each team this deal")
    decided: np.ndarray = _f(bool, (4,), False, "the seat has declared or passed (§4.1)")
    declared: np.ndarray = _f(bool, (4,), False, "the seat declared (§4.1)")
    decl_value: np.ndarray = _f(np.int16, (4,), 0, "worth of each hand's declaration (set after the discard, §11.1)")
    decl_cards: np.ndarray = _f(U64, (4,), 0, "the cards each hand's declaration would show")
    shown: np.ndarray = _f(U64, (4,), 0, "cards shown by declarations")
    decl_points: np.ndarray = _f(np.int16, (4,), 0, "points declared by each seat")
    matto_owner: np.ndarray = _f(np.int8, (), 0, "seat dealt the Matto")
    matto_winner: np.ndarray = _f(np.int8, (), -1, "seat that won the Matto's trick (-1 before)")
    last_winner: np.ndarray = _f(np.int8, (), -1, "winner of trick 15 (-1 before)")
    final_piles: np.ndarray = _f(U64, (2,), 0, "last scored deal: piles after the discards and the Matto (§6)")
    res_cards: np.ndarray = _f(np.int32, (2,), 0, "last scored deal: card points in half-points")
    res_captured: np.ndarray = _f(np.int32, (2,), 0, "last scored deal: captured combinations")
    res_declared: np.ndarray = _f(np.int32, (2,), 0, "last scored deal: declarations per team")
    res_last: np.ndarray = _f(np.int32, (2,), 0, "last scored deal: last-trick bonus")
    res_total: np.ndarray = _f(np.int32, (2,), 0, "last scored deal: totals in half-points")
    gift: np.ndarray = _f(np.int8, (), -1, "last scored deal: card given for the Matto (-1 none)")
    last_discards: np.ndarray = _f(U64, (), 0, "the discards of the last scored deal (revealed with its result, §7)")
    matto_fate: np.ndarray = _f(np.int8, (), 0, "last scored deal: 0 kept, 1 moved back for a gift, 2 stayed, 3 captured by the opponents (§6.1, §8)")
    discards_to: np.ndarray = _f(np.int8, (), -1, "last scored deal: team given the discards (-1 none yet)")
    score: np.ndarray = _f(np.int32, (2,), 0, "match score per team in half-points")
    winner: np.ndarray = _f(np.int8, (), -1, "winning team (-1 none / draw)")
    deals_played: np.ndarray = _f(np.int16, (), 0, "deals scored in this episode")
    voids: np.ndarray = _f(
        np.uint8, (4,), 0,
        "suits each seat showed it lacks this deal (bit s = suit s 0-3, bit 4 trumps; public, §5); read by determinize",
    )
    stock: np.ndarray = _f(np.int8, (62,), 0, "the shuffled pack of the current deal, dealt from position 0 (§3)")


#: the state's arrays as compiled code sees them (a namedtuple with the fields of :class:`OttocentoState`)
OttocentoArrays = arrays_type(OttocentoState, "OttocentoArrays", __name__)


#: §8 last_trick_bonus is "any integer"; scores are int32 half-points, and this bound keeps a match of
#: max_deals (at most 10,000) deals inside them
LAST_BONUS_MAX = 100_000


#: §8 match_target has no range ("e.g. 800"); scores are int32 half-points, and a match may go on past the
#: target only while the teams are level, up to max_deals: a start of target - 1 (the score hook) plus 10,000
#: deals of at most LAST_BONUS_MAX + 5,000 points a team (cards, captured and declared combinations) stays
#: below 2**31 half-points (2 * (10**6 + 10,000 * 105,000) < 2.15e9)
TARGET_MAX = 1_000_000


def _target_option() -> Option:
    return Option(
        None,
        check=lambda v: v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 1 <= v <= TARGET_MAX),
        valid=f"None (one deal) or an int from 1 to {TARGET_MAX}",
    )


class OttocentoKernel(CompiledKernel):
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
    ``last_trick_bonus``              int -100_000..100_000                            6
    ``matto_rule``                    ``"exchange_at_end"``, ``"captured"``            ``"exchange_at_end"``
    ``matto_fallback``                ``"lowest_value"``, ``"forfeit"``                ``"lowest_value"``
    ``matto_gift``                    ``"best_for_owner"``, ``"lowest_id"``            ``"best_for_owner"``
    ``reward``                        ``"win_loss"``, ``"point_diff"``                 ``"win_loss"``
    ``match_target``                  None or int 1..1000000                           None
    ``declarations_win_immediately``  bool (match mode only)                           False
    ``max_deals``                     int 1..10000 (match safety cap, truncation)      200
    ================================  ===============================================  =====================
    """

    renderer = _render  # render() and table_view() (Kernel)
    DEAL_COUNTER = "deals_played"  # §7: each deal's result revealed in infos when it ends, in a match too

    name = "ottocento"
    display_name = "Ottocento"
    next_seat_side = "right"  # play goes anticlockwise (RULES.md §1)
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
            6, check=lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool) and -LAST_BONUS_MAX <= v <= LAST_BONUS_MAX,
            valid=f"an int from {-LAST_BONUS_MAX} to {LAST_BONUS_MAX}"
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
    CARD_HOOKS = ("deck",)

    State = OttocentoState
    Arrays = OttocentoArrays
    rules = _rules
    #: chance after a step: the next deal of a match (§1)
    CHANCE_ORDER = (_rules.NEED_DEAL,)

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

    @property
    def episode_name(self) -> str:
        """``"match"`` with ``match_target`` (§8: deals until a side reaches it), else ``"deal"``."""
        return "match" if self.match else "deal"

    def make_params(self) -> np.ndarray:
        """The option vector ``int64[rules.P_SIZE]`` of the compiled rules (``RULES.md`` §8)."""
        o, R = self.options, _rules
        P = np.zeros(R.P_SIZE, dtype=np.int64)
        P[R.P_DECL_MODE] = ("all_or_pass", "auto_all", "none").index(o["declaration_mode"])
        P[R.P_STRICT] = self.strict_skip
        P[R.P_LAST_PLAYED] = o["moors_tie"] == "last_played"
        P[R.P_MATCH] = self.match
        P[R.P_TARGET_HALF] = self.target_half
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

    # ------------------------------------------------------------------ layouts
    @property
    def max_episode_steps(self) -> int:
        """Agent steps bound: per deal 2 discards + 4 declarations + 60 cards."""
        return 66 * (self.options["max_deals"] if self.match else 1)

    # ------------------------------------------------------------------ names
    def action_name(self, action: int) -> str:
        """``"KS"``, ``"10C"``, ``"T16"``, ``"MAT"`` for card ids 0..61; ``"DECLARE"`` 62, ``"PASS"`` 63
        (RULES.md §7); ``ValueError`` for anything else (:meth:`valid_action_id`)."""
        a = self.valid_action_id(action)
        return TAROCCO62.names[a] if a < NUM_CARDS else PHASE_ACTIONS[a]

    # ------------------------------------------------------------------ init / dealing (§3)
    def new_games(self, st: OttocentoState, rng, rows: np.ndarray, deck=None, dealer=None, score=None) -> int:
        """Shuffle the fresh games ``rows`` (``int64[n]``) of ``st`` (§3); returns the chance code with
        which the compiled ``deal_one`` deals them (``CompiledKernel.new_games``).

        Test hooks (``init(rng, B, deck=..., ...)``):
            deck: ``int[62]`` or ``int[n, 62]`` stock order (position 0 dealt first) instead of a shuffle.
            dealer: seat or ``int[n]`` (else the ``dealer`` option, else random).
            score: ``int[2]`` or ``int[n, 2]`` match score in points before the first deal (match mode).

        Raises ``ValueError`` for a hook that is not a permutation / seat / score in range.
        """
        n = rows.size
        if dealer is None and self.options["dealer"] == "random":  # a hook must be seats (hook_ints)
            st.dealer[rows] = chance.integers(rng, rows, 0, 4, kind="dealer")
        else:
            st.dealer[rows] = hook_ints("dealer", self.options["dealer"] if dealer is None else dealer, (n,), 0, 3)
        if score is not None:
            if not self.match:
                raise ValueError("reset option score needs match mode (option match_target)")
            st.score[rows] = 2 * hook_ints("score", score, (n, 2), 0, self.target_half // 2 - 1)
        if deck is not None:
            stock = hook_deck("deck", deck, (n, NUM_CARDS))
            st.stock[rows] = stock
        elif n:
            self.draw_chance(st, rows, _rules.NEED_DEAL, rng)
        return _rules.NEED_DEAL

    def draw_chance(self, st: OttocentoState, rows: np.ndarray, code: int, rng) -> None:
        """Shuffle the stock of games ``rows`` (``int64[n]``) for chance ``code`` (``rules.NEED_DEAL``:
        a new deal, kind ``"deal"``). The compiled :func:`rules.deal_one` then deals it (§3)."""
        st.stock[rows] = chance.permutations(rng, rows, NUM_CARDS, "deal")

    def determinize(self, st: OttocentoState, seat, rng: np.random.Generator) -> OttocentoState:
        """A copy of ``st`` (a new state of the same batch size; ``st`` is unchanged) in which what
        ``seat`` cannot see is dealt again uniformly among the deals consistent with what it has
        seen (for PIMC search; RULES.md §7, discards §3, declarations §4.1, voids §5; what is kept
        and what is redealt: :mod:`cardzoo.envs.ottocento.determinize`). The result depends only on
        ``seat``'s information and ``rng``.

        ``seat``: an int (a seat of this game) or ``int[B]``, one per game; ``rng``: a
        ``numpy.random.Generator`` (all the chance). ``ValueError`` for another seat or rng
        (:meth:`~cardzoo.envs.core.kernel.Kernel.check_determinize`) or a state made for another
        game or other options."""
        from .determinize import determinize

        return determinize(self, st, self.check_determinize(st, seat, rng), rng)

    def action_is_public(self, st: OttocentoState, b: int, action: int) -> bool:
        """The dealer's discards are face down (§3.5): hidden from the other seats; every other action is public."""
        b, _ = self.check_public_args(st, b, action)
        return int(st.phase[b]) != DISCARD

    # ------------------------------------------------------------------ observations (§7)
    # ------------------------------------------------------------------ views
    def known_cards(self, st: OttocentoState, b: int = 0) -> list[list[int]]:
        """Cards each seat declared and still holds (public since the declaration, §4.1, §7)."""
        b = self.check_game(st, b)
        return [mask_to_cards(st.hands[b, s] & st.shown[b, s]) for s in range(4)]

    def info(self, st: OttocentoState, b: int = 0) -> dict:
        """Public facts for ``infos``; once the deal is scored everything is revealed (§7), in points."""
        b = self.check_game(st, b)
        out = {
            "phase": PHASE_NAMES[int(st.phase[b])],
            "dealer": int(st.dealer[b]),
            "tricks_won": st.tricks_won[b].tolist(),
            "declarations": [int(v) for v in st.decl_points[b]],
            "declared": [bool(v) for v in st.declared[b]],
            "match_score": (st.score[b] / 2).tolist(),
        }
        if self.ended_by_declaration(st, b):  # the deal was not played: its discards stay hidden, no deal result
            out["ended_by"] = "declarations"
            out["winner"] = "AB"[int(st.winner[b])]
        elif st.deals_played[b] > 0:  # the last scored deal: revealed when it ends (§7), in a match too
            out.update(self.deal_result(st, b))
        if st.truncated[b]:
            out["truncation"] = f"max_deals={self.options['max_deals']} reached"
        return out

    def ended_by_declaration(self, st: OttocentoState, b: int = 0) -> bool:
        """Whether game ``b``'s match ended at once on a declaration (``declarations_win_immediately``,
        RULES.md §11.5): over, not truncated, before the deal's 15 tricks were played. That deal is
        never scored, so :meth:`deal_result` (the last *scored* deal) is not its result, and its
        discards stay hidden (§7 reveals them when a deal is scored)."""
        return bool(st.done[b]) and not bool(st.truncated[b]) and int(st.tricks_done[b]) < 15

    def deal_result(self, st: OttocentoState, b: int = 0) -> dict:
        """Every score component of the last scored deal of game ``b`` (points; team A first), in the
        order of RULES.md §6 (the Matto: §6.1)."""
        names = TAROCCO62.names
        return {
            "discards": [names[c] for c in mask_to_cards(st.last_discards[b])],
            "discards_to": "AB"[int(st.discards_to[b])] if st.discards_to[b] >= 0 else None,
            "matto": ("kept by its team", "moved back for a gift card", "stayed with the opponents",
                      "captured by the opponents")[int(st.matto_fate[b])],
            "matto_gift": names[int(st.gift[b])] if st.gift[b] >= 0 else None,
            "piles": [[names[c] for c in mask_to_cards(st.final_piles[b, t])] for t in range(2)],
            "card_points": (st.res_cards[b] / 2).tolist(),
            "captured_combinations": st.res_captured[b].tolist(),
            "declarations_team": st.res_declared[b].tolist(),
            "last_trick": st.res_last[b].tolist(),
            "totals": (st.res_total[b] / 2).tolist(),
            "winner": "AB"[int(st.winner[b])] if st.winner[b] >= 0 else None,
        }

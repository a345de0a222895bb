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

from ..core.cards import FRENCH52, popcount
from ..core import chance
from ..core.compiled import CompiledKernel, arrays_type
from ..core.kernel import BatchState, Option, bool_option, hook_deck, hook_ints, int_option, state_field
from . import determinize as _determinize
from . import observation as _obs
from . import render as _render
from . import rules as _rules
from .constants import (
    JACK_RANK,
    KICK_POINTS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    PHASE_ACTIONS,
    PHASE_NAMES,
)


U64 = np.uint64
_f = state_field


@dataclasses.dataclass
class AllFoursState(BatchState):
    """Batched All Fours state; ``B`` games, seats 0..3, teams ``seat % 2``. Card sets are ``uint64``
    bitboards over the 52 card ids. Private: ``hands``, ``dealt``, ``stock``; the rest is public."""

    hands: np.ndarray = _f(U64, (4,), 0, "cards held now, by absolute seat")
    dealt: np.ndarray = _f(U64, (4,), 0, "cards dealt to each seat this deal")
    played: np.ndarray = _f(U64, (4,), 0, "cards each seat played this deal")
    stock: np.ndarray = _f(np.int8, (52,), 0, "the shuffled pack, dealt from position 0 (§3)")
    kicked: np.ndarray = _f(U64, (), 0, "every card turned this deal")
    orig_suit: np.ndarray = _f(np.int8, (), 0, "suit of the first kick of the deal")
    trump: np.ndarray = _f(np.int8, (), 0, "trump suit")
    phase: np.ndarray = _f(np.int8, (), 0, "BEG_DECISION, DEALER_DECISION, PLAY or OVER")
    dealer: np.ndarray = _f(np.int8, (), 0, "dealer's seat")
    leader: np.ndarray = _f(np.int8, (), 0, "seat that led the current trick")
    trick_card: np.ndarray = _f(np.int8, (4,), -1, "card played to the current trick by each seat (-1 none)")
    trick: np.ndarray = _f(U64, (), 0, "cards in the current trick")
    led_suit: np.ndarray = _f(np.int8, (), -1, "suit led to the current trick (-1 none)")
    trick_winner: np.ndarray = _f(np.int8, (), -1, "seat winning the current trick so far (-1 none)")
    trick_best: np.ndarray = _f(np.int8, (), 0, "ranking key of the winning card so far")
    n_in_trick: np.ndarray = _f(np.int8, (), 0, "cards in the current trick")
    tricks_done: np.ndarray = _f(np.int8, (), 0, "tricks completed this hand")
    hand_size: np.ndarray = _f(np.int8, (), 0, "cards each player was dealt this hand (6, 9, ...)")
    runs: np.ndarray = _f(np.int8, (), 0, "times the pack was run this hand (§4)")
    begged: np.ndarray = _f(bool, (), False, "the beggar begged")
    gave_one: np.ndarray = _f(bool, (), False, "the dealer gave one")
    captured: np.ndarray = _f(U64, (2,), 0, "cards won in tricks by each team")
    game_value: np.ndarray = _f(np.int16, (2,), 0, "each team's Game value (§2)")
    points: np.ndarray = _f(np.int16, (2,), 0, "points of the current hand per team")
    score: np.ndarray = _f(np.int16, (2,), 0, "match score per team")
    items: np.ndarray = _f(np.int8, (4,), -1, "team winning High, Low, Jack/Hang jack, Game of the last scored hand (-1 none)")
    credited: np.ndarray = _f(
        np.int8, (), 4, "how many of those items were credited, in that order (fewer when a match was won at one, §6)")
    hang: np.ndarray = _f(bool, (), False, "the jack was hanged")
    winner: np.ndarray = _f(np.int8, (), -1, "team that won the match (-1 none)")
    redeals: np.ndarray = _f(np.int16, (), 0, "redeals after pack exhaustion (§4)")
    hands_played: np.ndarray = _f(np.int16, (), 0, "hands scored in this match")
    voids: np.ndarray = _f(
        np.uint8, (4,), 0,
        "suits each seat has shown it lacks this deal (bit s = suit s; public, §5: a card off the suit led, "
        "and with undertrump='forbidden' an undertrump shows every plain suit); read by determinize",
    )
    last_trick: np.ndarray = _f(np.int8, (4,), -1, "card each seat played to the last completed trick (-1 none)")
    last_leader: np.ndarray = _f(np.int8, (), -1, "leader of the last completed trick (-1 none)")
    last_winner: np.ndarray = _f(np.int8, (), -1, "winner of the last completed trick (-1 none)")
    last_points: np.ndarray = _f(np.int16, (2,), 0, "hand points of the last scored hand (kept into the next hand)")
    last_game_value: np.ndarray = _f(np.int16, (2,), 0, "Game values of the last scored hand")
    last_high_low: np.ndarray = _f(
        np.int8, (5,), -1, "last scored hand: High card and its seat, Low card and its seat, seat dealt the jack (§6)"
    )
    last_trump: np.ndarray = _f(np.int8, (), -1, "trump suit of the last scored hand (-1 none scored yet)")
    last_score: np.ndarray = _f(np.int16, (2,), 0, "match score once the last scored hand's items were credited")


#: the state's arrays as compiled code sees them (a namedtuple with the fields of :class:`AllFoursState`)
AllFoursArrays = arrays_type(AllFoursState, "AllFoursArrays", __name__)


class AllFoursKernel(CompiledKernel):
    """Batched All Fours, Trinidad rules (``RULES.md``).

    Options (``RULES.md`` §8; a bad value raises ``ValueError`` listing the valid ones):

    ============================  ===========================================  ============
    option                        values                                       default
    ============================  ===========================================  ============
    ``episode``                   ``"hand"``, ``"match"``                      ``"hand"``
    ``reward``                    ``"score"`` (points difference), ``"win"``   ``"score"``
    ``target_score``              int 1..10000                                 14
    ``kick_points``               ``"trinidad"``, ``"tobago"``                 ``"trinidad"``
    ``score_rejected_kicks``      bool                                         True
    ``jack_points``               int 0..1000                                  1
    ``hang_jack_points``          int 0..1000                                  3
    ``game_points``               int 0..1000                                  1
    ``game_tie``                  ``"none"``, ``"beggar_team"``, ``"dealer_team"``  ``"none"``
    ``undertrump``                ``"allowed"``, ``"forbidden"``               ``"allowed"``
    ``forbid_game_ending_give_one``  bool                                      False
    ``deal_packet``               3, 1                                         3
    ``first_dealer``              seat 0..3 or None (random; "random" too)      None
    ``max_redeals``               int 1..30000                                 50
    ``max_hands``                 int 1..30000                                 500
    ============================  ===========================================  ============
    """

    renderer = _render  # render() and table_view() (Kernel)
    #: in a match, every agent's infos give each scored hand's items when it ends (RULES.md §7): the
    #: step of a hand's last card deals the next hand, so the observation no longer shows them
    DEAL_COUNTER = "hands_played"

    name = "all_fours"
    display_name = "All Fours"
    next_seat_side = "right"  # play goes anticlockwise (§1)
    deck = FRENCH52
    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    teams = [[0, 2], [1, 3]]
    zero_sum = True
    OPTIONS = {
        "episode": Option("hand", choices=("hand", "match")),
        "reward": Option("score", choices=("score", "win")),
        "target_score": int_option(14, 1, 10_000),  # §8 int >= 1; int16 scores; the observation clips at 255
        "kick_points": Option("trinidad", choices=("trinidad", "tobago")),
        "score_rejected_kicks": bool_option(True),
        "jack_points": int_option(1, 0, 1_000),
        "hang_jack_points": int_option(3, 0, 1_000),
        "game_points": int_option(1, 0, 1_000),
        "game_tie": Option("none", choices=("none", "beggar_team", "dealer_team")),
        "undertrump": Option("allowed", choices=("allowed", "forbidden")),
        "forbid_game_ending_give_one": bool_option(False),
        "deal_packet": Option(3, choices=(3, 1)),
        "first_dealer": Option(None, choices=(None, 0, 1, 2, 3), aliases=(("random", None),)),
        "max_redeals": int_option(50, 1, 30_000),
        "max_hands": int_option(500, 1, 30_000),
    }

    INIT_HOOKS = ("deck", "dealer", "score")
    CARD_HOOKS = ("deck",)

    State = AllFoursState
    Arrays = AllFoursArrays
    rules = _rules
    #: chance after a step: first every redeal (pack exhausted, §4), then every new hand of a match
    CHANCE_ORDER = (_rules.NEED_REDEAL, _rules.NEED_DEAL)

    def __init__(self, **options) -> None:
        super().__init__(**options)
        o = self.options
        self.match = o["episode"] == "match"
        self.target = int(o["target_score"])
        self._obs_layout = _obs.observation_layout(self.target)
        self._state_layout = _obs.state_layout(self.target)

    def make_params(self) -> np.ndarray:
        """The option vector ``int64[rules.P_SIZE]`` of the compiled rules (``RULES.md`` §8)."""
        o = self.options
        P = np.zeros(_rules.P_SIZE, dtype=np.int64)
        P[_rules.P_MATCH] = self.match
        P[_rules.P_TARGET] = self.target
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
        P[_rules.P_SCORE_HIGH] = int(self._obs_layout.entries[-1].high)
        P[_rules.P_KICK : _rules.P_KICK + 13] = KICK_POINTS[o["kick_points"]]
        return P

    # ------------------------------------------------------------------ layouts
    @property
    def max_episode_steps(self) -> int:
        """Agent steps bound: per deal at most 2 decisions; 48 card plays per hand."""
        per_hand = 2 * self.options["max_redeals"] + 48
        return per_hand * (self.options["max_hands"] if self.match else 1)

    # ------------------------------------------------------------------ names
    def action_name(self, action: int) -> str:
        """``"10H"`` for card ids 0..51, ``"STAND"``/``"BEG"``/``"GIVE_ONE"``/``"RUN"`` for 52..55 (the
        actions of RULES.md §4); ``ValueError`` for anything else (:meth:`valid_action_id`)."""
        a = self.valid_action_id(action)
        return FRENCH52.names[a] if a < NUM_CARDS else PHASE_ACTIONS[a]

    # ------------------------------------------------------------------ init / dealing (§3)
    def new_games(self, st: AllFoursState, rng, rows: np.ndarray, deck=None, dealer=None, score=None) -> int:
        """Shuffle the fresh games ``rows`` (``int64[n]``) of ``st`` (§3); returns the chance code with
        which the compiled ``deal_one`` deals them (``CompiledKernel.new_games``).

        Test hooks (``init(rng, B, deck=..., ...)``, used by the worked-example tests; ``n`` games):
            deck: ``int[52]`` or ``int[n, 52]`` stock order (position 0 is the top) instead of a shuffle.
            dealer: seat or ``int[n]`` of the first dealer (else ``first_dealer`` option, else random).
            score: ``int[2]`` or ``int[n, 2]`` match score (team A, team B) before the first deal,
                each below ``target_score``.

        Raises ``ValueError`` when a hook value is not a permutation / seat / score in range.
        """
        n = rows.size
        if dealer is None:
            dealer = self.options["first_dealer"]
        if dealer is None:
            st.dealer[rows] = chance.integers(rng, rows, 0, 4, kind="dealer")
        else:
            st.dealer[rows] = hook_ints("dealer", dealer, (n,), 0, 3)
        if score is not None:
            st.score[rows] = hook_ints("score", score, (n, 2), 0, self.target - 1)
        stock = None
        if deck is not None:
            stock = hook_deck("deck", deck, (n, 52)).astype(np.int8)
        st.stock[rows] = self._shuffle(rng, rows, "deal") if stock is None else stock
        return _rules.NEED_DEAL

    @staticmethod
    def _shuffle(rng, idx: np.ndarray, kind: str = "deal") -> np.ndarray:
        """Stock orders ``int8[len(idx), 52]`` for games ``idx`` (``rng``: see :mod:`~cardzoo.envs.core.chance`)."""
        return chance.permutations(rng, idx, 52, kind)

    def draw_chance(self, st: AllFoursState, rows: np.ndarray, code: int, rng) -> None:
        """Shuffle the stock of games ``rows`` (``int64[n]``) for chance ``code`` (``rules.NEED_DEAL``: a
        new hand, kind ``"deal"``; ``rules.NEED_REDEAL``: pack exhaustion, kind ``"redeal"``, §4).
        The compiled :func:`rules.deal_one` then deals it (§3)."""
        st.stock[rows] = self._shuffle(rng, rows, "deal" if code == _rules.NEED_DEAL else "redeal")

    # ------------------------------------------------------------------ search (determinization)
    def determinize(self, st: AllFoursState, seat, rng: np.random.Generator) -> AllFoursState:
        """A copy of ``st`` with the cards ``seat`` cannot see dealt again at random (for PIMC search).

        ``seat``: int or ``int[B]``. Kept: ``seat``'s hand, every card played (and by whom), the
        turned-up cards, trump, scores, captured cards. Redealt uniformly: the unseen cards (the
        other seats' hands, keeping each hand's size, and the undealt stock positions 25..51 that a
        run of the pack deals, §3-§4). Played cards stay in each seat's ``dealt`` set, so High and
        Low (§6) are scored on a consistent deal. Every void that earlier tricks showed (``voids``,
        §5) is respected: each unseen card goes to a place that may hold it with probability
        proportional to the room left (uniform where no void is shown, close to uniform where one
        is), and a game where that breaks a void is dealt again uniformly among the deals that
        respect them (:func:`cardzoo.envs.all_fours.determinize.redeal_voids_exactly`, after the
        draws below). Stock positions that are never read again are
        set to -1 (the turned cards keep theirs: they are public), so the copy holds no hidden card of ``st``: the result depends only on what
        ``seat`` may know and on ``rng``. Compiled (:func:`cardzoo.envs.all_fours.determinize.redeal_unseen`);
        ``rng`` gives ``random((B, 52), float32)`` keys, then ``random((52, B))`` uniforms, then
        (games dealt again) the draws of :func:`cardzoo.envs.core.determinize.deal_unseen`.

        Raises ``ValueError`` for a seat that is not an int 0..3 (or ints of shape ``[B]``) and an ``rng``
        that is not a ``numpy.random.Generator`` (:meth:`~cardzoo.envs.core.kernel.Kernel.check_determinize`).
        """
        seats = self.check_determinize(st, seat, rng)
        B = st.batch_size
        keys = rng.random((B, NUM_CARDS), dtype=np.float32)  # the order in which unseen cards are dealt
        u = rng.random((NUM_CARDS, B))  # where each goes
        out = st.copy()
        _determinize.redeal_unseen(
            out.hands, out.dealt, out.played, out.kicked, out.voids, out.stock, out.runs, seats, keys, u,
            np.empty(NUM_CARDS, dtype=np.int64), np.empty(NUM_CARDS, dtype=np.int8),
        )
        _determinize.redeal_voids_exactly(st, out, seats, keys, rng)
        return out

    # ------------------------------------------------------------------ views
    def info(self, st: AllFoursState, b: int = 0) -> dict:
        """Public facts for ``infos``: the current hand's phase, dealer, trump and points, the match
        score, ``last_hand`` (:meth:`hand_result`) once a hand has been scored, and the reason for a
        truncation. In a match the AEC env gives it to every agent at the step each hand is scored
        (``DEAL_COUNTER``): the next hand is dealt in that step, so ``phase``, ``dealer``, ``trump`` and
        ``hand_points`` are already the next hand's (its kick), ``score`` includes that kick, and
        ``last_hand`` is the hand just scored (RULES.md §7)."""
        b = self.check_game(st, b)
        out = {
            "phase": PHASE_NAMES[int(st.phase[b])],
            "dealer": int(st.dealer[b]),
            "trump": FRENCH52.suit_names[int(st.trump[b])],
            "hand_points": st.points[b].tolist(),
            "score": st.score[b].tolist(),
        }
        if st.last_trump[b] >= 0:
            out["last_hand"] = self._hand_result(st, b)
        if st.truncated[b]:
            out["truncation"] = (
                f"max_redeals={self.options['max_redeals']} reached"
                if st.redeals[b] >= self.options["max_redeals"]
                else f"max_hands={self.options['max_hands']} reached"
            )
        return out

    def hand_result(self, st: AllFoursState, b: int = 0) -> dict:
        """The last scored hand of game ``b`` (§6), from public facts only: every dealt card was played,
        so High, Low and the jack's holder are known to all at its end (§7). Teams are ``"A"``/``"B"``
        (``None``: nobody), seats 0..3, pairs team A first.

        ``trump``; ``high`` and ``low``: ``{"team", "points", "card", "seat"}`` (the card and the seat it
        was dealt to; ``None`` when no trump was dealt); ``jack``: ``{"team", "points", "card", "seat",
        "hang"}`` (``seat`` dealt the jack of trumps, ``None`` when it was not dealt; ``hang``: won by
        the opponents, who score Hang jack); ``game``: ``{"team", "points", "game_value"}``. ``points``
        is what the item credited: 0 when nobody won it, and for the items after the one that won the
        match (§6 counting order), which are not credited. ``credited``: how many items, in the order
        High, Low, Jack, Game, were credited (4 unless the match was won at one). ``kicks_and_give_one``:
        the hand's kick and give-one points; ``hand_points``: its total (kicks and give-one + credited
        items); ``score``: the match score at its end. ``ValueError`` when no hand was scored yet."""
        return self._hand_result(st, self.check_game(st, b))

    def _hand_result(self, st: AllFoursState, b: int) -> dict:
        """:meth:`hand_result` of a checked game index (run at every episode's end: kept cheap)."""
        trump = int(st.last_trump[b])
        if trump < 0:
            raise ValueError(f"game {b} has no scored hand yet")
        o = self.options
        names = FRENCH52.names
        items = st.items[b].tolist()
        credited = int(st.credited[b])
        hang = bool(st.hang[b])
        worth = (1, 1, o["hang_jack_points"] if hang else o["jack_points"], o["game_points"])
        scored = [worth[i] if items[i] >= 0 and i < credited else 0 for i in range(4)]
        made = [sum(p for p, t in zip(scored, items) if t == team) for team in range(2)]
        points = st.last_points[b].tolist()
        hc, hs, lc, ls, js = st.last_high_low[b].tolist()

        def team(t: int) -> str | None:
            return "AB"[t] if t >= 0 else None

        return {
            "trump": FRENCH52.suit_names[trump],
            # a seat is an int always, -1 for none (None beside ints broke Gymnasium's vector infos)
            "high": {"team": team(items[0]), "points": scored[0], "card": names[hc] if hc >= 0 else None,
                     "seat": hs if hs >= 0 else -1},
            "low": {"team": team(items[1]), "points": scored[1], "card": names[lc] if lc >= 0 else None,
                    "seat": ls if ls >= 0 else -1},
            "jack": {"team": team(items[2]), "points": scored[2], "card": names[13 * trump + JACK_RANK] if js >= 0 else None,
                     "seat": js if js >= 0 else -1, "hang": hang},
            "game": {"team": team(items[3]), "points": scored[3], "game_value": st.last_game_value[b].tolist()},
            "credited": credited,
            "kicks_and_give_one": [points[t] - made[t] for t in range(2)],
            "hand_points": points,
            "score": st.last_score[b].tolist(),
        }

    def hand_size_counts(self, st: AllFoursState) -> np.ndarray:
        """Cards held per seat, ``uint8[B, 4]`` (absolute seats; hand sizes are public, §7)."""
        return popcount(st.hands)

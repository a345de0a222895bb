"""Avinas rules as a batched kernel.

Implements ``envs/avinas/RULES.md`` (sections cited as §n): the deal in packets of four with
the exposure of the 4th and 8th cards (§3), the sevens game with its knocks and the no-sevens
game with its calls, throw-ins, naming of trumps, honesty check and the declarer's stop (§4),
trick play with the trick-1 trump lead and the trick-2 face-down lead and its one-bit signal
(§5), scoring in rams and pips and the match to ``pip_limit`` pips (§6).

State is an :class:`AvinasState` of numpy arrays with a leading batch axis ``B``; card sets are
``uint64`` bitboards over the 32 card ids of :data:`cardzoo.envs.core.cards.FRENCH32` (``8*suit + rank``,
suits C D H S, ranks 7 8 9 10 J Q K A). The rules themselves are compiled single-game functions
(:mod:`cardzoo.envs.avinas.rules`, numba) that the core's frame
(:class:`cardzoo.envs.core.compiled.CompiledKernel`) runs over the batch and at B = 1; this module
declares the state, turns the options into the rules' option vector, draws the chance (every
shuffle is drawn here, in Python, through :mod:`cardzoo.envs.core.chance`) and holds the views
and search.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.cards import FRENCH32, mask_to_cards
from ..core import chance
from ..core.compiled import CompiledKernel, arrays_type
from ..core.kernel import BatchState, Option, bool_option, hook_deck, hook_ints, int_option, state_field
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

U64 = np.uint64
_f = state_field


@dataclasses.dataclass
class AvinasState(BatchState):
    """Batched Avinas state; ``B`` games, seats 0..3 clockwise, teams ``seat % 2`` (A = 0, B = 1).
    Card sets are ``uint64`` bitboards over the 32 card ids. Private: ``stock``, ``hands``, ``dealt``,
    ``dealer_seen``, the face-down card in ``played`` / ``trick`` / ``trick_card``, ``lied`` (until
    scored), ``signal`` (the leader's partner only); the rest is public (§7)."""

    stock: np.ndarray = _f(np.int8, (32,), 0, "the shuffled pack of this deal (position 0 dealt first, §3)")
    hands: np.ndarray = _f(U64, (4,), 0, "cards held now, by absolute seat")
    dealt: np.ndarray = _f(U64, (4,), 0, "cards dealt to each seat this deal")
    played: np.ndarray = _f(U64, (4,), 0, "cards each seat played this deal (a face-down card from the moment it is led)")
    exposed: np.ndarray = _f(U64, (), 0, "key cards turned face up for everyone (§3.3)")
    dealer_seen: np.ndarray = _f(U64, (), 0, "the dealer's side's key cards that stayed hidden (seen by the dealer only)")
    game: np.ndarray = _f(np.int8, (), 0, "SEVENS or NO_SEVENS")
    phase: np.ndarray = _f(np.int8, (), 0, "KNOCKING, CALLING, DECLARING, SIGNAL, PLAY, STOPPING or OVER")
    dealer: np.ndarray = _f(np.int8, (), 0, "dealer's seat")
    declarer: np.ndarray = _f(np.int8, (), -1, "declarer's seat (-1 none yet)")
    trump: np.ndarray = _f(np.int8, (), -1, "trump suit (-1 not yet named)")
    knock_stage: np.ndarray = _f(np.int8, (), 0, "who may knock: 0 declarer, 1 his partner, 2 his left, 3 his right (§4.1)")
    knocked: np.ndarray = _f(bool, (4,), False, "seats that knocked (or knocked back) this deal")
    calls: np.ndarray = _f(np.int8, (4,), -1, "calls by seat: -1 not yet acted, 0 pass, N call N (§4.2)")
    high_call: np.ndarray = _f(np.int8, (), 0, "highest call so far")
    n_calls: np.ndarray = _f(np.int8, (), 0, "calls and passes made this deal")
    leader: np.ndarray = _f(np.int8, (), 0, "seat that led the current trick")
    led: np.ndarray = _f(np.int8, (), -1, "led to the current trick: -1 none, 0..3 a plain suit, 4 trumps (or face down)")
    trick_winner: np.ndarray = _f(np.int8, (), -1, "seat winning the current trick so far (-1 none)")
    trick_best: np.ndarray = _f(np.int8, (), 0, "strength of the winning card so far")
    n_in_trick: np.ndarray = _f(np.int8, (), 0, "cards in the current trick")
    tricks_done: np.ndarray = _f(np.int8, (), 0, "tricks completed this deal")
    trick_card: np.ndarray = _f(np.int8, (4,), -1, "card played to the current trick by each seat (-1 none)")
    trick: np.ndarray = _f(U64, (), 0, "cards in the current trick (a face-down card included)")
    fd_seat: np.ndarray = _f(np.int8, (), -1, "seat that led face down to the current trick (-1 none)")
    signal: np.ndarray = _f(np.int8, (), -1, "the face-down card is valuable: 1, not: 0, -1 none / not yet (§5)")
    points: np.ndarray = _f(np.int16, (2,), 0, "card points won this deal by team")
    tricks_won: np.ndarray = _f(np.int8, (2,), 0, "tricks won this deal by team")
    lied: np.ndarray = _f(bool, (), False, "the declarer failed the honesty check this deal (§4.2.4)")
    stopped: np.ndarray = _f(bool, (), False, "the declarer stopped this deal (§4.2.5)")
    ram_balance: np.ndarray = _f(np.int16, (), 0, "rams(A) - rams(B)")
    pips: np.ndarray = _f(np.int16, (2,), 0, "pips by team")
    deals: np.ndarray = _f(np.int16, (), 0, "scored deals in this match")
    throw_ins: np.ndarray = _f(np.int16, (), 0, "consecutive thrown-in deals")
    last_loser: np.ndarray = _f(np.int8, (), -1, "team that lost the last scored deal (-1 none)")
    last_penalty: np.ndarray = _f(np.int16, (), 0, "rams or pips the last loser received")
    last_game: np.ndarray = _f(np.int8, (), -1, "game type of the last scored deal (-1 none)")
    last_lied: np.ndarray = _f(bool, (), False, "the last scored deal's declarer lied")
    last_stopped: np.ndarray = _f(bool, (), False, "the last scored deal's declarer stopped")
    last_declarer: np.ndarray = _f(np.int8, (), -1, "the last scored deal's declarer (-1 none)")
    last_trump: np.ndarray = _f(np.int8, (), -1, "the last scored deal's trump suit (-1 none)")
    last_knocked: np.ndarray = _f(bool, (4,), False, "seats that knocked in the last scored deal")
    last_points: np.ndarray = _f(np.int16, (2,), 0, "card points won in the last scored deal by team")
    last_tricks: np.ndarray = _f(np.int8, (2,), 0, "tricks won in the last scored deal by team")
    winner: np.ndarray = _f(np.int8, (), -1, "team that won the match (-1 none)")
    clean: np.ndarray = _f(bool, (), False, "the match ended in a clean defeat (§6.4)")
    voids: np.ndarray = _f(
        np.uint8, (4,), 0,
        "what each seat showed it lacks this deal (§5): bit s the plain cards of suit s, bit 4 trumps "
        "(not following a trump or face-down lead, or leading face down); read by determinize",
    )


#: the state's arrays as compiled code sees them (a namedtuple with the fields of :class:`AvinasState`)
AvinasArrays = arrays_type(AvinasState, "AvinasArrays", __name__)


class AvinasKernel(CompiledKernel):
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
    ``valuable_min_points``  int -1000..1000                                   10
    ``no7_stop``             bool                                              True
    ``trump_lead_rule``      ``"trick2"``, ``"every_lead"``                    ``"trick2"``
    ``pip_limit``            int 1..249                                        12
    ``max_throw_ins``        int 1..30000                                      50
    ``max_deals``            int 1..30000                                      500
    =======================  ================================================  ================
    """

    renderer = _render  # render() and table_view() (Kernel)
    #: in a match, every agent's infos give each scored deal's result when it ends (RULES.md §7): the
    #: step that scores a deal deals the next one, whose facts replace it in the observation
    DEAL_COUNTER = "deals"

    name = "avinas"
    display_name = "Avinas"
    deck = FRENCH32
    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    teams = [[0, 2], [1, 3]]
    zero_sum = True
    OPTIONS = {
        "first_dealer": Option("random", choices=("random", 0, 1, 2, 3), aliases=((None, "random"),)),
        "episode": Option("deal", choices=("deal", "match")),
        "reward": Option("score", choices=("score", "win")),
        "knock_back": Option("after_knock", choices=("after_knock", "always", "never")),
        "ram_schedule": Option("flat", choices=("flat", "graded")),
        "pip_schedule": Option("graded", choices=("graded", "flat")),
        "call_count": Option("trumps", choices=("trumps", "suit")),
        "honesty": Option("penalize", choices=("penalize", "mask")),
        "facedown_signal": Option("auto", choices=("auto", "free", "none")),
        "valuable_min_points": int_option(10, -1_000, 1_000),  # §8 int; no card is worth more than 11
        "no7_stop": bool_option(True),
        "trump_lead_rule": Option("trick2", choices=("trick2", "every_lead")),
        "pip_limit": int_option(12, 1, 249),  # the observation's uint8 holds pips up to pip_limit + 6
        "max_throw_ins": int_option(50, 1, 30_000),  # int16 counters
        "max_deals": int_option(500, 1, 30_000),
    }
    INIT_HOOKS = ("deck", "dealer", "pips", "ram_balance")
    CARD_HOOKS = ("deck",)

    State = AvinasState
    Arrays = AvinasArrays
    rules = _rules
    #: chance after a step, in the numpy kernel's order: the deals after a last trick, the redeals
    #: after a throw-in (§4.2.2), the deals after a stop (§4.2.5)
    CHANCE_ORDER = _rules.CHANCE_ORDER

    def __init__(self, **options) -> None:
        super().__init__(**options)
        o = self.options
        self.match = o["episode"] == "match"
        #: ``uint64[4]`` the cards a call counts in each suit (§4.2, ``call_count``)
        self.count_bb = TRUMP_BB if o["call_count"] == "trumps" else PLAIN_BB
        self.vmin = int(o["valuable_min_points"])
        self._obs_layout = _obs.observation_layout(o["pip_limit"])
        self._state_layout = _obs.state_layout(o["pip_limit"])

    def make_params(self) -> np.ndarray:
        """The option vector ``int64[rules.P_SIZE]`` of the compiled rules (``RULES.md`` §8)."""
        o = self.options
        P = np.zeros(_rules.P_SIZE, dtype=np.int64)
        P[_rules.P_MATCH] = self.match
        P[_rules.P_REWARD_WIN] = o["reward"] == "win"
        P[_rules.P_KNOCK_BACK] = ("after_knock", "always", "never").index(o["knock_back"])
        P[_rules.P_RAM_GRADED] = o["ram_schedule"] == "graded"
        P[_rules.P_PIP_GRADED] = o["pip_schedule"] == "graded"
        P[_rules.P_CALL_SUIT] = o["call_count"] == "suit"
        P[_rules.P_HONESTY_MASK] = o["honesty"] == "mask"
        P[_rules.P_SIGNAL] = ("auto", "free", "none").index(o["facedown_signal"])
        P[_rules.P_VMIN] = self.vmin
        P[_rules.P_NO7_STOP] = bool(o["no7_stop"])
        P[_rules.P_EVERY_LEAD] = o["trump_lead_rule"] == "every_lead"
        P[_rules.P_PIP_LIMIT] = o["pip_limit"]
        P[_rules.P_MAX_THROW_INS] = o["max_throw_ins"]
        P[_rules.P_MAX_DEALS] = o["max_deals"]
        P[_rules.P_PIPS_HIGH] = int(next(e.high for e in self._obs_layout.entries if e.name == "pips"))
        return P

    # ------------------------------------------------------------------ layouts
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
        ``STOP``, ``SIGNAL_VALUABLE``, ``SIGNAL_NOT_VALUABLE`` (64..82), as listed in RULES.md §8.
        ``ValueError`` if out of range."""
        a = self.valid_action_id(action)
        if a < NUM_CARDS:
            return FRENCH32.names[a]
        if a < FACEDOWN + NUM_CARDS:
            return "FD_" + FRENCH32.names[a - FACEDOWN]
        return PHASE_ACTIONS[a]

    # ------------------------------------------------------------------ init / dealing (§3)
    def new_games(self, st: AvinasState, rng, rows: np.ndarray, deck=None, dealer=None, pips=None, ram_balance=None) -> int:
        """Shuffle the fresh games ``rows`` (``int64[n]``) of ``st`` (§3); returns the chance code with
        which the compiled ``deal_one`` deals them (``CompiledKernel.new_games``).

        Test hooks (``init(rng, B, deck=..., ...)``; also ``reset(options=...)`` of the env):
            deck: ``int[32]`` or ``int[n, 32]`` pack order (position 0 is dealt first) for the first
                deal instead of a shuffle (a redeal after a throw-in is shuffled from ``rng``).
            dealer: seat or ``int[n]`` first dealer (else the ``first_dealer`` option).
            pips: ``int[2]`` or ``int[n, 2]`` pips of teams A, B before the first deal (< ``pip_limit``).
            ram_balance: int or ``int[n]`` rams(A) - rams(B) before the first deal (-100..100).

        Raises ``ValueError`` when a hook is not a permutation / seat / value in range.
        """
        n = rows.size
        if dealer is None and self.options["first_dealer"] == "random":  # a hook must be seats (hook_ints)
            st.dealer[rows] = chance.integers(rng, rows, 0, 4, kind="dealer")
        else:
            st.dealer[rows] = hook_ints("dealer", self.options["first_dealer"] if dealer is None else dealer, (n,), 0, 3)
        if pips is not None:
            st.pips[rows] = hook_ints("pips", pips, (n, 2), 0, self.options["pip_limit"] - 1)
        if ram_balance is not None:
            st.ram_balance[rows] = hook_ints("ram_balance", ram_balance, (n,), -100, 100)
        if deck is None:
            self.draw_chance(st, rows, _rules.NEED_DEAL_PLAY, rng)
        else:
            stock = hook_deck("deck", deck, (n, 32)).astype(np.int8)
            st.stock[rows] = stock
        return _rules.NEED_DEAL_PLAY

    def draw_chance(self, st: AvinasState, rows: np.ndarray, code: int, rng) -> None:
        """Shuffle the pack of games ``rows`` (``int64[n]``) for chance ``code`` (``rules.NEED_REDEAL``:
        after a throw-in, kind ``"redeal"``; the other codes: a new deal, kind ``"deal"``; §3). The
        compiled :func:`rules.deal_one` then deals it.

        In a match a throw-in passes the deal (§3) as a scored deal does, so its redeal is the match's
        next dealing and draws kind ``"deal"``: with the arena's row streams the j-th dealing of a match
        then has the same dealer and the same pack in every seating, whichever seatings threw deals in
        (with ``"redeal"`` a throw-in in one seating moved its dealer one seat for the rest of the match,
        and the same packs went round one seat: the very hands the seat swap gives the other team)."""
        kind = "redeal" if code == _rules.NEED_REDEAL and not self.match else "deal"
        st.stock[rows] = chance.permutations(rng, rows, 32, kind)

    DEAL_CATEGORIES = ("sevens", "no_sevens")

    def deal_category(self, st: AvinasState) -> np.ndarray:
        """``int64[B]``: 0 for a sevens game, 1 for a no-sevens game (RULES.md §3.3: decided by the
        exposed key cards of the deal, before any decision)."""
        return (st.game == NO_SEVENS).astype(np.int64)

    def determinize(self, st: AvinasState, seat, rng: np.random.Generator) -> AvinasState:
        """A copy of ``st`` (a new state of the same batch size; ``st`` is unchanged) in which what
        ``seat`` cannot see is dealt again uniformly among the deals consistent with what it has
        seen (for PIMC search; RULES.md §7, voids §5, calls §4.2, exposed cards §3.3 and §11.12;
        what is kept and what is redealt: :mod:`cardzoo.envs.avinas.determinize`). The result
        depends only on ``seat``'s information and ``rng``.

        ``seat``: an int (a seat of this game) or ``int[B]``, one per game; ``rng``: a
        ``numpy.random.Generator`` (all the chance). ``ValueError`` for another seat or rng
        (:meth:`~cardzoo.envs.core.kernel.Kernel.check_determinize`) or a state made for another
        game or other options."""
        from .determinize import determinize

        return determinize(self, st, self.check_determinize(st, seat, rng), rng)

    # ------------------------------------------------------------------ views
    def known_cards(self, st: AvinasState, b: int = 0) -> list[list[int]]:
        """Held cards of each seat that another seat has seen: the exposed 4th/8th cards (everyone)
        and, in the dealer's partner's hand, his hidden 4th/8th cards (seen by the dealer), §3.3.
        The dealer's own hidden key cards are not listed: nobody else has seen them."""
        b = self.check_game(st, b)
        exposed, dealer_seen, dealer = int(st.exposed[b]), int(st.dealer_seen[b]), int(st.dealer[b])
        return [mask_to_cards(int(st.hands[b, s]) & (exposed | (0 if s == dealer else dealer_seen))) for s in range(4)]

    def episode_outcome(self, st: AvinasState, returns) -> np.ndarray:
        """As the core's (:meth:`Kernel.episode_outcome`), but a match is won as §6.4 says: the team
        that reaches the pip limit with the other at 0 pips, or holds rams, or has more pips loses,
        which the sum of the deals' rewards (rams or pips ÷ 2, ``reward="score"``) does not always
        tell (a team can be ahead on rewards and hold a ram at the end)."""
        out = super().episode_outcome(st, returns)
        won = np.asarray(st.winner) >= 0  # a decided match (-1: a deal episode, or a capped match)
        if won.any():
            team = np.array([t for s in range(4) for t, seats in enumerate(self.teams) if s in seats])
            out[won] = np.where(team[None, :] == st.winner[won][:, None], 1, -1).astype(np.int8)
        return out

    def action_is_public(self, st: AvinasState, b: int, action: int) -> bool:
        """Whether the other seats see which ``action`` the seat to act takes (§7): not a face-down
        lead ``FD_<card>`` (§5: its card stays hidden until the trick is complete, so front ends and
        logs must not name it) and not a ``"free"`` valuable signal (§11.3: for the partner alone);
        every other action is public."""
        _, a = self.check_public_args(st, b, action)
        return not (FACEDOWN <= a < FACEDOWN + NUM_CARDS or a in (SIG_VALUABLE, SIG_NOT_VALUABLE))

    def announce(self, before: AvinasState, after: AvinasState, action: int, actor: int, viewer: int) -> list[str] | None:
        """What ``viewer`` learns from ``actor``'s ``action`` (terminal play, the web table's log). Only
        the ``"free"`` valuable signal (§11.3) differs by seat: the leader's partner is told it
        (``player_2 signals SIGNAL_VALUABLE to you``), the opponents that a hidden move was made, the
        actor nothing new (``[]``). ``None`` for every other action: shown by name, or a face-down
        lead as a face-down card (:meth:`action_is_public`)."""
        a = int(action)
        if a not in (SIG_VALUABLE, SIG_NOT_VALUABLE):
            return None
        if viewer == actor:
            return []
        if viewer == (actor + 2) % NUM_PLAYERS:
            return [f"player_{actor} signals {self.action_name(a)} to you"]
        return [f"player_{actor} makes a hidden move"]

    def info(self, st: AvinasState, b: int = 0) -> dict:
        """Public facts for ``infos``: the current deal's game, declarer, trump, calls, knocks, card
        points and tricks; the last scored deal's result: its game (``last_game``), declarer, trump,
        knocks, card points and tricks won per team, loser and penalty (rams or pips), whether its
        declarer lied or stopped; rams, pips, scored deals, winner. In a match the AEC env gives it to
        every agent at the step each deal is scored (``DEAL_COUNTER``): the next deal is dealt in that
        step, so the current deal's facts are already the next deal's (RULES.md §7). (A match
        truncated by ``max_throw_ins`` ends on a thrown-in deal: its facts differ from the last
        scored deal's.)"""
        b = self.check_game(st, b)
        tr = int(st.trump[b])
        out = {
            "game": GAME_NAMES[int(st.game[b])],  # the deal that declarer, trump, calls ... describe
            "last_game": GAME_NAMES[int(st.last_game[b])] if st.last_game[b] >= 0 else None,  # the last scored deal
            "dealer": int(st.dealer[b]),
            "declarer": int(st.declarer[b]),
            "trump": SUITS[tr] if tr >= 0 else None,
            "calls": st.calls[b].tolist(),
            "knocked": st.knocked[b].tolist(),
            "card_points": st.points[b].tolist(),
            "tricks_won": st.tricks_won[b].tolist(),
            "last_declarer": int(st.last_declarer[b]),
            "last_trump": SUITS[int(st.last_trump[b])] if st.last_trump[b] >= 0 else None,
            "last_knocked": st.last_knocked[b].tolist(),
            "last_card_points": st.last_points[b].tolist(),
            "last_tricks_won": st.last_tricks[b].tolist(),
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

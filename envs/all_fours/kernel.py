"""All Fours (Trinidad) rules as a batched kernel.

Implements ``envs/all_fours/RULES.md`` (sections cited as §n below): dealing and kicks
(§3), stand / beg / give one / run the pack with re-kicks and pack exhaustion (§4), trick
play with the follow rules and both ``undertrump`` settings (§5), and scoring High, Low,
Jack / Hang jack and Game in the counting order of §6, per hand or per match.

State is a :class:`AllFoursState` of numpy arrays with a leading batch axis ``B``; every
card set is a ``uint64`` bitboard over the 52 card ids of :data:`cardzoo.envs.core.cards.FRENCH52`
(``id = 13*suit + rank``, suits C D H S, ranks 2..A). The step path has no Python loop over
the batch: games are grouped by phase and each group is advanced with array operations.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.cards import FRENCH52, bit, mask_to_cards, popcount, unpack_bits
from ..core import chance
from ..core.kernel import BatchState, Kernel, Layout, Option, bool_option, int_option
from . import observation as _obs
from . import render as _render
from .constants import (
    ABOVE,
    ALL_CARDS,
    BEG,
    BEG_DECISION,
    DEALER_DECISION,
    FIRST_KICK,
    GAME_VALUE,
    GIVE_ONE,
    HIGHEST,
    JACK_RANK,
    KICK_POINTS,
    LOWEST,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    OVER,
    PHASE_ACTIONS,
    PHASE_NAMES,
    PLAY,
    RUN,
    RUN_KICKS,
    STAND,
    SUIT_BITS,
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


def _deal_positions(start: int, per_player: int, packet: int) -> np.ndarray:
    """int[4, per_player]: stock positions of the cards of the k-th player from the beggar."""
    pos = np.empty((4, per_player), dtype=np.intp)
    rounds = per_player // packet
    for k in range(4):
        for r in range(rounds):
            base = start + r * 4 * packet + k * packet
            pos[k, r * packet : (r + 1) * packet] = np.arange(base, base + packet)
    return pos


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
        self.kick_table = KICK_POINTS[o["kick_points"]]
        packet = o["deal_packet"]
        self.first_pos = _deal_positions(0, 6, packet)
        self.run_pos = [_deal_positions(25, 3, packet), _deal_positions(38, 3, packet)]
        self.item_points = np.array([1, 1, o["jack_points"], o["game_points"]], dtype=np.int16)
        self._obs_layout = _obs.observation_layout(self.target)
        self._state_layout = _obs.state_layout(self.target)

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
        self._new_deal(st, np.arange(B), rng, stock=stock)
        return st

    @staticmethod
    def _shuffle(rng, idx: np.ndarray, kind: str = "deal") -> np.ndarray:
        """Stock orders ``int8[len(idx), 52]`` for games ``idx`` (``rng``: see :mod:`~cardzoo.envs.core.chance`)."""
        return chance.uniform(rng, idx, (52,), np.float32, kind).argsort(axis=1).astype(np.int8)

    def _new_deal(self, st: AllFoursState, idx: np.ndarray, rng, stock=None, new_hand: bool = True) -> None:
        """Shuffle (or use ``stock``), deal 6 cards each and kick, for games ``idx`` (§3).

        ``new_hand=False`` is the redeal after pack exhaustion (§4): hand points are kept.
        """
        n = idx.size
        if n == 0:
            return
        st.stock[idx] = self._shuffle(rng, idx, "deal" if new_hand else "redeal") if stock is None else stock
        for name in ("hands", "dealt", "played", "captured", "game_value"):
            getattr(st, name)[idx] = 0
        st.kicked[idx] = 0
        st.voids[idx] = 0
        st.trick[idx] = 0
        st.trick_card[idx] = -1
        st.led_suit[idx] = -1
        st.trick_winner[idx] = -1
        st.last_trick[idx] = -1
        st.last_leader[idx] = -1
        st.last_winner[idx] = -1
        st.n_in_trick[idx] = 0
        st.tricks_done[idx] = 0
        st.runs[idx] = 0
        st.begged[idx] = False
        st.gave_one[idx] = False
        st.hand_size[idx] = 6
        st.phase[idx] = BEG_DECISION
        if new_hand:  # items/hang keep describing the last scored hand until the next one is scored
            st.points[idx] = 0
            st.redeals[idx] = 0
        self._deal_cards(st, idx, self.first_pos)
        beggar = (st.dealer[idx] + 1) % 4
        st.current_player[idx] = beggar
        st.leader[idx] = beggar
        suit = self._kick(st, idx, FIRST_KICK, scores=np.ones(n, dtype=bool))
        st.orig_suit[idx] = suit
        st.trump[idx] = suit

    def _deal_cards(self, st: AllFoursState, idx: np.ndarray, pos: np.ndarray) -> None:
        """Give the cards at stock positions ``pos[k]`` to the k-th player from the beggar."""
        cards = st.stock[idx][:, pos]  # [n, 4, per]
        bb = np.bitwise_or.reduce(bit(cards), axis=2)  # [n, 4]
        seats = (st.dealer[idx, None].astype(np.intp) + 1 + np.arange(4)) % 4  # [n, 4]
        rows = idx[:, None]
        st.hands[rows, seats] |= bb
        st.dealt[rows, seats] |= bb

    def _kick(self, st: AllFoursState, idx: np.ndarray, pos: int, scores: np.ndarray) -> np.ndarray:
        """Turn the card at stock ``pos`` for games ``idx``; credit kick points where ``scores``.

        Returns the kicked suits ``int8[n]``. Credits go to the dealer's team (§3) and can end a match.
        """
        card = st.stock[idx, pos]
        st.kicked[idx] |= bit(card)
        pts = self.kick_table[card % 13] * scores
        self._credit(st, idx, st.dealer[idx] % 2, pts)
        return card // 13

    # ------------------------------------------------------------------ crediting (§6)
    def _credit(self, st: AllFoursState, idx: np.ndarray, team: np.ndarray, pts: np.ndarray) -> None:
        """Add ``pts`` to ``team`` of games ``idx`` (skipping games already over); in match mode a
        team reaching the target wins at once (§6 counting order)."""
        live = ~st.done[idx] & (team >= 0) & (pts > 0)
        if not live.any():
            return
        i, t, p = idx[live], team[live].astype(np.intp), pts[live]
        st.points[i, t] += p
        st.score[i, t] += p
        if self.match:
            won = st.score[i, t] >= self.target
            if won.any():
                self._finish(st, i[won], winner=t[won])

    def _finish(self, st: AllFoursState, idx: np.ndarray, winner=None) -> None:
        """End the episode of games ``idx`` and set their rewards (§6 Rewards)."""
        st.done[idx] = True
        st.phase[idx] = OVER
        if winner is not None:
            st.winner[idx] = winner
        self._hand_rewards(st, idx)

    def _hand_rewards(self, st: AllFoursState, idx: np.ndarray) -> None:
        diff = (st.points[idx, 0] - st.points[idx, 1]).astype(np.float32)
        if self.options["reward"] == "win":
            if self.match:
                w = st.winner[idx]
                diff = np.where(w == 0, 1.0, np.where(w == 1, -1.0, 0.0)).astype(np.float32)
            else:
                diff = np.sign(diff)
        # += : a match-mode step can end one hand and the match on the next deal's kick
        st.rewards[idx, 0] += diff
        st.rewards[idx, 2] += diff
        st.rewards[idx, 1] -= diff
        st.rewards[idx, 3] -= diff

    # ------------------------------------------------------------------ legal actions (§4, §5)
    def legal_bitboard(self, st: AllFoursState) -> np.ndarray:
        """Legal actions as ``uint64[B]`` bitboards (bit ``a`` set = action ``a`` legal)."""
        B = st.batch_size
        ar = np.arange(B)
        p = st.current_player.astype(np.intp)
        hand = st.hands[ar, p]
        trump = st.trump.astype(np.intp)
        led = st.led_suit.astype(np.intp)
        tmask = SUIT_BITS[trump]
        trumps = hand & tmask
        lmask = SUIT_BITS[np.maximum(led, 0)]
        follow = hand & lmask
        zero = _U64(0)
        trump_led = led == trump
        # L = T: trumps only if any; L != T holding L: L cards or any trump; void: anything
        legal = np.where(
            led < 0,
            hand,
            np.where(trump_led, np.where(trumps != zero, trumps, hand), np.where(follow != zero, follow | trumps, hand)),
        )
        if self.options["undertrump"] == "forbidden":
            # highest trump rank already in the trick, when a trump was played to a non-trump lead
            chunk = ((st.trick & tmask) >> (13 * trump).astype(_U64)).astype(np.int64)
            top = HIGHEST[chunk]
            restrict = (led >= 0) & ~trump_led & (top >= 0) & (hand != trumps)
            if restrict.any():
                low_trumps = trumps & ~(ABOVE[np.where(restrict, top, 13)].astype(_U64) << (13 * trump).astype(_U64))
                legal = np.where(restrict, legal & ~low_trumps, legal)
        legal = np.where(st.phase == PLAY, legal, zero)
        # decision phases
        phase_bits = np.where(st.phase == BEG_DECISION, _U64((1 << STAND) | (1 << BEG)), zero)
        dealer_bits = np.full(B, (1 << RUN), dtype=_U64)
        give_ok = np.ones(B, dtype=bool)
        if self.options["forbid_game_ending_give_one"]:
            beggar_team = ((st.dealer + 1) % 4 % 2).astype(np.intp)
            give_ok = st.score[ar, beggar_team] + 1 < self.target
        dealer_bits |= np.where(give_ok, _U64(1 << GIVE_ONE), zero)
        phase_bits = np.where(st.phase == DEALER_DECISION, dealer_bits, phase_bits)
        legal = legal | phase_bits
        return np.where(st.done, zero, legal)

    def legal_actions(self, st: AllFoursState) -> np.ndarray:
        """Action mask ``bool[B, 56]`` of the player to act (§4, §5); all False in finished games."""
        return unpack_bits(self.legal_bitboard(st)[:, None], NUM_ACTIONS)[:, 0].view(bool)

    # ------------------------------------------------------------------ step
    def step(self, st: AllFoursState, actions, rng: np.random.Generator, active=None) -> None:
        """Apply ``actions`` (``int[B]``, legal for each live game; unchecked here, the AEC env and
        :meth:`check_actions` validate) and advance to the next decision.

        ``active`` (``bool[B]``, optional): step only these games; the others are untouched
        (their rewards are zeroed). Rewards of the step land in ``st.rewards`` (zero unless a
        hand or match ended).
        """
        actions = np.asarray(actions)
        st.rewards[:] = 0
        phase = st.phase.copy()  # snapshot: a game moves on to the next phase inside this step
        if active is None and (phase == PLAY).all():
            self._play(st, np.arange(st.batch_size), actions.astype(np.int64), rng)
            return
        live = ~st.done if active is None else active & ~st.done
        for ph, fn in ((BEG_DECISION, self._beggar), (DEALER_DECISION, self._dealer), (PLAY, self._play)):
            idx = np.flatnonzero((phase == ph) & live)
            if idx.size:
                fn(st, idx, actions[idx].astype(np.int64), rng)

    def check_actions(self, st: AllFoursState, actions) -> None:
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

    def _beggar(self, st, idx, a, rng) -> None:
        """Phase 1 (§4): STAND -> trick play with the kicked suit; BEG -> dealer decides."""
        stand = a == STAND
        i = idx[stand]
        st.phase[i] = PLAY
        j = idx[~stand]
        st.begged[j] = True
        st.phase[j] = DEALER_DECISION
        st.current_player[j] = st.dealer[j]

    def _dealer(self, st, idx, a, rng) -> None:
        """Phase 2 (§4): GIVE_ONE scores 1 for the beggar's team; RUN runs the pack."""
        give = a == GIVE_ONE
        g = idx[give]
        if g.size:
            st.gave_one[g] = True
            self._start_play(st, g)
            self._credit(st, g, (st.dealer[g] + 1) % 4 % 2, np.ones(g.size, dtype=np.int16))
        r = idx[~give]
        if r.size:
            self._run(st, r, rng)

    def _start_play(self, st, idx) -> None:
        st.phase[idx] = PLAY
        beggar = (st.dealer[idx] + 1) % 4
        st.current_player[idx] = beggar
        st.leader[idx] = beggar

    def _run(self, st, idx, rng) -> None:
        """Run the pack (§4 Phase 2): up to two runs of 3 cards each and a kick; exhaustion redeals."""
        pending = idx
        scores_rejected = self.options["score_rejected_kicks"]
        for k in range(2):
            self._deal_cards(st, pending, self.run_pos[k])
            st.runs[pending] = k + 1
            st.hand_size[pending] = 9 + 3 * k
            card = st.stock[pending, RUN_KICKS[k]]
            rejected = (card // 13) == st.orig_suit[pending]
            scores = ~rejected | scores_rejected
            suit = self._kick(st, pending, RUN_KICKS[k], scores)
            new = ~rejected
            g = pending[new & ~st.done[pending]]
            st.trump[g] = suit[new & ~st.done[pending]]
            self._start_play(st, g)
            pending = pending[rejected & ~st.done[pending]]
            if pending.size == 0:
                return
        # exhausted: same dealer, full new deal, fresh stand/beg, points kept (§9.6, §11.2)
        st.redeals[pending] += 1
        cap = st.redeals[pending] >= self.options["max_redeals"]
        self._truncate(st, pending[cap])
        self._new_deal(st, pending[~cap], rng, new_hand=False)

    def _truncate(self, st, idx) -> None:
        if idx.size:
            st.done[idx] = True
            st.truncated[idx] = True
            st.phase[idx] = OVER
            st.rewards[idx] = 0

    def _play(self, st, idx, card, rng) -> None:
        """Play ``card`` for the seat to act (§5); resolve full tricks and finished hands.

        The trick's winner so far is kept up to date card by card (``trick_winner`` and its
        ``trick_best`` key: rank + 13 if of the suit led + 26 if a trump), so resolving a trick
        and observing it need no search over the four cards.
        """
        p = st.current_player[idx].astype(np.intp)
        cb = bit(card)
        st.hands[idx, p] ^= cb
        st.played[idx, p] |= cb
        st.trick[idx] |= cb
        st.trick_card[idx, p] = card
        suit = card // 13
        n = st.n_in_trick[idx]
        first = n == 0
        led = np.where(first, suit, st.led_suit[idx])
        st.led_suit[idx] = led
        trump = st.trump[idx]
        # §5: a card off the suit led shows a void in it, unless it is a trump played to a plain lead
        shows = (suit != led) & ((led == trump) | (suit != trump))
        if shows.any():
            st.voids[idx[shows], p[shows]] |= (np.uint8(1) << led[shows].astype(np.uint8))
        key = card % 13 + 13 * (suit == led) + 26 * (suit == trump)
        best = st.trick_best[idx]
        better = first | (key > best)
        st.trick_best[idx] = np.where(better, key, best)
        win = np.where(better, p, st.trick_winner[idx])
        st.trick_winner[idx] = win
        n += 1
        st.n_in_trick[idx] = n
        full = n == 4
        st.current_player[idx] = np.where(full, win, (p + 1) % 4)
        if not full.any():
            return
        t = idx[full]
        win = win[full]
        team = win % 2
        st.captured[t, team] |= st.trick[t]
        st.game_value[t, team] += GAME_VALUE[st.trick_card[t] % 13].sum(axis=1, dtype=np.int16)
        st.last_trick[t] = st.trick_card[t]
        st.last_leader[t] = st.leader[t]
        st.last_winner[t] = win
        st.leader[t] = win
        st.trick[t] = 0
        st.trick_card[t] = -1
        st.led_suit[t] = -1
        st.trick_winner[t] = -1
        st.n_in_trick[t] = 0
        st.tricks_done[t] += 1
        end = st.tricks_done[t] == st.hand_size[t]
        if end.any():
            self._score_hand(st, t[end], rng)

    def _score_hand(self, st, idx, rng) -> None:
        """Credit High, Low, Jack / Hang jack, Game in that order (§6), then end the episode or deal on."""
        n = idx.size
        trump = st.trump[idx].astype(np.int64)
        shift = (13 * trump).astype(_U64)
        chunks = ((st.dealt[idx] >> shift[:, None]) & _U64(0x1FFF)).astype(np.int64)  # [n, 4]
        hi = HIGHEST[chunks]
        lo = LOWEST[chunks]
        any_trump = hi.max(axis=1) >= 0
        none = np.full(n, -1, dtype=np.int64)
        high_team = np.where(any_trump, hi.argmax(axis=1) % 2, none)
        low_team = np.where(any_trump, lo.argmin(axis=1) % 2, none)
        jack = bit(13 * trump + JACK_RANK)
        held = (st.dealt[idx] & jack[:, None]) != 0  # [n, 4]
        jack_dealt = held.any(axis=1)
        holder_team = held.argmax(axis=1) % 2
        won_team = ((st.captured[idx] & jack[:, None]) != 0).argmax(axis=1)
        hanged = jack_dealt & (won_team != holder_team)
        jack_team = np.where(jack_dealt, won_team, none)
        jack_pts = np.where(hanged, self.options["hang_jack_points"], self.options["jack_points"])
        game_vals = st.game_value[idx]
        tie_rule = self.options["game_tie"]
        tie_team = {"none": none, "beggar_team": (st.dealer[idx] + 1) % 4 % 2, "dealer_team": st.dealer[idx] % 2}[tie_rule]
        game_team = np.where(
            game_vals[:, 0] > game_vals[:, 1], 0, np.where(game_vals[:, 1] > game_vals[:, 0], 1, tie_team)
        )
        st.items[idx] = np.stack([high_team, low_team, jack_team, game_team], axis=1)
        st.hang[idx] = hanged
        one = np.ones(n, dtype=np.int16)
        self._credit(st, idx, high_team, one)
        self._credit(st, idx, low_team, one)
        self._credit(st, idx, jack_team, jack_pts.astype(np.int16))
        self._credit(st, idx, game_team, one * self.options["game_points"])
        st.last_points[idx] = st.points[idx]
        st.last_game_value[idx] = st.game_value[idx]
        base = 13 * trump
        st.last_high_low[idx] = np.stack(
            [
                np.where(any_trump, base + hi.max(axis=1), -1),
                np.where(any_trump, hi.argmax(axis=1), -1),
                np.where(any_trump, base + lo.min(axis=1), -1),
                np.where(any_trump, lo.argmin(axis=1), -1),
                np.where(jack_dealt, held.argmax(axis=1), -1),
            ],
            axis=1,
        )
        live = idx[~st.done[idx]]
        if not self.match:
            self._finish(st, live)
            return
        # match goes on: reward this hand (score mode), pass the deal to the right (§1)
        if self.options["reward"] == "score":
            self._hand_rewards(st, live)
        st.hands_played[live] += 1
        cap = st.hands_played[live] >= self.options["max_hands"]
        self._truncate(st, live[cap])  # §6: truncation with reward 0 (as for max_redeals)
        nxt = live[~cap]
        st.dealer[nxt] = (st.dealer[nxt] + 1) % 4
        self._new_deal(st, nxt, rng)

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

    def single_game(self, st: AllFoursState):
        """The B = 1 fast path (:class:`cardzoo.envs.all_fours.single.SingleGame`) used by the AEC env."""
        from .single import SingleGame

        return SingleGame(self, st)

    # ------------------------------------------------------------------ observations (§7)
    def observe(self, st: AllFoursState, seat) -> np.ndarray:
        """Observation ``uint8[B, D]`` of ``seat`` (int or ``int[B]``); layout: :meth:`observation_layout`."""
        return _obs.observe(self, st, seat)

    def global_state(self, st: AllFoursState) -> np.ndarray:
        """Perfect-information vector ``uint8[B, S]`` (all hands and the stock) for centralised critics."""
        return _obs.global_state(self, st)

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

"""A rule-based Ottocento player, from its own seat's observation only (``envs/ottocento/RULES.md``).

It reads the observation vector by slice name (``kernel.obs_layout``; §7) and never sees
anything else. Every decision is vectorised over the batch (no Python loop over games).

**Discard (§3).** Among the legal discards it keeps every card of a combination of its hand
(scored by the game's own combination scorer), keeps trumps, and prefers cards of its
shortest plain suits (to void them, so it can trump) and, among those, the more valuable
ones (the discards count for its team's pile).

**Declare or pass (§4).** It declares when the points are worth more than what the shown
cards reveal (``reveal_cost`` points per card shown); ``declare="always"`` is the baseline
that declares every scoring hand.

**Trick play (§5, §6).** For each legal card it estimates the chance that its team takes the
trick: a card that beats the trick so far survives the players still to come unless one of
them holds an unseen card that beats it (each unseen card is in a given hand in proportion
to the cards held); a partner who is winning is judged the same way. It scores the card by
``(2 * P(team wins) - 1) * points at stake`` (the cards in the trick, the card itself, the
cards still to come and, in trick 15, the last-trick bonus), minus the worth of keeping the
card for later (high trumps, the Matto, its top trump for the last trick). So it gives
points to a partner's winning trick, wins cheaply, plays low on an opponent's trick, keeps
the Matto for a trick it would lose (the Matto comes back to its team at the end, §6.1),
and keeps a high trump for the last trick.
"""

from __future__ import annotations

import numpy as np

from .base import Agent, as_batch, first_legal, kernel_values, rule_params

__all__ = ["OttocentoRuleAgent", "DEFAULT_PARAMS"]

# card ids: envs/core/cards.py TAROCCO62 (RULES.md §2.1); action ids §7
DECLARE, PASS = 62, 63
MAT = 61
_U64 = np.uint64
_N = 62
_CARDS = np.arange(_N)
_BIT = np.left_shift(_U64(1), _CARDS.astype(_U64))
_ALL = _U64((1 << _N) - 1)

# values (§2.3) and strengths (§2.2)
_VALUE = np.ones(_N)
for _s in range(4):
    _VALUE[[10 * _s + 9, 10 * _s + 8, 10 * _s + 7, 10 * _s + 6]] = (5, 4, 3, 2)
_VALUE[[60, 59, 40, 61]] = 5
_SUIT = np.array([c // 10 for c in range(40)] + [4] * 21 + [-1])
_STRENGTH = np.zeros(_N, dtype=np.int64)
for _s in range(4):
    for _r in range(10):
        _STRENGTH[10 * _s + _r] = _r if (_s < 2 or _r >= 6) else 5 - _r
_STRENGTH[40] = 0
_STRENGTH[41:45] = 1
_STRENGTH[45:57] = np.arange(5, 17)
_STRENGTH[57:61] = (17, 18, 19, 20)
_IS_TRUMP = _SUIT == 4
_IS_MOOR = (_CARDS >= 41) & (_CARDS <= 44)
#: how much each card tends to add to the captured combinations of the pile it joins (§4, §6 step 3):
#: the Tarocchi and the courts (sets, sequences), aces and Moors, trumps (the Grande); numerals none
_COMBO = np.zeros(_N)
_COMBO[[60, 59, 40, 61]] = 2.0
for _s in range(4):
    _COMBO[[10 * _s + 9, 10 * _s + 8, 10 * _s + 7, 10 * _s + 6]] = 1.5
    _COMBO[10 * _s] = 1.0
_COMBO[41:60] = 1.0


def _key_table() -> np.ndarray:
    """``int64[6, 62]``: trick key of each card when ``led`` (row ``led + 1``; row 0 = I lead, the
    card sets the suit). Trumps 40 + strength, suit led 20 + strength, others strength, Matto -1."""
    t = np.zeros((6, _N), dtype=np.int64)
    for row, led in enumerate(range(-1, 5)):
        eff = np.where(led < 0, _SUIT, led)
        t[row] = np.where(_IS_TRUMP, 40 + _STRENGTH, np.where(_SUIT == eff, 20 + _STRENGTH, _STRENGTH))
    t[:, MAT] = -1
    return t


_KEY = _key_table()


def _beater_table() -> np.ndarray:
    """``uint64[6, 62]``: cards that would beat each card in a trick with ``led`` (row ``led + 1``);
    every card for a card that cannot win (off-suit, the Matto). A later Moor beats a Moor (§2.2)."""
    t = np.zeros((6, _N), dtype=_U64)
    for row in range(6):
        k = _KEY[row]
        for c in range(_N):
            if k[c] < 20 or c == MAT:
                t[row, c] = _ALL
                continue
            better = (k > k[c]) | (_IS_MOOR & _IS_MOOR[c] & (_CARDS != c))
            better &= _CARDS != MAT
            t[row, c] = np.bitwise_or.reduce(_BIT[better]) if better.any() else _U64(0)
    return t


_BEATERS = _beater_table()

#: tunable weights (points)
DEFAULT_PARAMS: dict[str, float] = {
    "reveal_cost": 0.5,  # points per card a declaration shows
    "per_card_to_come": 0.5,  # expected points each card still to come adds to a trick
    "keep_trump": 0.5,  # per strength point of a trump, scaled by the tricks left
    "keep_top_trump": 4.0,  # keep the highest trump for the last trick
    "keep_matto": 0.0,  # the Matto's worth as an escape card
    "matto_gift": 0.5,  # the card handed back when the Matto went to an opponent
    "partner_behind": 0.5,  # chance a partner still to play takes an opponent's trick
    "combo_weight": 1.0,  # points per unit of a card's combination potential (_COMBO) at stake in a trick
}


def _pack(obs: np.ndarray, start: int, nsets: int) -> np.ndarray:
    """``uint64[n, nsets]`` bitboards of ``nsets`` consecutive 62-card sets starting at ``start``."""
    n = obs.shape[0]
    bits = obs[:, start : start + _N * nsets].reshape(n, nsets, _N) > 0
    packed = np.packbits(bits, axis=2, bitorder="little")  # [n, nsets, 8]
    return np.ascontiguousarray(packed).view(np.uint64)[:, :, 0]


def _pop(x) -> np.ndarray:
    return np.bitwise_count(np.asarray(x)).astype(np.int64)


def _bits(x: np.ndarray) -> np.ndarray:
    """``uint64[n]`` -> ``bool[n, 62]``."""
    return ((x[:, None] >> _CARDS.astype(_U64)) & _U64(1)).astype(bool)


class OttocentoRuleAgent(Agent):
    """Heuristic Ottocento player (see the module docstring for how it plays).

    Args:
        declare: ``"worth_it"`` (default: declare when the points exceed ``reveal_cost`` per
            card shown) or ``"always"`` (declare every scoring hand; the baseline).
        params: overrides of :data:`DEFAULT_PARAMS` (unknown keys raise ``ValueError``).
        **env_options: the Ottocento options (``RULES.md`` §8) of the games it will play
            (validated; the last-trick bonus and the scoring options it plays for).

    ``act(observation uint8[B, 1046], action_mask bool/int8[B, 64]) -> int64[B]``: deterministic,
    vectorised over the batch.
    """

    name = "ottocento/rule"

    def __init__(self, declare: str = "worth_it", params: dict | None = None, **env_options) -> None:
        from cardzoo import envs  # agents -> envs is the allowed direction
        from cardzoo.envs.ottocento.combos import combo_breakdown

        if declare not in ("worth_it", "always"):
            raise ValueError(f"declare={declare!r} is not valid; valid values: ['worth_it', 'always']")
        self.declare = declare
        self.kernel = envs.kernel("ottocento", **env_options)
        self._combos = combo_breakdown
        self.strict = bool(self.kernel.options["natural_skip_counts_as_gap"])
        self.last_bonus = float(self.kernel.options["last_trick_bonus"])
        p = rule_params(params, DEFAULT_PARAMS)
        self.p = p
        L = self.kernel.obs_layout
        self.L = L
        self._sl = {e.name: e.slice for e in L.entries}
        self._high = L.high()
        order = ["hand", "my_discards"] + [f"{k}[{r}]" for k in ("declared_unplayed", "played_by", "trick_by") for r in ("me", "next", "partner", "previous")]
        order += ["captured[mine]", "captured[theirs]"]
        if [e.name for e in L.entries[: len(order)]] != order:
            raise ValueError("unexpected Ottocento observation layout: card sets must come first in the documented order")

    # ------------------------------------------------------------------ interface
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` legal actions (0 for rows with no legal action); see :class:`cardzoo.agents.base.Agent`."""
        obs, mask = as_batch(observation, action_mask, self.L.size, 64)
        obs = kernel_values(obs, self._high)  # a [0, 1]-scaled float observation is scaled back
        out = first_legal(mask)
        phase = obs[:, self._sl["phase"]].argmax(axis=1)
        decide = mask[:, DECLARE]
        has_cards = mask[:, :_N].any(axis=1)
        for sel, fn in ((decide, self._decide), (has_cards & (phase == 0), self._discard), (has_cards & (phase == 2), self._play)):
            idx = np.flatnonzero(sel)
            if idx.size:
                out[idx] = fn(obs[idx], mask[idx])
        return out

    # ------------------------------------------------------------------ §4 declare or pass
    def _decide(self, obs, mask) -> np.ndarray:
        hand = _pack(obs, self._sl["hand"].start, 1)[:, 0]
        b = self._combos(hand, self.strict)
        worth = b.total > self.p["reveal_cost"] * _pop(b.shown)
        if self.declare == "always":
            worth[:] = True
        return np.where(worth, DECLARE, PASS)

    # ------------------------------------------------------------------ §3 discard
    def _discard(self, obs, mask) -> np.ndarray:
        hand = _pack(obs, self._sl["hand"].start, 1)[:, 0]
        in_combo = _bits(self._combos(hand, self.strict).shown)
        held = _bits(hand)
        suit_len = np.stack([(held & (_SUIT == s)).sum(axis=1) for s in range(4)], axis=1)  # [n, 4]
        length = np.where(_SUIT >= 0, suit_len[:, np.clip(_SUIT, 0, 3)], 0)
        length = np.where(_IS_TRUMP, 0, length)
        score = 2.0 * _VALUE - 3.0 * length - 25.0 * _IS_TRUMP - 100.0 * in_combo
        score = np.where(mask[:, :_N], score, -np.inf)
        return score.argmax(axis=1)

    # ------------------------------------------------------------------ §5 trick play
    def _play(self, obs, mask) -> np.ndarray:
        p = self.p
        sl = self._sl
        sets = _pack(obs, 0, 16)  # hand, discards, declared x4, played x4, trick x4, captured x2
        hand, mine_disc = sets[:, 0], sets[:, 1]
        played = np.bitwise_or.reduce(sets[:, 6:10], axis=1)
        trick_rel = sets[:, 10:14]
        trick = np.bitwise_or.reduce(trick_rel, axis=1)
        unseen = _ALL & ~(hand | played | mine_disc)
        n = obs.shape[0]
        led = obs[:, sl["led_suit"]].argmax(axis=1)
        led = np.where(led == 5, -1, led)
        row = led + 1
        n_in = _pop(trick)
        sizes = obs[:, sl["hand_size"]].astype(np.float64)  # me, next, partner, previous
        tricks_done = obs[:, sl["tricks_done"]][:, 0].astype(np.float64)
        # the trick so far
        keys = _KEY[row]  # [n, 62]
        tbits = _bits(trick)
        best = np.where(tbits, keys, -2).max(axis=1)
        winner = obs[:, sl["trick_winner"]].argmax(axis=1)
        partner_best = (n_in > 0) & (winner == 2)
        # opponents still to play after me, and how many cards they hold
        opp_after = np.where(n_in == 0, sizes[:, 1] + sizes[:, 3], np.where(n_in <= 2, sizes[:, 1], 0.0))
        partner_after = n_in <= 1
        ucount = np.maximum(_pop(unseen), 1).astype(np.float64)
        frac = np.clip(opp_after / ucount, 0.0, 1.0)
        # my card: does it beat the trick now, and does it survive the players to come?
        beaters = _BEATERS[row]  # [n, 62]
        nb = _pop(beaters & unseen[:, None]).astype(np.float64)
        survive = (1.0 - frac[:, None]) ** nb
        beats_now = (keys > best[:, None]) | ((n_in[:, None] > 0) & _IS_MOOR & (best[:, None] == 41))
        beats_now &= keys >= 20
        # the partner's winning card (if any) against the opponents still to come
        pcard = np.where(partner_best, np.log2(np.maximum(trick_rel[:, 2], _U64(1)).astype(np.float64)).astype(np.int64), 0)
        pnb = _pop(_BEATERS[row, pcard] & unseen).astype(np.float64)
        p_partner = np.where(partner_best, (1.0 - frac) ** pnb, np.where(partner_after, p["partner_behind"], 0.0))
        p_team = np.where(beats_now, np.maximum(survive, p_partner[:, None]), p_partner[:, None])
        # points at stake
        worth = _VALUE - 0.5 + p["combo_weight"] * _COMBO
        trick_pts = np.where(tbits, worth, 0.0).sum(axis=1)
        to_come = (3 - n_in) * p["per_card_to_come"]
        last = tricks_done == 14
        stake = trick_pts[:, None] + worth + to_come[:, None] + np.where(last, self.last_bonus, 0.0)[:, None]
        score = (2.0 * p_team - 1.0) * stake
        # the Matto: its own value comes back to my team; the rest of the trick goes as it goes
        stake_m = trick_pts + to_come + np.where(last, self.last_bonus, 0.0)
        matto = (2.0 * p_partner - 1.0) * stake_m - p["matto_gift"] * (1.0 - p_partner) + p["keep_matto"] * 0.0
        score[:, MAT] = matto - p["keep_matto"] * (tricks_done < 14)
        # keep strong cards for later: high trumps; my top trump for the last trick
        left = np.clip(14.0 - tricks_done, 0.0, None) / 14.0
        keep = p["keep_trump"] * _STRENGTH * _IS_TRUMP * left[:, None]
        held = _bits(hand)
        top = np.where(held & _IS_TRUMP, _STRENGTH, -1).argmax(axis=1)
        has_trump = (held & _IS_TRUMP).any(axis=1)
        keep[np.arange(n), top] += np.where(has_trump & (tricks_done < 14), p["keep_top_trump"] * (tricks_done >= 8), 0.0)
        score = score - keep
        score = np.where(mask[:, :_N], score, -np.inf)
        return score.argmax(axis=1)

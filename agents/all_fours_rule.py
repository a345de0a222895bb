"""A rule-based All Fours (Trinidad) player: a sensible club player, from its own seat's view only.

It reads the observation vector by slice name (``kernel.obs_layout``; ``RULES.md`` §7) and
never sees anything else. All decisions are vectorized over the batch (no Python loop over
games). How it plays (``RULES.md`` sections in brackets):

**Stand / beg (§4, beggar)** and **give one / run (§4, dealer).** It estimates, for each
suit as trump, what its hand is worth to its team this hand: High and Low (chance that no
opponent was dealt a higher / lower trump, given the unseen cards), Jack (held: kept or
hanged; unseen: partner's or an opponent's, and the chance of hanging it with higher
trumps), and Game (trump length, the ten of trumps). The beggar stands when the kicked suit
is worth enough more than the other suits (a beg gives a point or a new trump); the dealer
gives one when the kicked suit is worth more to his team than a run (a new trump, among the
other suits, plus the expected kick points), and never gives the point that would end a
match for the other side.

**Trick play (§5, §6).** High and Low are decided by the deal, so play is about the Jack
(worth 1 to its holder's team, 3 to opponents who capture it) and Game (Ace 4, King 3,
Queen 2, Jack 1, ten 10). For each legal card it estimates the probability that its team
takes the trick (the card is beaten only by unseen higher cards of the suit or unseen trumps;
each unseen card sits in a given opponent's hand with probability cards-held / cards-unseen;
a partner's winning card is judged the same way) and scores the card by

* the Game value won or lost with the trick (the cards in it, the card itself, the cards
  still to come), weighted by how much one point of Game value still matters given the
  Game values captured so far and what is left in play,
* the jack of trumps in the trick (keep ours: +1, hang theirs: +3; lose ours: -3),
* minus the worth of keeping the card for later tricks (high trumps, and trumps above the
  jack while the jack is unseen; the jack itself).

So it plays low second in hand, wins cheaply, captures tens and hangs the opponents' jack
with a higher trump, feeds tens and its jack to a partner who is sure to win, holds the jack
back until it is safe, and leads boss trumps to draw trumps and hunt an unseen jack.
"""

from __future__ import annotations

import math

import numpy as np

from .base import Agent, as_mask, first_legal

__all__ = ["AllFoursRuleAgent", "DEFAULT_PARAMS"]

# action ids (RULES.md §4) and the card ids of envs/core/cards.py FRENCH52: 13*suit + rank, ranks 2..A = 0..12
STAND, BEG, GIVE_ONE, RUN = 52, 53, 54, 55
_JACK = 9
_TEN = 8
_GV_RANK = np.array([0, 0, 0, 0, 0, 0, 0, 0, 10, 1, 2, 3, 4], dtype=np.float64)  # Game value (§2)
_CARDS = np.arange(52)
_SUIT = _CARDS // 13
_RANK = _CARDS % 13
_GV = _GV_RANK[_RANK]
_U64 = np.uint64
_BIT = np.left_shift(_U64(1), _CARDS.astype(_U64))
_SUIT_BB = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], dtype=_U64)
_ABOVE_BB = np.array([(((1 << 13) - 1) & ~((1 << (r + 1)) - 1)) << (13 * s) for s, r in zip(_SUIT, _RANK)], dtype=_U64)
_ALL = _U64((1 << 52) - 1)
# 13-bit suit chunks: highest / lowest rank held (-1 / 13 when none), rank masks above / below r
_CH = np.arange(1 << 13)
_HIGHEST = np.full(1 << 13, -1, dtype=np.int64)
_LOWEST = np.full(1 << 13, 13, dtype=np.int64)
for _r in range(13):
    _HIGHEST[(_CH >> _r) & 1 == 1] = _r
for _r in range(12, -1, -1):
    _LOWEST[(_CH >> _r) & 1 == 1] = _r
_ABOVE13 = np.array([((1 << 13) - 1) & ~((1 << (r + 1)) - 1) for r in range(-1, 13)], dtype=np.int64)  # index r+1
_BELOW13 = np.array([(1 << r) - 1 for r in range(0, 14)], dtype=np.int64)  # index r (13 = all)

#: tunable weights (points units unless noted); tuned by duplicate self-play against earlier versions
DEFAULT_PARAMS: dict[str, float] = {
    # decisions
    "stand_alt": 0.75,  # beggar: stand iff EV(kicked suit) - stand_alt * mean EV(other suits) > stand_margin
    "stand_margin": -0.15,
    "give_margin": 0.4,  # dealer: give iff EV(kicked) - 1 > mean EV(other suits) - kick EV + give_margin
    "kick_ev": 0.55,  # expected kick points of a run for the dealer's team
    "hang_risk": 0.21,  # chance a held jack is hanged when an opponent holds a higher trump
    "hang_catch": 0.25,  # chance of hanging an opponent's jack when holding a higher trump
    "game_trumps": 0.162,  # Game points per trump held above the expected number
    "game_ten": 0.25,  # Game points for holding the ten of trumps
    # trick play
    "future_gv": 0.9,  # expected Game value each player still to play adds to the trick
    "sigma0": 9.0,  # spread of the final Game difference: sigma0 + sigma1 * value still in play
    "sigma1": 0.525,
    "keep_stake": 6.0,  # Game value a sure winner can still capture later (times its chance of winning)
    "keep_trump": 0.09,  # worth of keeping a trump for later: keep_trump + keep_trump_rank * rank/12
    "keep_trump_rank": 0.1,
    "keep_hunter": 0.15,  # extra worth of a trump above the jack while the jack is unseen
    "keep_side_rank": 0.018,  # worth of keeping a side card: keep_side_rank * rank/12
    "keep_jack": 0.8,  # worth of keeping one's jack (times the jack points)
    "partner_take": 0.9,  # chance a partner playing last, holding a card that beats the winner, takes the trick
    "partner_rescue": 0.675,  # chance a partner still to play retakes a trick after my card is beaten
    "lead_hunt": 0.45,  # bonus for leading a boss trump while the jack is unseen
    "lead_draw": 0.05,  # bonus per trump held beyond two for leading a boss trump
}


def _pack(obs: np.ndarray, start: int, nsets: int) -> np.ndarray:
    """``uint64[n, nsets]`` bitboards of ``nsets`` consecutive 52-card sets starting at ``start``."""
    n = obs.shape[0]
    bits = obs[:, start : start + 52 * nsets].reshape(n, nsets, 52) > 0
    packed = np.packbits(bits, axis=2, bitorder="little")  # [n, nsets, 7]
    buf = np.zeros((n, nsets, 8), dtype=np.uint8)
    buf[:, :, :7] = packed
    return buf.view(np.uint64)[:, :, 0]


def _pop(x) -> np.ndarray:
    return np.bitwise_count(np.asarray(x)).astype(np.int64)


def _card_of(bb: np.ndarray) -> np.ndarray:
    """Card id of single-card bitboards (``-1`` for empty ones)."""
    out = np.full(bb.shape, -1, dtype=np.int64)
    nz = bb != 0
    out[nz] = np.log2(bb[nz].astype(np.float64)).astype(np.int64)  # exact: powers of two below 2**52
    return out


class AllFoursRuleAgent(Agent):
    """Heuristic All Fours player (see the module docstring for how it plays).

    Args:
        params: overrides of :data:`DEFAULT_PARAMS` (for tuning; unknown keys raise ``ValueError``).
        **env_options: the All Fours options (``RULES.md`` §8) of the games it will play; they
            fix the observation layout (``target_score``) and the point values it plays for
            (``jack_points``, ``hang_jack_points``, ``game_points``, ``episode``).

    ``act(observation uint8[B, 402], action_mask bool/int8[B, 56]) -> int64[B]``: deterministic;
    vectorized over the batch.
    """

    name = "all_fours/rule"

    def __init__(self, params: dict | None = None, **env_options) -> None:
        from cardzoo import envs  # agents -> envs is the allowed direction

        self.kernel = envs.kernel("all_fours", **env_options)
        self.env_options = dict(env_options)
        p = dict(DEFAULT_PARAMS)
        if params:
            unknown = sorted(set(params) - set(p))
            if unknown:
                raise ValueError(f"unknown rule-agent params {unknown}; valid: {sorted(p)}")
            p.update(params)
        self.p = p
        o = self.kernel.options
        self.jp = float(o["jack_points"])
        self.hjp = float(o["hang_jack_points"])
        self.gp = float(o["game_points"])
        self.match = o["episode"] == "match"
        self.target = int(o["target_score"])
        L = self.kernel.obs_layout
        self.L = L
        self._sl = {e.name: e.slice for e in L.entries}
        self._high = L.high()
        self._hs_col = L["hand_size"].start
        if L["hand"].start != 0 or L["trick"].start != L["played_by[previous]"].stop or L["kicked"].start != L["trick"].stop:
            raise ValueError("unexpected All Fours observation layout: card sets must be hand, played_by x4, trick, kicked")

    # ------------------------------------------------------------------ interface
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` legal actions (0 for rows with no legal action); see :class:`cardzoo.agents.base.Agent`."""
        mask = as_mask(action_mask)
        obs = np.asarray(observation)
        if obs.ndim == 1:
            obs = obs[None, :]
        if obs.shape[0] != mask.shape[0] or obs.shape[1] != self.L.size or mask.shape[1] != 56:
            raise ValueError(
                f"expected observation [B, {self.L.size}] and action_mask [B, 56], got {obs.shape} and {mask.shape}"
            )
        obs = self._raw(obs)
        out = first_legal(mask)
        phase = np.full(mask.shape[0], -1)
        phase[mask[:, STAND]] = 0
        phase[mask[:, RUN]] = 1
        phase[mask[:, :52].any(axis=1)] = 2
        for ph, fn in ((0, self._beggar), (1, self._dealer), (2, self._play)):
            idx = np.flatnonzero(phase == ph)
            if idx.size:
                out[idx] = fn(obs[idx], mask[idx])
        return out

    def _raw(self, obs: np.ndarray) -> np.ndarray:
        """Observation values as the kernel writes them; a [0, 1]-normalized float observation
        (hand_size < 1) is scaled back by the layout's ``high``."""
        if obs.dtype.kind == "f" and obs.shape[0] and float(obs[:, self._hs_col].max()) <= 1.0:
            obs = np.rint(obs * self._high)
        return obs

    # ------------------------------------------------------------------ hand evaluation (§4, §6)
    def _suit_values(self, obs: np.ndarray) -> np.ndarray:
        """``float[n, 4]``: estimated points (my team minus theirs) of my 6-card hand if suit s were trump."""
        p = self.p
        H = _pack(obs, self._sl["hand"].start, 1)[:, 0]
        K = _pack(obs, self._sl["kicked"].start, 1)[:, 0]
        U = _ALL & ~(H | K)
        ucnt = np.maximum(_pop(U), 1).astype(np.float64)
        others = np.clip(3.0 * obs[:, self._hs_col].astype(np.float64), 0, None)
        pp = np.clip(others / 3.0 / ucnt, 0, 1)[:, None]
        po = 2.0 * pp
        ps = np.clip(1.0 - 3.0 * pp, 0.0, 1.0)
        shifts = (13 * np.arange(4)).astype(_U64)
        my = ((H[:, None] >> shifts) & _U64(0x1FFF)).astype(np.int64)  # [n, 4]
        un = ((U[:, None] >> shifts) & _U64(0x1FFF)).astype(np.int64)
        have = my != 0
        top, bot = _HIGHEST[my], _LOWEST[my]
        n_hi = _pop(un & _ABOVE13[top + 1])
        n_lo = _pop(un & _BELOW13[bot])
        n_all = _pop(un)

        def geo(n):
            return np.where(ps < 1.0, (1.0 - ps**n) / np.maximum(1.0 - ps, 1e-9), n)

        # High / Low: the best (worst) trump dealt is ours if none above (below) mine went to an
        # opponent before one went to partner, in rank order
        high = np.where(have, ps**n_hi + pp * geo(n_hi) - po * geo(n_hi), (pp - po) * geo(n_all))
        low = np.where(have, ps**n_lo + pp * geo(n_lo) - po * geo(n_lo), (pp - po) * geo(n_all))
        jbit = 1 << _JACK
        have_j = (my & jbit) != 0
        unseen_j = (un & jbit) != 0
        n_above_j = _pop(un & _ABOVE13[_JACK + 1])
        ph = p["hang_risk"] * (1.0 - (1.0 - po) ** n_above_j)
        i_hold_above_j = (my & _ABOVE13[_JACK + 1]) != 0
        jack = np.where(
            have_j,
            self.jp * (1.0 - ph) - self.hjp * ph,
            np.where(
                unseen_j, (pp - po) * self.jp + po * p["hang_catch"] * i_hold_above_j * (self.jp + self.hjp), 0.0
            ),
        )
        ntr = _pop(my).astype(np.float64)
        expected = 6.0 * 12.0 / 45.0
        game = self.gp * (p["game_trumps"] * (ntr - expected) + p["game_ten"] * ((my >> _TEN) & 1))
        return high + low + jack + game

    def _kicked_vs_others(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hand value with the kicked suit as trump, and the mean value over the other three suits."""
        v = self._suit_values(obs)
        kicked = obs[:, self._sl["trump"]].argmax(axis=1)
        ev_t = v[np.arange(obs.shape[0]), kicked]
        return ev_t, (v.sum(axis=1) - ev_t) / 3.0

    def _beggar(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Phase 1 (§4): STAND or BEG."""
        p = self.p
        ev_t, ev_alt = self._kicked_vs_others(obs)
        stand = ev_t - p["stand_alt"] * ev_alt > p["stand_margin"]
        return np.where(stand, STAND, BEG)

    def _dealer(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Phase 2 (§4): GIVE_ONE or RUN."""
        p = self.p
        ev_t, ev_alt = self._kicked_vs_others(obs)
        give = ev_t - 1.0 > ev_alt - p["kick_ev"] + p["give_margin"]
        if self.match:
            sc = self._sl["score"].start
            give &= obs[:, sc + 1].astype(np.int64) + 1 < self.target  # never hand them the match
        give &= mask[:, GIVE_ONE]
        return np.where(give, GIVE_ONE, RUN)

    # ------------------------------------------------------------------ trick play (§5, §6)
    def _play(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Trick play (§5): the legal card of highest estimated value."""
        return self.card_values(obs, mask).argmax(axis=1).astype(np.int64)

    def card_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float[n, 52]`` estimated worth (points, my team minus theirs) of playing each card,
        ``-inf`` for illegal cards; rows must be in trick play. For inspection and tests."""
        obs = self._raw(np.asarray(obs))
        mask = as_mask(mask)
        p = self.p
        n = obs.shape[0]
        ar = np.arange(n)
        sets = _pack(obs, 0, 7)
        H, PL, TR, K = sets[:, 0], sets[:, 1:5], sets[:, 5], sets[:, 6]  # PL: me, next, partner, previous
        played = np.bitwise_or.reduce(PL, axis=1)
        U = _ALL & ~(H | played | K)
        ucnt = np.maximum(_pop(U), 1).astype(np.float64)
        T = obs[:, self._sl["trump"]].argmax(axis=1)
        led_oh = obs[:, self._sl["led_suit"]]
        leading = ~(led_oh > 0).any(axis=1)
        L = np.where(leading, -1, led_oh.argmax(axis=1))
        n_in = _pop(TR)
        hs = obs[:, self._hs_col].astype(np.float64)
        td = obs[:, self._sl["tricks_done"].start].astype(np.float64)
        held = np.maximum(hs - td, 0.0)  # cards of a player who has not played to this trick
        q = np.clip(held / ucnt, 0.0, 1.0)  # chance a given unseen card is in such a player's hand
        m_opp = np.array([2, 1, 1, 0, 0])[np.minimum(n_in, 4)]
        n_after = np.maximum(3 - n_in, 0)
        T_bb = _SUIT_BB[T]
        is_tr = _SUIT[None, :] == T[:, None]  # [n, 52]

        # probability that card c, if it becomes the trick's winner, survives the opponents after me
        beat = (_ABOVE_BB[None, :] & U[:, None]) | np.where(is_tr, _U64(0), (T_bb & U)[:, None])
        k_c = _pop(beat)
        surv_c = (1.0 - q)[:, None] ** (k_c * m_opp[:, None])

        # current winner of the trick
        w_rel = obs[:, self._sl["trick_winner"]].argmax(axis=1)
        wcard = _card_of(TR & PL[ar, w_rel])
        wc = np.maximum(wcard, 0)
        w_tr = _SUIT[wc] == T
        key_w = np.where(leading, -1, _RANK[wc] + 13 * (_SUIT[wc] == L) + 26 * w_tr)
        key_c = _RANK[None, :] + 13 * (_SUIT[None, :] == L[:, None]) + 26 * is_tr
        wins_now = (key_c > key_w[:, None]) | leading[:, None]
        k_w = _pop((_ABOVE_BB[wc] & U) | np.where(w_tr, _U64(0), T_bb & U))
        surv_w = (1.0 - q) ** (k_w * m_opp)
        # play order is me, next, partner, previous: after an opponent's lead (n_in == 1) the
        # partner plays last; when I lead, third
        partner_wins = ~leading & (w_rel == 2)
        partner_last = n_in == 1
        partner_takes = (1.0 - (1.0 - q) ** k_w) * p["partner_take"]
        p_other = np.where(partner_wins, surv_w, np.where(partner_last, partner_takes, 0.0))
        # my winning card may be beaten, then retaken by a partner still to play
        rescue = np.where(partner_last, p["partner_rescue"], np.where(leading, 0.5 * p["partner_rescue"], 0.0))
        p_mine = surv_c + (1.0 - surv_c) * rescue[:, None]
        pw = np.where(wins_now, p_mine, p_other[:, None])  # [n, 52] chance my team takes the trick

        # Game: value changing hands with this trick, weighted by how much Game value still matters
        gvals = obs[:, self._sl["game_captured"]].astype(np.float64)
        d0 = gvals[:, 0] - gvals[:, 1]
        trick_bits = obs[:, self._sl["trick"]] > 0
        V = trick_bits @ _GV
        un_bits = ((U[:, None] & _BIT[None, :]) != 0)
        others_cards = np.maximum(3.0 * held - n_in, 0.0)
        remaining = (obs[:, self._sl["hand"]] > 0) @ _GV + (un_bits @ _GV) * np.minimum(others_cards / ucnt, 1.0)
        sig = p["sigma0"] + p["sigma1"] * remaining
        w_g = 2.0 * self.gp * np.exp(-0.5 * (d0 / sig) ** 2) / (sig * math.sqrt(2.0 * math.pi))
        stake = V[:, None] + _GV[None, :] + (p["future_gv"] * n_after)[:, None]
        ev = w_g[:, None] * (2.0 * pw - 1.0) * stake

        # the jack of trumps (§6): ours kept +jp, ours hanged -hjp, theirs hanged +hjp, theirs kept -jp
        jcard = 13 * T + _JACK
        jbit = _BIT[jcard]
        j_in_trick = (TR & jbit) != 0
        j_holder = (PL & jbit[:, None] != 0).argmax(axis=1)
        ours_in_trick = (j_holder == 0) | (j_holder == 2)
        c_is_j = _CARDS[None, :] == jcard[:, None]
        active = j_in_trick[:, None] | c_is_j
        ours = c_is_j | ours_in_trick[:, None]
        win_val = np.where(ours, self.jp, self.hjp)
        lose_val = np.where(ours, -self.hjp, -self.jp)
        ev += active * (pw * win_val + (1.0 - pw) * lose_val)

        # worth of keeping a card for later tricks
        future = (held > 1.0)[:, None]
        j_unseen = (U & jbit) != 0
        rank = _RANK[None, :].astype(np.float64)
        surv_lead = (1.0 - q)[:, None] ** (2 * k_c)  # chance the card would win a later trick it leads
        keep = w_g[:, None] * p["keep_stake"] * surv_lead + np.where(
            is_tr,
            p["keep_trump"]
            + p["keep_trump_rank"] * rank / 12.0
            + p["keep_hunter"] * ((rank > _JACK) & j_unseen[:, None]),
            p["keep_side_rank"] * rank / 12.0,
        )
        keep = np.where(c_is_j, p["keep_jack"] * self.jp, keep)
        ev -= future * keep

        # leading: boss trumps draw trumps and hunt an unseen jack
        my_tr = _pop(H & T_bb).astype(np.float64)
        boss_tr = is_tr & (k_c == 0) & leading[:, None]
        ev += boss_tr * (
            p["lead_hunt"] * j_unseen[:, None] * (rank > _JACK) + p["lead_draw"] * np.maximum(my_tr - 2.0, 0.0)[:, None]
        )

        return np.where(mask[:, :52], ev, -np.inf)

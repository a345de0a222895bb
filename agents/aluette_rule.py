"""A rule-based Aluette player that uses the signal channel, from its own seat's view only.

It reads the observation vector by slice name (``kernel.obs_layout``; ``envs/aluette/RULES.md``
§7) and nothing else. Every decision is vectorized over the batch. How it plays (RULES.md
sections in brackets):

* **Chant vote (§4.1).** Accepts when it would receive talon cards, or when its own hand is weak
  (fewer than two key cards); refuses otherwise (a chant strengthens one player of each team).
* **Discards (§4.2).** Throws away its least powerful cards.
* **Signals (§4.3, §4.5).** In the signalling round it sends every signal that is *true* of its
  hand (its key cards, ``as``, or ``faible``), also in ``"free"`` mode, then ``end_signals``. It
  does not signal during trick play.
* **Surrender (§4.4).** Never offers; always accepts an offer (a sure point).
* **Trick play (§5).** Cards are judged against the cards it has not seen (``unseen``: not in its
  hand, not played, not among its chant cards):

  - leading: the cheapest *sure winner* (no unseen card as strong); else, when the partner has
    signalled a sure winner, its weakest card; else its weakest card;
  - partner on top: its weakest card that does not tie the partner's card (a tie would spoil
    the partner's trick);
  - opponent on top, or the trick tied so far: when the partner is still to play and signalled a
    card that beats the top, its weakest card (leave the trick to the partner); else the cheapest
    card that wins; else, against an opponent's single top card, a card of **equal power to
    spoil the trick**; else its weakest card.
"""

from __future__ import annotations

import numpy as np

from .base import Agent, as_batch, first_legal, kernel_values

__all__ = ["AluetteRuleAgent"]

_NC = 48
ACCEPT_CHANT, REFUSE_CHANT = 48, 49
SIGNAL0, END_SIGNALS = 50, 60
NO_OFFER, ACCEPT_SURRENDER = 62, 63
VOTE, DISCARD, SIGNAL, OFFER, ANSWER, PLAY = range(6)


class AluetteRuleAgent(Agent):
    """Heuristic Aluette player (see the module docstring for how it plays).

    Args:
        use_signals: ``False`` makes a variant that sends no signal and ignores its partner's (to
            measure what the channel is worth to the rule bot).
        **env_options: the Aluette options (``RULES.md`` §8) of the games it will play; they fix the
            observation layout and tell it who receives the chant.

    ``act(observation uint8[B, D], action_mask bool/int8[B, 65]) -> int64[B]``: deterministic,
    vectorized over the batch; ``ValueError`` for arrays of the wrong shape.
    """

    name = "aluette/rule"

    def __init__(self, use_signals: bool = True, **env_options) -> None:
        from cardzoo import envs  # agents -> envs is the allowed direction
        from cardzoo.envs.aluette.constants import POWER, SIGNAL_BB

        self.kernel = envs.kernel("aluette", **env_options)
        self.env_options = dict(env_options)
        if not isinstance(use_signals, (bool, np.bool_)):
            raise ValueError(f"use_signals={use_signals!r} is not valid; valid values: True, False")
        self.use_signals = bool(use_signals)
        if not self.use_signals:
            self.name = "aluette/rule(no signals)"
        L = self.kernel.obs_layout
        self.L = L
        self._s = {e.name: e.slice for e in L.entries}
        self._high = L.high()
        self.second = 0 if self.kernel.options["chant_recipients"] == "left_and_dealer" else 2
        self.pw = POWER.astype(np.int64)
        bits = np.array([[(int(m) >> c) & 1 for c in range(_NC)] for m in SIGNAL_BB], dtype=bool)  # [10, 48]
        self.key_cards = bits[:8]  # signal s (0..7) names this card
        self.sig_cards = bits  # cards each statement looks at (9: faible = none of these)
        self.key_index = np.array([int(np.flatnonzero(b)[0]) for b in bits[:8]])
        self._order = self.pw * 64 + np.arange(_NC)  # ranking key: power, then id

    # ------------------------------------------------------------------ interface
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` legal actions (0 for rows with no legal action); see :class:`cardzoo.agents.base.Agent`."""
        obs, mask = as_batch(observation, action_mask, self.L.size, 65)
        obs = kernel_values(obs, self._high)  # a [0, 1]-scaled float observation is scaled back
        out = first_legal(mask)
        phase = obs[:, self._s["phase"]].argmax(axis=1)
        hand = obs[:, self._s["hand"]].astype(bool)
        for ph, fn in ((VOTE, self._vote), (DISCARD, self._discard), (SIGNAL, self._signal),
                       (OFFER, self._offer), (ANSWER, self._answer), (PLAY, self._play)):
            idx = np.flatnonzero((phase == ph) & mask.any(axis=1))
            if idx.size:
                out[idx] = fn(obs[idx], hand[idx], mask[idx])
        return out

    # ------------------------------------------------------------------ helpers
    def _lowest(self, cards: np.ndarray) -> np.ndarray:
        """Weakest card of each row of ``bool[n, 48]`` (-1 where empty)."""
        key = np.where(cards, self._order, 1 << 20)
        return np.where(cards.any(axis=1), key.argmin(axis=1), -1)

    def _truth(self, hand: np.ndarray) -> np.ndarray:
        """``bool[n, 10]``: the signal statements that are true of ``hand`` (§4.5)."""
        t = (hand[:, None, :] & self.sig_cards[None]).any(axis=2)
        t[:, 9] = ~t[:, 9]
        return t

    # ------------------------------------------------------------------ phases
    def _vote(self, obs, hand, mask):
        d = obs[:, self._s["dealer"]].argmax(axis=1)  # dealer, seat-relative (0 = me)
        recipient = ((d + 1) % 4 == 0) | ((d + self.second) % 4 == 0)
        keys = (hand & self.key_cards.any(axis=0)).sum(axis=1)
        return np.where(recipient | (keys < 2), ACCEPT_CHANT, REFUSE_CHANT)

    def _discard(self, obs, hand, mask):
        return self._lowest(mask[:, :_NC])

    def _signal(self, obs, hand, mask):
        ok = mask[:, SIGNAL0:END_SIGNALS] & self._truth(hand) & self.use_signals
        return np.where(ok.any(axis=1), SIGNAL0 + ok.argmax(axis=1), END_SIGNALS)

    def _offer(self, obs, hand, mask):
        return np.full(obs.shape[0], NO_OFFER)

    def _answer(self, obs, hand, mask):
        return np.full(obs.shape[0], ACCEPT_SURRENDER)

    def _play(self, obs, hand, mask):
        s = self._s
        n_rows = obs.shape[0]
        legal = mask[:, :_NC]
        seen = hand | obs[:, s["received"]].astype(bool) | obs[:, s["discarded"]].astype(bool)
        partner_played = obs[:, s["played_by[partner]"]].astype(bool)
        for r in ("me", "next", "partner", "previous"):
            seen |= obs[:, s[f"played_by[{r}]"]].astype(bool)
        unseen = ~seen
        # strongest unseen power (0 if none)
        top_unseen = np.where(unseen, self.pw, 0).max(axis=1)
        pw = self.pw[None, :]
        sure = legal & (pw > top_unseen[:, None])
        T = obs[:, s["trick_top_power"]][:, 0]
        n = obs[:, s["cards_in_trick"]][:, 0]
        top_rel = obs[:, s["trick_top"]].argmax(axis=1)
        single = obs[:, s["trick_top"]].any(axis=1)
        # partner's signalled key cards not yet played: their best power
        sig = obs[:, s["signals[partner]"]][:, :8].astype(bool) & self.use_signals
        claimed = sig & ~partner_played[:, self.key_index]
        partner_best = np.where(claimed, self.pw[self.key_index][None, :], 0).max(axis=1)
        lowest = self._lowest(legal)
        # leading
        lead_sure = self._lowest(sure)
        lead = np.where(lead_sure >= 0, lead_sure, lowest)
        # partner on top: weakest card that does not tie the partner
        no_tie = self._lowest(legal & (pw != T[:, None]))
        support = np.where(no_tie >= 0, no_tie, lowest)
        # opponent on top or tied
        partner_to_play = n <= 1
        leave = partner_to_play & (partner_best > T)
        beat = self._lowest(legal & (pw > T[:, None]))
        spoil = self._lowest(legal & (pw == T[:, None]))
        opp_single = single & (top_rel != 2)
        contest = np.where(leave, lowest, np.where(beat >= 0, beat, np.where(opp_single & (spoil >= 0), spoil, lowest)))
        partner_top = single & (top_rel == 2)
        out = np.where(n == 0, lead, np.where(partner_top, support, contest))
        # with signals in trick play, the mask also holds signals: the rule never sends them here
        return np.where(out >= 0, out, first_legal(mask)).astype(np.int64) if n_rows else out

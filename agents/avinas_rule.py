"""A rule-based Avinas player, from its own seat's observation only (``envs/avinas/RULES.md``).

It reads the observation by slice name (``kernel.obs_layout``, §7) and never sees anything
else. Every decision is vectorized over the batch. How it plays (RULES.md sections in brackets):

* **Calls (§4.2).** It counts, for each suit, the cards that would be trumps (by the game's
  ``call_count``) and calls its best count, honestly, when that count reaches ``call_min`` (or
  ``call_min - 1`` with two of the five best trumps) and beats the calls so far; else it passes.
* **Naming trumps (§4.2).** The suit of its best count (ties: the stronger trumps), so its call
  is never a lie.
* **Knocks (§4.1).** As declarer only with a very strong hand (``knock_min`` trumps including the
  QC), since a knock commits the team to all eight tricks; as a defender it knocks back after a
  declaring-team knock when it holds the QC or ``knock_back_min`` trumps (one trick beats the
  knock), and with ``knock_back="always"`` only with ``knock_min`` trumps.
* **Leads (§5).** As a member of the declaring team with trumps it leads its best trump when no
  unseen trump beats it (drawing trumps), otherwise its lowest trump; trick 1 is always its best
  trump. Without a trump lead duty it leads a plain ace, else its cheapest card. On the trick-2
  face-down option it leads an ace face up if it has one, else its cheapest card face down.
* **Following (§5).** If its partner is winning the trick it adds points (a plain ace or ten)
  without spending trumps; otherwise it wins with the cheapest card that wins, when it can;
  otherwise it throws its cheapest card. After its partner's face-down lead marked valuable it
  plays its best trump.
* **Stop (§4.2.6, §6.3).** As declarer it stops as soon as its team has 61 card points: the win
  is locked in and the opponents are frozen at their current points.
* **Signal (§5, ``facedown_signal="free"``).** Truthful.
"""

from __future__ import annotations

import numpy as np
from cardzoo.envs.avinas import constants as avinas_constants

from .base import Agent, as_batch, first_legal, kernel_values, rule_params

__all__ = ["AvinasRuleAgent", "DEFAULT_PARAMS"]

DEFAULT_PARAMS: dict[str, float] = {
    "call_min": 5,  # call when the best trump count reaches this
    "knock_min": 7,  # declarer knocks with this many trumps including the QC
    "knock_back_min": 3,  # defender knocks back (after a declaring-team knock) with this many trumps
}

_C = np.arange(32)
_RANK = _C % 8
_SUIT = _C // 8


class AvinasRuleAgent(Agent):
    """Heuristic Avinas player (see the module docstring).

    Args:
        params: overrides of :data:`DEFAULT_PARAMS` (unknown keys raise ``ValueError``).
        **env_options: the Avinas options (RULES.md §8) of the games it will play (they fix the
            layout and ``call_count`` / ``valuable_min_points``).

    ``act(observation uint8[B, D], action_mask bool/int8[B, 83]) -> int64[B]``: deterministic,
    vectorized over the batch.
    """

    name = "avinas/rule"

    #: the Avinas constants, on the class: a module kept on the instance does not pickle (nor deep-copy)
    K = avinas_constants

    def __init__(self, params: dict | None = None, **env_options) -> None:
        from cardzoo import envs

        self.kernel = envs.kernel("avinas", **env_options)
        p = rule_params(params, DEFAULT_PARAMS)
        self.p = p
        o = self.kernel.options
        self.vmin = o["valuable_min_points"]
        self.knock_back_mode = o["knock_back"]
        L = self.kernel.obs_layout
        self.L = L
        self._high = L.high()
        K = self.K
        self.points = K.POINTS.astype(np.float64)
        # trump strength TS[t, card] (0 = not a trump), plain strength PS[card]
        self.TS = K.TRUMP_STRENGTH.astype(np.float64)
        self.PS = K.PLAIN_STRENGTH.astype(np.float64)
        self.is_trump = self.TS > 0  # [4, 32]
        cb = self.kernel.count_bb
        self.count_mask = np.array([[(int(cb[s]) >> c) & 1 for c in range(32)] for s in range(4)], dtype=np.float64)

    # ------------------------------------------------------------------ helpers
    def _s(self, obs, name):
        return obs[:, self.L[name]]

    def _raw(self, obs: np.ndarray) -> np.ndarray:
        """Values as the kernel writes them (:func:`~cardzoo.agents.base.kernel_values`)."""
        return kernel_values(obs, self._high)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """``int64[B]`` legal actions (0 for rows with no legal action); see :class:`cardzoo.agents.base.Agent`."""
        K = self.K
        obs, mask = as_batch(observation, action_mask, self.L.size, K.NUM_ACTIONS)
        obs = self._raw(obs)
        out = first_legal(mask)
        kind = np.full(mask.shape[0], -1)
        kind[mask[:, K.PASS]] = 0
        kind[mask[:, K.DECLARE : K.DECLARE + 4].any(1)] = 1
        kind[mask[:, K.KNOCK]] = 2
        kind[mask[:, K.STOP]] = 3
        kind[mask[:, K.SIG_VALUABLE]] = 4
        kind[mask[:, :64].any(1)] = 5
        for k, fn in enumerate((self._call, self._declare, self._knock, self._stop, self._signal, self._play)):
            idx = np.flatnonzero(kind == k)
            if idx.size:
                out[idx] = fn(obs[idx], mask[idx])
        return out

    def _counts(self, hand):
        """``[n, 4]`` trump counts per suit (by ``call_count``) and ``[n, 4]`` top-5 trumps held."""
        counts = hand @ self.count_mask.T
        top = np.stack([hand @ (self.TS[s] >= 10).astype(np.float64) for s in range(4)], axis=1)
        return counts, top

    # ------------------------------------------------------------------ decisions
    def _call(self, obs, mask):
        K = self.K
        hand = self._s(obs, "hand").astype(np.float64)
        counts, top = self._counts(hand)
        best = counts.max(1).astype(np.int64)
        best_top = top[np.arange(len(best)), counts.argmax(1)]
        want = (best >= self.p["call_min"]) | ((best >= self.p["call_min"] - 1) & (best_top >= 2))
        n = np.clip(best, 1, 8)
        legal = mask[np.arange(len(n)), K.CALL1 + n - 1]
        return np.where(want & legal, K.CALL1 + n - 1, K.PASS)

    def _declare(self, obs, mask):
        K = self.K
        hand = self._s(obs, "hand").astype(np.float64)
        counts, _ = self._counts(hand)
        strength = np.stack([hand @ self.TS[s] for s in range(4)], axis=1)
        score = counts * 100 + strength
        score = np.where(mask[:, K.DECLARE : K.DECLARE + 4], score, -1e9)
        return K.DECLARE + score.argmax(1)

    def _knock(self, obs, mask):
        K = self.K
        hand = self._s(obs, "hand").astype(np.float64)
        t = self._s(obs, "trump").argmax(1)
        ntr = (hand * self.is_trump[t]).sum(1)
        has_qc = hand[:, 5] > 0  # QC = 8*0 + 5
        decl = self._s(obs, "declarer")  # rel one-hot
        knocked = self._s(obs, "knocked")
        i_declare = decl[:, 0] == 1
        partner_declares = decl[:, 2] == 1
        my_team_declares = i_declare | partner_declares
        decl_team_knocked = np.where(
            my_team_declares, knocked[:, 0] | knocked[:, 2], knocked[:, 1] | knocked[:, 3]
        ).astype(bool)
        strong = (ntr >= self.p["knock_min"]) & has_qc
        back = decl_team_knocked & (has_qc | (ntr >= self.p["knock_back_min"]))
        lone = ~decl_team_knocked & (ntr >= self.p["knock_min"])
        do = np.where(i_declare, strong, np.where(my_team_declares, False, back | lone))
        return np.where(do, K.KNOCK, K.NO_KNOCK)

    def _stop(self, obs, mask):
        K = self.K
        mine = self._s(obs, "card_points")[:, 0]
        return np.where(mine >= 61, K.STOP, K.CONTINUE)

    def _signal(self, obs, mask):
        K = self.K
        trick = self._s(obs, "trick").astype(np.float64)
        pts = (trick * self.points).max(1)  # the leader's own face-down card is the only card
        return np.where(pts >= self.vmin, K.SIG_VALUABLE, K.SIG_NOT_VALUABLE)

    def _play(self, obs, mask):
        n = obs.shape[0]
        ar = np.arange(n)
        hand = self._s(obs, "hand") > 0
        tr = self._s(obs, "trump")
        t = tr.argmax(1)
        TS = self.TS[t]  # [n, 32]
        is_tr = TS > 0
        led = self._s(obs, "led")
        led_any = led.any(1)
        led_trump = led[:, 4] == 1
        led_suit = led[:, :4].argmax(1)
        of_led = ~led_trump[:, None] & (_SUIT[None, :] == led_suit[:, None])
        key = np.where(is_tr, 20 + TS, np.where(of_led, self.PS[None, :], 0))
        trick = self._s(obs, "trick") > 0
        best = np.where(trick, key, 0).max(1)
        played = np.zeros((n, 32), dtype=bool)
        for r in ("me", "next", "partner", "previous"):
            played |= self._s(obs, f"played_by[{r}]") > 0
        unseen = ~(hand | played | trick)
        partner_winning = led_any & (self._s(obs, "trick_winner")[:, 2] == 1)
        fd_rel = self._s(obs, "facedown_leader")
        fd_hidden = fd_rel.any(1) & (fd_rel[:, 0] == 0)
        n_in_trick = trick.sum(1) + fd_hidden
        last = n_in_trick == 3
        sig = self._s(obs, "signal")
        partner_fd_valuable = (fd_rel[:, 2] == 1) & (sig[:, 0] == 1)
        decl = self._s(obs, "declarer")
        my_team_declares = (decl[:, 0] == 1) | (decl[:, 2] == 1)
        legal_up = mask[:, :32]
        legal_fd = mask[:, 32:64]
        pts = self.points[None, :]
        # unseen trumps stronger than my best trump: am I the boss?
        my_trumps = hand & is_tr
        my_best_ts = np.where(my_trumps, TS, 0).max(1)
        unseen_best_ts = np.where(unseen & is_tr, TS, 0).max(1)
        boss = my_best_ts > unseen_best_ts
        # ------- following
        can_win = legal_up & (key > best[:, None])
        any_win = can_win.any(1)
        smear = pts * 10 - np.where(is_tr, 50 + TS, 0) - key * 0.1
        cheapest_win = np.where(can_win, 200 - key, -1e9)
        discard = -pts * 10 - np.where(is_tr, 30 + TS, 0) - key * 0.1
        # the partner's card is safe when I play last, or when no unseen card can beat it
        unseen_plain_best = np.where(unseen & (key > 0) & ~is_tr, key, 0).max(1)
        no_unseen_trump = ~(unseen & is_tr).any(1)
        safe_partner = partner_winning & (
            last
            | (best >= 20 + unseen_best_ts)
            | (~led_trump & (best < 20) & (best >= unseen_plain_best) & no_unseen_trump)
        )
        follow = np.where(
            safe_partner[:, None],
            smear,
            np.where(
                any_win[:, None] & ~partner_winning[:, None],
                cheapest_win,
                np.where(partner_winning[:, None], smear * 0.2 + discard, discard),
            ),
        )
        hi_trump = np.where(legal_up & is_tr, TS, -1e9)
        follow = np.where(partner_fd_valuable[:, None] & (legal_up & is_tr).any(1)[:, None], hi_trump, follow)
        # ------- leading
        ace = (_RANK[None, :] == 7) & ~is_tr
        lead_score = -pts * 10 - key * 0.1 + np.where(ace, 500, 0)
        trump_lead = np.where(boss[:, None], np.where(is_tr, TS, -1e9), np.where(is_tr, 100 - TS, -1e9))
        first_trick = self._s(obs, "tricks_done")[:, 0] == 0
        lead_tr = (my_team_declares | first_trick)[:, None] & (hand & is_tr).any(1)[:, None]
        lead_tr = lead_tr & (is_tr & legal_up).any(1)[:, None]
        best_trump_first = np.where(is_tr, TS, -1e9)
        lead_score = np.where(lead_tr, np.where(first_trick[:, None], best_trump_first, trump_lead), lead_score)
        score_up = np.where(led_any[:, None] | fd_hidden[:, None], follow, lead_score)
        score_up = np.where(legal_up, score_up, -1e9)
        # face-down option (trick 2 without trumps): an ace face up, else the cheapest card face down
        fd_score = np.where(legal_fd, 100 - pts * 10 - key * 0.1, -1e9)
        has_fd = legal_fd.any(1)
        up_ace = (legal_up & ace).any(1)
        use_fd = has_fd & ~up_ace
        a_up = score_up.argmax(1)
        a_fd = 32 + fd_score.argmax(1)
        del ar
        return np.where(use_fd, a_fd, a_up)

"""PhaseMix (agents/phase_mix.py): bids from one agent, card play from another."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo import agents
from cardzoo import envs
from cardzoo.agents.phase_mix import PhaseMix
from cardzoo.training.arena import play_duplicate


class _Const(agents.Agent):
    """Plays the highest legal action and records how many rows it was asked."""

    def __init__(self, name):
        self.name, self.rows = name, 0

    def act(self, observation, action_mask):
        m = np.asarray(action_mask, dtype=bool)
        self.rows += len(m)
        return (m.shape[1] - 1 - m[:, ::-1].argmax(axis=1)).astype(np.int64)


def _positions(n=40, seed=0):
    """Every decision of ``n`` hands played with random legal moves: (kernel, obs, masks)."""
    k = envs.kernel("all_fours")
    rng = np.random.default_rng(seed)
    st = k.init(rng, n)
    rand = agents.load("random", seed=seed)
    obs, masks = [], []
    while not st.done.all():
        live = np.flatnonzero(~st.done)
        o, m = k.observe(st, st.current_player), k.legal_actions(st)
        obs.append(o[live])
        masks.append(m[live])
        k.step(st, rand.act(o, m), rng)
    return k, np.concatenate(obs), np.concatenate(masks)


def test_bids_go_to_one_agent_cards_to_the_other():
    k, obs, mask = _positions()
    is_bid = mask[:, 52:].any(axis=1)
    assert 0 < is_bid.sum() < len(mask)  # both kinds of decision in the sample
    rule, hi = agents.load("all_fours/rule"), _Const("hi")
    a = PhaseMix(rule, hi, "all_fours").act(obs, mask)
    assert np.array_equal(a[is_bid], rule.act(obs[is_bid], mask[is_bid]))
    assert np.array_equal(a[~is_bid], 51 - mask[~is_bid, :52][:, ::-1].argmax(axis=1))
    assert hi.rows == (~is_bid).sum()
    assert mask[np.arange(len(a)), a].all()


def test_mixing_an_agent_with_itself_changes_nothing():
    rule = agents.load("all_fours/rule")
    same = PhaseMix(rule, rule, "all_fours", name="rule+rule")
    r = play_duplicate("all_fours", same, "all_fours/rule", 300, seed=4)
    assert r.mean_diff == 0.0 and same.name == "rule+rule"


def test_bad_arguments():
    rule = agents.load("all_fours/rule")
    with pytest.raises(TypeError, match=r"bids must be an Agent \(e.g. agents.load\('all_fours/rule'\)\), got str"):
        PhaseMix("all_fours/rule", rule, "all_fours")
    with pytest.raises(TypeError, match="cards must be an Agent"):
        PhaseMix(rule, None, "all_fours")
    with pytest.raises(ValueError, match="chess"):
        PhaseMix(rule, rule, "chess")
    _, obs, mask = _positions(20)
    with pytest.raises(ValueError, match="aluette has 65 actions, got action masks of width 56"):
        PhaseMix(agents.load("random", seed=0), rule, "aluette").act(obs, mask)
    assert PhaseMix(rule, rule, "aluette").n_cards == 48

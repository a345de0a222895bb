"""The Avinas agents: registry names, legality under every option set, the rule bot's policy
(honest calls, stops that lock in a win) and its duplicate-deal result against random."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo import agents
from cardzoo.envs.avinas.constants import CALLING, DECLARING, NO_SEVENS, STOP, STOPPING
from cardzoo.envs.avinas.kernel import AvinasKernel

from avinas_util import act, craft, new_env

VARIANTS = [
    {},
    {"facedown_signal": "free", "honesty": "mask", "trump_lead_rule": "every_lead", "knock_back": "always",
     "call_count": "suit", "episode": "match", "pip_limit": 6},
]


def test_registered_names():
    names = agents.available()
    assert "avinas/rule" in names and "avinas/random" in names
    with pytest.raises(ValueError, match="knock_back"):
        agents.load("avinas/random", knock_back="maybe")
    with pytest.raises(ValueError, match="params"):
        from cardzoo.agents.avinas_rule import AvinasRuleAgent

        AvinasRuleAgent(params={"nope": 1})


@pytest.mark.parametrize("options", VARIANTS, ids=["default", "variants"])
def test_rule_agent_plays_only_legal_actions_and_never_lies(options):
    k = AvinasKernel(**options)
    bot = agents.load("avinas/rule", **options)
    rng = np.random.default_rng(0)
    st = k.init(rng, 256)
    declared = 0
    for _ in range(400):
        if st.done.all():
            break
        mask = k.legal_actions(st)
        obs = k.observe(st, st.current_player)
        a = bot.act(obs, mask)
        live = ~st.done
        assert mask[np.flatnonzero(live), a[live]].all()
        was_declaring = live & (st.phase == DECLARING)
        k.step(st, a, rng)
        declared += int(was_declaring.sum())
        assert not st.lied[was_declaring].any()  # its calls are honest
    assert declared > 20


def test_rule_agent_stops_when_the_win_is_locked_in():
    bot = agents.load("avinas/rule")
    env = new_env(seed=9)
    craft(env, game="no_sevens", trump="C", declarer=0, leader=0, tricks_done=6, points=(61, 20), tricks_won=(5, 1),
          high_call=3, hands={0: "7C 8C", 1: "AS 9S", 2: "8S 7D", 3: "9C 7S"})
    env.game_state.phase[0] = STOPPING
    env._after_step()
    o = env.observe("player_0")
    assert bot.act(o["observation"], o["action_mask"])[0] == STOP
    env.game_state.points[0] = (60, 20)
    env._after_step()
    o = env.observe("player_0")
    assert bot.act(o["observation"], o["action_mask"])[0] != STOP


def test_rule_agent_calls_its_count_and_passes_weak_hands():
    bot = agents.load("avinas/rule")
    from avinas_util import make_deck

    strong = make_deck(3, hands={0: "QC QS JH AD 10D 9D KD 8C"}, key={1: "AC 9C", 2: "KS 8S", 3: "10C 9H"})
    env = new_env(strong, dealer=3)
    assert env.game_state.game[0] == NO_SEVENS and env.game_state.phase[0] == CALLING
    o = env.observe("player_0")
    assert env.action_name(int(bot.act(o["observation"], o["action_mask"])[0])) == "CALL_7"
    weak = make_deck(3, hands={0: "8C 9C 8H 9H 8S 9S KH KS"}, key={1: "AC 10C", 2: "JS 8D", 3: "QD 9D"})
    env = new_env(weak, dealer=3)
    o = env.observe("player_0")
    assert env.action_name(int(bot.act(o["observation"], o["action_mask"])[0])) == "PASS"
    act(env, "S0:PASS")


@pytest.mark.parametrize("options", [{}, {"call_count": "suit"}])
def test_honest_calls_mask_is_exactly_the_honesty_mask_legal_set(options):
    """HonestCalls leaves, in a ``honesty="penalize"`` game, exactly the moves that
    ``honesty="mask"`` makes legal (RULES.md §4.2), checked over random deals and random honest
    play (after a dishonest call the mask variant has no such position to compare with)."""
    from cardzoo.agents import RandomAgent
    from cardzoo.agents.honest import HonestCalls

    penalize, masked = AvinasKernel(**options), AvinasKernel(honesty="mask", **options)
    wrapper = HonestCalls(RandomAgent(0), **options)
    rng = np.random.default_rng(3)
    st = penalize.init(rng, 600)
    bids = 0
    for _ in range(40):
        live = ~st.done
        obs, mask = penalize.observe(st, st.current_player), penalize.legal_actions(st)
        honest = wrapper.honest_mask(obs, mask)
        assert np.array_equal(honest[live], masked.legal_actions(st)[live])
        bids += int(((st.phase == CALLING) | (st.phase == DECLARING))[live].sum())
        penalize.step(st, wrapper.act(obs, mask), rng, active=live)  # random honest moves
        penalize.reset_done(st, rng)
    assert bids > 500


def test_honest_calls_wrapper_never_lies_where_the_wrapped_agent_would():
    from cardzoo.agents import RandomAgent
    from cardzoo.agents.honest import HonestCalls

    k = AvinasKernel()
    liars = {}
    for name, ag in (("random", RandomAgent(1)), ("honest random", HonestCalls(RandomAgent(1)))):
        st = k.init(np.random.default_rng(9), 1500)
        rng = np.random.default_rng(10)
        while not st.done.all():
            live = ~st.done
            a = ag.act(k.observe(st, st.current_player), k.legal_actions(st))
            k.step(st, a, rng, active=live)
        nos = st.game == NO_SEVENS
        liars[name] = int(st.lied[nos].sum())
    assert liars["random"] > 50 and liars["honest random"] == 0

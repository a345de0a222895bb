"""The Ottocento agents: registry names, the rule bot's legality and information use, and its
strength against random play over duplicate deals; terminal play."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo import agents
from cardzoo import envs
from cardzoo.agents.ottocento_rule import OttocentoRuleAgent
from cardzoo.agents.random_agent import RandomAgent
from cardzoo.envs.ottocento.constants import DECLARE, PASS
from cardzoo.training.play import play

from test_ottocento_env import permute_hidden


def test_registered_names():
    assert {"ottocento/random", "ottocento/rule"} <= set(agents.available())
    assert isinstance(agents.load("ottocento/random", seed=1), RandomAgent)
    assert isinstance(agents.load("ottocento/rule", moors_tie="first_played"), OttocentoRuleAgent)
    with pytest.raises(ValueError, match="moors_tie"):
        agents.load("ottocento/rule", moors_tie="never")
    with pytest.raises(ValueError, match="declare"):
        OttocentoRuleAgent(declare="sometimes")
    with pytest.raises(ValueError, match="unknown rule-agent params"):
        OttocentoRuleAgent(params={"nope": 1})


def test_rule_bot_plays_legal_moves_and_only_reads_its_observation():
    k = envs.kernel("ottocento")
    bot = OttocentoRuleAgent()
    rng = np.random.default_rng(0)
    st = k.init(rng, 256)
    decisions = set()
    for step in range(66):
        if st.done.all():
            break
        obs = k.observe(st, st.current_player)
        mask = k.legal_actions(st)
        a = bot.act(obs, mask)
        live = ~st.done
        assert mask[np.arange(256), a][live].all()
        decisions |= set(a[live & mask[:, DECLARE]].tolist())
        if step % 9 == 4:  # moving the hidden cards does not change its choice
            other = st.copy()
            for b in range(256):
                if not st.done[b]:
                    permute_hidden(other, b, int(st.current_player[b]), rng)
            assert np.array_equal(bot.act(k.observe(other, other.current_player), mask), a)
        k.step(st, a, rng)
    assert st.done.all() and DECLARE in decisions


def test_always_declares_every_scoring_hand():
    k = envs.kernel("ottocento")
    bot = OttocentoRuleAgent(declare="always")
    rng = np.random.default_rng(3)
    st = k.init(rng, 128)
    seen = 0
    while not st.done.all():
        obs, mask = k.observe(st, st.current_player), k.legal_actions(st)
        a = bot.act(obs, mask)
        ask = mask[:, DECLARE] & ~st.done
        assert (a[ask] == DECLARE).all() and PASS not in a[ask]
        seen += ask.sum()
        k.step(st, np.where(st.done, 0, a), rng)
    assert seen > 50


def test_terminal_play_shows_declarations_trick_and_score():
    said = []
    returns = play("ottocento", "ottocento/rule", "ottocento/rule", seed=3, read=lambda p: "0", write=said.append)
    text = "\n".join(said)
    assert returns is not None and returns["player_0"] == returns["player_2"] == -returns["player_1"]
    assert "running score" in text and "-- trick 15 won by player_" in text and "captured combinations" in text
    assert "declared" in text or "passed" in text


def test_terminal_play_hides_the_dealers_discards():
    from cardzoo.envs import ottocento_v0

    checked = 0
    for seed in range(6):
        env = ottocento_v0.env()
        env.reset(seed=seed)
        dealer = int(env.game_state.dealer[0])
        if dealer == 0:
            continue  # the person discards: nothing for the bots to hide
        said = []
        play("ottocento", "ottocento/rule", "ottocento/rule", seed=seed, read=lambda p: "0", write=said.append)
        moves = [x for x in said if x.startswith((f"player_{dealer} plays", f"player_{dealer} puts"))]
        assert moves[:2] == [f"player_{dealer} puts a card face down"] * 2
        assert sum(x.endswith("face down") for x in said) == 2
        checked += 1
    assert checked >= 3

"""Every trained agent shipped in agents/shipped: it loads by its registry name, belongs to its
game, plays legal moves in duplicate deals reproducibly, and is the default AI of terminal play
and the web table where its options fit."""

from __future__ import annotations

import os

import pytest

from cardzoo import agents
from cardzoo.agents.registry import SHIPPED
from cardzoo.training.arena import play_duplicate
from cardzoo.training.common import default_agent

#: shipped folder -> (registry name, env options it was trained for); P'yanitsa has one per player count
SHIPPED_AGENTS = {
    "all_fours_ppo": ("all_fours/ppo", {}),
    "ottocento_ppo": ("ottocento/ppo", {}),
    "aluette_ppo": ("aluette/ppo", {}),
    "avinas_ppo": ("avinas/ppo", {}),
    "pyanitsa_ppo": ("pyanitsa/ppo", {"collect_order": "winner_chooses"}),
    "pyanitsa_ppo_3p": ("pyanitsa/ppo", {"collect_order": "winner_chooses", "num_players": 3}),
    "pyanitsa_ppo_4p": ("pyanitsa/ppo", {"collect_order": "winner_chooses", "num_players": 4}),
}


def test_every_shipped_folder_is_registered():
    folders = sorted(d for d in os.listdir(SHIPPED) if os.path.isdir(os.path.join(SHIPPED, d)))
    assert folders == sorted(SHIPPED_AGENTS)
    for name, _ in SHIPPED_AGENTS.values():
        assert name in agents.available()


@pytest.mark.parametrize("folder", sorted(SHIPPED_AGENTS))
def test_shipped_agent_loads_plays_legally_and_reproducibly(folder):
    name, options = SHIPPED_AGENTS[folder]
    game = name.split("/")[0]
    agent = agents.load(name, **options)
    meta = agent.meta
    trained_for = {"honesty": "mask"} if game == "avinas" else options  # see agents/honest.py
    assert meta["game"] == game and meta["env_options"] == trained_for
    for f in ("agent.json", "weights.safetensors", "learning_curve.png"):
        assert os.path.getsize(os.path.join(SHIPPED, folder, f)) > 1000
    a, b = (
        play_duplicate(game, agents.load(name, seed=0, **options), agents.load("random", seed=1), 24, seed=3, env_options=options)
        for _ in range(2)
    )
    assert a.n_deals == 24 and a.mean_diff == b.mean_diff  # the arena raised on no illegal move
    assert default_agent(game, options) == (name, None)


@pytest.mark.parametrize(
    "name, deals",
    [("ottocento/ppo", 200), ("aluette/ppo", 200), ("all_fours/ppo", 4000)],  # edges of 4+ standard errors
)
def test_shipped_agent_beats_the_rule_bot_on_a_small_sample(name, deals):
    """A coarse check that the right weights are shipped (the README's 2,000-deal numbers are
    the evidence): over a sample of duplicate deals the shipped agent scores more than the rule
    bot (All Fours' edge is smaller per hand, so its sample is larger)."""
    game = name.split("/")[0]
    r = play_duplicate(game, name, f"{game}/rule", deals, seed=7)
    assert r.mean_diff > 0, r.to_dict()


@pytest.mark.parametrize("players", [3, 4])
def test_pyanitsa_agents_for_three_and_four_players(players):
    """pyanitsa/ppo loads the agent of the game's player count (its observation: 236 or 277 values), and
    alone against rule bots it loses less often than a rule bot there (a coarse check of the right
    weights; the 2,000-deal numbers are in agents/shipped/README.md); other counts are refused."""
    opts = {"collect_order": "winner_chooses", "num_players": players}
    agent = agents.load("pyanitsa/ppo", **opts)
    assert agent.meta["game_options"]["num_players"] == players and agent.meta["obs_dim"] == {3: 236, 4: 277}[players]
    # fresh deals, 2,000 each (agents/shipped/README.md): 3 players 0.778 against 0.667, 4 players 0.841 against 0.769
    deals, margin = {3: (300, 0.05), 4: (300, 0.03)}[players]
    r = play_duplicate("pyanitsa", agent, "pyanitsa/rule", deals, seed=7, env_options=opts, batch=600)
    assert r.not_losing > r.null_not_losing + margin, r.to_dict()
    with pytest.raises(ValueError, match=r"num_players=5: P'yanitsa has 2, 3 or 4 players"):
        agents.load("pyanitsa/ppo", collect_order="winner_chooses", num_players=5)


def test_all_fours_agent_keeps_its_ppo_stage():
    """The shipped All Fours agent was distilled from a PPO agent kept in ppo_stage/: the
    distillation commands start from it, and it loads as a saved agent of the same layout."""
    shipped = agents.load("all_fours/ppo")
    stage = agents.load(os.path.join(SHIPPED, "all_fours_ppo", "ppo_stage"))
    assert "distillation" in shipped.meta and "distillation" not in stage.meta
    assert stage.meta["obs_layout_version"] == shipped.meta["obs_layout_version"]
    assert any("ppo_stage" in c for c in shipped.meta["distillation"]["commands"])
    assert os.path.getsize(os.path.join(SHIPPED, "all_fours_ppo", "distillation.png")) > 10_000

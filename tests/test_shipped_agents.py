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

#: registry name -> (shipped folder, env options it was trained for)
SHIPPED_AGENTS = {
    "all_fours/ppo": ("all_fours_ppo", {}),
    "ottocento/ppo": ("ottocento_ppo", {}),
    "aluette/ppo": ("aluette_ppo", {}),
    "avinas/ppo": ("avinas_ppo", {}),
    "pyanitsa/ppo": ("pyanitsa_ppo", {"collect_order": "winner_chooses"}),
}


def test_every_shipped_folder_is_registered():
    folders = sorted(d for d in os.listdir(SHIPPED) if os.path.isdir(os.path.join(SHIPPED, d)))
    assert folders == sorted(f for f, _ in SHIPPED_AGENTS.values())
    for name in SHIPPED_AGENTS:
        assert name in agents.available()


@pytest.mark.parametrize("name", sorted(SHIPPED_AGENTS))
def test_shipped_agent_loads_plays_legally_and_reproducibly(name):
    folder, options = SHIPPED_AGENTS[name]
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


def test_all_fours_agent_keeps_its_ppo_stage():
    """The shipped All Fours agent was distilled from a PPO agent kept in ppo_stage/: the
    distillation commands start from it, and it loads as a saved agent of the same layout."""
    shipped = agents.load("all_fours/ppo")
    stage = agents.load(os.path.join(SHIPPED, "all_fours_ppo", "ppo_stage"))
    assert "distillation" in shipped.meta and "distillation" not in stage.meta
    assert stage.meta["obs_layout_version"] == shipped.meta["obs_layout_version"]
    assert any("ppo_stage" in c for c in shipped.meta["distillation"]["commands"])
    assert os.path.getsize(os.path.join(SHIPPED, "all_fours_ppo", "distillation.png")) > 10_000

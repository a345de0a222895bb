"""Each game's page names every option of its env, the env-only ones included, with their values."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import cardzoo
from cardzoo.envs.core.aec import ILLEGAL_ACTION_MODES, KernelAECEnv

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("game", sorted(cardzoo.GAMES))
def test_game_page_names_the_env_only_options_and_their_values(game):
    """The pages said "Env-only options: `render_mode` (`None`/`"ansi"`) and `render_view`": no
    `"human"` (which every env takes) and no `illegal_action`."""
    params = [p for p in inspect.signature(KernelAECEnv.__init__).parameters if p not in ("self", "options")]
    assert params == ["render_mode", "render_view", "illegal_action"]
    page = (ROOT / "envs" / game / "README.md").read_text()
    line = page[page.index("Env-only options:"):].split("\n\n")[0]
    for name in params:
        assert f"`{name}`" in line, name
    for value in ("None", '"ansi"', '"human"', *(f'"{m}"' for m in ILLEGAL_ACTION_MODES)):
        assert f"`{value}`" in line, value
    env = cardzoo.make(game, render_mode="human", illegal_action="lose")  # what the page says is taken
    assert env.render_mode == "human" and env.illegal_action == "lose"


def test_envs_page_says_which_agents_need_the_train_extra():
    """The page said 'Agents other than random and the rule bots need the [train] extra', but the
    search bots (GAME/pimc, GAME/ismcts) load without torch and now play the other seats."""
    import subprocess
    import sys

    page = (ROOT / "envs" / "README.md").read_text()
    assert "Agents other than\n`random` and the rule bots need the `[train]` extra" not in page
    assert "search bots (`GAME/pimc`, `GAME/ismcts`" in page and "trained agents (`GAME/ppo`, saved paths) need the `[train]` extra" in page
    code = ("import sys, cardzoo; cardzoo.load_agent('all_fours/pimc'); cardzoo.load_agent('avinas/ismcts'); "
            "print(sorted(m for m in ('torch', 'stable_baselines3', 'sb3_contrib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_core_page_says_search_agents_are_vector_env_opponents():
    """The vector env took only act(obs, mask) callables; search agents now act on the state and
    bad opponent actions are named (tests/test_vector.py), which the page now says."""
    page = (ROOT / "envs" / "core" / "README.md").read_text()
    assert "A search\n  agent's `act` (`GAME/pimc`, `GAME/ismcts`: agents with `needs_state`) is called on its games'\n  state instead" in page
    assert "raises `ValueError` naming the opponent" in page

"""Small helpers shared by the training-side commands (train, arena, play)."""

from __future__ import annotations

import agents
import envs


def check_agent_game(agent, game: str, label) -> None:
    """Raise ``ValueError`` if ``agent`` (called ``label``: a registry name or a path) was made for
    another game than ``game``: a registry name ``"<other game>/..."``, or a saved policy whose
    metadata names another game. Agents for every game (e.g. ``random``) pass."""
    prefix = label.split("/", 1)[0] if isinstance(label, str) else None
    if prefix in envs.GAMES and prefix != game:
        raise ValueError(f"agent {label!r} plays {prefix}, not {game}; use a {game}/... agent (available: {agents.available()})")
    meta_game = (getattr(agent, "meta", None) or {}).get("game")
    if meta_game and meta_game != game:
        raise ValueError(f"agent {label!r} was trained for {meta_game}, not {game}")


def resolve_agent(name: str, env_options: dict | None = None, seed: int | None = None, game: str | None = None):
    """Load an agent by registry name or path, passing what each kind needs.

    ``"random"`` gets ``seed``; other registered names get the env options (rule bots read the
    observation layout from them); anything else is loaded as a saved policy path.
    With ``game``, an agent made for another game is refused (:func:`check_agent_game`).
    Raises ``ValueError`` / ``FileNotFoundError`` with the name or path in the message.
    """
    env_options = dict(env_options or {})
    if game is not None:
        check_agent_game(None, game, name)  # by name, before loading
    if name == "random":
        return agents.load("random", seed=seed)
    agent = agents.load(name, **env_options) if name in agents.available() else agents.load(name)
    if game is not None:
        check_agent_game(agent, game, name)
    return agent

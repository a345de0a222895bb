"""Small helpers shared by the training-side commands (train, arena, play)."""

from __future__ import annotations

import agents


def resolve_agent(name: str, env_options: dict | None = None, seed: int | None = None):
    """Load an agent by registry name or path, passing what each kind needs.

    ``"random"`` gets ``seed``; other registered names get the env options (rule bots read the
    observation layout from them); anything else is loaded as a saved policy path.
    Raises ``ValueError`` / ``FileNotFoundError`` with the name or path in the message.
    """
    env_options = dict(env_options or {})
    if name == "random":
        return agents.load("random", seed=seed)
    if name in agents.available():
        return agents.load(name, **env_options)
    return agents.load(name)

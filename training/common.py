"""Small helpers shared by the training-side commands (train, arena, play)."""

from __future__ import annotations

from cardzoo import agents
from cardzoo import envs


def check_agent_game(agent, game: str, label) -> None:
    """Raise ``ValueError`` if ``agent`` (called ``label``: a registry name or a path) was made for
    another game than ``game``: a registry name ``"<other game>/..."``, or a saved policy whose
    metadata names another game. Agents for every game (e.g. ``random``) pass."""
    prefix = label.split("/", 1)[0] if isinstance(label, str) else None
    if prefix in envs.GAMES and prefix != game:
        raise ValueError(f"agent {label!r} plays {prefix}, not {game}; use an agent of {game} (available: {agents.available()})")
    meta_game = (getattr(agent, "meta", None) or {}).get("game")
    if meta_game and meta_game != game:
        raise ValueError(f"agent {label!r} was trained for {meta_game}, not {game}")


def resolve_agent(name: str, env_options: dict | None = None, seed: int | None = None, game: str | None = None, exec_timeout: float | None = None):
    """Load an agent by registry name or path, passing what each kind needs.

    ``"random"`` gets ``seed``; other registered names get the env options (rule bots read the
    observation layout from them); ``"exec:COMMAND"`` is an external bot (``exec_timeout``
    seconds per answer, default 10; ``agents/external.py``); anything else is loaded as a saved
    policy path.
    With ``game``, an agent made for another game is refused (:func:`check_agent_game`).
    Raises ``ValueError`` / ``FileNotFoundError`` with the name or path in the message.
    """
    env_options = dict(env_options or {})
    if game is not None:
        check_agent_game(None, game, name)  # by name, before loading
    if name == "random":
        return agents.load("random", seed=seed)
    if name.startswith("exec:"):
        from cardzoo.agents.external import DEFAULT_TIMEOUT, ExecAgent

        return ExecAgent(name[len("exec:"):], timeout=DEFAULT_TIMEOUT if exec_timeout is None else exec_timeout, name=name)
    agent = agents.load(name, **env_options) if name in agents.available() else agents.load(name)
    if game is not None:
        check_agent_game(agent, game, name)
    return agent


def agent_action(agent, env) -> int:
    """The action ``agent`` takes for the seat to act in ``env`` (a reset AEC env, ``B = 1``).

    A search agent (``needs_state``, e.g. ``all_fours/pimc``) reads the game state; every other
    agent acts on the seat's observation and action mask. Returns an ``int`` action id.
    """
    if getattr(agent, "needs_state", False):
        return int(agent.act_state(env.unwrapped.game_state)[0])
    obs = env.observe(env.agent_selection)
    return int(agent.act(obs["observation"][None], obs["action_mask"][None])[0])


def default_agent(game: str, env_options: dict | None = None) -> tuple[str, str | None]:
    """The AI that plays ``game`` by default: ``"<game>/ppo"`` when a trained agent is shipped and
    fits ``env_options`` (its observation layout), else ``"<game>/rule"``.

    Returns ``(name, note)``; ``note`` says why the shipped agent was not taken (``None`` otherwise).
    """
    ppo = f"{game}/ppo"
    if ppo in agents.available():
        try:
            agents.load(ppo, **dict(env_options or {}))
            return ppo, None
        except (ValueError, OSError) as e:
            return f"{game}/rule", f"{ppo} does not fit these options ({e})"
    return f"{game}/rule", None

"""cardzoo agents: policies that pick actions from ``(observation, action_mask)`` in batch.

``load(name, **env_options)`` builds one by name (``available()`` lists the names) or from a
saved policy path; ``register(name, factory)`` adds a name. See :class:`Agent` for the interface.
"""

from .base import Agent
from .random_agent import RandomAgent
from .registry import available, load, register, unregister

__all__ = ["Agent", "RandomAgent", "available", "load", "register", "unregister"]

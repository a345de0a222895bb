"""Avinas (Lithuanian "Rams") as a PettingZoo AEC environment.

Rules, options and decisions: ``envs/avinas/RULES.md``. Four seats ``player_0`` .. ``player_3``
clockwise; partners sit opposite (teams ``[player_0, player_2]``, ``[player_1, player_3]``).
Actions ``Discrete(83)``: card ids 0-31 played face up (``8*suit + rank``, suits C D H S, ranks
7 8 9 10 J Q K A), 32-63 the same card led face down, then ``PASS`` 64, ``CALL_1``..``CALL_8``
65-72, ``DECLARE_C``..``DECLARE_S`` 73-76, ``KNOCK`` 77, ``NO_KNOCK`` 78, ``CONTINUE`` 79,
``STOP`` 80, ``SIGNAL_VALUABLE`` 81, ``SIGNAL_NOT_VALUABLE`` 82. Observation layout:
``raw_env().observation_layout()``.

Example::

    from cardzoo.envs import avinas_v0
    env = avinas_v0.env(render_mode="ansi")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)
"""

from __future__ import annotations

from .avinas.kernel import AvinasKernel
from .core.aec import KernelAECEnv

__all__ = ["AvinasEnv", "KERNEL", "env", "raw_env"]

KERNEL = AvinasKernel


class AvinasEnv(KernelAECEnv):
    """Avinas AEC env; options are those of :class:`cardzoo.envs.avinas.kernel.AvinasKernel` (RULES.md §8)."""

    kernel_cls = AvinasKernel
    env_name = "avinas_v0"


def raw_env(**options) -> AvinasEnv:
    """An :class:`AvinasEnv`; ``ValueError`` for a bad option (listing the valid values)."""
    return AvinasEnv(**options)


def env(**options) -> AvinasEnv:
    """Same as :func:`raw_env`: the env validates actions itself (see :mod:`cardzoo.envs.core.aec`)."""
    return AvinasEnv(**options)

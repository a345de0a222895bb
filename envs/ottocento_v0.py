"""Ottocento (Bolognese Tarocchino) as a PettingZoo AEC environment.

Rules, options and decisions: ``envs/ottocento/RULES.md``. Four seats ``player_0`` ..
``player_3`` in playing order (anticlockwise); partners sit opposite (teams
``[player_0, player_2]``, ``[player_1, player_3]``). Actions ``Discrete(64)``: card ids 0-61
(``cardzoo.envs.core.cards.TAROCCO62``), then ``DECLARE`` 62 and ``PASS`` 63. Observation layout:
``raw_env().observation_layout()``.

Example::

    from cardzoo.envs import ottocento_v0
    env = ottocento_v0.env(render_mode="ansi")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)
"""

from __future__ import annotations

from .core.aec import KernelAECEnv
from .ottocento.kernel import OttocentoKernel

__all__ = ["OttocentoEnv", "KERNEL", "env", "raw_env"]

KERNEL = OttocentoKernel


class OttocentoEnv(KernelAECEnv):
    """Ottocento AEC env; options are those of :class:`cardzoo.envs.ottocento.kernel.OttocentoKernel` (RULES.md §8)."""

    kernel_cls = OttocentoKernel
    env_name = "ottocento_v0"


def raw_env(**options) -> OttocentoEnv:
    """An :class:`OttocentoEnv`; ``ValueError`` for a bad option (listing the valid values)."""
    return OttocentoEnv(**options)


def env(**options) -> OttocentoEnv:
    """Same as :func:`raw_env`: the env validates actions itself (see :mod:`cardzoo.envs.core.aec`)."""
    return OttocentoEnv(**options)

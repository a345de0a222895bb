"""All Fours (Trinidad rules) as a PettingZoo AEC environment.

Rules, options and decisions: ``envs/all_fours/RULES.md``. Four seats ``player_0`` ..
``player_3``; partners sit opposite (teams ``[player_0, player_2]``, ``[player_1, player_3]``).
Actions ``Discrete(56)``: card ids 0-51 (``13*suit + rank``, suits C D H S, ranks 2..A),
then ``STAND`` 52, ``BEG`` 53, ``GIVE_ONE`` 54, ``RUN`` 55. Observation layout:
``raw_env().observation_layout()``.

Example::

    from cardzoo.envs import all_fours_v0
    env = all_fours_v0.env(render_mode="ansi")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)
"""

from __future__ import annotations

from .all_fours.kernel import AllFoursKernel
from .core.aec import KernelAECEnv

__all__ = ["AllFoursEnv", "KERNEL", "env", "raw_env"]

KERNEL = AllFoursKernel


class AllFoursEnv(KernelAECEnv):
    """All Fours AEC env; options are those of :class:`cardzoo.envs.all_fours.kernel.AllFoursKernel` (RULES.md §8)."""

    kernel_cls = AllFoursKernel
    env_name = "all_fours_v0"


def raw_env(**options) -> AllFoursEnv:
    """An :class:`AllFoursEnv`; ``ValueError`` for a bad option (listing the valid values)."""
    return AllFoursEnv(**options)


def env(**options) -> AllFoursEnv:
    """Same as :func:`raw_env`: the env validates actions itself (see :mod:`cardzoo.envs.core.aec`)."""
    return AllFoursEnv(**options)

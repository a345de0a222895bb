"""P'yanitsa ("Drunkard") as a PettingZoo AEC environment.

Rules, options and decisions: ``envs/pyanitsa/RULES.md``. Seats ``player_0`` ..
``player_{n-1}`` (``num_players`` 2-4, default 2), each for themselves (``teams`` is ``None``).
Actions ``Discrete(C + 1)`` (``C`` = 36 or 52 cards): ``ORDER(card)`` for card ids
``0..C-1`` (only with ``collect_order="winner_chooses"``), then ``FLIP`` = ``C``. Piles are
hidden from everyone (``hands`` is empty); they are seen only through ``state()``.
Observation layout: ``raw_env().observation_layout()``.

Example::

    from cardzoo.envs import pyanitsa_v0
    env = pyanitsa_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)
"""

from __future__ import annotations

from .core.aec import KernelAECEnv
from .pyanitsa.kernel import PyanitsaKernel

__all__ = ["PyanitsaEnv", "KERNEL", "env", "raw_env"]

KERNEL = PyanitsaKernel


class PyanitsaEnv(KernelAECEnv):
    """P'yanitsa AEC env; options are those of :class:`cardzoo.envs.pyanitsa.kernel.PyanitsaKernel` (RULES.md §8)."""

    kernel_cls = PyanitsaKernel
    env_name = "pyanitsa_v0"


def raw_env(**options) -> PyanitsaEnv:
    """A :class:`PyanitsaEnv`; ``ValueError`` for a bad option (listing the valid values)."""
    return PyanitsaEnv(**options)


def env(**options) -> PyanitsaEnv:
    """Same as :func:`raw_env`: the env validates actions itself (see :mod:`cardzoo.envs.core.aec`)."""
    return PyanitsaEnv(**options)

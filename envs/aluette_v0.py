"""Aluette (La Vache) as a PettingZoo AEC environment.

Rules, options and decisions: ``envs/aluette/RULES.md``. Four seats ``player_0`` ..
``player_3`` clockwise; partners sit opposite (teams ``[player_0, player_2]``,
``[player_1, player_3]``). Actions ``Discrete(65)``: card ids 0-47 (``12*suit + rank``, suits
Co Cu Cl Sw, ranks A 2..9 J N K), then ``accept_chant`` 48, ``refuse_chant`` 49, the ten
signals 50-59 (``monsieur`` ... ``faible``), ``end_signals`` 60, ``offer_surrender`` 61,
``no_offer`` 62, ``accept_surrender`` 63, ``refuse_surrender`` 64. Observation layout:
``raw_env().observation_layout()``.

Example::

    from cardzoo.envs import aluette_v0
    env = aluette_v0.env(render_mode="ansi", signals="free")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)
"""

from __future__ import annotations

from .aluette.kernel import AluetteKernel
from .core.aec import KernelAECEnv

__all__ = ["AluetteEnv", "KERNEL", "env", "raw_env"]

KERNEL = AluetteKernel


class AluetteEnv(KernelAECEnv):
    """Aluette AEC env; options are those of :class:`cardzoo.envs.aluette.kernel.AluetteKernel` (RULES.md §8).

    With ``partnership_draw=True`` every agent's ``infos`` after ``reset`` hold ``agent_seat``:
    the seat now taken by the agent who drew at seat ``i`` (RULES.md §3); the caller re-seats
    its policies accordingly (``player_i`` names a seat).
    """

    kernel_cls = AluetteKernel
    env_name = "aluette_v0"

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """:meth:`KernelAECEnv.reset` (same ``seed``, ``options`` and ``ValueError``s); with
        ``partnership_draw=True`` every agent's ``infos`` then hold ``agent_seat`` (``list[int]`` of
        4, RULES.md §3) unless the deal already ended."""
        super().reset(seed=seed, options=options)
        if self.kernel.options["partnership_draw"] and not self._st.done[0]:
            seats = self._st.draw_map[0].tolist()
            for a in self.agents:
                self.infos[a] = {"agent_seat": seats}


def raw_env(**options) -> AluetteEnv:
    """An :class:`AluetteEnv`; ``ValueError`` for a bad option (listing the valid values)."""
    return AluetteEnv(**options)


def env(**options) -> AluetteEnv:
    """Same as :func:`raw_env`: the env validates actions itself (see :mod:`cardzoo.envs.core.aec`)."""
    return AluetteEnv(**options)

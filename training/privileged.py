"""Perfect-information critic for MaskablePPO ("perfect training, imperfect execution").

In card games most of the variance of a hand's result comes from the cards nobody sees. A
critic that sees them (the kernel's ``global_state`` plus the acting seat) predicts the
return far better than one that sees only the actor's observation, which makes PPO's
advantages much less noisy. The actor still sees only its own observation, so the trained
policy plays from what its seat may know, as every cardzoo agent does.

How it is wired:

* :class:`cardzoo.training.vec_env.KernelVecEnv` with ``privileged=True`` returns
  ``[observation (D) | global_state (S) | one-hot acting seat (P)]``, each scaled to ``[0, 1]``.
* :class:`PrivilegedCriticPolicy` is a ``MaskableActorCriticPolicy`` with separate feature
  extractors: the critic's sees everything, the actor's zeroes every feature past ``D``, so
  the actor's weights on those inputs never receive a gradient.
* :func:`actor_only` turns such a policy into a plain ``MaskableActorCriticPolicy`` on the
  ``D`` observation features (the actor's first layer sliced; the critic is dropped), which is
  what snapshots and saved agents hold.
"""

from __future__ import annotations

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

__all__ = ["ActorView", "PrivilegedCriticPolicy", "actor_only", "load_actor_into"]


class ActorView(BaseFeaturesExtractor):
    """Features for the actor: the first ``actor_dim`` inputs, the rest set to zero (same width)."""

    def __init__(self, observation_space: spaces.Box, actor_dim: int) -> None:
        super().__init__(observation_space, int(observation_space.shape[0]))
        keep = torch.zeros(int(observation_space.shape[0]))
        keep[: int(actor_dim)] = 1.0
        self.register_buffer("keep", keep, persistent=False)
        self.actor_dim = int(actor_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` (``float32[B, W]``) with its columns from ``actor_dim`` on set to zero (same shape)."""
        return x * self.keep


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose actor sees only the first ``actor_dim`` features.

    Args:
        actor_dim: ``D``, the size of the seat's observation at the start of each input row.
        Other arguments are those of ``MaskableActorCriticPolicy`` (``share_features_extractor``
        is forced to False).
    """

    def __init__(self, *args, actor_dim: int, **kwargs) -> None:
        kwargs["share_features_extractor"] = False
        super().__init__(*args, **kwargs)
        self.actor_dim = int(actor_dim)
        # parameter-free extractors, so the optimizer built by super() is unaffected
        self.pi_features_extractor = ActorView(self.observation_space, self.actor_dim)
        self.features_extractor = self.pi_features_extractor


def _actor_keys(state: dict) -> dict:
    return {k: v for k, v in state.items() if k.startswith(("mlp_extractor.policy_net.", "action_net."))}


def actor_only(policy: PrivilegedCriticPolicy, net_arch, activation_fn) -> MaskableActorCriticPolicy:
    """A plain ``MaskableActorCriticPolicy`` over the ``actor_dim`` observation features that acts
    exactly like ``policy``'s actor (its critic is left at initialisation and is not used to act)."""
    D = policy.actor_dim
    plain = MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, (D,), policy.observation_space.dtype),
        policy.action_space,
        lr_schedule=lambda _: 0.0,
        net_arch=net_arch,
        activation_fn=activation_fn,
    )
    load_actor_into(plain, policy.state_dict(), D)
    plain.set_training_mode(False)
    return plain


def load_actor_into(policy: MaskableActorCriticPolicy, state: dict, in_dim: int) -> None:
    """Copy the actor weights (``mlp_extractor.policy_net.*``, ``action_net.*``) of ``state`` into
    ``policy``. The first layer is cut or zero-padded on its input side to fit ``policy``
    (``in_dim`` inputs of ``state`` are meaningful). ``ValueError`` if the hidden sizes differ."""
    own = policy.state_dict()
    actor = _actor_keys(state)
    first = "mlp_extractor.policy_net.0.weight"
    for k, v in actor.items():
        if k not in own:
            raise ValueError(f"actor weight {k} has no place in the target policy (different net_arch?)")
        if k == first:
            w = torch.zeros_like(own[k])
            n = min(in_dim, w.shape[1], v.shape[1])
            if w.shape[0] != v.shape[0]:
                raise ValueError(f"first actor layer has {v.shape[0]} units, the target {w.shape[0]}")
            w[:, :n] = v[:, :n]
            own[k] = w
        elif own[k].shape != v.shape:
            raise ValueError(f"actor weight {k} has shape {tuple(v.shape)}, the target {tuple(own[k].shape)}")
        else:
            own[k] = v.clone()
    policy.load_state_dict(own)

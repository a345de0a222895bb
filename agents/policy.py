"""Trained-policy agents: save and load a MaskablePPO policy as plain weights + JSON metadata.

A saved agent is a directory holding

* ``weights.safetensors``: the policy network's ``state_dict`` (tensors only; loading never
  unpickles Python objects);
* ``agent.json``: metadata — ``format`` (``"cardzoo-policy"``), ``format_version``, ``game``,
  ``env_options``, ``game_options`` (every option of the game as trained, defaults included),
  ``obs_layout_version`` (a hash of the observation layout the policy was
  trained on), ``obs_dim``, ``num_actions``, ``net_arch``, ``activation``, the training run
  (command, steps, seconds, seed) and evaluation results.

The network is rebuilt as sb3-contrib's ``MaskableActorCriticPolicy`` from the metadata and
the weights are loaded into it, so a saved agent plays without stable-baselines3's model zip.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from .base import Agent, observe_and_act
from .jsonsafe import json_safe

FORMAT = "cardzoo-policy"
FORMAT_VERSION = 1
WEIGHTS = "weights.safetensors"
META = "agent.json"
_ACTIVATIONS = ("tanh", "relu")


def layout_version(kernel) -> str:
    """Short hash of a kernel's observation layout (names, slices, bounds) and action count.

    A policy only fits an env whose layout hash matches the one it was trained on.
    """
    text = ";".join(f"{e.name}:{e.start}:{e.stop}:{e.high}" for e in kernel.obs_layout.entries)
    text += f";A={kernel.num_actions};game={kernel.name}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _build_policy(obs_dim: int, num_actions: int, net_arch, activation: str):
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    policy = MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, (obs_dim,), np.float32),
        spaces.Discrete(num_actions),
        lr_schedule=lambda _: 0.0,
        net_arch=net_arch,
        activation_fn=act,
    )
    policy.set_training_mode(False)
    return policy


class PolicyAgent(Agent):
    """An :class:`~cardzoo.agents.base.Agent` driven by a MaskablePPO actor network.

    Args:
        policy: a ``MaskableActorCriticPolicy`` (e.g. ``model.policy`` or a loaded one).
        obs_high: ``float32[D]`` per-feature bound of the raw observation; inputs are divided by it.
        deterministic: pick the most likely legal action (True) or sample (False).
        name: display name.
        meta: the saved metadata, if loaded from disk.
        seed: seeds the sampling (``deterministic=False``); ``None``: fresh entropy, as
            ``RandomAgent(None)`` (every unseeded sampler drew the same actions, seed 0).
    """

    #: the kernel it observes the game through after :meth:`observe_itself` (``None``: it acts on the
    #: observations it is given)
    observes_with = None

    def __init__(self, policy, obs_high: np.ndarray, deterministic: bool = True, name: str = "policy", meta=None, seed=None):
        import torch

        self.policy = policy
        self.scale = (1.0 / np.maximum(np.asarray(obs_high, dtype=np.float32), 1.0)).astype(np.float32)
        self.deterministic = deterministic
        self.name = name
        self.meta = meta or {}
        self._gen = torch.Generator()
        if seed is None:
            self._gen.seed()  # a nondeterministic seed
        else:
            self._gen.manual_seed(int(seed))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Actions ``int64[B]`` for observations ``[B, D]`` and masks ``[B, A]``: the kernel's ``uint8``
        observation, or its ``[0, 1]``-scaled ``float`` form (``cardzoo.make_vec``'s, the SB3 adapter's),
        as the rule bots take it (:func:`~cardzoo.agents.base.is_scaled`: a float batch with a value above 1
        holds the kernel's values; a scaled one was once scaled again, and the agent played worse moves)."""
        import torch

        from .base import as_batch, is_scaled

        D, A = self.scale.shape[0], self.policy.action_space.n
        raw, mask = as_batch(observation, action_mask, D, A)
        obs = raw.astype(np.float32)
        if obs.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        x = obs if is_scaled(raw) else obs * self.scale
        out = mask.argmax(axis=1).astype(np.int64)  # a forced move is the legal one
        ask = mask.sum(axis=1) > 1 if self.deterministic else np.ones(len(out), dtype=bool)
        if not ask.any():
            return out
        with torch.no_grad():
            probs = self._probs(torch.as_tensor(x[ask]), mask[ask])
            if self.deterministic:
                a = probs.argmax(dim=-1)
            else:  # every row draws (a forced one too), so a seed samples as it always did
                a = torch.multinomial(probs, 1, generator=self._gen)[:, 0]
        out[ask] = a.numpy()
        return out

    def _probs(self, x, mask: np.ndarray):
        """The masked action probabilities ``float32[B, A]`` of scaled observations ``x``, computed
        as sb3-contrib's ``get_distribution(x, action_masks=mask)`` does (logits normalized, illegal
        ones set to -1e8, normalized again, softmax: the same operations, so the same numbers), without
        building its ``torch.distributions`` objects and their argument checks (most of the time of a
        call on a small batch: search rollouts call the policy once per step)."""
        import torch

        p = self.policy
        latent = p.mlp_extractor.forward_actor(p.extract_features(x, p.pi_features_extractor))
        logits = p.action_net(latent)
        logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        logits = torch.where(torch.as_tensor(mask, dtype=torch.bool), logits, torch.tensor(-1e8, dtype=logits.dtype))
        logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        return torch.softmax(logits, dim=-1)

    @property
    def needs_state(self) -> bool:
        """Whether it reads the game state (:meth:`act_state`): after :meth:`observe_itself` only."""
        return self.observes_with is not None

    def observe_itself(self, kernel) -> None:
        """From now on read the game state (``needs_state``, as search agents do: the arena, the
        vector env's opponents, ``cardzoo play`` and the web table then call :meth:`act_state`) and
        observe it through ``kernel``: the game's rules with the observation options the agent was
        trained with. For a game whose observation options (the kernel's ``OBSERVATION_OPTIONS``, e.g.
        P'yanitsa's ``observe_history``) differ from those it learned with;
        :func:`cardzoo.agents.options.fit_observation` calls it. ``None``: act on the observations it
        is given again."""
        self.observes_with = kernel

    def act_state(self, state) -> np.ndarray:
        """Actions ``int64[B]`` for the seats to act in the games of ``state`` (after
        :meth:`observe_itself`): their observations and legal actions as its kernel gives them, then
        :meth:`act`. ``TypeError`` before (it acts on the observations it is given)."""
        if self.observes_with is None:
            raise TypeError(f"{self.name} acts on observations: call act(observation, action_mask)")
        return observe_and_act(self, self.observes_with, state)


def save_policy_agent(path, policy, *, game: str, env_options: dict, kernel, net_arch, activation: str, extra: dict | None = None) -> Path:
    """Write ``policy`` to directory ``path`` (created) as weights + ``agent.json``; returns the path.
    ``ValueError`` for an ``activation`` that is not ``"tanh"`` or ``"relu"``."""
    from safetensors.torch import save

    if activation not in _ACTIVATIONS:
        raise ValueError(f"activation {activation!r} is not supported; valid: {list(_ACTIVATIONS)}")
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().contiguous() for k, v in policy.state_dict().items()}
    # bytes written as any file is (mode 0666 less the umask): safetensors' save_file makes the file
    # owner-only (0600), so another account sharing the runs folder could not load the agent
    (path / WEIGHTS).write_bytes(save(state))
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game,
        "env_options": env_options,
        "game_options": dict(kernel.options),  # every option, defaults included (agents/options.py)
        "obs_layout_version": layout_version(kernel),
        "obs_dim": int(kernel.obs_layout.size),
        "num_actions": int(kernel.num_actions),
        "net_arch": net_arch,
        "activation": activation,
        **(extra or {}),
    }
    # valid JSON: an undefined number (e.g. the CI of a 1-deal evaluation in ``extra``) is written as null
    (path / META).write_text(json.dumps(json_safe(meta), indent=2, sort_keys=True, default=_jsonable, allow_nan=False))
    return path


def _jsonable(x: Any):
    if isinstance(x, (np.integer, np.floating)):
        return json_safe(x.item())
    if isinstance(x, np.ndarray):
        return json_safe(x.tolist())
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def read_meta(path) -> dict:
    """The validated ``agent.json`` of a saved agent directory.

    Raises ``FileNotFoundError`` / ``ValueError`` naming ``path`` when it is missing or not a
    cardzoo policy: a ``str`` as it was written (``./all_fours/ppox``, which ``Path`` would shorten).
    """
    given = path if isinstance(path, str) else str(path)
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no saved agent at {given}: the path does not exist")
    meta_file = path / META if path.is_dir() else path
    if meta_file.name != META or not meta_file.is_file():
        raise ValueError(f"{path} is not a saved cardzoo agent: expected a directory holding {META} and {WEIGHTS}{_hint(path)}")
    try:
        meta = json.loads(meta_file.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{meta_file} is not valid JSON ({e}); not a saved cardzoo agent") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{meta_file} is not a cardzoo policy (its 'format' is not {FORMAT!r})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{meta_file} has format_version {meta.get('format_version')!r}; this cardzoo reads {FORMAT_VERSION}")
    missing = [k for k in ("game", "env_options", "obs_layout_version", "obs_dim", "num_actions", "net_arch", "activation") if k not in meta]
    if missing:
        raise ValueError(f"{meta_file} lacks the keys {missing}; not a complete saved agent")
    if meta["activation"] not in _ACTIVATIONS:
        raise ValueError(f"{meta_file}: activation {meta['activation']!r} is not one of {list(_ACTIVATIONS)}")
    return meta


def _hint(path: Path) -> str:
    """What ``path``, which is not a saved agent, is instead, for :func:`read_meta`'s error: a training
    run's folder (its agent), a folder of checkpoints, a folder with weights and no ``agent.json``, a model
    zip of stable-baselines3 (the agent saved with it) or a file of an agent's folder (that folder)."""
    if path.is_dir():
        inside = [path / d for d in ("agent", "ppo_agent") if (path / d / META).is_file()]
        if inside:
            return f"; it holds a training run, whose agent is {inside[0]}"
        saved = sorted((d for d in path.glob("agent_*") if (d / META).is_file()),
                       key=lambda d: (int(d.name[6:]) if d.name[6:].isdigit() else -1, d.name))
        if saved:
            return f"; it holds the checkpoints of a training run, whose agents are {saved[0].name} .. {saved[-1].name} (the latest: {saved[-1]})"
        if (path / WEIGHTS).is_file():
            return f"; it has {WEIGHTS} but no {META} (the metadata saved beside the weights: game, options, network)"
        return ""
    if path.suffix == ".zip":  # OUT/model.zip, OUT/checkpoints/model_N.zip: the agent is saved beside it
        stem = path.stem
        beside = ([path.with_name("agent_" + stem[6:])] if stem.startswith("model_")
                  else [path.with_name("agent"), path.with_name("ppo_agent")])
        found = [d for d in beside if (d / META).is_file()]
        return (f", not a .zip: {path.name} is a stable-baselines3 model (cardzoo train saves the agent beside it"
                + (f": {found[0]}" if found else ", in the run's agent folder") + ")")
    if (path.parent / META).is_file():
        return f", not a file in it: give the folder {path.parent}"
    return ""


def load_policy_agent(path, deterministic: bool = True, seed=None, check_layout: bool = True) -> PolicyAgent:
    """Load a saved agent directory as a :class:`PolicyAgent`.

    Raises ``FileNotFoundError`` (missing path) or ``ValueError`` (not a valid agent, corrupt
    weights, or an observation layout that differs from the current env's), always naming ``path``;
    :class:`cardzoo.MissingExtraError` when the ``[train]`` extra (torch, sb3-contrib) is missing.
    """
    from cardzoo import envs, require_extra

    require_extra("train", f"the trained agent {str(path)!r}")
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    meta = read_meta(path)  # before Path(): its error names the path as it was written (./x)
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    try:
        # saved options may use aliases (P'yanitsa's n_players): read them as the options' names
        meta["env_options"] = envs.kernel_class(meta["game"]).canonical_options(meta["env_options"])
        kernel = envs.kernel(meta["game"], **meta["env_options"])
    except ValueError as e:
        raise ValueError(f"{path}: its game/env options are not valid here: {e}") from None
    if check_layout and meta["obs_layout_version"] != layout_version(kernel):
        raise ValueError(
            f"{path} was trained on observation layout {meta['obs_layout_version']}, "
            f"but this cardzoo's {meta['game']} layout is {layout_version(kernel)}: retrain or use a matching version"
        )
    policy = _build_policy(meta["obs_dim"], meta["num_actions"], meta["net_arch"], meta["activation"])
    wfile = folder / WEIGHTS
    if not wfile.is_file():
        raise FileNotFoundError(f"{path} has no {WEIGHTS}: a saved agent is a directory holding {META} and {WEIGHTS}")
    try:
        state = load_file(str(wfile))
        policy.load_state_dict(state, strict=True)
    except (SafetensorError, RuntimeError, OSError) as e:
        raise ValueError(f"{wfile} is not a valid weights file for this agent: {e}") from None
    high = kernel.obs_layout.high()
    return PolicyAgent(policy, high, deterministic=deterministic, name=meta.get("name", folder.name), meta=meta, seed=seed)

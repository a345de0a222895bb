"""Batched training environment: B games in lockstep, one learning team against an opponent pool.

:class:`KernelVecEnv` is a stable-baselines3 ``VecEnv``: a thin adapter of the Gymnasium vector env
:class:`cardzoo.envs.core.vector.KernelVectorEnv` (run in ``SAME_STEP`` autoreset mode), which
holds the one implementation of the batched games, opponents, rewards and autoreset.
Each of its ``n_envs`` slots is one game. In every game the learner plays both seats of one
team (a shared policy over seat-relative observations); the other team is played by an
opponent drawn from an :class:`OpponentPool` when the game is dealt, and the opponents'
moves are computed in batch inside the env (grouped by opponent). The learner's team and
the opponent are re-drawn at every reset, so the learner plays every seat. In a game without
teams (``kernel.teams is None``, e.g. P'yanitsa) every seat is its own side: the learner plays
one seat and the opponent all the others.

With ``skip_forced=True`` a decision with exactly one legal action (e.g. P'yanitsa's ``FLIP``)
is played by the env itself, for the learner too, so PPO only sees real choices.

* Observations: the raw ``uint8`` observation of the seat to act, divided by the layout's
  per-feature bounds -> ``float32[n_envs, D]`` in ``[0, 1]``.
* ``action_masks()`` -> ``bool[n_envs, A]`` for sb3-contrib's ``MaskablePPO``.
* Rewards: whatever the kernel pays the learner's team between two learner decisions,
  summed, so a hand that ends on an opponent's card still reaches the learner (wins and
  losses alike).
* Episodes auto-reset: a finished game returns ``done=True`` with its final reward, and
  ``infos[i]["terminal_observation"]`` holds the last observation; the returned observation
  is the first decision of the next game. ``infos[i]["episode_result"]`` gives the learner's
  return and the opponent's name; ``TimeLimit.truncated`` marks truncations.
* ``privileged=True`` appends, for a perfect-information critic (:mod:`cardzoo.training.privileged`),
  the kernel's ``global_state`` and a one-hot of the acting seat to every observation:
  ``float32[n_envs, D + S + P]``; the first ``D`` features are the seat's observation as above.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from cardzoo import envs
from cardzoo.envs.core.vector import KernelVectorEnv, OpponentSet


@dataclass
class PoolEntry:
    """One opponent of the pool: a name, an agent, a sampling weight."""

    name: str
    agent: object
    weight: float


class OpponentPool(OpponentSet):
    """Opponents to sample from, by weight (an :class:`~cardzoo.envs.core.vector.OpponentSet` whose
    members change during training: snapshots are added, the oldest dropped).

    ``groups`` weight whole families: e.g. ``{"random": 0.1, "rule": 0.4, "snapshot": 0.5}``;
    an entry belongs to the family named by the part of its name before ``@`` (``"snapshot@40960"``),
    and a family's weight is split evenly between its members. Families with no member are skipped.
    """

    def __init__(self, group_weights: dict[str, float]) -> None:
        if not isinstance(group_weights, dict):
            raise ValueError(f"group weights must be a dict family -> weight, e.g. {{'random': 0.1, 'rule': 0.9}}, got {group_weights!r}")
        # numpy numbers are weights (np.float32(1.0) was refused as not ">= 0"); a bool is not, and an
        # infinite weight made every draw fail later ("probabilities contain NaN"). The message is the
        # one it always was (a weight is a finite number >= 0)
        bad = {k: w for k, w in group_weights.items()
               if not (isinstance(w, numbers.Real) and not isinstance(w, (bool, np.bool_)) and math.isfinite(w) and w >= 0)}
        if bad or not any(w > 0 for w in group_weights.values()):
            raise ValueError(f"opponent weights must be >= 0 with at least one > 0, got {group_weights}")
        self.group_weights = {k: float(w) for k, w in group_weights.items()}
        self.entries: list[PoolEntry] = []

    def add(self, name: str, agent, max_per_group: int | None = None) -> None:
        """Add an opponent; with ``max_per_group`` the oldest of its family beyond that is dropped."""
        self.entries.append(PoolEntry(name, agent, 1.0))
        if max_per_group is not None:
            fam = name.split("@")[0]
            members = [e for e in self.entries if e.name.split("@")[0] == fam]
            for old in members[: max(0, len(members) - max_per_group)]:
                self.entries.remove(old)

    def probabilities(self) -> np.ndarray:
        """Sampling probability of each entry, ``float64[len(entries)]`` (summing to 1); ``ValueError``
        if no entry belongs to a family with a positive weight."""
        fams = [e.name.split("@")[0] for e in self.entries]
        counts = {f: fams.count(f) for f in set(fams)}
        p = np.array([self.group_weights.get(f, 0.0) / counts[f] for f in fams], dtype=np.float64)
        if p.sum() <= 0:
            raise ValueError(f"no opponent in the pool has a positive weight: pool {fams}, weights {self.group_weights}")
        return p / p.sum()

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Indices ``int64[n]`` of ``n`` opponents drawn by weight (:meth:`probabilities`, whose
        ``ValueError`` it passes on)."""
        return rng.choice(len(self.entries), size=n, p=self.probabilities())

    def seed(self, seed: int) -> None:
        """Nothing: the pool's agents change during training and are seeded by the trainer."""

    def __len__(self) -> int:
        return len(self.entries)

    def name(self, i: int) -> str:
        """Name of entry ``i``."""
        return self.entries[i].name

    def act(self, i: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions of entry ``i``'s agent for ``obs`` ``uint8[n, D]`` and ``mask`` ``bool[n, A]``."""
        return self.entries[i].agent.act(obs, mask)

    def needs_state(self, i: int) -> bool:
        """Whether entry ``i``'s agent is a search agent, which acts on the game state (:meth:`act_state`)."""
        return bool(getattr(self.entries[i].agent, "needs_state", False))

    def act_state(self, i: int, state) -> np.ndarray:
        """Actions ``int64[B]`` of entry ``i``'s search agent for the seats to act in the ``B`` games of ``state``."""
        return self.entries[i].agent.act_state(state)


class KernelVecEnv(VecEnv):
    """``VecEnv`` of ``n_envs`` games of ``game`` for a learning team (see module docstring).

    Args:
        game: registry name (``envs.GAMES``).
        n_envs: games in the batch.
        pool: the :class:`OpponentPool` (must hold at least one entry with a positive weight), or a
            fixed :class:`~cardzoo.envs.core.vector.OpponentSet`; ``ValueError`` otherwise.
        seed: seed of the env's generator (deals, seats, opponents).
        env_options: the game's options (RULES.md §8).
        privileged: append the perfect-information features for a critic (module docstring).
        skip_forced: play decisions with a single legal action automatically (default False).

    The Gymnasium vector env is :attr:`venv`; ``kernel``, ``st`` (the kernel state), ``sides``,
    ``learner_team``, ``opponent``, ``actor_dim`` and ``pool`` read through to it.
    """

    def __init__(
        self,
        game: str,
        n_envs: int,
        pool: OpponentPool,
        seed: int = 0,
        env_options: dict | None = None,
        privileged: bool = False,
        skip_forced: bool = False,
    ):
        if not isinstance(pool, OpponentSet):
            raise ValueError(
                f"pool must be an OpponentPool (pool = OpponentPool({{'random': 1.0}}); pool.add('random', agent)) "
                f"or an OpponentSet of act(obs, mask) callables, got {pool!r}")
        if len(pool) == 0:
            raise ValueError("the opponent pool is empty: add at least one opponent")
        if isinstance(pool, OpponentPool):
            pool.probabilities()  # ValueError at construction if no member has a positive weight
        self.game = game
        self.env_options = dict(env_options or {})
        self.venv = KernelVectorEnv(
            envs.kernel(game, **self.env_options),
            n_envs,
            pool,
            seed=seed,
            privileged=privileged,
            skip_forced=skip_forced,
            autoreset_mode=AutoresetMode.SAME_STEP,
        )
        self.render_mode = None
        super().__init__(n_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._actions = None

    @classmethod
    def from_vector_env(cls, venv: KernelVectorEnv) -> "KernelVecEnv":
        """The stable-baselines3 ``VecEnv`` of a Gymnasium vector env made by ``cardzoo.make_vec``
        (or :class:`~cardzoo.envs.core.vector.KernelVectorEnv`), which must autoreset in ``"SameStep"``
        mode (SB3's convention: the step that ends a game returns the next game's first observation).
        ``ValueError`` for anything else, naming what to pass. SB3 cannot take the Gymnasium vector env
        itself (it would wrap it as one single env)::

            venv = cardzoo.make_vec("all_fours", 64, opponents="all_fours/rule", autoreset_mode="SameStep", seed=0)
            MaskablePPO("MlpPolicy", KernelVecEnv.from_vector_env(venv)).learn(10_000)
        """
        if not isinstance(venv, KernelVectorEnv):
            raise ValueError(f"from_vector_env takes a KernelVectorEnv (cardzoo.make_vec(...)), got {venv!r}")
        if venv.autoreset_mode != AutoresetMode.SAME_STEP:
            raise ValueError(
                f"from_vector_env needs a vector env in SameStep autoreset mode (stable-baselines3's convention), "
                f"got {venv.autoreset_mode.value}: make it with cardzoo.make_vec(..., autoreset_mode=\"SameStep\")")
        if venv.closed:
            raise ValueError("from_vector_env got a closed vector env: make a new one (cardzoo.make_vec)")
        self = cls.__new__(cls)
        self.game = venv.kernel.name
        self.env_options = dict(venv.kernel.options)
        self.venv = venv
        self.render_mode = None
        VecEnv.__init__(self, venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions = None
        return self

    # read-through views of the vector env's state
    kernel = property(lambda self: self.venv.kernel, doc="The game's batched kernel (the vector env's).")
    st = property(lambda self: self.venv.st, doc="The kernel state of the ``n_envs`` games (batch axis ``n_envs``).")
    sides = property(lambda self: self.venv.sides, doc="``list[list[int]]``: the seats of each side (a team, or one seat without teams).")
    learner_team = property(lambda self: self.venv.learner_team,
                            doc="``int64[n_envs]``: the side the learner plays in each game (drawn at each deal).")
    opponent = property(lambda self: self.venv.opponent,
                        doc="``int64[n_envs]``: index in :attr:`pool` of the opponent of each game.")
    actor_dim = property(lambda self: self.venv.actor_dim,
                         doc="``D``: length of the actor's part of an observation (the whole of it unless privileged).")
    privileged = property(lambda self: self.venv.privileged,
                          doc="Whether observations append the global state and acting seat for a critic.")
    skip_forced = property(lambda self: self.venv.skip_forced,
                           doc="Whether decisions with exactly one legal action are played automatically (the learner's too).")
    pool = property(lambda self: self.venv.opponents, doc="The :class:`OpponentPool` (an ``OpponentSet``) the opponents come from.")
    _rep_seat = property(lambda self: self.venv._rep_seat)

    # ---------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        """Deal ``n_envs`` new games (seeded by SB3's ``seed()`` if it was called); returns the
        observations ``float32[n_envs, D]``. ``RuntimeError`` after :meth:`close`."""
        seed = self._seeds[0]  # set by VecEnv.seed(seed)
        self._reset_seeds()
        obs, _ = self.venv.reset(seed=seed)
        return obs

    def action_masks(self) -> np.ndarray:
        """``bool[n_envs, A]`` legal actions of the learner's seat to act in each game."""
        return self.venv.action_masks()

    def step_async(self, actions: np.ndarray) -> None:
        """Keep ``actions`` (ints, one per game: shape ``(n_envs,)``, or ``(n_envs, 1)`` as SB3 may pass
        them) for :meth:`step_wait`, which refuses other shapes and dtypes by name (``ValueError``
        from the vector env: a float action is not truncated to an int)."""
        actions = np.asarray(actions)
        self._actions = actions.reshape(self.num_envs) if actions.shape == (self.num_envs, 1) else actions

    def step_wait(self):
        """Step the actions of :meth:`step_async`: ``(obs float32[n_envs, D], rewards float32[n_envs],
        dones bool[n_envs], infos)``, SB3's ``VecEnv`` convention. A game that ended is dealt again in
        the same step; its ``infos[i]`` holds ``terminal_observation``, ``TimeLimit.truncated`` and
        ``episode_result`` (``return``, ``length``, ``opponent``, ``truncated``). ``RuntimeError``
        without :meth:`step_async` first (or after :meth:`close`); ``ValueError`` for actions of
        another shape or dtype, or illegal ones."""
        if self._actions is None:  # it stepped None: "actions must be an int array of shape (N,), got object ()"
            raise RuntimeError("step_wait() called without actions: call step_async(actions) first (or step(actions))")
        actions, self._actions = self._actions, None  # a second step_wait does not replay them
        obs, rewards, term, trunc, info = self.venv.step(actions)
        dones = term | trunc
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            final = info["final_info"]
            infos[i] = {
                "terminal_observation": info["final_obs"][i],
                "TimeLimit.truncated": bool(trunc[i]),
                "episode_result": {
                    "return": float(final["episode_return"][i]),
                    "length": int(final["episode_length"][i]),
                    "opponent": str(final["opponent"][i]),
                    "truncated": bool(final["truncated"][i]),
                },
            }
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        """Close the vector env it adapts (its games are freed): ``reset``, ``step`` and ``action_masks``
        then raise ``RuntimeError`` saying so, as the vector env's do (it was a no-op, and the closed
        adapter went on stepping); a second ``close()`` does nothing."""
        self.venv.close()

    def get_attr(self, attr_name: str, indices=None) -> list:
        """``[getattr(self, attr_name)]`` once per index (one adapter serves every game);
        ``AttributeError`` for an attribute it has not."""
        if not hasattr(self, attr_name):
            raise AttributeError(attr_name)
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        """Set ``attr_name`` on the adapter (for every game at once: ``indices`` is ignored)."""
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
        """The adapter's method ``method_name`` called once, its result repeated per index;
        ``"action_masks"`` gives each game's own ``bool[A]`` row (what sb3-contrib's MaskablePPO asks)."""
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        out = getattr(self, method_name)(*args, **kwargs)
        return [out] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        """``False`` per index: the games are not Gymnasium envs and have no wrappers."""
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices

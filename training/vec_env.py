"""Batched training environment: B games in lockstep, one learning team against an opponent pool.

:class:`KernelVecEnv` is a stable-baselines3 ``VecEnv`` built directly on a game kernel.
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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from cardzoo import envs


@dataclass
class PoolEntry:
    """One opponent of the pool: a name, an agent, a sampling weight."""

    name: str
    agent: object
    weight: float


class OpponentPool:
    """Opponents to sample from, by weight.

    ``groups`` weight whole families: e.g. ``{"random": 0.1, "rule": 0.4, "snapshot": 0.5}``;
    an entry belongs to the family named by the part of its name before ``@`` (``"snapshot@40960"``),
    and a family's weight is split evenly between its members. Families with no member are skipped.
    """

    def __init__(self, group_weights: dict[str, float]) -> None:
        bad = {k: w for k, w in group_weights.items() if not (isinstance(w, (int, float)) and w >= 0)}
        if bad or not any(w > 0 for w in group_weights.values()):
            raise ValueError(f"opponent weights must be >= 0 with at least one > 0, got {group_weights}")
        self.group_weights = dict(group_weights)
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
        """Sampling probability of each entry, ``float64[len(entries)]``."""
        fams = [e.name.split("@")[0] for e in self.entries]
        counts = {f: fams.count(f) for f in set(fams)}
        p = np.array([self.group_weights.get(f, 0.0) / counts[f] for f in fams], dtype=np.float64)
        if p.sum() <= 0:
            raise ValueError(f"no opponent in the pool has a positive weight: pool {fams}, weights {self.group_weights}")
        return p / p.sum()

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Indices of ``n`` opponents drawn by weight."""
        return rng.choice(len(self.entries), size=n, p=self.probabilities())


class KernelVecEnv(VecEnv):
    """``VecEnv`` of ``n_envs`` games of ``game`` for a learning team (see module docstring).

    Args:
        game: registry name (``envs.GAMES``).
        n_envs: games in the batch.
        pool: the :class:`OpponentPool` (must hold at least one entry).
        seed: seed of the env's generator (deals, seats, opponents).
        env_options: the game's options (RULES.md §8).
        privileged: append the perfect-information features for a critic (module docstring).
        skip_forced: play decisions with a single legal action automatically (default False).
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
        if not pool.entries:
            raise ValueError("the opponent pool is empty: add at least one opponent")
        self.game = game
        self.env_options = dict(env_options or {})
        self.kernel = envs.kernel(game, **self.env_options)
        k = self.kernel
        self.sides = [list(t) for t in k.teams] if k.teams is not None else [[s] for s in range(k.num_players)]
        self.skip_forced = bool(skip_forced)
        self.pool = pool
        self.rng = np.random.default_rng(seed)
        self.scale = (1.0 / np.maximum(k.obs_layout.high(), 1.0)).astype(np.float32)
        self.privileged = bool(privileged)
        self.state_scale = (1.0 / np.maximum(k.state_layout.high(), 1.0)).astype(np.float32)
        self.actor_dim = k.obs_layout.size
        width = self.actor_dim + (k.state_layout.size + k.num_players if self.privileged else 0)
        obs_space = spaces.Box(0.0, 1.0, (width,), np.float32)
        self.render_mode = None
        super().__init__(n_envs, obs_space, spaces.Discrete(k.num_actions))
        self._team_of_seat = np.zeros(k.num_players, dtype=np.int64)
        for t, seats in enumerate(self.sides):
            self._team_of_seat[seats] = t
        self._rep_seat = np.array([seats[0] for seats in self.sides])  # a seat whose reward is the side's
        self._ar = np.arange(n_envs)
        self._actions = None
        self.st = None
        self.learner_team = np.zeros(n_envs, dtype=np.int64)
        self.opponent = np.zeros(n_envs, dtype=np.int64)
        self.episode_return = np.zeros(n_envs, dtype=np.float64)
        self.episode_len = np.zeros(n_envs, dtype=np.int64)

    # ---------------------------------------------------------------- internals
    def _learner_to_act(self) -> np.ndarray:
        return self._team_of_seat[self.st.current_player.astype(np.int64)] == self.learner_team

    def _draw(self, idx: np.ndarray) -> None:
        self.learner_team[idx] = self.rng.integers(0, len(self.sides), size=idx.size)
        self.opponent[idx] = self.pool.sample(self.rng, idx.size)

    def _advance(self, rewards: np.ndarray) -> None:
        """Play opponents' moves (batched per opponent) until the learner acts or the game ends."""
        k, st = self.kernel, self.st
        actions = np.zeros(self.num_envs, dtype=np.int64)
        learner_seat = self._rep_seat[self.learner_team]
        for _ in range(10_000):
            opp = ~st.done & ~self._learner_to_act()
            forced = None
            if self.skip_forced:
                mask = k.legal_actions(st)
                forced = ~st.done & (mask.sum(axis=1) == 1)
                opp |= forced
            if not opp.any():
                return
            if forced is not None:
                actions[forced] = mask[forced].argmax(axis=1)
                chooser = opp & ~forced
            else:
                chooser = opp
            if chooser.any():
                obs = k.observe(st, st.current_player)
                mask = k.legal_actions(st)
                for j in np.unique(self.opponent[chooser]):
                    g = chooser & (self.opponent == j)
                    actions[g] = self.pool.entries[j].agent.act(obs[g], mask[g])
            k.step(st, actions, self.rng, active=opp)
            rewards += st.rewards[self._ar, learner_seat]
        raise RuntimeError("opponents (and forced moves) moved 10,000 times in a row: the kernel never returned to the learner")

    def _obs(self, seat=None) -> np.ndarray:
        k, st = self.kernel, self.st
        seat = st.current_player if seat is None else seat
        obs = k.observe(st, seat).astype(np.float32) * self.scale
        if not self.privileged:
            return obs
        onehot = np.zeros((self.num_envs, k.num_players), dtype=np.float32)
        onehot[self._ar, np.asarray(seat, dtype=np.int64)] = 1.0
        return np.concatenate([obs, k.global_state(st).astype(np.float32) * self.state_scale, onehot], axis=1)

    def _fresh(self, idx: np.ndarray) -> None:
        """Deal new games at ``idx`` (redealing any that end at once), draw seats/opponents, advance."""
        k = self.kernel
        if self.st is None:
            self.st = k.init(self.rng, self.num_envs)
        else:
            self.st.put(idx, k.init(self.rng, idx.size))
        self._draw(idx)
        sink = np.zeros(self.num_envs)
        for _ in range(100):
            self._advance(sink)
            if not self.st.done.any():
                return
            again = np.flatnonzero(self.st.done)
            self.st.put(again, k.init(self.rng, again.size))
            self._draw(again)
        raise RuntimeError("could not deal a game that lasts until the learner's first decision")

    # ---------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        if self._seeds[0] is not None:  # set by VecEnv.seed(seed)
            self.rng = np.random.default_rng(self._seeds[0])
        self._reset_seeds()
        self.st = None
        self._fresh(self._ar)
        self.episode_return[:] = 0
        self.episode_len[:] = 0
        return self._obs()

    def action_masks(self) -> np.ndarray:
        """``bool[n_envs, A]`` legal actions of the learner's seat to act in each game."""
        return self.kernel.legal_actions(self.st)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        k, st = self.kernel, self.st
        k.check_actions(st, self._actions)  # ValueError naming the action and the legal ones
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        learner_seat = self._rep_seat[self.learner_team]
        k.step(st, self._actions, self.rng)
        rewards += st.rewards[self._ar, learner_seat]
        self._advance(rewards)
        self.episode_return += rewards
        self.episode_len += 1
        dones = st.done.copy()
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        idx = np.flatnonzero(dones)
        if idx.size:
            term_obs = self._obs(learner_seat)
            for i in idx:
                trunc = bool(st.truncated[i])
                infos[i] = {
                    "terminal_observation": term_obs[i],
                    "TimeLimit.truncated": trunc,
                    "episode_result": {
                        "return": float(self.episode_return[i]),
                        "length": int(self.episode_len[i]),
                        "opponent": self.pool.entries[self.opponent[i]].name,
                        "truncated": trunc,
                    },
                }
            self.episode_return[idx] = 0
            self.episode_len[idx] = 0
            self._fresh(idx)
        return self._obs(), rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices=None) -> list:
        if not hasattr(self, attr_name):
            raise AttributeError(attr_name)
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        out = getattr(self, method_name)(*args, **kwargs)
        return [out] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices

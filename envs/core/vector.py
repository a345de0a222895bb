"""A Gymnasium ``VectorEnv`` over any batched kernel: ``N`` games in lockstep, one learning side.

:class:`KernelVectorEnv` runs ``num_envs`` games of one kernel at once (one kernel state with
batch axis ``N``; no Python env per game). In every game the learner plays one *side*: both
seats of a team in a team game (a shared policy over seat-relative observations), one seat in a
game without teams (P'yanitsa). The other side(s) are played by an opponent drawn from an
:class:`OpponentSet` when the game is dealt; the opponents act in batch, grouped by opponent.
``cardzoo.make_vec(game, num_envs, opponents=...)`` builds one with opponents named through the
agents API (``cardzoo.agents``); this module itself takes opponents as callables, so that
``cardzoo.envs`` never imports the agents (imports point training -> agents -> envs).

Spaces (``single_*`` for one game, the plain names batched over ``N``):

* observation: ``Box(0, 1, (D,), float32)``: the ``uint8`` observation of the learner's seat to act
  divided by the layout's per-feature bounds; with ``privileged=True`` the kernel's
  ``global_state`` (scaled the same way) and a one-hot of the acting seat are appended,
  ``(D + S + P,)``, for a perfect-information critic. ``observation_space`` is
  ``Box(0, 1, (N, D), float32)``.
* action: ``Discrete(A)``; ``action_space`` is ``MultiDiscrete([A] * N)``.

``step(actions)`` returns ``(obs float32[N, D], rewards float64[N], terminations bool[N],
truncations bool[N], infos)``. The reward is what the kernel paid the learner's side between two
learner decisions, summed (a deal that ends on an opponent's card still reaches the learner).
``infos["action_mask"]`` is ``bool[N, A]``: the legal actions of the learner's seat to act (all
True in a game whose episode has just ended: its next action is ignored, see below). When an
episode ends, ``infos`` also holds ``episode_return`` (float), ``episode_length`` (learner
decisions), ``opponent`` (its name), ``truncated`` and ``illegal_action`` (lost by an illegal
action under ``illegal_action="lose"``) for that game, with Gymnasium's ``_key`` masks marking the
games they belong to.

Autoreset (Gymnasium 1.x, ``metadata["autoreset_mode"]``):

* ``AutoresetMode.NEXT_STEP`` (the default, Gymnasium's own default): the step that ends a game
  returns its final observation (the learner's seat) with ``terminated``/``truncated`` set; the
  next ``step`` ignores that game's action, deals a new game and returns its first observation
  with reward 0 and both flags False.
* ``AutoresetMode.SAME_STEP``: the step that ends a game returns the first observation of the
  next game; the final observation is ``infos["final_obs"][i]`` and the final info
  ``infos["final_info"]`` (used by the stable-baselines3 adapter
  :class:`cardzoo.training.vec_env.KernelVecEnv`).

The learner's side (unless fixed by ``learner_side``) and the opponent are drawn again at every
deal, so the learner plays every seat. A deal that ends before the learner's first decision
(e.g. an All Fours match won on the kick) is dealt again. Seeding: ``reset(seed=s)`` (or the
constructor's ``seed``) seeds the one ``numpy.random.Generator`` that deals, draws sides and
opponents, and the opponents that keep a generator of their own (:meth:`OpponentSet.seed`:
``random``, the search bots); the same seed and actions give the same games. A list of seeds, one
per game (Gymnasium's ``SyncVectorEnv`` takes one), is refused with ``ValueError``: the games are
dealt in one batch from one generator, so none can be seeded on its own.

``np_random`` is that generator and ``np_random_seed`` its seed (drawn and kept when none is given).

``close()`` frees the games; ``reset``, ``step`` and ``action_masks`` then raise ``RuntimeError``
(a second ``close()`` does nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .kernel import Kernel, check_illegal_action, check_reset_options, check_seed, is_int, misplaced_reset_options

__all__ = ["KernelVectorEnv", "OpponentSet", "check_vector_seed"]

ActFn = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: the constructor parameters of :class:`KernelVectorEnv` (``make_vec`` passes them on) that a ``reset`` option
#: of that name is told to go to (``num_envs`` and ``seed`` are not: the first is positional, ``seed`` is reset's too)
VECTOR_ENV_OPTIONS = ("opponents", "learner_side", "privileged", "skip_forced", "autoreset_mode", "illegal_action")


def check_vector_seed(seed) -> int | None:
    """The seed of the one generator of a :class:`KernelVectorEnv` (``check_seed``). A list of seeds,
    one per game (what Gymnasium's ``SyncVectorEnv`` takes), is refused by name: all the games are
    dealt in one batch from one generator, so no game can be seeded on its own.

    ``seed``: ``None`` or one non-negative ``int`` (numpy integers included); a list, tuple or 1-d
    array is refused with ``ValueError``, as is any other bad seed (:func:`check_seed`)."""
    if isinstance(seed, (list, tuple)) or (isinstance(seed, np.ndarray) and seed.ndim == 1):
        raise ValueError(
            f"seed must be one non-negative int or None, got a list {np.asarray(seed).tolist()!r}: KernelVectorEnv deals all "
            "its games in one batch from one generator, so it takes one seed (the same seed and actions "
            "replay the same games), not one seed per game as Gymnasium's SyncVectorEnv does")
    return check_seed(seed)


class OpponentSet:
    """The opponents a learner meets: named callables ``act(obs uint8[n, D], mask bool[n, A]) -> int[n]``
    (an agent's bound ``act`` method), one drawn per game at each deal with probability
    proportional to its weight.

    Args:
        opponents: one callable, a sequence of callables (named ``opponent_0`` ...), or a mapping
            name -> callable.
        weights: sampling weight per opponent (default equal); ``ValueError`` if one is negative,
            all are zero, or their count differs from the opponents'.

    Subclasses (e.g. :class:`cardzoo.training.vec_env.OpponentPool`, whose members change during
    training) override :meth:`__len__`, :meth:`name`, :meth:`act`, :meth:`sample` and :meth:`seed`.
    """

    def __init__(self, opponents: ActFn | Sequence[ActFn] | Mapping[str, ActFn], weights: Sequence[float] | None = None):
        if isinstance(opponents, Mapping):
            items = list(opponents.items())
        elif callable(opponents):
            items = [("opponent_0", opponents)]
        elif isinstance(opponents, Sequence) and not isinstance(opponents, (str, bytes)):
            items = [(f"opponent_{i}", f) for i, f in enumerate(opponents)]
        else:  # a name was read as a list of letters, an agent or a number raised TypeError
            hint = (
                ": agents by name are cardzoo.make_vec's (it loads them)" if isinstance(opponents, str)
                else ": pass the agent's .act" if callable(getattr(opponents, "act", None)) else ""
            )
            raise ValueError(
                f"opponents must be an act(obs, mask) callable, a list of them or a dict name -> callable, "
                f"got {opponents!r}{hint}")
        if not items:
            raise ValueError("no opponents given: pass at least one act(obs, mask) callable")
        bad = [n for n, f in items if not callable(f)]
        if bad:
            raise ValueError(f"opponents {bad} are not callables act(obs, mask) -> actions (pass an agent's .act)")
        self._names = [str(n) for n, _ in items]
        self._acts = [f for _, f in items]
        try:
            # bools are no weights ([True, False] was [1, 0]); an infinite weight gave NaN probabilities
            if weights is not None and np.asarray(weights).dtype.kind not in "iuf":
                raise TypeError
            w = np.ones(len(items)) if weights is None else np.asarray(weights, dtype=np.float64)
        except (TypeError, ValueError):  # not numbers
            w = np.full(len(items), np.nan)
        if w.shape != (len(items),) or not np.isfinite(w).all() or (w < 0).any() or not w.sum() > 0:
            raise ValueError(f"weights must be {len(items)} numbers >= 0 with a positive sum, got {weights!r}")
        self._p = w / w.sum()

    def __len__(self) -> int:
        return len(self._acts)

    def name(self, i: int) -> str:
        """Name of opponent ``i``."""
        return self._names[i]

    def act(self, i: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions ``int[n]`` of opponent ``i`` for ``n`` decisions."""
        return self._acts[i](obs, mask)

    def needs_state(self, i: int) -> bool:
        """Whether opponent ``i`` is a search agent's ``act`` (its agent has ``needs_state``: GAME/pimc,
        GAME/ismcts), which acts on the game state (:meth:`act_state`), not on observations."""
        acts = getattr(self, "_acts", None)  # a subclass may keep its opponents elsewhere (and override this)
        return acts is not None and bool(getattr(getattr(acts[i], "__self__", None), "needs_state", False))

    def act_state(self, i: int, state) -> np.ndarray:
        """Actions ``int[n]`` of opponent ``i`` (a search agent) for the seats to act in the ``n`` games of ``state``."""
        return self._acts[i].__self__.act_state(state)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Indices ``int64[n]`` of ``n`` opponents drawn by weight."""
        return rng.choice(len(self._acts), size=n, p=self._p)

    def seed(self, seed: int) -> None:
        """Seed the opponents that draw from a generator of their own: where opponent ``i`` is an
        object's bound method (an agent's ``act``) and that object keeps a ``numpy.random.Generator``
        as ``rng`` (``random``, the search bots), it gets ``numpy.random.default_rng([seed, i])``.
        :class:`KernelVectorEnv` calls it with its seed, so that the same seed and actions replay
        the same games whatever the opponents drew before. Other callables are left as they are."""
        for i, f in enumerate(getattr(self, "_acts", ())):  # a subclass may keep its opponents elsewhere
            agent = getattr(f, "__self__", None)
            for owner in (agent, getattr(agent, "search", None)):  # PIMC's generator is its search's
                if isinstance(getattr(owner, "rng", None), np.random.Generator):
                    owner.rng = np.random.default_rng([seed, i])


class KernelVectorEnv(VectorEnv):
    """``num_envs`` games of ``kernel`` for one learning side (see the module docstring).

    Args:
        kernel: the game's kernel (``cardzoo.envs.kernel(game, **options)``).
        num_envs: games in the batch (``>= 1``).
        opponents: an :class:`OpponentSet`, or what its constructor takes (callables).
        learner_side: index into :attr:`sides` of the side the learner always plays; ``None``
            (default) draws it at every deal.
        seed: seed of the env's generator and of the opponents' own (``reset(seed=...)`` re-seeds them).
        privileged: append the perfect-information critic features to the observation.
        skip_forced: play decisions with exactly one legal action automatically (the learner's
            too), so the learner only sees real choices.
        autoreset_mode: ``AutoresetMode.NEXT_STEP`` (default) or ``AutoresetMode.SAME_STEP``.
        illegal_action: ``"raise"`` (default: ``ValueError``) or ``"lose"``: as in the AEC env, an
            illegal learner action ends that game at once with the learner's side losing it
            (reward ``-1``, ``Kernel.forfeit_rewards``; ``infos["illegal_action"]`` is True for it),
            so learners without masks can run.

    Raises ``ValueError`` for a bad ``num_envs``, ``learner_side``, ``seed``, ``autoreset_mode``, opponents, or a
    ``privileged`` / ``skip_forced`` that is not a bool, and for ``skip_forced=True`` in a game whose options
    leave no decision with a choice (:attr:`Kernel.has_choices`, e.g. P'yanitsa without
    ``collect_order="winner_chooses"``);
    ``step`` raises ``ValueError`` for an illegal action (naming it and the legal ones) and
    ``RuntimeError`` before ``reset`` or after ``close``.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        kernel: Kernel,
        num_envs: int,
        opponents: OpponentSet | ActFn | Sequence[ActFn] | Mapping[str, ActFn],
        *,
        learner_side: int | None = None,
        seed: int | None = None,
        privileged: bool = False,
        skip_forced: bool = False,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        illegal_action: str = "raise",
    ) -> None:
        if not isinstance(kernel, Kernel):
            raise ValueError(f"kernel must be a cardzoo Kernel (cardzoo.envs.kernel(game)), got {kernel!r}")
        if not (isinstance(num_envs, (int, np.integer)) and not isinstance(num_envs, bool) and num_envs >= 1):
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        modes = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in modes:
            raise ValueError(f"autoreset_mode={autoreset_mode!r} is not supported; valid: {[m.value for m in modes]}")
        self.illegal_action = check_illegal_action(illegal_action)
        self.kernel = k = kernel
        self.sides = [list(t) for t in k.teams] if k.teams is not None else [[s] for s in range(k.num_players)]
        if learner_side is not None and not (is_int(learner_side) and 0 <= learner_side < len(self.sides)):
            raise ValueError(f"learner_side={learner_side!r} is not valid; valid: None or 0..{len(self.sides) - 1}")
        self.learner_side = None if learner_side is None else int(learner_side)
        self.opponents = opponents if isinstance(opponents, OpponentSet) else OpponentSet(opponents)
        self.num_envs = int(num_envs)
        for name, flag in (("privileged", privileged), ("skip_forced", skip_forced)):
            if not isinstance(flag, (bool, np.bool_)):  # "no" would be true
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        self.privileged = bool(privileged)
        self.skip_forced = bool(skip_forced)
        if self.skip_forced and not k.has_choices:  # else reset() would play 100 deals, then refuse
            raise ValueError(
                f"skip_forced=True: {k.name} with options {k.options} has no decision with more than one legal "
                f"action, so the learner would never act (Kernel.has_choices); its RULES.md §4 says which options give one")
        self.autoreset_mode = mode
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        seed = check_vector_seed(seed)
        # unseeded, the generator's seed is drawn (fresh entropy, as default_rng(None) draws it) and kept,
        # so that np_random_seed names the seed that deals, as Gymnasium's envs report it; the opponents
        # get it too (else reset(seed=np_random_seed) dealt the same games, but random opponents played others)
        self._np_random_seed = seed if seed is not None else int(np.random.SeedSequence().entropy)
        self.rng = np.random.default_rng(self._np_random_seed)
        self.opponents.seed(self._np_random_seed)
        self.scale = (1.0 / np.maximum(k.obs_layout.high(), 1.0)).astype(np.float32)
        self.state_scale = (1.0 / np.maximum(k.state_layout.high(), 1.0)).astype(np.float32)
        self.actor_dim = k.obs_layout.size
        width = self.actor_dim + (k.state_layout.size + k.num_players if self.privileged else 0)
        self.single_observation_space = spaces.Box(0.0, 1.0, (width,), np.float32)
        self.single_action_space = spaces.Discrete(k.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._side_of_seat = np.zeros(k.num_players, dtype=np.int64)
        for t, seats in enumerate(self.sides):
            self._side_of_seat[seats] = t
        self._rep_seat = np.array([seats[0] for seats in self.sides])  # a seat whose reward is the side's
        self._ar = np.arange(self.num_envs)
        self.st = None
        self.learner_team = np.zeros(self.num_envs, dtype=np.int64)  # the learner's side per game
        self.opponent = np.zeros(self.num_envs, dtype=np.int64)
        self.episode_return = np.zeros(self.num_envs, dtype=np.float64)
        self.episode_len = np.zeros(self.num_envs, dtype=np.int64)
        self._pending = np.zeros(self.num_envs, dtype=bool)  # NEXT_STEP: ended, reset on the next step

    # Gymnasium's VectorEnv keeps a generator of its own (np_random, made on first use from a random
    # seed); here np_random is the one generator that deals and draws sides and opponents
    @property
    def np_random(self) -> np.random.Generator:
        """The generator that deals, draws sides and opponents (``rng``)."""
        return self.rng

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        if not isinstance(value, np.random.Generator):
            raise ValueError(f"np_random must be a numpy.random.Generator, got {value!r}")
        self.rng = value
        self._np_random_seed = -1  # Gymnasium's value for a generator set directly

    @property
    def np_random_seed(self) -> int:
        """The seed of :attr:`np_random`: the constructor's or the last ``reset``'s seed, the seed drawn
        when none was given, or ``-1`` after ``np_random`` was set directly."""
        return self._np_random_seed

    # ---------------------------------------------------------------- internals
    def _learner_to_act(self) -> np.ndarray:
        return self._side_of_seat[self.st.current_player.astype(np.int64)] == self.learner_team

    def _draw(self, idx: np.ndarray) -> None:
        if self.learner_side is None:
            self.learner_team[idx] = self.rng.integers(0, len(self.sides), size=idx.size)
        else:
            self.learner_team[idx] = self.learner_side
        self.opponent[idx] = self.opponents.sample(self.rng, idx.size)

    def _advance(self, rewards: np.ndarray) -> None:
        """Play opponents' moves (batched per opponent) until the learner acts or the game ends."""
        k, st = self.kernel, self.st
        actions = np.zeros(self.num_envs, dtype=np.int64)
        learner_seat = self._rep_seat[self.learner_team]
        # no game takes more agent steps than its truncation caps allow (e.g. a P'yanitsa learner
        # out of cards early while three others play on for thousands of battles)
        cap = max(10_000, (k.max_episode_steps or 0) + 1)
        for _ in range(cap):
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
                state_aware = getattr(self.opponents, "needs_state", None)
                for j in np.unique(self.opponent[chooser]):
                    g = chooser & (self.opponent == j)
                    if state_aware is not None and state_aware(int(j)):  # a search agent reads the games
                        acts = self.opponents.act_state(int(j), st.take(np.flatnonzero(g)))
                    else:
                        acts = self.opponents.act(int(j), obs[g], mask[g])
                    acts, n = np.asarray(acts), int(g.sum())
                    if acts.shape != (n,) or acts.dtype.kind not in "iu":
                        raise ValueError(
                            f"opponent {self.opponents.name(int(j))!r} returned {acts.dtype} actions of shape "
                            f"{acts.shape} for {n} decisions; it must return one int action per row ({n},)")
                    actions[g] = acts
            try:
                k.step(st, actions, self.rng, active=opp)
            except ValueError as err:  # the kernel names the action and the game; say whose it was
                A = k.num_actions
                legal = k.legal_actions(st)
                ok = (actions >= 0) & (actions < A) & legal[self._ar, np.clip(actions, 0, A - 1)]
                bad = np.flatnonzero(chooser & ~ok)
                if bad.size:
                    raise ValueError(f"opponent {self.opponents.name(int(self.opponent[bad[0]]))!r} chose an {err}") from None
                raise
            rewards += st.rewards[self._ar, learner_seat]
        raise RuntimeError(
            f"opponents (and forced moves) moved {cap:,} times in a row, more than an episode's bound "
            "(Kernel.max_episode_steps): the kernel never returned to the learner"
        )

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
        """Deal new games at ``idx`` (redealing any that end at once), draw sides/opponents, advance."""
        k = self.kernel
        if self.st is None:
            self.st = k.init(self.rng, self.num_envs)
        else:
            self.st.put(idx, k.init(self.rng, idx.size))
        self._draw(idx)
        self.episode_return[idx] = 0
        self.episode_len[idx] = 0
        sink = np.zeros(self.num_envs)
        for _ in range(100):
            self._advance(sink)
            if not self.st.done.any():
                return
            again = np.flatnonzero(self.st.done)
            self.st.put(again, k.init(self.rng, again.size))
            self._draw(again)
        raise ValueError(
            f"{k.name}: 100 deals in a row ended before the learner had a decision"
            f"{' with more than one legal action (skip_forced plays the others)' if self.skip_forced else ''}; "
            f"with these options {k.options} the game may have no decision at all (its RULES.md §4 says which options give one)"
        )

    def _masks(self) -> np.ndarray:
        m = self.kernel.legal_actions(self.st)
        m[self._pending] = True  # the action of a game waiting for its autoreset is ignored
        return m

    # ---------------------------------------------------------------- VectorEnv API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal ``num_envs`` new games; ``seed`` re-seeds the generator. ``options`` are not used
        (``ValueError`` if given). Returns ``(obs float32[N, D], {"action_mask": bool[N, A]})``.
        ``seed`` must be ``None`` or a non-negative int (``ValueError`` naming it otherwise, nothing changed)."""
        self._check_open("reset()")
        seed = check_vector_seed(seed)
        options = check_reset_options(options, (), "KernelVectorEnv")
        if options:
            names = sorted(options, key=repr)
            hint = misplaced_reset_options(type(self.kernel), names, options, f"cardzoo.make_vec({self.kernel.name!r}, {self.num_envs}",
                                           VECTOR_ENV_OPTIONS)
            raise ValueError(f"reset options {names} are not used by KernelVectorEnv (it takes none){hint}")
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.opponents.seed(seed)
            self._np_random_seed = seed
        self.st = None
        self._pending[:] = False
        self._fresh(self._ar)
        return self._obs(), {"action_mask": self._masks(), "_action_mask": np.ones(self.num_envs, dtype=bool)}

    def action_masks(self) -> np.ndarray:
        """``bool[N, A]``: ``infos["action_mask"]`` of the current step (``RuntimeError`` before ``reset``)."""
        self._check_open("action_masks()")
        if self.st is None:
            raise RuntimeError("action_masks() called before reset(): call reset() first")
        return self._masks()

    def step(self, actions):
        """One learner action per game, ``int[N]``; returns ``(obs float32[N, D], rewards float64[N],
        terminations bool[N], truncations bool[N], infos)`` (see the module docstring).

        ``ValueError`` for ``actions`` that are not an integer array of shape ``(N,)``, or for an
        out-of-range or illegal action of a game still in play (under ``illegal_action="lose"`` an
        in-range illegal action loses that game instead); ``RuntimeError`` before :meth:`reset` or
        after :meth:`close`. A refused step changes nothing."""
        self._check_open("step()")
        if self.st is None:
            raise RuntimeError("step() called before reset(): call reset() first")
        k, st = self.kernel, self.st
        given = np.asarray(actions)
        if given.shape != (self.num_envs,) or not np.issubdtype(given.dtype, np.integer):
            raise ValueError(f"actions must be an int array of shape ({self.num_envs},), got {given.dtype} {given.shape}")
        # a copy: the caller's array is never changed. The checks and their messages read ``given``:
        # a uint64 action >= 2**63 wraps to a negative int64 here and would be named as that
        actions = given.astype(np.int64)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        # every check comes before anything changes: a refused step leaves the games (and the
        # autoresets still to come) as they were. The games that ended last step (NEXT_STEP,
        # ``pending``) are finished games here, so their actions, which are ignored, are not checked.
        pending = np.flatnonzero(self._pending)
        moving = ~self._pending
        learner_seat = self._rep_seat[self.learner_team]
        forfeit = np.zeros(self.num_envs, dtype=bool)
        if self.illegal_action == "lose":
            in_range = (given >= 0) & (given < k.num_actions)
            if not in_range[moving].all():
                raise ValueError(f"actions must be in 0..{k.num_actions - 1}, got {given[moving & ~in_range].tolist()}")
            legal = k.legal_actions(st)
            forfeit = moving & ~legal[self._ar, np.where(in_range, actions, 0)]
            if forfeit.any():
                moving &= ~forfeit
                actions[forfeit] = legal[forfeit].argmax(axis=1)  # placeholders, not stepped
        # ValueError naming the action as given and the legal ones (finished games skipped); under "lose"
        # every action left is in range and ``actions`` holds the placeholders of the forfeits
        k.check_actions(st, actions if forfeit.any() else given)
        if pending.size:  # NEXT_STEP: the games that ended last step start again, their actions ignored
            self._fresh(pending)
            self._pending[:] = False
            actions[pending] = k.legal_actions(st)[pending].argmax(axis=1)  # placeholders, not stepped
        k.step(st, actions, self.rng, active=moving if not moving.all() else None)
        rewards += st.rewards[self._ar, learner_seat] * moving
        for i in np.flatnonzero(forfeit):  # the learner's side loses these games at once
            rewards[i] += k.forfeit_rewards(int(st.current_player[i]))[learner_seat[i]]
            st.done[i], st.truncated[i] = True, False
        self.episode_len += forfeit
        self._advance(rewards)
        self.episode_return += rewards
        self.episode_len += moving
        done = st.done.copy()
        terminated = done & ~st.truncated
        truncated = done & st.truncated
        infos: dict[str, Any] = {}
        idx = np.flatnonzero(done)
        if idx.size == 0:
            obs = self._obs()
        else:
            final = self._obs(learner_seat)
            for i in idx:
                info = {
                    "episode_return": float(self.episode_return[i]),
                    "episode_length": int(self.episode_len[i]),
                    "opponent": self.opponents.name(int(self.opponent[i])),
                    "truncated": bool(st.truncated[i]),
                    "illegal_action": bool(forfeit[i]),
                }
                if self.autoreset_mode == AutoresetMode.SAME_STEP:
                    info = {"final_obs": final[i], "final_info": info}
                infos = self._add_info(infos, info, int(i))
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                self._fresh(idx)
                obs = self._obs()
            else:
                self._pending[idx] = True
                obs = self._obs()
                obs[idx] = final[idx]
        infos["action_mask"] = self._masks()
        infos["_action_mask"] = np.ones(self.num_envs, dtype=bool)
        return obs, rewards, terminated, truncated, infos

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise RuntimeError(
                f"{what} called after close(): this KernelVectorEnv is closed (its games are freed); "
                "make a new one (cardzoo.make_vec)")

    def close_extras(self, **kwargs) -> None:
        """Free the games' state; ``reset``, ``step`` and ``action_masks`` then raise ``RuntimeError``
        (``close()`` itself may be called again: it does nothing more)."""
        self.st = None

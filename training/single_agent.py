"""A single-agent Gymnasium env for any game: one seat learns, named agents play the others.

``SingleSeatEnv("all_fours", seat=0, partner="all_fours/ppo", opponents="all_fours/rule")``
is a ``gymnasium.Env`` that any Gymnasium-compatible library can train: observations are the
seat's ``uint8[D]`` vector, actions ``Discrete(A)``, ``action_masks()`` gives the legal
actions (sb3-contrib convention) and ``info["action_mask"]`` carries them too. The other
seats are played by the named agents on their own observations; the reward of a step is what
the seat received between its two decisions (so a hand that ends on another seat's card is
paid at once).

stable-baselines3 builds it by id: ``make_vec_env("cardzoo/AllFours-v0", n_envs=8, env_kwargs={"seat": 0})``
(its default ``render_mode="rgb_array"`` is refused with :class:`RenderModeError`, on which SB3 makes the
env without a render mode), and ``MaskablePPO`` reads the masks through ``action_masks()``. In
other processes (``vec_env_cls=SubprocVecEnv``) name the id as ``"cardzoo:cardzoo/AllFours-v0"``:
Gymnasium imports ``cardzoo`` first, which registers the ids there.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

import gymnasium
import numpy as np

from cardzoo import envs

from cardzoo.envs.core.kernel import check_option_names, check_seed, is_int

from .common import check_partner, refuse_exec_bot, resolve_agent


class RenderModeError(ValueError, TypeError):
    """A ``render_mode`` the single-seat env does not have (it renders text: ``"ansi"``, ``"human"``).

    A ``ValueError``, as every bad option of cardzoo, and also a ``TypeError``: stable-baselines3's
    ``make_vec_env(env_id, ...)`` asks ``gymnasium.make`` for ``render_mode="rgb_array"`` unless
    ``env_kwargs`` names one, and makes the env again without it only when that raises ``TypeError``
    (the error of an env that takes no ``render_mode``)."""


def registered_env(registered_game: str, registered_id: str, **kwargs) -> "SingleSeatEnv":
    """Gymnasium entry point of ``cardzoo.GYM_IDS[registered_game]`` (``registered_id``): a
    :class:`SingleSeatEnv` of that game. ``ValueError`` if ``game=`` names another game (the id fixes
    the game: make that game's id)."""
    game = kwargs.pop("game", registered_game)
    if game != registered_game:
        raise ValueError(
            f"{registered_id} plays {registered_game}, not game={game!r}: "
            f"make that game's id instead (cardzoo.GYM_IDS[{game!r}])"
        )
    env = SingleSeatEnv(registered_game, **kwargs)
    env.aec._made_as = (f"gymnasium.make({registered_id!r}", env.aec._made_as[1])  # what its users called
    return env


class SingleSeatEnv(gymnasium.Env):
    """One seat of ``game`` as a Gymnasium env (see module docstring).

    Args:
        game: registry name.
        seat: the learning seat (0-based).
        partner, opponents: agent names/paths for the partner seat and the other seats (the other
            team, or every other player in a game without teams); ``others`` (dict seat -> name)
            overrides per seat. ``partner`` is for partnership games (default ``"random"`` there);
            naming one in a game where everyone plays alone (P'yanitsa) raises ``ValueError``: use
            ``opponents``.
        seed: seed of the env and of seeded agents (``None`` or a non-negative int).
        render_mode: ``None``, ``"ansi"`` or ``"human"`` (rendered from the learning seat's view;
            ``"human"`` prints the table after every move, the other seats' included).
        illegal_action: ``"raise"`` (default: ``ValueError`` naming the action and the legal ones) or
            ``"lose"``: an illegal action ends the episode and the learning seat's side loses it
            (reward ``-1``, ``info["illegal_action"]`` names it; see :mod:`cardzoo.envs.core.aec`), so
            learners without action masks, and ``gymnasium.utils.env_checker.check_env``, can run it.
        **env_options: the game's options.

    Raises ``ValueError`` for a bad seat (any integer, numpy ints too, from 0 to the last seat; not a
    bool), seed, agent name or option, ``TypeError`` naming the parameter for an agent given as
    something other than a name or path (``None``, a number, a list: ``cardzoo.make_vec`` takes lists,
    this env one agent per seat), and ``FileNotFoundError`` naming an agent path that does not exist.
    A bad ``render_mode`` raises :class:`RenderModeError`, a ``ValueError`` that is also the ``TypeError``
    on which stable-baselines3's ``make_vec_env`` makes the env without its default ``"rgb_array"``.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}
    MAX_REDEALS = 1000  # reset redeals (fresh random deals) at most this often when a deal ends before the seat acts

    def __init__(
        self,
        game: str = "all_fours",
        seat: int = 0,
        partner: str | None = None,
        opponents: str = "random",
        others: dict | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **env_options,
    ) -> None:
        seed = check_seed(seed)
        if not (render_mode is None or (isinstance(render_mode, str) and render_mode in self.metadata["render_modes"])):
            raise RenderModeError(f"render_mode={render_mode!r} is not supported; valid: None, 'ansi', 'human'")
        # a misspelt parameter (oponents=...) is told this env's own parameters too, not the game's options alone
        own = ("seat", "partner", "opponents", "others", "seed", "render_mode", "illegal_action")
        check_option_names(envs.kernel_class(game), env_options, own, "single-seat env")
        self.aec = envs.make(game, render_mode=render_mode, illegal_action=illegal_action, **env_options)
        # reset(options={"num_players": 3}) is told to give it to this env's constructor, not cardzoo.make
        # (registered_env names gymnasium.make and the id instead)
        self.aec._made_as = (f"SingleSeatEnv({game!r}", own)
        self.aec_options = dict(env_options)
        n = len(self.aec.possible_agents)
        if not (is_int(seat) and 0 <= seat < n):
            raise ValueError(f"seat must be an int from 0 to {n - 1} (the seats of {game}), got {seat!r}")
        seat = int(seat)
        self.aec.render_view = seat if render_mode else None  # rendered from the learning seat's view
        check_partner(game, self.aec.kernel, partner, partner_flag="partner", opponents_flag="opponents")
        if partner is None:
            partner = "random"
        self.seat = seat
        self.render_mode = render_mode
        names, given_as = {}, {}  # seat -> agent name, and the parameter that named it (for errors)
        teams = self.aec.metadata["teams"]
        mine = next(t for t in teams if self.aec.possible_agents[seat] in t) if teams is not None else ()
        for s, agent in enumerate(self.aec.possible_agents):
            if s != seat:
                names[s] = partner if agent in mine else opponents
                given_as[s] = "partner" if agent in mine else "opponents"
        if others is not None and not isinstance(others, Mapping):
            valid = [t for t in range(n) if t != seat]
            raise ValueError(f"others must be a dict seat -> agent name (seats {valid}), got {others!r}")
        for s, name in (others or {}).items():
            if not (is_int(s) and 0 <= s < n and s != seat):
                valid = [t for t in range(n) if t != seat]
                raise ValueError(f"others: seat {s!r} is not another seat; valid seats: {valid} (seat {seat} learns)")
            names[int(s)] = name
            given_as[int(s)] = f"others[{int(s)}]"
        missing = [s for s in range(n) if s != seat and s not in names]
        if missing:
            raise ValueError(f"no agent named for seats {missing}; pass others={{seat: name}}")
        for name in names.values():
            refuse_exec_bot(name, "a seat of the single-seat env")
        self.bots = {}
        for s, name in names.items():
            try:
                self.bots[s] = resolve_agent(name, env_options, seed, game=game)
            except TypeError as e:  # not a name (None, a list): say which parameter gave it
                raise TypeError(f"{given_as[s]}={name!r} is not an agent name: {e}") from None
        space = self.aec.observation_space(self.aec.possible_agents[seat])
        self.observation_space = space["observation"]
        self.action_space = self.aec.action_space(self.aec.possible_agents[seat])
        self._seed = seed
        self._mask = None

    def _run_others(self) -> tuple[float, bool, bool]:
        """Let the other seats act until this seat must act or the episode ends."""
        env, me = self.aec, self.aec.possible_agents[self.seat]
        reward = 0.0
        while True:
            agent = env.agent_selection
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                return reward + env._cumulative_rewards[me], bool(term), bool(trunc)
            if agent == me:
                reward += env._cumulative_rewards[me]
                env._cumulative_rewards[me] = 0.0
                self._obs = obs
                return reward, False, False
            bot = self.bots[env.agent_name_mapping[agent]]
            if getattr(bot, "needs_state", False):  # a search agent (GAME/pimc, GAME/ismcts) reads the game, as in the arena
                a = int(bot.act_state(env.game_state)[0])
            else:
                a = int(bot.act(obs["observation"][None], obs["action_mask"][None])[0])
            env.step(a)

    def reset(self, *, seed=None, options=None):
        """Deal a new game and play the other seats until the learning seat acts;
        returns ``(observation uint8[D], {"action_mask": int8[A]})``. A deal that ends the episode
        before the learning seat acts (e.g. a match won on a kick) is dealt again with fresh random
        cards, at most ``MAX_REDEALS`` times (then ``RuntimeError``); when the reset ``options`` fix the
        cards (``deck``), a redeal would repeat it, so ``ValueError`` names the options and the env is
        left as it was (the episode being played goes on). ``seed`` and ``options`` are
        checked as the AEC env's ``reset`` checks them (``ValueError`` naming the value and what is
        valid), before anything changes."""
        seed, options = self.aec.check_reset(seed, options)
        stacked = sorted(set(options) & set(self.aec.kernel.CARD_HOOKS))  # reset options that fix the cards
        # options that fix the cards may be refused below: keep what a refusal must leave as it was
        # (the episode being played, the other seats' agents, the generators)
        saved = copy.deepcopy(self.__dict__) if stacked else None
        given, seed = seed, seed if seed is not None else self._seed
        me = self.aec.possible_agents[self.seat]
        for attempt in range(self.MAX_REDEALS):
            # the first deal comes before anything of this env changes: a hook value the kernel refuses
            # (e.g. dealer=9) raises here with the AEC env as it was, and the other seats' agents and
            # their generators untouched, so the episode being played goes on as before
            self.aec.reset(seed=seed, options=options)
            if attempt == 0:
                super().reset(seed=given)
                for s, b in self.bots.items():
                    b.reset()
                    if seed is None:
                        continue
                    for owner in (b, getattr(b, "search", None)):  # seeded bots replay identically for a seed
                        if isinstance(getattr(owner, "rng", None), np.random.Generator):  # (PIMC's is its search's)
                            owner.rng = np.random.default_rng([seed, s])
            seed = None
            self._seed = None
            _, term, trunc = self._run_others()
            if not (term or trunc):
                return self._obs["observation"], {"action_mask": self._obs["action_mask"]}
            # the episode ended before this seat acted (e.g. a match won on a kick): nothing to learn
            shown = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in options.items()}
            if stacked:  # the same cards would be dealt again: redealing cannot help
                self.__dict__.update(saved)  # the refused reset changes nothing
                raise ValueError(
                    f"these reset options end the episode before seat {self.seat} ({me}) acts, so there is "
                    f"nothing to learn: options {shown!r} (the deal is fixed by {stacked}); change them")
            # redeal: fresh random cards (no seed, or the seeded deal would repeat), the same options
        shown = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in options.items()}
        raise RuntimeError(
            f"{self.MAX_REDEALS} deals in a row ended the episode before seat {self.seat} ({me}) acted, so "
            f"there is nothing to learn; reset options {shown!r}, game options {self.aec_options!r}")

    def action_masks(self) -> np.ndarray:
        """``bool[A]`` legal actions of the learning seat, all ``False`` once the episode is over (as
        ``info["action_mask"]``); ``RuntimeError`` before ``reset``."""
        if not hasattr(self, "_obs"):
            raise RuntimeError("action_masks() called before reset(): call env.reset() first")
        return self._obs["action_mask"].astype(bool)

    def step(self, action):
        """Play ``action`` (an int, a numpy int, or a 0-d int array, as ``model.predict`` of
        stable-baselines3 returns for one observation) for the learning seat, then the other seats
        until it acts again or the episode ends. Returns ``(observation uint8[D], reward float,
        terminated bool, truncated bool, info)``: ``reward`` is what the seat was paid since its last
        decision; ``info["action_mask"]`` is ``int8[A]`` (all zero once the episode ended, when
        ``info`` also holds the AEC env's final infos of the seat).

        Raises ``RuntimeError`` before ``reset`` or after the episode ended, ``ValueError`` for a
        non-integer or illegal action (naming it and the legal ones), as the AEC env's ``step``: a
        one-element array (``np.array([a])``, a batch of one) is refused there too.
        """
        if not hasattr(self, "_obs"):
            raise RuntimeError("step() called before reset(): call env.reset() first")
        me = self.aec.possible_agents[self.seat]
        if self.aec.terminations[me] or self.aec.truncations[me]:
            raise RuntimeError("the episode is over: call reset() before step()")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            legal = [self.aec.action_name(a) for a in np.flatnonzero(self.action_masks())]
            raise ValueError(f"action must be an int action id, got {action!r}; legal: {legal}")
        self.aec._cumulative_rewards[me] = 0.0
        self.aec.step(int(action))  # ValueError naming the action if it is illegal
        reward, term, trunc = self._run_others()
        if term or trunc:
            # the final view is the seat's view now: action_masks() gave the mask of the seat's last
            # decision here, while info["action_mask"] was all zero
            self._obs = obs = self.aec.observe(me)
            return obs["observation"], reward, term, trunc, {"action_mask": obs["action_mask"], **self.aec.infos[me]}
        return self._obs["observation"], reward, False, False, {"action_mask": self._obs["action_mask"]}

    def render(self):
        """The AEC env's ``render()``: the table as a ``str`` with ``render_mode="ansi"``, printed
        (returning ``None``) with ``"human"``; ``None`` (with a warning) without a render mode;
        ``RuntimeError`` before ``reset``."""
        return self.aec.render()

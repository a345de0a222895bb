"""One generic PettingZoo ``AECEnv`` over any batched kernel (run at ``B = 1``).

Every game's entry module (``envs/<game>_v0.py``) subclasses :class:`KernelAECEnv`,
naming its kernel, and offers ``env()`` / ``raw_env()``. The adapter adds the PettingZoo bookkeeping (agents, rewards,
terminations, dead steps) and its own cheap validation; it deliberately does not stack
PettingZoo's OrderEnforcing / TerminateIllegal / AssertOutOfBounds wrappers, which cost
more per step than the rules themselves. What those wrappers check is checked here:

* ``step`` before ``reset`` raises ``RuntimeError``;
* an out-of-range, non-integer or illegal action raises ``ValueError`` naming the action
  and the legal actions, and leaves the game unchanged;
* a bad option raises ``ValueError`` at construction, listing the valid values.

PettingZoo classic conventions (see ``envs/core/README.md``):

* ``render_mode="human"`` prints the ``ansi`` table at every ``reset`` and live ``step`` (and on
  ``render()``, which returns ``None``), as Gymnasium's and PettingZoo's human mode renders during ``step``;
* ``illegal_action="lose"`` (default ``"raise"``): an in-range but illegal action ends the
  episode at once and the offender's side loses it: the rewards of that step are
  :meth:`Kernel.forfeit_rewards <cardzoo.envs.core.kernel.Kernel.forfeit_rewards>` (``-1`` for
  every seat of the offender's side, the other seats share ``+1`` per offending seat, zero-sum),
  rewards paid earlier in the episode stand, every agent is terminated, the offender's info holds
  ``{"illegal_action": name, "offender": agent}`` and the other agents' ``{"offender": agent}``
  (the action may be a card of the offender's hand, which they do not see). Non-integer or out-of-range actions
  still raise ``ValueError``: they are not actions of the game;
* a per-seat text view: :meth:`KernelAECEnv.text_observation` and
  :meth:`KernelAECEnv.action_from_text` (and :class:`TextObservationWrapper`).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper

from .kernel import (
    ILLEGAL_ACTION_MODES,
    Kernel,
    check_illegal_action,
    check_option_names,
    check_reset_options,
    check_seed,
    did_you_mean,
    is_int,
    misplaced_reset_options,
    shared_name_hint,
)
from .render import check_view

__all__ = ["ILLEGAL_ACTION_MODES", "KernelAECEnv", "TextObservationWrapper"]

#: the AEC env's own options, beside the game's
ENV_OPTIONS = ("illegal_action", "render_mode", "render_view")


class KernelAECEnv(AECEnv):
    """PettingZoo AEC environment playing one game of a :class:`~cardzoo.envs.core.kernel.Kernel`.

    Args:
        render_mode: ``None``, ``"ansi"`` (``render()`` returns a string) or ``"human"``
            (that string is printed at every ``reset`` and live ``step``; ``render()`` prints it too
            and returns ``None``).
        render_view: viewpoint of ``render()``: ``None`` public information only, a seat
            index to add that seat's hand, or ``"all"`` for every hand (debugging).
        illegal_action: ``"raise"`` (default: ``ValueError``, the game unchanged) or ``"lose"``
            (the offender's side loses the episode; see the module docstring).
        **options: the game's options (its ``RULES.md`` §8), validated by the kernel.

    Spaces: ``observation_space(agent)`` is ``Dict(observation=Box(uint8[D]),
    action_mask=Box(int8[A]))``; ``action_space(agent)`` is ``Discrete(A)``. Both return
    the same object on every call.

    Reset options (``reset(seed, options={...})``) are passed to the kernel's ``init`` as
    test hooks (e.g. ``deck``, ``dealer``, ``score``); see the game's kernel. An unknown key
    raises ``ValueError`` (see :meth:`reset`).
    """

    kernel_cls: type[Kernel]
    env_name: str

    #: deals ``reset`` makes at most when each ends the episode before anyone acts (then ``RuntimeError``)
    MAX_RESET_DEALS = 1000

    def __init__(
        self, render_mode: str | None = None, render_view=None, illegal_action: str = "raise", **options: Any
    ) -> None:
        super().__init__()
        # a misspelt env option (render_mdoe) is told the env's own options too
        check_option_names(self.kernel_cls, options, ENV_OPTIONS, "env")
        self.kernel = self.kernel_cls(**options)
        k = self.kernel
        # how the reset hints say the env is made: the opening of the call that takes the options, and
        # that call's own parameters; a wrapper that makes this env for its users sets its own (the
        # single-seat env: "gymnasium.make('cardzoo/Pyanitsa-v0'" or "SingleSeatEnv('pyanitsa'")
        self._made_as: tuple[str, tuple[str, ...]] = (f"cardzoo.make({k.name!r}", ENV_OPTIONS)
        if render_mode is not None and not (isinstance(render_mode, str) and render_mode in ("ansi", "human")):
            raise ValueError(f"render_mode={render_mode!r} is not supported; valid: None, 'ansi', 'human'")
        self.illegal_action = check_illegal_action(illegal_action)
        self.render_view = check_view(render_view, k.num_players, "render_view")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(k.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._num_actions = k.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, k.obs_layout.high().astype(np.uint8), (k.obs_layout.size,), np.uint8),
                "action_mask": spaces.Box(0, 1, (k.num_actions,), np.int8),
            }
        )
        act_space = spaces.Discrete(k.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.state_space = spaces.Box(0, k.state_layout.high().astype(np.uint8), (k.state_layout.size,), np.uint8)
        teams = None if k.teams is None else [[self.possible_agents[s] for s in t] for t in k.teams]
        self.metadata = {
            "name": self.env_name,
            "render_modes": ["ansi", "human"],
            "render_fps": 1,  # human mode prints a text table per step; Gymnasium's checker asks for a rate
            "is_parallelizable": False,
            "zero_sum": k.zero_sum,
            "teams": teams,
            "max_episode_steps": k.max_episode_steps,
        }
        self._rng = np.random.default_rng()
        self._st = None
        self._single = None
        self._legal = None
        self._forfeit: str | None = None  # the agent who lost the episode by an illegal action ("lose")
        self._deal_counter: str | None = None  # Kernel.DEAL_COUNTER, set at reset
        self._deals_seen = 0

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent):
        """The ``Dict`` observation space of ``agent`` (the same object on every call); ``ValueError``
        naming the agents for an unknown agent."""
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):  # TypeError: an unhashable agent
            raise self._unknown_agent(agent) from None

    def action_space(self, agent):
        """The ``Discrete(A)`` action space of ``agent`` (the same object on every call); ``ValueError``
        naming the agents for an unknown agent."""
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def _unknown_agent(self, agent) -> ValueError:
        """The error for an agent that is not one of :attr:`possible_agents`."""
        return ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game. ``seed`` re-seeds the env's own ``numpy.random.Generator``;
        without it the next game is dealt from the current generator state. Without test hooks
        the new game is dealt into the same state arrays (:attr:`game_state`), in place: copy
        (``game_state.copy()``) a finished game you want to keep.

        A deal that ends the episode before anyone acts (an All Fours match won on the kick of
        its first deal: ``target_score`` 3 or less, or a ``score`` hook near the target) is dealt
        again from the same generator, as the single-seat and vector envs do: every episode has
        a decision (PettingZoo's parallel conversion and RL loops need one). When the hooks fix
        the cards (``kernel.CARD_HOOKS``, e.g. ``deck``), that deal stands: every agent is then
        terminated inside ``reset``, with the deal's rewards paid (All Fours ``RULES.md`` §11.4).
        ``RuntimeError`` after ``MAX_RESET_DEALS`` such deals in a row.

        ``options``: the kernel's test hooks (``kernel.INIT_HOOKS``). Any other key raises
        ``ValueError`` naming it and the valid ones, before anything changes; a hook value the
        kernel refuses (e.g. a deck that is not a permutation) raises its ``ValueError`` with the
        env as it was, its random generator included. The one exception
        is the key ``"options"``, which PettingZoo's ``api_test`` passes (``options={"options": 1}``)
        to check that ``reset`` takes the argument: it is ignored with a warning.

        ``seed`` must be ``None`` or a non-negative int (numpy ints too) and ``options`` ``None`` or a
        dict: anything else raises ``ValueError`` naming it and what is valid, with the env unchanged
        (:meth:`check_reset`)."""
        seed, hooks = self.check_reset(seed, options)
        before = self._rng
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        in_place = self._deal(hooks, before)
        deals = 1
        # a deal that ends the episode before anyone acts (an All Fours match won on the first kick)
        # is dealt again from the same generator, unless the hooks fix the cards
        while self._st.done[0] and not set(hooks) & set(self.kernel.CARD_HOOKS):
            if deals == self.MAX_RESET_DEALS:
                raise RuntimeError(
                    f"{deals} deals in a row ended the episode before anyone acted; reset options "
                    f"{sorted(hooks)}, game options {dict(self.kernel.options)!r}")
            in_place = self._deal(hooks, before)
            deals += 1
        self._forfeit = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._deal_counter = None if self.kernel.one_deal_episodes else self.kernel.DEAL_COUNTER
        self._deals_seen = 0 if self._deal_counter is None else getattr(self._st, self._deal_counter).item(0)
        self._after_step()
        if in_place:  # new_game computed the view of the seat to act
            self._legal = self._single.mask
        if self._st.done[0]:  # the hooks' deal ended the game (e.g. a kick won the match): pay it now
            for i, ag in enumerate(self.possible_agents):
                self.rewards[ag] = float(self._st.rewards[0, i])
            self._accumulate_rewards()
        if self.render_mode == "human":  # human rendering happens in reset and step (Gymnasium, PettingZoo)
            self.render()

    def _deal(self, hooks: dict, before) -> bool:
        """Deal the game of :meth:`reset` (``before``: the generator before ``reset`` re-seeded it, put
        back if the kernel refuses a hook value); whether it was dealt in place with the view."""
        single = self._single
        in_place = single is not None and not hooks and single.st is self._st
        if in_place:  # the same chance calls as kernel.init(rng, 1), dealt in place with the view
            single.new_game(self._rng)
            return True
        drawn = before.bit_generator.state if self._rng is before else None  # only this path can fail
        try:
            st = self.kernel.init(self._rng, 1, **hooks)
        except Exception as err:  # a refused hook value: the kernel may have drawn (e.g. the dealer) first
            if drawn is not None:
                before.bit_generator.state = drawn
            self._rng = before
            hint = shared_name_hint(self.kernel_cls, hooks, self._made_as[0]) if isinstance(err, ValueError) else ""
            if hint:  # reset(options={"deck": 52}) meant P'yanitsa's 52-card pack, a constructor option
                raise ValueError(f"{err}{hint}") from None
            raise
        self._st = st
        self._single = self.kernel.single_game(self._st)
        return False

    def check_reset(self, seed, options) -> tuple[int | None, dict]:
        """The checks of :meth:`reset`, which change nothing: returns ``(seed, hooks)``, the seed as a
        plain ``int`` or ``None`` and the test hooks to pass to the kernel (``None`` values dropped).
        ``ValueError`` for a seed that is not ``None`` or a non-negative int, ``options`` that are not a
        dict, or an unknown option name (each message names the value and the valid ones; an option
        of the constructor is told to go there, in the call ``_made_as`` names; otherwise the closest
        valid name is suggested, :func:`~cardzoo.envs.core.kernel.did_you_mean`). Wrappers (the
        single-seat Gymnasium env) call it before they change anything of their own."""
        if seed is None and options is None:  # the reset of every episode in a loop: nothing to check
            return None, {}
        valid = list(self.kernel.INIT_HOOKS)
        seed = check_seed(seed)
        options = check_reset_options(options, valid, self.env_name)
        if "options" in options and "options" not in self.kernel.INIT_HOOKS:
            options.pop("options")
            gymnasium.logger.warn(f"reset option 'options' is not used by {self.env_name} (ignored); valid: {valid}")
        unknown = sorted(set(options) - set(valid), key=repr)
        if unknown:
            make, own = self._made_as
            hint = misplaced_reset_options(self.kernel_cls, unknown, options, make, own)
            near = did_you_mean(unknown, valid) if not hint else ""
            raise ValueError(f"unknown reset option(s) {unknown} for {self.env_name}{near}; valid: {valid}{hint}")
        return seed, {k: v for k, v in options.items() if v is not None}

    def _after_step(self) -> None:
        """Read the state after a step (or a change made in place): the agent to act, the end of
        the episode; drops the cached mask and observation."""
        st = self._st
        self._legal = None
        self.agent_selection = self.possible_agents[st.current_player.item(0)]
        if st.done.item(0):
            self._finish()
        elif self._deal_counter is not None:
            self._deal_infos()

    def _deal_infos(self) -> None:
        """A deal was scored and the episode goes on (``Kernel.DEAL_COUNTER``): every agent's infos
        become the kernel's info, which reveals that deal's result (e.g. Ottocento §7)."""
        n = getattr(self._st, self._deal_counter).item(0)
        if n != self._deals_seen:
            self._deals_seen = n
            info = self.kernel.info(self._st, 0)
            for a in self.agents:
                self.infos[a] = dict(info)

    def _finish(self) -> None:
        """The game is over: every agent terminated (or truncated) with the kernel's end-of-game info."""
        st = self._st
        trunc = bool(st.truncated[0])
        info = self.kernel.info(st, 0)
        for a in self.agents:
            self.terminations[a] = not trunc
            self.truncations[a] = trunc
            self.infos[a] = dict(info)

    def _over(self) -> bool:
        return bool(self._st.done.item(0)) or self._forfeit is not None

    def _legal_mask(self) -> np.ndarray:
        """The action mask of the seat to act (``int8[A]`` on the fast path, else ``bool[A]``), cached in
        ``_legal`` until the next step; ``_legal = None`` (or :meth:`_after_step`) drops the cache after
        the state was changed in place. On the fast path it is the single game's :attr:`mask` buffer,
        computed with the observation of the seat to act (``_single.obs``)."""
        if self._legal is None:
            single = self._single
            if single is not None:
                single.refresh()
                self._legal = single.mask
            else:
                self._legal = self.kernel.legal_actions(self._st)[0]
        return self._legal

    def _require_reset(self, what: str) -> None:
        if self._st is None:
            raise RuntimeError(f"{what} called before reset(): call env.reset() first")

    def _require_live(self, what: str) -> None:
        """``RuntimeError`` before ``reset`` and once every agent has left the episode."""
        self._require_reset(what)
        if not self.agents:
            raise RuntimeError(f"{what} called after the episode ended (every agent is done): call env.reset() to deal again")

    def last(self, observe: bool = True):
        """PettingZoo's ``last()``; ``RuntimeError`` before ``reset`` and after the episode ended."""
        if self._st is None or not self.agents:
            self._require_live("last()")
        agent = self.agent_selection
        assert agent is not None
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63):
        """PettingZoo's ``agent_iter()``; ``RuntimeError`` before ``reset``, ``ValueError`` for a ``max_iter``
        that is not an int >= 0 (PettingZoo's failed at the first step on a str and rounded a float up)."""
        self._require_reset("agent_iter()")
        if not is_int(max_iter) or max_iter < 0:
            raise ValueError(f"max_iter must be an int >= 0 (the most steps to iterate), got {max_iter!r}")
        return super().agent_iter(int(max_iter))

    def observe(self, agent: str) -> dict:
        """``{"observation": uint8[D], "action_mask": int8[A]}`` for ``agent``; the mask is all
        zero unless ``agent`` is to act. ``RuntimeError`` before ``reset``, ``ValueError`` for an
        unknown agent."""
        if self._st is None:
            self._require_reset("observe()")
        try:  # _seat_of, inlined: observe runs at every step of every AEC loop
            seat = self.agent_name_mapping[agent]
        except (KeyError, TypeError):  # TypeError: an unhashable agent
            raise self._unknown_agent(agent) from None
        single = self._single
        if single is not None:
            # fast path: the seat to act's view was computed by the step (or by _legal_mask); copies
            # are handed out, so what a caller keeps never changes
            legal = self._legal if self._legal is not None else self._legal_mask()
            if legal is single.mask and seat == single.view_seat:
                mask = np.zeros(self._num_actions, dtype=np.int8) if self._forfeit is not None else legal.copy()
                return {"observation": single.obs.copy(), "action_mask": mask}
        st = self._st
        obs = self._single.observe(seat) if self._single is not None else self.kernel.observe(st, seat)[0]
        if seat == st.current_player.item(0) and not self._over():
            mask = self._legal_mask().astype(np.int8)  # a copy: callers may keep or modify it
        else:
            mask = np.zeros(self._num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent to act (empty once the episode is over)."""
        if self._st is None or self._over():
            return []
        return np.flatnonzero(self._legal_mask()).tolist()

    def step(self, action) -> None:
        """Apply ``action`` (an int) for ``agent_selection``.

        Raises ``RuntimeError`` before ``reset`` and after the episode ended; ``ValueError`` if the
        action is not an int in ``[0, A)`` or not legal now (the message names it and lists the legal
        actions); the game is unchanged in both cases.
        """
        if self._st is None or not self.agents:
            self._require_live("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._live_step(agent, action)
        if self.render_mode == "human":  # human rendering happens in reset and step (Gymnasium, PettingZoo)
            self.render()

    def _live_step(self, agent: str, action) -> None:
        """:meth:`step` for a live ``agent``: check ``action``, then apply it (or forfeit)."""
        if type(action) is not int:
            if isinstance(action, np.ndarray) and action.shape == ():
                action = action.item()
            if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
                raise ValueError(f"action must be an int action id, got {action!r}; legal: {self._legal_names()}")
        a = int(action)
        mask = self._legal if self._legal is not None else self._legal_mask()
        if not (0 <= a < self._num_actions and mask[a]):
            if 0 <= a < self._num_actions and self.illegal_action == "lose":
                self._lose(agent, a)
                return
            what = self.kernel.action_name(a) if 0 <= a < self._num_actions else f"{a} (out of range 0..{self._num_actions - 1})"
            raise ValueError(f"illegal action {what} for {agent}; legal: {self._legal_names()}")
        self._cumulative_rewards[agent] = 0.0
        st = self._st
        single = self._single
        if single is None:
            self.kernel.step(st, np.array([a]), self._rng)
            self.rewards = dict(zip(self.possible_agents, st.rewards[0].tolist()))
            self._after_step()
            self._accumulate_rewards()
            return
        # fast path: one compiled call steps and computes the next seat's mask and observation
        code = single.play(a, self._rng)
        self._legal = single.mask
        self.agent_selection = self.possible_agents[st.current_player.item(0)]
        if code & 1:  # some reward is not +0.0
            self.rewards = dict(zip(self.possible_agents, st.rewards[0].tolist()))
            if code & 2:
                self._finish()
            elif self._deal_counter is not None:
                self._deal_infos()
            self._accumulate_rewards()
        else:  # no reward: adding +0.0 to the cumulative rewards would change nothing
            self.rewards = dict.fromkeys(self.possible_agents, 0.0)
            if code & 2:
                self._finish()
            elif self._deal_counter is not None:
                self._deal_infos()

    def _lose(self, agent: str, action: int) -> None:
        """``illegal_action="lose"``: ``agent`` forfeits the episode by ``action`` (module docstring)."""
        self._cumulative_rewards[agent] = 0.0
        self._forfeit = agent
        self._legal = None
        pay = self.kernel.forfeit_rewards(self.agent_name_mapping[agent])
        self.rewards = dict(zip(self.possible_agents, pay.tolist()))
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = {"offender": agent}  # the action stays the offender's: it may be a card of its hand
        self.infos[agent] = {"illegal_action": self.kernel.action_name(action), "offender": agent}
        self._accumulate_rewards()

    def _legal_names(self) -> list[str]:
        return [self.kernel.action_name(x) for x in self.legal_actions()]

    # ------------------------------------------------------------------ extras
    def state(self) -> np.ndarray:
        """Perfect-information vector ``uint8[S]`` (layout: ``state_layout()``)."""
        self._require_reset("state()")
        return self.kernel.global_state(self._st)[0]

    def observation_layout(self) -> str:
        """Printable table of the observation's named slices."""
        return self.kernel.obs_layout.table()

    def state_layout(self) -> str:
        """Printable table of ``state()``'s named slices."""
        return self.kernel.state_layout.table()

    def action_name(self, action: int) -> str:
        """Name of an action id; ``ValueError`` if out of range."""
        return self.kernel.action_name(action)

    def action_id(self, name: str) -> int:
        """Action id of a name (inverse of :meth:`action_name`); ``ValueError`` if unknown."""
        return self.kernel.action_id(name)

    @property
    def hands(self) -> dict[str, list[int]]:
        """Live view: agent -> card ids that agent holds privately."""
        self._require_reset("hands")
        return dict(zip(self.possible_agents, self.kernel.hands(self._st, 0)))

    @property
    def known_cards(self) -> dict[str, list[int]]:
        """Live view: agent -> held cards the other players have seen."""
        self._require_reset("known_cards")
        return dict(zip(self.possible_agents, self.kernel.known_cards(self._st, 0)))

    def table_view(self, seat: int = 0) -> dict:
        """The kernel's :meth:`~cardzoo.envs.core.kernel.Kernel.table_view` of ``seat`` in this game: what
        that seat sees at the table, as JSON-able data. ``RuntimeError`` before ``reset``,
        ``ValueError`` for a bad seat, ``NotImplementedError`` for a game without one."""
        self._require_reset("table_view()")
        return self.kernel.table_view(self._st, 0, seat)

    @property
    def game_state(self):
        """The kernel state (``B = 1``) for tests and search; mutate at your own risk. ``reset()`` deals
        the next game into these same arrays: keep a copy (``game_state.copy()``), not the object. The action mask
        and the observation of the seat to act are cached until the next step: after a change in
        place, call ``_after_step()`` (or set ``_legal = None``) so that they are computed again."""
        return self._st

    def render(self, view="default") -> str | None:
        """With ``render_mode="ansi"``: the table as text from ``render_view`` (or ``view``); with
        ``render_mode="human"`` the same text is printed and ``None`` returned (``reset`` and ``step``
        print it themselves in that mode)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called with render_mode=None; pass render_mode='ansi' or 'human'")
            return None
        self._require_reset("render()")
        text = self.kernel.render(self._st, 0, self.render_view if view == "default" else view)
        if self.render_mode == "human":
            print(text, flush=True)
            return None
        return text

    # ------------------------------------------------------------------ text view
    def _seat_of(self, agent: str) -> int:
        """The seat of ``agent``, looked up as :meth:`observe` and :meth:`observation_space` do
        (``ValueError`` naming the agents for an unknown or unhashable one)."""
        try:
            return self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def text_observation(self, agent: str) -> str:
        """What ``agent`` may know, as text (:meth:`Kernel.text_view
        <cardzoo.envs.core.kernel.Kernel.text_view>`): its hand, the trick, trump or contract, scores,
        what was declared or signalled, who is to act and, when ``agent`` is to act, its legal actions
        by name. Never another seat's hidden cards. ``RuntimeError`` before ``reset``, ``ValueError``
        for an unknown agent."""
        self._require_reset("text_observation()")
        seat = self._seat_of(agent)
        text = self.kernel.text_view(self._st, 0, seat)
        if self._forfeit is not None:  # the kernel's game goes on, but the episode was forfeited (the offender
            # is kept here: infos lose each agent at its dead step)
            text = text.rsplit("\n", 1)[0] + f"\nThe episode is over: {self._forfeit} played an illegal action."
        return text

    def action_from_text(self, agent: str, text: str) -> int:
        """The action id that ``text`` names for ``agent`` (an action name as in
        :meth:`text_observation`, case-insensitive, surrounding spaces ignored).

        Raises ``ValueError`` if ``text`` names no action or one that is not legal now (the message
        lists the legal action names), if ``agent`` is not the agent to act, or once the episode is over."""
        self._require_reset("action_from_text()")
        self._seat_of(agent)  # ValueError for an unknown agent
        if self._over():  # "player_0 is not to act now (agent to act: player_0)" said the finished game's last seat
            raise ValueError(f"the episode is over: no action is legal for {agent}; call env.reset() to deal again")
        legal = self._legal_names() if agent == self.agent_selection else []
        if not legal:
            raise ValueError(f"{agent} is not to act now (agent to act: {self.agent_selection}); no action is legal for it")
        try:
            a = self.kernel.action_id(text)
        except ValueError:
            raise ValueError(f"{text!r} is not an action; legal actions for {agent}: {legal}") from None
        if not self._legal_mask()[a]:
            raise ValueError(f"{self.kernel.action_name(a)} is not legal now; legal actions for {agent}: {legal}")
        return a

    def close(self) -> None:
        """Nothing to free (PettingZoo's ``close``): the env holds no window or process."""
        pass


class TextObservationWrapper(BaseWrapper):
    """PettingZoo wrapper adding the per-seat text view to every observation.

    ``observe(agent)`` returns ``{"observation": uint8[D], "action_mask": int8[A], "text": str}``
    where ``text`` is :meth:`KernelAECEnv.text_observation`; ``observation_space(agent)`` is the
    env's ``Dict`` space with ``text=gymnasium.spaces.Text``. Everything else is the wrapped env's.
    Example: ``TextObservationWrapper(cardzoo.make("all_fours"))``.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        if not isinstance(env.unwrapped, KernelAECEnv):
            raise ValueError(f"TextObservationWrapper wraps a cardzoo env, not {type(env.unwrapped).__name__}")
        charset = "".join(chr(c) for c in range(32, 127)) + "\n"
        self._text_space = spaces.Text(max_length=8192, charset=charset)
        self._spaces = {
            a: spaces.Dict({**env.observation_space(a).spaces, "text": self._text_space}) for a in env.possible_agents
        }

    def observation_space(self, agent):
        """The wrapped env's ``Dict`` space of ``agent`` plus ``text`` (``gymnasium.spaces.Text``);
        ``ValueError`` naming the agents for an unknown agent."""
        try:
            return self._spaces[agent]
        except (KeyError, TypeError):  # ValueError naming the agents, as the env's
            raise self.env.unwrapped._unknown_agent(agent) from None

    def observe(self, agent):
        """``{"observation": uint8[D], "action_mask": int8[A], "text": str}`` for ``agent``: the wrapped
        env's observation plus :meth:`KernelAECEnv.text_observation` (a new dict each call);
        ``RuntimeError`` before ``reset``, ``ValueError`` for an unknown agent."""
        obs = dict(self.env.observe(agent))
        obs["text"] = self.env.unwrapped.text_observation(agent)
        return obs

"""Terminal play: a person at seat 0 against AI players (``cardzoo play GAME``).

In a team game (All Fours) the person's partners are played by the ``partner`` agent and
the other team by ``opponents``; in a game without teams (P'yanitsa, 2-4 players) every other
seat is played by ``opponents`` and ``partner`` must be ``None`` (or empty): naming one is refused,
as ``cardzoo play --partner`` and the web table refuse it.

The person sees only what seat 0 may see (the env's per-seat text view,
``env.unwrapped.text_observation("player_0")``: the seat-0 render, who is to act and the legal
actions by name; names typed are read by ``action_from_text``), types a
move by name (``10H``, ``beg``) or by its number in the list of legal moves (an empty line
plays the move when only one is legal), and gets a clear message and another try on bad
input. ``?`` or ``help`` shows how to answer and the table again; ``q`` (or end of input, Ctrl-D) quits.
Once the person is out and the others play on (P'yanitsa with 3-4 players), a line says so; the others'
moves are then counted, not listed, and only who else goes out is written.

An ``exec:`` bot (training/BOTS.md) runs one process per seat it plays (the same command as partner
and as both opponents is three processes, and no process sees another seat's hand), started for the game
and stopped at its end; a fault is written when it happens (``fault: ...``, without the bot seat's
legal moves, which are its hidden cards), and from then on the bot plays the lowest legal action.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Collection

import numpy as np

from cardzoo import envs
from cardzoo.agents.external import ExecAgent

from .common import agent_action, check_exec_timeout, check_partner, seat_agent


def _quoted(text: str, most: int = 40) -> str:
    """``text`` as an answer is quoted back: in quotes, cut to ``most`` characters, control characters escaped (a
    pasted 100,000-character line was said back whole, a NUL byte written to the terminal as it came)."""
    cut = text if len(text) <= most else text[: most - 3] + "..."
    return f"'{cut}'" if cut.isprintable() else repr(cut)


def _choose(
    env, legal: list[int], read: Callable[[str], str], write: Callable[[str], None], view: str = "",
) -> int | None:
    names = [env.action_name(a) for a in legal]
    choices = f"{', '.join(names)} (q quits). ? shows help."
    moves = "your legal moves: " + "  ".join(f"[{i}] {n}" for i, n in enumerate(names))
    write(moves)
    while True:
        try:
            text = read("your move> ").strip()
        except EOFError:
            write("")  # end of input (Ctrl-D) leaves the cursor after the prompt: 'bye' goes on a line of its own
            return None
        if text.lower() in ("q", "quit", "exit"):
            return None
        if text.lower() in ("?", "h", "help"):
            write(_help(names))
            if view:
                write("\n" + view)
            write(moves)
            continue
        if text == "" and len(legal) == 1:
            return legal[0]
        number = text[1:] if text.startswith("-") else text  # '-1' is a number too, out of range
        if number.isascii() and number.isdigit():  # not '²' (isdigit, but int() refuses it)
            # a number of 4,301 digits or more: int() raised "Exceeds the limit (4300 digits) ...", which ended the game
            if len(number.lstrip("0")) <= 18 and int(text) in range(len(legal)):
                return legal[int(text)]
            write(f"{_quoted(text)} is not a move: the numbers go from 0 to {len(legal) - 1}. Legal: {choices}")
            continue
        if text == "":
            write(f"Type a move's name or its number (0 to {len(legal) - 1}): {choices}")
            continue
        try:
            return env.unwrapped.action_from_text(env.agent_selection, text)
        except ValueError:
            pass
        try:
            a = env.action_id(text)
        except ValueError:
            write(f"{_quoted(text)} is not a move. Type a move's name or its number: {choices}")
            continue
        write(f"{env.action_name(a)} is not legal now. Legal: {choices}")


def _help(names: list[str]) -> str:
    other_case = names[0].lower() if names[0].lower() != names[0] else names[0].upper()
    return (
        f"Type a legal move by its name, as listed (case does not matter: {other_case} is {names[0]}), or by its\n"
        f"number in the list of your legal moves ([0] is {names[0]}); Enter alone plays the move when it is\n"
        "the only one.\n"
        "? or help shows this and the table again; q (or Ctrl-D) quits the game."
    )


def play(
    game: str,
    partner: str | None,
    opponents: str,
    seed: int | None = None,
    env_options: dict | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    force_agent: bool = False,
    said: Collection[str] = (),
    exec_timeout: float | None = None,
) -> dict | None:
    """Play one episode in the terminal; returns the final returns per agent (``None`` if the person quit).

    A trained agent asked for that was trained for other game options is replaced by the rule bot
    (a ``note:`` line says so) unless ``force_agent`` (:func:`cardzoo.training.common.seat_agent`;
    then the ``note:`` line says that it was seated all the same, and no
    :class:`~cardzoo.agents.options.OptionsMismatchWarning` repeats it); no note is written for the
    agents named in ``said``, whose seating the caller has told already (``cardzoo play``'s note on
    its default AI). The opening line names the agents seated. ``partner`` plays seat 0's partners in a team game;
    in a game where every player plays alone it must be ``None`` (or empty). Raises ``ValueError``
    (unknown game or agent name, bad option, a ``partner`` named in a game without partnerships or
    none in a team game) before any agent is loaded. ``exec_timeout``: the seconds an ``exec:`` bot
    has for each answer, its ``ready`` included (default 10, :data:`cardzoo.agents.external.DEFAULT_TIMEOUT`;
    a bot that loads a large model may need more); ``ValueError`` if it is not a positive number.
    """
    exec_timeout = check_exec_timeout(exec_timeout)
    env_options = dict(env_options or {})
    env = envs.make(game, render_mode="ansi", render_view=0, **env_options)
    check_partner(game, env.unwrapped.kernel, partner, "partner", "opponents")  # the words of cardzoo play and the web
    teams = env.metadata["teams"]
    n = len(env.possible_agents)
    mates = set() if teams is None else {env.agent_name_mapping[a] for a in teams[0]} - {0}
    if mates and not partner:
        raise ValueError(f"{game} is a partnership game: name the partner agent (e.g. {game}/rule)")
    bots, seated, notes, execs = {}, {}, [], {}
    for seat in range(1, n):
        wanted = partner if seat in mates else opponents
        side = (wanted, seat in mates)
        if side in execs:  # an exec: bot is one agent for all its seats of a side (one decision count, one fault)
            bots[seat] = execs[side]  # and runs a process per seat (agents/external.py)
            continue
        # the same exec: command as partner and as opponents is two agents, each with its own faults
        bots[seat], seated[wanted], note = seat_agent(wanted, game, env_options, seed, force=force_agent, warn=False,
                                                      exec_timeout=exec_timeout)
        if isinstance(bots[seat], ExecAgent):
            execs[side] = bots[seat]
            bots[seat].private_in_faults = False  # a fault message must not show the bot seat's cards to the person
        if note and note not in notes and wanted not in said:
            notes.append(note)
    for note in notes:
        write(f"note: {note}")
    partner, opponents = seated.get(partner, partner), seated.get(opponents, opponents)
    bots_started = list(execs.values())  # exec: bots: a process per seat, started for this game and stopped at its end
    said_faults = {id(bot): 0 for bot in bots_started}

    def tell_faults():  # each fault once, when it happens
        for bot in bots_started:
            for fault in bot.faults[said_faults[id(bot)]:]:
                write(f"fault: {fault}")
            said_faults[id(bot)] = len(bot.faults)

    try:
        with warnings.catch_warnings():
            # a fault is written as a fault: line (tell_faults), not as a Python warning
            warnings.filterwarnings("ignore", category=RuntimeWarning, message="bot ")
            for bot in bots_started:  # each seat's process starts now: a failed hello is said before the game
                bot.begin(env.unwrapped.kernel, seats=sorted(s for s, b in bots.items() if b is bot))
            tell_faults()
            returns = _play_episode(env, bots, seed, teams, n, mates, partner, opponents, read, write, tell_faults)
            if returns is not None:
                for bot in bots_started:  # the protocol's end message: every seat's return, in seat order
                    bot.end_episodes(np.array([[returns[a] for a in env.possible_agents]]))
        return returns
    finally:
        tell_faults()
        for bot in bots_started:
            bot.close()


#: what a player without partners plays for (P'yanitsa's ``objective``, RULES.md §6): its loser holds every card
_GOALS = {
    "last_holder_loses": "do not be the last player holding cards (the one who ends with them all loses)",
    "first_out_loses": "do not run out of cards first (whoever runs out first loses)",
}


def _play_episode(
    env, bots, seed, teams, n, mates, partner, opponents, read, write, tell_faults=lambda: None,
) -> dict | None:
    """The episode of :func:`play`, its agents seated."""
    env.reset(seed=seed)
    if teams is None:
        goal = _GOALS.get(env.unwrapped.kernel.options.get("objective"))
        write(f"You are player_0 of {n} players, each for themselves; the others are played by {opponents}."
              + (f" Goal: {goal}." if goal else ""))
    else:
        names = ", ".join(env.possible_agents[s] for s in sorted(mates))
        write(f"You are player_0 (team {teams[0]}); partner {names} = {partner}; opponents = {opponents}.")
    returns = {a: 0.0 for a in env.possible_agents}
    last_render = None
    kernel = env.unwrapped.kernel
    # once seat 0 is out (P'yanitsa with 3-4 players, RULES.md §6: no card once a battle is collected) the
    # others play on, up to ~1,000 flips: their moves are counted, not listed (as the web table sums them up)
    quiet = None  # {"moves", "battles"} while seat 0 is out
    out_before: set[int] = set()  # seats without cards after the last battle
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[agent]
        if seat == 0:
            text = env.unwrapped.text_observation(agent)
            if text != last_render:
                write("\n" + text)
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            a = _choose(env, legal, read, write, view=text)
            if a is None:
                write("bye")
                return None
            write(f"you choose {env.action_name(a)}")  # the move a number or Enter stood for
        else:
            a = agent_action(bots[seat], env)
            tell_faults()
        state = env.unwrapped.game_state
        snapshot = state.copy()
        tricks = getattr(state, "tricks_done", None)
        before = None if tricks is None else int(tricks[0])
        battles = getattr(state, "battles", None)
        b_before = None if battles is None else int(battles[0])
        env.step(a)
        # a game whose seats learn different things says what seat 0 may learn (Kernel.announce)
        lines = kernel.announce(snapshot, env.unwrapped.game_state, a, seat, 0)
        if lines is not None:
            for line in lines:
                write(line)
            last_render = None
            continue
        if quiet is not None and seat != 0:
            quiet["moves"] += 1
        elif seat != 0:
            if kernel.action_is_public(snapshot, 0, a):
                write(f"{agent} plays {env.action_name(a)}")
            else:  # a hidden card, or a hidden move that is no card
                write(f"{agent} puts a card face down" if kernel.action_card(a) is not None else f"{agent} makes a hidden move")
        if before is not None and int(state.tricks_done[0]) != before and hasattr(state, "leader"):
            write(f"-- trick {before + 1} won by {env.possible_agents[int(state.leader[0])]}")
        if b_before is not None and int(state.battles[0]) != b_before and hasattr(state, "winner"):
            w = int(state.winner[0])
            sizes = env.unwrapped.table_view(0)["hand_sizes"]  # public: pile sizes (§7)
            out_now = {s for s in range(n) if sizes[s] == 0}
            if quiet is None:
                write(f"-- battle {b_before + 1} " + (f"won by {env.possible_agents[w]}" if w >= 0 else "is dead (draw)"))
                if not state.done[0] and 0 in out_now and w != 0:  # out, and the game goes on without seat 0
                    quiet = {"moves": 0, "battles": 0}
                    write(f"-- you are out of cards after battle {b_before + 1}; the others play on without you "
                          "(who goes out is listed, their moves are not)")
            else:
                quiet["battles"] += 1
            if quiet is not None:
                for s in sorted(out_now - out_before - {0}):
                    write(f"-- {env.possible_agents[s]} is out of cards after battle {b_before + 1}")
            out_before = out_now
        last_render = None
    if quiet is not None:
        write(f"-- played on without you: {quiet['moves']} moves, {quiet['battles']} battles")
    write("\n" + env.render())
    if teams is None:
        write(f"game over: your return {returns['player_0']:+g}")
    else:
        # the game's word (hand, deal, match) and the return as it is: Ottocento's point_diff is the difference / 100
        write(f"{kernel.episode_name} over: your team's return {returns['player_0']:+g}")
    return returns


def main_play(
    game: str, partner: str | None, opponents: str, seed, env_options, force_agent: bool = False, said: Collection[str] = (),
    exec_timeout: float | None = None,
) -> int:
    """CLI wrapper of :func:`play` (exit code 0)."""
    play(game, partner, opponents, seed, env_options, read=input, write=lambda s: print(s, flush=True), force_agent=force_agent,
         said=said, exec_timeout=exec_timeout)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main_play("all_fours", "all_fours/rule", "all_fours/rule", None, {}))

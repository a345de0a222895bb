"""Terminal play (`cardzoo play`) as a person meets it: answers that are not moves, help, end of
input, and exec: bots at the table (a process per seat, one fault for the bot, said when it happens
and without the bot seat's hidden cards)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from cardzoo.training.play import play

from bot_util import bot_command, replying_bot


def _first_prompt(answers: list[str], game: str = "all_fours", seed: int = 3):
    """Play ``game`` answering ``answers`` in turn, then quitting; returns what was written."""
    said: list[str] = []
    it = iter(answers)

    def read(prompt):
        try:
            return next(it)
        except StopIteration:
            return "q"

    assert play(game, f"{game}/rule", f"{game}/rule", seed=seed, read=read, write=said.append) is None
    return said


def _legal(said: list[str]) -> list[str]:
    line = next(x for x in said if x.startswith("your legal moves: "))
    return [part.split("] ", 1)[1] for part in line[len("your legal moves: "):].split("  ")]


def test_a_number_out_of_range_and_an_empty_line_say_what_is_valid():
    """'9' with four legal moves said "'9' is not a move. Type a move's name or its number", the
    numbers not given; an empty line with several legal moves said "'' is not a move"."""
    said = _first_prompt(["9", ""])
    names = _legal(said)
    assert len(names) >= 2
    i = said.index(next(x for x in said if x.startswith("your legal moves: ")))
    last = len(names) - 1
    choices = f"{', '.join(names)} (q quits). ? shows help."
    assert said[i + 1] == f"'9' is not a move: the numbers go from 0 to {last}. Legal: {choices}"
    assert said[i + 2] == f"Type a move's name or its number (0 to {last}): {choices}"
    assert said[i + 3:] == ["bye"]


def test_a_negative_number_says_the_numbers_too():
    """'-1' said "'-1' is not a move. Type a move's name or its number" where '9' said which numbers there are:
    a negative number is a number out of range as well (and never a move from the end of the list)."""
    said = _first_prompt(["-1"])
    names = _legal(said)
    i = said.index(next(x for x in said if x.startswith("your legal moves: ")))
    choices = f"{', '.join(names)} (q quits). ? shows help."
    assert said[i + 1] == f"'-1' is not a move: the numbers go from 0 to {len(names) - 1}. Legal: {choices}"
    assert said[i + 2:] == ["bye"]


def test_a_huge_number_or_a_long_or_binary_line_is_said_back_briefly_and_the_game_goes_on():
    """A pasted number of 5,000 digits ended the game ("cardzoo play: error: Exceeds the limit (4300 digits) for
    integer string conversion", exit 2: int() of it); a 100,000-character line was said back whole, and a NUL byte
    was written to the terminal as typed. Now each is an answer that is not a move, quoted in at most 40
    characters with control characters escaped, and the prompt asks again."""
    said = _first_prompt(["9" * 5000, "x" * 100_000, "a\x00b", "001"])
    names = _legal(said)
    i = said.index(next(x for x in said if x.startswith("your legal moves: ")))
    choices = f"{', '.join(names)} (q quits). ? shows help."
    assert said[i + 1] == f"'{'9' * 37}...' is not a move: the numbers go from 0 to {len(names) - 1}. Legal: {choices}"
    assert said[i + 2] == f"'{'x' * 37}...' is not a move. Type a move's name or its number: {choices}"
    assert said[i + 3] == f"'a\\x00b' is not a move. Type a move's name or its number: {choices}"
    assert said[i + 4] == f"you choose {names[1]}"  # '001' is the number 1


def test_help_explains_and_shows_the_table_again():
    """'?' and 'help' were "not a move"; they now explain how to answer and show the table and the legal moves again."""
    for word in ("?", "help", "HELP"):
        said = _first_prompt([word])
        names = _legal(said)
        views = [x for x in said if x.startswith("\nYou are S0 (player_0) in all_fours.")]
        assert len(views) == 2 and views[0] == views[1]  # the table, then again after the help
        moves = [x for x in said if x.startswith("your legal moves: ")]
        assert len(moves) == 2 and moves[0] == moves[1]
        help_text = next(x for x in said if x.startswith("Type a legal move by its name"))
        assert f"case does not matter: {names[0].lower()} is {names[0]}" in help_text
        assert f"([0] is {names[0]})" in help_text and "q (or Ctrl-D) quits the game." in help_text
        assert not any("is not a move" in x for x in said)


def test_end_of_input_ends_the_prompt_line_before_bye():
    """Ctrl-D (end of input) at the prompt printed "your move> bye" on one line; 'bye' is now on its own line."""
    said: list[str] = []

    def read(prompt):
        raise EOFError

    assert play("all_fours", "all_fours/rule", "all_fours/rule", seed=3, read=read, write=said.append) is None
    assert said[-2:] == ["", "bye"]


def _bot(tmp_path, name: str, body: str) -> str:
    return "exec:" + bot_command(tmp_path, name, body)


def test_an_exec_bot_is_a_process_per_seat(tmp_path):
    """`cardzoo play all_fours --opponents exec:...` first started an agent per opponent seat (two decision
    counts, two copies of every fault), then one process for both seats, which let a bot that remembers
    play each opponent knowing the other's hand. The opponents are one agent (one decision count, one
    fault) with a process per seat: each hears its own seat's hello, act and end messages."""
    log = tmp_path / "log.jsonl"
    bot = "exec:" + bot_command(tmp_path, "logger", f"""
        import os
        log = open({str(log)!r}, "a")
        for line in sys.stdin:
            m = json.loads(line)
            log.write(json.dumps({{"pid": os.getpid(), **m}}) + "\\n"); log.flush()
            if m["type"] == "hello":
                print(json.dumps({{"type": "ready"}}), flush=True)
            elif m["type"] == "act":
                print(json.dumps({{"action": min(m["legal_actions"])}}), flush=True)
        """)
    said: list[str] = []
    returns = play("all_fours", "all_fours/rule", bot, seed=3, read=lambda p: "0", write=said.append)
    per_process: dict[int, list[dict]] = {}
    for x in log.read_text().splitlines():
        m = json.loads(x)
        per_process.setdefault(m.pop("pid"), []).append(m)
    assert len(per_process) == 2
    seats = []
    for msgs in per_process.values():
        assert [m["type"] for m in msgs].count("hello") == 1 and msgs[0]["type"] == "hello"
        assert {m["seat"] for m in msgs if m["type"] != "end"} == {msgs[0]["seat"]}
        seats.append(msgs[0]["seat"])
        ends = [m for m in msgs if m["type"] == "end"]
        assert ends == [{"type": "end", "rewards": [returns[f"player_{s}"] for s in range(4)]}]
    assert sorted(seats) == [1, 3]
    assert not any(x.startswith("fault: ") for x in said)


def test_a_fault_is_said_when_it_happens_without_the_bot_seats_cards(tmp_path):
    """A bot's fault was written only after the game, once per seat, as "decision 1 (seat 1, legal
    ['KC', '4S', ...])": the legal moves of an opponent's seat are its hidden cards. It is now written
    at once, once, naming the seat only."""
    bot = "exec:" + replying_bot(tmp_path, "illegal", 'print(json.dumps({"action": -1}), flush=True)')
    said: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the fault is a line of the game, not a Python warning
        returns = play("all_fours", "all_fours/rule", bot, seed=3, read=lambda p: "0", write=said.append)
    assert returns is not None
    faults = [i for i, x in enumerate(said) if x.startswith("fault: ")]
    assert len(faults) == 1
    fault = said[faults[0]]
    name = bot
    assert fault.startswith(f"fault: bot {name!r}, game all_fours, decision 1 (seat ")
    seat = int(fault.split("decision 1 (seat ", 1)[1].split(")", 1)[0])
    assert seat in (1, 3)
    assert fault.endswith("): played illegal action -1 (out of range); the bot is stopped and plays the lowest legal "
                          "action from now on")
    assert "legal [" not in fault
    assert faults[0] < len(said) - 3  # said during the game, before its last lines
    # right after the bot's first decision: the line before it is the game's opening or an earlier move, and
    # the next line is that seat's move (the fallback, the lowest legal action)
    assert said[faults[0] + 1].startswith(f"player_{seat} plays ")


def test_a_crash_is_said_without_the_bots_stderr_which_may_show_its_cards(tmp_path):
    """A bot that crashed had the end of its stderr quoted in the fault line, and a bot that answered
    something else than JSON had its answer quoted; a bot that printed its legal moves (its hidden hand)
    there showed them to the person. The arena still quotes both."""
    bot = "exec:" + replying_bot(tmp_path, "crash", """
        sys.stderr.write("my hand: " + m["text"].split("Legal actions: ")[1] + "\\n")
        sys.exit(3)
        """)
    said: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        play("all_fours", "all_fours/rule", bot, seed=3, read=lambda p: "0", write=said.append)
    faults = [x for x in said if x.startswith("fault: ")]
    assert len(faults) == 1
    assert "crashed during the act message (exit status 3); the bot is stopped" in faults[0]
    assert "my hand" not in "\n".join(said) and "stderr" not in faults[0]
    from cardzoo.agents.external import ExecAgent
    from cardzoo.training.arena import play_duplicate

    garbage = "exec:" + replying_bot(tmp_path, "garbage", 'print("I hold " + m["text"].split("Legal actions: ")[1], flush=True)')
    said.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        play("all_fours", "all_fours/rule", garbage, seed=3, read=lambda p: "0", write=said.append)
    faults = [x for x in said if x.startswith("fault: ")]
    assert len(faults) == 1 and "I hold" not in "\n".join(said)
    assert ("sent invalid JSON for the act message: (an answer not shown at this table: it may name the bot's cards) "
            "(Expecting value: line 1 column 1 (char 0)); the bot is stopped") in faults[0]
    arena_bot = ExecAgent(bot.removeprefix("exec:"), name=bot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = play_duplicate("all_fours", arena_bot, "all_fours/rule", 2, seed=1, batch=2)
    assert "; its stderr ends: 'my hand: " in r.faults[0]


def test_a_bot_that_fails_the_hello_is_said_before_the_game_and_raises_no_warning(tmp_path):
    """A bot that answered the hello with something else leaked a Python RuntimeWarning (file, line and
    source line) onto the terminal before the game, and its fault was written only at the end."""
    bot = _bot(tmp_path, "rude", """
        for line in sys.stdin:
            print(json.dumps({"type": "nope"}), flush=True)
        """)
    said: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        play("all_fours", "all_fours/rule", bot, seed=3, read=lambda p: "q", write=said.append)
    faults = [i for i, x in enumerate(said) if x.startswith("fault: ")]
    assert faults == [0]
    assert said[0] == (f"fault: bot {bot!r}, game all_fours, hello (seat 1): answered the hello with {{'type': 'nope'}}, "
                       'expected {"type": "ready"}; the bot is stopped and plays the lowest legal action from now on')
    assert said[1].startswith("You are player_0 (team ['player_0', 'player_2'])")


def test_a_hidden_move_that_is_no_card_is_not_called_a_face_down_card():
    """Avinas with facedown_signal="free": the leader's face-down lead and then its signal (valuable or
    not, for the partner) were both written "player_N puts a card face down", as if two cards were
    played. The signal is now "player_N makes a hidden move" (the partner's table says what it was)."""
    for seed in range(100):
        said: list[str] = []
        play("avinas", "avinas/random", "avinas/random", seed=seed, env_options={"facedown_signal": "free"},
             read=lambda p: "0", write=said.append)
        hidden = [i for i, x in enumerate(said) if x.endswith(" puts a card face down")]
        if hidden:
            break
    else:
        raise AssertionError("no face-down lead by another seat in 100 deals")
    i = hidden[0]
    actor = said[i].split(" ", 1)[0]
    assert said[i + 1] == f"{actor} makes a hidden move"  # the signal, right after the lead
    assert not any("SIGNAL" in x for x in said if not x.startswith("\n"))  # its name is never written
    if actor != "player_2":  # an opponent's signal is for its partner: seat 0's next table does not tell it
        view = next(x for x in said[i:] if x.startswith("\nYou are S0"))
        assert "signal to S0" not in view and "valuable" not in view


def test_the_move_typed_as_a_number_or_enter_is_said_by_name():
    """'1' played the second legal move without saying which: nothing on the screen showed the card
    until the next table. The move is now said by name ("you choose ...")."""
    said = _first_prompt(["1"])
    names = _legal(said)
    i = said.index(f"you choose {names[1]}")
    assert said[i - 1].startswith("your legal moves: [0] ")


def test_pyanitsa_says_what_a_player_plays_for():
    """P'yanitsa's loser is the player left holding the cards (RULES.md §6): the opening said only
    "each for themselves", and a person who won every card read "game over: your return -1". The
    opening now states the goal of the game's objective option."""
    for objective, goal in [
        ("last_holder_loses", "do not be the last player holding cards (the one who ends with them all loses)"),
        ("first_out_loses", "do not run out of cards first (whoever runs out first loses)"),
    ]:
        said: list[str] = []
        play("pyanitsa", None, "pyanitsa/rule", seed=1, env_options={"num_players": 3, "objective": objective},
             read=lambda p: "q", write=said.append)
        assert said[0] == ("You are player_0 of 3 players, each for themselves; the others are played by pyanitsa/rule. "
                           f"Goal: {goal}.")


def test_once_out_the_others_play_on_counted_not_listed():
    """P'yanitsa with 4 players, seed 11: seat 0 is out after battle 47, and the others played 990 more
    moves (495 battles) to the end, each written as its own line (about 1,500 lines: 'player_2 plays
    FLIP', '-- battle N won by ...') with nothing saying seat 0 was out. Now one line says so, the
    others going out are listed, and the rest is one count (as the web table sums the stretch up)."""
    said: list[str] = []
    returns = play("pyanitsa", None, "pyanitsa/rule", seed=11, env_options={"num_players": 4},
                   read=lambda p: "", write=said.append)
    i = said.index("-- you are out of cards after battle 47; the others play on without you "
                   "(who goes out is listed, their moves are not)")
    assert said[i - 1] == "-- battle 47 won by player_3"
    assert said[i + 1:i + 3] == ["-- player_3 is out of cards after battle 542",
                                 "-- played on without you: 990 moves, 495 battles"]
    assert said[i + 3].startswith("\nP'yanitsa - view of S0") and "battle 542   phase: over" in said[i + 3]
    assert said[i + 4:] == ["game over: your return +0.333333"]
    assert returns["player_0"] == pytest.approx(1 / 3) and returns["player_2"] == -1.0
    assert not any(line.startswith("player_") for line in said[i:])  # no move of the others is listed


def test_going_out_as_the_game_ends_or_with_another_player():
    """The first version said "the others play on without you" (and "played on without you: 0 moves")
    when going out ended the game (every loss under first_out_loses), and never named a player who
    went out in the same battle as the person."""
    said: list[str] = []
    play("pyanitsa", None, "pyanitsa/rule", seed=0, env_options={"num_players": 3, "objective": "first_out_loses"},
         read=lambda p: "", write=said.append)
    assert said[-3] == "-- battle 14 won by player_2" and said[-1] == "game over: your return -1"
    assert not any("without you" in line for line in said)
    said = []
    play("pyanitsa", None, "pyanitsa/rule", seed=1, env_options={"num_players": 4}, read=lambda p: "", write=said.append)
    i = said.index("-- you are out of cards after battle 16; the others play on without you "
                   "(who goes out is listed, their moves are not)")
    assert said[i + 1:i + 4] == ["-- player_1 is out of cards after battle 16", "-- player_2 is out of cards after battle 148",
                                 "-- played on without you: 264 moves, 132 battles"]


def test_exec_timeout_is_the_bots_time_per_answer(tmp_path):
    """play() gave an exec: bot the fixed 10 s per answer, its ready included: a bot that loads a model
    for longer could not sit at the table. exec_timeout sets it (and a bad value is refused up front)."""
    bot = _bot(tmp_path, "slow", """
        import time
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                time.sleep(5)
                print(json.dumps({"type": "ready"}), flush=True)
        """)
    said: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        play("all_fours", "all_fours/rule", bot, seed=3, read=lambda p: "q", write=said.append, exec_timeout=0.2)
    assert said[0].startswith(f"fault: bot {bot!r}, game all_fours, hello (seat 1): gave no answer to the hello within the timeout "
                              "of 0.2 s;")
    for bad in (0, -1, float("nan"), True, "5"):
        try:
            play("all_fours", "all_fours/rule", bot, read=lambda p: "q", write=said.append, exec_timeout=bad)
        except ValueError as e:
            assert str(e) == f"exec_timeout must be a positive number of seconds (default 10), got {bad!r}"
        else:
            raise AssertionError(f"exec_timeout={bad!r} was taken")
    for big in (1e300, 86_401):  # 1e300 ended the game in a traceback (select: timestamp out of range for platform time_t)
        with pytest.raises(ValueError) as e:
            play("all_fours", "all_fours/rule", bot, read=lambda p: "q", write=said.append, exec_timeout=big)
        assert str(e.value) == f"exec_timeout must be at most 86,400 seconds (a day; default 10), got {big!r}"
    from cardzoo.agents.external import ExecAgent

    with pytest.raises(ValueError) as e:
        ExecAgent("python3 training/examples/lowest_bot.py", timeout=1e300)
    assert str(e.value) == "exec: agent timeout must be at most 86,400 seconds (a day), got 1e+300"
    assert ExecAgent("python3 training/examples/lowest_bot.py", timeout=86_400).timeout == 86_400


def test_the_play_command_takes_exec_timeout(tmp_path, monkeypatch, capsys):
    """`cardzoo play` had no --exec-timeout (only play() took it); the flag now reaches the bot, and a
    bad value is refused by the flag's name before anything is seated."""
    from cardzoo.training.cli import main

    bot = _bot(tmp_path, "silent", """
        for line in sys.stdin:
            pass
        """)
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    assert main(["play", "all_fours", "--partner", "all_fours/rule", "--opponents", bot, "--seed", "3",
                 "--exec-timeout", "0.3"]) == 0
    out = capsys.readouterr().out
    assert f"fault: bot {bot!r}, game all_fours, hello (seat 1): gave no answer to the hello within the timeout of 0.3 s;" in out
    assert main(["play", "all_fours", "--opponents", bot, "--exec-timeout", "-1"]) == 2
    assert capsys.readouterr().err == ("cardzoo play: error: --exec-timeout must be a positive number of seconds "
                                       "(default 10), got -1\n")


def test_an_illegal_card_of_the_bots_hand_is_not_named_in_the_fault(tmp_path):
    """A bot that played a card it holds but may not play (it must follow suit) had the fault line say
    "played illegal action 40 (8H)": the person learnt a card of an opponent's hidden hand. The line now
    says that an illegal action was played, not which; the arena still names it (bot authors need it)."""
    bot = bot_command(tmp_path, "revoke", """
        names = []
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                names = m["action_names"]
                print(json.dumps({"type": "ready"}), flush=True)
            elif m["type"] == "act":
                mine = next(x for x in m["text"].splitlines() if x.startswith("*S")).split("hand: ")[1].split()
                legal = {names[a] for a in m["legal_actions"]}
                held = [c for c in mine if c not in legal]  # cards of its hand that it may not play now
                print(json.dumps({"action": names.index(held[0]) if held else -1}), flush=True)
        """)
    said: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        play("all_fours", "all_fours/rule", "exec:" + bot, seed=3, read=lambda p: "0", write=said.append)
    faults = [x for x in said if x.startswith("fault: ")]
    assert len(faults) == 1
    # seed 3: player_1 leads after S0's 4C holding 2C 2D 8H AH 4S 10S; it may play 2C or 2D only and tried 8H
    assert faults[0] == (f"fault: bot {'exec:' + bot!r}, game all_fours, decision 1 (seat 1): played an illegal "
                         "action (not shown at this table: it may name the bot's cards); the bot is stopped and plays "
                         "the lowest legal action from now on")
    played = said.index("player_1 plays 8H")  # (the fallback, lowest legal, plays it later in the hand)
    assert played > said.index(faults[0]) and not any("8H" in x for x in said[:played])  # hidden until played
    from cardzoo.agents.external import ExecAgent
    from cardzoo.training.arena import play_duplicate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = play_duplicate("all_fours", ExecAgent(bot, name="revoke"), "all_fours/rule", 2, seed=1, batch=2)
    assert "played illegal action " in r.faults[0] and "(" in r.faults[0].split("played illegal action ")[1]


def test_the_same_exec_bot_as_partner_and_opponents_is_a_process_per_seat(tmp_path):
    """`cardzoo play all_fours --partner exec:X --opponents exec:X` ran one process for seats 1, 2 and 3:
    every act message of both sides went to it, so a bot that keeps memory per game (training/BOTS.md allows
    it) played the person's partner knowing the opponents' hands. Each side then had its own process (the
    two opponents one); now each seat has its own."""
    log = tmp_path / "log.txt"
    bot = "exec:" + bot_command(tmp_path, "pids", f"""
        import os
        log = open({str(log)!r}, "a")
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "hello":
                print(json.dumps({{"type": "ready"}}), flush=True)
            elif m["type"] == "act":
                log.write(f"{{os.getpid()}} {{m['seat']}}\\n"); log.flush()
                print(json.dumps({{"action": min(m["legal_actions"])}}), flush=True)
        """)
    said: list[str] = []
    assert play("all_fours", bot, bot, seed=3, read=lambda p: "0", write=said.append) is not None
    seats: dict[str, set[int]] = {}
    for line in log.read_text().splitlines():
        pid, seat = line.split()
        seats.setdefault(pid, set()).add(int(seat))
    assert sorted(seats.values(), key=min) == [{1}, {2}, {3}]
    assert not any(x.startswith("fault: ") for x in said)


TERMINAL_CASES = [
    ("all_fours", {"episode": "match", "target_score": 7}),
    ("avinas", {"facedown_signal": "free"}),
    ("ottocento", {}),
    ("aluette", {"signal_intercept": 0.5, "chant_recipients": "left_and_partner"}),
    ("pyanitsa", {"num_players": 3, "collect_order": "winner_chooses", "tie_mode": "down_up", "max_battles": 40}),
]


@pytest.mark.parametrize("game, options", TERMINAL_CASES, ids=[g for g, _ in TERMINAL_CASES])
def test_no_line_names_a_card_seat_0_may_not_know_yet(game, options, monkeypatch):
    """Every line terminal play writes (tables, AI moves, tricks, help, the end) names only cards seat 0
    may know when it is written: its hand, its observation's card sets (what it was shown: played,
    turned up, declared, its own discards...), the env's public info, and the cards of the moves it saw
    (its own, and public ones by name) so far; as ``test_web_hidden_info`` checks the web table."""
    from cardzoo import envs
    import cardzoo.training.play as terminal
    from test_web_hidden_info import card_sets, cards_named

    made, known = [], set()
    real_make = envs.make

    def make(*args, **kwargs):
        env = real_make(*args, **kwargs)
        made.append(env)
        step = env.step

        def seen_step(action):
            u = env.unwrapped
            if action is not None and not u._over():
                seat, card = u.agent_name_mapping[u.agent_selection], u.kernel.action_card(int(action))
                if card is not None and (seat == 0 or u.kernel.action_is_public(u.game_state, 0, int(action))):
                    known.add(card)
            return step(action)

        env.step = seen_step
        return env

    monkeypatch.setattr(terminal.envs, "make", make)
    named = 0
    said: list[str] = []

    def write(line: str) -> None:
        nonlocal named
        u = made[0].unwrapped
        k, st = u.kernel, u.game_state
        if st is not None:
            known.update(k.hands(st, 0)[0], card_sets(k, st, 0), cards_named(k.info(st, 0), k.deck))
        cards = cards_named(line, k.deck)
        leaked = cards - known
        assert not leaked, f"{game}: {[k.deck.names[c] for c in leaked]} written to the person: {line!r}"
        named += bool(cards)
        said.append(line)

    rng = np.random.default_rng(0)

    def read(prompt):
        if rng.random() < 0.05:
            return "?"  # the help shows the table again
        line = next(x for x in reversed(said) if x.startswith("your legal moves: "))
        return str(int(rng.integers(line.count("] "))))

    k = envs.kernel(game, **options)
    partner = f"{game}/rule" if k.teams is not None else None
    assert play(game, partner, f"{game}/rule", seed=1, env_options=options, read=read, write=write) is not None
    assert named > 20  # lines naming cards were checked

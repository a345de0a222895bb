"""cardzoo demo: one random hand printed move by move."""

from __future__ import annotations

from cardzoo.training.cli import main


def test_demo_prints_the_returns_as_numbers_not_float32_noise(capsys):
    """A 4-player P'yanitsa demo printed "returns: {'player_0': 0.3333333432674408, ...}" (float32 rewards summed as
    Python floats); the returns are rounded to 6 decimals."""
    assert main(["demo", "pyanitsa", "-o", "num_players=4", "--seed", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "returns: {'player_0': 0.333333, 'player_1': 0.333333, 'player_2': -1.0, 'player_3': 0.333333}")


def test_pyanitsa_demo_summarises_its_forced_flips(capsys):
    """cardzoo demo pyanitsa printed about 320 lines, 310 of them "player_N plays FLIP" (every P'yanitsa move is
    forced); it now shows the first 3 battles move by move with their tables, one line for the forced moves after
    them, and the final table. --every-move still prints every move."""
    assert main(["demo", "pyanitsa", "--seed", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) < 50
    assert sum(line.endswith("plays FLIP") for line in out) == 6  # battles 1-3, two seats
    assert ("... 304 forced moves in battles 4-155 not shown (FLIP x304; each the only legal move; "
            "--every-move shows them) ...") in out
    assert sum(line.startswith("battle ") for line in out) == 5  # the deal, after battles 1, 2, 3, the end
    assert any(line.startswith("battle 155   phase: over") for line in out)
    assert main(["demo", "pyanitsa", "--seed", "0", "--every-move"]) == 0
    every = capsys.readouterr().out.splitlines()
    assert sum(line.endswith("plays FLIP") for line in every) == 310 and not any("forced moves" in x for x in every)


def test_demo_prints_the_last_table_once(capsys):
    """cardzoo demo all_fours printed the table after the last trick and then the same final table again."""
    assert main(["demo", "all_fours", "--seed", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out.count("episode over") == 1
    assert sum(line.startswith("tricks 9/9") for line in out) == 1
    assert out[-2] == "episode over" and out[-1].startswith("returns:")


def test_demo_into_a_pipe_closed_early_ends_quietly():
    """cardzoo demo pyanitsa | head ended with "cardzoo demo: error: [Errno 32] Broken pipe" on stderr and exit 2;
    a reader that goes away now ends the command quietly, exit 141 (as a shell says for SIGPIPE)."""
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-m", "cardzoo.training.cli", "demo", "pyanitsa", "--every-move"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.readline().startswith(b"P'yanitsa")
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 141
    assert err == "", err


def test_pyanitsa_demo_with_choices_shows_its_decisions_not_its_flips(capsys):
    """With collect_order=winner_chooses the winner of each battle orders the pot (a real decision), and each ORDER
    flushed the forced FLIPs before it, so every FLIP was printed again (587 lines). After the first 3 battles
    only the decisions are printed, each with its battle, and the forced moves are one line at the end."""
    assert main(["demo", "pyanitsa", "-o", "collect_order=winner_chooses", "--seed", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    late = [line for line in out if line.startswith("after battle ")]
    assert late and all(" plays ORDER(" in line for line in late)
    assert sum(line.endswith("plays FLIP") for line in out) == 6  # battles 1-3 only
    summary = [line for line in out if "forced moves" in line]
    assert len(summary) == 1 and summary[0].startswith("... 350 forced moves in battles 4-178 not shown (FLIP x350;")
    assert len(out) < 300

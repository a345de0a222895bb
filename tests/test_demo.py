"""cardzoo demo: one random hand printed move by move."""

from __future__ import annotations

from cardzoo.training.cli import main


def test_demo_prints_the_returns_as_numbers_not_float32_noise(capsys):
    """A 4-player P'yanitsa demo printed "returns: {'player_0': 0.3333333432674408, ...}" (float32 rewards summed as
    Python floats); the returns are rounded to 6 decimals."""
    assert main(["demo", "pyanitsa", "-o", "num_players=4", "--seed", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "returns: {'player_0': 0.333333, 'player_1': 0.333333, 'player_2': -1.0, 'player_3': 0.333333}")

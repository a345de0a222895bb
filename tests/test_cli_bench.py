"""cardzoo bench: bad input is refused before anything is measured."""

from __future__ import annotations

import pytest
from cardzoo.training import bench
from cardzoo.training.cli import main


def test_bench_refuses_an_empty_json_path_and_a_bad_option_before_measuring(monkeypatch, capsys):
    """`--json ""` was taken as no --json (the run's numbers were not written, nothing said so), and a
    bad -o option was found only at the first row's warm-up, after the progress bar had started."""
    monkeypatch.setattr(bench, "_AECRunner", lambda *a, **k: pytest.fail("a row was measured"))
    assert main(["bench", "pyanitsa", "--seconds", "0.01", "--rounds", "1", "--json", ""]) == 2
    assert capsys.readouterr().err == ("cardzoo bench: error: --json '' is an empty path: give the file to write, "
                                       "e.g. --json bench.json (or leave --json out)\n")
    assert main(["bench", "pyanitsa", "--seconds", "0.01", "--rounds", "1", "-o", "bogus=1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardzoo bench: error: unknown option(s) ['bogus']; valid options: ['collect_order', ")
    assert "warm-up" not in err and "%" not in err


def test_bench_a_batch_too_large_for_memory_is_a_clear_error(capsys):
    """`cardzoo bench avinas --batch 99999999999` ended in numpy's _ArrayMemoryError traceback (exit 1)."""
    argv = ["bench", "avinas", "--batch", "999999999999", "--seconds", "0.01", "--rounds", "1",
            "--skip", "texas", "scaling", "first-use", "pimc"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    last = err.split("\r")[-1].splitlines()[-1]  # after the progress bar
    assert last.startswith("cardzoo bench: error: --batch 999,999,999,999 games at once do not fit in memory (Unable "
                           "to allocate "), last
    assert last.endswith("; give smaller --batch sizes (default 4096)") and "Traceback" not in err

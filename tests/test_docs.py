"""The README keeps its contract: the two commands first, CI runs the same test command, the
observation layout shown is the one the code prints, and the rules documents are linked."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _blocks():
    return re.findall(r"```(?:bash)?\n(.*?)```", README, flags=re.S)


def test_readme_begins_with_the_two_commands():
    first, second = (b.strip() for b in _blocks()[:2])
    assert first.endswith("cardzoo train all_fours") and "pip install -q torch==2.13.0" in first
    assert 'pip install -q -e ".[train]"' in first
    assert second.endswith("python -m pytest -q") and '".[test]"' in second
    assert README.index(first) < README.index("cardzoo is a multi-agent")


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text()
    line = next(x.strip() for x in ci.splitlines() if "pytest" in x and not x.lstrip().startswith("#"))
    assert line == _blocks()[1].strip()


def test_readme_layout_is_the_code_layout():
    from cardzoo import envs

    for game in envs.GAMES:
        assert envs.make(game).unwrapped.observation_layout() in README, game


def test_rules_documents_are_linked_and_self_contained():
    from cardzoo import envs

    for game in envs.GAMES:
        rel = f"envs/{game}/RULES.md"
        assert f"]({rel})" in README
        text = (ROOT / rel).read_text()
        assert "../shared" not in text and "## 10. Worked examples" in text
    assert "../shared" not in README

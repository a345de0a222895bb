"""Helpers shared by the env tests of every game."""

from __future__ import annotations


def random_steps(env, rng, n):
    """Take up to ``n`` uniformly random legal steps in a PettingZoo env (stops when the episode
    ends); returns the actions taken."""
    taken = []
    for _ in range(n):
        if any(env.terminations.values()) or any(env.truncations.values()):
            break
        a = int(rng.choice(env.legal_actions()))
        env.step(a)
        taken.append(a)
    return taken


def check_golden(generate, path, module: str) -> None:
    """Compare a seeded playthrough text (``generate()``) with the golden file ``path``.

    The playthrough must be deterministic; with ``CARDZOO_UPDATE_GOLDEN=1`` the file is rewritten
    first. A difference fails with a unified diff and how to regenerate (``python -m module --update``).
    """
    import difflib
    import os

    text = generate()
    assert text == generate(), "the seeded playthrough is not deterministic"
    if os.environ.get("CARDZOO_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    expected = path.read_text()
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), "golden", "now", n=1))
        raise AssertionError(
            f"playthrough differs from tests/golden/{path.name} "
            f"(regenerate with `python -m {module} --update` if intended):\n" + diff[:4000]
        )

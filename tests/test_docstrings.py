"""The public API keeps its docstrings (the project standard: "Public docstrings give shapes,
dtypes, units, errors and the RULES.md section they implement").

What is checked here is what can be checked mechanically:

- every public function, class, method and property of ``cardzoo.envs`` (the game modules, the
  games' packages and ``cardzoo.envs.core``), of ``cardzoo.agents`` and of the public entry points
  of ``cardzoo.training`` (:data:`TRAINING`; a module whose optional extra is not installed is
  left out) has a docstring (an override may inherit its base's, as ``inspect.getdoc`` shows it);
- every public function of ``envs/<game>/rules.py`` cites the RULES.md section it implements
  (a ``§``);
- every exception a public function or method of those packages raises itself (``raise
  ValueError(...)`` in its own source) is named in its docstring.

``envs/core/compiled.py`` (the compiled drivers, internal) is left out. Shapes and dtypes are
not checked here: whether a docstring states them needs reading it.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import cardzoo

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(cardzoo.GAMES)
#: the modules of cardzoo.training whose names people call: training (train, TrainConfig), the
#: arena, the leaderboard, exploit, the single-seat and SB3 vector envs, RLlib, imitation, expert
#: iteration, the privileged critic, the terminal game and the benchmarks
TRAINING = ("config", "selfplay", "arena", "leaderboard", "exploit", "single_agent", "vec_env", "rllib",
            "imitation", "expert", "privileged", "play", "bench")
RAISE = re.compile(r"^\s*raise\s+([A-Z]\w*(?:Error|Exception))\b", re.M)


def _modules() -> list[str]:
    mods = ["cardzoo.envs", "cardzoo.envs.core", "cardzoo.agents"]
    for game in GAMES:
        mods += [f"cardzoo.envs.{game}_v0", f"cardzoo.envs.{game}"]
        mods += [f"cardzoo.envs.{game}.{p.stem}" for p in sorted((ROOT / "envs" / game).glob("*.py")) if p.stem != "__init__"]
    mods += [f"cardzoo.envs.core.{p.stem}" for p in sorted((ROOT / "envs" / "core").glob("*.py"))
             if p.stem not in ("__init__", "compiled")]
    mods += [f"cardzoo.agents.{p.stem}" for p in sorted((ROOT / "agents").glob("*.py")) if p.stem != "__init__"]
    mods += [f"cardzoo.training.{m}" for m in TRAINING]
    return mods


def _plain(obj):
    """A numba dispatcher's Python function; anything else as is."""
    return getattr(obj, "py_func", obj)


def public_api() -> dict[str, object]:
    """qualified name -> object: the public functions and classes each module defines (or lists in
    ``__all__``), and the public methods and properties each such class defines itself."""
    out: dict[str, object] = {}
    for m in _modules():
        try:
            mod = importlib.import_module(m)
        except ImportError:  # a training module whose extra (train, rllib) is not installed
            if m.startswith("cardzoo.training."):
                continue
            raise
        listed = set(getattr(mod, "__all__", ()))
        for name, obj in list(vars(mod).items()):
            obj = _plain(obj)
            if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if getattr(obj, "__module__", None) != m and name not in listed:
                continue  # imported from elsewhere: checked where it is defined
            if not str(getattr(obj, "__module__", "")).startswith("cardzoo."):
                continue
            q = f"{obj.__module__}.{obj.__qualname__}"
            out[q] = obj
            if inspect.isclass(obj):
                for an, av in vars(obj).items():
                    if an.startswith("_"):
                        continue
                    f = av.__func__ if isinstance(av, (staticmethod, classmethod)) else av
                    if inspect.isfunction(f) or isinstance(f, property):
                        out[f"{q}.{an}"] = (obj, an, f)
    return out


def _doc(entry) -> str:
    if isinstance(entry, tuple):  # (class, name, member): an override may inherit the base's docstring
        cls, name, member = entry
        if isinstance(member, property):
            return inspect.getdoc(member) or ""
        return inspect.getdoc(getattr(cls, name)) or ""
    return entry.__dict__.get("__doc__") or "" if inspect.isclass(entry) else inspect.getdoc(entry) or ""


def _function(entry):
    f = entry[2] if isinstance(entry, tuple) else entry
    f = f.fget if isinstance(f, property) else f
    return f if inspect.isfunction(f) else None


API = public_api()


def test_every_public_name_has_a_docstring():
    missing = sorted(q for q, entry in API.items() if not _doc(entry).strip())
    assert not missing, f"{len(missing)} public names without a docstring: {missing}"


def test_every_exception_raised_is_named_in_the_docstring():
    unnamed = []
    for q, entry in API.items():
        f = _function(entry)
        if f is None:
            continue
        try:
            src = inspect.getsource(f)
        except (OSError, TypeError):
            continue
        doc = _doc(entry)
        raised = sorted({e for e in RAISE.findall(src) if e not in doc})
        if raised:
            unnamed.append(f"{q}: {raised}")
    assert not unnamed, f"exceptions raised but not named in the docstring: {unnamed}"


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_function_cites_its_rules_section(game):
    """The public functions of ``envs/<game>/rules.py`` implement RULES.md: each names its ``§``."""
    mod = importlib.import_module(f"cardzoo.envs.{game}.rules")
    rules = [(n, _plain(o)) for n, o in vars(mod).items() if not n.startswith("_") and inspect.isfunction(_plain(o))
             and _plain(o).__module__ == mod.__name__]
    assert rules
    uncited = sorted(n for n, f in rules if "§" not in (f.__doc__ or ""))
    assert not uncited, f"{game}/rules.py functions citing no RULES.md section: {uncited}"
    sections = {int(x) for x in re.findall(r"^##\s+(\d+)\.", (ROOT / "envs" / game / "RULES.md").read_text(), re.M)}
    for n, f in rules:
        for cited in re.findall(r"§\s*(\d+)", f.__doc__):
            assert int(cited) in sections, f"{game}/rules.py {n} cites §{cited}, which RULES.md has not"

"""One installed package, ``cardzoo``, with lean layers: the environments import no training or
web library, a missing extra is named, nothing but ``cardzoo`` goes to site-packages' top level,
and a user's own ``agents/`` or ``envs/`` folder cannot shadow ours."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import numpy as np
import pytest

import cardzoo

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _run(code: str, cwd=None, env_extra=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_package_list_matches_the_folders():
    """pyproject lists every package folder under ``cardzoo.`` (a new folder cannot be forgotten)."""
    on_disk = {"cardzoo"} | {
        "cardzoo." + ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("envs", "agents", "training")
        for p in (ROOT / top).rglob("__init__.py")
    }
    assert set(PYPROJECT["tool"]["setuptools"]["packages"]) == on_disk
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {"cardzoo": "."}


def test_no_import_uses_the_old_top_level_names():
    pattern = re.compile(r"^\s*(from|import)\s+(envs|agents|training)\b", re.M)
    offenders = [
        str(p.relative_to(ROOT))
        for top in ("envs", "agents", "training", "tests", "notebooks")
        for p in (ROOT / top).rglob("*")
        if p.suffix in (".py", ".ipynb") and pattern.search(p.read_text().replace('\\n"', "\n").replace('"', ""))
    ]
    assert offenders == []


def test_base_dependencies_are_the_environments_only():
    deps = {re.split(r"[<>=!~ \[]", d, maxsplit=1)[0] for d in PYPROJECT["project"]["dependencies"]}
    assert deps == {"numpy", "gymnasium", "pettingzoo", "numba"}
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {"train", "web", "test", "all"} <= set(extras)
    assert any(d.startswith("torch") for d in extras["train"])
    assert any(d.startswith("fastapi") for d in extras["web"])


def test_playing_every_game_imports_no_training_or_web_library():
    code = """
import sys, numpy as np, gymnasium, cardzoo
from cardzoo.envs import all_fours_v0
for game in cardzoo.GAMES:
    env = cardzoo.make(game)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
g = gymnasium.make("cardzoo/AllFours-v0", seat=0)
g.reset(seed=0)
cardzoo.load_agent("all_fours/rule")
v = cardzoo.make_vec("all_fours", 4, opponents="all_fours/rule", seed=0)
obs, info = v.reset()
v.step(info["action_mask"].argmax(axis=1))
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "stable_baselines3", "sb3_contrib", "fastapi", "uvicorn", "starlette", "matplotlib", "tensorboard"})
print("HEAVY", heavy)
"""
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert "HEAVY []" in out.stdout


def test_entry_points_of_the_package():
    assert set(cardzoo.GAMES) == {"all_fours", "aluette", "avinas", "ottocento", "pyanitsa"}
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", cardzoo.__version__)
    for game in cardzoo.GAMES:
        module = getattr(cardzoo.envs, f"{game}_v0")
        assert callable(module.env) and callable(module.raw_env)
        assert type(cardzoo.make(game)) is type(module.env())
        assert cardzoo.kernel(game).name == game
    agent = cardzoo.load_agent("all_fours/rule")
    k = cardzoo.kernel("all_fours")
    st = k.init(np.random.default_rng(0), 8)
    mask = k.legal_actions(st)
    actions = agent.act(k.observe(st, st.current_player), mask)
    assert actions.shape == (8,) and mask[np.arange(8), actions].all()
    with pytest.raises(ValueError, match="unknown game 'bridge'.*available games"):
        cardzoo.make("bridge")
    with pytest.raises(ValueError, match="colour"):
        cardzoo.make("all_fours", colour="red")


def test_gymnasium_ids_make_single_seat_envs():
    import gymnasium

    for game, gym_id in cardzoo.GYM_IDS.items():
        env = gymnasium.make(gym_id, seat=1)
        obs, info = env.reset(seed=3)
        assert obs.shape == env.observation_space.shape and obs.dtype == env.observation_space.dtype
        assert info["action_mask"].shape == (env.action_space.n,)
        assert env.unwrapped.aec.metadata["name"].startswith(game), gym_id
        env.close()


def test_version_flag():
    out = subprocess.run([sys.executable, "-m", "cardzoo.training.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"cardzoo {cardzoo.__version__}"


def test_missing_extra_is_named_without_traceback():
    """A command that needs an extra that is not installed names it and exits 2 (torch hidden here)."""
    code = """
import sys
sys.modules["torch"] = None
from cardzoo.training.cli import main
sys.exit(main(["train", "all_fours", "--steps", "1000", "--out", sys.argv[1] if len(sys.argv) > 1 else "/nonexistent/x"]))
"""
    out = _run(code)
    assert out.returncode == 2, out.stderr
    assert 'pip install "cardzoo[train]"' in out.stderr and "Traceback" not in out.stderr
    code = """
import sys
sys.modules["torch"] = None
import cardzoo
try:
    cardzoo.load_agent("all_fours/ppo")
except cardzoo.MissingExtraError as e:
    print("EXTRA", e.extra, e)
"""
    out = _run(code)
    assert "EXTRA train" in out.stdout and 'pip install "cardzoo[train]"' in out.stdout, out.stderr


def test_user_folders_named_agents_and_envs_do_not_shadow_ours(tmp_path):
    for name in ("agents", "envs", "training"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"raise ImportError('the user\\'s own {name} was imported')\n")
    code = f"""
import sys
sys.path.insert(0, {str(tmp_path)!r})
import cardzoo.training.arena as arena
res = arena.play_duplicate("all_fours", "all_fours/rule", "random", 8, seed=0)
print("OK", round(res.mean_diff, 6))
"""
    out = _run(code, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("OK")


@pytest.mark.slow
def test_wheel_installs_only_cardzoo(tmp_path):
    """The built wheel holds ``cardzoo/...`` and its dist-info only, with the shipped agents, the
    rules pages, the web front end and the LICENSE."""
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr
    (wheel,) = tmp_path.glob("cardzoo-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"cardzoo", f"cardzoo-{cardzoo.__version__}.dist-info"}
    for must in (
        "cardzoo/__init__.py",
        "cardzoo/envs/all_fours/RULES.md",
        "cardzoo/agents/shipped/all_fours_ppo/weights.safetensors",
        "cardzoo/agents/shipped/all_fours_ppo/ppo_stage/agent.json",
        "cardzoo/training/web/static/index.html",
        "cardzoo/training/web/i18n/id.json",
    ):
        assert must in names, must
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert not any(n.startswith("cardzoo/tests/") or n.startswith("cardzoo/.") for n in names)


def test_without_the_train_extra_the_rule_bot_is_the_default_and_the_arena_runs():
    """No torch (and no tqdm): the default AI falls back to the rule bot, saying why, and the arena's
    Python API plays rule bots without a progress bar."""
    code = """
import sys
sys.modules["torch"] = None
sys.modules["tqdm"] = None
from cardzoo.training.common import default_agent
from cardzoo.training.arena import play_duplicate, round_robin
name, note = default_agent("all_fours")
print("DEFAULT", name, "[train]" in note)
r = play_duplicate("all_fours", "all_fours/rule", "random", 6, seed=1)
print("ARENA", r.n_deals)
rr = round_robin("all_fours", ["all_fours/rule", "random"], 4, seed=1)
print("RR", sorted(rr.names))
"""
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert "DEFAULT all_fours/rule True" in out.stdout and "ARENA 6" in out.stdout
    assert "RR ['all_fours/rule', 'random']" in out.stdout


def test_no_module_of_the_package_imports_itself_back_through_a_circle():
    """The import graph of cardzoo's modules has no cycle (imports inside functions count; imports
    under ``if TYPE_CHECKING:`` do not): e.g. a kernel does not import its renderer back, the web
    table's sessions do not import their views back."""
    import ast
    from pathlib import Path

    root = Path(cardzoo.__file__).parent
    modules = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if rel.parts[0] in ("tests", "notebooks", "build", ".venv") or any(p.startswith(".") for p in rel.parts):
            continue
        name = ".".join(("cardzoo", *rel.with_suffix("").parts)).removesuffix(".__init__")
        modules[name] = path

    def imports(name, path):
        tree = ast.parse(path.read_text())
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        skip = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skip.update(id(n) for n in ast.walk(node))
        out = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = pkg.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                out.add(base)
                out.update(f"{base}.{a.name}" for a in node.names)
        return {m for m in out if m in modules and m != name}

    graph = {n: imports(n, p) for n, p in modules.items()}
    # package __init__ re-exports are fine; look for cycles among plain modules
    plain = {n for n, p in modules.items() if p.name != "__init__.py"}
    state, cycles = {}, []

    def visit(n, stack):
        state[n] = 1
        for m in graph[n] & plain:
            if state.get(m) == 1:
                cycles.append(stack[stack.index(m):] + [m])
            elif m not in state:
                visit(m, stack + [m])
        state[n] = 2

    for n in sorted(plain):
        if n not in state:
            visit(n, [n])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)

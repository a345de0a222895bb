"""Leaderboards: a round robin of a game's agents on the published deal set "cardzoo-bench v1".

``cardzoo leaderboard GAME [AGENTS...] --deals N --seed S --out DIR`` (``training/LEADERBOARD.md``
documents the deal set and shows the leaderboards of the shipped agents). Every pair of agents
plays :func:`cardzoo.training.arena.play_duplicate` on the same deals (with 3 or 4 P'yanitsa players, in both
orientations: each agent alone against copies of the other); each pairing's result is
cached in ``DIR/pairs/`` as soon as it is done, so an interrupted run resumes where it stopped.
The outputs are ``DIR/leaderboard.md``, ``leaderboard.json`` and ``leaderboard.png``: the
head-to-head matrix (mean score difference per episode, in the game's terms, with its 95% CI, and the pairwise win rate)
and Bradley-Terry ratings on the Elo scale with bootstrap 95% CIs.

The deal set **cardzoo-bench v1** of a game: deal ``i`` (``i = 0 .. N-1``) is dealt and played
with the random streams keyed ``(BENCH_SEED, i)`` (:class:`cardzoo.envs.core.chance.RowStreams`:
``numpy.random.default_rng([BENCH_SEED, i, crc32(kind)])`` for each kind of chance), under the
game's default options unless options are given. ``BENCH_SEED = 20261201``. A larger ``N``
extends a smaller set (the first ``N`` deals are the same). :func:`fingerprint` hashes the
first 64 deals so that a reader can check they play the same set (the values of v1 are in
``training/LEADERBOARD.md`` and tested).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
from cardzoo import agents as agent_registry
from cardzoo import envs
from cardzoo.agents.external import ExecAgent

from . import arena
from .common import api_error

__all__ = ["BENCH_NAME", "BENCH_SEED", "default_agents", "fingerprint", "run_leaderboard"]

BENCH_NAME = "cardzoo-bench v1"
BENCH_SEED = 20261201
_FINGERPRINT_DEALS = 64


def fingerprint(game: str, seed: int = BENCH_SEED, env_options: dict | None = None) -> str:
    """First 16 hex digits of the SHA-256 of the full state (``Kernel.global_state``) of deals
    ``0..63`` of the deal set ``seed`` right after the deal: equal fingerprints, equal deals."""
    k = envs.kernel(game, **dict(env_options or {}))
    st = k.init(arena.deal_streams(seed, 0, _FINGERPRINT_DEALS), _FINGERPRINT_DEALS)
    return hashlib.sha256(np.ascontiguousarray(k.global_state(st)).tobytes()).hexdigest()[:16]


def default_agents(game: str) -> list[str]:
    """The game's registered agents for a leaderboard: ``random``, ``GAME/rule``, ``GAME/ppo`` and
    ``GAME/pimc`` where they exist (in that order)."""
    names = agent_registry.available()
    return ["random"] + [f"{game}/{k}" for k in ("rule", "ppo", "pimc") if f"{game}/{k}" in names]


def _slug(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")
    return (s[:40] + "-" + hashlib.sha1(name.encode()).hexdigest()[:8]) if len(s) > 40 or s != name else s


def _pair_file(out: Path, a: str, b: str) -> Path:
    return out / "pairs" / f"{_slug(a)}__vs__{_slug(b)}.json"


def _write_json(path: Path, payload: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        tmp.write_text(arena.json_text(payload, indent=1))  # an undefined CI (1 deal): null
        os.replace(tmp, path)
    except BaseException:  # Ctrl-C or a full disk mid-write: no half-written .tmp is left beside the cache
        tmp.unlink(missing_ok=True)
        raise


def _agent_identity(name: str) -> str | None:
    """First 16 hex digits of the SHA-256 of the files of a saved agent named by its path (its folder or
    file), so a cached pairing is not reused for another agent saved at the same path; ``None`` for a
    registered name, an entry point or an ``exec:`` bot (nothing on disk to compare)."""
    p = Path(name)
    if name.startswith("exec:") or not p.exists():
        return None
    files = [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.is_file())
    h = hashlib.sha256()
    for f in files:
        h.update(f.relative_to(p).as_posix().encode() if p.is_dir() else f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _load_pair(path: Path, meta: dict, names: tuple[str, str] = ("", ""), identity=(None, None)) -> dict | None:
    if not path.exists():
        return None
    try:
        d = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"cached pairing {path} is damaged ({e}); delete it to replay that pairing") from None
    if d.get("meta") != meta:  # say what differs, not both whole settings dicts (about 250 characters of Python)
        was = d.get("meta") if isinstance(d.get("meta"), dict) else {}
        words = {"benchmark": "deal set", "game": "game", "seed": "seed", "n_deals": "deals", "env_options": "options"}
        diff = "; ".join(f"{words.get(k, k)} {json.dumps(was.get(k))}, not {json.dumps(meta.get(k))}"
                         for k in [*meta, *(k for k in was if k not in meta)] if was.get(k) != meta.get(k))
        said = lambda what: (f"{path} holds a pairing played with other settings ({diff}): {what} "  # noqa: E731
                             "(a leaderboard folder holds one game, deal set, deal count and option set)")
        raise api_error(ValueError, said(_OTHER_OUT), said(_OTHER_OUT_CLI))
    for name, was, now in zip(names, d.get("identity") or (None, None), identity):
        if was is not None and now is not None and was != now:
            said = (f"{path} was played by another agent saved at {name} (its files have changed since: {was} -> {now}); "
                    "delete that file to play the pairing again with the agent there now, or ")
            raise api_error(ValueError, said + _OTHER_OUT, said + _OTHER_OUT_CLI)
    return d


#: what to do with an ``out`` folder that holds other pairings: the Python caller is told the keyword, ``cardzoo
#: leaderboard`` the flag (``cli_message``, which the command prints instead)
_OTHER_OUT, _OTHER_OUT_CLI = "give another folder as out", "use another --out folder"


def check_agent_names(agent_names, game: str = "all_fours") -> list[str] | None:
    """``agent_names`` of :func:`run_leaderboard` as a list of names (``None`` for none given: the defaults).

    A list or tuple of names (``str``; a saved agent's path may be a ``pathlib.Path``, kept as its text). One
    string is refused, not read letter by letter ("unknown agent 'r'"): ``cardzoo leaderboard`` takes the names
    as separate arguments and passes a list. An agent object is refused too: the board plays agents by name and
    caches each pairing under the two names, so that a later run resumes it. ``ValueError`` naming
    ``agent_names``, what was wrong and what is valid."""
    if agent_names is None:
        return None
    example = f"e.g. ['random', '{game}/rule']"
    if isinstance(agent_names, (str, os.PathLike)):
        raise ValueError(f"agent_names={agent_names!r} is one {'string' if isinstance(agent_names, str) else 'path'}: give a "
                         f"list of agent names, {example} (a leaderboard needs at least 2)")
    if not isinstance(agent_names, (list, tuple)):
        raise ValueError(f"agent_names must be a list of agent names, {example}, got {type(agent_names).__name__} {agent_names!r}")
    names = []
    for n in agent_names:
        if isinstance(n, os.PathLike):
            n = os.fspath(n)
        if not isinstance(n, str):
            raise ValueError(f"agent_names must hold agent names (registry names, paths, entry points or exec:COMMAND), "
                             f"got {type(n).__name__} {n!r}: the leaderboard loads every agent by its name and caches each "
                             f"pairing under the two names, so that a later run resumes it ({example})")
        if not n.strip():
            raise ValueError(f"agent_names holds {n!r}, an empty name: give agent names, {example}")
        names.append(n)
    return names


def check_out(out, game: str, name: str = "out") -> Path:
    """``out`` (the leaderboard's folder, called ``name``: ``out`` or ``--out``) as a ``Path``; an empty
    path or an existing file raises ``ValueError`` naming it (it is a folder, made if missing), a path no
    folder can be made at (``/proc/x``) ``OSError``."""
    example = f"{name} runs/leaderboard/{game}" if name.startswith("--") else f"runs/leaderboard/{game}"
    if isinstance(out, str) and not out.strip():  # Path("") is the current folder: never meant
        raise ValueError(f"{name} {out!r} is an empty path: give the folder to write, e.g. {example}")
    path = Path(out)
    for p in (path, *path.parents):
        if p.exists() and not p.is_dir():
            where = "it is a file" if p == path else f"{str(p)!r} is a file"
            raise ValueError(f"{name} {str(out)!r} is not a folder ({where}): {name} is the folder the leaderboard writes "
                             f"leaderboard.md, .json, .png and pairs/ to, e.g. {example}")
    from .common import check_can_write

    check_can_write(path, name, makes_folder=True)  # /proc/x: refused before any agent loads
    return path


def run_leaderboard(
    game: str,
    agent_names: list[str] | None,
    n_deals: int,
    out,
    seed: int = BENCH_SEED,
    batch: int = 256,
    env_options: dict | None = None,
    n_boot: int = 1000,
    exec_timeout: float | None = None,
    progress: bool = True,
    force_agent: bool = False,
    say=None,
) -> dict:
    """Play (or resume) the round robin and write ``leaderboard.md/.json/.png`` to ``out``.

    Args:
        game: a name of ``envs.GAMES``.
        agent_names: a list (or tuple) of agents by registry name, path (a ``pathlib.Path`` too), entry-point
            name or ``exec:COMMAND`` (default :func:`default_agents`); at least 2, all different. One string
            and agent objects are refused (:func:`check_agent_names`): pairings are cached by name.
        n_deals: deals per pairing (each played once per side); seed: the deal set (default the
            cardzoo-bench v1 seed); batch: deals played at once (speed only).
        out: the folder (created once every agent still to play has loaded); pairings already
            cached there are not replayed; a pairing in which an ``exec:`` bot faulted is not cached, and
            the bot is marked "(faulted)" in ``leaderboard.md``, with a note naming the pairings and its
            first fault (``leaderboard.json``: ``faulted``, agent -> its ``pairings`` and ``faults``): from
            a fault on it played the lowest legal action, so its rating is not the bot's.
        n_boot: bootstrap resamples of the deals for the rating CIs.
        exec_timeout: seconds an ``exec:`` bot has for each answer (default 10; a positive number of at
            most a day, :func:`~cardzoo.training.common.check_exec_timeout`).
        force_agent: play a trained agent also under options other than those it was trained for
            (refused otherwise, naming the options it was trained for: a board has no rule bot to seat
            in its place; :func:`cardzoo.training.common.check_fits`). Without ``agent_names``, a
            default ``GAME/ppo`` that does not fit these options is left out, and ``say`` (e.g.
            ``print``; ``None``: silent) is told why.

    Returns the JSON payload written to ``leaderboard.json``.

    Raises ``ValueError`` for bad arguments (naming the argument: ``agent_names``, ``n_deals``, ``batch``, ``seed``,
    ``n_boot``, ``exec_timeout``; ``out`` empty or a file, :func:`check_out`), an unknown agent, or a folder holding results
    of another game / deal set / deal count / option set (its message names ``out``; its ``cli_message``, ``--out``); ``TypeError`` for ``env_options`` that is not a dict.
    """
    from tqdm.auto import tqdm

    from .common import check_exec_timeout, check_fits, check_game_options, resolve_agent

    agent_names = check_agent_names(agent_names, game)  # one string was read letter by letter ("unknown agent 'r'")
    env_options = arena.check_env_options(env_options)
    check_game_options(game, env_options, agent_names or ())  # bad game or options fail here
    n_sides = len(envs.kernel(game, **env_options).sides())
    n_deals, batch = arena.check_count(n_deals, "n_deals"), arena.check_count(batch, "batch")
    seed, n_boot = arena.check_deal_seed(seed), arena.check_count(n_boot, "n_boot", 0)
    exec_timeout = check_exec_timeout(exec_timeout)  # -1 and "x" were taken (without an exec: bot, silently)
    how = "or force_agent=True (cardzoo leaderboard --force-agent) to play it anyway"

    def load(name, i):
        import warnings

        from cardzoo.agents.options import OptionsMismatchWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptionsMismatchWarning)  # check_fits refuses it, or says so
            a = resolve_agent(name, env_options, seed=int(seed) + i, game=game, exec_timeout=exec_timeout)
        note = check_fits(a, name, game, env_options, force=force_agent, how=how)
        if note and say is not None:
            say(f"note: {note}")
        return a

    loaded: dict[int, Any] = {}
    if agent_names:
        names = list(agent_names)
    else:  # the defaults: a shipped GAME/ppo only where it was trained for these options
        names = []
        for name in default_agents(game):
            if name == f"{game}/ppo":
                try:
                    found = load(name, len(names))
                except ValueError as e:  # other options, or another observation layout
                    if say is not None:
                        say(f"note: {name} is left out of the default agents: {e}")
                    continue
                loaded[len(names)] = found
            names.append(name)
    if len(names) < 2:
        raise ValueError(f"a leaderboard needs at least 2 agents, got {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"agents must be different, got {names}")
    out = check_out(out, game)
    meta = {"benchmark": BENCH_NAME if int(seed) == BENCH_SEED else f"custom deal set (seed {int(seed)})",
            "game": game, "seed": int(seed), "n_deals": int(n_deals), "env_options": env_options}
    # with two sides a pairing measures both agents (B's result is minus A's); with 3 or 4 (P'yanitsa) it seats A
    # alone against copies of B, which says nothing of B alone against copies of A: both orientations are played
    pairs = list(itertools.combinations(range(len(names)), 2) if n_sides == 2 else itertools.permutations(range(len(names)), 2))
    identity = [_agent_identity(n) for n in names]  # a saved agent's files: a cached pairing of another agent is refused
    cached = {(i, j): _load_pair(_pair_file(out, names[i], names[j]), meta, (names[i], names[j]), (identity[i], identity[j]))
              for i, j in pairs}
    # every pairing file of the folder, not only this run's pairs: another game's or deal set's board has files of
    # other names, and its leaderboard.md/json/png would be overwritten with a board that is neither
    named = {_pair_file(out, names[i], names[j]) for i, j in pairs}
    for path in sorted((out / "pairs").glob("*.json")) if (out / "pairs").is_dir() else ():
        if path not in named:
            _load_pair(path, meta)
    todo = [p for p in pairs if cached[p] is None]
    # a stochastic agent (random, a search) is built with seed + its place in the list of agents: a pairing cached
    # when it stood elsewhere in the list is not the pairing this command plays (a fresh run would differ)
    from cardzoo.agents.registry import takes_seed

    seeds = [int(seed) + x if takes_seed(n) else None for x, n in enumerate(names)]
    for (i, j), d in cached.items():
        for x, was in zip((i, j), (d or {}).get("seeds") or (None, None)):
            if was is not None and seeds[x] is not None and was != seeds[x]:
                said = (
                    f"{_pair_file(out, names[i], names[j])} was played with {names[x]} built with seed {was} (the seed plus "
                    f"its place, {was - int(seed)}, in the list of agents then); here it is at place {x} (seed {seeds[x]}), "
                    "so that pairing is not what this command plays: give the agents in the order of the earlier run "
                    "(new ones at the end), or "
                )
                raise api_error(ValueError, said + _OTHER_OUT, said + _OTHER_OUT_CLI)
    other_batch = sorted({d["batch"] for d in cached.values() if d is not None and d.get("batch", batch) != batch})
    if other_batch and say is not None:  # deterministic agents play the same for any batch; stochastic ones do not
        say(f"note: cached pairings in {out / 'pairs'} were played with batch {', '.join(map(str, other_batch))}, this run "
            f"plays with {batch}: a pairing of a stochastic agent (random, GAME/pimc, GAME/ismcts) depends on it "
            "(ARENA.md#exact-duplicates); give the same --batch to reproduce the board")

    def agent(i):
        if i not in loaded:
            loaded[i] = load(names[i], i)
        return loaded[i]

    for i in sorted({x for p in todo for x in p}):  # every agent still to play loads before anything is written
        agent(i)
    (out / "pairs").mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    bar = tqdm(total=len(todo) * int(n_deals), desc=f"{game} leaderboard ({len(pairs) - len(todo)}/{len(pairs)} pairings cached)",
               unit="deal", disable=not progress)
    try:
        for i, j in todo:
            bar.set_postfix_str(f"{names[i]} vs {names[j]}")
            before = {x: len(agent(x).faults) for x in (i, j) if isinstance(agent(x), ExecAgent)}
            r = arena.play_duplicate(game, agent(i), agent(j), n_deals, seed=seed, batch=batch, env_options=env_options,
                                     name_a=names[i], name_b=names[j], on_chunk=bar.update)
            d = {"meta": meta, "result": r.to_dict(), "deal_diff": r.deal_diff.tolist(), "deal_win": r.deal_win.tolist(),
                 "seconds": time.monotonic() - t0, "identity": [identity[i], identity[j]], "batch": int(batch),
                 "seeds": [seeds[i], seeds[j]]}
            # which bot faulted (the result's faults are both bots'): from its fault on it played the lowest legal action
            faulted = {names[x]: agent(x).faults[n:] for x, n in before.items() if len(agent(x).faults) > n}
            if faulted:
                d["faulted"] = faulted
            if not r.faults:  # a pairing in which a bot faulted is reported but not kept: fix the bot, run again
                _write_json(_pair_file(out, names[i], names[j]), d)
            cached[(i, j)] = d
            t0 = time.monotonic()
    except KeyboardInterrupt:
        import sys

        bar.close()
        kept = sum(_pair_file(out, names[i], names[j]).is_file() for i, j in pairs)
        print(f"\ninterrupted: {kept} of {len(pairs)} pairings are cached in {out / 'pairs'}; run the same command again "
              "(with the same --batch) to play the others", file=sys.stderr)
        raise
    finally:
        bar.close()
        for ag in loaded.values():
            if isinstance(ag, ExecAgent):  # stop the bot's process
                ag.close()
    payload = _summarize(game, names, cached, meta, int(n_boot), env_options, progress)
    _write_json(out / "leaderboard.json", payload)
    (out / "leaderboard.md").write_text(markdown(payload))
    plot(payload, out / "leaderboard.png")
    return payload


def _summarize(game, names, cached, meta, n_boot, env_options, progress: bool = False) -> dict:
    K = len(names)
    n = meta["n_deals"]
    k = envs.kernel(game, **env_options)
    sides = len(k.sides())
    diff = {(i, j): np.asarray(d["deal_diff"]) for (i, j), d in cached.items()}
    win = {(i, j): np.asarray(d["deal_win"]) for (i, j), d in cached.items()}

    def wins(idx):  # with 3 or 4 sides both orientations of a pair are played: their games add up
        w = np.zeros((K, K))
        for (i, j), dw in win.items():
            won = float(dw[idx].sum()) * sides
            w[i, j] += won
            w[j, i] += len(idx) * sides - won
        return w

    ratings = arena.bradley_terry(wins(np.arange(n)))
    ci = arena.rating_ci(wins, K, n, meta["seed"], n_boot, progress=progress)  # NaN (null, "n/a (1 deal)") with 1 deal
    matrix = {a: {} for a in names}
    for (i, j), d in cached.items():
        r = d["result"]
        m, lo, hi = arena.mean_ci(diff[(i, j)]) if n > 1 else (float(diff[(i, j)].mean()), math.nan, math.nan)
        matrix[names[i]][names[j]] = {"mean_diff": m, "diff_ci": [lo, hi], "win_rate": r["win_rate"], "win_ci": r["win_ci"]}
        if (j, i) in cached:  # 3 or 4 sides: the column agent's own pairing alone against copies of the row agent
            continue
        matrix[names[j]][names[i]] = {"mean_diff": -m if k.zero_sum else None, "diff_ci": [-hi, -lo] if k.zero_sum else None,
                                      "win_rate": 1.0 - r["win_rate"], "win_ci": _flip(r["win_ci"])}
    order = np.argsort(-ratings)
    faulted: dict[str, dict] = {}  # agent -> the pairings in which it faulted and its faults (pairings of this run only)
    for (i, j), d in cached.items():
        for name, faults in (d.get("faulted") or {}).items():
            entry = faulted.setdefault(name, {"pairings": [], "faults": []})
            other = names[j] if name == names[i] else names[i]
            if other not in entry["pairings"]:  # with 3 or 4 sides a pair is played in both orientations
                entry["pairings"].append(other)
            entry["faults"].extend(faults)
    return {
        **meta,
        "deal_set": {"name": meta["benchmark"], "seed": meta["seed"], "deals": f"0..{n - 1}",
                     "fingerprint": fingerprint(game, meta["seed"], env_options),
                     "definition": "deal i uses the random streams numpy.random.default_rng([seed, i, crc32(kind)]) "
                                   "for kind in deal/redeal/dealer/play (cardzoo.envs.core.chance)"},
        "null_win_rate": float(k.null_win_rate),
        "n_boot": int(n_boot),
        "batch": sorted({d["batch"] for d in cached.values() if "batch" in d}),  # the --batch of the pairings (older: unknown)
        "agents": names,
        "ratings": [{"rank": r + 1, "agent": names[i], "rating": float(ratings[i]), "ci": [float(ci[i, 0]), float(ci[i, 1])]}
                    for r, i in enumerate(order)],
        "matrix": matrix,
        "faulted": faulted,
        "pairs": [d["result"] for d in cached.values()],
        "seconds": float(sum(d.get("seconds", 0.0) for d in cached.values())),
        "cardzoo_version": _version(),
    }


def _flip(ci) -> list:
    """The column agent's win-rate CI from the row agent's ``ci``: ``[1 - hi, 1 - lo]``; an undefined
    one (NaN, or ``null`` in a cached pair file: 1 deal) stays undefined."""
    lo, hi = ci
    return [math.nan, math.nan] if lo is None or hi is None else [1.0 - hi, 1.0 - lo]


def _version() -> str:
    import cardzoo

    return cardzoo.__version__


def markdown(p: dict) -> str:
    """``leaderboard.md`` text of a payload from :func:`run_leaderboard`."""
    names = [r["agent"] for r in p["ratings"]]
    faulted = p.get("faulted") or {}

    def label(n: str) -> str:  # an exec: bot that faulted is marked wherever it is named (see the note below the ratings)
        return f"`{n}` (faulted)" if n in faulted else f"`{n}`"

    opts = ", ".join(f"{k}={v}" for k, v in p["env_options"].items()) or "default options"
    lines = [
        f"# {p['game']} leaderboard ({p['deal_set']['name']})",
        "",
        (f"{p['n_deals']} duplicate deal{'' if p['n_deals'] == 1 else 's'} per pairing (deals {p['deal_set']['deals']} of seed {p['seed']}, "
         f"fingerprint `{p['deal_set']['fingerprint']}`), {opts}; cardzoo {p['cardzoo_version']}."),
        "",
        "## Ratings (Bradley-Terry on pairwise win rates, Elo scale, mean 0; bootstrap 95% CI over deals)",
        "",
        "| rank | agent | rating | 95% CI |",
        "|---:|---|---:|---:|",
    ]
    for r in p["ratings"]:
        ci = ("n/a (no bootstrap: --boot 0)" if p.get("n_boot") == 0 and p["n_deals"] > 1  # not "n/a (N deals)": N deals do have a spread
              else arena.ci_text(*r['ci'], '+.0f', p['n_deals']))
        lines.append(f"| {r['rank']} | {label(r['agent'])} | {arena.num_text(r['rating'], '+.0f')} | {ci} |")
    for name, f in faulted.items():
        n = len(f["faults"])
        lines += ["", f"**Faulted**: `{name}` faulted in its pairing{'' if len(f['pairings']) == 1 else 's'} with "
                      f"{', '.join(f'`{o}`' for o in f['pairings'])} ({n} fault{'' if n == 1 else 's'}; the first: {f['faults'][0]}). "
                      "From a fault on, the bot is stopped and the lowest legal action is played in its place for the rest of "
                      "the pairing, so these results and its rating are not the bot's own. A pairing with a fault is not "
                      "cached: fix the bot and run the same command again to replay it."]
    ep = envs.kernel(p["game"], **p["env_options"]).episode_name
    n_sides = p["pairs"][0].get("n_sides", 2) if p["pairs"] else 2
    if n_sides > 2:
        lines += ["", f"With {n_sides} players each cell is the row agent alone against {n_sides - 1} copies of the column agent "
                      "(both orientations of every pair are played); the ratings count the games of both."]
    lines += ["", f"## Head to head: mean score difference per {ep}, row minus column (95% CI)", "",
              "| | " + " | ".join(label(n) for n in names) + " |", "|---|" + "---:|" * len(names)]
    for a in names:
        cells = []
        for b in names:
            c = p["matrix"][a].get(b)
            cells.append("" if c is None or c["mean_diff"] is None
                         else f"{arena.num_text(c['mean_diff'], '+.3f')} {arena.ci_text(*c['diff_ci'], '+.3f', p['n_deals'])}")
        lines.append(f"| {label(a)} | " + " | ".join(cells) + " |")
    lines += ["", f"## Head to head: pairwise win rate of the row agent (null {p['null_win_rate']:.2f})", "",
              "| | " + " | ".join(label(n) for n in names) + " |", "|---|" + "---:|" * len(names)]
    for a in names:
        cells = []
        for b in names:
            c = p["matrix"][a].get(b)
            cells.append("" if c is None else f"{c['win_rate']:.3f} {arena.ci_text(*c['win_ci'], '.3f', p['n_deals'])}")
        lines.append(f"| {label(a)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(p: dict, path) -> None:
    """``leaderboard.png``: heatmap of the mean score difference (row minus column) with the CIs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["agent"] for r in p["ratings"]]
    K = len(names)
    m = np.full((K, K), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            c = p["matrix"][a].get(b)
            if c is not None and c["mean_diff"] is not None:
                m[i, j] = c["mean_diff"]
    lim = float(np.nanmax(np.abs(m))) if np.isfinite(m).any() else 1.0
    fig, ax = plt.subplots(figsize=(1.9 * K + 2.5, 1.3 * K + 1.8))
    im = ax.imshow(m, cmap="RdBu", vmin=-lim, vmax=lim)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            c = p["matrix"][a].get(b)
            if c is not None and c["mean_diff"] is not None:
                ax.text(j, i, f"{arena.num_text(c['mean_diff'], '+.3f')}\n{arena.ci_text(*c['diff_ci'], '+.3f', p['n_deals'])}",
                        ha="center", va="center", fontsize=8, color="white" if abs(c["mean_diff"]) > 0.6 * lim else "black")
    ax.set_xticks(range(K), [f"{n}" for n in names], rotation=30, ha="right")
    faulted = p.get("faulted") or {}
    ax.set_yticks(range(K), [f"{n} ({arena.num_text(r['rating'], '+.0f')}{', faulted' if n in faulted else ''})"
                             for n, r in zip(names, p["ratings"])])
    ep = envs.kernel(p["game"], **p["env_options"]).episode_name
    ax.set_title(f"{p['game']}: mean score difference per {ep}, row minus column\n"
                 f"{p['deal_set']['name']}, {p['n_deals']} deals per pairing (ratings in brackets)", fontsize=10)
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)

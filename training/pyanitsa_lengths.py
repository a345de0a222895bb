"""Game-length science for P'yanitsa (``cardzoo lengths``; RULES.md §6, training/STUDIES.md).

Plays many games per setting through the batched kernel with nobody deciding (every battle is
resolved with :meth:`~cardzoo.envs.pyanitsa.kernel.PyanitsaKernel.play_battle`, the same rules as
stepping ``FLIP``) and reports the distribution of battles per game: mean, median, p90, p99,
p99.9, max, the shares of cycles / cap truncations / draws, and the loser by seat. Exactly
``n_games`` games are started (finished slots are refilled until the quota is dealt, then the
batch drains), so the sample is not biased towards short games.
"""

from __future__ import annotations

import dataclasses
import json
import time

import numpy as np

from cardzoo import envs


@dataclasses.dataclass
class LengthResult:
    """Battles per game of one setting.

    Attributes:
        options: the env options of the setting.
        battles: ``int32[n]`` battles of each game (completed battles when it ended).
        outcome: ``int8[n]``: 0 decided (a loser), 1 cycle, 2 max_battles, 3 draw.
        losers: ``bool[n, P]`` the losing seat(s) of each game.
        seconds: wall time.
    """

    options: dict
    battles: np.ndarray
    outcome: np.ndarray
    losers: np.ndarray
    seconds: float

    def summary(self) -> dict:
        """Mean / median / percentiles / max of battles, outcome shares and loser share by seat."""
        b = self.battles.astype(np.float64)
        n = b.size
        decided = self.outcome == 0
        return {
            "options": dict(self.options),
            "games": int(n),
            "mean": float(b.mean()),
            "median": float(np.median(b)),
            "p90": float(np.percentile(b, 90)),
            "p99": float(np.percentile(b, 99)),
            "p99.9": float(np.percentile(b, 99.9)),
            "max": int(b.max()),
            "cycles": float((self.outcome == 1).mean()),
            "capped": float((self.outcome == 2).mean()),
            "draws": float((self.outcome == 3).mean()),
            "loser_by_seat": [float(x) for x in self.losers[decided].mean(axis=0)] if decided.any() else [],
            "seconds": round(self.seconds, 1),
            "games_per_s": round(n / self.seconds, 1),
        }


def run(n_games: int, batch: int = 4096, seed: int = 0, on_games=None, **options) -> LengthResult:
    """Play ``n_games`` games of P'yanitsa with ``options`` (any collect order but ``winner_chooses``).
    ``on_games`` (e.g. a progress bar's ``update``) is called with the number of games that ended
    after every battle in which some did.

    Raises ``ValueError`` for ``winner_chooses`` (it needs a policy), bad options or ``n_games < 1``.
    """
    if n_games < 1:
        raise ValueError(f"n_games must be >= 1, got {n_games}")
    k = envs.kernel("pyanitsa", **options)
    if k.choose:
        raise ValueError("collect_order='winner_chooses' needs a policy: measure it with the arena instead")
    rng = np.random.default_rng(seed)
    B = min(batch, n_games)
    st = k.init(rng, B)
    slot_game = np.arange(B)  # game number held by each slot
    started = B
    battles = np.zeros(n_games, dtype=np.int32)
    outcome = np.zeros(n_games, dtype=np.int8)
    losers = np.zeros((n_games, k.num_players), dtype=bool)
    t0 = time.perf_counter()
    while st.batch_size:
        k.play_battle(st, rng)
        d = st.done
        if d.any():
            g = slot_game[d]
            if on_games is not None:
                on_games(int(d.sum()))
            battles[g] = st.battles[d]
            outcome[g] = np.where(st.draw[d], 3, st.trunc_reason[d])
            losers[g] = st.loser[d]
            idx = np.flatnonzero(d)
            fresh = min(idx.size, n_games - started)
            if fresh:
                st.put(idx[:fresh], k.init(rng, fresh))
                slot_game[idx[:fresh]] = np.arange(started, started + fresh)
                started += fresh
            if fresh < idx.size:  # quota dealt: drop the finished slots
                keep = np.ones(st.batch_size, dtype=bool)
                keep[idx[fresh:]] = False
                st = st.take(keep)
                slot_game = slot_game[keep]
    return LengthResult(dict(options), battles, outcome, losers, time.perf_counter() - t0)


#: the settings of the table of training/STUDIES.md: 2/3/4 players, the fixed and random collect orders, both objectives
SETTINGS = [
    {"num_players": n, "collect_order": order, "objective": obj}
    for n in (2, 3, 4)
    for obj in ("last_holder_loses", "first_out_loses")
    for order in ("winner_first", "seat_order", "random")
    if not (n == 2 and obj == "first_out_loses")  # with 2 players the same games as variant 1
]


def markdown(rows: list[dict]) -> str:
    """The summaries as a Markdown table."""
    lines = [
        "| N | objective | collect order | games | mean | median | p90 | p99 | p99.9 | max | cycles | capped | draws | loser by seat |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        o = r["options"]
        obj = "variant 1" if o.get("objective", "last_holder_loses") == "last_holder_loses" else "variant 2"
        seats = " / ".join(f"{x:.3f}" for x in r["loser_by_seat"])
        lines.append(
            f"| {o.get('num_players', o.get('n_players', 2))} | {obj} | {o.get('collect_order', 'winner_first')} | {r['games']:,} | {r['mean']:.1f} "
            f"| {r['median']:.0f} | {r['p90']:.0f} | {r['p99']:.0f} | {r['p99.9']:.0f} | {r['max']} "
            f"| {100 * r['cycles']:.2f}% | {100 * r['capped']:.3f}% | {100 * r['draws']:.3f}% | {seats} |"
        )
    return "\n".join(lines)


def histogram(results: list[LengthResult], path, title: str = "P'yanitsa: battles per game") -> None:
    """Write a PNG histogram (log-scale counts) of battles per game, one line per setting."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    top = max(int(r.battles.max()) for r in results)
    bins = np.arange(0, min(top, 5000) + 11, 10)
    colors = {}
    styles = {"winner_first": "-", "random": "--", "seat_order": ":"}
    for r in results:
        o = r.options
        obj = "v1" if o.get("objective", "last_holder_loses") == "last_holder_loses" else "v2"
        order = o.get("collect_order", "winner_first")
        key = (o.get("num_players", o.get("n_players", 2)), obj)
        color = colors.setdefault(key, f"C{len(colors)}")  # colour: players + objective; line style: order
        label = f"N={key[0]} {obj} {order} ({r.battles.size:,} games)"
        h, e = np.histogram(np.minimum(r.battles, bins[-1] - 1), bins=bins)
        ax.step(e[:-1], np.where(h > 0, h / r.battles.size, np.nan), where="post", label=label, lw=1,
                color=color, linestyle=styles.get(order, "-"))
    ax.set_yscale("log")
    ax.set(xlabel="battles per game (bins of 10; cycles end when detected, the cap is 5000)", ylabel="share of games", title=title)
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _setting_seeds(settings: list[dict], seed: int) -> list[int]:
    """The seed of each setting: ``seed`` plus its index in :data:`SETTINGS` (its place in ``settings``
    for one that is not there), so a setting's games are the same whichever others run with it."""
    return [seed + (SETTINGS.index(o) if o in SETTINGS else i) for i, o in enumerate(settings)]


def _read_rows(path) -> list[dict]:
    """The summaries in an earlier ``lengths.json`` (none if it is missing); ``ValueError`` naming a damaged one."""
    import json

    if not path.exists():
        return []
    try:
        rows = json.loads(path.read_text())
        if not isinstance(rows, list) or not all(isinstance(r, dict) and "options" in r and "games" in r for r in rows):
            raise ValueError("not a list of setting summaries")
    except ValueError as e:
        raise ValueError(f"{path} is damaged or not a lengths.json ({e}): use another --out, or delete it") from None
    for r in rows:  # JSON keys are strings; a fresh summary counts games by int battles
        r["counts"] = {int(b): int(c) for b, c in r.get("counts", {}).items()}
    return rows


def _result_of_row(row: dict) -> LengthResult:
    b = np.repeat(np.array([int(k) for k in row["counts"]], dtype=np.int64), [int(v) for v in row["counts"].values()])
    return LengthResult(row["options"], b, np.zeros(b.size, np.int8), np.zeros((b.size, 1), bool), row["seconds"])


def _write_outputs(out, rows: list[dict]) -> None:
    """``lengths.json`` (through a temporary file and a rename: an interruption never leaves half a file),
    ``lengths.md`` and ``game_lengths.png`` of ``rows``."""
    import json
    import os

    tmp = out / ".lengths.json.partial"
    tmp.write_text(json.dumps(rows, indent=1))
    os.replace(tmp, out / "lengths.json")
    (out / "lengths.md").write_text(markdown(rows) + "\n")
    histogram([_result_of_row(r) for r in rows], out / "game_lengths.png")


def run_all(n_games: int, out, settings=None, batch: int = 4096, seed: int = 0, log=print, progress: bool = True) -> list[dict]:
    """Run every setting (default :data:`SETTINGS`), writing after each one to ``out``:
    ``lengths.json`` (summaries + per-setting counts of games by battles), ``lengths.md`` and
    ``game_lengths.png``. Returns the summaries of ``settings``.

    Setting ``i`` of :data:`SETTINGS` is played with seed ``seed + i``, whichever settings run. A
    folder holds one ``n_games`` and ``seed``: the settings already in its ``lengths.json`` are kept,
    not played again (run the same command again to finish an interrupted run; runs of other
    settings into the same folder add their rows), and a ``lengths.json`` of another ``n_games`` or
    ``seed`` is refused (``ValueError``), never overwritten. ``progress``: a bar over the games
    still to play (rate and ETA).
    """
    import sys
    from pathlib import Path

    from tqdm import tqdm

    if n_games < 1:
        raise ValueError(f"n_games must be >= 1, got {n_games}")
    if isinstance(out, str) and not out.strip():  # Path("") is the current folder: never meant
        raise ValueError(f"--out {out!r} is an empty path: give the folder to write, e.g. --out runs/pyanitsa_lengths")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file: give the folder to write lengths.json, lengths.md and game_lengths.png to")
    if out.is_dir() and any(out.iterdir()) and not (out / "lengths.json").is_file():  # another run's folder: never written into
        raise ValueError(f"--out {out} is not empty and holds no lengths run (no lengths.json); give a new or empty folder")
    settings = list(settings or SETTINGS)
    seeds = _setting_seeds(settings, seed)
    for opts in settings:
        envs.kernel("pyanitsa", **opts)  # bad options fail before any game is played
    earlier = _read_rows(out / "lengths.json")
    for r in earlier:
        if r["games"] != n_games or r.get("base_seed") != seed:
            was = f"seed {r['base_seed']}" if "base_seed" in r else "no recorded seed (written by an earlier cardzoo)"
            raise ValueError(
                f"{out / 'lengths.json'} holds a run of {r['games']:,} games per setting with {was}, not {n_games:,} games "
                f"with seed {seed}: a folder holds one --games and --seed, and a run never overwrites another; use another --out"
            )
    done = {json.dumps(r["options"], sort_keys=True): r for r in earlier}
    key = lambda o: json.dumps(o, sort_keys=True)  # noqa: E731
    todo = [(o, s) for o, s in zip(settings, seeds) if key(o) not in done]
    if len(todo) < len(settings):
        log(f"{len(settings) - len(todo)} of {len(settings)} settings kept from {out / 'lengths.json'} (the same --games and --seed)")
    out.mkdir(parents=True, exist_ok=True)
    bar = tqdm(total=n_games * len(todo), desc=f"P'yanitsa lengths ({len(todo)} setting{'s' if len(todo) != 1 else ''})", unit="game", disable=not progress or not todo)
    finished = 0
    try:
        for opts, s_seed in todo:
            r = run(n_games, batch=batch, seed=s_seed, on_games=bar.update, **opts)
            s = r.summary()
            s["seed"], s["base_seed"] = s_seed, seed
            counts = np.bincount(r.battles)
            s["counts"] = {int(b): int(c) for b, c in enumerate(counts) if c}
            done[key(opts)] = s
            finished += 1
            bar.clear()
            log(markdown([s]).splitlines()[-1] + f"  ({s['seconds']} s)")
            merged = {key(x["options"]): x for x in _read_rows(out / "lengths.json")}  # rows a parallel run wrote meanwhile
            merged[key(opts)] = s
            order = [key(o) for o in SETTINGS]
            rows = sorted(merged.values(), key=lambda x: order.index(key(x["options"])) if key(x["options"]) in order else len(order))
            _write_outputs(out, rows)
    except KeyboardInterrupt:
        bar.close()
        print(f"interrupted: {out} holds the settings finished ({len(settings) - len(todo) + finished} of {len(settings)}); "
              "run the same command again to play the others", file=sys.stderr)
        raise
    bar.close()
    return [done[key(o)] for o in settings]


def results_from_json(path) -> list[LengthResult]:
    """Rebuild :class:`LengthResult` objects (battles only) from a ``lengths.json`` for plotting."""
    import json

    out = []
    for s in json.loads(open(path).read()):
        b = np.repeat(np.array([int(k) for k in s["counts"]]), [int(v) for v in s["counts"].values()])
        out.append(LengthResult(s["options"], b, np.zeros(b.size, np.int8), np.zeros((b.size, 1), bool), s["seconds"]))
    return out

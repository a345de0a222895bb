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


def run(n_games: int, batch: int = 4096, seed: int = 0, **options) -> LengthResult:
    """Play ``n_games`` games of P'yanitsa with ``options`` (any collect order but ``winner_chooses``).

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


def run_all(n_games: int, out, settings=None, batch: int = 4096, seed: int = 0, log=print) -> list[dict]:
    """Run every setting (default :data:`SETTINGS`), writing after each one to ``out``:
    ``lengths.json`` (summaries + per-setting counts of games by battles), ``lengths.md`` and
    ``game_lengths.png``. Returns the summaries."""
    import json
    from pathlib import Path

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows, results = [], []
    for i, opts in enumerate(settings or SETTINGS):
        r = run(n_games, batch=batch, seed=seed + i, **opts)
        s = r.summary()
        counts = np.bincount(r.battles)
        s["counts"] = {int(b): int(c) for b, c in enumerate(counts) if c}
        rows.append(s)
        results.append(r)
        log(markdown([s]).splitlines()[-1] + f"  ({s['seconds']} s)")
        (out / "lengths.json").write_text(json.dumps(rows, indent=1))
        (out / "lengths.md").write_text(markdown(rows) + "\n")
        histogram(results, out / "game_lengths.png")
    return rows


def results_from_json(path) -> list[LengthResult]:
    """Rebuild :class:`LengthResult` objects (battles only) from a ``lengths.json`` for plotting."""
    import json

    out = []
    for s in json.loads(open(path).read()):
        b = np.repeat(np.array([int(k) for k in s["counts"]]), [int(v) for v in s["counts"].values()])
        out.append(LengthResult(s["options"], b, np.zeros(b.size, np.int8), np.zeros((b.size, 1), bool), s["seconds"]))
    return out

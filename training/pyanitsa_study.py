"""Does ordering the pot matter? P'yanitsa ``collect_order="winner_chooses"`` study (training/STUDIES.md).

Each agent plays duplicate deals (every deal once per seat, the other seat(s) played by the
uniformly random agent; :func:`cardzoo.training.arena.play_duplicate`) and the table reports its mean
return per game against random ordering with a 95% CI (normal approximation over deals) and
its win rate. Random ordering against itself is 0 by construction, so a CI that excludes 0 is
a measurable effect of the ordering policy.

Run: ``python -m cardzoo.training.pyanitsa_study --deals 2000 --out runs/pyanitsa_study [--ppo PATH]``.

``--frontier`` runs the second study instead: fixed orderings that move the ace through the weak-first
order (:func:`frontier`), each against the rule bot and against random ordering, to show what one
fixed ordering can score against both.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cardzoo import agents
from cardzoo.agents.pyanitsa_rule import PyanitsaRuleAgent
from cardzoo.agents.skip_forced import SkipForced

from .arena import play_duplicate
from .common import refuse_existing_file

OPTIONS = {"collect_order": "winner_chooses"}


def study(n_deals: int, seed: int = 0, ppo: str | None = "pyanitsa/ppo", env_options: dict | None = None, progress=False,
          rules: bool = True) -> list[dict]:
    """Rows (``DuplicateResult.to_dict()``) of every ordering agent against random ordering
    (the two rule orderings unless ``rules=False``, and the trained agent ``ppo`` if given)."""
    opts = dict(env_options or OPTIONS)
    contenders = {}
    if rules:
        contenders["rule (weak first)"] = PyanitsaRuleAgent("weak_first", **opts)
        contenders["rule (strong first)"] = PyanitsaRuleAgent("strong_first", **opts)
    if ppo:
        contenders["ppo"] = SkipForced(agents.load(ppo) if ppo != "pyanitsa/ppo" else agents.load(ppo, **opts))
    rows = []
    for name, ag in contenders.items():
        r = play_duplicate("pyanitsa", ag, agents.load("random", seed=seed + 1), n_deals, seed=seed,
                           env_options=opts, progress=progress, name_a=name, name_b="random")
        rows.append(r.to_dict())
    return rows


def frontier(n_deals: int, seed: int = 0, progress=False) -> list[dict]:
    """Rows of the orderings "weak first with the ace placed ``k``-th" (``k`` = 1..9; 9 is the rule bot's
    weak first) against ``pyanitsa/rule`` and against random ordering, two players, 36 cards
    (``DuplicateResult.to_dict()`` plus ``ace_position``)."""
    rows = []
    for k in range(1, 10):
        order = list(range(8))
        order.insert(k - 1, 8)
        for other in ("pyanitsa/rule", "random"):
            ag = PyanitsaRuleAgent(rank_order=order, **OPTIONS)
            opp = PyanitsaRuleAgent(**OPTIONS) if other == "pyanitsa/rule" else agents.load("random", seed=seed + 1)
            r = play_duplicate("pyanitsa", ag, opp, n_deals, seed=seed, env_options=OPTIONS, progress=progress,
                               name_a=f"ace placed {k}", name_b=other)
            rows.append({**r.to_dict(), "ace_position": k})
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| ordering agent | vs | games | mean return [95% CI] | win rate [95% CI] |", "|---|---|---:|---:|---:|"]
    for r in rows:
        lo, hi = r["diff_ci"]
        wl, wh = r["win_ci"]
        lines.append(f"| {r['agent_a']} | {r['agent_b']} | {r['n_hands']:,} | {r['mean_diff']:+.3f} [{lo:+.3f}, {hi:+.3f}] "
                     f"| {r['win_rate']:.3f} [{wl:.3f}, {wh:.3f}] |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ppo", default="pyanitsa/ppo", help="trained agent (name or path); '' to skip")
    p.add_argument("--no-rules", action="store_true", help="skip the two rule orderings")
    p.add_argument("--frontier", action="store_true", help="the ace-position frontier (frontier()) instead")
    p.add_argument("--out", default="runs/pyanitsa_study")
    p.add_argument("--overwrite", action="store_true", help="replace this study's earlier results in --out")
    a = p.parse_args(argv)
    stem = "frontier" if a.frontier else "study"
    out = Path(a.out)
    try:
        if a.deals < 1:
            raise ValueError(f"--deals must be >= 1, got {a.deals}")
        for suffix in (".json", ".md"):  # checked before any deal is played
            refuse_existing_file(out / f"{stem}{suffix}", "study result", a.overwrite)
    except (ValueError, FileExistsError) as e:
        print(f"pyanitsa_study: error: {e}", file=sys.stderr)
        return 2
    if a.frontier:
        rows = frontier(a.deals, a.seed, progress=True)
    else:
        rows = study(a.deals, a.seed, a.ppo or None, progress=True, rules=not a.no_rules)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json.dumps(rows, indent=1))
    (out / f"{stem}.md").write_text(markdown(rows) + "\n")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

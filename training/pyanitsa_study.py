"""Does ordering the pot matter? P'yanitsa ``collect_order="winner_chooses"`` study (training/STUDIES.md).

Each agent plays duplicate deals (every deal once per seat, the other seat(s) played by the
uniformly random agent; :func:`cardzoo.training.arena.play_duplicate`) and the table reports its mean
return per game against random ordering with a 95% CI (normal approximation over deals) and
its win rate. Random ordering against itself is 0 by construction, so a CI that excludes 0 is
a measurable effect of the ordering policy.

Run: ``python -m cardzoo.training.pyanitsa_study --deals 2000 --out runs/pyanitsa_study [--ppo PATH]``.

``--frontier`` runs the second study instead: fixed orderings that move the ace through the weak-first
order (:func:`frontier`), each against the rule bot and against random ordering, to show what one
fixed ordering can score against both. ``--orders`` names other fixed orderings (``rank_order`` of
``pyanitsa/rule``, e.g. ``0,1,2,3,4,5,6,8,7``) and ``--players 3`` or ``4`` plays them alone against
two or three rule bots or random players (the tables then add how often the ordering did not lose).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cardzoo import agents
from cardzoo.agents.pyanitsa_rule import PyanitsaRuleAgent
from cardzoo.agents.skip_forced import SkipForced

from .arena import ci_text, json_text, play_duplicate
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


def frontier(n_deals: int, seed: int = 0, progress=False, orders=None, players: int = 2) -> list[dict]:
    """Rows of fixed orderings against ``pyanitsa/rule`` and against random ordering, 36 cards
    (``DuplicateResult.to_dict()`` plus ``order``, and ``ace_position`` for the default orderings).

    Args:
        orders: ``rank_order`` values of :class:`~cardzoo.agents.pyanitsa_rule.PyanitsaRuleAgent` (lists
            or ``"0,1,..."`` strings; a bad one raises its ``ValueError`` before any deal is played).
            Default: "weak first with the ace placed ``k``-th", ``k`` = 1..9 (9 is the rule bot's weak first).
        players: 2, 3 or 4; with more than 2 the ordering plays alone against copies of the other agent.
    """
    opts = {**OPTIONS, "num_players": int(players)}
    if orders is None:
        named = []
        for k in range(1, 10):
            order = list(range(8))
            order.insert(k - 1, 8)
            named.append((f"ace placed {k}", order, {"ace_position": k}))
    else:
        named = [(f"order {o if isinstance(o, str) else ','.join(map(str, o))}", o, {}) for o in orders]
    contenders = [(label, PyanitsaRuleAgent(rank_order=o, **opts), extra) for label, o, extra in named]  # checked first
    rows = []
    for label, ag, extra in contenders:
        for other in ("pyanitsa/rule", "random"):
            opp = PyanitsaRuleAgent(**opts) if other == "pyanitsa/rule" else agents.load("random", seed=seed + 1)
            r = play_duplicate("pyanitsa", ag, opp, n_deals, seed=seed, env_options=opts, progress=progress,
                               name_a=label, name_b=other)
            rows.append({**r.to_dict(), "order": ",".join(map(str, ag.rank_order)), **extra})
    return rows


def markdown(rows: list[dict]) -> str:
    """The rows as a Markdown table; with 3-4 players also how often the ordering did not lose
    (and what an agent as good as the other would score there)."""
    alone = any(r.get("n_sides", 2) > 2 for r in rows)
    head = "| ordering agent | vs | games | mean return [95% CI] | win rate [95% CI] |"
    rule = "|---|---|---:|---:|---:|"
    if alone:
        head += " not losing [95% CI] (as good as B) |"
        rule += "---:|"
    lines = [head, rule]
    for r in rows:
        n = r["n_deals"]  # an undefined CI (1 deal): "n/a (1 deal)"
        line = (f"| {r['agent_a']} | {r['agent_b']} | {r['n_hands']:,} | {r['mean_diff']:+.3f} {ci_text(*r['diff_ci'], '+.3f', n)} "
                f"| {r['win_rate']:.3f} {ci_text(*r['win_ci'], '.3f', n)} |")
        if alone:
            line += f" {r['not_losing']:.3f} {ci_text(*r['not_losing_ci'], '.3f', n)} ({r['null_not_losing']:.3f}) |"
        lines.append(line)
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ppo", default="pyanitsa/ppo", help="trained agent (name or path); '' to skip")
    p.add_argument("--no-rules", action="store_true", help="skip the two rule orderings")
    p.add_argument("--frontier", action="store_true", help="the ace-position frontier (frontier()) instead")
    p.add_argument("--orders", nargs="+", metavar="ORDER",
                   help="with --frontier: these rank orders instead of the ace positions (e.g. 0,1,2,3,4,5,6,8,7)")
    p.add_argument("--players", type=int, default=2, help="with --frontier: 2, 3 or 4 players (default 2)")
    p.add_argument("--out", default="runs/pyanitsa_study")
    p.add_argument("--overwrite", action="store_true", help="replace this study's earlier results in --out")
    a = p.parse_args(argv)
    stem = "frontier" if a.frontier else "study"
    out = Path(a.out)
    try:
        if a.deals < 1:
            raise ValueError(f"--deals must be >= 1, got {a.deals}")
        if a.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {a.seed}")
        if out.exists() and not out.is_dir():
            raise ValueError(f"--out {out} is a file; give a folder for the study's results")
        if not a.frontier and (a.orders or a.players != 2):
            raise ValueError("--orders and --players go with --frontier")
        if a.players not in (2, 3, 4):
            raise ValueError(f"--players must be 2, 3 or 4, got {a.players}")
        for o in a.orders or ():  # a bad order fails here, before anything is played or written
            PyanitsaRuleAgent(rank_order=o, **OPTIONS)
        for suffix in (".json", ".md"):  # checked before any deal is played
            refuse_existing_file(out / f"{stem}{suffix}", "study result", a.overwrite)
    except (ValueError, FileExistsError) as e:
        print(f"pyanitsa_study: error: {e}", file=sys.stderr)
        return 2
    if a.frontier:
        rows = frontier(a.deals, a.seed, progress=True, orders=a.orders, players=a.players)
    else:
        rows = study(a.deals, a.seed, a.ppo or None, progress=True, rules=not a.no_rules)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json_text(rows, indent=1))  # an undefined CI (1 deal): null
    (out / f"{stem}.md").write_text(markdown(rows) + "\n")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

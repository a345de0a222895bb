"""What is the Aluette signal channel worth to trained agents? (issue 4; training/STUDIES.md).

Two agents are trained with the same settings, one with the channel on (the default,
``signals="truthful"``) and one with it off (``signals="off"``). The off-agent then sits at the
default table wrapped in :class:`cardzoo.agents.silent.Silent`: it sends no signal, and with a silent
partner it receives none, which is exactly what it saw in training. Duplicate deals
(:func:`cardzoo.training.arena.play_duplicate`) give:

1. on-agent vs silent off-agent, channel on: what the channel is worth (points per deal, 95% CI);
2. each of them vs the rule bot ``aluette/rule`` at the default table;
3. the off-agent vs the rule bot with the channel off (its own game).

Run: ``python -m cardzoo.training.aluette_signals --on PATH --off PATH --deals 2000 --out runs/aluette_signals``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cardzoo import agents
from cardzoo.agents.silent import Silent

from .arena import json_text, play_duplicate
from .common import seed_arg
from .pyanitsa_study import markdown


def study(on, off, n_deals: int, seed: int = 0, progress: bool = False) -> list[dict]:
    """Rows (``DuplicateResult.to_dict()`` plus ``"table"``: the env options) of the comparison.

    Args:
        on, off: agents (or names/paths for :func:`cardzoo.agents.load`) trained with the channel on / off.
        n_deals: duplicate deals per row; seed: fixes the deals (the same for every row).
    """
    on_ag = agents.load(on) if isinstance(on, str) else on
    off_ag = agents.load(off) if isinstance(off, str) else off
    rule_on = agents.load("aluette/rule")
    rule_off = agents.load("aluette/rule", signals="off")
    runs = [
        ("channel on", {}, on_ag, Silent.aluette(off_ag), "trained (on)", "trained (off), silent"),
        ("channel on", {}, on_ag, rule_on, "trained (on)", "aluette/rule"),
        ("channel on", {}, Silent.aluette(off_ag), rule_on, "trained (off), silent", "aluette/rule"),
        ("channel off", {"signals": "off"}, off_ag, rule_off, "trained (off)", "aluette/rule"),
    ]
    rows = []
    for table, opts, a, b, na, nb in runs:
        r = play_duplicate("aluette", a, b, n_deals, seed=seed, env_options=opts, progress=progress, name_a=na, name_b=nb)
        rows.append({**r.to_dict(), "table": table})
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--on", required=True, help="agent trained with the channel on (name or path)")
    p.add_argument("--off", required=True, help="agent trained with signals=off (name or path)")
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument("--out", default="runs/aluette_signals")
    a = p.parse_args(argv)
    rows = study(a.on, a.off, a.deals, a.seed, progress=True)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "study.json").write_text(json_text(rows, indent=1))  # an undefined CI (1 deal): null
    text = markdown(rows)
    (out / "study.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

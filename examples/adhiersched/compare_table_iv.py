#!/usr/bin/env python3
"""The case study's Table IV (seed 000, Khalilzad, Behnam, Nolte, §V) from rtsched, beside the paper.

Simulates case-study-static.yaml (fixed budgets) and case-study-adaptive.yaml (the budget
controller) with ``rtsched sim`` and prints each soft server's deadline-miss ratio (jobs of its
tasks completed after their deadline over jobs completed, the paper's metric) beside the
paper's, then the hard tasks' largest simulated response against their bound from
``rtsched analyze`` (the PRM analysis of S1's 39 ms of 100):

    PYTHONPATH=python python3 examples/adhiersched/compare_table_iv.py [--duration 60]
        [--run out/adhiersched-adaptive/summary.json ...]

``--run`` adds a row from a live ``rtsched run``'s summary.json (of either file). The paper's "total" is the sum
of its three rows (3.36 + 27.28 + 2.19 = 32.83), so ours is too; "pooled" is all soft jobs
together. The simulation is deterministic: the same numbers on every machine.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from rtsched.cli.main import main as rtsched

HERE = Path(__file__).resolve().parent
STATIC = HERE / "case-study-static.yaml"
ADAPTIVE = HERE / "case-study-adaptive.yaml"
SOFT = ("S3", "S4", "S5")
PAPER = {"fixed": (3.36, 27.28, 2.19), "adaptive": (1.11, 6.49, 4.69)}


def _json(argv: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rtsched(argv)
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


def simulate(path: Path, seconds: int) -> dict[str, Any]:
    """`rtsched sim FILE --duration Ns --json`'s summary (no plots, output in a scratch folder)."""
    with tempfile.TemporaryDirectory() as out:
        return _json(["sim", str(path), "--duration", f"{seconds}s", "--json", "--no-plots", "--out", out])


def analyze(path: Path) -> dict[str, Any]:
    """`rtsched analyze FILE --ideal --json` (no overheads folded in)."""
    return _json(["analyze", str(path), "--ideal", "--json"])


def miss_percent(summary: dict[str, Any]) -> dict[str, float]:
    """Per soft server its miss ratio in %, "total" their sum (the paper's), "pooled" all jobs'."""
    rows = {r["name"]: r for r in summary["reservations"]}
    ratios = {name: 100.0 * rows[name]["misses"] / rows[name]["jobs"] for name in SOFT}
    ratios["total"] = sum(ratios[name] for name in SOFT)
    ratios["pooled"] = 100.0 * sum(rows[n]["misses"] for n in SOFT) / sum(rows[n]["jobs"] for n in SOFT)
    return ratios


def hard_tasks(summary: dict[str, Any], analysis: dict[str, Any]) -> list[tuple[str, int, int, int, int]]:
    """S1's tasks: name, jobs, misses, largest simulated response and analysed bound (ns)."""
    bounds = {t["name"]: t["bound_ns"] for t in analysis["tasks"]}
    return [(t["task"], t["jobs"], t["deadline_misses"], t["response_max_ns"], bounds[t["task"]])
            for t in summary["tasks"] if bounds.get(t["task"]) is not None]


def _row(label: str, values: dict[str, float] | tuple[float, ...]) -> str:
    if isinstance(values, tuple):  # the paper's rows: no pooled ratio
        return f"{label:<26}" + "".join(f"{v:>8.2f}" for v in values) + f"{'-':>8}"
    return f"{label:<26}" + "".join(f"{values[k]:>8.2f}" for k in (*SOFT, "total", "pooled"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=60, metavar="S", help="simulated seconds (default 60)")
    parser.add_argument("--run", type=Path, metavar="SUMMARY", action="append", default=[],
                        help="a live `rtsched run`'s summary.json of either file (repeatable)")
    args = parser.parse_args(argv)
    fixed, adaptive = simulate(STATIC, args.duration), simulate(ADAPTIVE, args.duration)
    print(f"{'deadline-miss ratio %':<26}" + "".join(f"{h:>8}" for h in (*SOFT, "total", "pooled")))
    for name in ("fixed", "adaptive"):
        print(_row(f"paper, {name}", (*PAPER[name], sum(PAPER[name]))))
    print(_row(f"sim, fixed ({args.duration} s)", miss_percent(fixed)))
    print(_row(f"sim, adaptive ({args.duration} s)", miss_percent(adaptive)))
    for path in args.run:
        summary = json.loads(path.read_text())
        label = f"run, {summary['name'].removeprefix('adhiersched-')} ({summary['duration_ns'] / 1e9:.0f} s)"
        print(_row(label, miss_percent(summary)))
    print()
    for task, jobs, misses, response, bound in hard_tasks(adaptive, analyze(ADAPTIVE)):
        print(f"S1 {task}: {misses} of {jobs} jobs missed; largest response {response / 1e6:.1f} ms, "
              f"PRM bound {bound / 1e6:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

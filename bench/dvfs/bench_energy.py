#!/usr/bin/env python3
"""Energy of EDF's DVFS policies against the WCET-only baseline in the same run (docs/dvfs.md).

    PYTHONPATH=python python3 bench/dvfs/bench_energy.py [--sets 20] [--seed 1] [--json]

For each worst-case utilization U and each fraction of the WCET the jobs actually use
(drawn uniformly in [low, 1] x each compute, ``--exec-low``), ``--sets`` uniprocessor sets
of 5 implicit-deadline tasks (periods 2 to 20 ms, UUniFast-like split of U, fixed seed; each
job three equal computes, each drawn on its own) run
for 200 ms under every policy on the same draws. Prints, per (U, low), each policy's mean
energy over the baseline's (``none``: the highest frequency throughout, idle power when
idle) and the misses (there must be none). The platform is the example's: five operating
points 200-1200 MHz with static and idle power (200 MHz below the critical frequency),
plus a memory-bound fraction of 0 or 0.3 (``--memory-bound``). Simulated energy, so the
figures are exact and do not depend on this machine; the ratios are what to compare.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from fractions import Fraction
from pathlib import Path

from rtsched.model import load_taskset, taskset_from_dict, taskset_to_dict
from rtsched.sim import SimOptions
from rtsched.sim.dvfs_policies import POLICIES
from rtsched.sim.dvfs_run import compare_policies

ROOT = Path(__file__).resolve().parents[2]
PERIODS_MS = (2, 4, 5, 8, 10, 20)
UTILIZATIONS = (Fraction(3, 10), Fraction(5, 10), Fraction(7, 10), Fraction(9, 10))
EXEC_LOWS = (Fraction(1, 5), Fraction(1, 2), Fraction(4, 5), Fraction(1))
#: Computes per job, each drawn on its own (and, with --segments, each a segment).
SEGMENTS = 3


def _split(rng: random.Random, total: Fraction, n: int) -> list[Fraction]:
    """n utilizations summing to at most ``total`` (UUniFast, rounded down to 1/1000)."""
    shares, left = [], float(total)
    for i in range(1, n):
        nxt = left * rng.random() ** (1 / (n - i))
        shares.append(left - nxt)
        left = nxt
    shares.append(left)
    return [Fraction(int(s * 1000), 1000) for s in shares]


def _taskset(rng: random.Random, total: Fraction, memory_bound: float) -> dict:
    platform = taskset_to_dict(load_taskset(ROOT / "examples" / "dvfs-edf.yaml"))["platform"]
    platform["dvfs"]["memory_bound"] = memory_bound
    tasks = []
    for i, u in enumerate(_split(rng, total, 5)):
        period_us = rng.choice(PERIODS_MS) * 1000
        piece_ns = max(1000, int(u * period_us * 1000) // SEGMENTS)
        tasks.append({"name": f"t{i}", "period": f"{period_us}us",
                      "body": [{"compute": f"{piece_ns}ns"} for _ in range(SEGMENTS)]})
    return {"name": "bench", "duration": "200ms",
            "platform": {"scheduler": "G-EDF", "cpus": [0], "dvfs": platform["dvfs"]}, "tasks": tasks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, default=20, help="sets per (U, low) cell (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--memory-bound", type=float, default=0.0)
    parser.add_argument("--segments", action="store_true", help="each of a job's three computes a segment")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = []
    for total in UTILIZATIONS:
        for low in EXEC_LOWS:
            ratios: dict[str, list[float]] = {p: [] for p in POLICIES}
            misses = {p: 0 for p in POLICIES}
            for k in range(args.sets):
                taskset = taskset_from_dict(_taskset(rng, total, args.memory_bound))
                options = SimOptions(seed=args.seed * 1000 + k, exec_low_ppm=int(low * 1_000_000))
                runs = compare_policies(taskset, options, segments=args.segments)
                base = runs[0].energy_pj
                for run in runs:
                    ratios[run.policy].append(float(run.energy_pj / base))
                    misses[run.policy] += run.misses
            rows.append({"utilization": float(total), "exec_low": float(low),
                         "energy_vs_none": {p: sum(v) / len(v) for p, v in ratios.items()},
                         "misses": misses})
    if args.json:
        print(json.dumps({"sets_per_cell": args.sets, "memory_bound": args.memory_bound, "rows": rows}, indent=2))
        return 0
    print(f"energy / WCET-only baseline, mean of {args.sets} sets per cell "
          f"(memory-bound {args.memory_bound:g}{', segments' if args.segments else ''})")
    print(f"{'U':>5} {'low':>5} " + " ".join(f"{p:>8}" for p in POLICIES[1:]) + "  misses")
    for row in rows:
        cells = " ".join(f"{row['energy_vs_none'][p]:8.3f}" for p in POLICIES[1:])
        print(f"{row['utilization']:5.1f} {row['exec_low']:5.1f} {cells}  {sum(row['misses'].values())}")
    return 0 if all(sum(r["misses"].values()) == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

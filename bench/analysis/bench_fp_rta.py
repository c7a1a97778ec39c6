#!/usr/bin/env python3
"""Speed of uniprocessor FP response-time analysis with blocking (issue 6 target).

10,000 generated 20-task sets (seeded: UUniFast utilizations spread over
[0.50, 0.95], log-uniform periods 10 ms – 1 s, 5 resources each used by a
task with probability 0.3, sections 1–100 µs), analysed with ``fp-rta``
(exact RTA; blocking by the resources' protocol, PCP by default). Only the
analysis is timed, not the generation. Prints the rate and whether the
target (10,000 sets in at most 5 s) is met; ``--json`` for programs.

    python3 bench/analysis/bench_fp_rta.py [--sets N] [--tasks N] [--protocol pcp|srp|pip|np] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))  # the checkout's package

from rtsched.analysis import run_test  # noqa: E402
from rtsched.analysis.generators import generate_problem  # noqa: E402

TARGET_SETS = 10_000
TARGET_S = 5.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=TARGET_SETS)
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--protocol", default="pcp", choices=["pcp", "srp", "ipcp", "pip", "np"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    problems = [
        generate_problem(args.tasks, 0.50 + 0.45 * (i % 100) / 99, args.seed * 1_000_003 + i,
                         resources=5, p_access=0.3, cs_range_ns=(1_000, 100_000), protocol=args.protocol)
        for i in range(args.sets)
    ]
    gen_s = time.perf_counter() - t0

    cpu0 = time.process_time()
    t0 = time.perf_counter()
    schedulable = 0
    for p in problems:
        if run_test("fp-rta", p).schedulable:
            schedulable += 1
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0

    rate = args.sets / wall
    scaled = wall * TARGET_SETS / args.sets
    result = {
        "benchmark": "fp-rta",
        "sets": args.sets,
        "tasks_per_set": args.tasks,
        "protocol": args.protocol,
        "schedulable": schedulable,
        "generation_s": round(gen_s, 3),
        "analysis_wall_s": round(wall, 3),
        "analysis_cpu_s": round(cpu, 3),
        "sets_per_s": round(rate, 1),
        "tasks_per_s": round(rate * args.tasks, 1),
        "target": f"{TARGET_SETS} sets in at most {TARGET_S} s",
        "target_met": scaled <= TARGET_S,
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"fp-rta ({args.protocol} blocking): {args.sets} sets of {args.tasks} tasks, "
              f"{schedulable} schedulable ({100 * schedulable / args.sets:.1f}%)")
        print(f"analysis: {wall:.2f} s wall ({cpu:.2f} s CPU) = {rate:,.0f} sets/s, "
              f"{rate * args.tasks:,.0f} tasks/s  (generation {gen_s:.2f} s, not timed)")
        print(f"target {TARGET_SETS} sets in <= {TARGET_S} s: {scaled:.2f} s -> "
              f"{'met' if result['target_met'] else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

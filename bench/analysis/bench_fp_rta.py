#!/usr/bin/env python3
"""Speed of uniprocessor FP response-time analysis with blocking (issues 6 and 13 targets).

10,000 generated 20-task sets (seeded: UUniFast utilizations spread over
[0.50, 0.95], log-uniform periods 10 ms – 1 s, 5 resources each used by a
task with probability 0.3, sections 1–100 µs), analysed with ``fp-rta``
(exact RTA; blocking by the resources' protocol, PCP by default). Only the
analysis is timed, not the generation. Prints the rate and whether the
target (10,000 sets in at most 5 s) is met; ``--json`` for programs.

``--baseline DIR`` also times another checkout of rtsched (DIR holds
``python/rtsched``, e.g. a ``git worktree`` of an older commit) on the same
sets in the same run, alternating the two ``--rounds`` times (each in its own
process; the least time of each), prints the ratio, and checks that both give
the same results (every task's verdict, bound, blocking and reason; the
reasons with ``PYTHONHASHSEED=0``).

    python3 bench/analysis/bench_fp_rta.py [--sets N] [--tasks N] [--protocol pcp|srp|pip|np] [--json]
    python3 bench/analysis/bench_fp_rta.py --protocol pip --baseline ../old-checkout [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
TARGET_SETS = 10_000
TARGET_S = 5.0


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=TARGET_SETS)
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--protocol", default="pcp", choices=["pcp", "srp", "ipcp", "pip", "np"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--baseline", type=Path, help="another checkout to time on the same sets, in the same run")
    ap.add_argument("--rounds", type=int, default=3, help="with --baseline: runs of each, alternating")
    ap.add_argument("--package", type=Path, default=CHECKOUT, help=argparse.SUPPRESS)  # the checkout to time
    return ap.parse_args(argv)


def measure(args: argparse.Namespace) -> dict:
    """Generate the sets, time fp-rta on them with the package of ``args.package``."""
    sys.path.insert(0, str(args.package / "python"))
    from rtsched.analysis import run_test
    from rtsched.analysis.generators import generate_problem

    t0 = time.perf_counter()
    problems = [
        generate_problem(args.tasks, 0.50 + 0.45 * (i % 100) / 99, args.seed * 1_000_003 + i,
                         resources=5, p_access=0.3, cs_range_ns=(1_000, 100_000), protocol=args.protocol)
        for i in range(args.sets)
    ]
    gen_s = time.perf_counter() - t0

    cpu0 = time.process_time()
    t0 = time.perf_counter()
    results = [run_test("fp-rta", p) for p in problems]
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0

    digest = hashlib.sha256()
    for r in results:  # what a result says, whatever fields a version adds
        digest.update(repr((r.verdict, r.reason, [(b.name, b.verdict, b.bound_ns, b.blocking_ns, b.reason)
                                                  for b in r.tasks])).encode())
    rate = args.sets / wall
    scaled = wall * TARGET_SETS / args.sets
    return {
        "benchmark": "fp-rta",
        "sets": args.sets,
        "tasks_per_set": args.tasks,
        "protocol": args.protocol,
        "schedulable": sum(r.schedulable for r in results),
        "generation_s": round(gen_s, 3),
        "analysis_wall_s": round(wall, 3),
        "analysis_cpu_s": round(cpu, 3),
        "sets_per_s": round(rate, 1),
        "tasks_per_s": round(rate * args.tasks, 1),
        "target": f"{TARGET_SETS} sets in at most {TARGET_S} s",
        "target_met": scaled <= TARGET_S,
        "results_sha256": digest.hexdigest(),
    }


def _run_child(package: Path, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--json", "--package", str(package),
           "--sets", str(args.sets), "--tasks", str(args.tasks), "--protocol", args.protocol, "--seed", str(args.seed)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env={**os.environ, "PYTHONHASHSEED": "0"}).stdout
    return json.loads(out)


def compare(args: argparse.Namespace) -> int:
    """Time this checkout and ``args.baseline`` alternately; the ratio of their least times."""
    if not (args.baseline / "python" / "rtsched").is_dir():
        print(f"--baseline {args.baseline}: no python/rtsched there (give a checkout of rtsched)", file=sys.stderr)
        return 2
    runs: dict[str, list[dict]] = {"current": [], "baseline": []}
    for _ in range(args.rounds):
        runs["current"].append(_run_child(CHECKOUT, args))
        runs["baseline"].append(_run_child(args.baseline.resolve(), args))
    best = {k: min(r["analysis_cpu_s"] for r in v) for k, v in runs.items()}
    same = len({r["results_sha256"] for v in runs.values() for r in v}) == 1
    ratio = best["current"] / best["baseline"]
    summary = {
        "benchmark": "fp-rta", "protocol": args.protocol, "sets": args.sets, "rounds": args.rounds,
        "current_cpu_s": best["current"], "baseline_cpu_s": best["baseline"], "ratio": round(ratio, 3),
        "current_runs_cpu_s": [r["analysis_cpu_s"] for r in runs["current"]],
        "baseline_runs_cpu_s": [r["analysis_cpu_s"] for r in runs["baseline"]],
        "same_results": same, "baseline": str(args.baseline),
    }
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"fp-rta ({args.protocol} blocking), {args.sets} sets, least CPU time of {args.rounds} "
              f"alternating runs each:")
        print(f"  this checkout {best['current']:.2f} s {summary['current_runs_cpu_s']}")
        print(f"  baseline      {best['baseline']:.2f} s {summary['baseline_runs_cpu_s']}  ({args.baseline})")
        print(f"  ratio this/baseline {ratio:.3f}; results identical: {'yes' if same else 'NO'}")
    return 0 if same else 1


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if args.baseline is not None:
        return compare(args)
    result = measure(args)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    wall, cpu, rate = result["analysis_wall_s"], result["analysis_cpu_s"], result["sets_per_s"]
    print(f"fp-rta ({args.protocol} blocking): {args.sets} sets of {args.tasks} tasks, "
          f"{result['schedulable']} schedulable ({100 * result['schedulable'] / args.sets:.1f}%)")
    print(f"analysis: {wall:.2f} s wall ({cpu:.2f} s CPU) = {rate:,.0f} sets/s, "
          f"{rate * args.tasks:,.0f} tasks/s  (generation {result['generation_s']:.2f} s, not timed)")
    print(f"target {TARGET_SETS} sets in <= {TARGET_S} s: {wall * TARGET_SETS / args.sets:.2f} s -> "
          f"{'met' if result['target_met'] else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

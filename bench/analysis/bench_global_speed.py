#!/usr/bin/env python3
"""Speed of the G-EDF tests, G-FP RTA and EDF QPA on 1,000 generated sets each (issue 22 item 6).

Corpora (seeded, the same every run; only the analysis is timed):

- global: m in {2, 4, 8}, n in {m + 1, 2m, 3m}, U from 0.25m to 0.95m in steps of
  0.05m (a point where UUniFast-discard finds no vector is skipped), log-uniform
  periods 10 ms – 1 s, constrained deadlines (D uniform in [C, T]), the first
  ``--sets`` of them; ``gfp-rta`` runs on the same sets as G-FP (deadline-monotonic);
- uniprocessor EDF: n from 5 to 24, U from 0.50 to 0.99, constrained deadlines.

Each test runs as a whole and with ``verdict_only=True`` (where it takes it), and
prints CPU time, µs per set and the sets found schedulable. ``--baseline DIR`` also
times another checkout (DIR holds ``python/rtsched``) on the same sets in the same
run, alternating the two ``--rounds`` times, each in its own process (the least
CPU time of each), prints this/baseline per test and checks that every full run
gives the same results in both (every verdict, bound, reason and detail; exit
status 1 if not). ``--count`` prints how many times the G-EDF RTA evaluates its
O(n) interference sum per set with the piecewise search and with the plain
fixed-point iteration it replaces (same answers, the algorithmic cost).

    python3 bench/analysis/bench_global_speed.py [--sets N] [--json]
    python3 bench/analysis/bench_global_speed.py --baseline ../old-checkout [--rounds 3]
    python3 bench/analysis/bench_global_speed.py --count
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

CHECKOUT = Path(__file__).resolve().parents[2]
#: (test, scheduler of its corpus, whether it takes verdict_only)
TESTS = (("gedf-gfb", "G-EDF", False), ("gedf-bcl", "G-EDF", True), ("gedf-bcl-iterative", "G-EDF", True),
         ("gedf-rta", "G-EDF", True), ("gfp-rta", "G-FP", False), ("edf-qpa", "EDF", True))


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=1000, help="sets per corpus (default 1000)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--baseline", type=Path, help="another checkout to time on the same sets, in the same run")
    ap.add_argument("--rounds", type=int, default=3, help="with --baseline: runs of each, alternating")
    ap.add_argument("--count", action="store_true", help="evaluations of the RTA's interference sum per set")
    ap.add_argument("--package", type=Path, default=CHECKOUT, help=argparse.SUPPRESS)  # the checkout to time
    return ap.parse_args(argv)


def corpora(sets: int, period_range: tuple[int, int] = (10_000_000, 1_000_000_000)) -> dict[str, list[Any]]:
    """The corpora; ``period_range`` (in the analysis' integer time unit, ns by default) for other scales,
    periods then in multiples of 1/10,000 of the shortest (1 µs by default; at least 1)."""
    from rtsched.analysis.generators import generate_problem

    grain = max(1, period_range[0] // 10_000)

    global_sets: list[Any] = []
    seed = 0
    while len(global_sets) < sets:
        for m in (2, 4, 8):
            for n in (m + 1, 2 * m, 3 * m):
                for step in range(5, 20):
                    seed += 1
                    try:
                        global_sets.append(generate_problem(n, 0.05 * step * m, seed, scheduler="G-EDF", cpus=m,
                                                            deadlines="constrained", utilizations="uunifast-discard",
                                                            period_range_ns=period_range,
                                                            period_granularity_ns=grain))
                    except ValueError:  # UUniFast-discard stalls on few heavy tasks
                        continue
    global_sets = global_sets[:sets]
    edf = [generate_problem(5 + i % 20, 0.50 + 0.49 * (i % 100) / 99, 777 + i, scheduler="EDF",
                            deadlines="constrained", period_range_ns=period_range, period_granularity_ns=grain)
           for i in range(sets)]
    return {"G-EDF": global_sets, "G-FP": [replace(p, scheduler="G-FP") for p in global_sets], "EDF": edf}


def _digest(results: list[Any]) -> str:
    from rtsched.analysis.results import AnalysisResult

    digest = hashlib.sha256()
    for r in results:
        assert isinstance(r, AnalysisResult)
        digest.update(repr((r.verdict, r.reason, sorted(r.details.items()),
                            [(b.name, b.verdict, b.bound_ns, b.blocking_ns, b.reason) for b in r.tasks])).encode())
    return digest.hexdigest()


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Generate the corpora, time each test on them with the package of ``args.package``."""
    sys.path.insert(0, str(args.package / "python"))
    from rtsched.analysis import run_test

    sets = corpora(args.sets)
    out: dict[str, Any] = {}
    for test, scheduler, quick in TESTS:
        for verdict_only in (False, True) if quick else (False,):
            options = {"verdict_only": True} if verdict_only else {}
            cpu0 = time.process_time()
            try:
                results = [run_test(test, p, **options) for p in sets[scheduler]]
            except TypeError:  # an older checkout without the option
                continue
            cpu = time.process_time() - cpu0
            out[test + (" verdict_only" if verdict_only else "")] = {
                "cpu_s": round(cpu, 4), "us_per_set": round(1e6 * cpu / len(results), 1),
                "schedulable": sum(r.schedulable for r in results), "sets": len(results),
                "results_sha256": _digest(results)}
    return out


def count(args: argparse.Namespace) -> dict[str, float]:
    """Evaluations of the O(n) interference sum per set in gedf-rta: pieces, and plain iteration."""
    sys.path.insert(0, str(args.package / "python"))
    from rtsched.analysis import gedf, rta_fixpoint, run_test

    sets = corpora(args.sets)["G-EDF"]
    calls = {"n": 0}

    class Counted(rta_fixpoint.Interference):
        __slots__ = ()

        def __call__(self, r: int) -> int:
            calls["n"] += 1
            return super().__call__(r)

        def piece(self, r: int) -> tuple[int, int, int]:
            calls["n"] += 1
            return super().piece(r)

    per_set = {}
    gedf.Interference = Counted  # type: ignore[misc]
    searches = {"piecewise": rta_fixpoint.least_response,
                "plain iteration": lambda f, limit: rta_fixpoint.least_bound(f, f.c, limit)}
    digests = set()
    for name, search in searches.items():
        gedf.least_response = search  # type: ignore[assignment]
        calls["n"] = 0
        digests.add(_digest([run_test("gedf-rta", p) for p in sets]))
        per_set[name] = calls["n"] / len(sets)
    return {**per_set, "same_results": len(digests) == 1}


def _run_child(package: Path, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--json", "--package", str(package), "--sets", str(args.sets)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env={**os.environ, "PYTHONHASHSEED": "0"}).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def compare(args: argparse.Namespace) -> int:
    """Time this checkout and ``args.baseline`` alternately; per test the ratio of their least times."""
    if not (args.baseline / "python" / "rtsched").is_dir():
        print(f"--baseline {args.baseline}: no python/rtsched there (give a checkout of rtsched)", file=sys.stderr)
        return 2
    runs: dict[str, list[dict[str, Any]]] = {"current": [], "baseline": []}
    for _ in range(args.rounds):
        runs["current"].append(_run_child(CHECKOUT, args))
        runs["baseline"].append(_run_child(args.baseline.resolve(), args))
    rows = []
    same_all = True
    for key in runs["current"][0]:
        now = min(r[key]["cpu_s"] for r in runs["current"])
        base_key = key if key in runs["baseline"][0] else key.split()[0]  # verdict_only vs the base's full run
        base = min(r[base_key]["cpu_s"] for r in runs["baseline"])
        same = base_key != key or len({r[key]["results_sha256"] for v in runs.values() for r in v}) == 1
        same_all = same_all and same
        rows.append({"test": key, "current_cpu_s": now, "baseline_cpu_s": base, "speedup": round(base / now, 2),
                     "schedulable": runs["current"][0][key]["schedulable"],
                     "same_results": same if base_key == key else None})
    if args.json:
        print(json.dumps({"sets": args.sets, "rounds": args.rounds, "baseline": str(args.baseline), "tests": rows},
                         indent=1))
    else:
        print(f"{args.sets} sets per test, least CPU time of {args.rounds} alternating runs each; "
              f"baseline {args.baseline}")
        print(f"{'test':30s} {'this (s)':>9s} {'baseline (s)':>12s} {'speed-up':>9s} {'sched.':>7s}  same results")
        for r in rows:
            same_txt = {True: "yes", False: "NO", None: "(vs the baseline's full run)"}[r["same_results"]]
            print(f"{r['test']:30s} {r['current_cpu_s']:9.3f} {r['baseline_cpu_s']:12.3f} {r['speedup']:8.2f}x "
                  f"{r['schedulable']:7d}  {same_txt}")
    return 0 if same_all else 1


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if args.baseline is not None:
        return compare(args)
    if args.count:
        counted = count(args)
        if args.json:
            print(json.dumps(counted, indent=1))
        else:
            print(f"gedf-rta, {args.sets} sets: evaluations of the interference sum per set: "
                  f"piecewise {counted['piecewise']:.0f}, plain iteration {counted['plain iteration']:.0f}; "
                  f"same results: {'yes' if counted['same_results'] else 'NO'}")
        return 0 if counted["same_results"] else 1
    result = measure(args)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{'test':30s} {'CPU (s)':>8s} {'µs/set':>8s} {'schedulable':>12s}")
    for key, r in result.items():
        print(f"{key:30s} {r['cpu_s']:8.3f} {r['us_per_set']:8.1f} {r['schedulable']:7d}/{r['sets']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""rtsched's analysis tests against SchedCAT's on the same generated sets, in one run (issue 22).

SchedCAT (Brandenburg's "Schedulability test Collection And Tools") is not on
PyPI and is not part of rtsched: give a checkout of it, its ``native/`` module
built by its own Makefile (SWIG + GMP), with ``--schedcat-path DIR`` (DIR
holds the ``schedcat`` package; ``schedcat.sched.native`` must import).
Without it the script says so and exits with status 2.

Corpora: those of ``bench_global_speed.py`` (the same 1,000 sets per test:
global sets for m in {2, 4, 8}, EDF sets on one processor), plus ``--sets``
uniprocessor FP sets for ``fp-rta`` (n 5–24, U 0.50–0.95, rate-monotonic,
implicit deadlines, no resources: what SchedCAT's FP RTA takes). Each set is
converted to SchedCAT's ``TaskSystem`` once, before any timing.

Speed: per test, the CPU time of rtsched's registry call (``run_test``,
whole result and with ``verdict_only=True`` where the test takes it) and of
SchedCAT's Python-over-C++ call (``native.<Test>(m).is_schedulable(
get_native_taskset(ts))``; also the C++ call alone on prebuilt native sets),
``--rounds`` alternating runs, the least of each; ratio = rtsched / SchedCAT
(issue 22's target: at most 1x for G-EDF GFB, BCL, RTA and EDF QPA; FP RTA,
whose SchedCAT implementation is Python, at most 1/1.5; "met" when the faster
of rtsched's two calls is within it, against SchedCAT with the conversion).
For the tests in ``BOUNDS_READ`` also the registry call followed by reading
every task's bound (``result.tasks``, what ``rtsched analyze`` and the report
read), its ratio against SchedCAT, and against SchedCAT's C++ alone (issue 35:
at most 1x for the G-EDF RTA, at most 1/1.5 of SchedCAT's Python for FP RTA;
Baker, Baruah and FF-DBF, verdict read, at most 1x SchedCAT's C++ alone;
Baruah's and FF-DBF's bounds read are shown, not targets).

Verdicts: per pair of tests the sets where they differ. Dominance (issue 22):
rtsched's G-EDF tests together accept every set that any of SchedCAT's seven
G-EDF tests (GFB, BAK, BAR, BCL, BCLI, RTA, FF-DBF) accepts; every set where
SchedCAT accepts and rtsched rejects is printed. Exit status 1 when the
dominance breaks, or when a test that both implement the same way (GFB, BCL,
QPA, FP RTA) gives a different verdict.

    python3 bench/analysis/bench_vs_schedcat.py --schedcat-path /path/to/schedcat [--sets N] [--rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))
sys.path.insert(0, str(HERE))

from bench_global_speed import corpora  # noqa: E402  (one definition of the shared corpora)
from rtsched.analysis import run_test  # noqa: E402
from rtsched.analysis.generators import generate_problem  # noqa: E402
from rtsched.analysis.tasks import AnalysisProblem  # noqa: E402

#: rtsched test -> (SchedCAT native class, corpus, rtsched takes verdict_only, same test in both)
PAIRS = {
    "gedf-gfb": ("GFBGedf", "G-EDF", False, True),
    "gedf-bcl": ("BCLGedf", "G-EDF", True, True),
    "gedf-bcl-iterative": ("BCLIterativeGedf", "G-EDF", True, False),
    "gedf-rta": ("RTAGedf", "G-EDF", True, False),
    "gedf-baker": ("BakerGedf", "G-EDF", False, False),
    "gedf-baruah": ("BaruahGedf", "G-EDF", False, False),
    "gedf-ffdbf": ("FFDBFGedf", "G-EDF", False, False),
    "edf-qpa": ("QPATest", "EDF", True, True),
    "fp-rta": ("fp.rta", "FP", True, True),
}
#: the ratios issues 22 and 35 set: rtsched time / SchedCAT time at most this
TARGETS = {"gedf-gfb": 1.0, "gedf-bcl": 1.0, "gedf-rta": 1.0, "gedf-baker": 1.0, "gedf-baruah": 1.0,
           "gedf-ffdbf": 1.0, "edf-qpa": 1.0, "fp-rta": 1 / 1.5}
#: the tests also timed with every per-task bound read (issue 35), and those whose target (TARGETS) holds then
BOUNDS_READ = ("gedf-rta", "fp-rta", "gedf-baruah", "gedf-ffdbf")
BOUNDS_TARGETS = ("gedf-rta", "fp-rta")
#: periods 10 ms – 1 s in each time unit (both tools get the same integers; the tests are unit-free
#: except SchedCAT's G-EDF RTA, whose fixed point creeps by the unit and takes seconds per set in ns)
UNITS = {"ms": (10, 1000), "us": (10_000, 1_000_000), "ns": (10_000_000, 1_000_000_000)}
GEDF = [t for t, (_, corpus, _, _) in PAIRS.items() if corpus == "G-EDF"]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--schedcat-path", type=Path, help="a SchedCAT checkout with its native module built")
    ap.add_argument("--sets", type=int, default=1000, help="sets per corpus (default 1000)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating timed runs of each side (least taken)")
    ap.add_argument("--time-unit", choices=sorted(UNITS), default="us",
                    help="the unit of the sets' integers: periods 10 ms - 1 s in it (default us)")
    ap.add_argument("--json", action="store_true")
    return ap.parse_args(argv)


def load_schedcat(path: Path | None) -> Any:
    """SchedCAT's modules from ``path``, or None with the reason on stderr."""
    if path is None:
        print("SchedCAT: not given (--schedcat-path DIR: a SchedCAT checkout with native/ built); "
              "nothing measured", file=sys.stderr)
        return None
    if not (path / "schedcat" / "sched").is_dir():
        print(f"--schedcat-path {path}: no schedcat/sched package there", file=sys.stderr)
        return None
    sys.path.insert(0, str(path.resolve()))
    try:
        import schedcat.sched as sched  # type: ignore[import-not-found]  # not a dependency: given by path
        import schedcat.sched.fp as fp  # type: ignore[import-not-found]
        import schedcat.model.tasks as model  # type: ignore[import-not-found]
    except ImportError as e:
        print(f"--schedcat-path {path}: cannot import SchedCAT ({e})", file=sys.stderr)
        return None
    if not sched.using_native:
        print(f"--schedcat-path {path}: schedcat.sched.native does not import (build native/ with its Makefile)",
              file=sys.stderr)
        return None
    from schedcat.sched import native  # type: ignore[import-not-found]
    return {"sched": sched, "native": native, "fp": fp, "model": model}


def fp_corpus(sets: int, period_range: tuple[int, int]) -> list[AnalysisProblem]:
    grain = max(1, period_range[0] // 10_000)  # as bench_global_speed.corpora
    return [generate_problem(5 + i % 20, 0.50 + 0.45 * (i % 100) / 99, 4242 + i, period_range_ns=period_range,
                             period_granularity_ns=grain) for i in range(sets)]


def to_schedcat(problem: AnalysisProblem, model: Any) -> Any:
    """SchedCAT's TaskSystem of the same tasks (ns), in decreasing priority (SchedCAT's FP order)."""
    tasks = sorted(problem.tasks, key=lambda t: -t.priority)
    return model.TaskSystem([model.SporadicTask(t.wcet_ns, t.period_ns, t.deadline_ns, id=t.name) for t in tasks])


def schedcat_call(test: str, sc: Any, m: int) -> Callable[[Any], bool]:
    """SchedCAT's test of ``test`` on m processors, as its Python API calls it (TaskSystem in, bool out)."""
    cls, _, _, _ = PAIRS[test]
    if cls == "fp.rta":
        return lambda ts: bool(sc["fp"].is_schedulable(1, ts))
    native, get = sc["native"], sc["sched"].get_native_taskset
    make = getattr(native, cls)
    args = (1,) if cls == "QPATest" else (m, 1) if cls == "RTAGedf" else (m,)  # RTA: SchedCAT's rta_min_step=1
    return lambda ts: bool(make(*args).is_schedulable(get(ts)))


def _cpu(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def measure(args: argparse.Namespace, sc: Any) -> dict[str, Any]:
    unit = UNITS[args.time_unit]
    sets = {**corpora(args.sets, unit), "FP": fp_corpus(args.sets, unit)}
    converted = {k: [to_schedcat(p, sc["model"]) for p in v] for k, v in sets.items() if k != "G-FP"}
    rows: dict[str, Any] = {}
    verdicts: dict[str, dict[str, list[bool]]] = {"rtsched": {}, "schedcat": {}}
    for test, (cls, corpus, quick, same) in PAIRS.items():
        problems, systems = sets[corpus], converted[corpus]
        calls = [schedcat_call(test, sc, p.cpus) for p in problems]
        prebuilt = None
        if cls != "fp.rta":
            get = sc["sched"].get_native_taskset
            native = sc["native"]
            prebuilt = [(getattr(native, cls), get(ts)) for ts in systems]
        times: dict[str, list[float]] = {"rtsched": [], "rtsched verdict_only": [], "rtsched bounds read": [],
                                          "schedcat": [], "schedcat C++ only": []}
        for _ in range(args.rounds):
            cpu, results = _cpu(lambda: [run_test(test, p) for p in problems])
            times["rtsched"].append(cpu)
            verdicts["rtsched"][test] = [r.schedulable for r in results]
            if test in BOUNDS_READ:
                cpu, _ = _cpu(lambda: [[t.bound_ns for t in run_test(test, p).tasks] for p in problems])
                times["rtsched bounds read"].append(cpu)
            if quick:
                cpu, quick_results = _cpu(lambda: [run_test(test, p, verdict_only=True) for p in problems])
                times["rtsched verdict_only"].append(cpu)
                if [r.schedulable for r in quick_results] != verdicts["rtsched"][test]:
                    raise SystemExit(f"{test}: verdict_only changed a verdict")
            cpu, answers = _cpu(lambda: [call(ts) for call, ts in zip(calls, systems)])
            times["schedcat"].append(cpu)
            verdicts["schedcat"][test] = answers
            if prebuilt is not None:
                cpu, _ = _cpu(lambda: [make(*((1,) if cls == "QPATest" else (p.cpus, 1) if cls == "RTAGedf"
                                              else (p.cpus,))).is_schedulable(ts)
                                       for (make, ts), p in zip(prebuilt, problems)])
                times["schedcat C++ only"].append(cpu)
        best = {k: min(v) for k, v in times.items() if v}
        bounds = test in BOUNDS_READ
        rt, scat = verdicts["rtsched"][test], verdicts["schedcat"][test]
        rows[test] = {
            "schedcat_test": cls, "sets": len(problems), **{k + " cpu_s": round(v, 4) for k, v in best.items()},
            "ratio": round(best["rtsched"] / best["schedcat"], 3),
            "ratio verdict_only": round(best["rtsched verdict_only"] / best["schedcat"], 3) if quick else None,
            "ratio vs C++ only": (round(min(best["rtsched"], best.get("rtsched verdict_only", best["rtsched"]))
                                        / best["schedcat C++ only"], 3) if prebuilt is not None else None),
            "ratio bounds read": round(best["rtsched bounds read"] / best["schedcat"], 3) if bounds else None,
            "ratio bounds read vs C++ only": (round(best["rtsched bounds read"] / best["schedcat C++ only"], 3)
                                              if bounds and prebuilt is not None else None),
            "target": TARGETS.get(test),
            "target_met": (min(best["rtsched"], best.get("rtsched verdict_only", best["rtsched"])) / best["schedcat"]
                           <= TARGETS[test]) if test in TARGETS else None,
            "target_met bounds read": (best["rtsched bounds read"] / best["schedcat"] <= TARGETS[test]
                                       if test in BOUNDS_TARGETS else None),
            "rtsched_accepts": sum(rt), "schedcat_accepts": sum(scat),
            "only_rtsched": sum(a and not b for a, b in zip(rt, scat)),
            "only_schedcat": sum(b and not a for a, b in zip(rt, scat)), "same_test": same}
    return {"rows": rows, "verdicts": verdicts, "sets": sets}


def dominance(result: dict[str, Any]) -> list[dict[str, Any]]:
    """G-EDF sets that some SchedCAT test accepts and every rtsched G-EDF test rejects."""
    v, problems = result["verdicts"], result["sets"]["G-EDF"]
    broken = []
    for i, p in enumerate(problems):
        by_schedcat = [t for t in GEDF if v["schedcat"][t][i]]
        if by_schedcat and not any(v["rtsched"][t][i] for t in GEDF):
            broken.append({"set": p.name, "cpus": p.cpus, "schedcat_accepts_with": [PAIRS[t][0] for t in by_schedcat],
                           "tasks": [(t.wcet_ns, t.period_ns, t.deadline_ns) for t in p.tasks]})
    return broken


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    sc = load_schedcat(args.schedcat_path)
    if sc is None:
        return 2
    result = measure(args, sc)
    rows, broken = result["rows"], dominance(result)
    v = result["verdicts"]
    union = {side: sum(any(v[side][t][i] for t in GEDF) for i in range(len(result["sets"]["G-EDF"])))
             for side in ("rtsched", "schedcat")}
    disagree = [t for t, r in rows.items() if r["same_test"] and (r["only_rtsched"] or r["only_schedcat"])]
    if args.json:
        print(json.dumps({"time_unit": args.time_unit, "sets": args.sets, "rounds": args.rounds, "tests": rows,
                          "gedf_union_accepts": union, "dominance_broken": broken,
                          "same_test_disagreements": disagree}, indent=1))
    else:
        print(f"time unit {args.time_unit} (periods {UNITS[args.time_unit][0]}-{UNITS[args.time_unit][1]}); "
              f"{args.sets} sets per test, least CPU time of {args.rounds} alternating runs; "
              "ratio = rtsched / SchedCAT (Python call over its C++; FP RTA: its Python)")
        print(f"{'rtsched test':20s} {'SchedCAT':17s} {'rtsched':>8s} {'v.only':>8s} {'SchedCAT':>9s} "
              f"{'C++ only':>9s} {'ratio':>7s} {'v.only':>7s} {'vs C++':>7s} {'target':>11s}  accepts rt/sc (only rt, only sc)")
        for test, r in rows.items():
            vo = r.get("rtsched verdict_only cpu_s")
            cpp = r.get("schedcat C++ only cpu_s")
            target = f"<={r['target']:.2f} {'met' if r['target_met'] else 'NOT'}" if r["target"] else ""
            rvo = f"{r['ratio verdict_only']:7.3f}" if r["ratio verdict_only"] is not None else f"{'':7s}"
            rcpp = f"{r['ratio vs C++ only']:7.3f}" if r["ratio vs C++ only"] is not None else f"{'':7s}"
            print(f"{test:20s} {r['schedcat_test']:17s} {r['rtsched cpu_s']:8.3f} "
                  f"{vo if vo is not None else '':>8} {r['schedcat cpu_s']:9.3f} {cpp if cpp is not None else '':>9} "
                  f"{r['ratio']:7.3f} {rvo} {rcpp} {target:>11s}  {r['rtsched_accepts']}/{r['schedcat_accepts']} "
                  f"({r['only_rtsched']}, {r['only_schedcat']})")
        for test, r in rows.items():
            if r["ratio bounds read"] is not None:
                vs_cpp = r["ratio bounds read vs C++ only"]
                print(f"{test:20s} bounds read: {r['rtsched bounds read cpu_s']:.3f} s, "
                      f"ratio {r['ratio bounds read']:.3f}"
                      + (f" (C++ only {vs_cpp:.3f})" if vs_cpp is not None else "")
                      + (f", target <={r['target']:.2f} {'met' if r['target_met bounds read'] else 'NOT'}"
                         if r["target_met bounds read"] is not None else ""))
        print(f"G-EDF union of accepts on {len(result['sets']['G-EDF'])} sets: rtsched {union['rtsched']}, "
              f"SchedCAT {union['schedcat']}")
        for b in broken:
            print(f"DOMINANCE BROKEN: {b['set']} (m = {b['cpus']}) accepted by SchedCAT's "
                  f"{', '.join(b['schedcat_accepts_with'])}, rejected by every rtsched G-EDF test: {b['tasks']}")
        if not broken:
            print("dominance holds: every set a SchedCAT G-EDF test accepts, an rtsched G-EDF test accepts")
        for t in disagree:
            print(f"DISAGREEMENT: {t} and SchedCAT's {rows[t]['schedcat_test']} (the same test) differ on "
                  f"{rows[t]['only_rtsched'] + rows[t]['only_schedcat']} sets")
    return 1 if broken or disagree else 0


if __name__ == "__main__":
    sys.exit(main())

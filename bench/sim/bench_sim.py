#!/usr/bin/env python3
"""Speed of rtsched.sim in simulated jobs per second, beside SimSo on the same task sets in the
same run (docs/sim.md, issue 16's target: at least 50x SimSo; a simulated minute of a 20-task
set well under a second).

    PYTHONPATH=python RTSCHED_NATIVE_BIN=build/dev/tools \
        python3 bench/sim/bench_sim.py [--simso-path /tmp/simso-venv] [--json]

rtsched.sim runs each set twice: in the compiled compute-only loop (``rtsched-sim-loop``, found
as rtsched finds its native programs; without it the comparison says so) and in the Python one
(``SimOptions(native=False)``), each writing its trace file, and the two must complete the same
jobs. Every run is repeated ``--repeat`` times (SimSo's too) and the fastest kept.

Sets: uniprocessor RM and EDF (P-FP / P-EDF on one CPU) with 5, 10, 20 and 50 tasks at
U = 0.7, and G-EDF on 4 CPUs (U = 2.8), periods from 10 to 100 ms drawn with a fixed seed,
implicit deadlines, every job at its WCET. SimSo (PyPI ``simso``, with its pinned SimPy 2)
runs the same sets (RM_mono, EDF_mono, EDF on 4 processors) in a subprocess whose
PYTHONPATH is ``--simso-path`` (install it there with ``pip install --target``; it brings
its own numpy, which must not shadow this process's). Without SimSo the comparison says so.
Prints jobs/s of each and their ratio; the ratio is what compares between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rtsched.model import taskset_from_dict
from rtsched.sim import SimOptions, simulate
from rtsched.sim.native_loop import native_loop_program

MS = 1_000_000
PERIODS_MS = (10, 12, 15, 20, 24, 25, 30, 40, 50, 60, 75, 80, 100)

SIMSO_SCRIPT = r"""
import json, sys, time
from simso.configuration import Configuration
from simso.core import Model
spec = json.loads(sys.stdin.read())
conf = Configuration()
conf.duration = spec["duration_ms"] * conf.cycles_per_ms
for i, (period, wcet) in enumerate(spec["tasks"]):
    conf.add_task(name=f"t{i}", identifier=i + 1, period=period, activation_date=0, wcet=wcet, deadline=period)
for cpu in range(spec["cpus"]):
    conf.add_processor(name=f"cpu{cpu}", identifier=cpu + 1)
conf.scheduler_info.clas = spec["scheduler"]
conf.check_all()
model = Model(conf)
start = time.perf_counter()
model.run_model()
wall = time.perf_counter() - start
jobs = sum(1 for task in model.task_list for job in task.jobs if job.end_date is not None)
print(json.dumps({"jobs": jobs, "wall_s": wall}))
"""

SIMSO_SCHEDULERS = {"RM": "simso.schedulers.RM_mono", "EDF": "simso.schedulers.EDF_mono",
                    "G-EDF": "simso.schedulers.EDF"}


def generate(n: int, utilization: float, seed: int) -> list[tuple[int, int]]:
    """(period_ms, wcet_us) of n tasks whose utilization sums to about ``utilization``."""
    rng = random.Random(seed)
    periods = [rng.choice(PERIODS_MS) for _ in range(n)]
    shares = [rng.uniform(0.1, 1.0) for _ in range(n)]
    total = sum(shares)
    return [(p, max(10, int(utilization * s / total * p * 1000))) for p, s in zip(periods, shares)]


def taskset(kind: str, tasks: list[tuple[int, int]], cpus: int):
    scheduler = {"RM": "P-FP", "EDF": "P-EDF", "G-EDF": "G-EDF"}[kind]
    order = sorted(range(len(tasks)), key=lambda i: (tasks[i][0], i))
    rows = []
    for rank, i in enumerate(order):  # rows in RM order
        period, wcet = tasks[i]
        row = {"name": f"t{i}", "period": f"{period}ms", "body": [{"compute": f"{wcet}us"}]}
        if scheduler != "G-EDF":
            row["partition"] = "cpu0"
        if scheduler == "P-FP":
            row["priority"] = max(1, 99 - rank)  # rate monotonic, distinct while there are levels
        rows.append(row)
    data = {"name": f"bench-{kind}-{len(tasks)}", "platform": {"scheduler": scheduler, "cpus": list(range(cpus))},
            "tasks": rows}
    return taskset_from_dict(data)


def run_ours(ts, duration_ns: int, trace_dir: Path, native: bool, repeat: int) -> dict:
    """The fastest of ``repeat`` runs of rtsched.sim, trace file written: jobs, wall, the loop that ran."""
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        run = simulate(ts, SimOptions(duration_ns=duration_ns, native=native), trace_dir / "bench.rtst")
        wall = time.perf_counter() - start
        if best is None or wall < best["wall_s"]:
            best = {"jobs": run.jobs_completed, "wall_s": wall, "engine": run.engine}
    assert best is not None
    return best


def run_simso(kind: str, tasks: list[tuple[int, int]], cpus: int, duration_ms: int, simso_path: str,
              repeat: int) -> dict | None:
    spec = {"duration_ms": duration_ms, "cpus": cpus, "scheduler": SIMSO_SCHEDULERS[kind],
            "tasks": [(p, w / 1000) for p, w in tasks]}
    env = {**os.environ, "PYTHONPATH": simso_path}
    best = None
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", SIMSO_SCRIPT], input=json.dumps(spec), capture_output=True,
                              text=True, env=env, timeout=600)
        if done.returncode != 0:
            return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"}
        run = json.loads(done.stdout.strip().splitlines()[-1])  # SimSo prints its own lines first
        if best is None or run["wall_s"] < best["wall_s"]:
            best = run
    return best


def simso_available(simso_path: str | None) -> str | None:
    """Why SimSo cannot run here (None: it can)."""
    if not simso_path:
        return "no --simso-path given"
    env = {**os.environ, "PYTHONPATH": simso_path}
    probe = subprocess.run([sys.executable, "-c", "import simso.core"], capture_output=True, text=True, env=env)
    return None if probe.returncode == 0 else f"simso does not import from {simso_path}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simso-path", default=os.environ.get("SIMSO_PATH"),
                        help="folder with simso installed (pip install --target); default $SIMSO_PATH")
    parser.add_argument("--duration", type=float, default=60.0, help="simulated seconds for rtsched.sim (default 60)")
    parser.add_argument("--simso-duration", type=float, default=5.0,
                        help="simulated seconds for SimSo (default 5; jobs/s is what compares)")
    parser.add_argument("--sizes", default="5,10,20,50")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each simulator per set, the fastest kept")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    missing = simso_available(args.simso_path)
    no_native = None if native_loop_program() is not None else "rtsched-sim-loop not built (set RTSCHED_NATIVE_BIN)"
    rows = []
    cases = [(kind, int(n), 1 if kind != "G-EDF" else 4) for kind in ("RM", "EDF", "G-EDF")
             for n in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        for kind, n, cpus in cases:
            tasks = generate(n, 0.7 * cpus, seed=n * 31 + cpus)
            ts = taskset(kind, tasks, cpus)
            row: dict = {"scheduler": kind, "tasks": n, "cpus": cpus, "simulated_s": args.duration}
            loops = [("python", False)] if no_native else [("native", True), ("python", False)]
            for label, native in loops:
                ours = run_ours(ts, int(args.duration * 1e9), Path(tmp), native, args.repeat)
                assert ours["engine"] == label, f"{kind} {n}: ran in the {ours['engine']} loop, not {label}"
                row.update({f"{label}_jobs": ours["jobs"], f"{label}_wall_s": round(ours["wall_s"], 4),
                            f"{label}_jobs_per_s": round(ours["jobs"] / ours["wall_s"])})
            if not no_native:
                assert row["native_jobs"] == row["python_jobs"], f"{kind} {n}: the two loops completed other jobs"
            if missing is None:
                theirs = run_simso(kind, tasks, cpus, int(args.simso_duration * 1000), args.simso_path, args.repeat)
                if theirs and "error" not in theirs and theirs["wall_s"] > 0:
                    row.update(simso_jobs=theirs["jobs"], simso_wall_s=round(theirs["wall_s"], 4),
                               simso_jobs_per_s=round(theirs["jobs"] / theirs["wall_s"]))
                    for label, _native in loops:
                        row[f"{label}_speedup"] = round(row[f"{label}_jobs_per_s"] / row["simso_jobs_per_s"], 1)
                else:
                    row["simso_error"] = (theirs or {}).get("error", "failed")
            rows.append(row)
            if not args.json:
                print(_line(row, loops, missing), flush=True)
    if args.json:
        print(json.dumps({"simso": missing or "compared", "native": no_native or "compared", "rows": rows}, indent=2))
    else:
        for why in (missing and f"SimSo not compared: {missing}", no_native and f"native loop not run: {no_native}"):
            if why:
                print(why)
    return 0


def _line(row: dict, loops: list[tuple[str, bool]], missing: str | None) -> str:
    """One set's figures: jobs, then jobs/s (and x SimSo) of each loop, then SimSo's jobs/s."""
    parts = [f"{row['scheduler']:>5} {row['tasks']:>3} tasks {row['cpus']} CPU: {row['python_jobs']:>7} jobs"]
    for label, _native in loops:
        speedup = f" x{row[label + '_speedup']:<6}" if label + "_speedup" in row else ""
        parts.append(f"{label} {row[label + '_wall_s']:.3f} s {row[label + '_jobs_per_s']:>10,}/s{speedup}")
    parts.append(f"SimSo {row['simso_jobs_per_s']:>7,}/s" if "simso_jobs_per_s" in row
                 else f"SimSo: {row.get('simso_error', missing)}")
    return "  ".join(parts)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Job release latency of rtsched-run against cyclictest, in one invocation.

Release latency = START − RELEASE of each job (docs/trace-format.md): the time
from a job's nominal release to its first instruction, measured from the
trace of rtsched-run running one periodic SCHED_FIFO task (compute 10 us) at
period P on one CPU. cyclictest measures the same thing for its timer
thread: absolute clock_nanosleep to the programmed time, then the time read
after waking. Both run on the same CPU, same policy and priority, same
interval, **one after the other, alternating** (rtsched, cyclictest,
rtsched, cyclictest, ...): run concurrently on one CPU at the same period
and priority, the two threads would wake at nearly the same instants and
each would delay the other by its own wake-up and body, which measures their
interference, not their latency; alternating rounds spread the VM's slow
background drift over both tools.

cyclictest reports whole microseconds (its histogram's 1 us buckets, the
latency truncated), so the ratio is computed on rtsched's latencies
truncated the same way; the nanosecond median is printed too.

    python3 bench/release-latency/release_latency.py [--cpu 1] [--seconds 10] [--rounds 10]
        [--period-us 1000] [--priority 95] [--json]

Needs root (SCHED_FIFO), cyclictest (rt-tests) and rtsched installed (or
PYTHONPATH=python and RTSCHED_NATIVE_BIN=build/tools/run).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from rtsched.model import loads_taskset, to_runner_input
from rtsched.native import native_tool
from rtsched.report import build_job_table
from rtsched.trace import read_trace as load_trace

TARGET_RATIO = 1.2


def rtsched_round(cpu: int, period_us: int, priority: int, seconds: float, folder: Path):
    """Release latencies (ns) of one rtsched-run round, and which jobs found the task idle."""
    text = f"""
name: release-latency
platform: {{scheduler: P-FP, cpus: [{cpu}]}}
tasks:
  - {{name: tick, period: {period_us}us, priority: {priority}, partition: cpu{cpu}, body: [{{compute: 10us}}]}}
"""
    taskset = loads_taskset(text, "yaml", source="release-latency")
    trace = folder / "trace.rtst"
    spec = to_runner_input(taskset, trace, duration_ns=int(seconds * 1e9), buffer_events=1 << 16)
    (folder / "runner.json").write_text(json.dumps(spec))
    done = subprocess.run([str(native_tool("rtsched-run")), str(folder / "runner.json"), "--quiet"],
                          capture_output=True, text=True, timeout=seconds + 60)
    if done.returncode != 0:
        raise SystemExit(f"rtsched-run failed ({done.returncode}): {done.stderr.strip()}")
    table = build_job_table(load_trace(trace))
    if table.lost_total:
        print(f"warning: {table.lost_total} trace events lost", file=sys.stderr)
    jobs = table.jobs
    # A job released while its predecessor still ran (after a stall) waits for it: its
    # latency is backlog, which cyclictest never records (it skips missed periods).
    free = np.ones(len(jobs), dtype=bool)
    free[1:] = jobs["release"][1:] >= jobs["completion"][:-1]
    return jobs["release_latency"].astype(np.int64), free


def cyclictest_round(cpu: int, period_us: int, priority: int, seconds: float) -> np.ndarray:
    """Latencies (whole us) of one cyclictest round, expanded from its histogram."""
    loops = int(seconds * 1e6 / period_us)
    max_us = 20000
    command = ["cyclictest", "-m", "-q", "-a", str(cpu), "-t", "1", "-i", str(period_us), "-d", "0",
               "-l", str(loops), "-p", str(priority), "-h", str(max_us)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")
    values, counts, overflows = [], [], 0
    for line in done.stdout.splitlines():
        if line.startswith("# Histogram Overflows:"):
            overflows = int(line.split(":", 1)[1].split()[0])
        if not line or line.startswith("#"):
            continue
        us, count = line.split()[:2]
        if int(count):
            values.append(int(us))
            counts.append(int(count))
    samples = np.repeat(np.array(values, dtype=np.int64), counts)
    if overflows:  # beyond the histogram: count them at its end (only raises the tail)
        samples = np.concatenate([samples, np.full(overflows, max_us, dtype=np.int64)])
    return samples


def describe(us: np.ndarray) -> dict:
    return {
        "samples": int(len(us)),
        "median_us": float(np.median(us)),
        "p99_us": float(np.percentile(us, 99)),
        "max_us": float(np.max(us)),
        "mean_us": float(np.mean(us)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0, help="per tool, split over the rounds")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--period-us", type=int, default=1000)
    parser.add_argument("--priority", type=int, default=95)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not shutil.which("cyclictest"):
        raise SystemExit("cyclictest not found (Debian package rt-tests; scripts/setup installs it)")
    per_round = args.seconds / args.rounds
    ours_ns, ours_free, theirs_us = [], [], []
    with tempfile.TemporaryDirectory(prefix="rtsched-release-latency-") as tmp:
        for r in range(args.rounds):
            print(f"round {r + 1}/{args.rounds}: rtsched-run {per_round:g} s, cyclictest {per_round:g} s",
                  file=sys.stderr)
            latencies, free = rtsched_round(args.cpu, args.period_us, args.priority, per_round, Path(tmp))
            ours_ns.append(latencies)
            ours_free.append(free)
            theirs_us.append(cyclictest_round(args.cpu, args.period_us, args.priority, per_round))
    ours = np.concatenate(ours_ns)
    free = np.concatenate(ours_free)
    theirs = np.concatenate(theirs_us)
    ours_us = ours // 1000  # truncated like cyclictest's
    result = {
        "cpu": args.cpu,
        "period_us": args.period_us,
        "priority": args.priority,
        "seconds_per_tool": args.seconds,
        "rounds": args.rounds,
        "rtsched": {**describe(ours_us), "median_ns": float(np.median(ours)), "p99_ns": float(np.percentile(ours, 99))},
        "rtsched_idle_releases": describe(ours_us[free]),
        "cyclictest": describe(theirs),
    }
    ratio = result["rtsched"]["median_us"] / max(result["cyclictest"]["median_us"], 1e-9)
    result["median_ratio"] = round(ratio, 3)
    result["p99_ratio"] = round(result["rtsched"]["p99_us"] / max(result["cyclictest"]["p99_us"], 1e-9), 3)
    result["target_median_ratio"] = TARGET_RATIO
    result["meets_target"] = ratio <= TARGET_RATIO
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"job release latency, CPU {args.cpu}, period {args.period_us} us, SCHED_FIFO {args.priority}, "
          f"{args.seconds:g} s per tool in {args.rounds} alternating rounds")
    print(f"{'':12} {'samples':>8} {'median':>8} {'p99':>8} {'max':>8}   (us)")
    for name in ("rtsched", "rtsched_idle_releases", "cyclictest"):
        d = result[name]
        label = {"rtsched_idle_releases": "  idle only"}.get(name, name)
        print(f"{label:12} {d['samples']:8d} {d['median_us']:8.1f} {d['p99_us']:8.1f} {d['max_us']:8.0f}")
    print("  idle only: jobs released after the previous job completed (cyclictest skips missed periods)")
    print(f"rtsched median in ns: {result['rtsched']['median_ns']:.0f}")
    print(f"median ratio rtsched/cyclictest: {ratio:.2f} (target <= {TARGET_RATIO}: "
          f"{'met' if result['meets_target'] else 'NOT met'}); p99 ratio {result['p99_ratio']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

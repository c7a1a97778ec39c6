#!/usr/bin/env python3
"""Seed 000 (Cerqueira & Brandenburg) on this machine, with `rtsched latency`.

1. validity: idle, SCHED_FIFO 99, rtsched-latency against cyclictest with the
   same parameters in the same invocation (rounds alternate the two tools);
2. the timer-slack view (SCHED_OTHER, SCHED_OTHER + slack 1 ns, SCHED_FIFO);
3. loads none / cpu / io x policies OTHER / FIFO / DEADLINE, without and with
   a shield of one CPU (both CPUs measured in each run, so the shielded CPU and
   the unshielded one see the same load at the same time);
4. shielded against unshielded under the cpu+io load.

Every run is one `rtsched latency ... --json` command; the commands, the
summaries and PNGs go to --out. Prints Markdown tables for docs/measurement.md.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import fmt, pick_shield_cpu, rtsched  # noqa: E402


def latency(args: list[str], out: Path, name: str) -> dict:
    report = out / f"{name}.json"
    command = ["latency", *args, "--no-progress", "--json", str(report), "--png", str(out / f"{name}.png")]
    rtsched(command)
    document = json.loads(report.read_text())
    document["command"] = "rtsched " + shlex.join(command)
    # Keep the summaries and commands; drop raw histograms of big runs from the copy we print.
    return document


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per run (8)")
    parser.add_argument("--compare-duration", type=float, default=60.0, help="seconds of the validity comparison (60)")
    parser.add_argument("--out", type=Path, default=Path("docs/measurement"))
    parser.add_argument("--only", choices=("validity", "slack", "matrix", "shield"), action="append")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    parts = args.only or ["validity", "slack", "matrix", "shield"]
    shield_cpu = pick_shield_cpu()
    results: dict = {"shield_cpu": shield_cpu}
    d = str(args.duration)

    if "validity" in parts:
        doc = latency(["--policy", "fifo", "--priority", "99", "--duration", str(args.compare_duration),
                       "--compare-cyclictest", "--rounds", "6"], args.out, "validity_fifo_idle")
        results["validity"] = {"command": doc["command"], "comparison": doc["comparison"], "summary": doc["summary"]}
        print(f"\n### validity: `{doc['command']}`\n")
        print("| CPU | p50 rtsched | p50 cyclictest | ratio | p99 rtsched | p99 cyclictest | ratio |")
        print("|---|---|---|---|---|---|---|")
        for r in doc["comparison"]:
            print(f"| {r['label']} | {fmt(r['p50_a'])} | {fmt(r['p50_b'])} | {fmt(r['p50_ratio'], 3)} | "
                  f"{fmt(r['p99_a'])} | {fmt(r['p99_b'])} | {fmt(r['p99_ratio'], 3)} |")

    if "slack" in parts:
        doc = latency(["--timerslack-view", "--duration", d], args.out, "timerslack_view")
        results["slack"] = {"command": doc["command"], "summary": doc["summary"]}
        print(f"\n### timer slack: `{doc['command']}`\n")
        table(doc["summary"])

    if "matrix" in parts:
        results["matrix"] = []
        for load in ("none", "cpu", "io"):
            for shield in (False, True):
                for policy in ("other", "fifo", "deadline"):
                    name = f"matrix_{load}_{policy}_{'shield' if shield else 'noshield'}"
                    extra = ["--shield", str(shield_cpu)] if shield else []
                    doc = latency(["--load", load, "--policy", policy, "--duration", d, *extra], args.out, name)
                    results["matrix"].append({"load": load, "policy": policy, "shield": shield,
                                              "command": doc["command"], "summary": doc["summary"]})
        print(f"\n### loads x policies x shield (shield on CPU {shield_cpu}; both CPUs measured)\n")
        print("| load | policy | shield | CPU | samples | p50 | p99 | p99.9 | max | overflows |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for row in results["matrix"]:
            for s in row["summary"]:
                cpu = s["label"].split()[-1]
                print(f"| {row['load']} | {row['policy']} | {'CPU ' + str(shield_cpu) if row['shield'] else '-'} | "
                      f"{cpu} | {s['samples']} | {fmt(s['p50_us'])} | {fmt(s['p99_us'])} | {fmt(s['p99_9_us'])} | "
                      f"{fmt(s['max_us'])} | {s['overflows']} |")

    if "shield" in parts:
        doc = latency(["--load", "cpu+io", "--policy", "fifo", "--duration", str(2 * args.duration),
                       "--shield", str(shield_cpu)], args.out, "shield_cpu_io_fifo")
        results["shield"] = {"command": doc["command"], "summary": doc["summary"]}
        print(f"\n### shielded vs unshielded, cpu+io load, same run: `{doc['command']}`\n")
        table(doc["summary"])

    (args.out / "latency_results.json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


def table(summary: list[dict]) -> None:
    print("| run | samples | min | avg | p50 | p99 | p99.9 | max | overflows |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in summary:
        print(f"| {s['label']} | {s['samples']} | {fmt(s['min_us'])} | {fmt(s['avg_us'])} | {fmt(s['p50_us'])} | "
              f"{fmt(s['p99_us'])} | {fmt(s['p99_9_us'])} | {fmt(s['max_us'])} | {s['overflows']} |")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Seed 002 §2.5.2 (ASMP-Linux OS overhead) on this machine, with `rtsched overhead`.

For each load (idle, cpu, aio, sio, mix): the four variants N (SCHED_OTHER),
R_w (SCHED_FIFO on the CPU taking the device interrupts), R_b (SCHED_FIFO on
the quietest CPU) and A_on (SCHED_FIFO on a shielded CPU), in one invocation
each, so one base T serves all four. Prints Markdown tables; JSON and PNGs go to --out.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import fmt, pick_shield_cpu, rtsched  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--target-ms", type=float, default=100.0)
    parser.add_argument("--loads", default="idle,cpu,aio,sio,mix")
    parser.add_argument("--out", type=Path, default=Path("docs/measurement"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    shield_cpu = pick_shield_cpu()
    results = []
    print("| load | variant | CPU | runs | eps avg (ms) | eps std | eps p99 | eps max |")
    print("|---|---|---|---|---|---|---|---|")
    for load in args.loads.split(","):
        report = args.out / f"overhead_{load}.json"
        command = ["overhead", "--load", load, "--iterations", str(args.iterations), "--target-ms",
                   str(args.target_ms), "--shield-cpu", str(shield_cpu), "--json", str(report),
                   "--png", str(args.out / f"overhead_{load}.png")]
        rtsched(command)
        document = json.loads(report.read_text())
        results.append({"load": load, "command": "rtsched " + shlex.join(command),
                        "base_ns": document["base_ns"],
                        "summaries": [v["summary"] for v in document["variants"]]})
        for s in results[-1]["summaries"]:
            print(f"| {load} | {s['variant']} | {s['cpu']} | {s['iterations']} | {fmt(s['eps_avg_ms'], 3)} | "
                  f"{fmt(s['eps_std_ms'], 3)} | {fmt(s['eps_p99_ms'], 3)} | {fmt(s['eps_max_ms'], 3)} |", flush=True)
    (args.out / "overhead_results.json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

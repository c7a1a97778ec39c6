#!/usr/bin/env python3
"""Seed 000's RTSim study of PI-CV (Cucinotta, OSPERT 2013, §V) in rtsched.sim:
examples/picv-rtsim.yaml simulated with and without PI-CV, each client's response
times (the paper's Fig. 7 a-c) and the time each thread is assigned each priority
(its Fig. 8), from the PRIORITY events the simulator writes.

    PYTHONPATH=python python3 bench/sim/picv_rtsim.py [--out docs/figures] [--json]

Prints, per client and variant, jobs, mean, p90 and maximum response (ms), and per
thread the time at each priority; draws picv-rtsim-cdf.png and picv-rtsim-priority.png
into --out. A simulation, so the figures are exact and repeat from run to run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from rtsched.model import load_taskset
from rtsched.report import build_report
from rtsched.report.jobs import JobTable
from rtsched.report.plots import pyplot
from rtsched.report.priorities import PriorityTime
from rtsched.analysis import bounds_for
from rtsched.sim import SimOptions, simulate
from rtsched.trace import read_trace

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "picv-rtsim.yaml"
VARIANTS = {"PI-CV": True, "no PI-CV": False}
MS = 1e6


def simulate_variants(path: Path = EXAMPLE) -> dict[str, tuple[JobTable, tuple[PriorityTime, ...]]]:
    """Per variant, the job table and the time at each priority of one simulation."""
    taskset = load_taskset(path)
    analysis = bounds_for(taskset)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for variant, picv in VARIANTS.items():
            run = simulate(taskset, SimOptions(picv=picv), Path(tmp) / f"{picv}.rtst")
            assert run.trace_path is not None
            report = build_report(read_trace(run.trace_path), taskset, analysis, run.placement)
            out[variant] = (report.table, report.priorities)
    return out


def responses_ms(table: JobTable, name: str) -> np.ndarray:
    info = next(t for t in table.tasks if t.name == name)
    return np.sort(table.of_task(info.index)["response"]) / MS


def rows(results: dict[str, tuple[JobTable, tuple[PriorityTime, ...]]]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for variant, (table, _priorities) in results.items():
        for info in table.tasks:
            r = responses_ms(table, info.name)
            out.append({"task": info.name, "variant": variant, "jobs": len(r), "mean_ms": round(float(r.mean()), 3),
                        "p90_ms": round(float(np.percentile(r, 90)), 3), "max_ms": round(float(r.max()), 3)})
    return out


def plot_cdfs(results: dict[str, tuple[JobTable, tuple[PriorityTime, ...]]], path: Path) -> None:
    """Fig. 7: (a) the highest and lowest client with and without PI-CV, (b) all clients without,
    (c) all clients with."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), dpi=100, sharex=True, sharey=True)
    names = [t.name for t in next(iter(results.values()))[0].tasks]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    panels = ((axes[0], (names[0], names[-1]), tuple(VARIANTS), "(a) highest and lowest client"),
              (axes[1], tuple(names), ("no PI-CV",), "(b) without PI-CV"),
              (axes[2], tuple(names), ("PI-CV",), "(c) with PI-CV"))
    for ax, shown, variants, title in panels:
        for variant in variants:
            table = results[variant][0]
            for name in shown:
                r = responses_ms(table, name)
                ax.step(r, np.arange(1, len(r) + 1) / len(r), where="post",
                        color=colors[names.index(name) % len(colors)],
                        linestyle="-" if variant == "PI-CV" else "--", label=f"{name}, {variant}")
        ax.set_title(title)
        ax.set_xlabel("response time (ms)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
    axes[0].set_ylabel("fraction of jobs")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_priorities(results: dict[str, tuple[JobTable, tuple[PriorityTime, ...]]], path: Path) -> None:
    """Fig. 8: per variant and thread, the time (ms, log scale) assigned each priority."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(results), figsize=(12, 4.5), dpi=100, sharey=True)
    levels = sorted({p for _t, prios in results.values() for row in prios for p, _ns in row.ns_at_priority},
                    reverse=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    width = 0.8 / len(levels)
    for ax, (variant, (_table, prios)) in zip(axes, results.items()):
        for k, level in enumerate(levels):
            ms = [dict(row.ns_at_priority).get(level, 0) / MS for row in prios]
            ax.bar([i + (k - (len(levels) - 1) / 2) * width for i in range(len(prios))], ms, width,
                   color=colors[k % len(colors)], label=f"priority {level}")
        ax.set_xticks(range(len(prios)), [row.thread for row in prios])
        ax.set_yscale("log")
        ax.set_title(variant)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("time assigned the priority (ms, log scale)")
    axes[-1].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/figures"), help="folder of the two PNGs")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    results = simulate_variants()
    table = rows(results)
    priorities = {v: [p.as_dict() for p in prios] for v, (_t, prios) in results.items()}
    args.out.mkdir(parents=True, exist_ok=True)
    plot_cdfs(results, args.out / "picv-rtsim-cdf.png")
    plot_priorities(results, args.out / "picv-rtsim-priority.png")
    if args.json:
        print(json.dumps({"responses": table, "time_at_priority": priorities}, indent=2))
        return 0
    print(f"{'task':8} {'variant':9} {'jobs':>5} {'mean':>7} {'p90':>7} {'max':>7}   (ms)")
    for row in table:
        print(f"{row['task']:8} {row['variant']:9} {row['jobs']:>5} {row['mean_ms']:>7.3f} {row['p90_ms']:>7.3f} "
              f"{row['max_ms']:>7.3f}")
    for variant, prios in priorities.items():
        for p in prios:
            spent = ", ".join(f"{level}: {ns / MS:.2f}" for level, ns in p["ns_at_priority"].items())
            print(f"{variant:9} {p['thread']:8} ms at priority {spent}")
    print(f"figures: {args.out / 'picv-rtsim-cdf.png'}, {args.out / 'picv-rtsim-priority.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``rtsched sim FILE --dvfs POLICY``: EDF under a DVFS policy beside the WCET-only baseline.

The baseline (``none``: the highest frequency throughout) and the policy run
on the same execution-time draws in the same invocation; ``--dvfs compare``
runs every policy. Prints whether this machine has cpufreq, then a table
(energy, its ratio to the baseline, mean frequency, misses, jobs, the largest
response over its deadline, τ0's work)
and writes DIR/: ``trace-<policy>.rtst`` per policy (FREQ_CHANGE events on the
``cpufreq`` stream), ``frequency.png`` (frequency over time per CPU, every
policy run) and ``dvfs.json``. See docs/dvfs.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtsched.cli.exit_codes import Exit
from rtsched.outputs import write_text

if TYPE_CHECKING:
    from rtsched.model import TaskSet
    from rtsched.sim import SimOptions
    from rtsched.sim.dvfs_run import DvfsRun

__all__ = ["add_dvfs_options", "sim_dvfs"]

#: The ``--dvfs`` value that runs every policy.
COMPARE = "compare"


def add_dvfs_options(parser: argparse.ArgumentParser) -> None:
    from rtsched.sim.dvfs_policies import POLICIES

    parser.add_argument("--dvfs", metavar="POLICY", choices=POLICIES + (COMPARE,),
                        help="EDF with a DVFS policy from platform.dvfs: " + ", ".join(POLICIES)
                        + f", or {COMPARE} (all); the WCET-only baseline (none) runs beside it "
                        "(docs/dvfs.md)")
    parser.add_argument("--tau0", action="store_true",
                        help="with --dvfs: a background partition that runs only in the slack the jobs leave")
    parser.add_argument("--segments", action="store_true",
                        help="with --dvfs: each compute is a segment whose end tells the policy the WCET it "
                        "did not use (default: the policy learns a job's work at its completion)")


def _mj(pj: Fraction) -> float:
    return float(pj) / 1e9


def _responses(run: DvfsRun) -> list[dict[str, Any]]:
    """Per task, from the run's trace read back as any run's (``rtsched.report``)."""
    from rtsched.report.jobs import build_job_table
    from rtsched.trace import read_trace

    assert run.trace_path is not None
    table = build_job_table(read_trace(run.trace_path))
    out = []
    for info in table.tasks:
        rows = table.of_task(info.index)
        out.append({"task": info.name, "jobs": int(len(rows)), "deadline_ms": info.deadline_ns / 1e6,
                    "max_response_ms": float(rows["response"].max()) / 1e6 if len(rows) else None,
                    "mean_response_ms": float(rows["response"].mean()) / 1e6 if len(rows) else None})
    return out


def _worst_response_ratio(tasks: list[dict[str, Any]]) -> float | None:
    ratios = [t["max_response_ms"] / t["deadline_ms"] for t in tasks if t["max_response_ms"] is not None]
    return max(ratios) if ratios else None


def _summary(run: DvfsRun, base: DvfsRun, trace: str) -> dict[str, Any]:
    tasks = _responses(run)
    return {
        "policy": run.policy,
        "energy_mj": _mj(run.energy_pj),
        "energy_vs_baseline": float(run.energy_pj / base.energy_pj) if base.energy_pj else None,
        "mean_frequency_mhz": float(run.mean_frequency_mhz()),
        "deadline_misses": run.misses,
        "jobs_completed": run.jobs_completed,
        "frequency_changes": sum(len(c.freq_events) for c in run.cpus),
        "tau0_work_ms": float(run.tau0_work_ns) / 1e6 if run.tau0 else None,
        "trace": trace,
        "worst_response_over_deadline": _worst_response_ratio(tasks),
        "tasks": tasks,
        "per_cpu": [{"cpu": c.cpu, "energy_mj": _mj(c.energy_pj), "busy_ms": float(c.busy_ns) / 1e6,
                     "tau0_ms": float(c.tau0_ns) / 1e6, "misses": c.misses,
                     "residency_ms": {str(mhz): float(t) / 1e6 for mhz, t in sorted(c.residency_ns.items())}}
                    for c in run.cpus],
    }


def sim_dvfs(args: argparse.Namespace, taskset: TaskSet, options: SimOptions) -> int:
    from rich.console import Console
    from rich.table import Table

    from rtsched.cli.run import _parse_window
    from rtsched.cpufreq import describe_cpufreq, read_cpufreq
    from rtsched.report.frequency import plot_frequency
    from rtsched.sim import SimUnsupported
    from rtsched.sim.dvfs_policies import POLICIES
    from rtsched.sim.dvfs_run import dvfs_problems, simulate_dvfs
    from rtsched.trace import read_trace

    policies = POLICIES if args.dvfs == COMPARE else ("none",) + ((args.dvfs,) if args.dvfs != "none" else ())
    problems = list(dict.fromkeys(p for policy in policies for p in dvfs_problems(taskset, policy)))
    if problems:  # every policy's, before any runs (the baseline alone accepts more)
        for problem in problems:
            print(f"{args.file}: {problem}", file=sys.stderr)
        return Exit.FAILED
    out_dir = args.out if args.out is not None else Path("out") / f"{taskset.name}-dvfs"
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = []
    try:
        for policy in policies:
            runs.append(simulate_dvfs(taskset, options, policy, tau0=args.tau0, segments=args.segments,
                                      trace_path=out_dir / f"trace-{policy}.rtst"))
    except SimUnsupported as e:
        for problem in e.problems:
            print(f"{args.file}: {problem}", file=sys.stderr)
        return Exit.FAILED
    except ValueError as e:
        print(f"rtsched sim: {e}", file=sys.stderr)
        return Exit.FAILED
    base = runs[0]
    cpufreq = describe_cpufreq(read_cpufreq())
    summary = {
        "taskset": taskset.name, "duration_ns": base.duration_ns, "seed": options.seed,
        "exec_low_ppm": options.exec_low_ppm, "tau0": args.tau0,
        "segments": args.segments, "machine_cpufreq": cpufreq,
        "runs": [_summary(r, base, f"trace-{r.policy}.rtst") for r in runs],
    }
    write_text((out_dir / "dvfs.json"), json.dumps(summary, indent=2) + "\n")
    if not args.no_plots:
        traces = {r.policy: read_trace(r.trace_path) for r in runs if r.trace_path is not None}
        plot_frequency(traces, out_dir / "frequency.png", base.duration_ns, window_ns=_parse_window(args.plot_window))
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        console = Console(highlight=False)
        console.print(cpufreq)
        draws = "WCET" if options.exec_low_ppm is None else f"drawn in [{options.exec_low_ppm / 1e6:g}, 1] × WCET"
        table = Table(title=f"{taskset.name}: EDF with DVFS, {base.duration_ns / 1e9:g} s simulated, "
                            f"execution times {draws}, seed {options.seed}")
        for column in ("policy", "energy (mJ)", "vs none", "mean MHz", "misses", "jobs", "max R/D", "τ0 work (ms)"):
            table.add_column(column, justify="left" if column == "policy" else "right")
        for row in summary["runs"]:
            table.add_row(row["policy"], f"{row['energy_mj']:.3f}", f"{row['energy_vs_baseline']:.3f}",
                          f"{row['mean_frequency_mhz']:.0f}", str(row["deadline_misses"]),
                          str(row["jobs_completed"]),
                          "-" if row["worst_response_over_deadline"] is None
                          else f"{row['worst_response_over_deadline']:.3f}",
                          "-" if row["tau0_work_ms"] is None else f"{row['tau0_work_ms']:.2f}")
        console.print(table)
        console.print(f"written: {out_dir}/ (dvfs.json, trace-<policy>.rtst"
                      f"{', frequency.png' if not args.no_plots else ''})")
    misses = sum(r.misses for r in runs)
    if args.fail_on_miss and misses:
        print(f"rtsched sim: {misses} deadline miss(es) (--fail-on-miss)", file=sys.stderr)
        return Exit.FAILED
    return Exit.OK

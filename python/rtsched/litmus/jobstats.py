"""Per-job statistics of LITMUS^RT tasks run on -llitmus, in ``st-job-stats`` form.

With ``RTSCHED_LITMUS_TRACE=DIR`` every real-time task of a -llitmus program
writes ``DIR/litmus-PID-TID.rtst`` (src/compat/litmus_trace.c): one stream,
rtsched's RELEASE / START / COMPLETE / DEADLINE_MISS events, and a MARKER
with the task's exec_cost. This joins those files into one job table (task
i = the i-th file, by name) and writes it as rtsched writes its own runs'
``jobs.csv`` (LITMUS^RT ``st-job-stats`` columns, docs/run.md)::

    python -m rtsched.litmus.jobstats -o jobs.csv DIR_OR_FILES...
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import numpy as np

from rtsched.report.export_csv import write_job_csv
from rtsched.report.jobs import JobTable, build_job_table
from rtsched.trace import CPU_UNKNOWN, read_trace
from rtsched.trace import EventType as EV

__all__ = ["LITMUS_COST_MARKER", "LitmusJobs", "litmus_job_table", "main"]

LITMUS_COST_MARKER = 0x4C54  # MARKER arg0 of a -llitmus trace: arg1 is exec_cost (ns)


class LitmusJobs:
    """The joined table, and per task (same index) its exec_cost and the CPUs its jobs ran on."""

    def __init__(self, table: JobTable, cost_ns: list[int], cpus: list[list[int]]):
        self.table = table
        self.cost_ns = cost_ns
        self.cpus = cpus


def _trace_files(paths: Sequence[str | Path]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(p.glob("litmus-*.rtst")))
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"{p}: no such trace file or folder")
    if not files:
        raise FileNotFoundError(f"no litmus-*.rtst trace in {', '.join(map(str, paths))}")
    return files


def litmus_job_table(paths: Sequence[str | Path]) -> LitmusJobs:
    """One job table over the traces in ``paths`` (files, or folders of ``litmus-*.rtst``)."""
    jobs, tasks, costs, cpus = [], [], [], []
    lost = 0
    for index, path in enumerate(_trace_files(paths)):
        trace = read_trace(path)
        table = build_job_table(trace)
        if len(table.tasks) != 1:
            raise ValueError(f"{path}: {len(table.tasks)} task streams, a -llitmus trace has one")
        info = replace(table.tasks[0], index=index)
        part = table.jobs.copy()
        part["task"] = index
        jobs.append(part)
        tasks.append(info)
        lost += table.lost_total
        events = trace.events_of(info.stream)
        marks = events[(events["type"] == EV.MARKER) & (events["arg0"] == LITMUS_COST_MARKER)]
        costs.append(int(marks["arg1"][0]) if len(marks) else 0)
        cpus.append(sorted({int(c) for c in part["first_cpu"] if c != CPU_UNKNOWN}))
    joined = JobTable.of(
        jobs=np.concatenate(jobs),  # _trace_files gives at least one
        tasks=tuple(tasks),
        t0_ns=0,
        duration_ns=0,
        lost_total=lost,
        name="litmus",
    )
    return LitmusJobs(joined, costs, cpus)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rtsched.litmus.jobstats",
        description="st-job-stats CSV of LITMUS tasks traced with RTSCHED_LITMUS_TRACE=DIR",
    )
    parser.add_argument("traces", nargs="+", help="trace files or folders of litmus-*.rtst")
    parser.add_argument("-o", "--output", default="-", help="CSV file (default: standard output)")
    args = parser.parse_args(argv)
    try:
        result = litmus_job_table(args.traces)
    except (OSError, ValueError) as err:
        print(f"jobstats: {err}", file=sys.stderr)
        return 2
    out = "/dev/stdout" if args.output == "-" else args.output
    write_job_csv(result.table, out, wcet_ns=result.cost_ns, task_cpus=result.cpus)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Per-job CSV in the layout of LITMUS^RT's ``st-job-stats`` (feather-trace-tools).

    # Task,   Job,     Period,   Response, DL Miss?,   Lateness,  Tardiness, Forced?,       ACET
    # task NAME=control PID=27404 COST=1000000 PERIOD=10000000 CPU=0
     27404,     1,   10000000,    1041969,        0,   -8958031,          0,       0,    1008329

As in ``st-job-stats`` (nanoseconds, its default): Task is the thread id
(LITMUS: the PID), each task's rows follow a ``# task NAME=... PID=... COST=...
PERIOD=... CPU=...`` comment line (COST: the WCET estimate, CPU: the partition's
CPU or -1 if the task may run on several), Response = completion − release,
DL Miss? = 1 when completion > absolute deadline, Lateness = completion −
deadline (negative when early), Tardiness = max(0, Lateness), Forced? = 0
(rtsched never forces a job to complete; budget overruns are reported, not
enforced), ACET = the CPU time the job consumed. Documented in docs/run.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from rtsched.outputs import write_text
from rtsched.report.jobs import JobTable

__all__ = ["CSV_HEADER", "write_job_csv"]

CSV_COLUMNS = ("Task", "Job", "Period", "Response", "DL Miss?", "Lateness", "Tardiness", "Forced?", "ACET")
CSV_HEADER = "#%5s, %5s, %10s, %10s, %8s, %10s, %10s, %7s, %10s" % CSV_COLUMNS


def write_job_csv(
    table: JobTable,
    path: str | Path,
    *,
    wcet_ns: Sequence[int] | None = None,
    task_cpus: Sequence[Sequence[int]] | None = None,
) -> int:
    """Write one row per completed job; returns the number of rows."""
    lines = [CSV_HEADER]
    rows = 0
    for info in table.tasks:
        cost = wcet_ns[info.index] if wcet_ns is not None and info.index < len(wcet_ns) else 0
        cpus = list(task_cpus[info.index]) if task_cpus is not None and info.index < len(task_cpus) else []
        cpu = cpus[0] if len(cpus) == 1 else -1
        lines.append(
            f"# task NAME={info.name} PID={info.tid} COST={cost} PERIOD={info.period_ns} CPU={cpu}"
        )
        for job in table.of_task(info.index):
            lines.append(
                " %5u, %5u, %10u, %10u, %8d, %10d, %10d, %7d, %10u"
                % (
                    info.tid,
                    job["job"],
                    info.period_ns,
                    job["response"],
                    1 if job["missed"] else 0,
                    job["lateness"],
                    job["tardiness"],
                    0,
                    job["cpu_time"],
                )
            )
            rows += 1
    write_text(Path(path), "\n".join(lines) + "\n")
    return rows

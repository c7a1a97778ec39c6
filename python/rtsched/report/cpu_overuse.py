"""Jobs that used more CPU time than their task's WCET (issue 31, item 5).

A task's WCET (``Task.wcet_ns``) is what its own thread executes per job:
its computes, PREM intervals and writes, not a server's service for its
calls (the server's thread runs that). A job's CPU time (the COMPLETE
event's, JOB_DTYPE ``cpu_time``) is its thread's from release to
completion: the body, plus the library's own code around it (the release,
trace records, lock and call paths), which stays far below the tolerance
here (about 0.1 ms of a 10 ms job on the 2-CPU test VM). A job above
``wcet + max(wcet / 20, 50 us)`` is named: either the model's execution
time is short, or the kernel charged the thread time it did not run itself
(interrupts, where the kernel does not account them apart; host steal,
without paravirtual steal accounting; under the ult backend, whatever its
CPU clock read: ``rts_taskset_cpu_clock``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from rtsched.report.jobs import JobTable

__all__ = ["CpuOveruse", "jobs_over_wcet", "overuse_by_job", "overuse_tolerance_ns"]

#: The least CPU time beyond its WCET a job may use unnamed, and the share of its WCET.
MIN_TOLERANCE_NS = 50_000
TOLERANCE_SHARE = 20  # wcet / 20: 5 %


def overuse_tolerance_ns(wcet_ns: int) -> int:
    return max(wcet_ns // TOLERANCE_SHARE, MIN_TOLERANCE_NS)


@dataclass(frozen=True, slots=True)
class CpuOveruse:
    """One job that used more CPU time than its task's WCET (ns; release since the trace's t0)."""

    task: str
    job: int
    release_ns: int
    cpu_ns: int
    wcet_ns: int

    @property
    def beyond_ns(self) -> int:
        return self.cpu_ns - self.wcet_ns

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "beyond_ns": self.beyond_ns}


def jobs_over_wcet(table: JobTable, wcet_ns: Sequence[int]) -> tuple[CpuOveruse, ...]:
    """Every completed job whose CPU time exceeds its task's WCET (``wcet_ns`` by task index)
    by more than the tolerance (module doc), in release order."""
    found: list[CpuOveruse] = []
    for info in table.tasks:
        if info.index >= len(wcet_ns) or wcet_ns[info.index] <= 0:
            continue
        wcet = int(wcet_ns[info.index])
        rows = table.of_task(info.index)
        over = rows[rows["cpu_time"] > wcet + overuse_tolerance_ns(wcet)]
        found += [CpuOveruse(info.name, int(r["job"]), int(r["release"]) - table.t0_ns, int(r["cpu_time"]), wcet)
                  for r in over]
    found.sort(key=lambda o: (o.release_ns, o.task))
    return tuple(found)


def overuse_by_job(overuse: Sequence[CpuOveruse]) -> dict[tuple[str, int], CpuOveruse]:
    return {(o.task, o.job): o for o in overuse}

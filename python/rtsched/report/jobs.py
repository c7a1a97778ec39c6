"""Per-job table from a trace: one row per completed job.

A job's row joins its RELEASE, START and COMPLETE events (same stream, same
job number) with its DEADLINE_MISS / BUDGET_OVERRUN events and the CPUs its
events were recorded on. Jobs that were released but had not completed when
the run ended are **censored** (left out, counted per task); jobs with a
COMPLETE but a missing RELEASE or START lost events in a full ring and are
counted as ``incomplete``. A job that completed after the end of the run
(t0 + duration, when the header gives a duration) is censored too: the end
of the run stops whatever the job was waiting for (a signal, a server's
reply), so its completion may be cut short.

A deadline that passed is a miss whether or not the job started: a job
without a completion by the end of the run whose deadline fell before it is
**missed unfinished**, not censored, with at least (end - deadline) of
tardiness. A task's thread records its next RELEASE only when its last job
is done, so a starved task's later jobs leave no event at all; given the
longest gap between a task's releases (``pace``: its period, or a sporadic
task's period plus its largest extra), releases are inferred from the last
recorded one (or t0 + offset), one per longest gap until the end (or
max_jobs): each was released by then at the latest, so one whose deadline
(counted from that latest release) passed is certainly missed unfinished.

All times are integer nanoseconds on the trace's clock (CLOCK_MONOTONIC).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from rtsched.trace import CPU_UNKNOWN, Trace
from rtsched.trace import EventType as EV

__all__ = ["JOB_DTYPE", "JobTable", "ReleasePace", "TaskInfo", "build_job_table"]

JOB_DTYPE = np.dtype(
    [
        ("task", "<i4"),         # index in the task set
        ("job", "<u4"),          # 1 for the first job
        ("release", "<i8"),      # nominal release time
        ("deadline", "<i8"),     # absolute deadline
        ("start", "<i8"),        # first instruction
        ("completion", "<i8"),
        ("response", "<i8"),     # completion - release
        ("lateness", "<i8"),     # completion - deadline (negative: early)
        ("tardiness", "<i8"),    # max(0, lateness)
        ("release_latency", "<i8"),  # start - release
        ("missed", "?"),
        ("overrun", "?"),        # a BUDGET_OVERRUN was recorded
        ("cpu_time", "<i8"),     # CPU time the job consumed (COMPLETE.arg1)
        ("n_cpus", "<u2"),       # how many CPUs the job recorded events on (>1: it migrated)
        ("first_cpu", "<i4"),    # CPU of the START event
    ]
)


@dataclass(frozen=True)
class TaskInfo:
    """What the trace says about one task (its stream).

    Invariant: released == completed jobs in the table + censored + incomplete
    + unfinished_missed. ``unfinished_tardiness_ns``: the largest lower bound on
    the tardiness of those (the end of the run minus the earliest such deadline).
    """

    index: int
    name: str
    stream: int
    tid: int
    period_ns: int
    deadline_ns: int
    lost_events: int = 0
    released: int = 0
    censored: int = 0
    incomplete: int = 0
    unfinished_missed: int = 0
    unfinished_tardiness_ns: int = 0


@dataclass(frozen=True)
class ReleasePace:
    """What inferring a task's unrecorded releases needs: the longest gap between two of its
    releases, its relative deadline, its first release after t0 and how many jobs it may have at
    most (None: no limit)."""

    max_gap_ns: int
    deadline_ns: int
    offset_ns: int = 0
    max_jobs: int | None = None


@dataclass(frozen=True)
class _Counts:
    released: int
    censored: int
    incomplete: int
    unfinished_missed: int
    unfinished_tardiness_ns: int


@dataclass(frozen=True)
class JobTable:
    """Completed jobs of every task (``jobs``: JOB_DTYPE, by task then job) and per-task bookkeeping."""

    jobs: np.ndarray
    tasks: tuple[TaskInfo, ...]
    t0_ns: int
    duration_ns: int
    lost_total: int
    name: str = ""

    def of_task(self, index: int) -> np.ndarray:
        rows: np.ndarray = self.jobs[self.jobs["task"] == index]
        return rows

    @property
    def censored(self) -> int:
        return sum(t.censored for t in self.tasks)

    @property
    def incomplete(self) -> int:
        return sum(t.incomplete for t in self.tasks)

    @property
    def unfinished_missed(self) -> int:
        return sum(t.unfinished_missed for t in self.tasks)


def _first_by_job(events: np.ndarray, kind: int) -> dict[int, np.void]:
    out: dict[int, np.void] = {}
    for ev in events[events["type"] == kind]:
        out.setdefault(int(ev["job"]), ev)
    return out


def _job_rows(
    index: int, events: np.ndarray, t0_ns: int, end_ns: int | None, pace: ReleasePace | None
) -> tuple[list[tuple[int | bool, ...]], _Counts]:
    """One task's completed jobs as JOB_DTYPE rows, and its counts (TaskInfo's invariant)."""
    releases = _first_by_job(events, EV.RELEASE)
    starts = _first_by_job(events, EV.START)
    completes = _first_by_job(events, EV.COMPLETE)
    overruns = {int(j) for j in events["job"][events["type"] == EV.BUDGET_OVERRUN]}
    in_job = events[events["job"] > 0]
    cpus_of_job: dict[int, set[int]] = {}
    for job, cpu in zip(in_job["job"].tolist(), in_job["cpu"].tolist()):
        if cpu != CPU_UNKNOWN:
            cpus_of_job.setdefault(job, set()).add(cpu)
    numbers = set(releases) | set(starts) | set(completes)
    censored = incomplete = 0
    unfinished: list[int] = []  # deadlines of the jobs missed unfinished

    def cut_off(job: int) -> None:
        """A job without a (counted) completion at the end: missed if its deadline passed, else censored."""
        nonlocal censored
        deadline = int(releases[job]["arg1"]) if job in releases else None
        if end_ns is not None and deadline is not None and deadline < end_ns:
            unfinished.append(deadline)
        else:
            censored += 1

    rows: list[tuple[int | bool, ...]] = []
    last_complete = max(completes) if completes else 0
    for job in sorted(numbers):
        if job in completes and end_ns is not None and int(completes[job]["time_ns"]) > end_ns:
            cut_off(job)
            continue
        if job not in completes:
            if job > last_complete:
                cut_off(job)
            else:
                incomplete += 1
            continue
        if job not in releases or job not in starts:
            incomplete += 1
            continue
        rel, st, co = releases[job], starts[job], completes[job]
        release = int(rel["time_ns"])
        deadline = int(rel["arg1"])
        completion = int(co["time_ns"])
        lateness = completion - deadline
        rows.append(
            (
                index,
                job,
                release,
                deadline,
                int(st["time_ns"]),
                completion,
                completion - release,
                lateness,
                max(0, lateness),
                int(st["time_ns"]) - release,
                lateness > 0,
                job in overruns,
                int(co["arg1"]),
                len(cpus_of_job.get(job, ())),
                int(st["cpu"]),
            )
        )
    released = len(numbers)
    if pace is not None and end_ns is not None:
        # from the last recorded release, else from before the first (t0 + offset); `release` is
        # the latest the next job can have been released (exact for a periodic task)
        job = max(releases) if releases else 0
        release = int(releases[job]["time_ns"]) if releases else t0_ns + pace.offset_ns - pace.max_gap_ns
        while pace.max_jobs is None or job < pace.max_jobs:
            job, release = job + 1, release + pace.max_gap_ns
            if release >= end_ns:
                break
            released += 1  # released by the model; the starved thread recorded nothing
            if release + pace.deadline_ns < end_ns:
                unfinished.append(release + pace.deadline_ns)
            else:
                censored += 1
    tardiness = end_ns - min(unfinished) if unfinished and end_ns is not None else 0
    return rows, _Counts(released, censored, incomplete, len(unfinished), tardiness)


def build_job_table(trace: Trace, paces: Mapping[int, ReleasePace] | None = None) -> JobTable:
    """The per-job table of ``trace``; ``paces``: task index -> ReleasePace for the tasks whose
    unrecorded releases are to be inferred (see the module doc)."""
    header = trace.header
    tasks: list[TaskInfo] = []
    rows: list[tuple[int | bool, ...]] = []
    end_ns: int | None = int(header.get("t0_ns", 0)) + int(header.get("duration_ns", 0))
    if not header.get("duration_ns"):
        end_ns = None
    for stream in trace.streams:
        if stream["task_id"] < 0:
            continue
        index, stream_id = int(stream["task_id"]), int(stream["stream_id"])
        task_rows, counts = _job_rows(index, trace.events_of(stream_id), int(header.get("t0_ns", 0)), end_ns,
                                      (paces or {}).get(index))
        rows.extend(task_rows)
        tasks.append(
            TaskInfo(
                index=index,
                name=str(stream["name"]),
                stream=stream_id,
                tid=int(stream["tid"]),
                period_ns=int(stream["period_ns"]),
                deadline_ns=int(stream["deadline_ns"]),
                lost_events=int(stream.get("lost", 0)),
                released=counts.released,
                censored=counts.censored,
                incomplete=counts.incomplete,
                unfinished_missed=counts.unfinished_missed,
                unfinished_tardiness_ns=counts.unfinished_tardiness_ns,
            )
        )
    tasks.sort(key=lambda t: t.index)
    jobs = np.array(rows, dtype=JOB_DTYPE)
    if len(jobs):
        jobs = jobs[np.lexsort((jobs["job"], jobs["task"]))]
    return JobTable(
        jobs=jobs,
        tasks=tuple(tasks),
        t0_ns=int(header.get("t0_ns", 0)),
        duration_ns=int(header.get("duration_ns", 0)),
        lost_total=int(trace.lost_total),
        name=str(header.get("name", "")),
    )

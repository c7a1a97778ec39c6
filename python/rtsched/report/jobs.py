"""Per-job table from a trace: one row per completed job.

A job's row joins its RELEASE, START and COMPLETE events (same stream, same
job number) with its DEADLINE_MISS / BUDGET_OVERRUN events and the CPUs its
events were recorded on. Jobs that were released but had not completed when
the run ended are **censored** (left out, counted per task); jobs with a
COMPLETE but a missing RELEASE or START lost events in a full ring and are
counted as ``incomplete``. A job that completed after the end of the run
(t0 + duration, when the header gives a duration) is censored too: the end
of the run stops whatever the job was waiting for (a signal, a server's
reply), so its completion may be cut short. A job released at or after the
end is not the run's at all (a thread that was starved past the end and
noticed the stop late starts its backlog): it is left out and not counted.

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
from functools import cached_property

import numpy as np

from rtsched.trace import CPU_UNKNOWN, Trace
from rtsched.trace import EventType as EV

__all__ = ["JOB_DTYPE", "JobTable", "ReleasePace", "TaskInfo", "build_job_table", "first_by_job"]

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
        """The task's rows (a view where ``jobs`` is sorted by task, as build_job_table makes it)."""
        if self._task_rows is None:
            picked: np.ndarray = self.jobs[self.jobs["task"] == index]
            return picked
        first, end = self._task_rows.get(index, (0, 0))
        rows: np.ndarray = self.jobs[first:end]
        return rows

    @cached_property
    def _task_rows(self) -> dict[int, tuple[int, int]] | None:
        """Task index -> (first row, end row) in ``jobs``, found once; None when not sorted by task."""
        tasks = self.jobs["task"]
        if len(tasks) > 1 and bool((tasks[1:] < tasks[:-1]).any()):
            return None
        indices, first = np.unique(tasks, return_index=True)
        ends = [*first[1:].tolist(), len(self.jobs)]
        return {int(i): (int(a), int(b)) for i, a, b in zip(indices.tolist(), first.tolist(), ends)}

    @property
    def censored(self) -> int:
        return sum(t.censored for t in self.tasks)

    @property
    def incomplete(self) -> int:
        return sum(t.incomplete for t in self.tasks)

    @property
    def unfinished_missed(self) -> int:
        return sum(t.unfinished_missed for t in self.tasks)


def first_by_job(events: np.ndarray, kind: int) -> tuple[np.ndarray, np.ndarray]:
    """(job numbers, ascending; the index in ``events`` of each one's first event of ``kind``)."""
    where = np.flatnonzero(events["type"] == kind)
    jobs = events["job"][where]
    if len(jobs) < 2 or bool((jobs[1:] > jobs[:-1]).all()):  # recorded in job order, once each: no sort
        return jobs, where
    numbers, first = np.unique(jobs, return_index=True)
    return numbers, where[first]


def _distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct values of ``keys``, ascending (no sort when they already are)."""
    if len(keys) < 2 or bool((keys[1:] >= keys[:-1]).all()):
        return keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if len(keys) else keys
    return np.unique(keys)


def _cpus_per_job(events: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    """How many distinct known CPUs the events of each job of ``numbers`` (ascending) were recorded on."""
    known = events[(events["job"] > 0) & (events["cpu"] != CPU_UNKNOWN)]
    pairs = _distinct((known["job"].astype(np.int64) << 16) | known["cpu"].astype(np.int64))
    jobs = _distinct(pairs >> 16)
    counts = np.diff(np.searchsorted(pairs >> 16, np.append(jobs, np.iinfo(np.int64).max)))
    out = np.zeros(len(numbers), np.int64)
    if len(jobs):
        at = np.minimum(np.searchsorted(jobs, numbers), len(jobs) - 1)
        found = jobs[at] == numbers
        out[found] = counts[at[found]]
    return out


def _job_rows(
    index: int, events: np.ndarray, t0_ns: int, end_ns: int | None, pace: ReleasePace | None
) -> tuple[np.ndarray, _Counts]:
    """One task's completed jobs (JOB_DTYPE, by job number) and its counts (TaskInfo's
    invariant), on the stream's columns: each job's first RELEASE, START and COMPLETE."""
    if end_ns is not None:
        events = _before_end(events, end_ns)
    rel_jobs, rel_at = first_by_job(events, EV.RELEASE)
    start_jobs, start_at = first_by_job(events, EV.START)
    done_jobs, done_at = first_by_job(events, EV.COMPLETE)
    numbers = _distinct(np.sort(np.concatenate([rel_jobs, start_jobs, done_jobs]), kind="stable"))
    has_release = np.isin(numbers, rel_jobs, assume_unique=True)
    has_start = np.isin(numbers, start_jobs, assume_unique=True)
    has_done = np.isin(numbers, done_jobs, assume_unique=True)
    completion = np.zeros(len(numbers), np.int64)
    completion[has_done] = events["time_ns"][done_at]
    deadline = np.zeros(len(numbers), np.int64)
    deadline[has_release] = events["arg1"][rel_at]
    last_complete = int(done_jobs[-1]) if len(done_jobs) else 0
    # cut off at the end: completed after it, or not completed and after the last completed job
    cut = (has_done & (completion > end_ns)) if end_ns is not None else np.zeros(len(numbers), bool)
    cut |= ~has_done & (numbers > last_complete)
    incomplete_mask = ~cut & (~has_done | ~has_release | ~has_start)
    missed_cut = cut & has_release & (deadline < end_ns) if end_ns is not None else np.zeros(len(numbers), bool)
    unfinished_deadlines = deadline[missed_cut]
    censored = int(cut.sum() - missed_cut.sum())
    incomplete = int(incomplete_mask.sum())

    keep = ~cut & ~incomplete_mask
    kept = numbers[keep]
    rows = np.zeros(len(kept), JOB_DTYPE)
    release = events["time_ns"][rel_at[np.searchsorted(rel_jobs, kept)]]
    starts = events[start_at[np.searchsorted(start_jobs, kept)]]
    completes = events[done_at[np.searchsorted(done_jobs, kept)]]
    rows["task"] = index
    rows["job"] = kept
    rows["release"] = release
    rows["deadline"] = deadline[keep]
    rows["start"] = starts["time_ns"]
    rows["completion"] = completes["time_ns"]
    rows["response"] = rows["completion"] - release
    rows["lateness"] = rows["completion"] - rows["deadline"]
    rows["tardiness"] = np.maximum(rows["lateness"], 0)
    rows["release_latency"] = rows["start"] - release
    rows["missed"] = rows["lateness"] > 0
    rows["overrun"] = np.isin(kept, events["job"][events["type"] == EV.BUDGET_OVERRUN])
    rows["cpu_time"] = completes["arg1"]
    rows["n_cpus"] = _cpus_per_job(events, kept)
    rows["first_cpu"] = starts["cpu"]

    released = len(numbers)
    inferred_deadlines = np.zeros(0, np.int64)
    if pace is not None and end_ns is not None:
        # from the last recorded release, else from before the first (t0 + offset); each one is
        # the latest the next job can have been released (exact for a periodic task)
        job = int(rel_jobs[-1]) if len(rel_jobs) else 0
        last = int(events["time_ns"][rel_at[-1]]) if len(rel_jobs) else t0_ns + pace.offset_ns - pace.max_gap_ns
        count = max(0, (end_ns - last - 1) // pace.max_gap_ns)  # releases strictly before the end
        if pace.max_jobs is not None:
            count = max(0, min(count, pace.max_jobs - job))
        later = last + pace.max_gap_ns * np.arange(1, count + 1, dtype=np.int64)
        released += count  # released by the model; the starved thread recorded nothing
        inferred_deadlines = later[later + pace.deadline_ns < end_ns] + pace.deadline_ns
        censored += count - len(inferred_deadlines)
    missed = np.concatenate([unfinished_deadlines, inferred_deadlines])
    tardiness = end_ns - int(missed.min()) if len(missed) and end_ns is not None else 0
    return rows, _Counts(released, censored, incomplete, len(missed), tardiness)


def _before_end(events: np.ndarray, end_ns: int) -> np.ndarray:
    """``events`` without those of the jobs released at or after ``end_ns`` (see the module doc)."""
    releases = events[events["type"] == EV.RELEASE]
    late = releases["job"][releases["time_ns"] >= end_ns]
    if not len(late):
        return events
    kept: np.ndarray = events[~np.isin(events["job"], late)]
    return kept


def build_job_table(trace: Trace, paces: Mapping[int, ReleasePace] | None = None) -> JobTable:
    """The per-job table of ``trace``; ``paces``: task index -> ReleasePace for the tasks whose
    unrecorded releases are to be inferred (see the module doc)."""
    header = trace.header
    tasks: list[TaskInfo] = []
    rows: list[np.ndarray] = []
    end_ns: int | None = int(header.get("t0_ns", 0)) + int(header.get("duration_ns", 0))
    if not header.get("duration_ns"):
        end_ns = None
    for stream in trace.streams:
        if stream["task_id"] < 0:
            continue
        index, stream_id = int(stream["task_id"]), int(stream["stream_id"])
        task_rows, counts = _job_rows(index, trace.events_of(stream_id), int(header.get("t0_ns", 0)), end_ns,
                                      (paces or {}).get(index))
        rows.append(task_rows)
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
    jobs = np.concatenate(rows) if rows else np.zeros(0, JOB_DTYPE)
    key = (jobs["task"].astype(np.int64) << 32) | jobs["job"].astype(np.int64)
    if len(jobs) > 1 and not bool((key[1:] > key[:-1]).all()):  # streams out of task order
        jobs = jobs[np.lexsort((jobs["job"], jobs["task"]))]
    return JobTable(
        jobs=jobs,
        tasks=tuple(tasks),
        t0_ns=int(header.get("t0_ns", 0)),
        duration_ns=int(header.get("duration_ns", 0)),
        lost_total=int(trace.lost_total),
        name=str(header.get("name", "")),
    )

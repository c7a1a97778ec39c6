"""One stream's job rows, built from its events a block at a time (``rtsched.report.jobs`` has
what a row means and which jobs are censored, incomplete or missed unfinished).

    jobs = StreamJobs(index=0, t0_ns=0, end_ns=10**9, pace=None)
    for block in trace.blocks_of(stream_id, 1 << 16):
        closed = jobs.feed(block)          # the jobs this block closed: their rows and events
    closed, counts = jobs.finish()         # the rest, and the task's counts

Whatever the blocks, the rows (in job order) and the counts are those of the whole stream at
once: a block may end inside a job (its release in one block, its completion in a later one).

Invariants:
- A thread's events are recorded job after job, so once an event of job J is seen, no event
  of a job below J follows: every job below the highest number seen is *closed* (all its events
  are in), and only the events of the highest (the carry) wait for the next block. A stream
  that breaks this raises ValueError naming the task and the jobs. Events of job 0 (outside
  any job) give no row and change no count: they are left out.
- A closed job is decided when closed, except one without a completion: it is incomplete if a
  later job completes (events were lost), else cut off by the end (censored or missed
  unfinished). Those wait in ``_open`` until a later completion or ``finish``; a thread leaves
  at most its last job so, so ``_open`` stays small.
- What ``finish`` infers for a starved task needs the last recorded release only.
Memory: one block, the carry (one job's events) and ``_open``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rtsched.trace import CPU_UNKNOWN, EVENT_DTYPE
from rtsched.trace import EventType as EV

#: A time after every other (int64 max): no event, no waiting job.
NEVER_NS = np.iinfo(np.int64).max

__all__ = ["JOB_DTYPE", "NEVER_NS", "Closed", "JobCounts", "ReleasePace", "StreamJobs", "TaskInfo", "first_by_job"]

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
class ReleasePace:
    """What inferring a task's unrecorded releases needs: the longest gap between two of its
    releases, its relative deadline, its first release after t0 and how many jobs it may have at
    most (None: no limit)."""

    max_gap_ns: int
    deadline_ns: int
    offset_ns: int = 0
    max_jobs: int | None = None


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
class JobCounts:
    """A task's jobs that have no row, and all it released (``TaskInfo``'s invariant)."""

    released: int
    censored: int
    incomplete: int
    unfinished_missed: int
    unfinished_tardiness_ns: int


@dataclass(frozen=True)
class Closed:
    """Jobs closed by a block: the rows of those with one (JOB_DTYPE, job order) and the events of
    them all (job > 0, recording order; those of jobs released after the end left out)."""

    rows: np.ndarray
    events: np.ndarray


def first_by_job(events: np.ndarray, kind: int) -> tuple[np.ndarray, np.ndarray]:
    """(job numbers, ascending; the index in ``events`` of each one's first event of ``kind``)."""
    where = np.flatnonzero(events["type"] == kind)
    jobs = events["job"][where]
    if len(jobs) < 2 or bool((jobs[1:] > jobs[:-1]).all()):  # recorded in job order, once each: no sort
        return jobs, where
    numbers, first = np.unique(jobs, return_index=True)
    return numbers, where[first]


def sorted_member(values: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """``np.isin(values, pool)`` for a ``pool`` in ascending order (job numbers as a stream records
    them), by bisection: no sort of either."""
    if not len(pool):
        return np.zeros(len(values), bool)
    at = np.minimum(np.searchsorted(pool, values), len(pool) - 1)
    found: np.ndarray = pool[at] == values
    return found


def _distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct values of ``keys``, ascending (no sort when they already are)."""
    if len(keys) < 2 or bool((keys[1:] >= keys[:-1]).all()):
        return keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if len(keys) else keys
    return np.unique(keys)


def _cpus_per_job(events: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    """How many distinct known CPUs the events of each job of ``numbers`` (ascending) were recorded on
    (``numbers``: jobs with a START among ``events``, which records its CPU)."""
    cpu = events["cpu"]
    if len(cpu) and int(cpu.min()) == int(cpu.max()) != CPU_UNKNOWN:  # a task on one CPU: no pairs to sort
        return np.ones(len(numbers), np.int64)
    known = events[(events["job"] > 0) & (cpu != CPU_UNKNOWN)]
    pairs = _distinct((known["job"].astype(np.int64) << 16) | known["cpu"].astype(np.int64))
    jobs = _distinct(pairs >> 16)
    counts = np.diff(np.searchsorted(pairs >> 16, np.append(jobs, np.iinfo(np.int64).max)))
    out = np.zeros(len(numbers), np.int64)
    if len(jobs):
        at = np.minimum(np.searchsorted(jobs, numbers), len(jobs) - 1)
        found = jobs[at] == numbers
        out[found] = counts[at[found]]
    return out


def _before_end(events: np.ndarray, end_ns: int) -> np.ndarray:
    """``events`` without those of the jobs released at or after ``end_ns`` (see the module doc)."""
    if not len(events) or int(events["time_ns"].max()) < end_ns:  # every window but the last
        return events
    releases = events[events["type"] == EV.RELEASE]
    late = releases["job"][releases["time_ns"] >= end_ns]
    if not len(late):
        return events
    kept: np.ndarray = events[~sorted_member(events["job"], late)]
    return kept


class StreamJobs:
    """The job rows of one task's stream (``index``: the task's), fed its events in recording
    order; ``end_ns``: t0 + duration (None: the trace gives no duration); ``pace``: infer the
    releases a starved task could not record (``jobs.ReleasePace``)."""

    def __init__(self, index: int, t0_ns: int, end_ns: int | None, pace: ReleasePace | None,
                 name: str = "") -> None:
        self._index, self._t0_ns, self._end_ns, self._pace = index, t0_ns, end_ns, pace
        self._name = name or f"task {index}"
        self._carry: np.ndarray | None = None        # the events of the highest job seen so far
        self._open: list[tuple[int, bool, int]] = []  # closed, not completed: (job, released?, deadline)
        self._last_release: tuple[int, int] | None = None  # (job, time) of the highest job with a RELEASE
        self._released = self._censored = self._incomplete = 0
        self._missed = 0                               # missed unfinished (cut off by the end)
        self._earliest_missed: int | None = None       # the earliest deadline of those

    @property
    def waiting_from_ns(self) -> int:
        """The earliest time among the events of the job not yet closed (int64 max: none)."""
        return int(self._carry["time_ns"].min()) if self._carry is not None and len(self._carry) else NEVER_NS

    def feed(self, events: np.ndarray) -> Closed:
        """The jobs ``events``, the stream's next block, closes. Events of job 0 belong to no job and are left out. Raises ValueError when a job's
        event follows one of a later job."""
        in_jobs = events["job"] > 0
        if not in_jobs.all():
            events = events[in_jobs]
        if self._carry is not None:
            events = np.concatenate([self._carry, events])
        jobs = events["job"]
        if not len(jobs):
            return Closed(np.zeros(0, JOB_DTYPE), events)
        back = np.flatnonzero(jobs[1:] < jobs[:-1])
        if len(back):
            raise ValueError(f"{self._name}: an event of job {int(jobs[back[0] + 1])} after one of job "
                             f"{int(jobs[back[0]])}: the stream is not in job order")
        last = int(np.searchsorted(jobs, jobs[-1], "left"))  # the highest job's first event
        self._carry = events[last:]
        return self._close(events[:last])

    def finish(self) -> tuple[Closed, JobCounts]:
        """The jobs still open, and the task's counts (the end cuts what is left)."""
        closed = self._close(self._carry if self._carry is not None else np.zeros(0, EVENT_DTYPE))
        self._carry = None
        for _job, released, deadline in self._open:  # no later job completed: cut off by the end
            self._cut(released, deadline)
        self._open = []
        end_ns, pace = self._end_ns, self._pace
        inferred_deadlines = np.zeros(0, np.int64)
        if pace is not None and end_ns is not None:
            # from the last recorded release, else from before the first (t0 + offset); each one is
            # the latest the next job can have been released (exact for a periodic task)
            job, last = self._last_release or (0, self._t0_ns + pace.offset_ns - pace.max_gap_ns)
            count = max(0, (end_ns - last - 1) // pace.max_gap_ns)  # releases strictly before the end
            if pace.max_jobs is not None:
                count = max(0, min(count, pace.max_jobs - job))
            later = last + pace.max_gap_ns * np.arange(1, count + 1, dtype=np.int64)
            self._released += count  # released by the model; the starved thread recorded nothing
            inferred_deadlines = later[later + pace.deadline_ns < end_ns] + pace.deadline_ns
            self._censored += count - len(inferred_deadlines)
        missed = self._missed + len(inferred_deadlines)
        earliest = [d for d in (self._earliest_missed, *inferred_deadlines[:1].tolist()) if d is not None]
        tardiness = end_ns - min(earliest) if earliest and end_ns is not None else 0
        return closed, JobCounts(self._released, self._censored, self._incomplete, missed, tardiness)

    def _cut(self, released: bool, deadline: int) -> None:
        """A job the end cut off: missed unfinished if its deadline passed before the end."""
        if released and self._end_ns is not None and deadline < self._end_ns:
            self._missed += 1
            self._earliest_missed = min(deadline, self._earliest_missed if self._earliest_missed is not None
                                        else deadline)
        else:
            self._censored += 1

    def _close(self, events: np.ndarray) -> Closed:
        """The closed jobs whose events are ``events``: their rows; the rest counted."""
        end_ns = self._end_ns
        if end_ns is not None:
            events = _before_end(events, end_ns)
        rel_jobs, rel_at = first_by_job(events, EV.RELEASE)
        start_jobs, start_at = first_by_job(events, EV.START)
        done_jobs, done_at = first_by_job(events, EV.COMPLETE)
        numbers = _distinct(np.sort(np.concatenate([rel_jobs, start_jobs, done_jobs]), kind="stable"))
        self._released += len(numbers)
        if len(rel_jobs):
            self._last_release = (int(rel_jobs[-1]), int(events["time_ns"][rel_at[-1]]))
        has_release = sorted_member(numbers, rel_jobs)
        has_start = sorted_member(numbers, start_jobs)
        has_done = sorted_member(numbers, done_jobs)
        completion = np.zeros(len(numbers), np.int64)
        completion[has_done] = events["time_ns"][done_at]
        deadline = np.zeros(len(numbers), np.int64)
        deadline[has_release] = events["arg1"][rel_at]
        if len(done_jobs):  # a later job completed: the open ones lost events
            self._incomplete += len(self._open)
            self._open = []
            last_complete = int(done_jobs[-1])
            self._incomplete += int((~has_done & (numbers < last_complete)).sum())
            waiting = ~has_done & (numbers > last_complete)
        else:
            waiting = ~has_done
        self._open += zip(numbers[waiting].tolist(), has_release[waiting].tolist(), deadline[waiting].tolist())
        cut = has_done & (completion > end_ns) if end_ns is not None else np.zeros(len(numbers), bool)
        for released, at in zip(has_release[cut].tolist(), deadline[cut].tolist()):
            self._cut(released, at)
        self._incomplete += int((has_done & ~cut & (~has_release | ~has_start)).sum())
        return Closed(self._rows(events, numbers[has_done & ~cut & has_release & has_start], deadline,
                          numbers, (rel_jobs, rel_at), (start_jobs, start_at), (done_jobs, done_at)), events)

    def _rows(self, events: np.ndarray, kept: np.ndarray, deadline: np.ndarray, numbers: np.ndarray,
              releases: tuple[np.ndarray, np.ndarray], starts_by_job: tuple[np.ndarray, np.ndarray],
              dones: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The rows of the ``kept`` jobs: each one's first RELEASE, START and COMPLETE."""
        rows = np.zeros(len(kept), JOB_DTYPE)
        if not len(kept):
            return rows
        release = events["time_ns"][releases[1][np.searchsorted(releases[0], kept)]]
        starts = events[starts_by_job[1][np.searchsorted(starts_by_job[0], kept)]]
        completes = events[dones[1][np.searchsorted(dones[0], kept)]]
        rows["task"] = self._index
        rows["job"] = kept
        rows["release"] = release
        rows["deadline"] = deadline[np.searchsorted(numbers, kept)]
        rows["start"] = starts["time_ns"]
        rows["completion"] = completes["time_ns"]
        rows["response"] = rows["completion"] - release
        rows["lateness"] = rows["completion"] - rows["deadline"]
        rows["tardiness"] = np.maximum(rows["lateness"], 0)
        rows["release_latency"] = rows["start"] - release
        rows["missed"] = rows["lateness"] > 0
        rows["overrun"] = sorted_member(kept, events["job"][events["type"] == EV.BUDGET_OVERRUN])
        rows["cpu_time"] = completes["arg1"]
        rows["n_cpus"] = _cpus_per_job(events, kept)
        rows["first_cpu"] = starts["cpu"]
        return rows

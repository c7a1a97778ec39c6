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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from rtsched.report.job_pass import BLOCK_EVENTS, PassConsumer, StreamBlock, run_pass
from rtsched.report.job_stream import JOB_DTYPE, ReleasePace, TaskInfo, first_by_job
from rtsched.trace import Trace

__all__ = ["JOB_DTYPE", "JobTable", "ReleasePace", "RowsKept", "TaskInfo", "build_job_table", "first_by_job"]


@dataclass(frozen=True)
class JobTable:
    """Per-task bookkeeping and the completed jobs of every task (``jobs``: JOB_DTYPE, by task
    then job), which are read again from the trace when first asked for: the report's files and
    statistics take the rows a window at a time (``job_pass``) and never ask."""

    tasks: tuple[TaskInfo, ...]
    t0_ns: int
    duration_ns: int
    lost_total: int
    name: str
    completed: int  # rows in ``jobs``
    rows: Callable[[], np.ndarray] = field(repr=False, compare=False)  # makes ``jobs``

    @classmethod
    def of(cls, jobs: np.ndarray, tasks: tuple[TaskInfo, ...], t0_ns: int, duration_ns: int, lost_total: int,
           name: str = "") -> JobTable:
        """A table of rows at hand."""
        return cls(tasks, t0_ns, duration_ns, lost_total, name, len(jobs), lambda: jobs)

    @cached_property
    def jobs(self) -> np.ndarray:
        return self.rows()

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


class RowsKept:
    """A pass's consumer that keeps every row (``JobTable.jobs``), and counts them."""

    def __init__(self, keep: bool = True) -> None:
        self._keep, self.completed = keep, 0
        self._rows: list[np.ndarray] = []

    def window(self, blocks: Sequence[StreamBlock], watermark_ns: int) -> None:
        for block in blocks:
            self.completed += len(block.rows)
            if self._keep and len(block.rows):
                self._rows.append(block.rows)

    def finish(self, tasks: tuple[TaskInfo, ...]) -> None:
        pass

    def rows(self) -> np.ndarray:
        """The rows, by task then job (the pass hands the streams out in task order)."""
        if not self._rows:
            return np.zeros(0, JOB_DTYPE)
        jobs = np.concatenate(self._rows)
        return jobs[np.lexsort((jobs["job"], jobs["task"]))]


def build_job_table(trace: Trace, paces: Mapping[int, ReleasePace] | None = None, *,
                    block_events: int = BLOCK_EVENTS, consumers: Sequence[PassConsumer] = ()) -> JobTable:
    """The per-job table of ``trace``; ``paces``: task index -> ReleasePace for the tasks whose
    unrecorded releases are to be inferred (see the module doc). One pass over the trace
    (``job_pass.run_pass``, ``block_events`` at a time: the table is the same whatever the size)
    counts the rows and hands them to ``consumers``; ``jobs``, the rows themselves, is another
    pass, made when first asked for."""
    counted = RowsKept(keep=False)
    tasks = run_pass(trace, paces, [counted, *consumers], block_events=block_events)

    def rows() -> np.ndarray:
        kept = RowsKept()
        run_pass(trace, paces, [kept], block_events=block_events)
        return kept.rows()

    header = trace.header
    return JobTable(tasks, int(header.get("t0_ns", 0)), int(header.get("duration_ns", 0)), int(trace.lost_total),
                    str(header.get("name", "")), counted.completed, rows)

"""Per-task statistics of a trace, from its job table.

Percentiles use numpy's default (linear interpolation); every time is an
integer or float number of nanoseconds. ``bound_ns`` is the task's analytical
response-time bound (``rtsched.analysis.bounds_for``, rounded up to whole ns;
None when the analysis gives none) and ``bound_exceeded`` flags an observed
response above it. ``blocking_term_ns`` is the analysis' blocking term,
beside the blocking observed in the trace (``rtsched.report.blocking``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rtsched.analysis.results import AnalysisResult
from rtsched.report.blocking import NO_BLOCKING, TaskBlocking
from rtsched.report.job_pass import StreamBlock
from rtsched.report.jobs import JobTable, TaskInfo
from rtsched.report.quantiles import Distinct

__all__ = ["JobFigures", "TaskFigures", "TaskStats", "bound_ns", "figures_stats", "task_stats"]


@dataclass(frozen=True)
class TaskStats:
    task: str
    index: int
    period_ns: int
    deadline_ns: int
    jobs: int                 # completed jobs in the table
    released: int             # jobs released (completed + censored + incomplete + unfinished_missed)
    censored: int             # released, not completed when the run ended, deadline not yet passed
    incomplete: int           # completed but with a RELEASE or START lost
    deadline_misses: int      # completed late, and unfinished_missed
    unfinished_missed: int    # released, not completed, deadline passed before the end (never started, or cut off)
    response_min_ns: int | None
    response_mean_ns: float | None
    response_p90_ns: float | None
    response_p99_ns: float | None
    response_max_ns: int | None
    tardiness_max_ns: int | None
    tardiness_mean_ns: float | None
    release_latency_median_ns: float | None
    release_latency_p99_ns: float | None
    release_latency_max_ns: int | None
    budget_overruns: int
    lost_events: int
    bound_ns: int | None = None
    bound_exceeded: bool = False
    # blocking observed (rtsched.report.blocking) beside the analysis' blocking term
    lock_requests: int = 0
    blocked_owner: int = 0
    blocked_ceiling: int = 0
    blocked_gate: int = 0
    lock_wait_max_ns: int | None = None
    gate_wait_max_ns: int | None = None
    job_blocking_max_ns: int | None = None
    blocking_term_ns: int | None = None


_FIGURES = ("response_min_ns", "response_mean_ns", "response_p90_ns", "response_p99_ns", "response_max_ns",
            "tardiness_max_ns", "tardiness_mean_ns", "release_latency_median_ns", "release_latency_p99_ns",
            "release_latency_max_ns")


class JobFigures:
    """One task's figures over its job rows, added a block at a time (memory: the distinct
    responses and release latencies, not the rows). The same numbers as numpy's on all the rows
    at once: min, max and the counts are exact, the percentiles too (``quantiles.Distinct``);
    a mean is the exact integer sum divided once, which is numpy's while the sum of a task's
    responses (or tardiness) stays below 2**53 ns (104 days)."""

    def __init__(self) -> None:
        self.jobs = self.missed = self.overruns = 0
        self._response, self._latency = Distinct(), Distinct()
        self._response_sum = self._tardiness_sum = 0
        self._tardiness_max: int | None = None

    def add(self, rows: np.ndarray) -> None:
        """Add job rows (JOB_DTYPE) of the task."""
        if not len(rows):
            return
        self.jobs += len(rows)
        self.missed += int(rows["missed"].sum())
        self.overruns += int(rows["overrun"].sum())
        self._response.add(rows["response"])
        self._latency.add(rows["release_latency"])
        self._response_sum += int(rows["response"].sum(dtype=np.int64))
        self._tardiness_sum += int(rows["tardiness"].sum(dtype=np.int64))
        most = int(rows["tardiness"].max())
        self._tardiness_max = most if self._tardiness_max is None else max(self._tardiness_max, most)

    def observed(self) -> dict[str, Any]:
        """TaskStats' response, tardiness and release-latency fields (None when no job)."""
        if not self.jobs:
            return dict.fromkeys(_FIGURES)
        response, latency, n = self._response, self._latency, np.float64(self.jobs)
        return {
            "response_min_ns": response.minimum(),
            "response_mean_ns": float(np.float64(self._response_sum) / n),
            "response_p90_ns": response.percentile(90),
            "response_p99_ns": response.percentile(99),
            "response_max_ns": response.maximum(),
            "tardiness_max_ns": self._tardiness_max,
            "tardiness_mean_ns": float(np.float64(self._tardiness_sum) / n),
            "release_latency_median_ns": latency.median(),
            "release_latency_p99_ns": latency.percentile(99),
            "release_latency_max_ns": latency.maximum(),
        }


class TaskFigures:
    """A pass's consumer (``job_pass.run_pass``): each task's JobFigures, by task index."""

    def __init__(self) -> None:
        self.by_task: dict[int, JobFigures] = {}

    def window(self, blocks: Sequence[StreamBlock], watermark_ns: int) -> None:
        for block in blocks:
            self.by_task.setdefault(block.index, JobFigures()).add(block.rows)

    def finish(self, tasks: tuple[TaskInfo, ...]) -> None:
        for info in tasks:
            self.by_task.setdefault(info.index, JobFigures())


def bound_ns(task: str, analysis: AnalysisResult | None) -> int | None:
    """The task's analytical bound, rounded up to whole ns (None: none)."""
    found = next((t for t in analysis.tasks if t.name == task), None) if analysis is not None else None
    return None if found is None or found.bound_ns is None else math.ceil(found.bound_ns)


def _response_floor(response_max_ns: int | None, info: TaskInfo) -> int | None:
    """The largest response seen, or at least the deadline plus the tardiness an unfinished
    missed job is known to have (its response is longer still)."""
    if not info.unfinished_missed:
        return response_max_ns
    floor = info.deadline_ns + info.unfinished_tardiness_ns
    return floor if response_max_ns is None else max(response_max_ns, floor)


def _with_unfinished(observed: dict[str, Any], info: TaskInfo) -> dict[str, Any]:
    """The completed jobs' figures, the largest tardiness raised to an unfinished job's lower bound."""
    if not info.unfinished_missed:
        return observed
    seen = observed["tardiness_max_ns"]
    return {**observed, "tardiness_max_ns": max(seen or 0, info.unfinished_tardiness_ns)}


def _bound_fields(task: str, response_max_ns: int | None, analysis: AnalysisResult | None) -> dict[str, Any]:
    """The task's analytical bound (rounded up to whole ns), its blocking term, and whether
    the observed maximum exceeded the bound."""
    bound, term = bound_ns(task, analysis), None
    if analysis is not None:
        found = next((t for t in analysis.tasks if t.name == task), None)
        term = found.blocking_ns if found is not None else None
    return {
        "bound_ns": bound,
        "blocking_term_ns": term,
        "bound_exceeded": bound is not None and response_max_ns is not None and response_max_ns > bound,
    }


def task_stats(
    table: JobTable,
    analysis: AnalysisResult | None = None,
    blocking: Mapping[int, TaskBlocking] | None = None,
) -> list[TaskStats]:
    """Each task's statistics; with ``analysis``, its bound beside the observed maximum;
    with ``blocking`` (``blocking_by_task``), the blocking its stream shows."""
    figures = {}
    for info in table.tasks:
        figures[info.index] = JobFigures()
        figures[info.index].add(table.of_task(info.index))
    return figures_stats(table.tasks, figures, analysis, blocking)


def figures_stats(
    tasks: tuple[TaskInfo, ...],
    figures: Mapping[int, JobFigures],
    analysis: AnalysisResult | None = None,
    blocking: Mapping[int, TaskBlocking] | None = None,
) -> list[TaskStats]:
    """``task_stats`` from each task's JobFigures (task index -> its figures)."""
    out = []
    for info in tasks:
        seen_jobs = figures[info.index]
        observed = seen_jobs.observed()
        seen = (blocking or {}).get(info.index, NO_BLOCKING)
        out.append(
            TaskStats(
                task=info.name,
                index=info.index,
                period_ns=info.period_ns,
                deadline_ns=info.deadline_ns,
                jobs=seen_jobs.jobs,
                released=info.released,
                censored=info.censored,
                incomplete=info.incomplete,
                deadline_misses=seen_jobs.missed + info.unfinished_missed,
                unfinished_missed=info.unfinished_missed,
                budget_overruns=seen_jobs.overruns,
                lost_events=info.lost_events,
                **_with_unfinished(observed, info),
                **_bound_fields(info.name, _response_floor(observed["response_max_ns"], info), analysis),
                lock_requests=seen.lock_requests,
                blocked_owner=seen.blocked_owner,
                blocked_ceiling=seen.blocked_ceiling,
                blocked_gate=seen.blocked_gate,
                lock_wait_max_ns=seen.lock_wait_max_ns,
                gate_wait_max_ns=seen.gate_wait_max_ns,
                job_blocking_max_ns=seen.job_blocking_max_ns,
            )
        )
    return out

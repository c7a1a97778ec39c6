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
from typing import Any, Mapping

import numpy as np

from rtsched.analysis.results import AnalysisResult
from rtsched.report.blocking import NO_BLOCKING, TaskBlocking
from rtsched.report.jobs import JobTable, TaskInfo

__all__ = ["TaskStats", "task_stats"]


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


def _stats_of(rows: np.ndarray) -> dict[str, Any]:
    if not len(rows):
        return dict.fromkeys(
            (
                "response_min_ns",
                "response_mean_ns",
                "response_p90_ns",
                "response_p99_ns",
                "response_max_ns",
                "tardiness_max_ns",
                "tardiness_mean_ns",
                "release_latency_median_ns",
                "release_latency_p99_ns",
                "release_latency_max_ns",
            )
        )
    response = rows["response"]
    tardiness = rows["tardiness"]
    latency = rows["release_latency"]
    return {
        "response_min_ns": int(response.min()),
        "response_mean_ns": float(response.mean()),
        "response_p90_ns": float(np.percentile(response, 90)),
        "response_p99_ns": float(np.percentile(response, 99)),
        "response_max_ns": int(response.max()),
        "tardiness_max_ns": int(tardiness.max()),
        "tardiness_mean_ns": float(tardiness.mean()),
        "release_latency_median_ns": float(np.median(latency)),
        "release_latency_p99_ns": float(np.percentile(latency, 99)),
        "release_latency_max_ns": int(latency.max()),
    }


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
    bound = term = None
    if analysis is not None:
        found = next((t for t in analysis.tasks if t.name == task), None)
        if found is not None:
            bound = None if found.bound_ns is None else math.ceil(found.bound_ns)
            term = found.blocking_ns
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
    out = []
    for info in table.tasks:
        rows = table.of_task(info.index)
        observed = _stats_of(rows)
        seen = (blocking or {}).get(info.index, NO_BLOCKING)
        out.append(
            TaskStats(
                task=info.name,
                index=info.index,
                period_ns=info.period_ns,
                deadline_ns=info.deadline_ns,
                jobs=len(rows),
                released=info.released,
                censored=info.censored,
                incomplete=info.incomplete,
                deadline_misses=int(rows["missed"].sum()) + info.unfinished_missed,
                unfinished_missed=info.unfinished_missed,
                budget_overruns=int(rows["overrun"].sum()),
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

"""Per-task statistics of a run, from its job table.

Percentiles use numpy's default (linear interpolation); every time is an
integer or float number of nanoseconds. ``bound_ns`` is the task's analytical
response-time bound (``rtsched.analysis.bounds_for``, rounded up to whole ns;
None when the analysis gives none) and ``bound_exceeded`` flags an observed
response above it. ``blocking_term_ns`` is the analysis' blocking term,
beside the blocking observed in the trace (``rtsched.run.blocking``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from rtsched.run.jobs import JobTable

__all__ = ["TaskStats", "task_stats", "apply_bounds", "events_off_cpus", "server_summary", "summary_dict"]


@dataclass
class TaskStats:
    task: str
    index: int
    period_ns: int
    deadline_ns: int
    jobs: int                 # completed jobs in the table
    released: int             # jobs seen released (completed + censored + incomplete)
    censored: int             # released, not completed when the run ended
    incomplete: int           # completed but with a RELEASE or START lost
    deadline_misses: int
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
    # blocking observed (rtsched.run.blocking) beside the analysis' blocking term
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


def task_stats(table: JobTable) -> list[TaskStats]:
    out = []
    for info in table.tasks:
        rows = table.of_task(info.index)
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
                deadline_misses=int(rows["missed"].sum()),
                budget_overruns=int(rows["overrun"].sum()),
                lost_events=info.lost_events,
                **_stats_of(rows),
            )
        )
    return out


def apply_bounds(stats: list[TaskStats], analysis: Any) -> None:
    """Put each task's analytical bound beside its observed maximum (``analysis``:
    an ``rtsched.analysis`` AnalysisResult) and flag the tasks that exceeded it."""
    bounds = {t.name: t.bound_ns for t in analysis.tasks}
    terms = {t.name: t.blocking_ns for t in analysis.tasks}
    for s in stats:
        bound = bounds.get(s.task)
        s.bound_ns = None if bound is None else math.ceil(bound)
        s.blocking_term_ns = terms.get(s.task)
        s.bound_exceeded = (
            s.bound_ns is not None and s.response_max_ns is not None and s.response_max_ns > s.bound_ns
        )


def server_summary(trace: Any, runner_input: dict[str, Any]) -> list[dict[str, Any]]:
    """Per server of the run: its name, priority and the calls it served
    (RPC_SERVE_END events in its stream, found by name: task_id -1)."""
    from rtsched.trace import EventType as EV

    streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams if s["task_id"] < 0}
    out = []
    for server in runner_input.get("servers", []):
        stream = streams.get(server["name"])
        served = 0
        if stream is not None:
            served = int((trace.events_of(stream)["type"] == EV.RPC_SERVE_END).sum())
        out.append({"name": server["name"], "priority": server["priority"], "calls_served": served})
    return out


def events_off_cpus(trace: Any, runner_input: dict[str, Any]) -> int:
    """Events that task and server threads recorded on a CPU outside the affinity the
    runner gave them: something outside the run moved them (a CPU shield or a cpuset
    change by another program), and their timing is not this set's alone."""
    allowed: dict[str, set[int]] = {t["name"]: set(t["cpus"]) for t in runner_input["tasks"]}
    allowed.update({s["name"]: set(s["cpus"]) for s in runner_input.get("servers", [])})
    count = 0
    for stream in trace.streams:
        cpus = allowed.get(str(stream["name"]))
        if cpus is None:
            continue
        recorded = trace.events_of(int(stream["stream_id"]))["cpu"]
        known = recorded[recorded != 0xFFFF]
        count += int((~np.isin(known, sorted(cpus))).sum())
    return count


def summary_dict(table: JobTable, stats: list[TaskStats], **extra: Any) -> dict[str, Any]:
    """The run's summary (summary.json and ``--json``)."""
    return {
        "format": "rtsched-run-summary/1",
        "name": table.name,
        "t0_ns": table.t0_ns,
        "duration_ns": table.duration_ns,
        **extra,
        "jobs": int(len(table.jobs)),
        "deadline_misses": int(sum(s.deadline_misses for s in stats)),
        "budget_overruns": int(sum(s.budget_overruns for s in stats)),
        "censored_jobs": table.censored,
        "incomplete_jobs": table.incomplete,
        "lost_events": table.lost_total,
        "bounds_exceeded": [s.task for s in stats if s.bound_exceeded],
        "tasks": [asdict(s) for s in stats],
    }

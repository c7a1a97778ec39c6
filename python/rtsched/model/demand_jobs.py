"""The per-job durations of a run's varying computes (runner input ``per_job_ns``, docs/runner-input.md).

A run of ``duration`` releases at most floor((duration − offset) / period) + 1
jobs of a task (a sporadic task's gaps are at least its period), or
``max_jobs``. Each varying compute gets that many values of its stream
(``job_durations``): the runner's job k computes value k, and the simulator,
drawing the same stream, computes the same. A cycling trace needs no more
than its rows, and a sequence than one cycle: the runner takes job k's value modulo the list's length.
The list holds at most MAX_JOB_DURATIONS values (a run of 60 s with a 1 ms
period needs 60 001): a longer run of a drawn demand is an error.
"""

from __future__ import annotations

import itertools

from rtsched.model.demand import MAX_JOB_DURATIONS, Sequence, Trace, job_durations
from rtsched.model.model import Compute, Task, TaskSet

__all__ = ["run_jobs_at_most", "demand_problems", "run_job_durations"]


def run_jobs_at_most(task: Task, duration_ns: int) -> int:
    """The most jobs of ``task`` a run of ``duration_ns`` releases (at least 1, for a list never empty)."""
    jobs = (duration_ns - task.offset_ns) // task.period_ns + 1 if duration_ns >= task.offset_ns else 1
    if task.max_jobs:
        jobs = min(jobs, task.max_jobs)
    return max(1, jobs)


def _needed(task: Task, compute: Compute, duration_ns: int) -> int:
    jobs = run_jobs_at_most(task, duration_ns)
    if isinstance(compute.demand, Trace):
        return min(jobs, len(compute.demand.values_ns))
    if isinstance(compute.demand, Sequence):
        return min(jobs, compute.demand.jobs_per_cycle)
    return jobs


def demand_problems(taskset: TaskSet, duration_ns: int) -> list[str]:
    """Varying computes whose run needs more per-job values than the runner input holds."""
    problems = []
    for i, task in enumerate(taskset.tasks):
        for j, action in enumerate(task.body):
            if isinstance(action, Compute) and action.demand is not None:
                needed = _needed(task, action, duration_ns)
                if needed > MAX_JOB_DURATIONS:
                    problems.append(
                        f"tasks[{i}].body[{j}].compute: the run has up to {needed} jobs of task "
                        f'"{task.name}", more than the {MAX_JOB_DURATIONS} per-job durations the runner '
                        "input holds: shorten the run, or replay a trace that cycles")
    return problems


def run_job_durations(task: Task, duration_ns: int) -> dict[int, list[int]]:
    """Per varying compute of ``task`` (by its index in the body): its durations, job 1 first."""
    return {j: list(itertools.islice(job_durations(a.demand, task.name, j), _needed(task, a, duration_ns)))
            for j, a in enumerate(task.body) if isinstance(a, Compute) and a.demand is not None}

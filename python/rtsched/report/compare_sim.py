"""A real run beside its simulation, job by job (``rtsched run --compare-sim``, issue 16 item 4).

Two reports of the same task set, one of the run's trace and one of the
simulator's (same duration, same overheads as the bounds), are joined on
(task name, job number): both producers number a task's jobs from 1 in
release order, with the same periods, offsets and sporadic generator. For
every job present in both: its observed response, its simulated response,
its task's bound.

A job *diverges* when |observed − simulated| exceeds the tolerance,
max(``tolerance_ns``, ``tolerance_share`` × simulated): the simulation
charges every overhead the model has, so what is left beyond the tolerance
is what the model does not explain. A job slower than its simulation gets
the explanation the report gives a job above its bound
(``excess.explain_job``, held against its simulated response): other
threads, interrupts, host steal, lost events, from the run's kernel
schedule. A job faster than its simulation ran less than the model charges
(execution below the WCET, overheads below the profile's figures).

This module takes reports and the run's kernel schedule, never the simulator.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from rtsched.outputs import partial
from rtsched.report.excess import StealSample, explain_job
from rtsched.report.jobs import JobTable
from rtsched.report.report import Report
from rtsched.trace.kernel_sched import KernelSchedule

__all__ = ["DEFAULT_TOLERANCE_NS", "DEFAULT_TOLERANCE_SHARE", "FASTER", "JobPair", "SimComparison",
           "TaskFidelity", "compare_with_sim", "write_comparison_csv"]

#: A divergence below both of these is within the simulation's tolerance.
DEFAULT_TOLERANCE_NS = 100_000
DEFAULT_TOLERANCE_SHARE = 0.05
#: The verdict of a job that ran faster than its simulation.
FASTER = "faster than simulated"
_FASTER_CAUSE = ("the run took {ms} less than the simulation: its execution or overheads were shorter than the "
                 "model charges (WCETs; the profile's p99 or max figures)")


@dataclass(frozen=True, slots=True)
class JobPair:
    """One job in both traces (ns; ``release_ns`` since the run's t0). ``verdict`` and ``cause``
    only for a diverging job: excess.py's verdicts for a slower one, FASTER for a faster one."""

    task: str
    job: int
    release_ns: int
    observed_ns: int
    simulated_ns: int
    bound_ns: int | None
    diverges: bool
    verdict: str = ""
    cause: str = ""

    @property
    def diff_ns(self) -> int:
        """Observed − simulated (positive: the run was slower)."""
        return self.observed_ns - self.simulated_ns

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "diff_ns": self.diff_ns}


@dataclass(frozen=True, slots=True)
class TaskFidelity:
    """Per task, over the jobs in both traces: the mean responses and how many diverge.
    ``error_share`` = (simulated mean − observed mean) / observed mean (None with no jobs)."""

    task: str
    jobs: int
    observed_mean_ns: float | None
    simulated_mean_ns: float | None
    error_share: float | None
    diverging: int
    observed_only: int  # jobs completed in the run only (the simulation cut them, or not reached)
    simulated_only: int


@dataclass(frozen=True)
class SimComparison:
    pairs: tuple[JobPair, ...]  # by task (the set's order), then job
    tasks: tuple[TaskFidelity, ...]
    tolerance_ns: int
    tolerance_share: float

    @property
    def diverging(self) -> tuple[JobPair, ...]:
        """The diverging jobs, the largest |observed − simulated| first."""
        return tuple(sorted((p for p in self.pairs if p.diverges), key=lambda p: (-abs(p.diff_ns), p.task, p.job)))

    def as_dict(self) -> dict[str, Any]:
        """For summary.json: the tolerance, per task, and every diverging job (all jobs: the CSV)."""
        return {
            "tolerance_ns": self.tolerance_ns,
            "tolerance_share": self.tolerance_share,
            "jobs": len(self.pairs),
            "tasks": [asdict(t) for t in self.tasks],
            "diverging": [p.as_dict() for p in self.diverging],
        }


def _by_job(table: JobTable, task: str) -> dict[int, np.void]:
    info = next((t for t in table.tasks if t.name == task), None)
    if info is None:
        return {}
    return {int(r["job"]): r for r in table.of_task(info.index)}


def compare_with_sim(
    observed: Report,
    simulated: Report,
    *,
    kernel: KernelSchedule | None = None,
    steal: Sequence[StealSample] = (),
    tolerance_ns: int = DEFAULT_TOLERANCE_NS,
    tolerance_share: float = DEFAULT_TOLERANCE_SHARE,
) -> SimComparison:
    """Join ``observed`` (a run's report) and ``simulated`` (its simulation's) job by job.
    ``kernel`` and ``steal``: the run's, to explain the jobs slower than simulated."""
    if tolerance_ns < 0 or tolerance_share < 0:
        raise ValueError("the tolerance must be >= 0")
    run, sim = observed.table, simulated.table
    bounds = {s.task: s.bound_ns for s in observed.stats}
    own_pids = {int(s["tid"]) for s in observed.trace.streams}
    pairs: list[JobPair] = []
    fidelity: list[TaskFidelity] = []
    for info in run.tasks:
        mine, theirs = _by_job(run, info.name), _by_job(sim, info.name)
        cpus = observed.placement.cpus_of(info.name)
        task_pairs: list[JobPair] = []
        for job in sorted(set(mine) & set(theirs)):
            row, observed_ns, simulated_ns = mine[job], int(mine[job]["response"]), int(theirs[job]["response"])
            diff = observed_ns - simulated_ns
            diverges = abs(diff) > max(tolerance_ns, tolerance_share * simulated_ns)
            verdict = cause = ""
            if diverges and diff > 0:
                why = explain_job(info, row, simulated_ns, run.t0_ns, cpus, own_pids, kernel, steal)
                verdict, cause = why.verdict, why.cause
            elif diverges:
                verdict, cause = FASTER, _FASTER_CAUSE.format(ms=f"{-diff / 1e6:.3f} ms")
            task_pairs.append(JobPair(info.name, job, int(row["release"]) - run.t0_ns, observed_ns, simulated_ns,
                                      bounds.get(info.name), diverges, verdict, cause))
        obs_mean = float(np.mean([p.observed_ns for p in task_pairs])) if task_pairs else None
        sim_mean = float(np.mean([p.simulated_ns for p in task_pairs])) if task_pairs else None
        error = (sim_mean - obs_mean) / obs_mean if obs_mean and sim_mean is not None else None
        fidelity.append(TaskFidelity(info.name, len(task_pairs), obs_mean, sim_mean, error,
                                     sum(p.diverges for p in task_pairs), len(set(mine) - set(theirs)),
                                     len(set(theirs) - set(mine))))
        pairs.extend(task_pairs)
    return SimComparison(tuple(pairs), tuple(fidelity), tolerance_ns, tolerance_share)


CSV_COLUMNS = ("task", "job", "release_ns", "observed_ns", "simulated_ns", "diff_ns", "bound_ns", "diverges",
               "verdict", "cause")


def write_comparison_csv(comparison: SimComparison, path: str | Path) -> int:
    """Every job in both traces, one row each (CSV_COLUMNS; an empty bound: none); returns the rows."""
    import csv

    with partial(path) as tmp, open(tmp, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(CSV_COLUMNS)
        for p in comparison.pairs:
            out.writerow((p.task, p.job, p.release_ns, p.observed_ns, p.simulated_ns, p.diff_ns,
                          "" if p.bound_ns is None else p.bound_ns, int(p.diverges), p.verdict, p.cause))
    return len(comparison.pairs)

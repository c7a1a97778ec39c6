"""How far each bound is from a cliff: slack per task, overhead headroom, critical scaling factor.

A bound that sits exactly where a higher-priority job is released (the
Annoyer of seed 004 Table I: 39 ms, with Client1's next release at 40 ms)
holds on paper and breaks on a machine whose overheads the model does not
count: 1 ms more and the bound jumps by a whole job of each interfering
task. This module measures that distance for any registered test, by
re-running the test on the problem with execution times changed:

- ``cliff_ns`` (per task): the largest extra execution time δ of the task's
  own job for which its bound grows by exactly δ (no further job of another
  task, no further blocking enters the window) and the deadline still holds.
  Past it the bound jumps.
- ``deadline_slack_ns`` (per task): the largest δ of its own execution time
  for which the task is still shown to meet its deadline.
- ``overhead_slack_ns`` (per task): the largest δ added to *every* task's
  execution time per job (an overhead the model misses, e.g. a release or
  a context switch) for which this task still meets its deadline. The
  minimum over tasks is the set's ``overhead_headroom_ns``.
- ``critical_scaling_factor`` (set): the largest α (to 1/1000) for which
  every execution time, critical section, RPC service and non-preemptive
  segment scaled by α still gives a schedulable set (Lehoczky, Sha & Ding).

Each search is a binary search over integers, so it assumes what every
sustainable test gives: more execution time never makes a task's verdict
better, and the part of a bound that is not the task's own execution never
shrinks when execution times grow. For a test that is not sustainable in
execution time the figures are those of the search, not a proof.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable

from rtsched.analysis.registry import run_test
from rtsched.analysis.results import AnalysisResult
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask

__all__ = ["TaskSlack", "Sensitivity", "sensitivity", "slack_of"]

SCALING_RESOLUTION = Fraction(1, 1000)


@dataclass(frozen=True, slots=True)
class TaskSlack:
    """One task's distances (ns), None when the test gives the task no bound."""

    name: str
    bound_ns: int | None
    cliff_ns: int | None
    deadline_slack_ns: int | None
    overhead_slack_ns: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "bound_ns": self.bound_ns, "cliff_ns": self.cliff_ns,
                "deadline_slack_ns": self.deadline_slack_ns, "overhead_slack_ns": self.overhead_slack_ns}


@dataclass(frozen=True, slots=True)
class Sensitivity:
    """The result of :func:`sensitivity` for one test on one problem."""

    test: str
    tasks: tuple[TaskSlack, ...]
    overhead_headroom_ns: int | None
    critical_scaling_factor: Fraction | None

    def task(self, name: str) -> TaskSlack:
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        csf = self.critical_scaling_factor
        return {"test": self.test, "tasks": [t.to_dict() for t in self.tasks],
                "overhead_headroom_ns": self.overhead_headroom_ns,
                "critical_scaling_factor": None if csf is None else float(csf)}


def _largest(holds: Callable[[int], bool], limit: int) -> int:
    """The largest x in [0, limit] with holds(x), given holds(0) and holds monotone (true, then false)."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if holds(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _with_wcets(problem: AnalysisProblem, change: Callable[[AnalysisTask], AnalysisTask]) -> AnalysisProblem:
    """``problem`` with ``change`` made to every task's execution; a task in a SCHED_DEADLINE reservation of
    its own keeps its server (the kernel's runtime) and its jobs take the change."""
    reserved = dict(problem.dl_reservations)
    tasks = []
    for t in problem.tasks:
        jobs = reserved.get(t.name)
        if jobs is None:
            tasks.append(change(t))
            continue
        reserved[t.name] = replace(jobs, wcet_ns=change(replace(t, wcet_ns=jobs.wcet_ns)).wcet_ns)
        tasks.append(t)
    return replace(problem, tasks=tuple(tasks), dl_reservations=reserved)


def _scaled_task(t: AnalysisTask, alpha: Fraction) -> AnalysisTask:
    def up(ns: int) -> int:
        return -((-ns * alpha.numerator) // alpha.denominator)  # ceil(ns · α)

    return replace(
        t,
        wcet_ns=up(t.wcet_ns),
        critical_sections=tuple(replace(cs, length_ns=up(cs.length_ns)) for cs in t.critical_sections),
        rpcs=tuple(replace(r, length_ns=up(r.length_ns)) for r in t.rpcs),
        np_segments_ns=tuple(up(s) for s in t.np_segments_ns),
    )


def sensitivity(test: str, problem: AnalysisProblem, *, cliffs_only: bool = False, **options: Any) -> Sensitivity:
    """Slack of every task and of the set under ``test`` (see the module doc).

    ``options`` go to the test as in :func:`run_test` (``overheads=`` too:
    the distances are then those of the overhead-aware bounds). ``cliffs_only``: only each
    task's ``cliff_ns`` (what the run and sim tables show; the other figures, each a search
    of its own, stay None), about a quarter of the test runs.
    """
    base = run_test(test, problem, **options)

    def result_with(change: Callable[[AnalysisTask], AnalysisTask]) -> AnalysisResult:
        return run_test(test, _with_wcets(problem, change), **options)

    slacks: list[TaskSlack] = []
    for bound in base.tasks:
        if bound.verdict != "ok" or bound.bound_ns is None:
            slacks.append(TaskSlack(bound.name, bound.bound_ns, None, None, None))
            continue
        task = problem.task(bound.name)
        limit = problem.job_parameters(task.name)[1]

        def own(delta: int, name: str = task.name) -> AnalysisResult:
            return result_with(lambda t: replace(t, wcet_ns=t.wcet_ns + delta) if t.name == name else t)

        def no_jump(delta: int, name: str = task.name, r0: int = bound.bound_ns) -> bool:
            b = own(delta).task(name)
            return b.verdict == "ok" and b.bound_ns == r0 + delta

        def meets(delta: int, name: str = task.name) -> bool:
            return own(delta).task(name).verdict == "ok"

        def meets_with_overhead(delta: int, name: str = task.name) -> bool:
            return result_with(lambda t: replace(t, wcet_ns=t.wcet_ns + delta)).task(name).verdict == "ok"

        if cliffs_only:
            slacks.append(TaskSlack(task.name, bound.bound_ns, _largest(no_jump, limit), None, None))
            continue
        slacks.append(TaskSlack(task.name, bound.bound_ns, _largest(no_jump, limit),
                                _largest(meets, limit), _largest(meets_with_overhead, limit)))
    if cliffs_only:
        return Sensitivity(test, tuple(slacks), None, None)
    analysed = [s.overhead_slack_ns for s in slacks if s.overhead_slack_ns is not None]
    headroom = min(analysed) if analysed and len(analysed) == len(slacks) else None
    return Sensitivity(test, tuple(slacks), headroom, _critical_scaling_factor(test, problem, base, options))


def _critical_scaling_factor(test: str, problem: AnalysisProblem, base: AnalysisResult,
                             options: dict[str, Any]) -> Fraction | None:
    """The largest α (a multiple of SCALING_RESOLUTION) with the scaled set schedulable; None if the set is not."""
    if not base.schedulable:
        return None

    def holds(steps: int) -> bool:
        alpha = steps * SCALING_RESOLUTION
        return run_test(test, _with_wcets(problem, lambda t: _scaled_task(t, alpha)), **options).schedulable

    upper = int(1 / SCALING_RESOLUTION)
    while holds(2 * upper):  # α above 1: grow the range until it fails (it must: WCET > deadline does)
        upper *= 2
    return _largest(holds, 2 * upper) * SCALING_RESOLUTION


def slack_of(analysis: AnalysisResult, problem: AnalysisProblem, overheads: Any = None, *,
             cliffs_only: bool = False) -> Sensitivity | None:
    """The sensitivity of the bounds ``analysis`` gave a task set's ``problem`` (what ``rtsched
    run`` and ``rtsched sim`` show beside them, ``cliffs_only``: their cliff column): None when
    there are no bounds, or when the result is not a registered test's (``bounds_for``'s fallback)."""
    if not any(b.bound_ns is not None for b in analysis.tasks):
        return None
    extra = {"overheads": overheads} if overheads is not None else {}
    try:
        return sensitivity(analysis.test, problem, cliffs_only=cliffs_only, **extra)
    except (KeyError, ValueError):
        return None

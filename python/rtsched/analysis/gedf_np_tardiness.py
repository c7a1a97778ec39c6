"""Global EDF tardiness with non-preemptive intervals (``gedf-np-tardiness``).

On m identical processors, sporadic tasks with implicit deadlines, U ≤ m and
every u_i ≤ 1, each job a sequence of preemptive execution and
non-preemptive intervals (``np_segments_ns``; a boundary between two
intervals is a preemption point), scheduled by G-EDF (a job inside an
interval keeps its processor until the interval ends; the other processors
run the most urgent ready jobs, any tie-break): every job of τ_k completes
within T_k + x + C_k of its release, with

    x = max(0, (E(m − 1) + B_max − C_min) / (m − U(m − 1))),

E(n) the sum of the n largest C_i, U(n) the sum of the n largest u_i and
B_max the longest non-preemptive interval of any task (0 when there is
none). docs/gedf-np-tardiness.md proves it (Devi and Anderson's LAG
argument with the blocking intervals counted: a lower-priority interval can
only start when no job due by the analysed deadline waits, so the blocking
that follows comes from the intervals in progress at the last such instant).
Without intervals this is a valid preemptive bound, never below
``gedf-tardiness``'s (U(m − 1) where that test has U(m − 2)).

Refused (``unsupported``, with the reason): resources, jitter, D ≠ T,
self-suspension (a suspended job frees its processor to a lower-priority job
that may then start an interval: the proof assumes none), a blocking term
given by hand (``extra_blocking_ns``), and intervals that add up to more
than the WCET. Soft real time: the verdict says tardiness is bounded
(``schedulable`` with bounds that may exceed the deadlines).
"""

from __future__ import annotations

from fractions import Fraction

from rtsched.analysis.gedf import _check, _finish
from rtsched.analysis.results import AnalysisResult, TaskBound, unsupported
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, ceil_fraction

__all__ = ["gedf_np_tardiness", "np_tardiness_x"]


def np_tardiness_x(m: int, costs: list[int], utils: list[Fraction], longest_np: int) -> Fraction | None:
    """The x of the bound (None: tardiness not bounded, U > m or some u > 1)."""
    if sum(utils, Fraction(0)) > m or any(u > 1 for u in utils):
        return None
    top_c = sorted(costs, reverse=True)
    top_u = sorted(utils, reverse=True)
    # m − U(m − 1) ≥ 1 since every u ≤ 1: the denominator is positive
    capacity = m - sum(top_u[: m - 1], Fraction(0))
    return max(Fraction(0), Fraction(sum(top_c[: m - 1]) + longest_np - min(costs)) / capacity)


def _refusal(test: str, problem: AnalysisProblem, t: AnalysisTask) -> AnalysisResult | None:
    if t.deadline_ns != t.period_ns:
        return unsupported(test, problem.names(), f"{test} assumes implicit deadlines ({t.name})")
    if t.suspension_ns:
        return unsupported(test, problem.names(),
                           f"{test}: {t.name} suspends itself; a suspended job frees its processor to a "
                           "longer-deadline job that may start a non-preemptive interval, which the bound does "
                           "not count")
    if t.extra_blocking_ns:
        return unsupported(test, problem.names(), f"{test}: {t.name} has a blocking term given by hand "
                                                  "(extra_blocking_ns), which the bound has no place for")
    if sum(t.np_segments_ns) > t.wcet_ns or any(s < 0 for s in t.np_segments_ns):
        return unsupported(test, problem.names(),
                           f"{test}: {t.name}'s non-preemptive intervals add up to {sum(t.np_segments_ns)} ns, "
                           f"more than its WCET {t.wcet_ns} ns")
    return None


def gedf_np_tardiness(problem: AnalysisProblem) -> AnalysisResult:
    test = "gedf-np-tardiness"
    bad = _check(problem, test)
    if bad is not None:
        return bad
    for t in problem.tasks:
        refused = _refusal(test, problem, t)
        if refused is not None:
            return refused
    m = problem.cpus
    tasks = problem.tasks
    utils = [Fraction(t.wcet_ns, t.period_ns) for t in tasks]
    longest_np = max((s for t in tasks for s in t.np_segments_ns), default=0)
    x = np_tardiness_x(m, [t.wcet_ns for t in tasks], utils, longest_np)
    total = sum(utils, Fraction(0))
    if x is None:
        reason = f"U = {float(total):.4f} > m = {m}" if total > m else "a task has U > 1"
        return _finish(problem, test, [TaskBound(t.name, None, "miss", "tardiness unbounded: " + reason)
                                       for t in tasks], False, "")
    bounds = []
    for t in tasks:
        tard = ceil_fraction(x + t.wcet_ns)
        bounds.append(TaskBound(t.name, t.deadline_ns + tard, "ok",
                                f"tardiness ≤ x + C = {tard} ns (x = {float(x):.0f} ns, longest non-preemptive "
                                f"interval {longest_np} ns); bound = deadline + tardiness"))
    return _finish(problem, test, bounds, False,
                   f"bounded tardiness (U = {float(total):.4f} ≤ m = {m}, B_max = {longest_np} ns)",
                   {"x_ns": x, "utilization": total, "longest_np_ns": longest_np})

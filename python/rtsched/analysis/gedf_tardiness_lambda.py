"""Global EDF tardiness with Λ = ⌈U⌉ − 1 in place of m − 1 (Devi & Anderson).

U. Devi, J. Anderson, "Tardiness bounds under global EDF scheduling on a
multiprocessor", Real-Time Systems 38(2), 2008, and U. Devi's PhD thesis
(UNC, 2006), Corollary 4.11: on m processors, implicit deadlines, U ≤ m and
every u_i ≤ 1, preemptive G-EDF, every job of τ_k completes within
T_k + x + C_k of its release, with

    Λ = ⌈U⌉ − 1,   x = (E(Λ) − C_min) / (m − Σ of the Λ − 1 largest u_i),

E(Λ) the sum of the Λ largest C_i (x ≥ 0 taken). Since U ≤ m gives Λ ≤ m − 1,
this is never above ``gedf-tardiness`` (E over the m − 1 largest, the m − 2
largest utilizations subtracted): fewer terms on top, more capacity below.
Soft real time: the verdict says tardiness is bounded (``schedulable`` with
bounds that may exceed the deadlines), as ``gedf-tardiness``.

Preemptive jobs only: a set with non-preemptive intervals is refused (a
non-preemptive job can hold a processor against a more urgent one, which
this bound does not count).
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil

from rtsched.analysis.gedf import _check, _finish
from rtsched.analysis.results import AnalysisResult, TaskBound, unsupported
from rtsched.analysis.tasks import AnalysisProblem, ceil_fraction

__all__ = ["gedf_tardiness_lambda", "tardiness_x"]


def tardiness_x(m: int, costs: list[int], utils: list[Fraction]) -> Fraction | None:
    """Devi's x (None: not bounded, U > m or some u > 1)."""
    total = sum(utils, Fraction(0))
    if total > m or any(u > 1 for u in utils):
        return None
    lam = max(0, ceil(total) - 1)
    top_c = sorted(costs, reverse=True)
    top_u = sorted(utils, reverse=True)
    capacity = m - sum(top_u[: max(0, lam - 1)], Fraction(0))
    return max(Fraction(0), Fraction(sum(top_c[:lam]) - min(costs)) / capacity)


def gedf_tardiness_lambda(problem: AnalysisProblem) -> AnalysisResult:
    test = "gedf-tardiness-lambda"
    bad = _check(problem, test)
    if bad is not None:
        return bad
    tasks = problem.tasks
    for t in tasks:
        if t.deadline_ns != t.period_ns:
            return unsupported(test, problem.names(), f"{test} assumes implicit deadlines ({t.name})")
        if t.np_segments_ns:
            return unsupported(test, problem.names(), f"{test} assumes preemptive jobs; {t.name} has "
                                                      "non-preemptive intervals")
    m = problem.cpus
    utils = [Fraction(t.exec_ns, t.period_ns) for t in tasks]
    x = tardiness_x(m, [t.exec_ns for t in tasks], utils)
    total = sum(utils, Fraction(0))
    if x is None:
        reason = f"U = {float(total):.4f} > m = {m}" if total > m else "a task has U > 1"
        return _finish(problem, test, [TaskBound(t.name, None, "miss", "tardiness unbounded: " + reason)
                                       for t in tasks], False, "")
    lam = max(0, ceil(total) - 1)
    bounds = [TaskBound(t.name, t.deadline_ns + ceil_fraction(x + t.exec_ns), "ok",
                        f"tardiness ≤ x + C = {ceil_fraction(x + t.exec_ns)} ns (x = {float(x):.0f} ns, Λ = {lam}); "
                        "bound = deadline + tardiness") for t in tasks]
    return _finish(problem, test, bounds, False, f"bounded tardiness (U = {float(total):.4f} ≤ m = {m}, Λ = {lam})",
                   {"x_ns": x, "lambda": lam, "utilization": total})

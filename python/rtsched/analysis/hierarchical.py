"""Hierarchical scheduling: the periodic resource model Γ(Π, Θ) of Shin & Lee.

Shin & Lee, "Periodic resource model for compositional real-time
guarantees" (RTSS 2003). A component receives Θ units of CPU every Π,
at any time within each period; in the worst case the first supply
comes after a blackout of 2(Π − Θ).

- :func:`sbf` — the supply bound function:
  sbf(t) = t − (k+1)(Π−Θ) if t ∈ [(k+1)Π − 2Θ, (k+1)Π − Θ], else (k−1)Θ,
  with k = max(⌈(t − (Π−Θ))/Π⌉, 1).
- :func:`lsbf` — its linear lower bound Θ/Π · (t − 2(Π−Θ)) (0 before the blackout ends).
- :func:`fp_component` — FP inside the component: τ_i is schedulable iff
  ∃ t ∈ (0, D_i]: rbf_i(t) = C_i + Σ_{hp} ⌈t/T_j⌉C_j ≤ sbf(t) (points: the
  releases of higher-priority tasks and D_i). The response bound is the
  least t with supply ≥ demand: R = tbf(C_i + Σ ⌈R/T_j⌉C_j), where
  tbf(x) = x + (Π−Θ)(⌈x/Θ⌉ + 1) is the longest time to receive x.
- :func:`edf_component` — EDF inside: dbf(t) ≤ sbf(t) for every deadline
  t up to the point where the linear bounds of both make it certain.
- :func:`min_budget` — the least Θ (integer ns, or a multiple of
  ``granularity_ns``) for which the component is schedulable, by binary
  search (schedulability is monotone in Θ).

Both tests assume constrained deadlines (D ≤ T) and no release jitter;
``prm-fp`` / ``prm-edf`` refuse other sets (``unsupported``).

Known answer (seed 000, Khalilzad et al., AdHierSched case study): the hard
server S1, Π = 100 ms, FP tasks 31/200 and 31/400 ms. The linear bound
needs Θ² ≥ 1550 ms² (τ_1 at t = 200), Θ = 39.37 ms — the paper's
"B1 = 39"; the exact sbf needs Θ = 31 ms.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Sequence

from rtsched.analysis.edf_uni import dbf
from rtsched.analysis.results import SCHEDULABLE, AnalysisResult, TaskBound, unsupported, verdict_of
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, ceil_div, ceil_fraction

__all__ = ["sbf", "lsbf", "tbf", "fp_component", "edf_component", "min_budget", "prm_fp", "prm_edf"]


def sbf(period: int, budget: int, t: int) -> int:
    """Shin & Lee's supply bound function of Γ(period, budget) at t (integers)."""
    if budget <= 0 or t <= 0:
        return 0
    gap = period - budget
    k = max(ceil_div(t - gap, period), 1)
    lo = (k + 1) * period - 2 * budget
    hi = (k + 1) * period - budget
    if lo <= t <= hi:
        return t - (k + 1) * gap
    return (k - 1) * budget


def lsbf(period: int, budget: int, t: int) -> Fraction:
    """The linear supply bound Θ/Π · (t − 2(Π − Θ)), never negative."""
    x = Fraction(budget, period) * (t - 2 * (period - budget))
    return max(x, Fraction(0))


def tbf(period: int, budget: int, demand: int, linear: bool = False) -> int | None:
    """The least t with supply(t) ≥ demand (None when budget is 0 and demand > 0)."""
    if demand <= 0:
        return 0
    if budget <= 0:
        return None
    gap = period - budget
    if linear:
        return ceil_fraction(Fraction(demand * period, budget) + 2 * gap)
    return demand + gap * (ceil_div(demand, budget) + 1)


def _supply(period: int, budget: int, t: int, linear: bool) -> int | Fraction:
    return lsbf(period, budget, t) if linear else sbf(period, budget, t)


def fp_component(tasks: Sequence[AnalysisTask], period: int, budget: int, linear: bool = False) -> list[TaskBound]:
    """Per-task outcome of FP scheduling inside Γ(period, budget) (constrained deadlines: ValueError else)."""
    if any(t.deadline_ns > t.period_ns for t in tasks):
        raise ValueError("fp_component assumes constrained deadlines (D ≤ T): it checks one job per task")
    out = []
    for task in tasks:
        hp = [j for j in tasks if j is not task and j.priority >= task.priority]
        c = task.exec_ns + task.extra_blocking_ns
        points = {task.deadline_ns}
        for j in hp:
            points.update(range(j.period_ns, task.deadline_ns, j.period_ns))
        ok_at = None
        for t in sorted(points):
            demand = c + sum(ceil_div(t, j.period_ns) * j.exec_ns for j in hp)
            if demand <= _supply(period, budget, t, linear):
                ok_at = t
                break
        if ok_at is None:
            out.append(TaskBound(task.name, None, "miss", "rbf(t) > supply(t) at every point in (0, D]"))
            continue
        # response bound: least fixed point of R = tbf(demand(R))
        # (None: the iteration passed the deadline)
        r: int | None = None
        guess = tbf(period, budget, c + sum(j.exec_ns for j in hp), linear) or 0
        while True:
            new = tbf(period, budget, c + sum(ceil_div(guess, j.period_ns) * j.exec_ns for j in hp), linear)
            if new is None or new > task.deadline_ns:
                break
            if new == guess:
                r = guess
                break
            guess = new
        bound = r if r is not None and r <= task.deadline_ns else task.deadline_ns
        out.append(TaskBound(task.name, bound, "ok",
                             f"rbf ≤ {'lsbf' if linear else 'sbf'} at t = {ok_at} ns under Γ({period}, {budget})"))
    return out


def edf_component(tasks: Sequence[AnalysisTask], period: int, budget: int, linear: bool = False) -> tuple[bool, str]:
    """EDF inside Γ(period, budget): dbf(t) ≤ supply(t) at every deadline that matters."""
    alpha = Fraction(budget, period)
    u = sum((Fraction(t.exec_ns, t.period_ns) for t in tasks), Fraction(0))
    if u > alpha:
        return False, f"U = {float(u):.4f} > Θ/Π = {float(alpha):.4f}"
    if any(t.deadline_ns > t.period_ns for t in tasks):
        raise ValueError("edf_component assumes constrained deadlines (D ≤ T)")
    if u < alpha:
        slack = sum((Fraction(t.exec_ns * (t.period_ns - t.deadline_ns), t.period_ns) for t in tasks), Fraction(0))
        horizon = ceil_fraction((slack + 2 * alpha * (period - budget)) / (alpha - u))
    else:
        horizon = 2 * lcm(period, *(t.period_ns for t in tasks)) + max(t.deadline_ns for t in tasks)
    horizon = max(horizon, max(t.deadline_ns for t in tasks))
    checked = 0
    for t in sorted({d for x in tasks for d in range(x.deadline_ns, horizon + 1, x.period_ns)}):
        checked += 1
        if dbf(tasks, t) > _supply(period, budget, t, linear):
            return False, f"dbf({t}) = {dbf(tasks, t)} ns > supply"
    return True, f"dbf ≤ {'lsbf' if linear else 'sbf'} at {checked} deadline(s) up to {horizon} ns"


def min_budget(tasks: Sequence[AnalysisTask], period: int, scheduler: str = "FP", linear: bool = False,
               granularity_ns: int = 1) -> int | None:
    """The least budget (a multiple of granularity_ns, ≤ period) making the component schedulable."""

    def ok(budget: int) -> bool:
        if scheduler == "FP":
            return all(b.verdict == "ok" for b in fp_component(tasks, period, budget, linear))
        return edf_component(tasks, period, budget, linear)[0]

    hi = period // granularity_ns
    if not ok(hi * granularity_ns):
        return None
    lo = 0
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid * granularity_ns):
            hi = mid
        else:
            lo = mid + 1
    return lo * granularity_ns


def _prm(problem: AnalysisProblem, test: str, scheduler: str, period_ns: int | None, budget_ns: int | None,
         supply: str, granularity_ns: int) -> AnalysisResult:
    if period_ns is None:
        return unsupported(test, problem.names(), f"{test} needs period_ns (the server period Π)")
    if supply not in ("exact", "linear"):
        return unsupported(test, problem.names(), "supply must be 'exact' or 'linear'")
    if problem.resources():
        return unsupported(test, problem.names(), f"{test} assumes independent tasks")
    for t in problem.tasks:
        if t.deadline_ns > t.period_ns:
            return unsupported(test, problem.names(),
                               f"{test} assumes constrained deadlines (D ≤ T); {t.name} has D > T")
        if t.jitter_ns:
            return unsupported(test, problem.names(), f"{test}: release jitter is not supported ({t.name})")
    linear = supply == "linear"
    # exact for the resource model (any supply pattern of Γ) with the exact sbf, tasks without sleeps
    # (FP: of distinct priorities; equal ones run FIFO, where counting each other is not tight)
    exact = (not linear and not any(t.suspension_ns for t in problem.tasks)
             and (scheduler == "EDF" or len({t.priority for t in problem.tasks}) == len(problem.tasks)))
    tasks = problem.tasks
    least = min_budget(tasks, period_ns, scheduler, linear, granularity_ns)
    details = {"period_ns": period_ns, "min_budget_ns": least, "supply": supply}
    budget = budget_ns if budget_ns is not None else least
    if budget is None:
        bounds = [TaskBound(t.name, None, "miss", f"not schedulable even with Θ = Π = {period_ns} ns") for t in tasks]
        return AnalysisResult(test, "not schedulable", tuple(bounds), f"no budget ≤ Π = {period_ns} ns suffices",
                              exact=exact, details=details)
    details["budget_ns"] = budget
    if scheduler == "FP":
        bounds = fp_component(tasks, period_ns, budget, linear)
    else:
        ok, why = edf_component(tasks, period_ns, budget, linear)
        bounds = [TaskBound(t.name, t.deadline_ns if ok else None, "ok" if ok else "miss",
                            why + ("; bound = deadline" if ok else "")) for t in tasks]
    verdict = verdict_of(bounds)
    reason = (f"schedulable under Γ(Π = {period_ns} ns, Θ = {budget} ns); least budget {least} ns ({supply} supply)"
              if verdict == SCHEDULABLE else
              f"not schedulable under Γ(Π = {period_ns} ns, Θ = {budget} ns); least budget {least} ns ({supply} supply)")
    return AnalysisResult(test, verdict, tuple(bounds), reason, exact=exact, details=details)


def prm_fp(problem: AnalysisProblem, period_ns: int | None = None, budget_ns: int | None = None,
           supply: str = "exact", granularity_ns: int = 1) -> AnalysisResult:
    """FP component under Γ(period_ns, budget_ns); without a budget, the least one is used and reported."""
    return _prm(problem, "prm-fp", "FP", period_ns, budget_ns, supply, granularity_ns)


def prm_edf(problem: AnalysisProblem, period_ns: int | None = None, budget_ns: int | None = None,
            supply: str = "exact", granularity_ns: int = 1) -> AnalysisResult:
    """EDF component under Γ(period_ns, budget_ns); without a budget, the least one is used and reported."""
    return _prm(problem, "prm-edf", "EDF", period_ns, budget_ns, supply, granularity_ns)

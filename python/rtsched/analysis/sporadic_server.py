"""Tasks inside a sporadic server (Sprunt, Sha, Lehoczky 1989; replenishment rules as corrected
by Stanovich et al., RTAS 2010: rtsched.sim.sporadic_server), ordered by FP inside.

For the tasks *outside*, the server is a periodic task of (budget Q, period T) at its priority
(the sporadic-server theorem); ``rtsched.analysis.reservations`` puts it in the top level's
``fp-rta`` that way. For the tasks *inside*, this module bounds their response when the
server has the highest priority of its partition (nothing else at or above its priority):

Supply. A unit of budget consumed at time c comes back at max(activation, eligible) + T ≤
c + T (both are ≤ c). Take an interval [s, s + t] throughout which the server has work (a
task inside at or above the level analysed is ready). Of its Q units, at most y were consumed
in [s − y, s), so at least Q − y are eligible by s + T − y; the server, above everything, runs
each unit as soon as it is eligible and it has work, and each unit it runs is back T later.
So it receives at least

    sbf(t) = k·Q + max(0, t − k·T − (T − Q)),   k = ⌊t / T⌋

in any such interval: a blackout of T − Q (the budget just used up before s), then Q at full
rate, and again every T. That is half the blackout of the periodic resource Γ(T, Q) (2(T − Q),
``rtsched.analysis.hierarchical``): a sporadic server's budget is never idled away nor held
back to the end of a period. The least time to receive x is tbf(x) = x + (T − Q)·⌈x / Q⌉.

Response of τ_i (constrained deadlines, no self-suspension, no jitter, no blocking: the
simulator and the model refuse locks in reservations): the least fixed point
R = tbf(C_i + Σ_{j ∈ hp(i)} ⌈R / T_j⌉·C_j), hp(i) the tasks of the server with priority ≥ τ_i's
(equal ones run FIFO: counting them is safe); τ_i meets its deadline when R ≤ D_i.

Below another task or reservation of its partition the server's supply also depends on that
interference; that case is not analysed here: its tasks get "no bound" and the reason.
"""

from __future__ import annotations

from typing import Sequence

from rtsched.analysis.results import SCHEDULABLE, UNSUPPORTED, AnalysisResult, TaskBound, unsupported, verdict_of
from rtsched.analysis.tasks import AnalysisTask, ceil_div

__all__ = ["TEST", "ss_sbf", "ss_tbf", "ss_fp_bounds", "ss_min_budget", "sporadic_server_fp"]

#: The test's name, as an AnalysisResult's ``test``.
TEST = "ss-fp"


def ss_sbf(period_ns: int, budget_ns: int, t_ns: int) -> int:
    """Least supply of a highest-priority sporadic server (budget, period) in t ns of backlog."""
    if t_ns <= 0 or budget_ns <= 0:
        return 0
    k = t_ns // period_ns
    return k * budget_ns + max(0, t_ns - k * period_ns - (period_ns - budget_ns))


def ss_tbf(period_ns: int, budget_ns: int, demand_ns: int) -> int:
    """The least t with ss_sbf(t) ≥ demand (budget > 0)."""
    if demand_ns <= 0:
        return 0
    return demand_ns + (period_ns - budget_ns) * ceil_div(demand_ns, budget_ns)


def ss_fp_bounds(tasks: Sequence[AnalysisTask], period_ns: int, budget_ns: int) -> list[TaskBound]:
    """Each task's response bound under FP inside the server (``miss`` when it passes D)."""
    out = []
    for task in tasks:
        hp = [j for j in tasks if j is not task and j.priority >= task.priority]
        c = task.exec_ns + task.extra_blocking_ns
        response = ss_tbf(period_ns, budget_ns, c + sum(j.exec_ns for j in hp))
        while response <= task.deadline_ns:
            following = ss_tbf(period_ns, budget_ns,
                               c + sum(ceil_div(response, j.period_ns) * j.exec_ns for j in hp))
            if following == response:
                break
            response = following
        if response > task.deadline_ns:
            out.append(TaskBound(task.name, None, "miss", f"the response passes the deadline {task.deadline_ns} ns "
                                 f"under the sporadic server ({period_ns}, {budget_ns}) ns"))
        else:
            out.append(TaskBound(task.name, response, "ok", f"R = tbf(demand(R)) = {response} ns inside the "
                                 f"highest-priority sporadic server ({period_ns}, {budget_ns}) ns"))
    return out


def ss_min_budget(tasks: Sequence[AnalysisTask], period_ns: int) -> int | None:
    """The least budget (ns, ≤ period) that meets every deadline inside (schedulability is monotone
    in the budget: ss_sbf grows with it)."""

    def ok(budget: int) -> bool:
        return all(b.verdict == "ok" for b in ss_fp_bounds(tasks, period_ns, budget))

    if not ok(period_ns):
        return None
    lo, hi = 1, period_ns
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def sporadic_server_fp(name: str, tasks: Sequence[AnalysisTask], period_ns: int, budget_ns: int,
                       above: Sequence[str]) -> AnalysisResult:
    """The tasks of the sporadic server ``name``; ``above``: what its partition has at or above the
    server's priority (then no bound: ``unsupported``, the reason naming them)."""
    names = [t.name for t in tasks]
    if above:
        return unsupported(TEST, names, f'no bound: sporadic server "{name}" is not the highest priority of its '
                           f"partition ({', '.join(above)} at or above it), and its supply under interference "
                           "is not analysed (the tasks below it are: the server counts as a periodic task)")
    for t in tasks:
        why = ("D > T" if t.deadline_ns > t.period_ns else "release jitter" if t.jitter_ns
               else "it sleeps (self-suspension)" if t.suspension_ns else None)
        if why is not None:
            return unsupported(TEST, names, f"no bound for the tasks of sporadic server \"{name}\": {t.name}: {why}")
    bounds = ss_fp_bounds(tasks, period_ns, budget_ns)
    verdict = verdict_of(bounds)
    assert verdict != UNSUPPORTED
    least = ss_min_budget(tasks, period_ns)
    state = "schedulable" if verdict == SCHEDULABLE else "not schedulable"
    return AnalysisResult(TEST, verdict, tuple(bounds),
                          f"{state} inside the highest-priority sporadic server ({period_ns}, {budget_ns}) ns; "
                          f"least budget {least} ns",
                          details={"period_ns": period_ns, "budget_ns": budget_ns, "min_budget_ns": least})

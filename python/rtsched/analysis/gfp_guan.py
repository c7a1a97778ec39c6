"""Global fixed priority: response-time analysis with limited carry-in (Guan et al. 2009).

N. Guan, M. Stigge, W. Yi, G. Yu, "New response time bounds for fixed
priority multiprocessor scheduling", RTSS 2009 (Eq. 5–12). Constrained
deadlines, independent tasks, integer time, suspension-oblivious (the
checks of ``gedf``). Priorities as everywhere in rtsched: higher number =
more urgent; a task of equal priority is counted as higher (ties may go
against τ_k).

For τ_k, let t_0 be the earliest instant from which every processor runs
higher-priority jobs until τ_k's release: just before t_0 at most m − 1
such jobs are pending, so at most m − 1 higher-priority tasks carry work
into the window [t_0, t_0 + x). A task without carry-in runs at most

    W_NC(τ_i, x) = ⌊x/T_i⌋·C_i + min(x mod T_i, C_i)

and one with carry-in (its job ends within R_i of its release) at most

    W_CI(τ_i, x) = ⌊max(x − C_i, 0)/T_i⌋·C_i + C_i + α,
    α = min(max((max(x − C_i, 0) mod T_i) − (T_i − R_i), 0), C_i − 1).

With I_NC = min(W_NC, x − C_k + 1), I_CI = min(W_CI, x − C_k + 1) and

    Ω_k(x) = Σ_{hp i} I_NC_i + (the m − 1 largest I_CI_i − I_NC_i),

any x with C_k + ⌊Ω_k(x)/m⌋ ≤ x bounds τ_k's response time: were its job
unfinished at t_0 + x, it would have run at most C_k − 1 ticks, so in x − C_k + 1
ticks of the window all m processors ran higher-priority work, each task
at most I of it: Ω_k(x) ≥ m(x − C_k + 1). Ω_k is non-decreasing (a maximum,
over the choice of carry-in tasks, of non-decreasing sums), so the
iteration x ← C_k + ⌊Ω_k(x)/m⌋ from x = C_k climbs to the least such x; if it
creeps (1 ns per step) for rta_fixpoint.CREEP_STEPS steps (rta_fixpoint.least_bound), a bisection between the current
value and D_k finds a valid x instead (still a bound, maybe not the least).

Tasks are analysed from the highest priority down; each uses the bounds R_i
of those above it. A task with no bound within its deadline leaves the
tasks below it ``unknown`` (their carry-in used its deadline).
"""

from __future__ import annotations

from typing import Sequence

from rtsched.analysis.gedf import _check, _finish
from rtsched.analysis.rta_fixpoint import least_bound
from rtsched.analysis.results import AnalysisResult, TaskBound
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask

__all__ = ["gfp_guan", "guan_interference"]

#: Fixed-point steps before the search for a bound switches to bisection.


def _w_nc(c: int, t: int, x: int) -> int:
    return (x // t) * c + min(x % t, c)


def _w_ci(c: int, t: int, r: int, x: int) -> int:
    y = max(x - c, 0)
    alpha = min(max(y % t - (t - r), 0), c - 1)
    return (y // t) * c + c + alpha


def guan_interference(k: AnalysisTask, hp: Sequence[tuple[AnalysisTask, int]], m: int, x: int) -> int:
    """Ω_k(x): hp is (task, its response bound) for every higher-or-equal-priority task."""
    cap = x - k.exec_ns + 1
    nc_total = 0
    diffs = []
    for i, ri in hp:
        nc = min(_w_nc(i.exec_ns, i.period_ns, x), cap)
        ci = min(_w_ci(i.exec_ns, i.period_ns, ri, x), cap)
        nc_total += nc
        diffs.append(ci - nc)
    diffs.sort(reverse=True)
    return nc_total + sum(diffs[: max(0, m - 1)])


def _bound(k: AnalysisTask, hp: Sequence[tuple[AnalysisTask, int]], m: int) -> int | None:
    c = k.exec_ns
    if c > k.deadline_ns:
        return None

    def f(x: int) -> int:
        return c + guan_interference(k, hp, m, x) // m

    return least_bound(f, c, k.deadline_ns)


def gfp_guan(problem: AnalysisProblem) -> AnalysisResult:
    test = "gfp-guan"
    bad = _check(problem, test, scheduler="G-FP")
    if bad is not None:
        return bad
    m = problem.cpus
    ordered = sorted(problem.tasks, key=lambda t: -t.priority)
    done: dict[str, int] = {}
    out: dict[str, TaskBound] = {}
    broken = False
    for k in ordered:
        if broken:
            out[k.name] = TaskBound(k.name, None, "unknown", "a higher-priority task is not shown schedulable")
            continue
        # equal priorities not analysed yet: their deadline as response bound (valid once they are shown)
        hp = [(i, done.get(i.name, i.deadline_ns)) for i in ordered if i is not k and i.priority >= k.priority]
        r = _bound(k, hp, m)
        if r is None:
            out[k.name] = TaskBound(k.name, None, "miss", "response time exceeds the deadline")
            broken = True
        else:
            out[k.name] = TaskBound(k.name, r, "ok", "Guan et al. RTA (at most m − 1 carry-in tasks)")
            done[k.name] = r
    return _finish(problem, test, [out[n] for n in problem.names()], False,
                   "every task has a response-time bound within its deadline")

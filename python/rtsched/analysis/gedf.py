"""Global EDF (and global FP) on m identical processors, independent sporadic tasks.

Every test here assumes constrained deadlines (D ≤ T): with D > T a job can
wait for an earlier job of its own task, which none of the interference
bounds below counts (issue 22: BCL and the G-FP RTA accepted sets with
U > m). A set with D > T is ``unsupported``, with the task named.

- :func:`gedf_gfb` — Goossens, Funk, Baruah 2003 (density form, Bertogna
  et al. 2005): Σ δ_i ≤ m − (m − 1)·δ_max, δ_i = C_i / min(D_i, T_i).
- :func:`gedf_bcl` — Bertogna, Cirinei, Lipari 2005 ("Improved
  schedulability analysis of EDF on multiprocessor platforms"): for every
  τ_k, with λ_k = C_k/D_k, N_i = ⌊(D_k − D_i)/T_i⌋ + 1 and
  β_i^k = (N_i·C_i + min(C_i, max(0, D_k − N_i·T_i))) / D_k:
  Σ_{i≠k} min(β_i^k, 1 − λ_k) < m(1 − λ_k), or = with some 0 < β_i^k ≤ 1 − λ_k.
- :func:`gedf_rta` — the response-time analysis of Bertogna & Cirinei 2007
  ("Response-time analysis for globally scheduled symmetric multiprocessor
  platforms"), EDF variant with iterative refinement: integer time,
  R_k = C_k + ⌊(1/m) Σ_{i≠k} min(W_i(R_k), E_i^k, R_k − C_k + 1)⌋ with the
  workload bound W_i(L) = N·C_i + min(C_i, L + R_i − C_i − N·T_i),
  N = ⌊(L + R_i − C_i)/T_i⌋, and the EDF bound
  E_i^k = ⌊D_k/T_i⌋·C_i + min(C_i, max(0, D_k mod T_i − (D_i − R_i))).
  Bounds start at the deadlines and shrink until nothing changes.
- :func:`gfp_rta` — the same authors' RTA for global fixed priority (only
  the higher-priority tasks interfere, W_i with their own bounds).
- :func:`gedf_tardiness` — Devi & Anderson 2005/2008 ("Tardiness bounds
  under global EDF scheduling on a multiprocessor"): implicit deadlines,
  U ≤ m: every job of τ_k finishes within T_k + x + C_k with
  x = (Σ of the m−1 largest C − C_min) / (m − Σ of the m−2 largest U).
  Soft real-time: the bound may exceed the deadline; the verdict is about
  bounded tardiness.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Any, Collection, Sequence

from rtsched.analysis.rta_fixpoint import NO_BOUND, Interference, Term, least_response
from rtsched.analysis.results import SCHEDULABLE, STOPPED, AnalysisResult, TaskBound, unsupported, verdict_of
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, ceil_fraction

__all__ = ["gedf_gfb", "gedf_bcl", "gedf_rta", "rta_result", "gfp_rta", "gedf_tardiness"]


def _check(problem: AnalysisProblem, test: str, scheduler: str = "G-EDF") -> AnalysisResult | None:
    if problem.scheduler != scheduler:
        return unsupported(test, problem.names(), f"{test} is a {scheduler} test; the set uses {problem.scheduler}")
    if problem.resources():
        return unsupported(test, problem.names(), f"{test} assumes independent tasks; the set shares resources")
    if any(t.jitter_ns for t in problem.tasks):
        return unsupported(test, problem.names(), f"{test}: release jitter is not supported")
    if problem.cpus < 1:
        return unsupported(test, problem.names(), "no processors")
    longer = next((t for t in problem.tasks if t.deadline_ns > t.period_ns), None)
    if longer is not None:
        return unsupported(test, problem.names(),
                           f"{test} assumes constrained deadlines (D ≤ T); {longer.name} has D = "
                           f"{longer.deadline_ns} ns > T = {longer.period_ns} ns, where earlier jobs of "
                           "the same task interfere, which the test does not count")
    return None


def _finish(problem: AnalysisProblem, test: str, bounds: list[TaskBound], exact: bool, reason_ok: str,
            details: dict[str, Any] | None = None) -> AnalysisResult:
    bounds = [TaskBound(b.name, None, "unknown", problem.unanalysable[b.name]) if b.name in problem.unanalysable else b
              for b in bounds]
    verdict = verdict_of(bounds)
    bad = [b for b in bounds if b.verdict != "ok"]
    reason = reason_ok if verdict == SCHEDULABLE else (f"{bad[0].name}: {bad[0].reason}" if bad else "")
    return AnalysisResult(test=test, verdict=verdict, tasks=tuple(bounds), exact=exact, reason=reason,
                          details=details or {})


def gedf_gfb(problem: AnalysisProblem) -> AnalysisResult:
    test = "gedf-gfb"
    bad = _check(problem, test)
    if bad is not None:
        return bad
    m = problem.cpus
    # δ_i = C_i / min(D_i, T_i) (C: execution plus suspension), summed over one common denominator
    pairs = [(t.exec_ns, min(t.deadline_ns, t.period_ns)) for t in problem.tasks]
    common = lcm(*(d for _, d in pairs))
    total = Fraction(sum(c * (common // d) for c, d in pairs), common)
    c_max, d_max = 0, 1  # the largest δ, compared crosswise
    for c, d in pairs:
        if c * d_max > c_max * d:
            c_max, d_max = c, d
    limit = m - (m - 1) * Fraction(c_max, d_max)
    ok = total <= limit
    why = f"Σδ = {float(total):.4f} {'≤' if ok else '>'} m − (m−1)δmax = {float(limit):.4f} (m = {m})"
    bounds = [TaskBound(t.name, t.deadline_ns if ok else None, "ok" if ok else "miss",
                        why + ("; bound = deadline" if ok else "")) for t in problem.tasks]
    return _finish(problem, test, bounds, False, why, {"density": total, "limit": limit})


def bcl_condition(tasks: Sequence[AnalysisTask], k: AnalysisTask, m: int) -> tuple[bool, int, int]:
    """BCL's condition for τ_k: (holds, Σ min(β, 1−λ), m(1−λ)), both sums times D_k.

    In integers: β_i^k·D_k = N_i·C_i + carry and (1 − λ_k)·D_k = D_k − C_k, so the condition
    is compared exactly without fractions (the same answer as in rationals)."""
    dk = k.deadline_ns
    room = dk - k.exec_ns
    total = 0
    some_small = False
    for i in tasks:
        if i is k:
            continue
        c_i, t_i = i.exec_ns, i.period_ns
        n = (dk - i.deadline_ns) // t_i + 1 if dk >= i.deadline_ns else 0
        gap = dk - n * t_i
        beta = n * c_i + (c_i if gap >= c_i else gap if gap > 0 else 0)
        if beta < room:
            total += beta
            some_small = some_small or beta > 0
        else:
            total += room
            some_small = some_small or (beta == room and beta > 0)
    cap = m * room
    return (total < cap) or (total == cap and some_small), total, cap


def gedf_bcl(problem: AnalysisProblem, verdict_only: bool = False) -> AnalysisResult:
    """``verdict_only``: stop at the first task that fails (the others: ``unknown``); same verdict."""
    test = "gedf-bcl"
    bad = _check(problem, test)
    if bad is not None:
        return bad
    m = problem.cpus
    bounds: list[TaskBound] = []
    missed = False
    for k in problem.tasks:
        if missed and verdict_only:
            bounds.append(TaskBound(k.name, None, "unknown", STOPPED))
            continue
        if k.exec_ns > min(k.deadline_ns, k.period_ns):
            bounds.append(TaskBound(k.name, None, "miss", "C > min(D, T)"))
            missed = True
            continue
        ok, total, cap = bcl_condition(problem.tasks, k, m)
        dk = k.deadline_ns
        why = f"Σ min(β, 1−λ) = {total / dk:.4f} {'<' if total < cap else '=' if total == cap else '>'} m(1−λ) = {cap / dk:.4f}"
        bounds.append(TaskBound(k.name, dk if ok else None, "ok" if ok else "miss",
                                why + ("; bound = deadline" if ok else "")))
        missed = missed or not ok
    return _finish(problem, test, bounds, False, "BCL's condition holds for every task")


def _rta_one(k: AnalysisTask, terms: Sequence[Term], m: int) -> int | None:
    """A response-time bound R ≤ D_k with f(R) ≤ R, or None; ``terms``: the other tasks' parts.

    f(R) = C_k + ⌊(1/m) Σ min(W_i(R), E_i, R − C_k + 1)⌋. Any R with f(R) ≤ R
    bounds the response time (if the job were unfinished at R, every term
    would reach R − C_k + 1 on m processors, so f(R) > R); the least such R
    is the least fixed point, reached by iterating from C_k. In integer ns
    the iteration can creep by 1 ns per step (the R − C_k + 1 caps), so after
    CREEP_STEPS steps a valid R is found by bisection between the current
    value and D_k instead: still a bound, possibly a little above the least
    (``rta_fixpoint.least_response``, which walks f's linear pieces).
    Invariant: a returned R is ≤ D_k. That includes the first iterate R = C_k (execution plus
    suspension): a job alone responds in C_k, so C_k > D_k is a miss whatever interferes.
    """
    c = k.exec_ns
    if c > k.deadline_ns:
        return None
    return least_response(Interference(c, m, terms), k.deadline_ns)


#: τ_i as seen from τ_k's window under G-EDF: (i, C_i, T_i, ⌊D_k/T_i⌋·C_i, D_k mod T_i − D_i), so that
#: the EDF bound is E_i^k = ⌊D_k/T_i⌋·C_i + min(C_i, max(0, D_k mod T_i − (D_i − R_i))).
EdfPart = tuple[int, int, int, int, int]


def _edf_parts(tasks: Sequence[AnalysisTask], k: int) -> list[EdfPart]:
    dk = tasks[k].deadline_ns
    return [(i, t.exec_ns, t.period_ns, dk // t.period_ns * t.exec_ns, dk % t.period_ns - t.deadline_ns)
            for i, t in enumerate(tasks) if i != k]


def _edf_terms(parts: Sequence[EdfPart], bound: Sequence[int]) -> list[Term]:
    """The interference terms (C_i, T_i, R_i − C_i, E_i^k) for the response bounds ``bound``."""
    terms = []
    for i, c, t, whole, rest in parts:
        carry = rest + bound[i]
        terms.append((c, t, bound[i] - c, whole + (c if carry >= c else carry if carry > 0 else 0)))
    return terms


def gedf_rta(problem: AnalysisProblem, verdict_only: bool = False) -> AnalysisResult:
    """Rounds over the tasks, each bound from the others' current ones, until none shrinks.

    ``verdict_only``: stop after the first round that bounds every task within its deadline
    (the bounds reported are that round's: valid, not always the least the later rounds reach).
    """
    test = "gedf-rta"
    bad = _check(problem, test)
    if bad is not None:
        return bad
    m = problem.cpus
    tasks = problem.tasks
    parts = [_edf_parts(tasks, k) for k in range(len(tasks))]  # fixed over the rounds
    bound = [t.deadline_ns for t in tasks]
    failed: set[int] = set()
    changed = True
    rounds = 0
    # A task's result depends only on the others' bounds: while none of them has changed since
    # it was last computed (``updates`` counts the changes), it is the same, and not recomputed.
    updates = 0
    seen: dict[int, tuple[int, int | None]] = {}  # task -> (updates when computed, its result)
    while changed and rounds < 1000:
        rounds += 1
        changed = False
        failed = set()
        for k, task in enumerate(tasks):
            last = seen.get(k)
            if last is not None and last[0] == updates:
                r = last[1]
            else:
                r = _rta_one(task, _edf_terms(parts[k], bound), m)
            if r is not None and r < bound[k]:
                bound[k] = r
                changed = True
                updates += 1
            seen[k] = (updates, r)
            if r is None:
                failed.add(k)
        if verdict_only and not failed:
            break
    return rta_result(problem, failed, bound, rounds)


def rta_result(problem: AnalysisProblem, failed: Collection[int], bound: Sequence[int], rounds: int) -> AnalysisResult:
    """gedf_rta's result from the outcome of its rounds: the tasks (by index) left without a bound
    within their deadline, every task's last bound, the rounds run. (Also what the native kernel's
    outputs are turned into: ``native_engine.gedf_rta``.)"""
    out = []
    for k, t in enumerate(problem.tasks):
        if k in failed:
            out.append(TaskBound(t.name, None, "miss", "no response-time bound within the deadline"))
        elif failed:
            # a task never bounded makes the others' bounds (which assumed R_i ≤ D_i) invalid
            out.append(TaskBound(t.name, None, "unknown", "depends on a task not shown schedulable"))
        else:
            out.append(TaskBound(t.name, bound[k], "ok", f"Bertogna–Cirinei RTA, {rounds} round(s)"))
    return _finish(problem, "gedf-rta", out, False, "every task has a response-time bound within its deadline")


def gfp_rta(problem: AnalysisProblem) -> AnalysisResult:
    test = "gfp-rta"
    bad = _check(problem, test, scheduler="G-FP")
    if bad is not None:
        return bad
    m = problem.cpus
    ordered = sorted(problem.tasks, key=lambda t: -t.priority)
    done: list[tuple[AnalysisTask, int]] = []
    out: dict[str, TaskBound] = {}
    broken = False
    for k in ordered:
        if broken:
            out[k.name] = TaskBound(k.name, None, "unknown", "a higher-priority task is not shown schedulable")
            continue
        hp = [(i, r) for i, r in done if i.priority >= k.priority]
        # equal priorities not yet analysed: assume their deadline as bound
        hp += [(i, i.deadline_ns) for i in ordered if i is not k and i.priority == k.priority
               and all(i is not j for j, _ in done)]
        r = _rta_one(k, [(i.exec_ns, i.period_ns, ri - i.exec_ns, NO_BOUND) for i, ri in hp], m)
        if r is None:
            out[k.name] = TaskBound(k.name, None, "miss", "response time exceeds the deadline")
            broken = True
        else:
            out[k.name] = TaskBound(k.name, r, "ok", "Bertogna–Cirinei RTA for global FP")
            done.append((k, r))
    return _finish(problem, test, [out[n] for n in problem.names()], False,
                   "every task has a response-time bound within its deadline")


def gedf_tardiness(problem: AnalysisProblem) -> AnalysisResult:
    test = "gedf-tardiness"
    bad = _check(problem, test)
    if bad is not None:
        return bad
    m = problem.cpus
    tasks = problem.tasks
    for t in tasks:
        if t.deadline_ns != t.period_ns:
            return unsupported(test, problem.names(), f"{test} assumes implicit deadlines ({t.name})")
    us = [Fraction(t.exec_ns, t.period_ns) for t in tasks]
    total = sum(us, Fraction(0))
    if total > m or any(u > 1 for u in us):
        reason = f"U = {float(total):.4f} > m = {m}" if total > m else "a task has U > 1"
        return _finish(problem, test, [TaskBound(t.name, None, "miss", "tardiness unbounded: " + reason) for t in tasks],
                       False, "")
    cs = sorted((t.exec_ns for t in tasks), reverse=True)
    e_sum = sum(cs[: max(0, m - 1)])
    u_sum = sum(sorted(us, reverse=True)[: max(0, m - 2)], Fraction(0))
    e_min = min(cs)
    x = Fraction(e_sum - e_min, 1) / (m - u_sum) if m > 1 else Fraction(0)
    x = max(x, Fraction(0))
    bounds = []
    for t in tasks:
        tard = ceil_fraction(x + t.exec_ns)
        r = t.deadline_ns + tard
        bounds.append(TaskBound(t.name, r, "ok", f"tardiness ≤ x + C = {tard} ns (x = {float(x):.0f} ns); "
                                                 f"bound = deadline + tardiness"))
    return _finish(problem, test, bounds, False, f"bounded tardiness (U = {float(total):.4f} ≤ m = {m})",
                   {"x_ns": x, "utilization": total})

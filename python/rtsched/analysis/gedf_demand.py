"""Global EDF tests built on demand bound functions: Baruah (2007), FF-DBF (2010).

Both assume m ≥ 1 identical processors, independent sporadic tasks with
constrained deadlines (D ≤ T), integer time (ns), suspension-oblivious
(a sleep counts as execution, ``exec_ns``); the checks of ``gedf`` apply.

:func:`gedf_baruah` — S. Baruah, "Techniques for multiprocessor global
schedulability analysis", RTSS 2007. For the job of τ_k that would miss
first, at t_d, let t_0 ≤ t_k (its release) be the earliest instant from
which every processor runs jobs with deadline ≤ t_d until t_k, A = t_k − t_0
and t = A + D_k. Just before t_0 at most m − 1 such jobs are pending, so at
most m − 1 tasks carry a job into [t_0, t_d). In integer time a miss means
x = A + D_k − C_k + 1 ticks in [t_0, t_d) in which all m processors run other
jobs, so Σ_i (what τ_i runs in them) = m·x, each term at most x. With

    DBF(τ_i, t)  = max(0, ⌊(t − D_i)/T_i⌋ + 1)·C_i         (no carry-in)
    DBF'(τ_i, t) = ⌊t/T_i⌋·C_i + min(C_i, t mod T_i)       (a carry-in job)
    I1_i = min(DBF(τ_i, t), x),  I2_i = min(DBF'(τ_i, t), x)    (i ≠ k)
    I1_k = min(DBF(τ_k, t) − C_k, A), I2_k = min(DBF'(τ_k, t) − C_k, A)

(τ_k's earlier jobs run only before t_k), τ_k meets its deadlines when, for
every A ≥ 0,

    Σ_i I1_i + (the m − 1 largest I2_i − I1_i)  <  m·x.                  (*)

This is the paper's condition 8 with the integer-time caps (A + D_k − C_k + 1,
Baruah's own correction for integer parameters) and the strict form that
the tick count gives.

*Which A to check* (what makes the test finite and exact to its condition):
the left side is at most U·t + Σ_i U_i(T_i − D_i) + C_Σ − C_k (C_Σ the m − 1
largest C), so (*) holds for every t > (Σ U_i(T_i − D_i) + C_Σ + (m − 1)C_k)/(m − U)
(this needs U < m). Below that, each I term is linear in A between the
points where a DBF steps, a DBF' bends (t = jT_i, jT_i + C_i) or a min
switches sides (t = value + C_k − 1; for τ_k, t = value + D_k); on such a
piece, Σ I1 is linear and "the m − 1 largest differences" is a maximum of
linear functions, so the left side minus m·x is convex and its maximum is
at one end of the piece. The test evaluates (*) at every breakpoint and at
the integer before it: no A is skipped. (Implementations often check only
the DBF steps; between two steps the caps and carry-in terms can grow with
slope up to 2m − 1 against the right side's m, so that shortcut is not
argued here. On 1,063 small sets it never decided differently.)

:func:`gedf_ffdbf` — S. Baruah, V. Bonifaci, A. Marchetti-Spaccamela,
S. Stiller, "Improved multiprocessor global schedulability analysis",
Real-Time Systems 46(1), 2010 (ECRTS 2009): with q_i = ⌊t/T_i⌋, r_i = t mod T_i,
the forced-forward demand of τ_i at speed σ is

    FF-DBF(τ_i, t, σ) = q_i·C_i + { C_i                    if r_i ≥ D_i
                                   { C_i − (D_i − r_i)·σ    if D_i > r_i ≥ D_i − C_i/σ
                                   { 0                      otherwise

and the set is G-EDF schedulable on m ≥ 2 unit-speed processors if for some
σ with δ_max ≤ σ ≤ 1 and σ < (m − U)/(m − 1), for every t ≥ 0:
Σ_i FF-DBF(τ_i, t, σ) ≤ (m − (m − 1)σ)·t (the paper's Theorem 2).

*Which t*: Σ FF-DBF is continuous and piecewise linear in t (slopes 0 or σ
per task) and the right side is linear, so their difference is largest
where some term stops rising: t = q·T_i + D_i. Since FF-DBF ≤ U_i·t + C_i,
the condition holds for every t > Σ C_i / (m − (m − 1)σ − U). *Which σ*:
a grid of at most SIGMA_STEPS values with denominator SIGMA_DENOMINATOR,
from the least one ≥ δ_max up to the bound (any σ that passes proves the set
schedulable, so the grid only costs acceptance, never soundness); exact
integer arithmetic (everything scaled by the denominator).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from rtsched.analysis.gedf import _check, _finish
from rtsched.analysis.results import UNDECIDED, AnalysisResult, TaskBound, unsupported
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask

__all__ = ["gedf_baruah", "baruah_result", "BaruahCheck", "gedf_ffdbf", "ffdbf_grid", "ffdbf_result", "FfdbfGrid",
           "MAX_POINTS", "SIGMA_STEPS", "SIGMA_DENOMINATOR"]

#: Values of A checked per task before the test answers "unknown" (the range grows as 1/(m − U)).
MAX_POINTS = 400_000
#: Larger times than this could overflow the int64 sums (m·x with n terms).
_INT64_SAFE = 2**62


def _params(tasks: Sequence[AnalysisTask]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    c = np.array([t.exec_ns for t in tasks], dtype=np.int64)
    p = np.array([t.period_ns for t in tasks], dtype=np.int64)
    d = np.array([t.deadline_ns for t in tasks], dtype=np.int64)
    return c, p, d


def _baruah_points(k: int, c: np.ndarray, p: np.ndarray, d: np.ndarray, t_max: int) -> np.ndarray | None:
    """Every t = A + D_k in [D_k, t_max] where some I term may change its linear form, and the one before."""
    dk, ck = int(d[k]), int(c[k])
    pts: list[np.ndarray] = [np.array([dk, t_max], dtype=np.int64)]
    total = 0
    for i in range(len(c)):
        jobs = np.arange(0, t_max // int(p[i]) + 2, dtype=np.int64)
        total += 4 * len(jobs)
        if total > MAX_POINTS:
            return None
        values = (jobs + 1) * c[i]  # the DBF / DBF' value on the piece of job j
        switch = values - ck + dk if i == k else values + ck - 1
        pts += [d[i] + jobs * p[i], jobs * p[i], jobs * p[i] + c[i], switch]
    allp = np.concatenate(pts)
    allp = np.concatenate([allp, allp - 1])
    allp = allp[(allp >= dk) & (allp <= t_max)]
    return np.unique(allp)


def _baruah_holds(k: int, c: np.ndarray, p: np.ndarray, d: np.ndarray, t: np.ndarray, m: int) -> np.ndarray:
    """(*) at each t (a vector): True where it holds."""
    ck, dk = c[k], d[k]
    a = t - dk
    x = t - ck + 1
    tt = t[None, :]
    dbf = np.maximum(0, (tt - d[:, None]) // p[:, None] + 1) * c[:, None]
    dbf2 = (tt // p[:, None]) * c[:, None] + np.minimum(c[:, None], tt % p[:, None])
    i1 = np.minimum(dbf, x[None, :])
    i2 = np.minimum(dbf2, x[None, :])
    i1[k] = np.minimum(dbf[k] - ck, a)
    i2[k] = np.minimum(dbf2[k] - ck, a)
    diff = i2 - i1
    n = len(c)
    top = m - 1
    if top >= n:
        extra = diff.sum(axis=0)
    elif top <= 0:
        extra = np.zeros(len(t), dtype=np.int64)
    else:
        extra = np.partition(diff, n - top, axis=0)[n - top:].sum(axis=0)
    holds: np.ndarray = i1.sum(axis=0) + extra < m * x
    return holds


#: One task's check of (*) over its range, given t_max: None when there are more than MAX_POINTS
#: values of A, else (the number of distinct points checked, the least A where (*) fails or None).
BaruahCheck = Callable[[int, int], "tuple[int, int | None] | None"]


def gedf_baruah(problem: AnalysisProblem) -> AnalysisResult:
    test = "gedf-baruah"
    bad = _check(problem, test)
    if bad is not None:
        return bad
    c, p, d = _params(problem.tasks)

    def check(k: int, t_max: int) -> tuple[int, int | None] | None:
        points = _baruah_points(k, c, p, d, t_max)
        if points is None:
            return None
        ok = _baruah_holds(k, c, p, d, points, problem.cpus)
        return len(points), None if ok.all() else int(points[np.argmin(ok)]) - int(d[k])

    return baruah_result(problem, check)


def baruah_result(problem: AnalysisProblem, check: BaruahCheck) -> AnalysisResult:
    """gedf_baruah's result, each task's range of A checked by ``check`` (numpy here; the native
    kernel's outputs in ``native_engine.gedf_baruah``)."""
    test = "gedf-baruah"
    m = problem.cpus
    tasks = problem.tasks
    u = sum((Fraction(t.exec_ns, t.period_ns) for t in tasks), Fraction(0))
    if u >= m:
        why = f"U = {float(u):.4f} ≥ m = {m}: Baruah's test needs U < m"
        return _finish(problem, test, [TaskBound(t.name, None, "miss", why) for t in tasks], False, why)
    c_sigma = sum(sorted((t.exec_ns for t in tasks), reverse=True)[: max(0, m - 1)])
    y = sum((Fraction(t.exec_ns * (t.period_ns - t.deadline_ns), t.period_ns) for t in tasks), Fraction(0))
    bounds: list[TaskBound] = []
    undecided = []
    for k, tk in enumerate(tasks):
        if tk.exec_ns > tk.deadline_ns:
            bounds.append(TaskBound(tk.name, None, "miss", "C > D"))
            continue
        t_max = int((y + c_sigma + (m - 1) * tk.exec_ns) / (m - u))  # floor: (*) holds above it
        if t_max < tk.deadline_ns:
            bounds.append(TaskBound(tk.name, tk.deadline_ns, "ok", "(*) holds for every A (range empty); "
                                                                   "bound = deadline"))
            continue
        if t_max * m * (len(tasks) + 1) > _INT64_SAFE:
            undecided.append(tk.name)
            bounds.append(TaskBound(tk.name, None, "unknown", f"range of A up to {t_max - tk.deadline_ns} ns "
                                                              "is too long for 64-bit sums"))
            continue
        checked = check(k, t_max)
        if checked is None:
            undecided.append(tk.name)
            bounds.append(TaskBound(tk.name, None, "unknown",
                                    f"more than {MAX_POINTS} values of A to check (A ≤ {t_max - tk.deadline_ns} ns, "
                                    f"U = {float(u):.4f} close to m)"))
            continue
        count, a = checked
        if a is None:
            bounds.append(TaskBound(tk.name, tk.deadline_ns, "ok",
                                    f"condition holds at all {count} breakpoints, A ≤ {t_max - tk.deadline_ns} "
                                    "ns; bound = deadline"))
        else:
            bounds.append(TaskBound(tk.name, None, "miss", f"condition fails at A = {a} ns"))
    result = _finish(problem, test, bounds, False, "Baruah's condition holds for every task and every A",
                     {"utilization": u})
    if undecided and all(b.verdict in ("ok", "unknown") for b in result.tasks):
        return AnalysisResult(test, UNDECIDED, result.tasks, f"{undecided[0]}: {result.task(undecided[0]).reason}",
                              False, result.details)
    return result


#: σ values tried by FF-DBF, and their common denominator.
SIGMA_STEPS = 50
SIGMA_DENOMINATOR = 1000


def _sigmas(dmax: Fraction, hi: Fraction) -> list[int]:
    """Numerators a of σ = a/SIGMA_DENOMINATOR with δ_max ≤ σ ≤ 1 and σ < hi, at most SIGMA_STEPS, spread out."""
    g = SIGMA_DENOMINATOR
    lo_a = -((-dmax.numerator * g) // dmax.denominator)  # ⌈δ_max·g⌉
    hi_a = min(g, -((-hi.numerator * g) // hi.denominator) - 1)  # the largest a with a/g < hi, and σ ≤ 1
    if hi_a < lo_a:
        return []
    span = hi_a - lo_a
    if span + 1 <= SIGMA_STEPS:
        return list(range(lo_a, hi_a + 1))
    return sorted({lo_a + (span * j) // (SIGMA_STEPS - 1) for j in range(SIGMA_STEPS)})


def _ffdbf_holds(c: np.ndarray, p: np.ndarray, d: np.ndarray, m: int, a: int, t: np.ndarray) -> bool:
    """Σ FF-DBF(t, σ) ≤ (m − (m−1)σ)·t at every t, σ = a/g, all scaled by g (exact)."""
    g = SIGMA_DENOMINATOR
    tt = t[None, :]
    q = tt // p[:, None]
    r = tt % p[:, None]
    cg = (c * g)[:, None]
    partial = cg - (d[:, None] - r) * a  # C·g − (D − r)·σ·g
    extra = np.where(r >= d[:, None], cg, np.where(partial >= 0, partial, 0))
    demand = (q * cg + extra).sum(axis=0)
    return bool(np.all(demand <= (m * g - (m - 1) * a) * t))


def gedf_ffdbf(problem: AnalysisProblem) -> AnalysisResult:
    test = "gedf-ffdbf"
    bad = _check(problem, test)
    if bad is not None:
        return bad
    m = problem.cpus
    tasks = problem.tasks
    if m < 2:
        return unsupported(test, problem.names(), "FF-DBF needs m ≥ 2 (its σ range divides by m − 1); "
                                                  "on one processor use edf-qpa (exact)")
    grid = ffdbf_grid(tasks, m)
    u, sigmas = grid.utilization, grid.sigmas
    g = SIGMA_DENOMINATOR
    c, p, d = _params(tasks)
    c_sum = int(c.sum())
    skipped = 0
    witness = None
    for a in sigmas:
        room = m - Fraction((m - 1) * a, g) - u  # > 0 since σ < (m − U)/(m − 1)
        t_max = int(c_sum / room)
        if t_max * (m * g + c_sum) * len(tasks) > _INT64_SAFE:
            skipped += 1
            continue
        count = sum(t_max // int(pi) + 1 for pi in p)
        if count > MAX_POINTS:
            skipped += 1
            continue
        t = np.unique(np.concatenate([d[i] + np.arange(0, t_max // int(p[i]) + 1, dtype=np.int64) * p[i]
                                      for i in range(len(tasks))]))
        t = t[t <= t_max]
        if _ffdbf_holds(c, p, d, m, a, t):
            witness = a
            break
    return ffdbf_result(problem, grid, witness, skipped)


@dataclass(frozen=True)
class FfdbfGrid:
    """What gedf_ffdbf tries: the σ numerators (over SIGMA_DENOMINATOR), from U, δ_max and the
    upper end (m − U)/(m − 1)."""

    utilization: Fraction
    dmax: Fraction
    hi: Fraction
    sigmas: list[int]


def ffdbf_grid(tasks: Sequence[AnalysisTask], m: int) -> FfdbfGrid:
    """FF-DBF's σ grid for ``tasks`` on m ≥ 2 processors."""
    u = sum((Fraction(t.exec_ns, t.period_ns) for t in tasks), Fraction(0))
    dmax = max((Fraction(t.exec_ns, t.deadline_ns) for t in tasks), default=Fraction(0))
    hi = (m - u) / (m - 1)
    return FfdbfGrid(u, dmax, hi, _sigmas(dmax, hi))


def ffdbf_result(problem: AnalysisProblem, grid: FfdbfGrid, witness: int | None, skipped: int) -> AnalysisResult:
    """gedf_ffdbf's result: the first σ of ``grid`` that passes (``witness``, or None) and how many
    were skipped before it (or of all). (Also what the native kernel's outputs are turned into:
    ``native_engine.gedf_ffdbf``.)"""
    test, g, tasks, sigmas = "gedf-ffdbf", SIGMA_DENOMINATOR, problem.tasks, grid.sigmas
    if witness is not None:
        why = f"σ = {witness}/{g}: Σ FF-DBF(t, σ) ≤ (m − (m−1)σ)·t for every t"
        return _finish(problem, test, [TaskBound(t.name, t.deadline_ns, "ok", why + "; bound = deadline")
                                       for t in tasks], False, why,
                       {"sigma": Fraction(witness, g), "utilization": grid.utilization})
    if not sigmas:
        why = f"no σ with δ_max = {float(grid.dmax):.4f} ≤ σ < (m − U)/(m − 1) = {float(grid.hi):.4f}"
    else:
        why = f"no σ of {len(sigmas)} tried ({float(Fraction(sigmas[0], g)):.3f}…" \
              f"{float(Fraction(sigmas[-1], g)):.3f}) satisfies the condition"
        if skipped:
            why += f" ({skipped} skipped: more than {MAX_POINTS} points)"
    return _finish(problem, test, [TaskBound(t.name, None, "miss", why) for t in tasks], False, why,
                   {"utilization": grid.utilization})

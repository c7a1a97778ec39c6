"""Global EDF: Baker's test (T. Baker, RTSS 2003; IEEE TPDS 16(8), 2005).

T. P. Baker, "Multiprocessor EDF and deadline monotonic schedulability
analysis", RTSS 2003, in the form of "An analysis of EDF schedulability on
a multiprocessor", IEEE TPDS 2005 (as restated by Bertogna & Baruah, "Tests
for global EDF schedulability analysis", JSA 2011). Constrained deadlines,
independent tasks, suspension-oblivious (the checks of ``gedf``).

Baker considers the first missed deadline of τ_k and the longest window
before it in which the processors are busy at least a share 1 − λ of the
time (λ = λ_k = C_k/D_k); in that window τ_i's work, divided by D_k, is at
most β_i, with u_i = C_i/T_i:

    β_i = u_i·(1 + (T_i − D_i)/D_k)                        if λ ≥ u_i,
    β_i = u_i·(1 + (T_i − D_i)/D_k) + (C_i − λ·T_i)/D_k     if λ < u_i,

and τ_k meets its deadlines when Σ_i min(1, β_i) ≤ m(1 − λ) + λ (the sum over
every task, τ_k included). Exact rational arithmetic; verdict only (the
bound shown is the deadline).
"""

from __future__ import annotations

from fractions import Fraction

from rtsched.analysis.gedf import _check, _finish
from rtsched.analysis.results import AnalysisResult, TaskBound
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask

__all__ = ["gedf_baker", "baker_beta"]


def baker_beta(i: AnalysisTask, k: AnalysisTask, lam: Fraction) -> Fraction:
    u = Fraction(i.exec_ns, i.period_ns)
    beta = u * (1 + Fraction(i.period_ns - i.deadline_ns, k.deadline_ns))
    if lam < u:
        beta += (i.exec_ns - lam * i.period_ns) / k.deadline_ns
    return beta


def gedf_baker(problem: AnalysisProblem) -> AnalysisResult:
    test = "gedf-baker"
    bad = _check(problem, test)
    if bad is not None:
        return bad
    m = problem.cpus
    bounds = []
    for k in problem.tasks:
        lam = Fraction(k.exec_ns, k.deadline_ns)
        if lam > 1:
            bounds.append(TaskBound(k.name, None, "miss", "C > D"))
            continue
        total = sum((min(Fraction(1), baker_beta(i, k, lam)) for i in problem.tasks), Fraction(0))
        cap = m * (1 - lam) + lam
        ok = total <= cap
        why = f"Σ min(1, β) = {float(total):.4f} {'≤' if ok else '>'} m(1 − λ) + λ = {float(cap):.4f}"
        bounds.append(TaskBound(k.name, k.deadline_ns if ok else None, "ok" if ok else "miss",
                                why + ("; bound = deadline" if ok else "")))
    return _finish(problem, test, bounds, False, "Baker's condition holds for every task")

"""Clustered scheduling: C-FP and C-EDF, one analysis per partition at its own processor count.

Under P-FP and P-EDF a partition may hold several CPUs (``partitions:
[{cpus: [0, 1]}]``); the runner then schedules its tasks globally inside it
(SCHED_FIFO with the partition's affinity; SCHED_DEADLINE in the partition's
root domain). That is clustered scheduling (Calandrino et al. 2007; Baker &
Baruah 2007): global inside each cluster, partitioned between clusters.
Each partition is analysed alone (tasks never leave their partition):

- one CPU: the uniprocessor test (``fp-rta``, with its blocking; ``edf-qpa``,
  or the demand test with SRP);
- m > 1 CPUs: the global tests at m = the cluster's size. ``c-fp``:
  ``gfp-rta`` (Bertogna & Cirinei 2007). ``c-edf``: ``gedf-rta``, then
  ``gedf-gfb`` and ``gedf-bcl`` when the RTA does not show the cluster
  schedulable (each is sufficient, so any one that succeeds proves it; the
  bounds are then the deadlines). Independent tasks with constrained
  deadlines only, as those tests assume: a cluster whose tasks share a
  resource, or have D > T, gets no bound (the reason says why); release
  jitter is folded for them as the registry folds it (``jitter_fold``).

The verdict is ``exact`` only when every partition has one CPU and its test
is exact; a cluster makes it ``sufficient`` ("not schedulable" then means
"not shown schedulable"). Resources shared across partitions are refused.
"""

from __future__ import annotations

from dataclasses import replace

from rtsched.analysis.edf_uni import edf_qpa
from rtsched.analysis.fp_uni import fp_rta
from rtsched.analysis.gedf import gedf_bcl, gedf_gfb, gedf_rta, gfp_rta
from rtsched.analysis.jitter_fold import EDF, FP, folded
from rtsched.analysis.overheads import is_folded
from rtsched.analysis.results import (
    NOT_SCHEDULABLE,
    SCHEDULABLE,
    UNDECIDED,
    AnalysisResult,
    TaskBound,
    unsupported,
    verdict_of,
)
from rtsched.analysis.tasks import AnalysisProblem

__all__ = ["c_fp", "c_edf"]

# the global tests take no jitter: folded as the registry folds it for them (jitter_fold)
_GLOBAL_EDF = (folded(gedf_rta, "gedf-rta", EDF), folded(gedf_gfb, "gedf-gfb", EDF), folded(gedf_bcl, "gedf-bcl", EDF))
_GLOBAL_FP = folded(gfp_rta, "gfp-rta", FP)


def _part_problem(problem: AnalysisProblem, part: str | None, size: int, edf: bool) -> AnalysisProblem:
    tasks = tuple(t for t in problem.tasks if t.partition == part)
    names = {t.name for t in tasks}
    unanalysable = {n: why for n, why in problem.unanalysable.items() if n in names}
    if size == 1:
        return replace(problem, tasks=tasks, unanalysable=unanalysable, partition_cpus={})
    return replace(problem, tasks=tuple(replace(t, partition=None) for t in tasks), unanalysable=unanalysable,
                   scheduler="G-EDF" if edf else "G-FP", cpus=size, partition_cpus={})


def _global_edf(sub: AnalysisProblem) -> AnalysisResult:
    """The first of the global EDF tests that shows ``sub`` schedulable, else the first one's result."""
    first = _GLOBAL_EDF[0](sub)
    if first.schedulable:
        return first
    for test in _GLOBAL_EDF[1:]:
        result = test(sub)
        if result.schedulable:
            return result
    return first


def _clustered(problem: AnalysisProblem, test: str, edf: bool) -> AnalysisResult:
    want = ("EDF", "P-EDF") if edf else ("FP", "P-FP")
    if problem.scheduler not in want:
        return unsupported(test, problem.names(), f"{test} needs {' or '.join(want)}; the set uses {problem.scheduler}")
    if problem.global_resources():
        shared = sorted(problem.global_resources())[0]
        return unsupported(test, problem.names(),
                           f"resource {shared} is shared across partitions (or under mpcp / fmlp+): {test} "
                           "analyses independent partitions")
    bounds: dict[str, TaskBound] = {}
    exact = True
    undecided = False
    parts: list[str] = []
    for part in problem.partitions():
        size = problem.partition_cpus.get(part, 1) if part is not None else 1
        sub = _part_problem(problem, part, size, edf)
        if size == 1:
            result = edf_qpa(sub) if edf else fp_rta(sub)
        else:
            result = _global_edf(sub) if edf else _GLOBAL_FP(sub)
        exact = exact and size == 1 and result.exact
        undecided = undecided or result.verdict == UNDECIDED
        where = f"{part} ({size} CPU{'s' if size > 1 else ''}, {result.test})" if part else result.test
        parts.append(f"{where}: {result.verdict}")
        infeasible = ""
        if size > 1 and result.verdict == NOT_SCHEDULABLE and sub.utilization() > size and not is_folded(sub):
            # a necessary condition fails: no scheduler meets every deadline, not only "not shown"
            # (not with overheads folded: their WCETs bound the overheads, e.g. the OS interference's
            # stretch, rather than demand them)
            infeasible = f" (U = {float(sub.utilization()):.4f} > m = {size}: infeasible)"
        for b in result.tasks:
            reason = b.reason if size == 1 else f"{result.test} at m = {size}: {b.reason}{infeasible}"
            bounds[b.name] = replace(b, reason=reason)
    ordered = tuple(bounds[n] for n in problem.names())
    verdict = verdict_of(ordered)
    if undecided and not any(b.verdict == "miss" for b in ordered):
        verdict = UNDECIDED
    bad = [b for b in ordered if b.verdict != "ok"]
    reason = "; ".join(parts) if verdict == SCHEDULABLE else f"{bad[0].name}: {bad[0].reason}"
    return AnalysisResult(test, verdict, ordered, reason, exact=exact,
                          details={"clusters": {p: n for p, n in problem.clusters().items()}})


def c_fp(problem: AnalysisProblem) -> AnalysisResult:
    """Clustered FP: ``fp-rta`` on one-CPU partitions, ``gfp-rta`` at m = the size of the others."""
    return _clustered(problem, "c-fp", edf=False)


def c_edf(problem: AnalysisProblem) -> AnalysisResult:
    """Clustered EDF: ``edf-qpa`` on one-CPU partitions; G-EDF RTA, GFB or BCL at m = the size of the others."""
    return _clustered(problem, "c-edf", edf=True)

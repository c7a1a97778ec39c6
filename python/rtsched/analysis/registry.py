"""Every test under one signature, found by name (STYLE 23; SchedCAT's ``HRT_TESTS``).

    from rtsched.analysis import TESTS, run_test
    result = TESTS["fp-rta"](problem)              # test(problem, **options) -> AnalysisResult
    result = run_test("prm-fp", problem, period_ns=100_000_000, supply="linear")

GFB, BCL, the G-EDF RTA, Baker, Baruah, FF-DBF, QPA and ``fp-rta`` go through ``native_engine``: its native kernels decide the
verdict when the library is built and the set qualifies (the rest of the result is the Python
test's, computed when read), else the Python test runs.

``run_test`` also accepts a :class:`rtsched.model.TaskSet` (converted with
``from_taskset``) and the option ``overheads=`` (an
``rtsched.analysis.overheads.Overheads``, folded in before the test).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

from rtsched.analysis import (cluster, edf_uni, fp_uni, gedf, gedf_bcl_iterative, gedf_np_tardiness,
                              gedf_tardiness_lambda, gfp_guan, hierarchical, lp_blocking, native_engine, partitioned,
                              pfp_distributed, picv_rpc, spin_locks)
from rtsched.analysis.dl_reservations import with_job_bounds
from rtsched.analysis.jitter_fold import EDF, EDF_ARRIVAL, FP, NATIVE, folded
from rtsched.analysis.lock_order import deadlock_refusal
from rtsched.analysis.overheads import Overheads, fold_and_run
from rtsched.analysis.results import AnalysisResult, unsupported
from rtsched.analysis.tasks import AnalysisProblem, from_taskset

if TYPE_CHECKING:
    from rtsched.model import TaskSet

__all__ = ["TESTS", "DESCRIPTIONS", "TestOptions", "run_test", "default_test"]

Test = Callable[..., AnalysisResult]

#: A test's keyword options (period_ns, budget_ns, supply...), given to it as ``**options``: each
#: test has its own, so their types are the test's parameters' (Any here).
TestOptions = dict[str, Any]


def _named(fn: Callable[..., AnalysisResult], name: str, intervals: bool = False, jitter: str = NATIVE,
           protocol: str | None = None) -> Test:
    """The test ``fn`` under ``name``; unless it models non-preemptive intervals (``intervals``), a set
    with some (``np_segments_ns``) is ``unsupported``: an interval of a lower-priority or
    longer-deadline task blocks every other task, which such a test would not count. ``jitter``: how
    release jitter reaches it (``jitter_fold``: NATIVE, or folded as FP, EDF, EDF_ARRIVAL say).

    A set whose nested sections can deadlock (a lock-order cycle its protocols, or ``protocol`` when
    the test forces one on every resource, do not rule out) is ``not schedulable`` with the cycle
    named (``lock_order``): a deadlocked job never completes, whatever the test's bound says."""
    doc = fn.__doc__
    fn = folded(fn, name, jitter)

    def test(problem: AnalysisProblem, **options: object) -> AnalysisResult:
        if not intervals:
            for late in problem.tasks:  # a plain loop: on every call of every test
                if late.np_segments_ns:
                    return unsupported(name, problem.names(), f"{late.name} has non-preemptive intervals, which "
                                       f"{name} does not model (they block other tasks); fp-lp (FP) and "
                                       "gedf-np-tardiness (G-EDF, soft) analyse them")
        deadlock = deadlock_refusal(name, problem, protocol)
        if deadlock is not None:
            return deadlock
        return with_job_bounds(problem, fn(problem, **options))

    test.__name__ = name.replace("-", "_").replace("+", "_plus")
    test.__doc__ = doc
    return test


TESTS: dict[str, Test] = {
    "fp-rta": _named(native_engine.fp_rta, "fp-rta"),
    "fp-rta-pip": _named(partial(fp_uni.fp_rta, protocol="pip"), "fp-rta-pip", protocol="pip"),
    "fp-rta-pcp": _named(partial(fp_uni.fp_rta, protocol="pcp"), "fp-rta-pcp", protocol="pcp"),
    "fp-rta-srp": _named(partial(fp_uni.fp_rta, protocol="srp"), "fp-rta-srp", protocol="srp"),
    "fp-rta-ipcp": _named(partial(fp_uni.fp_rta, protocol="ipcp"), "fp-rta-ipcp", protocol="ipcp"),
    "fp-rta-np": _named(partial(fp_uni.fp_rta, protocol="np"), "fp-rta-np", protocol="np"),
    "fp-ll": _named(fp_uni.fp_liu_layland, "fp-ll", jitter=FP),
    "fp-hyperbolic": _named(fp_uni.fp_hyperbolic, "fp-hyperbolic", jitter=FP),
    "fp-lp": _named(fp_uni.fp_limited_preemption, "fp-lp", intervals=True, jitter=FP),
    "edf-util": _named(edf_uni.edf_utilization, "edf-util", jitter=EDF_ARRIVAL),
    "edf-dbf": _named(edf_uni.edf_demand, "edf-dbf", jitter=EDF_ARRIVAL),
    "edf-qpa": _named(native_engine.edf_qpa, "edf-qpa", jitter=EDF_ARRIVAL),
    "p-fp-mpcp": _named(partitioned.pfp_mpcp, "p-fp-mpcp"),
    "p-fp-fmlp+": _named(partitioned.pfp_fmlp_plus, "p-fp-fmlp+"),
    "p-fp-fmlp+-lp": _named(lp_blocking.pfp_fmlp_plus_lp, "p-fp-fmlp+-lp"),
    "p-fp-mpcp-lp": _named(lp_blocking.pfp_mpcp_lp, "p-fp-mpcp-lp"),
    "p-fp-dpcp-lp": _named(pfp_distributed.pfp_dpcp_lp, "p-fp-dpcp-lp"),
    "p-fp-dflp-lp": _named(pfp_distributed.pfp_dflp_lp, "p-fp-dflp-lp"),
    "p-fp-msrp": _named(spin_locks.pfp_msrp, "p-fp-msrp"),
    "p-edf": _named(partitioned.pedf, "p-edf", jitter=EDF_ARRIVAL),
    "c-fp": _named(cluster.c_fp, "c-fp"),
    "c-edf": _named(cluster.c_edf, "c-edf", jitter=EDF_ARRIVAL),
    "gedf-gfb": _named(native_engine.gedf_gfb, "gedf-gfb", jitter=EDF),
    "gedf-bcl": _named(native_engine.gedf_bcl, "gedf-bcl", jitter=EDF),
    "gedf-rta": _named(native_engine.gedf_rta, "gedf-rta", jitter=EDF),
    "gedf-tardiness": _named(gedf.gedf_tardiness, "gedf-tardiness", jitter=EDF),
    "gedf-tardiness-lambda": _named(gedf_tardiness_lambda.gedf_tardiness_lambda, "gedf-tardiness-lambda", jitter=EDF),
    "gedf-np-tardiness": _named(gedf_np_tardiness.gedf_np_tardiness, "gedf-np-tardiness", intervals=True, jitter=EDF),
    "gedf-baker": _named(native_engine.gedf_baker, "gedf-baker", jitter=EDF),
    "gedf-baruah": _named(native_engine.gedf_baruah, "gedf-baruah", jitter=EDF),
    "gedf-ffdbf": _named(native_engine.gedf_ffdbf, "gedf-ffdbf", jitter=EDF),
    "gedf-bcl-iterative": _named(gedf_bcl_iterative.gedf_bcl_iterative, "gedf-bcl-iterative", jitter=EDF),
    "gfp-rta": _named(gedf.gfp_rta, "gfp-rta", jitter=FP),
    "gfp-guan": _named(gfp_guan.gfp_guan, "gfp-guan", jitter=FP),
    "prm-fp": _named(hierarchical.prm_fp, "prm-fp", jitter=FP),
    "prm-edf": _named(hierarchical.prm_edf, "prm-edf", jitter=EDF),
    "picv-rpc": _named(picv_rpc.picv_rpc, "picv-rpc"),
}

DESCRIPTIONS: dict[str, str] = {
    "fp-rta": "FP response-time analysis, jitter, blocking by each resource's protocol",
    "fp-rta-pip": "fp-rta with every resource under priority inheritance",
    "fp-rta-pcp": "fp-rta with every resource under the priority ceiling protocol",
    "fp-rta-srp": "fp-rta with every resource under the stack resource policy",
    "fp-rta-ipcp": "fp-rta with every resource under immediate ceiling",
    "fp-rta-np": "fp-rta with non-preemptive critical sections",
    "fp-ll": "Liu & Layland utilization bound with blocking (RM, sufficient)",
    "fp-hyperbolic": "hyperbolic bound with blocking (RM, sufficient)",
    "fp-lp": "limited-preemption RTA for non-preemptive intervals (PREM)",
    "edf-util": "EDF utilization / density test (SRP form with resources)",
    "edf-dbf": "EDF processor-demand test with SRP blocking",
    "edf-qpa": "EDF Quick Processor-demand Analysis (Zhang & Burns)",
    "p-fp-mpcp": "partitioned FP with MPCP blocking",
    "p-fp-fmlp+": "partitioned FP with FMLP+ blocking",
    "p-fp-fmlp+-lp": "partitioned FP with FMLP+ blocking bounded by a linear program (after Brandenburg 2013)",
    "p-fp-mpcp-lp": "partitioned FP with MPCP blocking bounded by a linear program (after Brandenburg 2013)",
    "p-fp-dpcp-lp": "partitioned FP with the distributed PCP (agents on synchronization partitions), blocking "
                    "bounded by a linear program (after Brandenburg 2013)",
    "p-fp-dflp-lp": "partitioned FP with the distributed FMLP (FIFO agents on synchronization partitions), "
                    "blocking bounded by a linear program (after Brandenburg 2013)",
    "p-fp-msrp": "partitioned FP with MSRP spin locks on global resources (Gai et al. 2001; API only)",
    "p-edf": "partitioned EDF, QPA per partition",
    "c-fp": "clustered FP: fp-rta per one-CPU partition, global FP RTA at m = the size of the others",
    "c-edf": "clustered EDF: QPA per one-CPU partition, G-EDF RTA / GFB / BCL at m = the size of the others",
    "gedf-gfb": "global EDF, Goossens-Funk-Baruah density bound",
    "gedf-bcl": "global EDF, Bertogna-Cirinei-Lipari test",
    "gedf-rta": "global EDF, Bertogna-Cirinei response-time analysis",
    "gedf-tardiness": "global EDF, Devi-Anderson tardiness bound (soft real time)",
    "gedf-tardiness-lambda": "global EDF, Devi-Anderson tardiness bound with Λ = ⌈U⌉ − 1 in place of m − 1",
    "gedf-np-tardiness": "global EDF with non-preemptive intervals, tardiness bound (docs/gedf-np-tardiness.md)",
    "gedf-baker": "global EDF, Baker's test (RTSS 2003 / TPDS 2005)",
    "gedf-baruah": "global EDF, Baruah's test (RTSS 2007): DBF with at most m − 1 carry-in tasks",
    "gedf-ffdbf": "global EDF, forced-forward demand bound function (Baruah, Bonifaci, Marchetti-Spaccamela, "
                  "Stiller 2010)",
    "gedf-bcl-iterative": "global EDF, Bertogna-Cirinei-Lipari test iterated over slacks (dominates gedf-bcl)",
    "gfp-rta": "global FP, Bertogna-Cirinei response-time analysis",
    "gfp-guan": "global FP, Guan et al. RTA with at most m − 1 carry-in tasks (RTSS 2009)",
    "prm-fp": "FP component under a periodic resource Γ(Π, Θ) (options period_ns, budget_ns, supply)",
    "prm-edf": "EDF component under a periodic resource Γ(Π, Θ) (options period_ns, budget_ns, supply)",
    "picv-rpc": "RPCs over PI condition variables (seed 004 Eq. 1-5)",
}


def default_test(problem: AnalysisProblem) -> str:
    """The test that fits the set's scheduler and protocols (what ``rtsched analyze`` runs)."""
    sched = problem.scheduler
    if problem.clusters():
        return "c-edf" if problem.is_edf else "c-fp"
    if sched in ("FP", "P-FP"):
        if any(t.rpcs for t in problem.tasks):
            return "picv-rpc"
        glob = problem.global_resources()
        if glob:
            protos = {problem.protocol(r) for r in glob}
            if protos == {"fmlp+"}:
                return "p-fp-fmlp+"
            if protos == {"mpcp"}:
                return "p-fp-mpcp"
            if protos == {"dpcp"}:
                return "p-fp-dpcp-lp"
            if protos == {"dflp"}:
                return "p-fp-dflp-lp"
        if any(t.np_segments_ns for t in problem.tasks):
            return "fp-lp"
        return "fp-rta"
    if sched == "G-FP":
        return "gfp-rta"
    if sched == "EDF":
        return "edf-qpa"
    if sched == "P-EDF":
        return "p-edf"
    if sched == "G-EDF":
        return "gedf-rta"
    raise ValueError(f"no test for scheduler {sched!r}")


def run_test(name: str, problem: AnalysisProblem | TaskSet, *, overheads: Overheads | None = None,
             **options: object) -> AnalysisResult:
    """Run test ``name`` on an AnalysisProblem or a TaskSet. KeyError for an unknown name.

    ``overheads``: folded into the problem first; ``options`` go to the test."""
    if name not in TESTS:
        raise KeyError(f"unknown test {name!r}; known: {', '.join(sorted(TESTS))}")
    if not isinstance(problem, AnalysisProblem):
        problem = from_taskset(problem)
    if overheads is not None:
        return fold_and_run(TESTS[name], problem, overheads, **options)
    result = TESTS[name](problem, **options)
    if problem.notes:
        result = replace(result, details={**result.details, "notes": list(problem.notes)})
    return result

"""Partitioned FP with the distributed protocols: ``p-fp-dpcp-lp`` and ``p-fp-dflp-lp``.

The blocking comes from the LP of ``lp_distributed`` (Brandenburg, RTAS
2013); this module turns it into response-time bounds and says when the
tests do not apply.

Response time of τ_i on its partition (``partitioned.suspension_aware_rta``):

    R_i = e_i + B_i + Σ_{h local, prio ≥ τ_i} ⌈(R_i + J_h)/T_h⌉·e_h

- e_x = C_x − Σ of x's global sections: what x runs *as a normal task* on
  its own processor (its sections are run by agents; C_x counts sleeps as
  execution, as elsewhere). A task with global sections suspends, so its
  interference has jitter J_h = R_h − e_h (Chen et al. 2019), iterated to a
  fixed point.
- B_i = Σ of τ_i's own global sections (its agents' time, remote or on its
  own processor: J_i is pending throughout) + the LP optimum (waiting for
  other agents, and preemption by agents on τ_i's processor) + A_i × the
  uniprocessor blocking of the local (not global) resources, A_i = 1 + τ_i's
  requests to resources on other partitions (``lp_distributed.arrivals``:
  a lower-priority task can lock a local resource only while J_i is not
  ready, so it blocks J_i at most once per release or resumption).

Every interval of J_i's response is J_i running (e_i), its own agent running,
J_i waiting for other agents (the LP's X^W), J_i ready but preempted by an
agent on its processor (X^P), by a local higher-priority task or by a
lower one holding a local resource: each term above bounds one of them.

Not applicable (``unsupported``, with the reason): not P-FP, clusters (a
partition, or a synchronization partition, of several CPUs), global
sections nested or inside other sections, global resources not all under
the test's protocol, a deadline longer than the period (the LP bounds one
job; several jobs of τ_i in one busy period would each need their own).
"""

from __future__ import annotations

from dataclasses import replace

from rtsched.analysis.blocking import Blocking, blocking_term
from rtsched.analysis.lp_blocking import LpBlocking, refuse_other_protocols
from rtsched.analysis.lp_distributed import arrivals, distributed_lp_blocking
from rtsched.analysis.partitioned import _gcs, suspension_aware_rta
from rtsched.analysis.results import NOT_SCHEDULABLE, SCHEDULABLE, AnalysisResult, TaskBound, unsupported, verdict_of
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask

__all__ = ["pfp_dpcp_lp", "pfp_dflp_lp", "refuse_distributed"]


def pfp_dpcp_lp(problem: AnalysisProblem) -> AnalysisResult:
    return _pfp_distributed(problem, "p-fp-dpcp-lp", "dpcp")


def pfp_dflp_lp(problem: AnalysisProblem) -> AnalysisResult:
    return _pfp_distributed(problem, "p-fp-dflp-lp", "dflp")


def refuse_distributed(problem: AnalysisProblem, test: str, protocol: str) -> AnalysisResult | None:
    """Why ``test`` (``protocol`` on every global resource) does not apply to ``problem``, or None."""
    refused = refuse_other_protocols(problem, test, protocol)
    if refused is not None:
        return refused
    glob = problem.global_resources()
    for t in problem.tasks:
        inner = next((cs for cs in t.critical_sections
                      if (not cs.outermost and cs.resource in glob) or glob.intersection(cs.nested)), None)
        if inner is not None:
            return unsupported(test, problem.names(), f"{t.name}: a {protocol} section nested with another "
                                                      f"({inner.resource}); {test} assumes non-nested ones")
        if t.deadline_ns > t.period_ns:
            return unsupported(test, problem.names(), f"{t.name}: deadline above the period; {test} bounds "
                                                      "one job's blocking and assumes D ≤ T")
    for q in sorted(glob):
        where = problem.sync_partition(q)
        if problem.partition_cpus.get(where or "", 1) != 1:
            return unsupported(test, problem.names(), f"{q}: its synchronization partition {where} has "
                                                      "several CPUs; the agents' analysis assumes one")
    return None


def _bounds(problem: AnalysisProblem, glob: frozenset[str], sync: dict[str, str | None],
            lp: dict[str, LpBlocking | None]) -> dict[str, TaskBound]:
    """The suspension-aware RTA of every partition, with the LP's blocking."""
    bounds: dict[str, TaskBound] = {}
    for _, local in problem.partitions().items():
        # what each task runs as a normal task: no global sections (agents run them), sleeps as execution
        normal = [replace(t, wcet_ns=max(0, t.exec_ns - sum(cs.length_ns for cs in _gcs(t, glob))),
                          suspension_ns=0,
                          critical_sections=tuple(cs for cs in t.critical_sections if cs.resource not in glob))
                  for t in local]
        override: dict[str, Blocking] = {}
        for i, ni in zip(local, normal):
            got = lp[i.name]
            if got is None:
                override[i.name] = Blocking(None, "a request's wait for its agent exceeds the deadline")
                continue
            lb = blocking_term(ni, normal, problem.protocol)
            if lb.ns is None:
                override[i.name] = lb
                continue
            own_gcs = sum(cs.length_ns for cs in _gcs(i, glob))
            a_i = arrivals(i, glob, sync)
            local_ns = lb.ns - ni.extra_blocking_ns
            total = own_gcs + got.bound_ns + a_i * local_ns + ni.extra_blocking_ns
            override[i.name] = Blocking(total, f"own agents {own_gcs} ns, LP (waiting for and preemption by "
                                               f"agents) {got.bound_ns} ns, local resources {a_i}×{local_ns} ns")
        suspending = [n for t, n in zip(local, normal) if _gcs(t, glob)]
        for b in suspension_aware_rta(normal, problem.protocol, override, suspending):
            bounds[b.name] = b
    return bounds


def _pfp_distributed(problem: AnalysisProblem, test: str, protocol: str) -> AnalysisResult:
    refused = refuse_distributed(problem, test, protocol)
    if refused is not None:
        return refused
    glob = problem.global_resources()
    sync = {q: problem.sync_partition(q) for q in glob}
    lp = {t.name: distributed_lp_blocking(t, problem.tasks, glob, sync, protocol) for t in problem.tasks}
    bounds = _bounds(problem, glob, sync, lp)
    ordered = [TaskBound(n, None, "unknown", problem.unanalysable[n]) if n in problem.unanalysable else bounds[n]
               for n in problem.names()]
    failed = [b for b in ordered if b.verdict != "ok" and b.name not in problem.unanalysable]
    if any(b.verdict != "ok" for b in ordered):
        # the LP's job counts assumed every task meets its deadline: the other bounds are not proven
        ordered = [b if b.verdict != "ok" else TaskBound(b.name, None, "unknown", "the LP's request counts "
                                                         "assumed every task meets its deadline, not shown",
                                                         b.blocking_ns)
                   for b in ordered]
    verdict = NOT_SCHEDULABLE if failed else verdict_of(ordered)
    bad = failed or [b for b in ordered if b.verdict != "ok"]
    return AnalysisResult(test, verdict, tuple(ordered),
                          "every bound is within its deadline" if verdict == SCHEDULABLE
                          else f"{bad[0].name}: {bad[0].reason}",
                          exact=False, details={"global_resources": sorted(glob),
                                                "sync_partitions": {q: sync[q] for q in sorted(glob)},
                                                "lp_blocking_ns": {n: None if b is None else b.bound_ns
                                                                   for n, b in lp.items()}})

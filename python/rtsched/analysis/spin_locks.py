"""Partitioned FP with MSRP spin locks (Gai, Lipari, Di Natale 2001).

P. Gai, G. Lipari, M. Di Natale, "Minimizing memory utilization of real-time
task sets in single and multi-processor systems-on-a-chip", RTSS 2001 (the
Multiprocessor Stack Resource Policy), for partitioned fixed priority. An
analysis-only protocol: ``msrp`` on a global resource (shared across
partitions) means a job requesting it spins non-preemptively in a FIFO
queue and holds it non-preemptively. rtsched's runtime has no spin locks:
task-set files cannot name ``msrp``; build the ``AnalysisProblem`` by hand.

With every job non-preemptive from its request to its release, at most one
job per processor is queued on or holding q at a time, so a request of a
job on processor p spins at most

    spin(q, p) = Σ_{p' ≠ p using q} max_{τ_j on p'} cs_{j,q}.

The analysis (the paper's, in response-time form) is then uniprocessor FP
per processor on a transformed set: each task's WCET grows by
Σ_q N_{i,q}·spin(q, p) (spinning is execution), and each global section
becomes a non-preemptive section (``np``) of length cs + spin(q, p) on a
resource private to the processor: it blocks every higher-priority job of
the processor once, as an ``np`` section does, and ``fp-rta`` counts it with
the local resources' blocking. Local resources keep their protocol.
Non-nested global sections only. Sufficient with global sections (spin
bounds are worst cases); on a set without any, it is ``fp-rta``.
"""

from __future__ import annotations

from dataclasses import replace

from rtsched.analysis.fp_uni import fp_rta
from rtsched.analysis.results import AnalysisResult, refuse_clusters, unsupported
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, CriticalSection

__all__ = ["pfp_msrp", "spin_ns"]


def spin_ns(q: str, partition: str | None, tasks: tuple[AnalysisTask, ...]) -> int:
    """spin(q, p): one request, the longest on q, from every other processor using q."""
    longest: dict[str | None, int] = {}
    for t in tasks:
        if t.partition != partition:
            length = t.max_cs(q)
            if length:
                longest[t.partition] = max(longest.get(t.partition, 0), length)
    return sum(longest.values())


def _transformed(t: AnalysisTask, glob: frozenset[str], tasks: tuple[AnalysisTask, ...]) -> AnalysisTask:
    sections = []
    extra = 0
    for cs in t.critical_sections:
        if cs.resource in glob:
            s = spin_ns(cs.resource, t.partition, tasks)
            extra += s
            sections.append(CriticalSection(f"{cs.resource}@{t.partition}", cs.length_ns + s))
        else:
            sections.append(cs)
    return replace(t, wcet_ns=t.wcet_ns + extra, critical_sections=tuple(sections))


def pfp_msrp(problem: AnalysisProblem) -> AnalysisResult:
    test = "p-fp-msrp"
    if problem.scheduler not in ("P-FP", "FP"):
        return unsupported(test, problem.names(), f"{test} needs P-FP; the set uses {problem.scheduler}")
    refused = refuse_clusters(test, problem)
    if refused is not None:
        return refused
    where: dict[str, set[str | None]] = {}
    for t in problem.tasks:
        for r in t.resources():
            where.setdefault(r, set()).add(t.partition)
    glob = frozenset(r for r, parts in where.items() if len(parts) > 1)
    others = sorted(r for r in glob if problem.protocol(r) != "msrp")
    if others:
        return unsupported(test, problem.names(), f"{test} needs msrp on every resource shared across partitions; "
                                                  f"{others[0]} uses {problem.protocol(others[0])}")
    for t in problem.tasks:
        if any(cs.resource in glob and (cs.nested or not cs.outermost) for cs in t.critical_sections):
            return unsupported(test, problem.names(), f"{t.name}: nested global sections are not supported")
    local_msrp = sorted(r for r in where if r not in glob and problem.protocol(r) == "msrp")
    if local_msrp:
        return unsupported(test, problem.names(), f"{local_msrp[0]} is under msrp but used on one partition only; "
                                                  "give it a uniprocessor protocol")
    tasks = tuple(_transformed(t, glob, problem.tasks) for t in problem.tasks)
    protocols = {r: p for r, p in problem.protocols.items() if r not in glob}
    protocols.update({cs.resource: "np" for t in tasks for cs in t.critical_sections if "@" in cs.resource
                      and cs.resource.split("@")[0] in glob})
    result = fp_rta(replace(problem, tasks=tasks, protocols=protocols, scheduler="P-FP"))
    spins = {t.name: t.wcet_ns - o.wcet_ns for t, o in zip(tasks, problem.tasks)}
    # (fp-rta's own label: exact without resources, sufficient with sections, spun or not)
    return replace(result, test=test, details={**result.details, "spin_ns": spins, "global_resources": sorted(glob)})

"""Partitioned multiprocessors: P-FP with MPCP and FMLP+, P-EDF, and partitioning heuristics.

A *global* resource is one locked from more than one partition. Local
resources keep their uniprocessor protocol (``blocking``). Every task is a
suspension-aware sporadic task: while it waits for a global resource it
suspends, so (i) local higher-priority tasks that suspend interfere with
release jitter R_h − C_h (Chen et al. 2019; not their suspension time, which
is unsafe: ``suspension_aware_rta``), and (ii) lower-priority local tasks
may block it anew after each suspension (factor N_i + 1, N_i its number of
global requests per job).

- :func:`pfp_mpcp` — MPCP (Rajkumar 1990; the response-time form of
  Lakshmanan, de Niz, Rajkumar 2009, "Coordinated task scheduling,
  allocation and synchronization on multiprocessors"): global sections run
  at a priority above every normal priority on their processor; waiters
  queue by priority. Per request of τ_i on q the wait W is the least fixed point of

      W = max_{lp j} cs_{j,q} + Σ_{hp h, uses q} (⌈W/T_h⌉ + 1)·N_{h,q}·cs_{h,q}
          + Σ_{x on a remote CPU hosting a user of q} Σ_{q' ≠ q global} (⌈W/T_x⌉ + 1)·N_{x,q'}·cs_{x,q'}

  (the last line, all other global sections on the holders' processors,
  is rtsched's conservative stand-in for the paper's preemption of the
  holder by higher-ceiling sections). Lower-priority local tasks add
  (N_i + 1)·max gcs_j each: while τ_i is ready a lower task j can only
  finish a section it is in or waits for, so it is boosted at most once
  per release or resumption of τ_i, but each time possibly with another job
  of j. Rajkumar's min(N_i + 1, N_j), N_j counted per job of j, is unsafe
  when several jobs of j meet τ_i's window (the soundness regression
  ``p-fp-mpcp-local-boosting-by-several-jobs``: bound 28, response 33).
- :func:`pfp_fmlp_plus` — FMLP+ (Brandenburg 2014, "The FMLP+: an
  asymptotically optimal real-time locking protocol for suspension-aware
  analysis"): FIFO queues, boosted jobs scheduled in order of request
  time. Per request of τ_i on q: every other user of q is ahead at most
  once, and each holder ahead is delayed at most once by each other job of
  its own processor (a job boosted after the holder's request cannot
  preempt it): W = Σ_{x≠i uses q} cs_{x,q} + Σ_{x≠i uses q, remote} Σ_{y on
  CPU(x), y∉{x,i}} max gcs_y. Local lower-priority jobs: each may be
  boosted once per release or resumption of τ_i: (N_i + 1)·max gcs_y.
  This is the simple per-request bound, not Brandenburg's tighter
  linear-programming-free refinements.
- :func:`pedf` — P-EDF: QPA per partition (no global resources).
- :func:`partition_tasks` — first-fit / worst-fit / best-fit decreasing
  (by utilization) with an admission test per processor (``fp-rta`` with
  each candidate partition's blocking, or EDF U ≤ 1 / QPA).

Non-nested global sections are assumed (nested ones are refused).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Sequence

from rtsched.analysis.blocking import Blocking, blocking_term
from rtsched.analysis.edf_uni import edf_qpa, qpa_group
from rtsched.analysis.fp_uni import rta_tasks
from rtsched.analysis.results import SCHEDULABLE, AnalysisResult, TaskBound, refuse_clusters, unsupported, verdict_of
from rtsched.analysis.tasks import DISTRIBUTED_PROTOCOLS, AnalysisProblem, AnalysisTask, CriticalSection, ceil_div

__all__ = ["pfp_mpcp", "pfp_fmlp_plus", "pedf", "partition_tasks", "Partitioning", "suspension_aware_rta"]


def _gcs(t: AnalysisTask, glob: frozenset[str]) -> list[CriticalSection]:
    return [cs for cs in t.critical_sections if cs.outermost and cs.resource in glob]


def _max_gcs(t: AnalysisTask, glob: frozenset[str], exclude: str | None = None) -> int:
    return max((cs.length_ns for cs in _gcs(t, glob) if cs.resource != exclude), default=0)


def _mpcp_wait(i: AnalysisTask, q: str, tasks: Sequence[AnalysisTask], glob: frozenset[str]) -> int | None:
    users = [x for x in tasks if x is not i and q in {cs.resource for cs in _gcs(x, glob)}]
    lp = max((x.max_cs(q) for x in users if x.priority < i.priority), default=0)
    hp = [(x.period_ns, x.requests(q) * x.max_cs(q)) for x in users if x.priority >= i.priority]
    cpus = {x.partition for x in users if x.partition != i.partition}
    holders_cpu = [
        (x.period_ns, sum(cs.length_ns for cs in _gcs(x, glob) if cs.resource != q))
        for x in tasks if x is not i and x.partition in cpus
    ]
    holders_cpu = [h for h in holders_cpu if h[1]]
    w = lp + sum(c for _, c in hp)
    for _ in range(100_000):
        new = lp + sum((ceil_div(w, t) + 1) * c for t, c in hp) + sum((ceil_div(w, t) + 1) * c for t, c in holders_cpu)
        if new == w:
            return w
        if new > i.deadline_ns:
            return None
        w = new
    return None


def _fmlp_wait(i: AnalysisTask, q: str, tasks: Sequence[AnalysisTask], glob: frozenset[str]) -> int:
    users = [x for x in tasks if x is not i and q in {cs.resource for cs in _gcs(x, glob)}]
    w = sum(x.max_cs(q) for x in users)
    for x in users:
        if x.partition == i.partition:
            continue
        w += sum(_max_gcs(y, glob) for y in tasks if y.partition == x.partition and y is not x and y is not i)
    return w


def refuse_pfp_locking(problem: AnalysisProblem, test: str) -> AnalysisResult | None:
    """Why a P-FP global-locking test does not apply (not P-FP, clusters, nested global
    sections), or None."""
    if problem.scheduler not in ("P-FP", "FP"):
        return unsupported(test, problem.names(), f"{test} needs P-FP; the set uses {problem.scheduler}")
    refused = refuse_clusters(test, problem)
    if refused is not None:
        return refused
    glob = problem.global_resources()
    for t in problem.tasks:
        if any(cs.nested for cs in _gcs(t, glob)):
            return unsupported(test, problem.names(), f"{t.name}: nested global sections are not supported")
        # a global section inside a local one is not outermost, so _gcs never sees it: refuse it too
        # (issue 35: the adversarial search found it ignored, FMLP+ response 4 > bound 2)
        inner = next((cs for cs in t.critical_sections if not cs.outermost and cs.resource in glob), None)
        if inner is not None:
            return unsupported(test, problem.names(), f"{t.name}: global section on {inner.resource} nested inside "
                               "another section; nested global sections are not supported")
    return None


def _pfp_locking(problem: AnalysisProblem, test: str, protocol: str) -> AnalysisResult:
    refused = refuse_pfp_locking(problem, test)
    if refused is not None:
        return refused
    glob = problem.global_resources()
    distributed = sorted(r for r in glob if problem.protocol(r) in DISTRIBUTED_PROTOCOLS)
    if distributed:
        r = distributed[0]
        return unsupported(test, problem.names(), f"{r} is under {problem.protocol(r)}, whose sections run on "
                                                  f"another processor: use p-fp-{problem.protocol(r)}-lp")
    tasks = problem.tasks
    remote: dict[str, int] = {}
    remote_reason: dict[str, str] = {}
    unbounded: dict[str, str] = {}
    for i in tasks:
        total = 0
        parts = []
        for q in sorted({cs.resource for cs in _gcs(i, glob)}):
            w = _mpcp_wait(i, q, tasks, glob) if protocol == "mpcp" else _fmlp_wait(i, q, tasks, glob)
            if w is None:
                unbounded[i.name] = f"waiting for {q} exceeds the deadline"
                break
            n = i.requests(q)
            total += n * w
            parts.append(f"{n}×{w} ns on {q}")
        remote[i.name] = total
        remote_reason[i.name] = ", ".join(parts)
    bounds: dict[str, TaskBound] = {}
    for part, local in problem.partitions().items():
        local_of = lambda r: problem.protocol(r) if problem.protocol(r) not in ("mpcp", "fmlp+") else "pcp"
        override: dict[str, Blocking] = {}
        for i in local:
            if i.name in unbounded:
                override[i.name] = Blocking(None, unbounded[i.name])
                continue
            n_i = len(_gcs(i, glob))
            # local resources: the uniprocessor term, once per release and per resumption
            local_tasks = [replace(t, critical_sections=tuple(cs for cs in t.critical_sections
                                                              if cs.resource not in glob)) for t in local]
            li = next(t for t in local_tasks if t.name == i.name)
            lb = blocking_term(li, local_tasks, local_of)
            if lb.ns is None:
                override[i.name] = lb
                continue
            boosted = 0
            for y in local:
                if y.priority < i.priority:
                    g = _max_gcs(y, glob)
                    if g:
                        boosted += (n_i + 1) * g  # once per release or resumption, any job of y
            total = (n_i + 1) * (lb.ns - li.extra_blocking_ns) + li.extra_blocking_ns + remote[i.name] + boosted
            why = (f"remote {remote[i.name]} ns ({remote_reason[i.name] or 'no global requests'}), "
                   f"local boosted sections {boosted} ns, local resources {(n_i + 1)}×{lb.ns - li.extra_blocking_ns} ns")
            override[i.name] = Blocking(total, why)
        suspending = [t for t in local if _gcs(t, glob)]
        for b in suspension_aware_rta(local, local_of, override, suspending):
            bounds[b.name] = b
    ordered = [TaskBound(n, None, "unknown", problem.unanalysable[n]) if n in problem.unanalysable else bounds[n]
               for n in problem.names()]
    verdict = verdict_of(ordered)
    bad = [b for b in ordered if b.verdict != "ok"]
    return AnalysisResult(test, verdict, tuple(ordered),
                          "every bound is within its deadline" if verdict == SCHEDULABLE else f"{bad[0].name}: {bad[0].reason}",
                          exact=False, details={"global_resources": sorted(glob)})


#: Rounds of the fixed point over the suspending tasks' bounds before settling for the current ones.
MAX_JITTER_ROUNDS = 1_000


def _jitter_of(t: AnalysisTask, bound: TaskBound, otherwise: int) -> int:
    """The release jitter a suspending task ``t`` adds to lower tasks: R − C − J with its bound R,
    else ``otherwise``."""
    if bound.verdict == "ok" and bound.bound_ns is not None:
        return bound.bound_ns - t.exec_ns - t.jitter_ns
    return otherwise


def suspension_aware_rta(local: Sequence[AnalysisTask], protocol_of: Callable[[str], str],
                         override: dict[str, Blocking],
                         suspending: Sequence[AnalysisTask]) -> list[TaskBound]:
    """RTA of one processor's tasks where the tasks ``suspending`` self-suspend (remote waits).

    A suspending higher-priority task h interferes as a task with release
    jitter R_h − C_h (Chen et al., "Many suspensions, many problems",
    Real-Time Systems 2019, the jitter-based analysis; C_h here is the
    execution counted as interference, WCET plus sleeps): every job of h
    executes C_h and completes within R_h of its release, whatever its
    suspensions, so at most ⌈(t + R_h − C_h)/T_h⌉ of its jobs execute in a
    window of length t. Its own waiting is in ``override`` (the blocking
    term), so a task's own response counts its suspension as busy time.

    The R_h depend on each other (equal priorities), so the bounds are a
    fixed point reached from above: round 1 assumes R_h = D_h, every later
    round uses the R_h of the round before. Each round's bounds R' = F(R)
    satisfy F(R') ≤ R' (F is monotone and R' ≤ R), which is what makes
    them bounds (the first job to exceed its bound would need a
    higher-priority job to exceed its own earlier); a suspending task with
    no bound within its deadline keeps R_h = D_h and every task below it is
    reported ``unknown``.
    """
    jitter = {t.name: max(0, t.deadline_ns - t.exec_ns - t.jitter_ns) for t in suspending}
    out: list[TaskBound] = []
    for _ in range(MAX_JITTER_ROUNDS):
        out = rta_tasks(local, protocol_of, blocking_override=override, jitter_extra=jitter, extra_on_own=False)
        by_name = {b.name: b for b in out}
        new = {t.name: _jitter_of(t, by_name[t.name], jitter[t.name]) for t in suspending}
        if new == jitter:
            break
        jitter = new
    failed = [t for t in suspending if next(b for b in out if b.name == t.name).verdict != "ok"]
    if not failed:
        return out
    result = []
    for task, b in zip(local, out):
        above = [h.name for h in failed if h is not task and h.priority >= task.priority]
        if above:
            b = TaskBound(task.name, None, "unknown",
                          f"{above[0]} (higher priority, self-suspending) has no bound within its deadline, "
                          "so its interference is not bounded", b.blocking_ns)
        result.append(b)
    return result


def pfp_mpcp(problem: AnalysisProblem) -> AnalysisResult:
    return _pfp_locking(problem, "p-fp-mpcp", "mpcp")


def pfp_fmlp_plus(problem: AnalysisProblem) -> AnalysisResult:
    return _pfp_locking(problem, "p-fp-fmlp+", "fmlp+")


def pedf(problem: AnalysisProblem) -> AnalysisResult:
    refused = refuse_clusters("p-edf", problem)
    if refused is not None:
        return refused
    result = edf_qpa(problem)
    return replace(result, test="p-edf")


@dataclass(frozen=True, slots=True)
class Partitioning:
    """The outcome of a heuristic: task → partition, or the first task that fitted nowhere."""

    assignment: dict[str, str]
    ok: bool
    reason: str

    def apply(self, problem: AnalysisProblem) -> AnalysisProblem:
        """The problem with every task's partition set (scheduler made partitioned)."""
        sched = "P-EDF" if problem.is_edf else "P-FP"
        return replace(problem, scheduler=sched,
                       tasks=tuple(replace(t, partition=self.assignment.get(t.name, t.partition)) for t in problem.tasks))


def _fits(tasks: list[AnalysisTask], scheduler: str, protocol_of: Callable[[str], str]) -> bool:
    if scheduler == "EDF":
        if any(t.critical_sections for t in tasks):
            return sum((t.utilization for t in tasks), Fraction(0)) <= 1 and all(
                b.verdict == "ok" for b in edf_qpa(AnalysisProblem(tuple(tasks), "EDF", protocols={})).tasks)
        return qpa_group(tasks)[0]
    return all(b.verdict == "ok" for b in rta_tasks(tasks, protocol_of))


def partition_tasks(problem: AnalysisProblem, partitions: Sequence[str], heuristic: str = "first-fit",
                    scheduler: str | None = None) -> Partitioning:
    """Assign tasks (by decreasing utilization) to ``partitions`` with an exact per-CPU test.

    ``heuristic``: ``first-fit``, ``worst-fit`` (least utilized first) or
    ``best-fit`` (most utilized that still fits). ``scheduler``: ``FP`` or
    ``EDF`` (default: from the problem). Resources shared across the
    resulting partitions are not accounted for: the admission uses each
    partition's tasks alone (run ``p-fp-mpcp`` / ``p-fp-fmlp+`` afterwards).
    """
    if heuristic not in ("first-fit", "worst-fit", "best-fit"):
        raise ValueError(f"unknown heuristic {heuristic!r}")
    sched = scheduler or ("EDF" if problem.is_edf else "FP")
    bins: dict[str, list[AnalysisTask]] = {p: [] for p in partitions}
    assignment: dict[str, str] = {}
    order = sorted(problem.tasks, key=lambda t: (-t.utilization, t.name))

    def util(p: str) -> Fraction:
        return sum((t.utilization for t in bins[p]), Fraction(0))

    for t in order:
        candidates = list(partitions)
        if heuristic == "worst-fit":
            candidates.sort(key=lambda p: (util(p), partitions.index(p)))
        elif heuristic == "best-fit":
            candidates.sort(key=lambda p: (-util(p), partitions.index(p)))
        placed = False
        for p in candidates:
            trial = bins[p] + [replace(t, partition=p)]
            if _fits(trial, sched, problem.protocol):
                bins[p] = trial
                assignment[t.name] = p
                placed = True
                break
        if not placed:
            return Partitioning(assignment, False, f"{t.name} (U = {float(t.utilization):.3f}) fits in no partition")
    return Partitioning(assignment, True, f"{heuristic} decreasing placed {len(order)} task(s)")

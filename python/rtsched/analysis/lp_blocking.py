"""LP-based blocking for partitioned FP with FMLP+ and MPCP (after Brandenburg, RTAS 2013).

B. Brandenburg, "Improved analysis and evaluation of real-time semaphore
protocols for P-FP scheduling", RTAS 2013: instead of charging every
blocking cause once per request of the task under analysis (the closed
forms of ``partitioned``), give each *request that can actually be issued*
in the task's window a share of its length as blocking, and let a linear
program find the worst split under the protocol's constraints. Solved with
SciPy's ``linprog`` (HiGHS); no commercial solver.

Model and assumptions: those of ``p-fp-fmlp+`` (non-nested global sections,
suspension-based waiting, local resources under their uniprocessor protocol,
the response-time analysis with suspension jitter R_h − C_h of
``partitioned.suspension_aware_rta``). Only the global part of the blocking
(remote waiting and local boosted sections) comes from the LP; the local
resources' term is the closed form's.

**Variables.** For τ_i (window length D_i, the longest it may take if it meets
its deadline) and every outermost global section s of every other task x,
at most ``njobs(x) = ⌈(D_i + D_x)/T_x⌉`` jobs of x overlap the window, so s is
executed at most njobs(x) times (the *supply* of s). A variable v[c, s] ≥ 0
counts how many of those executions delay τ_i for the cause c:

- D(x, q), for q locked by τ_i and x ≠ τ_i locking q: x's sections on q ahead
  of τ_i in q's FIFO queue; at most N_{i,q} in all (each of τ_i's requests
  waits behind at most one request of each other task, FIFO);
- I(y), y on another processor: y's boosted sections preempting a holder x
  of q on y's processor while τ_i waits for q; at most
  Σ_q N_{i,q}·|{x ≠ y locking q on y's processor}| (a job boosted after the
  holder's request cannot preempt it, so y once per holder and request);
- L(y), y local with a lower priority: y's boosted sections delaying τ_i
  while it is ready; at most N_i + 1 (once per release or resumption).

**Constraints.** Σ_s v[c, s] ≤ cap(c) for every cause; Σ_c v[c, s] ≤ supply(s)
for every section (one execution of a section is one interval of time:
while τ_i waits behind it or is preempted by it, never both at once).
**Objective.** max Σ v[c, s]·L_s.

**MPCP** (:func:`mpcp_lp_blocking`): the causes of ``p-fp-mpcp``'s closed form,
with W_q its per-request wait on q (the same fixed point) and n = N_{i,q}:

- lower-priority users of q: at most n sections on q in all (one per request);
- each section s on q of a higher-priority user h: at most n·(⌈W_q/T_h⌉ + ⌈D_h/T_h⌉)
  (``jobs_in_window``: the jobs released in the wait and those pending at its start);
- each section s (not on q) of a task x on a remote processor hosting a user
  of q: at most n·(⌈W_q/T_x⌉ + ⌈D_x/T_x⌉) (the closed form's stand-in for the
  holder's preemption by other global sections);
- local lower-priority y: at most N_i + 1 boosted sections (once per release
  or resumption of τ_i), and by the supply (y's jobs in the window). The
  closed form charges (N_i + 1)·max gcs_y (it once charged min(N_i + 1, N_y),
  N_y per job of y: unsafe where several jobs of y fit in τ_i's window, see
  docs/analysis.md).

*Never above the closed form* (FMLP+ and MPCP): without the supply constraints the optimum
puts cap(c) on each cause's longest section, which is exactly what
``p-fp-fmlp+`` charges (N_{i,q}·cs_{x,q}, the holders' neighbours'
longest sections, (N_i + 1)·max gcs_y); the supply constraints only take away.

*Solved exactly, in integers.* Every variable appears in one cause row and
one section row of a 0/1 matrix, and its weight is its section's length: the
LP is a maximum-weight flow from causes (capacity cap(c)) to sections
(capacity supply(s)). The sections a flow can fill form a polymatroid, so
filling them greedily by decreasing length, each as far as augmenting paths
allow (earlier ones may be re-routed, never reduced), reaches the LP's
optimum (Edmonds' greedy theorem); with integer caps and supplies the
optimum is an integer. :func:`lp_optimum` does that with integer augmenting
paths (no floating point, no solver). The tests check it against SciPy's
``linprog`` (HiGHS) on generated problems where SciPy is installed (it is
not a dependency of rtsched; no commercial solver either way).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import Sequence

from rtsched.analysis.blocking import Blocking, blocking_term
from rtsched.analysis.partitioned import (_gcs, _mpcp_wait, jobs_in_window, missed_by_waiting, refuse_pfp_locking,
                                          refuse_outside_suspension_model, suspension_aware_rta,
                                          wait_beyond_deadline)
from rtsched.analysis.results import SCHEDULABLE, AnalysisResult, TaskBound, unsupported, verdict_of
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, ceil_div

__all__ = ["pfp_fmlp_plus_lp", "pfp_mpcp_lp", "fmlp_plus_lp_blocking", "mpcp_lp_blocking", "lp_optimum", "LpBlocking"]


@dataclass(frozen=True, slots=True)
class LpBlocking:
    """The global blocking of one task (the LP's optimum) and the size of its LP."""

    bound_ns: int
    causes: int
    sections: int


def _njobs(x: AnalysisTask, window_ns: int) -> int:
    return ceil_div(window_ns + x.deadline_ns, x.period_ns)


def lp_optimum(caps: Sequence[int], supply: Sequence[int], lengths: Sequence[int],
               edges: Sequence[tuple[int, int]]) -> int:
    """max Σ_e L_{s(e)}·v_e subject to Σ_{e∋c} v_e ≤ cap_c, Σ_{e∋s} v_e ≤ supply_s, v ≥ 0 (exact).

    ``edges`` are (cause index, section index). Greedy over sections by
    decreasing length; for each, integer augmenting paths (breadth first)
    from the causes' spare capacity to it, possibly re-routing earlier
    flow through other causes (the residual graph), until none is left.
    """
    nc = len(caps)
    spare = list(caps)
    into = [0] * len(supply)
    flow: dict[tuple[int, int], int] = {}
    by_section: dict[int, list[int]] = {}
    by_cause: dict[int, list[int]] = {}
    for c, s in edges:
        by_section.setdefault(s, []).append(c)
        by_cause.setdefault(c, []).append(s)
    total = 0
    for target in sorted(range(len(supply)), key=lambda s: -lengths[s]):
        while into[target] < supply[target]:
            # BFS over causes: a cause is reachable if it has spare capacity (from the source)
            # or if it sends flow into a section reachable from a reachable cause (re-routing)
            parent: dict[int, tuple[int, int] | None] = {c: None for c in range(nc) if spare[c] > 0}
            queue = deque(parent)
            found = None
            while queue and found is None:
                c = queue.popleft()
                for s in by_cause.get(c, ()):
                    if s == target:
                        found = c
                        break
                    for c2 in by_section.get(s, ()):  # c → s, then undo some of c2 → s
                        if c2 not in parent and flow.get((c2, s), 0) > 0:
                            parent[c2] = (c, s)
                            queue.append(c2)
            if found is None:
                break
            path = []  # (cause giving, section, cause losing) steps back to a cause with spare capacity
            c = found
            amount = supply[target] - into[target]
            while parent[c] is not None:
                prev, s = parent[c]  # type: ignore[misc]
                path.append((prev, s, c))
                amount = min(amount, flow[(c, s)])
                c = prev
            amount = min(amount, spare[c])
            spare[c] -= amount
            for prev, s, lose in path:
                flow[(prev, s)] = flow.get((prev, s), 0) + amount
                flow[(lose, s)] -= amount
            flow[(found, target)] = flow.get((found, target), 0) + amount
            into[target] += amount
            total += amount * lengths[target]
    return total


class _Lp:
    """The LP of one task τ_i: a section row per outermost global section of every other task
    (its supply: executions in τ_i's window), and the cause rows added by a protocol."""

    def __init__(self, i: AnalysisTask, tasks: Sequence[AnalysisTask], glob: frozenset[str]):
        self.mine = _gcs(i, glob)
        self.requests = {q: sum(1 for cs in self.mine if cs.resource == q) for q in {cs.resource for cs in self.mine}}
        self.sections: list[tuple[AnalysisTask, int, str]] = []  # (task, length, resource)
        self.supply: list[int] = []
        self.of_task: dict[str, list[int]] = {}
        for x in tasks:
            if x is i:
                continue
            for cs in _gcs(x, glob):
                self.of_task.setdefault(x.name, []).append(len(self.sections))
                self.sections.append((x, cs.length_ns, cs.resource))
                self.supply.append(_njobs(x, i.deadline_ns))
        self.users = {q: [x for x in tasks if x is not i and x.name in self.of_task
                          and any(self.sections[s][2] == q for s in self.of_task[x.name])] for q in self.requests}
        self.caps: list[int] = []
        self.edges: list[tuple[int, int]] = []

    def on(self, x: AnalysisTask, q: str, same: bool = True) -> list[int]:
        """x's sections on q (or, ``same=False``, on every other resource)."""
        return [s for s in self.of_task.get(x.name, []) if (self.sections[s][2] == q) == same]

    def cause(self, cap: int, members: list[int]) -> None:
        if cap > 0 and members:
            self.caps.append(cap)
            self.edges.extend((len(self.caps) - 1, s) for s in members)

    def solve(self) -> LpBlocking:
        bound = lp_optimum(self.caps, self.supply, [length for _, length, _ in self.sections], self.edges)
        return LpBlocking(bound, len(self.caps), len(self.supply))


def fmlp_plus_lp_blocking(i: AnalysisTask, tasks: Sequence[AnalysisTask], glob: frozenset[str]) -> LpBlocking:
    """The LP bound on τ_i's remote waiting plus local boosted sections under FMLP+."""
    lp = _Lp(i, tasks, glob)
    for q, n in lp.requests.items():
        for x in lp.users[q]:  # direct: FIFO, one request of x per request of τ_i
            lp.cause(n, lp.on(x, q))
    for y in tasks:
        if y is i or y.name not in lp.of_task:
            continue
        if y.partition != i.partition:  # indirect: y preempts a holder on its own processor
            holders = sum(n * sum(1 for x in lp.users[q] if x is not y and x.partition == y.partition)
                          for q, n in lp.requests.items())
            lp.cause(holders, lp.of_task[y.name])
        elif y.priority < i.priority:  # local lower-priority boosted sections
            lp.cause(len(lp.mine) + 1, lp.of_task[y.name])
    return lp.solve()


def mpcp_lp_blocking(i: AnalysisTask, tasks: Sequence[AnalysisTask], glob: frozenset[str]) -> LpBlocking | None:
    """The LP bound on τ_i's remote waiting plus local boosted sections under MPCP (None: a wait
    exceeds the deadline, as in ``p-fp-mpcp``)."""
    lp = _Lp(i, tasks, glob)
    for q, n in lp.requests.items():
        wait = _mpcp_wait(i, q, tasks, glob)
        if wait is None:
            return None
        lp.cause(n, [s for x in lp.users[q] if x.priority < i.priority for s in lp.on(x, q)])
        for h in lp.users[q]:
            if h.priority >= i.priority:
                for s in lp.on(h, q):
                    lp.cause(n * jobs_in_window(h, wait), [s])
        remote_cpus = {x.partition for x in lp.users[q] if x.partition != i.partition}
        for x in tasks:
            if x is not i and x.partition in remote_cpus:
                for s in lp.on(x, q, same=False):
                    lp.cause(n * jobs_in_window(x, wait), [s])
    for y in tasks:
        if y is not i and y.partition == i.partition and y.priority < i.priority and y.name in lp.of_task:
            lp.cause(len(lp.mine) + 1, lp.of_task[y.name])
    return lp.solve()


def pfp_fmlp_plus_lp(problem: AnalysisProblem) -> AnalysisResult:
    return _pfp_lp(problem, "p-fp-fmlp+-lp", "fmlp+")


def pfp_mpcp_lp(problem: AnalysisProblem) -> AnalysisResult:
    return _pfp_lp(problem, "p-fp-mpcp-lp", "mpcp")


def refuse_other_protocols(problem: AnalysisProblem, test: str, protocol: str) -> AnalysisResult | None:
    """Why ``test`` (P-FP locking with ``protocol`` on every global resource) does not apply, or None."""
    refused = refuse_pfp_locking(problem, test)
    if refused is not None:
        return refused
    others = {problem.protocol(r) for r in problem.global_resources()} - {protocol}
    if others:
        return unsupported(test, problem.names(), f"{test} assumes {protocol} on every global resource; "
                                                  f"some use {', '.join(sorted(others))}")
    return None


def _pfp_lp(problem: AnalysisProblem, test: str, protocol: str) -> AnalysisResult:
    refused = refuse_other_protocols(problem, test, protocol) or refuse_outside_suspension_model(problem, test)
    if refused is not None:
        return refused
    glob = problem.global_resources()
    blocking = fmlp_plus_lp_blocking if protocol == "fmlp+" else mpcp_lp_blocking
    lp = {t.name: blocking(t, problem.tasks, glob) for t in problem.tasks}
    unbounded = {t.name: wait_beyond_deadline(t, next(q for q in sorted({cs.resource for cs in _gcs(t, glob)})
                                                      if _mpcp_wait(t, q, problem.tasks, glob) is None))
                 for t in problem.tasks if lp[t.name] is None}

    def local_of(r: str) -> str:
        return problem.protocol(r) if problem.protocol(r) not in ("mpcp", "fmlp+") else "pcp"

    bounds: dict[str, TaskBound] = {}
    for _, local in problem.partitions().items():
        local_tasks = [replace(t, critical_sections=tuple(cs for cs in t.critical_sections if cs.resource not in glob))
                       for t in local]
        override: dict[str, Blocking] = {}
        for i, li in zip(local, local_tasks):
            got = lp[i.name]
            if got is None:
                override[i.name] = Blocking(None, unbounded[i.name])
                continue
            lb = blocking_term(li, local_tasks, local_of)
            if lb.ns is None:
                override[i.name] = lb
                continue
            n_i = len(_gcs(i, glob))
            own = lb.ns - li.extra_blocking_ns
            total = (n_i + 1) * own + li.extra_blocking_ns + got.bound_ns
            override[i.name] = Blocking(total, f"LP global blocking {got.bound_ns} ns, local resources "
                                               f"{n_i + 1}×{own} ns")
        suspending = [t for t in local if _gcs(t, glob)]
        for b in suspension_aware_rta(local, local_of, override, suspending):
            bounds[b.name] = missed_by_waiting(b, unbounded)
    ordered = [TaskBound(n, None, "unknown", problem.unanalysable[n]) if n in problem.unanalysable else bounds[n]
               for n in problem.names()]
    if any(b.verdict == "miss" for b in ordered):
        # the windows assumed every task meets its deadline (njobs with D_x): other bounds are not proven
        ordered = [b if b.verdict != "ok" else TaskBound(b.name, None, "unknown", "the LP's request counts assumed "
                                                         "every task meets its deadline, not shown", b.blocking_ns)
                   for b in ordered]
    verdict = verdict_of(ordered)
    bad = [b for b in ordered if b.verdict == "miss"] or [b for b in ordered if b.verdict != "ok"]
    return AnalysisResult(test, verdict, tuple(ordered),
                          "every bound is within its deadline" if verdict == SCHEDULABLE else f"{bad[0].name}: {bad[0].reason}",
                          exact=False, details={"global_resources": sorted(glob),
                                                "lp_blocking_ns": {n: None if b is None else b.bound_ns
                                                                   for n, b in lp.items()}})

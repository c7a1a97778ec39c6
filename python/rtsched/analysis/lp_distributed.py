"""LP-based blocking under the distributed protocols DPCP and DFLP (after Brandenburg, RTAS 2013).

B. Brandenburg, "Improved analysis and evaluation of real-time semaphore
protocols for P-FP scheduling", RTAS 2013, §IV–V. Under both protocols each
global resource q has a *synchronization partition* P(q)
(``AnalysisProblem.sync_partition``). A job that requests q suspends; an
*agent* on P(q) runs the critical section for it, at a priority above every
normal task of P(q). The protocols differ in how agents on one processor
are ordered:

- **DPCP** (Rajkumar, Sha, Lehoczky 1988): an agent has its client's
  priority, and the agents of one processor follow the uniprocessor PCP,
  a resource's ceiling being the highest priority of its users (anywhere);
- **DFLP** (Brandenburg 2013): one FIFO queue per resource, and the agents
  of one processor are scheduled in the order their requests were issued.

Model and assumptions: partitioned FP, one CPU per partition; non-nested
global sections (nested ones are refused by ``pfp_distributed``); a job has
at most one request pending (it suspends until its agent is done); every
task meets its deadline, measured from its arrival (the job counts below;
``pfp_distributed`` reports nothing as proven when some task misses).
Equal priorities count as higher (both ways).

**Variables.** For the job J_i of τ_i (window D_i) and each outermost
global section s of each other task x, ``njobs(x) = ⌈(D_i + D_x)/T_x⌉`` jobs
of x can have that section executing in J_i's window (a job pending at the
window's start arrived less than D_x before), so s is executed at most
njobs(x) times: its *supply*. Brandenburg's variables X^D, X^I, X^P give each
execution a share of its length as direct, indirect or preemption delay of
J_i. Direct and indirect delay are both J_i waiting for its own agent and
weigh the same in the objective, so here they are one variable X^W (the
DFLP's separate direct-only bound, his Constraint 4, never binds once they
are merged: the per-processor one below covers it). The objective is
max Σ (X^W + X^P)·L_s.

**Constraints** (Brandenburg's numbering; each with why it holds):

- C1 (mutex): X^W + X^P ≤ supply(s). One execution of s is one interval of
  L_s time: during it J_i waits for it or is preempted by it, never both.
- C2 (topology): X^P = 0 unless P(q_s) is τ_i's own partition. Only agents
  on J_i's processor can preempt J_i; others only make it wait.
- C3 (local lower-priority agents): for each task x on τ_i's partition with
  a lower priority, Σ X^P over x's sections ≤ A_i = 1 + the requests of
  τ_i to resources on other partitions. x issues a request only while it
  runs, so only while J_i is not ready, and has one request pending at a
  time; J_i becomes ready A_i times at most (release and each resumption
  from a remote request: while its request on its own processor is
  pending, that processor runs agents without a gap, so x cannot run).
- C6 (DPCP, conflict set): X^W = 0 for the sections of a lower-priority
  task on a resource whose ceiling is below τ_i's priority. Under PCP J_i's
  agent preempts such an agent and is never refused the lock because of it.
- C7 (DPCP, lower priority at most once): for each processor p, Σ X^W over
  the sections of lower-priority tasks on resources at p ≤ n_p (τ_i's
  requests to resources at p). Under PCP each request of J_i waits for at
  most one lower-priority agent (the one holding a resource whose ceiling is
  at least τ_i's priority; the ceiling rule lets no second one start).
- C8 (DPCP, higher priority within the wait): for each task h of priority
  ≥ τ_i's and each resource q' of h at p, Σ X^W over h's sections on q'
  ≤ Σ_{y at p} N_{i,y}·N_{h,q'}·⌈(W_{i,y} + D_h)/T_h⌉, with W_{i,y} the
  longest wait of one request of τ_i on y, the least fixed point of
  ``W = L_{i,y} + max lower + Σ_{h} Σ_{s of h at p} ⌈(W + D_h)/T_h⌉·L_s``
  (``dpcp_wait``): the agent of J_i's request is ready from its issue and
  only higher-priority agents and one lower-priority holder run on p
  before it completes. A wait above D_i: no bound (the task gets none).
  Sections at processors τ_i never requests get X^W = 0 (C7 and C8 with
  n_p = 0, Brandenburg's "independent cluster" constraint).
- C5 (DFLP, one request per task per request): for each other task x and
  each processor p, Σ X^W over x's sections at p ≤ n_p. Agents at p run in
  the order of their requests' issue: J_i's request R waits only for agents
  of requests issued before R (the head of R's queue was issued before R,
  and an agent that preempts the head was issued before it), and x had at
  most one request pending when R was issued.

*Solved exactly.* Every variable lies in one supply row (C1) and at most
one cause row (C3, C7, C8 or C5; a variable in none has an unbounded cause,
its supply alone caps it), all 0/1: the LP is the maximum-weight flow of
``lp_blocking.lp_optimum`` (integer, no solver). The tests check it against
SciPy's ``linprog`` (HiGHS).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rtsched.analysis.lp_blocking import LpBlocking, lp_optimum
from rtsched.analysis.partitioned import _gcs
from rtsched.analysis.tasks import AnalysisTask, ceil_div

__all__ = ["DistributedLp", "build_distributed_lp", "distributed_lp_blocking", "dpcp_wait", "arrivals"]


@dataclass(frozen=True, slots=True)
class DistributedLp:
    """One task's LP: rows ``caps`` (causes) and ``supply`` (sections, with ``lengths``), and
    ``edges`` (cause, section), one per variable."""

    caps: tuple[int, ...]
    supply: tuple[int, ...]
    lengths: tuple[int, ...]
    edges: tuple[tuple[int, int], ...]

    def solve(self) -> LpBlocking:
        return LpBlocking(lp_optimum(self.caps, self.supply, self.lengths, self.edges), len(self.caps),
                          len(self.supply))


def _njobs(x: AnalysisTask, window_ns: int) -> int:
    """Jobs of x pending at some time of a window of ``window_ns`` (x meets its deadline)."""
    return ceil_div(window_ns + x.deadline_ns, x.period_ns)


def arrivals(i: AnalysisTask, glob: frozenset[str], sync: dict[str, str | None]) -> int:
    """A_i: how often J_i becomes ready (its release, and each resumption from a request to a
    resource whose agents run on another partition)."""
    return 1 + sum(1 for cs in _gcs(i, glob) if sync[cs.resource] != i.partition)


def dpcp_wait(i: AnalysisTask, y: str, tasks: Sequence[AnalysisTask], glob: frozenset[str],
              sync: dict[str, str | None], ceiling: dict[str, int]) -> int | None:
    """W_{i,y}: one request of τ_i on y, from issue to its agent's end, under DPCP (None: above D_i)."""
    p = sync[y]
    own = i.max_cs(y)
    lower = max((cs.length_ns for x in tasks if x is not i and x.priority < i.priority
                 for cs in _gcs(x, glob) if sync[cs.resource] == p and ceiling[cs.resource] >= i.priority),
                default=0)
    higher = [(x, cs.length_ns) for x in tasks if x is not i and x.priority >= i.priority
              for cs in _gcs(x, glob) if sync[cs.resource] == p]
    w = own + lower
    while True:
        new = own + lower + sum(_njobs(x, w) * length for x, length in higher)
        if new > i.deadline_ns:
            return None
        if new == w:
            return w
        w = new


def build_distributed_lp(i: AnalysisTask, tasks: Sequence[AnalysisTask], glob: frozenset[str],
                         sync: dict[str, str | None], protocol: str) -> DistributedLp | None:
    """τ_i's LP under ``protocol`` (``dpcp`` or ``dflp``); None when a DPCP wait exceeds D_i."""
    mine = _gcs(i, glob)
    n_req = {q: sum(1 for cs in mine if cs.resource == q) for q in {cs.resource for cs in mine}}
    n_at: dict[str | None, int] = {}
    for q, n in n_req.items():
        n_at[sync[q]] = n_at.get(sync[q], 0) + n
    ceiling = {q: max(x.priority for x in tasks if q in x.resources()) for q in glob}
    waits: dict[str, int] = {}
    if protocol == "dpcp":
        for y in n_req:
            w = dpcp_wait(i, y, tasks, glob, sync, ceiling)
            if w is None:
                return None
            waits[y] = w
    sections: list[tuple[AnalysisTask, str, int]] = [(x, cs.resource, cs.length_ns) for x in tasks if x is not i
                                                     for cs in _gcs(x, glob)]
    supply = [_njobs(x, i.deadline_ns) for x, _, _ in sections]
    cause_of: dict[tuple[object, ...], int] = {}
    caps: list[int] = []
    edges: list[tuple[int, int]] = []

    def edge(key: tuple[object, ...], cap: int, s: int) -> None:
        if cap <= 0:
            return
        if key not in cause_of:
            cause_of[key] = len(caps)
            caps.append(cap)
        edges.append((cause_of[key], s))

    a_i = arrivals(i, glob, sync)
    unbounded = sum(supply)
    for s, (x, q, _) in enumerate(sections):
        p = sync[q]
        n_p = n_at.get(p, 0)
        # X^W: J_i waits for this execution
        if protocol == "dflp":
            edge(("C5", x.name, p), n_p, s)
        elif x.priority < i.priority:
            if ceiling[q] >= i.priority:  # C6 otherwise
                edge(("C7", p), n_p, s)
        else:
            per_job = x.requests(q)
            edge(("C8", x.name, q), sum(n_req[y] * per_job * _njobs(x, waits[y]) for y in n_req if sync[y] == p), s)
        # X^P: the agent preempts J_i (C2: only on J_i's own processor)
        if p == i.partition:
            if x.partition == i.partition and x.priority < i.priority:
                edge(("C3", x.name), a_i, s)
            else:
                edge(("supply only",), unbounded, s)  # C1 caps it
    return DistributedLp(tuple(caps), tuple(supply), tuple(length for _, _, length in sections), tuple(edges))


def distributed_lp_blocking(i: AnalysisTask, tasks: Sequence[AnalysisTask], glob: frozenset[str],
                            sync: dict[str, str | None], protocol: str) -> LpBlocking | None:
    """The LP bound on J_i's waiting for other agents plus its preemption by agents on its own
    processor (not its own sections' length); None when a DPCP wait exceeds D_i."""
    lp = build_distributed_lp(i, tasks, glob, sync, protocol)
    return None if lp is None else lp.solve()

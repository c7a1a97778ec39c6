"""Response-time analysis of RPCs over PI condition variables (seed 004 §5, Eq. 1–5).

Cucinotta, Abeni, Lelli, Lipari, "Exploiting dynamic task dependencies":
client tasks τ_i (priority p_i, period T_i = D_i, own WCET C_i) call
servers S_k; the k-th call of τ_i costs D_{i,k} of server time. Servers
have lower priority than every client and inherit the caller's priority
through the PI-CV; requests queue by client priority.

    E_i = C_i + Σ_k D_{i,k}                                     (WCET with own RPCs)
    R_i = E_i + I_i + Σ_{j ∈ hp(i)} ⌈R_i / T_j⌉ · E_j            (Eq. 1)
    Q_i = {(j, k) | τ_j ∈ lp(i), k ∈ K_i ∩ K_j}                   (Eq. 2, queueing)
    P_i = {(j, k) | τ_j ∈ lp(i), ∃ τ_h ∈ hp(i): k ∈ K_j ∩ K_h}     (Eq. 3, boosted servers)
    I_i = max over A ⊆ Q_i ∪ P_i using each τ_j and each S_k at most once
          of Σ_{(j,k) ∈ A} max_h {D_{j,h} | r_{j,h} = k}          (Eq. 4–5)

hp(i) and lp(i) are the other clients with p_j ≥ p_i and p_j ≤ p_i. Eq. 4–5
is a maximum-weight bipartite matching (lower-priority tasks × servers),
solved exactly by the Hungarian algorithm (``matching``).

"Each S_k at most once" holds for one call per job (issue 35): a server
takes its next queued request as soon as it finishes one, so a lower
client's request queued behind τ_i's first call is served next, at that
client's priority, and τ_i's second call to S_k waits for it (at the
priority τ_i lends). Each call of a client of priority ≥ p_i waits for at
most one lower client's call (it is served before every lower one queued
after), and each lower client at most once (it must run to call again), so
S_k counts min(its lower clients in Q_i ∪ P_i, the calls to it) times: τ_i's
own calls for one job (the busy period's first; later jobs, and any
other client of priority ≥ p_i calling S_k, make the calls unbounded). Tasks without RPCs
(e.g. the Annoyer of Table I) are ordinary tasks (E = C). On a partitioned
platform each partition is analysed alone; a client may call only servers
of its own partition (the paper's assumption).

Known answer: seed 004 Table I — Client1 (40 ms, prio 90, 10 ms + 4.5 ms
RPC): R = 19 ms; Client2 (50 ms, prio 80, same): R = 29 ms.
"""

from __future__ import annotations

from typing import Sequence

from rtsched.analysis.fp_uni import response_time
from rtsched.analysis.matching import max_weight_capacitated
from rtsched.analysis.results import SCHEDULABLE, AnalysisResult, TaskBound, refuse_clusters, unsupported, verdict_of
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask

__all__ = ["rpc_blocking", "picv_rpc"]


def _calls(t: AnalysisTask) -> dict[str, int]:
    """Server → the longest call of t to it (the inner max of Eq. 5)."""
    out: dict[str, int] = {}
    for c in t.rpcs:
        out[c.server] = max(out.get(c.server, 0), c.length_ns)
    return out


def rpc_blocking(task: AnalysisTask, tasks: Sequence[AnalysisTask],
                 jobs: int | None = None) -> tuple[int, list[tuple[str, str]]]:
    """I_i of Eq. 4–5, each server counted once per call (module notes): (value, chosen (lower task,
    server) pairs). ``jobs``: how many jobs of ``task`` make calls in the window (None: any number)."""
    mine = set(_calls(task))
    hp_servers: set[str] = set()
    for h in tasks:
        if h is not task and h.priority >= task.priority:
            hp_servers |= set(_calls(h))
    edges: dict[tuple[str, str], int] = {}
    lower: dict[str, int] = {}  # server → its lower clients that can delay the task
    for j in tasks:
        if j is task or j.priority > task.priority:
            continue
        for server, length in _calls(j).items():
            if server in mine or server in hp_servers:  # Q_i ∪ P_i
                edges[(j.name, server)] = length
                lower[server] = lower.get(server, 0) + 1
    capacity: dict[str, int] = {}
    for server, clients in lower.items():
        calls = sum(1 for c in task.rpcs if c.server == server)
        capacity[server] = clients if jobs is None or server in hp_servers else min(clients, jobs * calls)
    total, chosen = max_weight_capacitated(edges, capacity)
    return total, [(str(a), str(b)) for a, b in chosen]


def picv_rpc(problem: AnalysisProblem) -> AnalysisResult:
    test = "picv-rpc"
    if problem.scheduler not in ("FP", "P-FP"):
        return unsupported(test, problem.names(), f"{test} needs FP on one processor or P-FP; the set uses {problem.scheduler}")
    if problem.resources():
        return unsupported(test, problem.names(), f"{test} models RPCs only; mutex sections are not part of Eq. 1–5")
    refused = refuse_clusters(test, problem)
    if refused is not None:
        return refused
    bounds: dict[str, TaskBound] = {}
    for _, tasks in problem.partitions().items():
        for t in tasks:
            e = t.exec_ns + sum(c.length_ns for c in t.rpcs)
            i, chosen = rpc_blocking(t, tasks, jobs=1)
            i_later, chosen_later = rpc_blocking(t, tasks)  # a busy period of several jobs: all their calls
            hp = [(j.exec_ns + sum(c.length_ns for c in j.rpcs), j.period_ns, j.jitter_ns)
                  for j in tasks if j is not t and j.priority >= t.priority]
            r, jobs = response_time(e, i + t.extra_blocking_ns, t.jitter_ns, t.period_ns, t.deadline_ns, hp,
                                    b_later=i_later + t.extra_blocking_ns if i_later != i else None)
            if jobs > 0:
                i, chosen = i_later, chosen_later
            pairs = ", ".join(f"{a}→{b}" for a, b in chosen) or "none"
            why = f"E = {e} ns, I = {i} ns (calls: {pairs})"
            bounds[t.name] = (TaskBound(t.name, r, "ok", why, i) if r is not None
                              else TaskBound(t.name, None, "miss", why + "; R exceeds the deadline", i))
    ordered = [TaskBound(n, None, "unknown", problem.unanalysable[n]) if n in problem.unanalysable
               else bounds[n] for n in problem.names()]
    verdict = verdict_of(ordered)
    return AnalysisResult(test, verdict, tuple(ordered),
                          "every client meets its deadline" if verdict == SCHEDULABLE else
                          next(f"{b.name}: {b.reason}" for b in ordered if b.verdict != "ok"),
                          exact=False)

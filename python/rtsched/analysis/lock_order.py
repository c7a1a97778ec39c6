"""Lock-order cycles: sets whose nested critical sections can deadlock (issue 35, class 7).

Task τ1 holds A and then takes B; τ2 holds B and then takes A. Under a lock
without deadlock avoidance a legal interleaving deadlocks: τ1 takes A, τ2 is
released (or runs on another processor) and takes B, then each waits for the
other for ever, and neither job ever completes. A response-time bound for such
a set is meaningless, so every registered test refuses it (``registry._named``)
and ``rtsched validate`` warns, the cycle named.

The *lock-order graph* has an edge A → B, labelled with the task, when a job of
that task takes B while it holds A (``CriticalSection.nested`` lists every
resource taken inside a section, at any depth, so the graph has the transitive
edges too). A deadlock needs a cycle in it whose edges belong to distinct tasks:
a task is one thread, its jobs run one after the other, and one job cannot wait
for itself (sections are properly nested and a job never locks a resource it
holds).

When a protocol rules the deadlock out, the cycle is left alone. On one
processor (a partition of one CPU, every resource of the cycle local to it and
under one protocol):

- ``pcp``: a job locks only above the ceiling of every resource other jobs
  hold; the second lock of the cycle is refused to whoever did not take the
  first (Sha, Rajkumar and Lehoczky 1990), also across suspensions,
  the check being made at lock time. Under EDF the tests read ``pcp`` as SRP
  (below).
- ``srp``, ``ipcp``, ``np``: a job that could take the cycle's second resource
  cannot run while another job holds the first (it cannot start under SRP, it
  is below the holder's ceiling under IPCP, it is not scheduled under NP)
  *as long as the holder keeps the processor*. A holder that suspends inside its
  section (a sleep, a condition-variable wait, an RPC) lets it run, take its
  first lock and deadlock; so these count only when no task of the cycle
  suspends (the analysis task does not say where a sleep lies).

Everything else may deadlock: ``none``, ``pip``, ``fifo``, a cycle mixing
protocols, a resource shared across partitions or under a multiprocessor
protocol (``mpcp``, ``fmlp+``, ``dpcp``, ``dflp``: each processor runs its own
job, so the ceilings of one processor do not stop the other), global
scheduling. A cycle that a common outer lock guards (every task takes G before
A or B) cannot deadlock either; the graph does not see that, so such a set is
refused too (pessimistic, never unsound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from rtsched.analysis.results import NOT_SCHEDULABLE, AnalysisResult, TaskBound
from rtsched.analysis.tasks import AnalysisProblem

__all__ = ["LockEdge", "LockCycle", "lock_order_cycles", "deadlock_refusal"]

#: Protocols under which one processor never deadlocks on a cycle whose holders do not suspend.
_AVOID_WITHOUT_SUSPENSION = frozenset({"pcp", "srp", "ipcp", "np"})


@dataclass(frozen=True)
class LockEdge:
    """A job of ``task`` takes ``taken`` while it holds ``held``."""

    task: str
    held: str
    taken: str

    def describe(self) -> str:
        return f"{self.task} holds {self.held} then takes {self.taken}"


@dataclass(frozen=True)
class LockCycle:
    """Edges of distinct tasks, each taking what the next holds; the last takes what the first holds."""

    edges: tuple[LockEdge, ...]

    def describe(self) -> str:
        return "; ".join(e.describe() for e in self.edges)

    @property
    def tasks(self) -> tuple[str, ...]:
        return tuple(e.task for e in self.edges)


def _graph(problem: AnalysisProblem) -> dict[str, list[tuple[str, str]]]:
    """held → sorted (taken, task) pairs."""
    out: dict[str, set[tuple[str, str]]] = {}
    for t in problem.tasks:
        for cs in t.critical_sections:
            for taken in cs.nested:
                out.setdefault(cs.resource, set()).add((taken, t.name))
    return {held: sorted(pairs) for held, pairs in out.items()}


def _cycles(graph: dict[str, list[tuple[str, str]]]) -> Iterator[LockCycle]:
    """Every simple cycle with edges of distinct tasks, each once (it starts at its least resource)."""
    for start in sorted(graph):
        path: list[LockEdge] = []
        seen = {start}

        def walk(node: str) -> Iterator[LockCycle]:
            used = {e.task for e in path}
            for taken, task in graph.get(node, ()):
                if task in used:
                    continue
                edge = LockEdge(task, node, taken)
                if taken == start:
                    yield LockCycle(tuple(path) + (edge,))
                elif taken > start and taken not in seen:
                    path.append(edge)
                    seen.add(taken)
                    yield from walk(taken)
                    seen.discard(taken)
                    path.pop()

        yield from walk(start)


def _avoided(problem: AnalysisProblem, cycle: LockCycle, protocol_of: Callable[[str], str]) -> bool:
    """Whether the protocols rule the cycle's deadlock out (see the module's text)."""
    resources = {e.held for e in cycle.edges}
    protocols = {protocol_of(r) for r in resources}
    if len(protocols) != 1 or problem.is_global or problem.clusters():
        return False
    if resources & problem.global_resources():
        return False
    protocol = protocols.pop()
    if protocol == "pcp" and problem.is_fp:
        return True
    if protocol not in _AVOID_WITHOUT_SUSPENSION:
        return False
    tasks = {t.name: t for t in problem.tasks}
    return not any(tasks[n].suspension_ns or tasks[n].waits or tasks[n].rpcs for n in cycle.tasks)


def lock_order_cycles(problem: AnalysisProblem, protocol: str | None = None, limit: int = 8) -> tuple[LockCycle, ...]:
    """The lock-order cycles of ``problem`` that its protocols (or ``protocol``, forced on every
    resource, as ``fp-rta-pip`` does) do not rule out; at most ``limit``."""
    if not any(cs.nested for t in problem.tasks for cs in t.critical_sections):
        return ()
    protocol_of: Callable[[str], str] = (lambda r: protocol) if protocol else problem.protocol
    out: list[LockCycle] = []
    for cycle in _cycles(_graph(problem)):
        if not _avoided(problem, cycle, protocol_of):
            out.append(cycle)
            if len(out) >= limit:
                break
    return tuple(out)


def deadlock_refusal(test: str, problem: AnalysisProblem, protocol: str | None = None) -> AnalysisResult | None:
    """``not schedulable`` with the cycle named when the set can deadlock, else None.

    The tasks of the cycle get ``miss`` (a job of each may never complete); the others ``unknown``
    (not analysed: whoever needs a resource the deadlocked jobs hold waits for ever too)."""
    cycles = lock_order_cycles(problem, protocol, limit=1)
    if not cycles:
        return None
    cycle = cycles[0]
    reason = f"deadlock possible: {cycle.describe()}"
    stuck = set(cycle.tasks)
    tasks = tuple(TaskBound(t.name, None, "miss", reason) if t.name in stuck
                  else TaskBound(t.name, None, "unknown", f"not analysed: the set can deadlock ({cycle.describe()})")
                  for t in problem.tasks)
    return AnalysisResult(test=test, verdict=NOT_SCHEDULABLE, tasks=tasks, reason=reason,
                          details={"lock_order_cycle": [[e.task, e.held, e.taken] for e in cycle.edges]})

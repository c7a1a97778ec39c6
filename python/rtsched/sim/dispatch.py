"""Scheduling domains and the dispatcher: which ready threads run on which CPUs.

A domain is a set of CPUs with one ready queue: the whole platform under a
global scheduler (G-FP, G-EDF), one partition under a partitioned one (P-FP,
P-EDF; a P-EDF partition of several CPUs is G-EDF inside, as its exclusive
cpuset is). The policy lives in the threads' keys (``-priority`` or the
absolute deadline, smaller first), so FP and EDF share this code.

Rule kept by ``dispatch``: on return, no ready thread of the domain has a
smaller key than a running one, and no CPU is idle while a thread is ready.
Equal keys never preempt; among equal ready keys the earlier ``seq`` wins (a
preempted thread keeps its place at the head, a woken one goes to the tail,
as SCHED_FIFO's lists and SCHED_DEADLINE's tree order them).
"""

from __future__ import annotations

import heapq
from typing import Any, Callable

from rtsched.sim.threads import READY, SimThread

__all__ = ["Domain", "dispatch"]


class Domain:
    """``dirty``: the domain is in ``dirty_list`` (the engine's domains to dispatch at this instant)."""

    __slots__ = ("name", "cpus", "heap", "running", "last_thread", "dirty", "dirty_list", "tree")

    def __init__(self, name: str, cpus: tuple[int, ...], dirty_list: list[Domain]) -> None:
        self.name = name
        self.cpus = cpus
        self.heap: list[tuple[int, int, int, SimThread]] = []
        self.running: dict[int, SimThread | None] = {cpu: None for cpu in cpus}
        self.last_thread: dict[int, SimThread | None] = {cpu: None for cpu in cpus}
        self.dirty = False
        self.dirty_list = dirty_list
        self.tree: Any = None  # a one-CPU partition with reservations: its sim.reservations.ReservationTree

    def mark_dirty(self) -> None:
        if not self.dirty:
            self.dirty = True
            self.dirty_list.append(self)

    def push(self, thread: SimThread) -> None:
        """Queue a READY thread (again, after its key changed: the older entry goes stale)."""
        thread.queued += 1
        heapq.heappush(self.heap, (thread.key, thread.seq, thread.queued, thread))
        if not self.dirty:
            self.dirty = True
            self.dirty_list.append(self)

    def _idle_cpu(self, thread: SimThread) -> int | None:
        running = self.running
        if len(running) == 1:
            return self.cpus[0] if running[self.cpus[0]] is None else None
        if running.get(thread.cpu, 0) is None:
            return thread.cpu  # stay where it last ran
        for cpu in self.cpus:
            if running[cpu] is None:
                return cpu
        return None

    def _worst_running(self) -> SimThread | None:
        if len(self.cpus) == 1:
            return self.running[self.cpus[0]]
        worst: SimThread | None = None
        for t in self.running.values():
            if t is not None and (worst is None or (t.key, t.seq) > (worst.key, worst.seq)):
                worst = t
        return worst


def dispatch(domain: Domain, now: int, start: Callable[[SimThread, int, int], None],
             preempt: Callable[[SimThread, int], Any]) -> None:
    """Run the most urgent ready threads of ``domain``, preempting less urgent running ones.
    The domain stays marked dirty meanwhile (its own preemptions re-queue threads) and is
    clean on return."""
    if domain.tree is not None:  # reservations decide (sim/reservations.py)
        domain.tree.dispatch(now, start, preempt)
        return
    heap = domain.heap
    if len(domain.cpus) == 1:
        _dispatch_one(domain, now, start, preempt)
        return
    while heap:
        key, _seq, queued, thread = heap[0]
        if queued != thread.queued or thread.state != READY:
            heapq.heappop(heap)
            continue
        cpu = domain._idle_cpu(thread)
        if cpu is None:
            worst = domain._worst_running()
            if worst is None or key >= worst.key:
                break
            cpu = worst.cpu
            preempt(worst, now)
        heapq.heappop(heap)
        start(thread, cpu, now)
    domain.dirty = False


def _dispatch_one(domain: Domain, now: int, start: Callable[[SimThread, int, int], None],
                  preempt: Callable[[SimThread, int], Any]) -> None:
    """``dispatch`` of a domain of one CPU: the same decisions without the search for an idle
    CPU or the least urgent running thread."""
    heap = domain.heap
    running = domain.running
    cpu = domain.cpus[0]
    while heap:
        key, _seq, queued, thread = heap[0]
        if queued != thread.queued or thread.state != READY:
            heapq.heappop(heap)
            continue
        current = running[cpu]
        if current is not None:
            if key >= current.key:
                break
            preempt(current, now)
        heapq.heappop(heap)
        start(thread, cpu, now)
    domain.dirty = False

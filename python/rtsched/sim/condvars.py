"""Condition variables of the simulator, with the runner's counted signals (docs/taskset.md).

As ``tools/run/body.c`` does: ``wait`` records COND_WAIT, then, while no
signal is pending, gives the mutex back and waits; woken, it takes the mutex
again (blocking on its owner, lending under PIP, unrecorded: the library's
condvar relocks inside) and looks again; it takes one pending signal and
records COND_WAKE. ``signal`` adds one pending signal and wakes the most urgent
waiter; ``broadcast`` adds one per thread between its COND_WAIT and COND_WAKE
and wakes every waiter. A signal nobody waits for stays pending.

On a FIFO mutex (docs/fifo-mutex.md, COND_REQUEUE) the waiters go in the order
they waited, not by priority: ``signal`` moves the first onto the tail of the
mutex's queue, ``broadcast`` all of them in order; each takes the mutex when
an unlock hands it over (the signaller holds it: the model refuses a signal
outside its mutex).
"""

from __future__ import annotations

from typing import Protocol

from rtsched.sim.protocols import Partitions, SimLock, try_lock
from rtsched.sim.protocols import Scheduler as LockScheduler
from rtsched.sim.threads import SimThread

__all__ = ["SimCondVar", "wake_waiters"]


class Scheduler(LockScheduler, Protocol):
    def make_ready(self, thread: SimThread) -> None: ...


class SimCondVar:
    __slots__ = ("index", "name", "mutex", "pending", "waiting", "waiters")

    def __init__(self, index: int, name: str, mutex: SimLock) -> None:
        self.index = index
        self.name = name
        self.mutex = mutex
        self.pending = 0   # signals not taken yet
        self.waiting = 0   # threads between their COND_WAIT and COND_WAKE
        self.waiters: list[SimThread] = []  # threads asleep on it (mutex given back)


def wake_waiters(cv: SimCondVar, everyone: bool, parts: Partitions, sched: Scheduler, now: int) -> None:
    """Wake the most urgent waiter, the first under a FIFO mutex (or all): each takes the
    mutex again or blocks on its owner."""
    fifo = cv.mutex.protocol == "fifo"
    while cv.waiters:
        waiter = cv.waiters[0] if fifo else min(cv.waiters, key=lambda w: (w.key, w.seq))
        cv.waiters.remove(waiter)
        if try_lock(waiter, cv.mutex, parts, sched, now):
            sched.make_ready(waiter)
        if not everyone:
            return

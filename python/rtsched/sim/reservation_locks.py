"""Ceiling protocols inside reservations in the simulator (docs/reservations.md, "Locks inside
reservations").

The protocols (sim/protocols.py) keep their entries, gates and retries per *ceiling domain*,
the name in ``SimThread.partition`` and ``SimLock.partition``: the partition for a thread at
the top level, and ``"PARTITION/RESERVATION"`` for a thread inside a reservation. A ceiling
lock used inside a reservation (only there: rtsched.sim.support refuses the rest) belongs to
that reservation's domain, and its ceiling and its users' levels are the reservation's
(rtsched.model.reservation_locks). So a lock held in one reservation never holds back a job
start or a lock request in another: a reservation's tasks wait only for work that runs on
its own budget, which is what its analysis assumes. Locks without a ceiling (pip, none,
fifo) need nothing here: their waiters block on the holder wherever it is.
"""

from __future__ import annotations

from rtsched.model import TaskSet
from rtsched.model.reservation_locks import lock_homes, reservation_ceiling, reservation_levels
from rtsched.model.model import ALL_CEILING_PROTOCOLS
from rtsched.sim.protocols import SimLock
from rtsched.sim.threads import SimThread

__all__ = ["ceiling_domain", "scope_ceilings"]


def ceiling_domain(partition: str | None, reservation: str) -> str:
    return f"{partition or ''}/{reservation}"


def scope_ceilings(taskset: TaskSet, threads: list[SimThread], locks: list[SimLock]) -> None:
    """Give the threads inside reservations their reservation's ceiling domain and levels, and
    each ceiling lock used inside a reservation that domain and its ceiling there."""
    for i, task in enumerate(taskset.tasks):
        if task.reservation is not None:
            t = threads[i]
            t.partition = ceiling_domain(task.partition, task.reservation)
            t.level = reservation_levels(taskset, task.reservation)[task.name]
    homes = lock_homes(taskset)
    for lock in locks:
        where = homes.get(lock.name, ())
        if lock.protocol not in ALL_CEILING_PROTOCOLS or len(where) != 1 or where[0] is None:
            continue
        reservation = where[0]
        lock.partition = ceiling_domain(taskset.reservation(reservation).partition, reservation)
        lock.ceiling = reservation_ceiling(taskset, lock.name, reservation)

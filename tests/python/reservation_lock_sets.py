"""Pieces of the task sets the tests of locks inside reservations build (docs/reservations.md,
"Locks inside reservations"): a task on CPU 0 in a reservation (or at the top level), a critical
section, and the FP reservation R most of them use."""

from __future__ import annotations


def task(name, reservation, priority=None, offset=None, period="100ms", body=()):
    """A task on cpu0 in ``reservation`` (None: the top level of the partition)."""
    t = {"name": name, "partition": "cpu0", "period": period, "body": list(body)}
    if reservation is not None:
        t["reservation"] = reservation
    if priority is not None:
        t["priority"] = priority
    if offset is not None:
        t["offset"] = offset
    return t


def section(lock, compute):
    """lock, compute, unlock."""
    return [{"lock": lock}, {"compute": compute}, {"unlock": lock}]


#: An FP reservation of 5 ms every 10 ms at priority 20 on cpu0.
R = {"name": "R", "period": "10ms", "budget": "5ms", "scheduler": "FP", "priority": 20, "partition": "cpu0"}

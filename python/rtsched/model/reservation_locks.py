"""Locks among tasks in reservations (docs/reservations.md, "Locks inside reservations"): where
each resource's users live, and the ceiling protocols' levels inside one reservation.

A task's **home** is its reservation (a leaf), or None for a task placed at the top level of its
partition. A resource is **local** to a reservation when all its users have that home, and
**shared across** homes otherwise. Inside a reservation a ceiling protocol's levels are the
reservation's own order: a task's priority in an FP reservation, its preemption level (the
rank of its relative deadline among the reservation's tasks, longest 1) in an EDF one; its
ceiling is the highest level of its users. The simulator and the analysis read these.
"""

from __future__ import annotations

from rtsched.model.model import TaskSet

__all__ = ["lock_homes", "reservation_levels", "reservation_ceiling"]


def lock_homes(taskset: TaskSet) -> dict[str, tuple[str | None, ...]]:
    """Resource name -> the distinct homes of the tasks that lock it, in task order (resources no
    task locks are left out)."""
    homes: dict[str, dict[str | None, None]] = {}
    for t in taskset.tasks:
        for name in t.resources_used():
            homes.setdefault(name, {})[t.reservation] = None
    return {name: tuple(h) for name, h in homes.items()}


def reservation_levels(taskset: TaskSet, reservation: str) -> dict[str, int]:
    """Task name -> its ceiling-protocol level inside ``reservation`` (a leaf): its priority (FP),
    else its preemption level among the reservation's tasks (EDF; shorter deadline, higher)."""
    tasks = taskset.tasks_in(reservation)
    if taskset.reservation(reservation).scheduler == "FP":
        return {t.name: t.priority or 0 for t in tasks}
    deadlines = sorted({t.deadline_ns for t in tasks}, reverse=True)
    rank = {d: i + 1 for i, d in enumerate(deadlines)}
    return {t.name: rank[t.deadline_ns] for t in tasks}


def reservation_ceiling(taskset: TaskSet, resource: str, reservation: str) -> int:
    """The ceiling of a resource local to ``reservation``: the highest level of its users there."""
    levels = reservation_levels(taskset, reservation)
    return max((levels[t.name] for t in taskset.tasks_in(reservation) if resource in t.resources_used()),
               default=0)

"""Ceilings, partitions and levels of the ceiling protocols, from the task set.

rts_mutex's ceiling protocols (docs/ceiling.md) need, per lock, a ceiling and
(local protocols) the CPU it belongs to, and per thread a *level*. The task
set says which tasks lock which resource, so all of it is computed here:

- **Level** of a task: its SCHED_FIFO priority under P-FP; under P-EDF its
  SRP preemption level, the rank of its relative deadline among the set's
  real-time tasks (the longest deadline is level 1, each shorter distinct
  deadline one more; equal deadlines share a level). Baker's condition:
  a shorter deadline gives a higher level.
- **pcp, srp, ipcp** (local): ceiling = the highest level of the tasks that
  lock the resource; the lock belongs to the one CPU of their partition.
- **mpcp** (global) deferred: the ceiling is the gcs priority. MPCP gives a
  holder on partition p the highest priority of the users on the other
  partitions; rts_mutex takes one ceiling per lock, so it gets the largest
  of these over the partitions of its users, which is the highest priority
  of any user (of all users when they are all on one partition). It orders
  the boosted holders of one partition and is never below a user's priority
  (the library refuses a lock by a thread above the ceiling).
- **fmlp+** deferred: no ceiling (0): boosted holders are ordered by request
  time.
- **eager mpcp / fmlp+**: the ceiling is the SCHED_FIFO priority the holder
  is raised to, which must be above every base priority of its partition.
  With H the highest priority of the real-time tasks on the partitions that
  use an eager global resource: fmlp+ holders get H + 1, mpcp holders
  H + the rank of the lock's gcs priority among the eager mpcp locks' (1 for
  the lowest). All must fit in 1..99; ``ceiling_problems`` says when not.

A ceiling given in the file replaces the computed one, once checked.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from rtsched.model.model import GLOBAL_PROTOCOLS, LOCAL_PROTOCOLS, Lock, Resource, Task, TaskSet

__all__ = [
    "FIFO_MAX",
    "LEVEL_MAX",
    "LockSetting",
    "ceiling_problems",
    "lock_levels",
    "lock_settings",
    "partition_cpus",
    "preemption_levels",
]

FIFO_MAX = 99
#: RTS_LOCK_MAX_LEVEL in <rtsched/mutex.h>.
LEVEL_MAX = 65535

_ALLOWED_SCHEDULERS = {
    "pcp": ("P-FP",),
    "ipcp": ("P-FP",),
    "mpcp": ("P-FP",),
    "fmlp+": ("P-FP",),
    "srp": ("P-FP", "P-EDF"),
}


@dataclass(frozen=True, slots=True)
class LockSetting:
    """What rts_mutex needs for one ceiling-protocol resource.

    ``ceiling``: the value for rts_mutexattr_setceiling (0: none, fmlp+
    deferred). ``partition`` / ``cpu``: local protocols, the users'
    partition and its CPU (None for global ones). ``computed``: False when
    the file gave the ceiling. ``users``: the tasks that lock it.
    """

    resource: str
    protocol: str
    variant: str
    ceiling: int
    partition: str | None
    cpu: int | None
    computed: bool
    users: tuple[str, ...]


def partition_cpus(taskset: TaskSet, partition: str) -> tuple[int, ...]:
    """The CPUs of a partition: the file's, or N for the default partition ``cpuN``."""
    if taskset.platform.partitions is not None:
        for p in taskset.platform.partitions:
            if p.name == partition:
                return p.cpus
        raise KeyError(partition)
    match = re.fullmatch(r"cpu(\d+)", partition)
    if match is None:
        raise KeyError(partition)
    return (int(match.group(1)),)


def _partition(task: Task) -> str:
    """The partition of a task that locks a ceiling-protocol resource. Invariant: it has one, as
    these protocols run only under partitioned schedulers, which require it (validate.py)."""
    if task.partition is None:
        raise ValueError(f'task "{task.name}" locks a ceiling-protocol resource but has no partition')
    return task.partition


def preemption_levels(taskset: TaskSet) -> dict[str, int]:
    """Task name -> SRP preemption level by relative deadline (shorter: higher), real-time tasks only."""
    deadlines = sorted({t.deadline_ns for t in taskset.rt_tasks}, reverse=True)
    rank = {d: i + 1 for i, d in enumerate(deadlines)}
    return {t.name: rank[t.deadline_ns] for t in taskset.rt_tasks}


def lock_levels(taskset: TaskSet) -> dict[str, int]:
    """Task name -> its level for the ceiling protocols: priority (FP) or preemption level (EDF)."""
    if taskset.platform.is_edf:
        return preemption_levels(taskset)
    return {t.name: t.priority for t in taskset.rt_tasks if t.priority is not None}


def _users_by_resource(taskset: TaskSet) -> dict[str, list[Task]]:
    """Resource name -> the tasks whose body locks it, in file order; built once per call of the
    public functions below, so that they stay linear in the set's size (a lookup per resource
    over every task was quadratic: 20,000 tasks and 2,000 resources took minutes)."""
    users: dict[str, list[Task]] = {r.name: [] for r in taskset.resources}
    for t in taskset.tasks:
        locked = {a.resource for a in t.body if isinstance(a, Lock)}
        for name in locked:
            users.setdefault(name, []).append(t)
    return users


def _base_priority_max(taskset: TaskSet, partitions: Collection[str]) -> int:
    return max((t.priority for t in taskset.rt_tasks if t.partition in partitions and t.priority), default=0)


def _eager_global(taskset: TaskSet) -> list[Resource]:
    return [r for r in taskset.resources if r.protocol in GLOBAL_PROTOCOLS and r.variant == "eager"]


def _eager_boost_base(taskset: TaskSet, users: dict[str, list[Task]]) -> int:
    """H: the highest priority on the partitions that use an eager global resource."""
    parts = {_partition(t) for r in _eager_global(taskset) for t in users[r.name]}
    return _base_priority_max(taskset, parts)


def _highest_level(users: dict[str, list[Task]], resource: Resource, levels: dict[str, int]) -> int:
    """The highest level of the (real-time) tasks that lock ``resource``; also MPCP's gcs priority."""
    return max((levels[t.name] for t in users[resource.name] if t.name in levels), default=0)


class _EagerRanks:
    """What every eager global resource's computed ceiling needs, computed once per task set:
    H (``base``) and the sorted gcs priorities of the eager mpcp resources."""

    def __init__(self, taskset: TaskSet, users: dict[str, list[Task]], levels: dict[str, int]) -> None:
        self.base = _eager_boost_base(taskset, users)
        self.gcs = sorted({_highest_level(users, r, levels) for r in _eager_global(taskset) if r.protocol == "mpcp"})


def _computed(resource: Resource, users: dict[str, list[Task]], levels: dict[str, int],
              ranks: _EagerRanks | None) -> int:
    """The computed ceiling; ``ranks`` is the set's, not None when it has an eager global resource."""
    highest = _highest_level(users, resource, levels)
    if resource.protocol in LOCAL_PROTOCOLS:
        return highest
    if resource.variant == "deferred":
        return highest if resource.protocol == "mpcp" else 0
    assert ranks is not None, "an eager global resource makes the set's ranks"
    if resource.protocol == "fmlp+":
        return ranks.base + 1
    return ranks.base + 1 + ranks.gcs.index(highest)  # H + rank, rank 1 for the lowest gcs priority


def _eager_ranks(taskset: TaskSet, users: dict[str, list[Task]], levels: dict[str, int]) -> _EagerRanks | None:
    return _EagerRanks(taskset, users, levels) if _eager_global(taskset) else None


def ceiling_problems(taskset: TaskSet) -> list[tuple[str, str]]:
    """(path, message) for every rule of the ceiling protocols the set breaks (docs/taskset.md)."""
    problems: list[tuple[str, str]] = []
    sched = taskset.platform.scheduler
    levels = lock_levels(taskset)
    what_level = "preemption level" if taskset.platform.is_edf else "priority"
    task_index = {t.name: k for k, t in enumerate(taskset.tasks)}
    lockers = _users_by_resource(taskset)
    eager = _eager_ranks(taskset, lockers, levels)
    for i, r in enumerate(taskset.resources):
        path = f"resources[{i}]"
        if not r.is_ceiling:
            continue
        allowed = _ALLOWED_SCHEDULERS[r.protocol]
        if sched not in allowed:
            problems.append((
                f"{path}.protocol",
                f'"{r.protocol}" needs scheduler {" or ".join(allowed)}, not {sched} (the ceiling protocols '
                "work per one-CPU partition: pcp, ipcp, mpcp, fmlp+ under P-FP; srp under P-FP or P-EDF "
                "with preemption levels from relative deadlines)",
            ))
            continue
        if r.variant == "eager" and r.protocol == "pcp":
            problems.append((f"{path}.variant", "pcp has no eager form (it changes no priority on the "
                             "uncontended path in any implementation): remove variant or write deferred"))
        if r.variant == "eager" and taskset.platform.is_edf:
            problems.append((f"{path}.variant", "the eager form raises a SCHED_FIFO priority at lock: not "
                             f"under {sched} (SCHED_DEADLINE tasks); remove variant or write deferred"))
        if r.protocol == "fmlp+" and r.variant == "deferred" and r.ceiling is not None:
            problems.append((f"{path}.ceiling", "fmlp+ deferred uses no ceiling (boosted holders are "
                             "ordered by request time): remove it"))
        users = lockers[r.name]
        if not users:
            problems.append((path, f'no task locks "{r.name}": a {r.protocol} lock takes its ceiling'
                             + (" and CPU" if r.protocol in LOCAL_PROTOCOLS else "")
                             + " from the tasks that use it; remove it or use it"))
            continue
        for t in users:
            if t.is_background:
                problems.append((f"tasks[{task_index[t.name]}]", f'task "{t.name}" (policy other) locks '
                                 f'"{r.name}" ({r.protocol}): ceiling protocols need real-time tasks, '
                                 "which have a level"))
        users = [t for t in users if not t.is_background]
        multi = [t for t in users if len(partition_cpus(taskset, _partition(t))) != 1]
        if multi:
            t = multi[0]
            problems.append((path, f'"{r.name}" ({r.protocol}) is used by task "{t.name}" on partition '
                             f'"{t.partition}", which has {len(partition_cpus(taskset, _partition(t)))} CPUs: '
                             "the ceiling protocols need one-CPU partitions"))
            continue
        parts = sorted({_partition(t) for t in users})
        if r.protocol in LOCAL_PROTOCOLS and len(parts) > 1:
            listed = ", ".join(f'"{t.name}" ({t.partition})' for t in users)
            problems.append((path, f'"{r.name}" ({r.protocol}) is local to one CPU but tasks on different '
                             f"partitions use it: {listed}; use mpcp or fmlp+ for a resource shared "
                             "across partitions"))
            continue
        if not users:
            continue
        limit = LEVEL_MAX if taskset.platform.is_edf else FIFO_MAX
        if r.ceiling is not None:
            top = max(users, key=lambda t: levels[t.name])
            if r.ceiling > limit:
                problems.append((f"{path}.ceiling", f"must be in 1..{limit} under {sched}, got {r.ceiling}"))
            elif r.ceiling < levels[top.name]:
                problems.append((f"{path}.ceiling", f'ceiling {r.ceiling} is below the {what_level} '
                                 f'{levels[top.name]} of task "{top.name}", which locks "{r.name}": the '
                                 f"ceiling must be at least the highest {what_level} of its users"))
            elif r.protocol in GLOBAL_PROTOCOLS and r.variant == "eager":
                local = _base_priority_max(taskset, set(parts))
                if r.ceiling <= local:
                    problems.append((f"{path}.ceiling", f"eager {r.protocol} raises the holder to its "
                                     f"ceiling, which must be above every base priority of the partitions "
                                     f"{', '.join(parts)} (highest {local}), got {r.ceiling}"))
        elif r.protocol in GLOBAL_PROTOCOLS and r.variant == "eager":
            ceiling = _computed(r, lockers, levels, eager)
            if ceiling > FIFO_MAX:
                problems.append((path, f"eager {r.protocol}: the boost priority {ceiling} (above every "
                                 f"base priority, highest {eager.base if eager else 0}, of the partitions "
                                 f"using eager global resources) does not fit in 1..{FIFO_MAX}: lower the "
                                 "tasks' priorities or use the deferred variant"))
    for j, c in enumerate(taskset.condvars):
        try:
            mutex = taskset.resource(c.mutex)
        except KeyError:
            continue
        if mutex.is_ceiling:
            problems.append((f"condvars[{j}].mutex", f'"{mutex.name}" is a {mutex.protocol} resource: '
                             "condition variables need a none or pip mutex"))
    return problems


def lock_settings(taskset: TaskSet) -> dict[str, LockSetting]:
    """Resource name -> its LockSetting, for the ceiling-protocol resources of a valid set."""
    levels = lock_levels(taskset)
    lockers = _users_by_resource(taskset)
    eager = _eager_ranks(taskset, lockers, levels)
    out: dict[str, LockSetting] = {}
    for r in taskset.resources:
        if not r.is_ceiling:
            continue
        users = [t for t in lockers[r.name] if not t.is_background]
        partition = cpu = None
        if r.protocol in LOCAL_PROTOCOLS and users:
            partition = _partition(users[0])
            cpu = partition_cpus(taskset, partition)[0]
        ceiling = r.ceiling if r.ceiling is not None else _computed(r, lockers, levels, eager)
        out[r.name] = LockSetting(
            resource=r.name,
            protocol=r.protocol,
            variant=r.variant or "deferred",
            ceiling=ceiling,
            partition=partition,
            cpu=cpu,
            computed=r.ceiling is None,
            users=tuple(t.name for t in users),
        )
    return out

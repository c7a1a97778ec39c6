"""Where each thread of a task set may run, once the machine's CPUs are known.

A file may leave its CPUs out (``platform.cpus``: every online CPU) and its
partitions too (one per CPU under a partitioned scheduler), so a task's CPUs
are known only against a machine. ``place`` works them out; the runner's
input (``to_runner_input``) and the report (which counts events recorded
outside a thread's CPUs) both read them from here.

    placement = place(taskset, cpus_online=(0, 1))
    placement.cpus_of("control")    # (1,)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rtsched.model.model import Affinity, Partition, Platform, TaskSet

__all__ = ["Placement", "place", "placement_problems", "platform_cpus", "platform_cpus_given"]


@dataclass(frozen=True)
class Placement:
    """The set's CPUs, its partitions and the CPUs of each task and server (by name).

    Invariant: every thread's CPUs are a non-empty subset of ``cpus``, except a
    thread whose partition does not exist on the machine, which has none (the
    resolver reports it as an error). ``threads`` are the CPUs a thread starts
    on; ``visited`` the CPUs of each task whose ``affinity`` actions move it:
    its own and those (it runs on each in turn; ``cpus_visited``).
    """

    cpus: tuple[int, ...]
    partitions: tuple[Partition, ...]
    threads: dict[str, tuple[int, ...]]
    visited: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def cpus_of(self, name: str) -> tuple[int, ...]:
        """The CPUs of the task or server ``name`` (KeyError: no such thread)."""
        return self.threads[name]

    def cpus_visited(self, name: str) -> tuple[int, ...] | None:
        """The CPUs the thread ``name`` may run on over the run, its events' (None: no such thread)."""
        return self.visited.get(name, self.threads.get(name))


def platform_cpus(taskset: TaskSet, cpus_online: tuple[int, ...]) -> tuple[int, ...]:
    """The set's CPUs: ``platform.cpus``, else the union of its partitions, else every online CPU."""
    platform = taskset.platform
    if platform.cpus is not None:
        return platform.cpus
    if platform.is_partitioned and platform.partitions is not None:
        return tuple(sorted({c for p in platform.partitions for c in p.cpus}))
    return cpus_online


def platform_cpus_given(platform: Platform) -> tuple[int, ...] | None:
    """The set's CPUs when the file gives them (``platform.cpus`` or its partitions), else None: every
    online CPU, known only against a machine."""
    if platform.cpus is not None:
        return platform.cpus
    if platform.is_partitioned and platform.partitions:
        return tuple(sorted({c for p in platform.partitions for c in p.cpus}))
    return None


def place(taskset: TaskSet, cpus_online: tuple[int, ...]) -> Placement:
    """The placement of ``taskset`` on a machine whose online CPUs are ``cpus_online``."""
    cpus = platform_cpus(taskset, cpus_online)
    partitions = taskset.platform.partitions_for(cpus)
    by_name = {p.name: p.cpus for p in partitions}
    threads: dict[str, tuple[int, ...]] = {}
    named: list[tuple[str, str | None]] = [(t.name, t.partition) for t in taskset.tasks]
    named += [(s.name, s.partition) for s in taskset.servers]
    for name, partition in named:
        threads[name] = cpus if partition is None else by_name.get(partition, ())
    visited: dict[str, tuple[int, ...]] = {}
    for task in taskset.tasks:  # a task that changes its CPUs (affinity) runs on each of them in turn
        moved = {c for a in task.body if isinstance(a, Affinity) for c in a.cpus if c in cpus}
        if moved and threads[task.name]:
            visited[task.name] = tuple(sorted(set(threads[task.name]) | moved))
    return Placement(cpus=cpus, partitions=partitions, threads=threads, visited=visited)


def placement_problems(taskset: TaskSet, placement: Placement) -> list[str]:
    """``path: message`` for each task, server and top-level reservation whose partition does not
    exist on the machine ``placement`` was made for (``partition: cpu99`` on a 2-CPU machine)."""
    names = [p.name for p in placement.partitions]
    known = set(names)
    listed = ", ".join(names) or "none"
    named: list[tuple[str, str | None]] = [(f"tasks[{i}]", t.partition) for i, t in enumerate(taskset.tasks)]
    named += [(f"servers[{i}]", s.partition) for i, s in enumerate(taskset.servers)]
    named += [(f"reservations[{i}]", r.partition) for i, r in enumerate(taskset.reservations)]
    problems = [f'{path}.partition: "{partition}" does not exist on this machine (partitions: {listed})'
                for path, partition in named if partition is not None and partition not in known]
    cpus = ", ".join(map(str, placement.cpus))
    for i, task in enumerate(taskset.tasks):  # rt-app too refuses a CPU the machine does not have
        for j, action in enumerate(task.body):
            outside = [cpu for cpu in action.cpus if cpu not in placement.cpus] if isinstance(action, Affinity) else []
            if outside:
                problems.append(f'tasks[{i}].body[{j}].affinity: task "{task.name}": CPU {outside[0]} does not '
                                f"exist on this machine (the set's CPUs: {cpus})")
    return problems

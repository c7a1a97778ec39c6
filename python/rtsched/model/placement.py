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

from dataclasses import dataclass

from rtsched.model.model import Partition, TaskSet

__all__ = ["Placement", "place", "placement_problems", "platform_cpus"]


@dataclass(frozen=True)
class Placement:
    """The set's CPUs, its partitions and the CPUs of each task and server (by name).

    Invariant: every thread's CPUs are a non-empty subset of ``cpus``, except a
    thread whose partition does not exist on the machine, which has none (the
    resolver reports it as an error).
    """

    cpus: tuple[int, ...]
    partitions: tuple[Partition, ...]
    threads: dict[str, tuple[int, ...]]

    def cpus_of(self, name: str) -> tuple[int, ...]:
        """The CPUs of the task or server ``name`` (KeyError: no such thread)."""
        return self.threads[name]


def platform_cpus(taskset: TaskSet, cpus_online: tuple[int, ...]) -> tuple[int, ...]:
    """The set's CPUs: ``platform.cpus``, else the union of its partitions, else every online CPU."""
    platform = taskset.platform
    if platform.cpus is not None:
        return platform.cpus
    if platform.is_partitioned and platform.partitions is not None:
        return tuple(sorted({c for p in platform.partitions for c in p.cpus}))
    return cpus_online


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
    return Placement(cpus=cpus, partitions=partitions, threads=threads)


def placement_problems(taskset: TaskSet, placement: Placement) -> list[str]:
    """``path: message`` for each task, server and top-level reservation whose partition does not
    exist on the machine ``placement`` was made for (``partition: cpu99`` on a 2-CPU machine)."""
    names = [p.name for p in placement.partitions]
    known = set(names)
    listed = ", ".join(names) or "none"
    named: list[tuple[str, str | None]] = [(f"tasks[{i}]", t.partition) for i, t in enumerate(taskset.tasks)]
    named += [(f"servers[{i}]", s.partition) for i, s in enumerate(taskset.servers)]
    named += [(f"reservations[{i}]", r.partition) for i, r in enumerate(taskset.reservations)]
    return [f'{path}.partition: "{partition}" does not exist on this machine (partitions: {listed})'
            for path, partition in named if partition is not None and partition not in known]

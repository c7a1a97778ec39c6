"""The ult backend from a task set's point of view (docs/ult.md, docs/taskset.md "Backend").

``platform: {backend: ult}`` runs the tasks as user-level threads of the
library's scheduler instead of kernel threads. Two things live here:

- ``ult_problems``: what the file asks and the ult backend does not do yet,
  as (path, message) pairs for the validator (background tasks under EDF,
  clusters it cannot form); every lock protocol and condition variables
  run, the user-level scheduler applying inheritance and ceilings itself,
  RPC servers run as ULTs (service tasks) that their clients lend their
  priority to, and ``iowrite`` runs its ``write(2)`` in the task's proxy
  thread, which blocks only the task (docs/ult.md);
- ``ult_backend_name`` / ``ult_cpus``: the name ``rts_taskset_set_backend``
  takes for the set's scheduler (P-FP -> ``ult:pfp``, C-EDF with clusters of
  2 CPUs -> ``ult:cedf:2``, ...) and the CPUs the runner gives the backend.

The ult backend cuts its CPUs, in ascending order, into clusters of C
consecutive CPUs; so a set's partitions must be exactly those runs.
"""

from __future__ import annotations

from rtsched.model.model import Partition, Platform, TaskSet

__all__ = ["NOT_YET", "ult_backend_name", "ult_cpus", "ult_problems"]

NOT_YET = "not under the ult backend yet (docs/ult.md)"


def ult_cpus(platform: Platform, cpus: tuple[int, ...], partitions: tuple[Partition, ...]) -> tuple[int, ...]:
    """The CPUs the ult backend splits: the partitions' CPUs (partitioned), else the set's."""
    if platform.is_partitioned:
        return tuple(sorted({c for p in partitions for c in p.cpus}))
    return tuple(sorted(cpus))


def ult_backend_name(platform: Platform, partitions: tuple[Partition, ...]) -> str:
    """The ult form for the scheduler; partitions must pass ``cluster_problems`` first."""
    kind = "fp" if platform.is_fp else "edf"
    if not platform.is_partitioned:
        return f"ult:g{kind}"
    size = len(partitions[0].cpus) if partitions else 1
    return f"ult:p{kind}" if size == 1 else f"ult:c{kind}:{size}"


def cluster_problems(partitions: tuple[Partition, ...]) -> list[tuple[str, str]]:
    """Partitions the ult backend cannot form as its clusters (one size, consecutive CPUs)."""
    sizes = sorted({len(p.cpus) for p in partitions})
    if len(sizes) > 1:
        listed = ", ".join(f'"{p.name}" {len(p.cpus)}' for p in partitions)
        return [("platform.partitions",
                 f"the ult backend makes clusters of one size (ult:cedf:C, ult:cfp:C); these "
                 f"partitions have {listed} CPUs: give every partition the same number of CPUs, "
                 "or use backend: threads")]
    size = sizes[0] if sizes else 1
    ordered = sorted({c for p in partitions for c in p.cpus})
    runs = [ordered[k:k + size] for k in range(0, len(ordered), size)]
    problems = []
    for i, p in enumerate(partitions):
        if sorted(p.cpus) not in runs:
            problems.append((
                f"platform.partitions[{i}].cpus",
                f'the ult backend makes each cluster of {size} consecutive CPUs of {ordered} in '
                f'ascending order ({", ".join(map(str, runs))}); partition "{p.name}" holds '
                f"{list(p.cpus)}: group the CPUs that way",
            ))
    return problems


def ult_problems(taskset: TaskSet) -> list[tuple[str, str]]:
    """(path, message) for each feature of ``taskset`` the ult backend refuses today."""
    platform = taskset.platform
    if platform.backend != "ult":
        return []
    problems: list[tuple[str, str]] = []
    for i, task in enumerate(taskset.tasks):
        path = f"tasks[{i}]"
        if task.is_background and platform.is_edf:
            problems.append((f"{path}.policy", f'background tasks (policy {task.policy}) under {platform.scheduler} are '
                             f"{NOT_YET}: the ult backend's EDF forms order every task by its deadline; use an "
                             "FP scheduler, where they run below every priority, or backend: threads"))
    if platform.is_partitioned and platform.partitions is not None:
        problems += cluster_problems(platform.partitions)
    return problems

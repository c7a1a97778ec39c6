"""The ``platform`` mapping: scheduler (a clustered name is its partitioned run), backend,
CPUs, partitions (disjoint, inside the CPUs; one per CPU by default under a partitioned
scheduler), DVFS levels."""

from __future__ import annotations

from typing import Any, cast

from rtsched.model.dvfs_format import read_dvfs
from rtsched.model.model import CLUSTERED_SCHEDULERS, PARTITIONED_SCHEDULERS, Partition, Platform, Scheduler
from rtsched.model.validation.checker import Checker, Names
from rtsched.model.validation.fields import PARTITION, PARTITIONS, PLATFORM

__all__ = ["read_platform"]


def read_platform(c: Checker, value: Any) -> Platform | None:
    data = c.mapping(value, "platform")
    if data is None:
        return None
    c.format_keys(data, PLATFORM, "platform")
    scheduler, clustered = _scheduler(c, data)
    if "clusters" in data:
        c.read(data, PLATFORM, "clusters", "platform")
    backend: str | None = "threads"
    if "backend" in data:
        backend = c.read(data, PLATFORM, "backend", "platform")
    cpus = c.read(data, PLATFORM, "cpus", "platform") if "cpus" in data else None
    partitions: tuple[Partition, ...] | None = ()
    if "partitions" in data:
        if scheduler is not None and scheduler not in PARTITIONED_SCHEDULERS:
            c.error(
                "platform.partitions",
                f"only for partitioned schedulers (P-FP, P-EDF), not {scheduler}",
            )
        partitions = _partitions(c, data["partitions"], cpus)
    elif scheduler in PARTITIONED_SCHEDULERS:
        partitions = (
            tuple(Partition(f"cpu{cpu}", (cpu,)) for cpu in cpus) if cpus is not None else None
        )
    dvfs = read_dvfs(data["dvfs"], "platform.dvfs", c.error) if "dvfs" in data else None
    if scheduler is None or backend is None:
        return None
    return Platform(scheduler=cast(Scheduler, scheduler), cpus=cpus, partitions=partitions,
                    clustered=clustered, backend=backend, dvfs=dvfs)


def _scheduler(c: Checker, data: dict[str, Any]) -> tuple[str | None, bool]:
    """(scheduler, clustered): a clustered name (C-FP, C-EDF) is its partitioned scheduler."""
    if "scheduler" not in data:
        return None, False
    named = data["scheduler"]
    if isinstance(named, str) and named in CLUSTERED_SCHEDULERS:
        return CLUSTERED_SCHEDULERS[named], True
    return c.read(data, PLATFORM, "scheduler", "platform"), False


def _partitions(c: Checker, value: Any, cpus: tuple[int, ...] | None) -> tuple[Partition, ...] | None:
    items = PARTITIONS.read(c, value, "platform.partitions")
    if items is None:
        return None
    result: list[Partition] = []
    owner: dict[int, str] = {}
    names: Names = []
    for i, item in enumerate(items):
        path = f"platform.partitions[{i}]"
        data = c.mapping(item, path)
        if data is None:
            continue
        c.format_keys(data, PARTITION, path)
        name = c.read(data, PARTITION, "name", path) if "name" in data else None
        names.append((name, f"{path}.name"))
        pcpus = c.read(data, PARTITION, "cpus", path) if "cpus" in data else None
        if pcpus is None or name is None:
            continue
        for cpu in pcpus:
            if cpus is not None and cpu not in cpus:
                c.error(f"{path}.cpus", f"CPU {cpu} is not in platform.cpus {list(cpus)}")
            elif cpu in owner:
                c.error(
                    f"{path}.cpus",
                    f'CPU {cpu} is already in partition "{owner[cpu]}": partitions are disjoint',
                )
            else:
                owner[cpu] = name
        result.append(Partition(name, pcpus))
    c.unique(names, "partition")
    return tuple(result)

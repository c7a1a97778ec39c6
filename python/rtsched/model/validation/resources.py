"""The ``resources`` list (locks: a protocol, a ceiling protocol's variant and ceiling, a
distributed protocol's synchronisation partition) and the ``condvars`` list (each always
used with one resource)."""

from __future__ import annotations

from typing import Any

from rtsched.model.model import ALL_CEILING_PROTOCOLS, DISTRIBUTED_PROTOCOLS, CondVar, Platform, Resource
from rtsched.model.validation.checker import Checker, Names
from rtsched.model.validation.fields import CONDVAR, CONDVARS, RESOURCE, RESOURCES

__all__ = ["read_resources", "read_condvars"]


def read_resources(c: Checker, value: Any, platform: Platform | None) -> dict[str, Resource]:
    items = RESOURCES.read(c, value, "resources")
    result: dict[str, Resource] = {}
    if items is None:
        return result
    names: Names = []
    for i, item in enumerate(items):
        path = f"resources[{i}]"
        data = c.mapping(item, path)
        if data is None:
            continue
        c.format_keys(data, RESOURCE, path)
        name = c.read(data, RESOURCE, "name", path) if "name" in data else None
        names.append((name, f"{path}.name"))
        protocol: str | None = "pip"
        if "protocol" in data:
            protocol = c.read(data, RESOURCE, "protocol", path)
        variant, ceiling, ok = _ceiling_keys(c, data, path, protocol)
        sync, sync_ok = _sync_partition(c, data, path, protocol, platform)
        if name is not None and protocol is not None and ok and sync_ok and name not in result:
            result[name] = Resource(name, protocol, variant, ceiling, sync)
        elif name is not None and name not in result:
            c.invalid_names.add(name)
    c.unique(names, "resource")
    return result


def _sync_partition(c: Checker, data: dict[str, Any], path: str, protocol: str | None,
                    platform: Platform | None) -> tuple[str | None, bool]:
    """(sync_partition, ok) of a resource: dpcp and dflp only, under P-FP, a partition of the platform."""
    if protocol not in DISTRIBUTED_PROTOCOLS:
        if "sync_partition" in data:
            c.error(f"{path}.sync_partition", f'only for dpcp and dflp, not "{protocol}"')
            return None, False
        return None, True
    if platform is not None and platform.scheduler != "P-FP":
        c.error(f"{path}.protocol", f'"{protocol}" needs scheduler P-FP, not {platform.policy} (its agents '
                "run on a partition's processor above every task there)")
        return None, False
    if "sync_partition" not in data or platform is None:
        return None, True
    sync = c.partition_ref(data["sync_partition"], f"{path}.sync_partition", platform)
    return sync, sync is not None


def _ceiling_keys(
    c: Checker, data: dict[str, Any], path: str, protocol: str | None
) -> tuple[str | None, int | None, bool]:
    """(variant, ceiling, ok) of a resource: ceiling protocols only; variant defaults to deferred."""
    if protocol is None:
        return None, None, False
    if protocol not in ALL_CEILING_PROTOCOLS:
        for key in ("variant", "ceiling"):
            if key in data:
                c.error(f"{path}.{key}", f"only for the ceiling protocols ({', '.join(sorted(ALL_CEILING_PROTOCOLS))}), "
                        f'not "{protocol}"')
        return None, None, not ("variant" in data or "ceiling" in data)
    variant: str | None = "deferred"
    if "variant" in data:
        variant = c.read(data, RESOURCE, "variant", path)
    ceiling = None
    if "ceiling" in data:
        ceiling = c.read(data, RESOURCE, "ceiling", path)
    ok = variant is not None and ("ceiling" not in data or ceiling is not None)
    return variant, ceiling, ok


def read_condvars(c: Checker, value: Any, resources: dict[str, Resource]) -> dict[str, CondVar]:
    items = CONDVARS.read(c, value, "condvars")
    result: dict[str, CondVar] = {}
    if items is None:
        return result
    names: Names = []
    for i, item in enumerate(items):
        path = f"condvars[{i}]"
        data = c.mapping(item, path)
        if data is None:
            continue
        c.format_keys(data, CONDVAR, path)
        name = c.read(data, CONDVAR, "name", path) if "name" in data else None
        names.append((name, f"{path}.name"))
        mutex = None
        if "mutex" in data:
            mutex = c.reference(data["mutex"], f"{path}.mutex", resources, "resource")
        if name is not None and mutex is not None and name not in result:
            result[name] = CondVar(name, mutex)
        elif name is not None and name not in result:
            c.invalid_names.add(name)
    c.unique(names, "condvar")
    return result

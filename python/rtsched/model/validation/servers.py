"""RPC servers: the ``servers`` list (SCHED_FIFO threads, so only under P-FP and G-FP), their
names apart from the tasks', and a body's ``call`` of one."""

from __future__ import annotations

from typing import Any

from rtsched.model.model import EDF_SCHEDULERS, FP_SCHEDULERS, Call, Platform, RpcServer, Task
from rtsched.model.validation.checker import Checker, Names
from rtsched.model.validation.fields import CALL, SERVER, SERVERS
from rtsched.model.values import describe

__all__ = ["read_servers", "servers_against_tasks", "read_call"]


def read_servers(c: Checker, value: Any, platform: Platform | None) -> dict[str, RpcServer]:
    items = SERVERS.read(c, value, "servers")
    result: dict[str, RpcServer] = {}
    if items is None:
        return result
    scheduler = platform.scheduler if platform is not None else None
    if items and scheduler in EDF_SCHEDULERS:
        c.error(
            "servers",
            f"a server is a SCHED_FIFO thread with a fixed priority: it needs P-FP or G-FP, "
            f"not {scheduler} (SCHED_DEADLINE has no priorities for a caller to lend)",
        )
    names: Names = []
    for i, item in enumerate(items):
        server = _server(c, item, f"servers[{i}]", platform, names)
        if server is not None and server.name not in result:
            result[server.name] = server
    c.unique(names, "server")
    return result


def _server(c: Checker, item: Any, path: str, platform: Platform | None, names: Names) -> RpcServer | None:
    data = c.mapping(item, path)
    if data is None:
        return None
    c.format_keys(data, SERVER, path)
    ok = "name" in data and "priority" in data
    name = c.read(data, SERVER, "name", path) if "name" in data else None
    names.append((name, f"{path}.name"))
    priority = c.read(data, SERVER, "priority", path) if "priority" in data else None
    service = None
    if "duration" in data:
        service = c.read(data, SERVER, "duration", path)
        ok = ok and service is not None
    capacity = None
    if "queue" in data:
        capacity = c.read(data, SERVER, "queue", path)
        ok = ok and capacity is not None
    scheduler = platform.scheduler if platform is not None else None
    partition = None
    if scheduler == "P-FP" and platform is not None:
        if "partition" in data:
            partition = c.partition_ref(data["partition"], f"{path}.partition", platform)
            ok = ok and partition is not None
        else:
            c.error(path, 'missing required key "partition" (required under P-FP)')
            ok = False
    elif "partition" in data and scheduler == "G-FP":
        c.error(
            f"{path}.partition",
            "not used under G-FP (global scheduling: the server runs on all platform CPUs): remove it",
        )
        ok = False
    if name is None or priority is None or not ok or scheduler not in FP_SCHEDULERS:
        if name is not None:
            c.invalid_names.add(name)
        return None
    return RpcServer(name, priority, partition, service, capacity)


def servers_against_tasks(c: Checker, servers: dict[str, RpcServer], tasks: list[Task]) -> None:
    """RPC server names apart from task names: they share the trace's stream table."""
    task_names = {t.name for t in tasks}
    for i, server in enumerate(servers.values()):
        if server.name in task_names:
            c.error(
                f"servers[{i}].name",
                f'"{server.name}" is also a task\'s name: servers and tasks need distinct names',
            )


def read_call(c: Checker, arg: Any, path: str, servers: dict[str, RpcServer]) -> Call | None:
    """``call: S`` (the server's duration) or ``call: {server: S, duration: 4.5ms}``."""
    if isinstance(arg, dict):
        c.format_keys(arg, CALL, path)
        if "server" not in arg:
            return None
        server = c.reference(arg["server"], f"{path}.server", servers, "server")
        service = c.read(arg, CALL, "duration", path) if "duration" in arg else None
        if "duration" in arg and service is None:
            return None
    elif isinstance(arg, str):
        server = c.reference(arg, path, servers, "server")
        service = None
    else:
        c.error(
            path,
            f"expected a server's name or {{server: NAME, duration: TIME}}, got {describe(arg)}",
        )
        return None
    if server is None:
        return None
    if service is None:
        service = servers[server].service_ns
        if service is None:
            c.error(
                path,
                f'server "{server}" gives no duration: write {{server: {server}, duration: 1ms}} '
                "or give the server a duration",
            )
            return None
    return Call(server, service)

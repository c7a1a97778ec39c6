"""Validation of a task set given as plain data (what YAML or JSON parsing gives).

One pass checks everything and builds the model. Every error is collected
with its path (``tasks[2].period: expected a duration, got "ten"``) and all
of them are raised together in a TaskSetError, never only the first one.
Unknown keys are errors, with a suggestion when a known key is close.

The key sets and enumerations below are the format; docs/taskset.schema.json
describes the same format and a test keeps the two in agreement.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any, cast

from rtsched.model.ceilings import LEVEL_MAX, ceiling_problems
from rtsched.model.demand_format import parse_compute, trace_job_limit
from rtsched.model.dvfs_format import read_dvfs
from rtsched.model.durations import DurationError, format_duration, parse_duration
from rtsched.model.reservations import RESERVATION_KEYS, read_reservations, reservation_problems, with_inherited
from rtsched.model.prem import parse_peripheral, parse_prem, prem_problems
from rtsched.model.stacks import parse_stack
from rtsched.model.ult import ult_problems
from rtsched.model.values import MAX_SHOWN, describe
from rtsched.model.writes import parse_write
from rtsched.model.model import (
    ACTIONS,
    ALL_CEILING_PROTOCOLS,
    BACKENDS,
    CLUSTERED_SCHEDULERS,
    DISTRIBUTED_PROTOCOLS,
    EDF_SCHEDULERS,
    FP_SCHEDULERS,
    PARTITIONED_SCHEDULERS,
    PROTOCOLS,
    SCHEDULERS,
    VARIANTS,
    Action,
    Broadcast,
    Call,
    Compute,
    CondVar,
    IoWrite,
    Lock,
    MemWrite,
    Partition,
    Platform,
    Policy,
    Reservation,
    Prem,
    Resource,
    RpcServer,
    Scheduler,
    Signal,
    Sleep,
    Sporadic,
    Task,
    TaskSet,
    Unlock,
    Wait,
)

__all__ = [
    "TaskSetError",
    "taskset_from_dict",
    "validate_dict",
    "whole_set_problems",
    "TOP_KEYS",
    "PLATFORM_KEYS",
    "PARTITION_KEYS",
    "RESOURCE_KEYS",
    "CONDVAR_KEYS",
    "SERVER_KEYS",
    "RESERVATION_KEYS",
    "CALL_KEYS",
    "TASK_KEYS",
    "SPORADIC_KEYS",
    "ACTION_NAMES",
    "KINDS",
    "POLICIES",
    "FUTURE_SCHEDULERS",
    "FUTURE_PROTOCOLS",
    "FUTURE_ACTIONS",
    "VARIANTS",
]

TOP_KEYS = frozenset({"name", "duration", "platform", "resources", "condvars", "servers", "reservations", "tasks"})
PLATFORM_KEYS = frozenset({"scheduler", "backend", "cpus", "partitions", "clusters", "dvfs"})
PARTITION_KEYS = frozenset({"name", "cpus"})
RESOURCE_KEYS = frozenset({"name", "protocol", "variant", "ceiling", "sync_partition"})
CONDVAR_KEYS = frozenset({"name", "mutex"})
SERVER_KEYS = frozenset({"name", "priority", "partition", "duration", "queue"})
CALL_KEYS = frozenset({"server", "duration"})
TASK_KEYS = frozenset(
    {
        "name",
        "kind",
        "period",
        "deadline",
        "offset",
        "wcet",
        "priority",
        "policy",
        "partition",
        "budget",
        "max_jobs",
        "sporadic",
        "body",
        "reservation",
        "peripheral",
        "stack",
    }
)
SPORADIC_KEYS = frozenset({"max_extra", "seed"})
ACTION_NAMES: tuple[str, ...] = tuple(ACTIONS)
KINDS = ("periodic", "sporadic")
POLICIES = ("fifo", "deadline", "other")

#: Recognised names that are refused, with what to say (later issues implement some).
FUTURE_SCHEDULERS: dict[str, str] = {}
FUTURE_PROTOCOLS = {
    "ceiling": 'write "ipcp" (immediate ceiling, the semantics of PTHREAD_PRIO_PROTECT)',
}
FUTURE_ACTIONS: dict[str, str] = {}

NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
#: Task, resource, condvar and partition names fit the trace's 32-byte name field.
MAX_NAME = 31
#: The task-set name fits the trace header's 64-byte field.
MAX_SET_NAME = 63
#: A server's queue capacity at most (<rtsched/rpc.h> RTS_RPC_CAPACITY_MAX).
MAX_QUEUE = 4096
#: A task's max_jobs at most (the runner's and the library's uint32_t job count).
MAX_JOBS = 2**32 - 1
#: SCHED_DEADLINE refuses a runtime below 1024 ns (kernel DL_SCALE).
DL_MIN_RUNTIME_NS = 1 << 10


def whole_set_problems(taskset: TaskSet) -> list[tuple[str, str]]:
    """(path, message) for each rule of the whole set ``taskset`` breaks: ceilings, what its
    backend runs (ult, reservations, PREM). Give it ``with_inherited(taskset)``; a set read from a
    file passed them, so they say what changes when the set is given another backend."""
    return ceiling_problems(taskset) + ult_problems(taskset) + reservation_problems(taskset) + prem_problems(taskset)

class TaskSetError(Exception):
    """An invalid task set (or file): ``errors`` lists every problem found, each with its path."""

    def __init__(self, errors: list[str], source: str | None = None):
        self.errors = list(errors)
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        prefix = f"{self.source}: " if self.source else ""
        return "\n".join(prefix + e for e in self.errors)


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean "x"?)`` when a choice is close to ``word``, else ``""``."""
    if not isinstance(word, str) or len(word) > MAX_SHOWN:  # difflib is quadratic in the length
        return ""
    lowered = {c.lower(): c for c in choices}
    if word.lower() in lowered:
        return f' (did you mean "{lowered[word.lower()]}"?)'
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""


class _Checker:
    def __init__(self, base_dir: Path | None = None) -> None:
        """``base_dir``: where relative paths in the set (demand traces) start; None: the current directory."""
        self.errors: list[str] = []
        self.base_dir = base_dir
        # Names declared but invalid (already reported): references to them are not errors again.
        self.invalid_names: set[str] = set()

    # -- reporting ---------------------------------------------------------

    def error(self, path: str, message: str) -> None:
        self.errors.append(f"{path or '(top level)'}: {message}")

    # -- generic shapes ----------------------------------------------------

    def mapping(self, value: Any, path: str) -> dict[str, Any] | None:
        if not isinstance(value, dict):
            self.error(path, f"expected a mapping, got {describe(value)}")
            return None
        return value

    def keys(
        self, data: dict[str, Any], allowed: Collection[str], path: str, required: tuple[str, ...] = ()
    ) -> None:
        for key in data:
            if key not in allowed:
                where = f"{path}.{key}" if path else str(key)
                self.error(where, "unknown key" + suggest(str(key), sorted(allowed)))
        for key in required:
            if key not in data:
                self.error(path, f'missing required key "{key}"')

    def list_of(self, value: Any, path: str, *, nonempty: bool = False) -> list[Any] | None:
        if not isinstance(value, list):
            self.error(path, f"expected a list, got {describe(value)}")
            return None
        if nonempty and not value:
            self.error(path, "must not be empty")
        return value

    def name(self, value: Any, path: str, *, limit: int = MAX_NAME) -> str | None:
        if not isinstance(value, str):
            self.error(path, f"expected a name (a string), got {describe(value)}")
            return None
        if not NAME_PATTERN.match(value):
            self.error(
                path,
                f"{describe(value)} is not a valid name (letters, digits, _ . -; "
                "starting with a letter or _)",
            )
            return None
        if len(value) > limit:
            self.error(path, f"{describe(value)} is longer than {limit} characters")
            return None
        return value

    def duration(self, value: Any, path: str, *, positive: bool = True) -> int | None:
        try:
            ns = parse_duration(value)
        except DurationError as e:
            self.error(path, str(e))
            return None
        if positive and ns <= 0:
            self.error(path, f"must be > 0, got {describe(value)}")
            return None
        return ns

    def integer(self, value: Any, path: str, lo: int | None = None, hi: int | None = None) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(path, f"expected an integer, got {describe(value)}")
            return None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            if hi is None:
                self.error(path, f"must be >= {lo}, got {describe(value)}")
            else:
                self.error(path, f"must be in {lo}..{hi}, got {describe(value)}")
            return None
        return value

    def cpu_list(self, value: Any, path: str) -> tuple[int, ...] | None:
        items = self.list_of(value, path, nonempty=True)
        if items is None or not items:
            return None
        cpus: list[int] = []
        ok = True
        for i, item in enumerate(items):
            cpu = self.integer(item, f"{path}[{i}]", 0)
            if cpu is None:
                ok = False
            elif cpu in cpus:
                self.error(f"{path}[{i}]", f"CPU {cpu} is listed twice")
                ok = False
            else:
                cpus.append(cpu)
        return tuple(cpus) if ok else None

    def enum(
        self, value: Any, path: str, choices: Collection[str], future: dict[str, str] | None = None
    ) -> str | None:
        future = future or {}
        if isinstance(value, str) and value in choices:
            return value
        if isinstance(value, str) and value in future:
            self.error(path, f"{describe(value)}: {future[value]}")
            return None
        allowed = ", ".join(choices)
        self.error(
            path,
            f"expected one of {allowed}, got {describe(value)}"
            + suggest(value, list(choices) + list(future)),
        )
        return None

    def unique(self, names: list[tuple[str | None, str]], what: str) -> None:
        seen: dict[str, str] = {}
        for name, path in names:
            if name is None:
                continue
            if name in seen:
                self.error(path, f'duplicate {what} name "{name}" (first at {seen[name]})')
            else:
                seen[name] = path

    # -- the format --------------------------------------------------------

    def taskset(self, data: Any) -> TaskSet | None:
        top = self.mapping(data, "")
        if top is None:
            return None
        self.keys(top, TOP_KEYS, "", required=("name", "platform", "tasks"))
        name = self.name(top["name"], "name", limit=MAX_SET_NAME) if "name" in top else None
        duration = self.duration(top["duration"], "duration") if "duration" in top else None
        platform = self.platform(top["platform"]) if "platform" in top else None
        resources = self.resources(top.get("resources", []), platform)
        condvars = self.condvars(top.get("condvars", []), resources)
        servers = self.servers(top.get("servers", []), platform)
        reservations = read_reservations(self, top.get("reservations", []), platform)
        tasks = (
            self.tasks(top["tasks"], platform, resources, condvars, servers, reservations)
            if "tasks" in top else None
        )
        if tasks is not None:
            self.servers_against_tasks(servers, tasks)
        if self.errors:
            return None
        assert name is not None and platform is not None and tasks is not None
        taskset = TaskSet(
            name=name,
            platform=platform,
            tasks=tuple(tasks),
            resources=tuple(resources.values()),
            condvars=tuple(condvars.values()),
            duration_ns=duration,
            servers=tuple(servers.values()),
            reservations=tuple(reservations.values()),
        )
        taskset = with_inherited(taskset)
        for path, message in whole_set_problems(taskset):
            self.error(path, message)
        return None if self.errors else taskset

    def platform(self, value: Any) -> Platform | None:
        data = self.mapping(value, "platform")
        if data is None:
            return None
        self.keys(data, PLATFORM_KEYS, "platform", required=("scheduler",))
        scheduler = None
        clustered = False
        if "scheduler" in data:
            named = data["scheduler"]
            if isinstance(named, str) and named in CLUSTERED_SCHEDULERS:
                scheduler, clustered = CLUSTERED_SCHEDULERS[named], True
            else:
                scheduler = self.enum(named, "platform.scheduler", SCHEDULERS + tuple(CLUSTERED_SCHEDULERS),
                                      FUTURE_SCHEDULERS)
        if "clusters" in data:
            self.error(
                "platform.clusters",
                "write the clusters as partitions: a partition of several CPUs is a cluster "
                "(scheduler C-EDF or C-FP, the same run as P-EDF or P-FP)",
            )
        backend: str | None = "threads"
        if "backend" in data:
            backend = self.enum(data["backend"], "platform.backend", BACKENDS)
        cpus = self.cpu_list(data["cpus"], "platform.cpus") if "cpus" in data else None
        partitions: tuple[Partition, ...] | None = ()
        if "partitions" in data:
            if scheduler is not None and scheduler not in PARTITIONED_SCHEDULERS:
                self.error(
                    "platform.partitions",
                    f"only for partitioned schedulers (P-FP, P-EDF), not {scheduler}",
                )
            partitions = self.partitions(data["partitions"], cpus)
        elif scheduler in PARTITIONED_SCHEDULERS:
            partitions = (
                tuple(Partition(f"cpu{c}", (c,)) for c in cpus) if cpus is not None else None
            )
        dvfs = read_dvfs(data["dvfs"], "platform.dvfs", self.error) if "dvfs" in data else None
        if scheduler is None or backend is None:
            return None
        return Platform(scheduler=cast(Scheduler, scheduler), cpus=cpus, partitions=partitions,
                        clustered=clustered, backend=backend, dvfs=dvfs)

    def partitions(self, value: Any, cpus: tuple[int, ...] | None) -> tuple[Partition, ...] | None:
        items = self.list_of(value, "platform.partitions", nonempty=True)
        if items is None:
            return None
        result: list[Partition] = []
        owner: dict[int, str] = {}
        names: list[tuple[str | None, str]] = []
        for i, item in enumerate(items):
            path = f"platform.partitions[{i}]"
            data = self.mapping(item, path)
            if data is None:
                continue
            self.keys(data, PARTITION_KEYS, path, required=("name", "cpus"))
            name = self.name(data["name"], f"{path}.name") if "name" in data else None
            names.append((name, f"{path}.name"))
            pcpus = self.cpu_list(data["cpus"], f"{path}.cpus") if "cpus" in data else None
            if pcpus is None or name is None:
                continue
            for cpu in pcpus:
                if cpus is not None and cpu not in cpus:
                    self.error(
                        f"{path}.cpus",
                        f"CPU {cpu} is not in platform.cpus {list(cpus)}",
                    )
                elif cpu in owner:
                    self.error(
                        f"{path}.cpus",
                        f'CPU {cpu} is already in partition "{owner[cpu]}": partitions are disjoint',
                    )
                else:
                    owner[cpu] = name
            result.append(Partition(name, pcpus))
        self.unique(names, "partition")
        return tuple(result)

    def resources(self, value: Any, platform: Platform | None) -> dict[str, Resource]:
        items = self.list_of(value, "resources")
        result: dict[str, Resource] = {}
        if items is None:
            return result
        names: list[tuple[str | None, str]] = []
        for i, item in enumerate(items):
            path = f"resources[{i}]"
            data = self.mapping(item, path)
            if data is None:
                continue
            self.keys(data, RESOURCE_KEYS, path, required=("name",))
            name = self.name(data["name"], f"{path}.name") if "name" in data else None
            names.append((name, f"{path}.name"))
            protocol: str | None = "pip"
            if "protocol" in data:
                protocol = self.enum(data["protocol"], f"{path}.protocol", PROTOCOLS, FUTURE_PROTOCOLS)
            variant, ceiling, ok = self.ceiling_keys(data, path, protocol)
            sync, sync_ok = self.sync_partition(data, path, protocol, platform)
            if name is not None and protocol is not None and ok and sync_ok and name not in result:
                result[name] = Resource(name, protocol, variant, ceiling, sync)
            elif name is not None and name not in result:
                self.invalid_names.add(name)
        self.unique(names, "resource")
        return result

    def sync_partition(self, data: dict[str, Any], path: str, protocol: str | None,
                       platform: Platform | None) -> tuple[str | None, bool]:
        """(sync_partition, ok) of a resource: dpcp and dflp only, under P-FP, a partition of the platform."""
        if protocol not in DISTRIBUTED_PROTOCOLS:
            if "sync_partition" in data:
                self.error(f"{path}.sync_partition", f'only for dpcp and dflp, not "{protocol}"')
                return None, False
            return None, True
        if platform is not None and platform.scheduler != "P-FP":
            self.error(f"{path}.protocol", f'"{protocol}" needs scheduler P-FP, not {platform.policy} (its agents '
                       "run on a partition's processor above every task there)")
            return None, False
        if "sync_partition" not in data or platform is None:
            return None, True
        sync = self.partition_ref(data["sync_partition"], f"{path}.sync_partition", platform)
        return sync, sync is not None

    def ceiling_keys(
        self, data: dict[str, Any], path: str, protocol: str | None
    ) -> tuple[str | None, int | None, bool]:
        """(variant, ceiling, ok) of a resource: ceiling protocols only; variant defaults to deferred."""
        if protocol is None:
            return None, None, False
        if protocol not in ALL_CEILING_PROTOCOLS:
            for key in ("variant", "ceiling"):
                if key in data:
                    self.error(f"{path}.{key}", f"only for the ceiling protocols ({', '.join(sorted(ALL_CEILING_PROTOCOLS))}), "
                               f'not "{protocol}"')
            return None, None, not ("variant" in data or "ceiling" in data)
        variant: str | None = "deferred"
        if "variant" in data:
            variant = self.enum(data["variant"], f"{path}.variant", VARIANTS)
        ceiling = None
        if "ceiling" in data:
            ceiling = self.integer(data["ceiling"], f"{path}.ceiling", 1, LEVEL_MAX)
        ok = variant is not None and ("ceiling" not in data or ceiling is not None)
        return variant, ceiling, ok

    def condvars(self, value: Any, resources: dict[str, Resource]) -> dict[str, CondVar]:
        items = self.list_of(value, "condvars")
        result: dict[str, CondVar] = {}
        if items is None:
            return result
        names: list[tuple[str | None, str]] = []
        for i, item in enumerate(items):
            path = f"condvars[{i}]"
            data = self.mapping(item, path)
            if data is None:
                continue
            self.keys(data, CONDVAR_KEYS, path, required=("name", "mutex"))
            name = self.name(data["name"], f"{path}.name") if "name" in data else None
            names.append((name, f"{path}.name"))
            mutex = None
            if "mutex" in data:
                mutex = self.reference(data["mutex"], f"{path}.mutex", resources, "resource")
            if name is not None and mutex is not None and name not in result:
                result[name] = CondVar(name, mutex)
            elif name is not None and name not in result:
                self.invalid_names.add(name)
        self.unique(names, "condvar")
        return result

    def servers(self, value: Any, platform: Platform | None) -> dict[str, RpcServer]:
        """RPC servers: SCHED_FIFO threads, so only under P-FP and G-FP."""
        items = self.list_of(value, "servers")
        result: dict[str, RpcServer] = {}
        if items is None:
            return result
        scheduler = platform.scheduler if platform is not None else None
        if items and scheduler in EDF_SCHEDULERS:
            self.error(
                "servers",
                f"a server is a SCHED_FIFO thread with a fixed priority: it needs P-FP or G-FP, "
                f"not {scheduler} (SCHED_DEADLINE has no priorities for a caller to lend)",
            )
        names: list[tuple[str | None, str]] = []
        for i, item in enumerate(items):
            path = f"servers[{i}]"
            data = self.mapping(item, path)
            if data is None:
                continue
            self.keys(data, SERVER_KEYS, path, required=("name", "priority"))
            ok = "name" in data and "priority" in data
            name = self.name(data["name"], f"{path}.name") if "name" in data else None
            names.append((name, f"{path}.name"))
            priority = None
            if "priority" in data:
                priority = self.integer(data["priority"], f"{path}.priority", 1, 99)
            service = None
            if "duration" in data:
                service = self.duration(data["duration"], f"{path}.duration")
                ok = ok and service is not None
            capacity = None
            if "queue" in data:
                capacity = self.integer(data["queue"], f"{path}.queue", 1, MAX_QUEUE)
                ok = ok and capacity is not None
            partition = None
            if scheduler == "P-FP" and platform is not None:
                if "partition" in data:
                    partition = self.partition_ref(data["partition"], f"{path}.partition", platform)
                    ok = ok and partition is not None
                else:
                    self.error(path, 'missing required key "partition" (required under P-FP)')
                    ok = False
            elif "partition" in data and scheduler == "G-FP":
                self.error(
                    f"{path}.partition",
                    "not used under G-FP (global scheduling: the server runs on all platform CPUs): remove it",
                )
                ok = False
            if name is None or priority is None or not ok or scheduler not in FP_SCHEDULERS:
                if name is not None:
                    self.invalid_names.add(name)
                continue
            if name not in result:
                result[name] = RpcServer(name, priority, partition, service, capacity)
        self.unique(names, "server")
        return result

    def servers_against_tasks(self, servers: dict[str, RpcServer], tasks: list[Task]) -> None:
        """RPC server names apart from task names: they share the trace's stream table."""
        task_names = {t.name for t in tasks}
        for i, server in enumerate(servers.values()):
            if server.name in task_names:
                self.error(
                    f"servers[{i}].name",
                    f'"{server.name}" is also a task\'s name: servers and tasks need distinct names',
                )

    def reference(self, value: Any, path: str, known: Collection[str], what: str) -> str | None:
        if not isinstance(value, str):
            self.error(path, f"expected the name of a {what}, got {describe(value)}")
            return None
        if value not in known and value in self.invalid_names:
            return None
        if value not in known:
            listed = ", ".join(f'"{k}"' for k in known) or "none are declared"
            self.error(
                path,
                f"unknown {what} {describe(value)}" + suggest(value, list(known)) + f" (known: {listed})",
            )
            return None
        return value

    def tasks(
        self,
        value: Any,
        platform: Platform | None,
        resources: dict[str, Resource],
        condvars: dict[str, CondVar],
        servers: dict[str, RpcServer],
        reservations: dict[str, Reservation],
    ) -> list[Task] | None:
        items = self.list_of(value, "tasks", nonempty=True)
        if items is None:
            return None
        result: list[Task] = []
        names: list[tuple[str | None, str]] = []
        for i, item in enumerate(items):
            task = self.task(item, f"tasks[{i}]", i, platform, resources, condvars, servers, reservations, names)
            if task is not None:
                result.append(task)
        self.unique(names, "task")
        return result

    def task(
        self,
        item: Any,
        path: str,
        index: int,
        platform: Platform | None,
        resources: dict[str, Resource],
        condvars: dict[str, CondVar],
        servers: dict[str, RpcServer],
        reservations: dict[str, Reservation],
        names: list[tuple[str | None, str]],
    ) -> Task | None:
        data = self.mapping(item, path)
        if data is None:
            return None
        self.keys(data, TASK_KEYS, path, required=("name", "period", "body"))
        ok = True

        def field(key: str, check: Callable[[Any, str], Any], default: Any = None) -> Any:
            nonlocal ok
            if key not in data:
                return default
            result = check(data[key], f"{path}.{key}")
            if result is None:
                ok = False
            return result

        name = field("name", self.name)
        names.append((name, f"{path}.name"))
        kind = field("kind", lambda v, p: self.enum(v, p, KINDS), "periodic")
        period = field("period", self.duration)
        deadline = field("deadline", self.duration, period)
        offset = field("offset", lambda v, p: self.duration(v, p, positive=False), 0)
        wcet = field("wcet", self.duration)
        budget = field("budget", self.duration)
        max_jobs = field("max_jobs", lambda v, p: self.integer(v, p, 1, MAX_JOBS))
        body = field("body", lambda v, p: self.body(v, p, resources, condvars, servers))
        if body is not None and (trace_jobs := trace_job_limit(body)) is not None:
            max_jobs = min(max_jobs or trace_jobs, trace_jobs)  # a stop trace ends the task
        reservation = field("reservation", self.name)
        peripheral = field("peripheral", self.peripheral)
        stack = field("stack", self.stack)
        if "name" not in data or "period" not in data or "body" not in data:
            ok = False

        sporadic = None
        if "sporadic" in data:
            if kind == "periodic":
                self.error(f"{path}.sporadic", "only for kind: sporadic")
                ok = False
            else:
                sporadic = self.sporadic(data["sporadic"], f"{path}.sporadic", index)
                ok = ok and sporadic is not None
        elif kind == "sporadic":
            sporadic = Sporadic(0, index + 1)

        scheduler = platform.scheduler if platform is not None else None
        # who orders the task: its reservation's scheduler (FP or EDF), else the platform's
        owner = reservations.get(reservation) if reservation is not None else None
        if reservation is not None and owner is None:
            if reservation not in self.invalid_names:  # else its reservation's own error says what is wrong
                self.reference(reservation, f"{path}.reservation", reservations, "reservation")
            return None
        orders_by_priority = owner.scheduler == "FP" if owner is not None else scheduler in FP_SCHEDULERS
        orderer = f'reservation "{owner.name}"' if owner is not None else str(scheduler)
        policy = None
        if "policy" in data:
            policy = self.enum(data["policy"], f"{path}.policy", POLICIES)
            if policy is not None and scheduler is not None:
                native = "fifo" if orders_by_priority else "deadline"
                if policy not in (native, "other"):
                    self.error(
                        f"{path}.policy",
                        f'"{policy}" does not go with {"scheduler " + orderer if owner is None else orderer}, whose tasks are '
                        f'"{native}": leave policy out, or write "other" for a background task',
                    )
                    policy = None
            ok = ok and policy is not None
        elif scheduler is not None:
            policy = "fifo" if orders_by_priority else "deadline"

        priority = None
        if policy == "fifo":
            if "priority" in data:
                priority = field("priority", lambda v, p: self.integer(v, p, 1, 99))
            else:
                self.error(path, f'missing required key "priority" (SCHED_FIFO 1..99, higher is more urgent, under {orderer})')
                ok = False
        elif "priority" in data and policy is not None:
            why = (
                (f"not used under {scheduler} (SCHED_DEADLINE orders jobs by deadline): remove it" if owner is None
                 else f"not used inside {orderer}, which orders jobs by deadline (EDF): remove it")
                if policy == "deadline"
                else 'not used for policy "other" (SCHED_OTHER has no real-time priority): remove it'
            )
            self.error(f"{path}.priority", why)
            ok = False

        partition = None
        if scheduler in PARTITIONED_SCHEDULERS and platform is not None:
            if "partition" in data:
                partition = self.partition_ref(data["partition"], f"{path}.partition", platform)
                ok = ok and partition is not None
            elif policy != "other":
                self.error(path, f'missing required key "partition" (required under {scheduler})')
                ok = False
        elif "partition" in data and scheduler is not None:
            self.error(
                f"{path}.partition",
                f"not used under {scheduler} (global scheduling: tasks run on all platform CPUs): remove it",
            )
            ok = False

        if body is not None and wcet is None and "wcet" not in data:
            wcet = sum(a.ns for a in body if isinstance(a, Compute)) + sum(
                a.length_ns for a in body if isinstance(a, Prem)) + sum(
                a.wcet_ns for a in body if isinstance(a, (MemWrite, IoWrite)))
            if wcet == 0:
                self.error(
                    f"{path}.wcet",
                    "the body has no compute, prem, memwrite or iowrite, so the default WCET would be 0: give wcet",
                )
                ok = False

        if policy == "deadline" and None not in (period, deadline, wcet):
            runtime = budget if budget is not None else wcet
            runtime_name = "budget" if budget is not None else "wcet (the runtime when no budget is given)"
            if runtime < DL_MIN_RUNTIME_NS:
                self.error(path, f"SCHED_DEADLINE needs a runtime of at least 1024ns; {runtime_name} is {runtime}ns")
                ok = False
            if not runtime <= deadline <= period:
                fd = format_duration
                if deadline > period:
                    fix = f"make the deadline at most the period ({fd(period)})"
                else:
                    fix = f"make the {runtime_name.split(' ')[0]} at most the deadline ({fd(deadline)})"
                self.error(
                    path,
                    f'task "{name}": SCHED_DEADLINE needs runtime <= deadline <= period, got '
                    f"runtime {fd(runtime)}, deadline {fd(deadline)}, period {fd(period)}: {fix}",
                )
                ok = False

        if not ok or policy is None or name is None:
            return None
        return Task(
            name=name,
            kind=kind,
            period_ns=period,
            deadline_ns=deadline,
            offset_ns=offset,
            wcet_ns=wcet,
            policy=cast(Policy, policy),
            priority=priority,
            partition=partition,
            budget_ns=budget,
            max_jobs=max_jobs,
            sporadic=sporadic,
            body=tuple(body),
            reservation=reservation,
            peripheral_buffer_bytes=peripheral,
            stack_bytes=stack,
        )

    def peripheral(self, value: Any, path: str) -> int | None:
        size, problems = parse_peripheral(value, path)
        for where, message in problems:
            self.error(where, message)
        return size

    def stack(self, value: Any, path: str) -> int | None:
        size, problems = parse_stack(value, path)
        for where, message in problems:
            self.error(where, message)
        return size

    def partition_ref(self, value: Any, path: str, platform: Platform) -> str | None:
        if platform.partitions is not None:
            return self.reference(value, path, {p.name: p for p in platform.partitions}, "partition")
        if not isinstance(value, str):
            self.error(path, f"expected the name of a partition, got {describe(value)}")
            return None
        if not re.fullmatch(r"cpu(0|[1-9][0-9]*)", value):
            self.error(
                path,
                f"unknown partition {describe(value)} (platform.partitions is not given, so there is one "
                "partition per CPU, named cpu0, cpu1, ...)",
            )
            return None
        return value

    def sporadic(self, value: Any, path: str, index: int) -> Sporadic | None:
        data = self.mapping(value, path)
        if data is None:
            return None
        self.keys(data, SPORADIC_KEYS, path)
        extra: int | None = 0
        if "max_extra" in data:
            extra = self.duration(data["max_extra"], f"{path}.max_extra", positive=False)
        seed: int | None = index + 1
        if "seed" in data:
            seed = self.integer(data["seed"], f"{path}.seed", 0, 2**63 - 1)
        if extra is None or seed is None:
            return None
        return Sporadic(extra, seed)

    def call(self, arg: Any, path: str, servers: dict[str, RpcServer]) -> Call | None:
        """``call: S`` (the server's duration) or ``call: {server: S, duration: 4.5ms}``."""
        if isinstance(arg, dict):
            self.keys(arg, CALL_KEYS, path, required=("server",))
            if "server" not in arg:
                return None
            server = self.reference(arg["server"], f"{path}.server", servers, "server")
            service = self.duration(arg["duration"], f"{path}.duration") if "duration" in arg else None
            if "duration" in arg and service is None:
                return None
        elif isinstance(arg, str):
            server = self.reference(arg, path, servers, "server")
            service = None
        else:
            self.error(
                path,
                f"expected a server's name or {{server: NAME, duration: TIME}}, got {describe(arg)}",
            )
            return None
        if server is None:
            return None
        if service is None:
            service = servers[server].service_ns
            if service is None:
                self.error(
                    path,
                    f'server "{server}" gives no duration: write {{server: {server}, duration: 1ms}} '
                    "or give the server a duration",
                )
                return None
        return Call(server, service)

    def body(
        self,
        value: Any,
        path: str,
        resources: dict[str, Resource],
        condvars: dict[str, CondVar],
        servers: dict[str, RpcServer],
    ) -> list[Action] | None:
        items = self.list_of(value, path, nonempty=True)
        if items is None or not items:
            return None
        actions: list[Action] = []
        ok = True
        held: list[tuple[str, str]] = []  # (resource, path of its lock)
        for i, item in enumerate(items):
            apath = f"{path}[{i}]"
            if not isinstance(item, dict) or len(item) != 1:
                self.error(
                    apath,
                    "an action is a mapping with one key, such as {compute: 1ms} or {lock: r1}; "
                    f"got {describe(item)}" + (f" with {len(item)} keys" if isinstance(item, dict) else ""),
                )
                ok = False
                continue
            ((op, arg),) = item.items()
            opath = f"{apath}.{op}"
            if op in FUTURE_ACTIONS:
                self.error(opath, FUTURE_ACTIONS[op])
                ok = False
                continue
            if op not in ACTIONS:
                self.error(opath, "unknown action" + suggest(str(op), ACTION_NAMES)
                           + f" (actions: {', '.join(ACTION_NAMES)})")
                ok = False
                continue
            if op in ("memwrite", "iowrite"):
                write, problems = parse_write(op, arg, opath)
                for where, message in problems:
                    self.error(where, message)
                if write is None:
                    ok = False
                    continue
                actions.append(write)
            elif op == "prem":
                prem, problems = parse_prem(arg, opath)
                for where, message in problems:
                    self.error(where, message)
                if prem is None:
                    ok = False
                    continue
                actions.append(prem)
            elif op == "call":
                call = self.call(arg, opath, servers)
                if call is None:
                    ok = False
                    continue
                actions.append(call)
            elif op == "compute" and isinstance(arg, dict):  # a varying demand
                compute, problems = parse_compute(arg, opath, self.base_dir)
                for where, message in problems:
                    self.error(where, message)
                if compute is None:
                    ok = False
                    continue
                actions.append(compute)
            elif op in ("compute", "sleep"):
                ns = self.duration(arg, opath)
                if ns is None:
                    ok = False
                    continue
                actions.append(Compute(ns) if op == "compute" else Sleep(ns))
            elif op in ("lock", "unlock"):
                res = self.reference(arg, opath, resources, "resource")
                if res is None:
                    ok = False
                    continue
                held_names = [r for r, _ in held]
                if op == "lock":
                    if res in held_names:
                        where = held[held_names.index(res)][1]
                        self.error(opath, f'"{res}" is already held (locked at {where}): no relock')
                        ok = False
                    else:
                        held.append((res, apath))
                    actions.append(Lock(res))
                else:
                    if res not in held_names:
                        self.error(opath, f'unlock of "{res}", which is not held at this point')
                        ok = False
                    elif held_names[-1] != res:
                        inner, where = held[-1]
                        self.error(
                            opath,
                            f'unlock of "{res}" out of order: "{inner}" (locked at {where}) '
                            "is held inside it and must be unlocked first (locks nest)",
                        )
                        ok = False
                        held = [h for h in held if h[0] != res]
                    else:
                        held.pop()
                    actions.append(Unlock(res))
            else:
                cv = self.reference(arg, opath, condvars, "condvar")
                if cv is None:
                    ok = False
                    continue
                mutex = condvars[cv].mutex
                held_names = [r for r, _ in held]
                if mutex not in held_names:
                    self.error(
                        opath,
                        f'{op} on "{cv}" without holding its mutex "{mutex}": lock "{mutex}" before',
                    )
                    ok = False
                elif op == "wait" and held_names[-1] != mutex:
                    self.error(
                        opath,
                        f'wait on "{cv}" releases "{mutex}" while "{held_names[-1]}", locked inside '
                        f'it, stays held: unlock "{held_names[-1]}" before waiting',
                    )
                    ok = False
                signalling: dict[str, type[Wait | Signal | Broadcast]] = {
                    "wait": Wait, "signal": Signal, "broadcast": Broadcast}
                actions.append(signalling[op](cv))
        for res, where in held:
            self.error(path, f'"{res}" (locked at {where}) is still held at the end of the job: add unlock: {res}')
            ok = False
        return actions if ok else None


def validate_dict(data: Any, *, base_dir: Path | None = None) -> list[str]:
    """Every error in a task set given as plain data; empty when it is valid. ``base_dir``: where
    relative paths in it start (the set's file's directory; None: the current directory)."""
    checker = _Checker(base_dir)
    checker.taskset(data)
    return checker.errors


def taskset_from_dict(data: Any, *, source: str | None = None, base_dir: Path | None = None) -> TaskSet:
    """Validate plain data and build the TaskSet; raise TaskSetError listing every error.
    ``base_dir``: where relative paths in it start (the set's file's directory; None: the current one)."""
    checker = _Checker(base_dir)
    taskset = checker.taskset(data)
    if checker.errors or taskset is None:
        raise TaskSetError(checker.errors or ["not a task set"], source)
    return taskset

"""Resolve a TaskSet into the C runner's input (docs/runner-input.md, ``rtsched-runner/14``).

Durations become integer nanoseconds, names become indices, every CPU list
is made explicit (the online CPUs are read here, at resolve time, when the
file leaves them out), and every task gets its kernel policy. A compute
with a varying demand gets its per-job durations for the whole run
(``rtsched.model.demand_jobs``): the ones the simulator draws.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rtsched.cpus import allowed_cpus, format_cpu_list, online_cpus
from rtsched.model.ceilings import LockSetting, lock_levels, lock_settings
from rtsched.model.model import (
    DISTRIBUTED_PROTOCOLS,
    LOCAL_PROTOCOLS,
    Action,
    Activate,
    Affinity,
    Broadcast,
    Call,
    Compute,
    IoWrite,
    Lock,
    MemWrite,
    Prem,
    Reservation,
    Resource,
    RpcServer,
    SetSched,
    SetTaskgroup,
    Signal,
    Sleep,
    Task,
    TaskSet,
    Unlock,
    Wait,
)
from rtsched.model.demand_jobs import demand_problems, run_job_durations
from rtsched.model.kernel_reservations import kernel_machine_problems
from rtsched.model.placement import Placement, place, placement_problems
from rtsched.model.reservation_control import adapted
from rtsched.model.reservation_locks import lock_homes
from rtsched.model.ult import ult_backend_name, ult_cpus
from rtsched.model.validate import TaskSetError

__all__ = [
    "RUNNER_FORMAT",
    "DEFAULT_RELEASE_DELAY_NS",
    "to_runner_input",
]

RUNNER_FORMAT = "rtsched-runner/14"
DEFAULT_RELEASE_DELAY_NS = 100_000_000
#: Limits of rtsched-run's reader (tools/run/spec.h RUN_PATH_MAX, spec.c).
TRACE_PATH_MAX = 512
TRACE_BUFFER_EVENTS_MAX = 1 << 26

_DL_PERIOD_LIMITS = Path("/proc/sys/kernel")


def _dl_period_limits() -> tuple[int, int] | None:
    """(min, max) SCHED_DEADLINE period in ns from the kernel's sysctls, or None if unknown."""
    try:
        lo = int((_DL_PERIOD_LIMITS / "sched_deadline_period_min_us").read_text()) * 1000
        hi = int((_DL_PERIOD_LIMITS / "sched_deadline_period_max_us").read_text()) * 1000
    except (OSError, ValueError):
        return None
    return lo, hi


def _rt_bandwidth_us() -> tuple[int, int] | None:
    """(sched_rt_runtime_us, sched_rt_period_us): SCHED_DEADLINE's bandwidth ceiling per CPU, or None."""
    try:
        runtime = int((_DL_PERIOD_LIMITS / "sched_rt_runtime_us").read_text())
        period = int((_DL_PERIOD_LIMITS / "sched_rt_period_us").read_text())
    except (OSError, ValueError):
        return None
    return runtime, period


def _action(action: Action, resources: dict[str, int], condvars: dict[str, int], servers: dict[str, int],
            per_job_ns: list[int] | None, tasks: dict[str, int]) -> dict[str, Any]:
    """An action of the runner's body; ``per_job_ns``: a varying compute's durations for the run."""
    if isinstance(action, Activate):
        return {"op": "activate", "task": tasks[action.task]}
    if isinstance(action, Affinity):
        return {"op": "affinity", "cpus": list(action.cpus)}
    if isinstance(action, SetTaskgroup):
        return {"op": "taskgroup", "taskgroup": action.path}
    if isinstance(action, SetSched):
        return {"op": "sched", "policy": action.policy, "priority": action.priority or 0, "nice": action.nice}
    if isinstance(action, Compute) and per_job_ns is not None:
        return {"op": "compute", "ns": action.ns, "per_job_ns": per_job_ns}
    if isinstance(action, Call):
        return {"op": "call", "server": servers[action.server], "ns": action.ns}
    if isinstance(action, (Compute, Sleep)):
        return {"op": action.op, "ns": action.ns}
    if isinstance(action, (Lock, Unlock)):
        return {"op": action.op, "resource": resources[action.resource]}
    if isinstance(action, (Wait, Signal, Broadcast)):
        return {"op": action.op, "condvar": condvars[action.condvar]}
    if isinstance(action, MemWrite):
        return {"op": "memwrite", "bytes": action.bytes, "buffer_bytes": action.buffer_bytes}
    if isinstance(action, IoWrite):
        return {"op": "iowrite", "bytes": action.bytes, "buffer_bytes": action.buffer_bytes, "device": action.device}
    if isinstance(action, Prem):
        return {"op": "prem", "ns": action.compute_ns, "length_ns": action.length_ns,
                "buffers_bytes": list(action.buffers_bytes), "access": action.access}
    raise TypeError(f"unknown action {action!r}")  # pragma: no cover


def _prem_priority(taskset: TaskSet, task: Task, placement: Placement) -> int:
    """The SCHED_FIFO priority a PREM task's intervals run at: the highest of the threads that share
    a CPU with it, so that none of them preempts an interval (0: the task has no interval)."""
    if not task.prem_intervals:
        return 0
    mine = set(placement.cpus_of(task.name))
    threads = [(t.name, t.priority) for t in taskset.tasks if t.priority is not None]
    threads += [(s.name, s.priority) for s in taskset.servers]
    return max(p for name, p in threads if mine & set(placement.cpus_of(name)))


def _server(taskset: TaskSet, server: RpcServer, placement: Placement) -> dict[str, Any]:
    """A server resolved: its CPUs, and its queue's capacity made explicit."""
    capacity = server.queue_capacity
    if capacity is None:
        capacity = max(1, len(taskset.callers_of(server.name)))
    return {
        "name": server.name,
        "priority": server.priority,
        "cpus": list(placement.cpus_of(server.name)),
        "queue_capacity": capacity,
    }


def _resource(resource: Resource, lock: LockSetting | None) -> dict[str, Any]:
    """A resource of the runner input; ``lock``: its LockSetting (ceiling protocols) or None."""
    return {
        "name": resource.name,
        "protocol": resource.protocol,
        "variant": lock.variant if lock else "deferred",
        "ceiling": lock.ceiling if lock else 0,
        "partition_cpu": lock.cpu if lock else None,
    }


def _top_of(taskset: TaskSet, reservation: Reservation) -> Reservation:
    """The top-level ancestor of ``reservation`` (itself at the top)."""
    while reservation.parent is not None:
        reservation = taskset.reservation(reservation.parent)
    return reservation


def _parents_first(taskset: TaskSet) -> list[Reservation]:
    """The reservations, each after its parent (the runner makes them in this order)."""
    done: list[Reservation] = []
    pending: list[str | None] = [None]  # breadth first from the top level
    while pending:
        parent = pending.pop(0)
        for child in taskset.child_reservations(parent):
            done.append(child)
            pending.append(child.name)
    return done


def _reservations(taskset: TaskSet, partitions: dict[str, tuple[int, ...]],
                  cpusets: dict[str, int]) -> list[dict[str, Any]]:
    """The runner's reservations, parents first; a reservation's CPU is its partition's one CPU;
    ``cpusets``: the cpuset index of each kernel-enforced reservation's worker."""
    ordered = _parents_first(taskset)
    index = {r.name: i for i, r in enumerate(ordered)}
    out = []
    for r in ordered:
        top = _top_of(taskset, r)
        cpus = partitions[top.partition] if top.partition is not None else (0,)
        out.append(
            {
                "name": r.name,
                "kind": r.kind,
                "period_ns": r.period_ns,
                "budget_ns": r.budget_ns,
                "order": r.scheduler,
                "priority": r.priority or 0,
                "cpu": cpus[0],
                "parent": index[r.parent] if r.parent is not None else None,
                "controller": _controller(taskset, r),
                "enforcement": r.enforcement,
                "cpuset": cpusets.get(r.name),
            }
        )
    return out


def _kernel_cpusets(taskset: TaskSet, partitions: dict[str, tuple[int, ...]]
                    ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The runner's cpusets under the ult backend: an exclusive one of its one CPU per kernel-enforced
    reservation (the kernel pins a SCHED_DEADLINE worker to a CPU only when that CPU is a root domain
    of its own), and each such reservation's index in them."""
    kernel = [(r.name, r.partition) for r in taskset.reservations
              if r.enforcement == "kernel" and r.partition is not None]
    cpusets = [{"name": p, "cpus": list(partitions[p]), "exclusive": True} for _name, p in kernel]
    return cpusets, {name: i for i, (name, _p) in enumerate(kernel)}


def _controller(taskset: TaskSet, r: Reservation) -> dict[str, int] | None:
    """The runner's ``controller`` of an adapted reservation (None: a fixed budget)."""
    control = adapted(taskset, r)
    if control is None:
        return None
    return {"period_ns": control.period_ns, "min_budget_ns": control.min_budget_ns,
            "max_budget_ns": control.max_budget_ns, "headroom_percent": control.headroom_percent,
            "importance": r.importance or 1}


def to_runner_input(
    taskset: TaskSet,
    trace_path: str | Path,
    *,
    buffer_events: int = 65536,
    ftrace_markers: bool = False,
    duration_ns: int | None = None,
    release_delay_ns: int = DEFAULT_RELEASE_DELAY_NS,
    cpus_online: tuple[int, ...] | None = None,
    dl_period_limits: tuple[int, int] | None = None,
    rt_bandwidth_us: tuple[int, int] | None = None,
    picv: bool = True,
    placement: Placement | None = None,
) -> dict[str, Any]:
    """The runner input for ``taskset`` as a JSON-ready dict.

    ``picv``: callers lend their priority to the server while they wait for
    its reply (PI-CV); False runs the same set without (to compare).

    ``placement``: the set's placement when the caller has made it (the pipeline
    places a set once); else it is placed on the CPUs this process may use.

    ``duration_ns`` overrides the set's duration (one of the two is needed).
    ``cpus_online``, ``dl_period_limits`` and ``rt_bandwidth_us``
    (sched_rt_runtime_us, sched_rt_period_us) default to this machine's (read
    now); tests pass them. Raises TaskSetError for what can only be checked
    against the machine: CPUs that are not online, SCHED_DEADLINE periods
    outside the kernel's limits, G-EDF on part of the CPUs.
    """
    errors: list[str] = []
    online = tuple(cpus_online) if cpus_online is not None else online_cpus()
    # a file without platform.cpus takes the CPUs this process may use (taskset, its cpuset)
    allowed = tuple(cpus_online) if cpus_online is not None else allowed_cpus()
    platform = taskset.platform

    duration = duration_ns if duration_ns is not None else taskset.duration_ns
    if duration is None:
        errors.append("duration: the task set gives none: add `duration: 10s` or give one on the command line")
    elif duration <= 0:
        errors.append(f"duration: must be > 0, got {duration}ns")
    if release_delay_ns < 0:
        errors.append(f"release delay: must be >= 0, got {release_delay_ns}ns")
    if len(str(trace_path).encode()) >= TRACE_PATH_MAX:
        errors.append(f"trace path: longer than {TRACE_PATH_MAX - 1} bytes: {trace_path}")
    if not 0 <= buffer_events <= TRACE_BUFFER_EVENTS_MAX:
        errors.append(f"trace buffer: {buffer_events} events, expected 0..{TRACE_BUFFER_EVENTS_MAX}")

    if placement is None:
        placement = place(taskset, allowed)
    cpus = placement.cpus
    missing = [c for c in cpus if c not in online]
    where = "platform.cpus" if platform.cpus is not None else "platform.partitions"
    if missing:
        errors.append(
            f"{where}: CPU {', '.join(map(str, missing))} not online on this machine "
            f"(online: {', '.join(map(str, online))})"
        )
    outside = [c for c in cpus if c in online and c not in allowed]
    if outside:
        errors.append(
            f"{where}: CPU {format_cpu_list(outside)} is online but this process may not run on it: its "
            f"affinity allows only CPU {format_cpu_list(allowed)} (taskset, a cpuset or a shield); run "
            "without the restriction or leave those CPUs out"
        )

    partitions = placement.partitions
    partition_index = {p.name: i for i, p in enumerate(partitions)}
    errors += placement_problems(taskset, placement)

    for q_index, resource in enumerate(taskset.resources):
        if resource.protocol in DISTRIBUTED_PROTOCOLS:
            errors.append(
                f'resources[{q_index}].protocol: "{resource.name}" uses {resource.protocol}, which rtsched '
                "analyses only for now (rtsched analyze: p-fp-dpcp-lp, p-fp-dflp-lp); neither the runner nor "
                "the simulator has its agents"
            )

    homes = lock_homes(taskset)
    for q_index, resource in enumerate(taskset.resources):
        inside = [h for h in homes.get(resource.name, ()) if h is not None]
        if resource.protocol in LOCAL_PROTOCOLS and inside:
            errors.append(
                f'resources[{q_index}].protocol: "{resource.name}" uses {resource.protocol} inside reservation '
                f'"{inside[0]}", which rtsched simulates and analyses only for now (rtsched sim): the ult '
                "runtime keeps one system ceiling per CPU, so it would hold back job starts in the CPU's other "
                "reservations, a blocking their bounds do not count; use protocol pip to run it"
            )

    ult = platform.backend == "ult"  # no SCHED_DEADLINE, no cpusets: the library schedules
    if platform.scheduler == "G-EDF" and not ult and sorted(cpus) != sorted(online):
        errors.append(
            f"platform.cpus: G-EDF with SCHED_DEADLINE needs every online CPU "
            f"({', '.join(map(str, online))}); to use only {', '.join(map(str, cpus))}, write P-EDF "
            "with one partition holding them (an exclusive cpuset acts as G-EDF inside)"
        )

    limits = dl_period_limits if dl_period_limits is not None else _dl_period_limits()
    if limits is not None and not ult:
        lo, hi = limits
        for t_index, task in enumerate(taskset.tasks):
            if task.policy == "deadline" and not lo <= task.period_ns <= hi:
                errors.append(
                    f"tasks[{t_index}].period: SCHED_DEADLINE on this kernel accepts periods from "
                    f"{lo // 1000}us to {hi // 1000}us (kernel.sched_deadline_period_min_us / _max_us), "
                    f"got {task.period_ns // 1000}us"
                )
    bandwidth = rt_bandwidth_us if rt_bandwidth_us is not None else _rt_bandwidth_us()
    errors += kernel_machine_problems(taskset, limits, bandwidth)
    if duration is not None and duration > 0:
        errors += demand_problems(taskset, duration)
    if errors:
        raise TaskSetError(errors)
    assert duration is not None

    backend = "threads"
    if ult:
        backend = ult_backend_name(platform, partitions)
        cpus = ult_cpus(platform, cpus, partitions)
    partition_cpus = {p.name: p.cpus for p in partitions}
    cpusets: list[dict[str, Any]] = []
    cpuset_of: dict[str, int] = {}
    if ult:
        cpusets, cpuset_of = _kernel_cpusets(taskset, partition_cpus)
    elif platform.scheduler == "P-EDF":
        cpusets = [{"name": p.name, "cpus": list(p.cpus), "exclusive": True} for p in partitions]

    resources = {r.name: i for i, r in enumerate(taskset.resources)}
    condvars = {c.name: i for i, c in enumerate(taskset.condvars)}
    server_index = {s.name: i for i, s in enumerate(taskset.servers)}
    locks = lock_settings(taskset)
    # SRP preemption levels are declared only under EDF; under FP the level is the priority (0: read it).
    levels = lock_levels(taskset) if locks and platform.is_edf else {}

    reservations = _reservations(taskset, partition_cpus, cpuset_of)
    reservation_index = {r["name"]: i for i, r in enumerate(reservations)}
    task_index = {t.name: i for i, t in enumerate(taskset.tasks)}
    tasks = []
    for task in taskset.tasks:
        per_job = run_job_durations(task, duration)
        cpuset = None
        if cpusets and not ult and task.policy == "deadline" and task.partition is not None:
            cpuset = partition_index[task.partition]
        if task.policy == "deadline":  # its runtime: under ult too, checked at each completion
            budget = task.dl_runtime_ns
        else:
            budget = task.budget_ns or 0
        tasks.append(
            {
                "name": task.name,
                "kind": task.kind,
                "period_ns": task.period_ns,
                "deadline_ns": task.deadline_ns,
                "offset_ns": task.offset_ns,
                "wcet_ns": task.wcet_ns,
                "sporadic_max_extra_ns": task.sporadic.max_extra_ns if task.sporadic else 0,
                "seed": task.sporadic.seed if task.sporadic else 0,
                "max_jobs": task.max_jobs or 0,
                "policy": task.policy,
                "priority": task.priority if task.policy == "fifo" else 0,
                "dl_runtime_ns": task.dl_runtime_ns if task.policy == "deadline" else 0,
                "dl_deadline_ns": task.dl_deadline_ns or 0,
                "dl_period_ns": task.dl_period_ns or 0,
                "slice_ns": task.slice_ns or 0,
                "taskgroup": task.taskgroup,
                "cpus": list(placement.cpus_of(task.name)),
                "cpuset": cpuset,
                "budget_ns": budget,
                "lock_level": levels.get(task.name, 0),
                "prem_priority": _prem_priority(taskset, task, placement),
                "peripheral_buffer_bytes": task.peripheral_buffer_bytes or 0,
                "stack_bytes": task.stack_bytes or 0,
                "reservation": reservation_index[task.reservation] if task.reservation is not None else None,
                "activation_queue": task.activation_queue,
                "activated_at_start": int(task.activated_at_start),
                "started_by_activation": int(task.started_by_activation),
                "nice": task.nice,
                "body": [_action(a, resources, condvars, server_index, per_job.get(j), task_index)
                         for j, a in enumerate(task.body)],
            }
        )

    return {
        "format": RUNNER_FORMAT,
        "name": taskset.name,
        "duration_ns": duration,
        "release_delay_ns": release_delay_ns,
        "scheduler": platform.scheduler,
        "backend": backend,
        "cpus": list(cpus),
        "cpusets": cpusets,
        "resources": [_resource(r, locks.get(r.name)) for r in taskset.resources],
        "condvars": [{"name": c.name, "mutex": resources[c.mutex]} for c in taskset.condvars],
        "picv": bool(picv),
        "servers": [_server(taskset, s, placement) for s in taskset.servers],
        "reservations": reservations,
        "tasks": tasks,
        "trace": {
            "path": str(trace_path),
            "buffer_events": buffer_events,
            "ftrace_markers": bool(ftrace_markers),
        },
    }

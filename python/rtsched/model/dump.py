"""Write a TaskSet back in the user format (plain data for YAML or JSON).

``taskset_from_dict(taskset_to_dict(ts)) == ts`` for every valid TaskSet.
Defaults are written out explicitly except where leaving them out means
something (``platform.cpus``: all online CPUs; ``platform.partitions``: one
per CPU; ``budget``; ``max_jobs``; a server's ``duration`` and ``queue``).
Calls are written in full (``{server, duration}``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rtsched.model.demand import Demand, Normal, Sequence, Trace, Uniform
from rtsched.model.durations import format_duration
from rtsched.model.model import (Action, Activate, Affinity, Call, Compute, IoWrite, Lock, MemWrite, Prem, Reservation, Resource,
                                 SetSched, SetTaskgroup, Sleep, TaskSet, Unlock)
from rtsched.model.power import PowerModel

__all__ = ["taskset_to_dict"]


def _demand(demand: Demand) -> dict[str, Any]:
    """A varying compute's mapping; a trace by its absolute path, so the dump reads from anywhere."""
    fd = format_duration
    if isinstance(demand, Trace):
        return {"trace": demand.path, "column": demand.column, "at_end": demand.at_end}
    if isinstance(demand, Sequence):
        return {"sequence": [[count, fd(ns)] for count, ns in demand.steps]}
    if isinstance(demand, Uniform):
        return {"uniform": [fd(demand.min_ns), fd(demand.max_ns)], "seed": demand.seed}
    if isinstance(demand, Normal):
        return {"normal": {"mean": fd(demand.mean_ns), "stddev": fd(demand.stddev_ns), "min": fd(demand.min_ns),
                           "max": fd(demand.max_ns)}, "seed": demand.seed}
    return {"empirical": [fd(v) for v in demand.values_ns], "seed": demand.seed}


def _action(action: Action) -> dict[str, Any]:
    if isinstance(action, Call):
        return {"call": {"server": action.server, "duration": format_duration(action.ns)}}
    if isinstance(action, Prem):
        return {"prem": {"buffers": list(action.buffers_bytes), "compute": format_duration(action.compute_ns),
                         "length": format_duration(action.length_ns), "access": action.access}}
    if isinstance(action, Compute) and action.demand is not None:
        return {"compute": _demand(action.demand)}
    if isinstance(action, MemWrite):
        return {"memwrite": {"bytes": action.bytes, "buffer": action.buffer_bytes,
                             "wcet": format_duration(action.wcet_ns)}}
    if isinstance(action, IoWrite):
        return {"iowrite": {"bytes": action.bytes, "device": action.device, "buffer": action.buffer_bytes,
                            "wcet": format_duration(action.wcet_ns)}}
    if isinstance(action, (Compute, Sleep)):
        return {action.op: format_duration(action.ns)}
    if isinstance(action, (Lock, Unlock)):
        return {action.op: action.resource}
    if isinstance(action, Activate):
        return {"activate": action.task}
    if isinstance(action, Affinity):
        return {"affinity": list(action.cpus)}
    if isinstance(action, SetTaskgroup):
        return {"taskgroup": action.path}
    if isinstance(action, SetSched):
        sched: dict[str, Any] = {"policy": action.policy}
        if action.priority is not None:
            sched["priority"] = action.priority
        if action.nice:
            sched["nice"] = action.nice
        return {"sched": sched}
    return {action.op: action.condvar}


def _resource(resource: Resource) -> dict[str, Any]:
    out: dict[str, Any] = {"name": resource.name, "protocol": resource.protocol}
    if resource.variant is not None:
        out["variant"] = resource.variant
    if resource.ceiling is not None:
        out["ceiling"] = resource.ceiling
    if resource.sync_partition is not None:
        out["sync_partition"] = resource.sync_partition
    return out


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _dvfs(model: PowerModel) -> dict[str, Any]:
    return {
        "operating_points": [{"frequency_mhz": op.frequency_mhz, "voltage_mv": op.voltage_mv}
                             for op in model.operating_points],
        "capacitance_pf": _number(model.capacitance_pf),
        "static_mw": _number(model.static_mw),
        "idle_mw": _number(model.idle_mw),
        "memory_bound": _number(model.memory_bound),
    }


def _reservation(r: Reservation) -> dict[str, Any]:
    out: dict[str, Any] = {"name": r.name, "kind": r.kind, "period": format_duration(r.period_ns),
                           "budget": format_duration(r.budget_ns), "scheduler": r.scheduler,
                           "criticality": r.criticality}
    for key, value in (("parent", r.parent), ("priority", r.priority), ("importance", r.importance)):
        if value is not None:
            out[key] = value
    if r.partition is not None and r.parent is None:
        out["partition"] = r.partition
    if r.enforcement != "user":
        out["enforcement"] = r.enforcement
    if r.controller is not None:
        c = r.controller
        out["controller"] = {"policy": c.policy, "period": format_duration(c.period_ns),
                             "min_budget": format_duration(c.min_budget_ns),
                             "max_budget": format_duration(c.max_budget_ns), "headroom": c.headroom_percent}
    return out


def taskset_to_dict(taskset: TaskSet) -> dict[str, Any]:
    """The user-format document of ``taskset`` (keys in the documented order)."""
    platform: dict[str, Any] = {"scheduler": taskset.platform.policy}
    if taskset.platform.backend != "threads":
        platform["backend"] = taskset.platform.backend
    if taskset.platform.cpus is not None:
        platform["cpus"] = list(taskset.platform.cpus)
    if taskset.platform.is_partitioned and taskset.platform.partitions is not None:
        platform["partitions"] = [
            {"name": p.name, "cpus": list(p.cpus)} for p in taskset.platform.partitions
        ]
    if taskset.platform.dvfs is not None:
        platform["dvfs"] = _dvfs(taskset.platform.dvfs)
    doc: dict[str, Any] = {"name": taskset.name}
    if taskset.duration_ns is not None:
        doc["duration"] = format_duration(taskset.duration_ns)
    doc["platform"] = platform
    if taskset.resources:
        doc["resources"] = [_resource(r) for r in taskset.resources]
    if taskset.condvars:
        doc["condvars"] = [{"name": c.name, "mutex": c.mutex} for c in taskset.condvars]
    if taskset.servers:
        servers = []
        for server in taskset.servers:
            entry: dict[str, Any] = {"name": server.name, "priority": server.priority}
            if server.partition is not None:
                entry["partition"] = server.partition
            if server.service_ns is not None:
                entry["duration"] = format_duration(server.service_ns)
            if server.queue_capacity is not None:
                entry["queue"] = server.queue_capacity
            servers.append(entry)
        doc["servers"] = servers
    if taskset.reservations:
        doc["reservations"] = [_reservation(r) for r in taskset.reservations]
    tasks = []
    orders = {r.name: r.scheduler for r in taskset.reservations}
    for t in taskset.tasks:
        fp = orders[t.reservation] == "FP" if t.reservation is not None else taskset.platform.is_fp
        native = "fifo" if fp else "deadline"
        task: dict[str, Any] = {"name": t.name, "kind": t.kind}
        if t.policy != native:
            task["policy"] = t.policy
        if t.nice:
            task["nice"] = t.nice
        if t.slice_ns is not None:
            task["slice"] = format_duration(t.slice_ns)
        if t.taskgroup is not None:
            task["taskgroup"] = t.taskgroup
        if t.dl_deadline_ns is not None:
            task["dl_deadline"] = format_duration(t.dl_deadline_ns)
        if t.dl_period_ns is not None:
            task["dl_period"] = format_duration(t.dl_period_ns)
        task["period"] = format_duration(t.period_ns)
        task["deadline"] = format_duration(t.deadline_ns)
        if (t.kind != "event" or t.activated_at_start) and not t.started_by_activation:  # else activations
            task["offset"] = format_duration(t.offset_ns)
        if t.activation_queue:
            task["activation_queue"] = t.activation_queue
        if t.activated_at_start:
            task["activated_at_start"] = True
        if t.started_by_activation:
            task["started_by_activation"] = True
        task["wcet"] = format_duration(t.wcet_ns)
        if t.priority is not None:
            task["priority"] = t.priority
        if t.partition is not None:
            task["partition"] = t.partition
        if t.reservation is not None:
            task["reservation"] = t.reservation
        if t.budget_ns is not None:
            task["budget"] = format_duration(t.budget_ns)
        if t.max_jobs is not None:
            task["max_jobs"] = t.max_jobs
        if t.sporadic is not None:
            task["sporadic"] = {
                "max_extra": format_duration(t.sporadic.max_extra_ns),
                "seed": t.sporadic.seed,
            }
        if t.peripheral_buffer_bytes is not None:
            task["peripheral"] = {"buffer": t.peripheral_buffer_bytes}
        if t.stack_bytes is not None:
            task["stack"] = t.stack_bytes
        task["body"] = [_action(a) for a in t.body]
        tasks.append(task)
    doc["tasks"] = tasks
    if taskset.chains:
        doc["chains"] = [{"name": c.name, "tasks": list(c.tasks)} for c in taskset.chains]
    return doc

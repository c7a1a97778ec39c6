"""What a trace shows of the threads beside their jobs: the calls each RPC server
served, and events recorded on a CPU outside a thread's placement."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rtsched.model import TaskSet
from rtsched.model.placement import Placement
from rtsched.trace import CPU_UNKNOWN, Trace
from rtsched.trace import EventType as EV

__all__ = ["ServerCalls", "events_off_cpus", "server_calls"]


@dataclass(frozen=True)
class ServerCalls:
    """One RPC server of the set and the calls its stream shows it served."""

    name: str
    priority: int
    calls_served: int

    def as_dict(self) -> dict[str, str | int]:
        return {"name": self.name, "priority": self.priority, "calls_served": self.calls_served}


def server_calls(trace: Trace, taskset: TaskSet) -> tuple[ServerCalls, ...]:
    """Per server of the set: the RPC_SERVE_END events in its stream (found by name: task_id -1)."""
    streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams if s["task_id"] < 0}
    out = []
    for server in taskset.servers:
        stream = streams.get(server.name)
        served = 0
        if stream is not None:
            served = int((trace.events_of(stream)["type"] == EV.RPC_SERVE_END).sum())
        out.append(ServerCalls(server.name, server.priority, served))
    return tuple(out)


def events_off_cpus(trace: Trace, placement: Placement) -> int:
    """Events that task and server threads recorded on a CPU outside their placement:
    something outside the run moved them (a CPU shield or a cpuset change by another
    program), and their timing is not this set's alone. Streams of threads the
    placement does not know are not counted."""
    count = 0
    for stream in trace.streams:
        cpus = placement.cpus_visited(str(stream["name"]))
        if cpus is None:
            continue
        sid = int(stream["stream_id"])
        if trace.cpus_of(sid) - {CPU_UNKNOWN} <= set(cpus):
            continue  # every event on the placement's CPUs: nothing to read
        recorded = trace.events_of(sid)["cpu"]
        known = recorded[recorded != CPU_UNKNOWN]
        count += int((~np.isin(known, sorted(cpus))).sum())
    return count

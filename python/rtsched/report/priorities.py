"""Time each thread spent at each priority, from the trace's PRIORITY events (seed 000,
Cucinotta's Fig. 8: how long a server runs with its clients' priorities under PI-CV).

A PRIORITY event says the fixed priority a thread has from then on and from whom (its
own, an inherited one, a PI-CV donation, a ceiling). A thread has its base priority (the
task set's) until its first PRIORITY event. The time counted is the time the priority was
*assigned*, whether the thread ran, waited or blocked, from t0 to the end of the trace.
Only the simulator writes PRIORITY today (docs/sim.md); a trace without any gives none.
"""

from __future__ import annotations

from dataclasses import dataclass

from rtsched.model import TaskSet
from rtsched.trace import EventType as EV
from rtsched.trace import Trace

__all__ = ["PriorityTime", "priority_time"]


@dataclass(frozen=True)
class PriorityTime:
    """One thread (task or RPC server): ns assigned each priority, most urgent first."""

    thread: str
    base_priority: int
    ns_at_priority: tuple[tuple[int, int], ...]

    def as_dict(self) -> dict[str, object]:
        return {"thread": self.thread, "base_priority": self.base_priority,
                "ns_at_priority": {str(p): ns for p, ns in self.ns_at_priority}}

    @property
    def total_ns(self) -> int:
        return sum(ns for _p, ns in self.ns_at_priority)


def _base_priorities(taskset: TaskSet) -> dict[str, int]:
    out = {t.name: t.priority for t in taskset.tasks if t.priority is not None}
    out.update((s.name, s.priority) for s in taskset.servers)
    return out


def priority_time(trace: Trace, taskset: TaskSet) -> tuple[PriorityTime, ...]:
    """Per fixed-priority thread of ``taskset`` found in ``trace``, the time at each priority;
    empty when the trace has no PRIORITY event (its producer does not record them)."""
    if not trace.has_event(EV.PRIORITY):
        return ()
    t0 = int(trace.header["t0_ns"])
    end = t0 + int(trace.header["duration_ns"])
    bases = _base_priorities(taskset)
    out = []
    for stream in trace.streams:
        name = str(stream["name"])
        if name not in bases:
            continue
        base = bases[name]
        sid = int(stream["stream_id"])
        times: list[int] = []
        levels: list[int] = []
        if EV.PRIORITY in trace.kinds_of(sid):  # a stream without a change is not read
            evs = trace.events_of(sid)
            changes = evs[evs["type"] == EV.PRIORITY]
            times, levels = changes["time_ns"].tolist(), changes["arg0"].tolist()
        spent: dict[int, int] = {}
        since, level = t0, base
        for time_ns, new_level in zip(times, levels):
            spent[level] = spent.get(level, 0) + max(0, min(time_ns, end) - since)
            since, level = max(since, min(time_ns, end)), new_level
        spent[level] = spent.get(level, 0) + max(0, end - since)
        out.append(PriorityTime(name, base, tuple(sorted(((p, ns) for p, ns in spent.items() if ns), reverse=True))))
    return tuple(out)

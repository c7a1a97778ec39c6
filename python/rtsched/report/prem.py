"""What a trace shows of PREM (docs/prem.md): each predictable interval's phases, and each
peripheral's run spans against the memory phases that gate it.

An interval is four times read from the PREM events of one task's stream: ``start`` (its
beginning, before it waited for the gate: PREM_MEMORY's time less its arg1), ``memory`` (PREM_MEMORY:
the memory phase starts), ``execution`` (PREM_EXEC) and ``end`` (PREM_END, after the padding);
``forced`` when the interval stopped waiting for a peripheral to leave its run span.
A peripheral's run span goes from a GATE_RUN to the next GATE_HOLD of its stream.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rtsched.model import Prem, TaskSet
from rtsched.trace import EventType as EV
from rtsched.trace import Trace

__all__ = [
    "INTERVAL_DTYPE",
    "PeripheralSpans",
    "PremTask",
    "gate_spans",
    "memory_phases",
    "overlapping_spans",
    "prem_intervals",
    "prem_summary",
]

INTERVAL_DTYPE = np.dtype([("index", "<i8"), ("start", "<i8"), ("memory", "<i8"), ("execution", "<i8"),
                           ("end", "<i8"), ("switches", "<i8"), ("padding", "<i8"), ("forced", "?")])


def _stream_of(trace: Trace, name: str) -> int | None:
    for stream in trace.streams:
        if str(stream["name"]) == name and int(stream["task_id"]) >= 0:
            return int(stream["stream_id"])
    return None


def prem_intervals(trace: Trace, task: str) -> np.ndarray:
    """The complete intervals of ``task`` (all three events recorded), in order (INTERVAL_DTYPE)."""
    stream = _stream_of(trace, task)
    rows: list[tuple[int, ...]] = []
    if stream is None:
        return np.array(rows, dtype=INTERVAL_DTYPE)
    events = trace.events_of(stream)
    kinds = (EV.PREM_MEMORY, EV.PREM_EXEC, EV.PREM_END)
    events = events[np.isin(events["type"], kinds)]
    types = events["type"].tolist()
    for k in range(len(events) - 2):
        if types[k:k + 3] == list(kinds):
            memory, execution, end = events[k], events[k + 1], events[k + 2]
            rows.append((int(memory["arg0"]), int(memory["time_ns"]) - int(memory["arg1"]), int(memory["time_ns"]),
                         int(execution["time_ns"]), int(end["time_ns"]), int(end["arg0"]), int(end["arg1"]),
                         bool(execution["arg0"])))
    return np.array(rows, dtype=INTERVAL_DTYPE)


def gate_spans(trace: Trace, task: str) -> np.ndarray:
    """(begin_ns, end_ns) of each complete run span of peripheral ``task``, shape (n, 2)."""
    stream = _stream_of(trace, task)
    spans: list[tuple[int, int]] = []
    if stream is not None:
        events = trace.events_of(stream)
        begin: int | None = None
        for ev in events[np.isin(events["type"], (EV.GATE_RUN, EV.GATE_HOLD))]:
            if int(ev["type"]) == EV.GATE_RUN:
                begin = int(ev["time_ns"])
            elif begin is not None:
                spans.append((begin, int(ev["time_ns"])))
                begin = None
    return np.array(spans, dtype=np.int64).reshape(-1, 2)


def memory_phases(trace: Trace, taskset: TaskSet) -> np.ndarray:
    """(begin_ns, end_ns) of every memory phase of every PREM task of the set that the gate closed
    (not forced: docs/prem.md), shape (n, 2)."""
    phases = [prem_intervals(trace, t.name) for t in taskset.tasks if t.prem_intervals]
    phases = [p[~p["forced"]] for p in phases]
    rows = [np.stack([p["memory"], p["execution"]], axis=1) for p in phases if len(p)]
    return np.concatenate(rows) if rows else np.zeros((0, 2), dtype=np.int64)


def overlapping_spans(spans: np.ndarray, phases: np.ndarray) -> int:
    """How many run spans share time with some memory phase (the gate promises none)."""
    if not len(spans) or not len(phases):
        return 0
    order = np.argsort(phases[:, 0])
    begins, ends = phases[order, 0], np.maximum.accumulate(phases[order, 1])
    # the last phase that begins before the span ends: it overlaps when it ends after the span begins
    last = np.searchsorted(begins, spans[:, 1], side="left") - 1
    return int(((last >= 0) & (ends[np.maximum(last, 0)] > spans[:, 0])).sum())


@dataclass(frozen=True)
class PremTask:
    """The intervals a trace shows of one PREM task. Times in ns; ``length_spread_ns`` is the largest
    minus the smallest (end − start − declared length) over its intervals: 0 for a constant length."""

    name: str
    intervals: int
    longest_memory_phase_ns: int
    least_padding_ns: int
    overruns: int
    length_spread_ns: int
    involuntary_switches: int
    forced: int  # memory phases begun with a peripheral still in its run span (the gate's wait ran out)

    def as_dict(self) -> dict[str, str | int]:
        return {"name": self.name, "intervals": self.intervals, "longest_memory_phase_ns": self.longest_memory_phase_ns,
                "least_padding_ns": self.least_padding_ns, "overruns": self.overruns,
                "length_spread_ns": self.length_spread_ns, "involuntary_switches": self.involuntary_switches,
                "forced": self.forced}


@dataclass(frozen=True)
class PeripheralSpans:
    """One peripheral's run spans: how many, how many ended held by a memory phase, and how many
    overlap a memory phase that the gate closed (0 when the gate works)."""

    name: str
    spans: int
    held: int
    overlapping: int

    def as_dict(self) -> dict[str, str | int]:
        return {"name": self.name, "spans": self.spans, "held": self.held, "overlapping": self.overlapping}


def prem_summary(trace: Trace, taskset: TaskSet) -> tuple[tuple[PremTask, ...], tuple[PeripheralSpans, ...]]:
    """Per PREM task and per peripheral of the set, what the trace shows (empty for a set without PREM)."""
    tasks = []
    for task in taskset.tasks:
        if not task.prem_intervals:
            continue
        rows = prem_intervals(trace, task.name)
        declared = {j: a.length_ns for j, a in enumerate(task.body) if isinstance(a, Prem)}
        lengths = np.array([declared.get(int(i), 0) for i in rows["index"]], dtype=np.int64)
        excess = rows["end"] - rows["start"] - lengths
        tasks.append(PremTask(
            name=task.name,
            intervals=len(rows),
            longest_memory_phase_ns=int((rows["execution"] - rows["start"]).max()) if len(rows) else 0,
            least_padding_ns=int(rows["padding"].min()) if len(rows) else 0,
            overruns=int((rows["padding"] < 0).sum()),
            length_spread_ns=int(excess.max() - excess.min()) if len(rows) else 0,
            involuntary_switches=int(rows["switches"].sum()),
            forced=int(rows["forced"].sum()),
        ))
    phases = memory_phases(trace, taskset)
    peripherals = []
    for task in taskset.tasks:
        if task.peripheral_buffer_bytes is None:
            continue
        spans = gate_spans(trace, task.name)
        stream = _stream_of(trace, task.name)
        held = 0
        if stream is not None:
            events = trace.events_of(stream)
            held = int(((events["type"] == EV.GATE_HOLD) & (events["arg0"] == 1)).sum())
        peripherals.append(PeripheralSpans(task.name, len(spans), held, overlapping_spans(spans, phases)))
    return tuple(tasks), tuple(peripherals)

"""Write a simulated schedule as a trace file (docs/trace-format.md, version 1).

One stream per task (task_id = its index in the set, tid = ``TID_BASE`` +
index), then one per RPC server (task_id -1, its name), each stream's events in one chunk in the order the thread recorded
them, no event lost. The clock field says CLOCK_MONOTONIC like the runner's
traces; the times are simulated nanoseconds from t0 = 0.
"""

from __future__ import annotations

from itertools import starmap
from pathlib import Path
from typing import Protocol, Sequence

from rtsched.outputs import write_bytes
from rtsched.trace.layout import (
    CHUNK,
    CHUNK_MAGIC,
    CLOCK_MONOTONIC,
    EVENT,
    EVENT_SIZE,
    HEADER,
    HEADER_SIZE,
    MAGIC,
    SET_NAME_MAX,
    STREAM,
    STREAM_NAME_MAX,
    STREAM_RECORD_SIZE,
    VERSION,
)

__all__ = ["TraceStream", "write_sim_trace"]


class TraceStream(Protocol):
    """What a stream needs to be written: a ``SimThread``, or the DVFS engine's task streams."""

    task_id: int
    tid: int
    name: str
    period_ns: int
    deadline_ns: int
    events: list[tuple[int, int, int, int, int, int, int]]


def _name(text: str, size: int) -> bytes:
    return text.encode("utf-8")[:size]


def _events(thread: TraceStream) -> bytes:
    """The thread's events as the file holds them; a value out of its field's range raises struct.error."""
    return b"".join(starmap(EVENT.pack, thread.events))


def write_sim_trace(path: str | Path, name: str, duration_ns: int, threads: Sequence[TraceStream]) -> Path:
    """Write ``threads``' recorded events to ``path``; return it."""
    path = Path(path)
    parts = [HEADER.pack(MAGIC, VERSION, HEADER_SIZE, STREAM_RECORD_SIZE, EVENT_SIZE, CLOCK_MONOTONIC, len(threads),
                         0, duration_ns, _name(name, SET_NAME_MAX), b"")]
    for i, t in enumerate(threads):
        parts.append(STREAM.pack(i, t.task_id, t.tid, len(t.events), t.period_ns, t.deadline_ns,
                                 _name(t.name, STREAM_NAME_MAX)))
    for i, t in enumerate(threads):
        parts.append(CHUNK.pack(CHUNK_MAGIC, i, len(t.events), 0, 0, 0))
        parts.append(_events(t))
    write_bytes(path, b"".join(parts))
    return path

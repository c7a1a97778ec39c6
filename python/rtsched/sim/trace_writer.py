"""Write a simulated schedule as a trace file (docs/trace-format.md, version 1).

One stream per task (task_id = its index in the set, tid = ``TID_BASE`` +
index), then one per RPC server (task_id -1, its name), each stream's events in one chunk in the order the thread recorded
them, no event lost. The clock field says CLOCK_MONOTONIC like the runner's
traces; the times are simulated nanoseconds from t0 = 0.
"""

from __future__ import annotations

import struct
from itertools import starmap
from pathlib import Path
from typing import Protocol, Sequence
from rtsched.outputs import write_bytes

__all__ = ["TraceStream", "write_sim_trace"]


class TraceStream(Protocol):
    """What a stream needs to be written: a ``SimThread``, or the DVFS engine's task streams."""

    task_id: int
    tid: int
    name: str
    period_ns: int
    deadline_ns: int
    events: list[tuple[int, int, int, int, int, int, int]]

_MAGIC = b"RTSTRACE"
_VERSION = 1
_HEADER_SIZE, _STREAM_SIZE, _EVENT_SIZE = 128, 64, 32
_CLOCK_MONOTONIC = 1
_CHUNK_MAGIC = 0x4B4E4843
_NAME_MAX = 31  # bytes of a name that fit NUL-terminated in the 32-byte field

#: One event as written (the reader adds the stream): time_ns i64, type u16, cpu u16, job u32,
#: arg0 u32, reserved u32, arg1 i64, little-endian, unpadded (32 bytes); a value out of its
#: field's range raises struct.error.
_RECORD = struct.Struct("<qHHIIIq")


def _name(text: str, size: int) -> bytes:
    return text.encode("utf-8")[:size]


def _events(thread: TraceStream) -> bytes:
    return b"".join(starmap(_RECORD.pack, thread.events))


def write_sim_trace(path: str | Path, name: str, duration_ns: int, threads: Sequence[TraceStream]) -> Path:
    """Write ``threads``' recorded events to ``path``; return it."""
    path = Path(path)
    header = bytearray(_HEADER_SIZE)
    struct.pack_into("<8s6Iqq", header, 0, _MAGIC, _VERSION, _HEADER_SIZE, _STREAM_SIZE, _EVENT_SIZE,
                     _CLOCK_MONOTONIC, len(threads), 0, duration_ns)
    header[48:48 + 63] = _name(name, 63).ljust(63, b"\0")
    parts = [bytes(header)]
    for i, t in enumerate(threads):
        parts.append(struct.pack("<IiIIqq32s", i, t.task_id, t.tid, len(t.events), t.period_ns, t.deadline_ns,
                                 _name(t.name, _NAME_MAX)))
    for i, t in enumerate(threads):
        parts.append(struct.pack("<4IQQ", _CHUNK_MAGIC, i, len(t.events), 0, 0, 0))
        parts.append(_events(t))
    write_bytes(path, b"".join(parts))
    return path

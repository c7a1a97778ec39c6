"""Reading ``.rtst`` trace files (docs/trace-format.md) for ``rtsched run``.

``rtsched.trace.read_trace`` is the project's reader and ``load_trace`` uses
it. ``read_trace_file`` below was written while that package had not landed;
it follows the same documented format, returns an object with the same
attributes, and stays as the fallback (and as a second, independent reading
of the format that the tests check against synthetic files):
``header``, ``streams``, ``events`` (``EVENT_DTYPE``, sorted by time, stable),
``events_of(stream_id)`` and ``lost_total``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "EVENT_DTYPE",
    "EV",
    "TraceFormatError",
    "TraceData",
    "load_trace",
    "read_trace_file",
]

EVENT_DTYPE = np.dtype(
    [
        ("time_ns", "<i8"),
        ("type", "<u2"),
        ("cpu", "<u2"),
        ("job", "<u4"),
        ("arg0", "<u4"),
        ("reserved", "<u4"),
        ("arg1", "<i8"),
        ("stream", "<u4"),
    ]
)
_RAW_EVENT = np.dtype(
    [
        ("time_ns", "<i8"),
        ("type", "<u2"),
        ("cpu", "<u2"),
        ("job", "<u4"),
        ("arg0", "<u4"),
        ("reserved", "<u4"),
        ("arg1", "<i8"),
    ]
)
MAGIC = b"RTSTRACE"
CHUNK_MAGIC = 0x4B4E4843
HEADER_SIZE = 128
STREAM_SIZE = 64
CHUNK_HEADER_SIZE = 32
EVENT_SIZE = 32


class EV:
    """Event type numbers (include/rtsched/trace.h)."""

    RELEASE = 1
    START = 2
    COMPLETE = 3
    DEADLINE_MISS = 4
    BUDGET_OVERRUN = 5
    LOCK_REQUEST = 6
    LOCK_ACQUIRE = 7
    LOCK_RELEASE = 8
    COND_WAIT = 9
    COND_WAKE = 10
    COND_SIGNAL = 11
    COND_BROADCAST = 12
    SLEEP = 13
    TASK_EXIT = 14
    MARKER = 15


class TraceFormatError(ValueError):
    """The file is not a readable ``.rtst`` trace; the message says where it broke."""


@dataclass
class TraceData:
    header: dict[str, Any]
    streams: list[dict[str, Any]]
    events: np.ndarray
    lost_total: int = 0
    _by_stream: dict[int, np.ndarray] = field(default_factory=dict, repr=False)

    def events_of(self, stream_id: int) -> np.ndarray:
        return self._by_stream.get(stream_id, np.zeros(0, dtype=EVENT_DTYPE))


def _cstr(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def read_trace_file(path: str | Path) -> TraceData:
    """Read a ``.rtst`` file into numpy (see the module's doc)."""
    data = Path(path).read_bytes()
    if len(data) < HEADER_SIZE or data[:8] != MAGIC:
        raise TraceFormatError(f"{path}: not an rtsched trace (no RTSTRACE magic)")
    version, header_size, stream_size, event_size, clock, n_streams = struct.unpack_from("<6I", data, 8)
    if version != 1 or header_size != HEADER_SIZE or stream_size != STREAM_SIZE or event_size != EVENT_SIZE:
        raise TraceFormatError(
            f"{path}: unsupported trace layout (version {version}, sizes {header_size}/{stream_size}/{event_size})"
        )
    t0_ns, duration_ns = struct.unpack_from("<2q", data, 32)
    header = {
        "version": version,
        "clock": clock,
        "t0_ns": t0_ns,
        "duration_ns": duration_ns,
        "name": _cstr(data[48:112]),
    }
    offset = HEADER_SIZE
    streams: list[dict[str, Any]] = []
    for _ in range(n_streams):
        if offset + STREAM_SIZE > len(data):
            raise TraceFormatError(f"{path}: stream table truncated at byte {offset}")
        stream_id, task_id, tid, capacity, period_ns, deadline_ns = struct.unpack_from("<IiIIqq", data, offset)
        streams.append(
            {
                "stream_id": stream_id,
                "task_id": task_id,
                "tid": tid,
                "capacity": capacity,
                "period_ns": period_ns,
                "deadline_ns": deadline_ns,
                "name": _cstr(data[offset + 32 : offset + 64]),
                "lost": 0,
            }
        )
        offset += STREAM_SIZE
    parts: dict[int, list[np.ndarray]] = {s["stream_id"]: [] for s in streams}
    while offset < len(data):
        if offset + CHUNK_HEADER_SIZE > len(data):
            raise TraceFormatError(f"{path}: chunk header truncated at byte {offset}")
        magic, stream_id, n_events, _r, lost_total = struct.unpack_from("<4IQ", data, offset)
        if magic != CHUNK_MAGIC:
            raise TraceFormatError(f"{path}: bad chunk magic at byte {offset}")
        if stream_id >= len(streams):
            raise TraceFormatError(f"{path}: chunk at byte {offset} names stream {stream_id} of {len(streams)}")
        offset += CHUNK_HEADER_SIZE
        end = offset + n_events * EVENT_SIZE
        if end > len(data):
            raise TraceFormatError(f"{path}: chunk at byte {offset - CHUNK_HEADER_SIZE} truncated")
        raw = np.frombuffer(data, dtype=_RAW_EVENT, count=n_events, offset=offset)
        events = np.zeros(n_events, dtype=EVENT_DTYPE)
        for name in _RAW_EVENT.names:
            events[name] = raw[name]
        events["stream"] = stream_id
        parts[stream_id].append(events)
        streams[stream_id]["lost"] = max(streams[stream_id]["lost"], int(lost_total))
        offset = end
    by_stream = {
        sid: (np.concatenate(chunks) if chunks else np.zeros(0, dtype=EVENT_DTYPE)) for sid, chunks in parts.items()
    }
    every = [a for a in by_stream.values() if len(a)]
    events = np.concatenate(every) if every else np.zeros(0, dtype=EVENT_DTYPE)
    events = events[np.argsort(events["time_ns"], kind="stable")]
    return TraceData(header, streams, events, sum(s["lost"] for s in streams), by_stream)


def load_trace(path: str | Path) -> Any:
    """The trace at ``path``, read by ``rtsched.trace.read_trace`` if present, else by this module."""
    try:
        from rtsched.trace import read_trace  # type: ignore[attr-defined]
    except ImportError:
        return read_trace_file(path)
    return read_trace(path)

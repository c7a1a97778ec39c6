"""Read an rtsched trace file (``.rtst``, docs/trace-format.md) into numpy.

    from rtsched.trace import read_trace
    trace = read_trace("out/trace.rtst")
    trace.header            # dict: version, clock, n_streams, t0_ns, duration_ns, name
    trace.streams           # list of dicts: stream_id, task_id, tid, name, period_ns,
                            #   deadline_ns, capacity, lost
    trace.events            # EVENT_DTYPE array, every stream, sorted by time_ns (stable)
    trace.events_of(0)      # one stream's events in recording order
    trace.lost_total        # events dropped (full rings), over all streams
    trace.truncated         # the run did not close the file (crash): what is whole was read

The work is per chunk, never per event: each chunk's events are one
``np.frombuffer`` view of the file's bytes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rtsched.trace.layout import CHUNK as _CHUNK
from rtsched.trace.layout import HEADER as _HEADER
from rtsched.trace.layout import STREAM as _STREAM
from rtsched.trace.layout import CHUNK_HEADER_SIZE as CHUNK_HEADER_SIZE
from rtsched.trace.layout import CHUNK_MAGIC as CHUNK_MAGIC
from rtsched.trace.layout import CPU_UNKNOWN as CPU_UNKNOWN
from rtsched.trace.layout import EVENT_SIZE as EVENT_SIZE
from rtsched.trace.layout import HEADER_SIZE as HEADER_SIZE
from rtsched.trace.layout import MAGIC as MAGIC
from rtsched.trace.layout import STREAM_RECORD_SIZE as STREAM_RECORD_SIZE
from rtsched.trace.layout import VERSION as VERSION

# One event as the reader returns it: the file's 32 bytes plus the stream id
# (from the chunk header).
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

# The event as it is in the file.
FILE_EVENT_DTYPE = np.dtype(
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
assert FILE_EVENT_DTYPE.itemsize == EVENT_SIZE


class TraceFormatError(ValueError):
    """The file is not a readable rtsched trace; says where and what."""

    def __init__(self, path: str, offset: int, reason: str) -> None:
        super().__init__(f"{path}: offset {offset}: {reason}")
        self.path = path
        self.offset = offset
        self.reason = reason


@dataclass
class Trace:
    path: str
    header: dict[str, Any]
    streams: list[dict[str, Any]]
    events: np.ndarray  # EVENT_DTYPE, sorted by time_ns (stable)
    truncated: bool = False
    # Every event in file order: each stream's events in recording order.
    _file_order: np.ndarray | None = field(default=None, repr=False)
    _by_stream: dict[int, np.ndarray] | None = field(default=None, repr=False)

    @property
    def lost_total(self) -> int:
        return sum(s["lost"] for s in self.streams)

    def events_of(self, stream_id: int) -> np.ndarray:
        """One stream's events in the order its thread recorded them (which
        is not always time order: a RELEASE carries the nominal release time,
        earlier than the event before it when the job is late)."""
        if not 0 <= stream_id < len(self.streams):
            raise KeyError(f"no stream {stream_id} (the trace has {len(self.streams)})")
        if self._by_stream is None:
            # A trace not read from a file (a simulator's) has no file order: its time order serves.
            in_order = self._file_order if self._file_order is not None else self.events
            order = np.argsort(in_order["stream"], kind="stable")
            grouped = in_order[order]
            bounds = np.searchsorted(grouped["stream"], np.arange(len(self.streams) + 1))
            self._by_stream = {
                sid: grouped[bounds[sid] : bounds[sid + 1]] for sid in range(len(self.streams))
            }
        return self._by_stream[stream_id]

    def stream_of_task(self, task_id: int) -> dict[str, Any]:
        """The stream record of the task with this index in the task set."""
        for stream in self.streams:
            if stream["task_id"] == task_id:
                return stream
        raise KeyError(f"no stream for task {task_id}")


def _cstr(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", errors="replace")


def read_trace(path: str | os.PathLike[str]) -> Trace:
    """Read a trace file. Raises TraceFormatError (a ValueError) naming the
    offset and the problem; a file that ends inside a chunk (a run that
    crashed) is read up to its last whole event, with ``truncated=True``."""
    with open(path, "rb") as f:
        data = f.read()
    return parse_trace(data, os.fspath(path))


def parse_trace(data: bytes, path: str = "<bytes>") -> Trace:
    """read_trace on the bytes of a trace file."""
    size = len(data)
    if size < HEADER_SIZE:
        raise TraceFormatError(
            path, 0, f"file is {size} bytes, shorter than the {HEADER_SIZE}-byte header"
        )
    (
        magic,
        version,
        header_size,
        stream_record_size,
        event_size,
        clock,
        n_streams,
        t0_ns,
        duration_ns,
        name,
        _reserved,
    ) = _HEADER.unpack_from(data, 0)
    if magic != MAGIC:
        raise TraceFormatError(
            path, 0, f"bad magic {magic!r} (expected {MAGIC!r}): not an rtsched trace"
        )
    if version != VERSION:
        raise TraceFormatError(
            path, 8, f"unsupported version {version} (this reader knows version {VERSION})"
        )
    for offset, what, got, want in (
        (12, "header_size", header_size, HEADER_SIZE),
        (16, "stream_record_size", stream_record_size, STREAM_RECORD_SIZE),
        (20, "event_size", event_size, EVENT_SIZE),
    ):
        if got != want:
            raise TraceFormatError(path, offset, f"{what} is {got}, expected {want}")
    header = {
        "version": version,
        "clock": clock,
        "n_streams": n_streams,
        "t0_ns": t0_ns,
        "duration_ns": duration_ns,
        "name": _cstr(name),
    }

    table_end = HEADER_SIZE + n_streams * STREAM_RECORD_SIZE
    if size < table_end:
        raise TraceFormatError(
            path,
            size,
            f"stream table truncated: {n_streams} streams need {table_end} bytes, "
            f"the file has {size}",
        )
    streams: list[dict[str, Any]] = []
    for i in range(n_streams):
        offset = HEADER_SIZE + i * STREAM_RECORD_SIZE
        sid, task_id, tid, capacity, period_ns, deadline_ns, sname = _STREAM.unpack_from(
            data, offset
        )
        if sid != i:
            raise TraceFormatError(path, offset, f"stream record {i} has stream_id {sid}")
        streams.append(
            {
                "stream_id": sid,
                "task_id": task_id,
                "tid": tid,
                "name": _cstr(sname),
                "period_ns": period_ns,
                "deadline_ns": deadline_ns,
                "capacity": capacity,
                "lost": 0,
            }
        )

    # Chunks: a loop over chunk headers only.
    pieces: list[np.ndarray] = []
    piece_streams: list[int] = []
    chunks_seen = [0] * n_streams
    truncated = False
    offset = table_end
    while offset < size:
        if size - offset < CHUNK_HEADER_SIZE:
            truncated = True  # the file ends inside a chunk header
            break
        magic, sid, n_events, _r0, lost_total, _r1 = _CHUNK.unpack_from(data, offset)
        if magic != CHUNK_MAGIC:
            raise TraceFormatError(
                path, offset, f"bad chunk magic 0x{magic:08x} (expected 0x{CHUNK_MAGIC:08x})"
            )
        if sid >= n_streams:
            raise TraceFormatError(
                path, offset + 4, f"chunk of unknown stream {sid} (the table has {n_streams})"
            )
        if lost_total < streams[sid]["lost"]:
            raise TraceFormatError(
                path,
                offset + 16,
                f"stream {sid}: lost_total {lost_total} is below the previous chunk's "
                f"{streams[sid]['lost']} (it is cumulative)",
            )
        streams[sid]["lost"] = lost_total
        chunks_seen[sid] += 1
        first = offset + CHUNK_HEADER_SIZE
        whole = min(n_events, (size - first) // EVENT_SIZE)
        if whole:
            pieces.append(np.frombuffer(data, FILE_EVENT_DTYPE, count=whole, offset=first))
            piece_streams.append(sid)
        if whole < n_events:
            truncated = True  # the file ends inside this chunk's events
            break
        offset = first + n_events * EVENT_SIZE
    # The writer ends every run with one chunk per stream: a stream without
    # any means the file was never closed.
    if any(n == 0 for n in chunks_seen):
        truncated = True

    file_order = _assemble(pieces, piece_streams)
    events = file_order[np.argsort(file_order["time_ns"], kind="stable")]
    return Trace(
        path=path,
        header=header,
        streams=streams,
        events=events,
        truncated=truncated,
        _file_order=file_order,
    )


def _assemble(pieces: list[np.ndarray], piece_streams: list[int]) -> np.ndarray:
    counts = np.array([len(p) for p in pieces], dtype=np.int64)
    total = int(counts.sum()) if len(pieces) else 0
    out = np.empty(total, dtype=EVENT_DTYPE)
    if total == 0:
        return out
    raw = np.concatenate(pieces)
    for name in FILE_EVENT_DTYPE.names or ():
        out[name] = raw[name]
    out["stream"] = np.repeat(np.array(piece_streams, dtype=np.uint32), counts)
    return out

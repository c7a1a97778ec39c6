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

The work is per chunk, never per event: each chunk's events are copied
into their stream's array as one block of bytes (EVENT_DTYPE is the file's
32-byte record followed by the stream id). The streams' arrays are what the
report reads (``events_of``); ``events``, every stream merged in time order,
is sorted only when first asked for.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
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
# EVENT_DTYPE is the file's record with the stream id after it: a chunk is copied as bytes.
assert all(EVENT_DTYPE.fields[n][1] == FILE_EVENT_DTYPE.fields[n][1]  # type: ignore[index]
           for n in FILE_EVENT_DTYPE.names or ())


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
    truncated: bool = False
    # Each stream's events in recording order (EVENT_DTYPE), and where each chunk of the file
    # lies in them: (stream, first event, events), in file order.
    _by_stream: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    _chunks: list[tuple[int, int, int]] = field(default_factory=list, repr=False)

    @property
    def lost_total(self) -> int:
        return sum(s["lost"] for s in self.streams)

    @cached_property
    def events(self) -> np.ndarray:
        """Every event (EVENT_DTYPE), sorted by time_ns; at equal times in file order."""
        file_order = np.concatenate([self._by_stream[sid][first:first + count] for sid, first, count in self._chunks]
                                    or [np.zeros(0, EVENT_DTYPE)])
        return file_order[np.argsort(file_order["time_ns"], kind="stable")]

    def has_event(self, kind: int) -> bool:
        """Whether any stream recorded an event of this type (without sorting ``events``)."""
        return any(bool((e["type"] == kind).any()) for e in self._by_stream.values())

    def events_of(self, stream_id: int) -> np.ndarray:
        """One stream's events in the order its thread recorded them (which
        is not always time order: a RELEASE carries the nominal release time,
        earlier than the event before it when the job is late)."""
        if not 0 <= stream_id < len(self.streams):
            raise KeyError(f"no stream {stream_id} (the trace has {len(self.streams)})")
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

    # Chunks: a loop over chunk headers only; the events are copied per stream afterwards.
    pieces: list[tuple[int, int, int]] = []  # (stream, file offset of its events, events)
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
            pieces.append((sid, first, whole))
        if whole < n_events:
            truncated = True  # the file ends inside this chunk's events
            break
        offset = first + n_events * EVENT_SIZE
    # The writer ends every run with one chunk per stream: a stream without
    # any means the file was never closed.
    if any(n == 0 for n in chunks_seen):
        truncated = True

    by_stream, chunks = _per_stream(data, n_streams, pieces)
    return Trace(path=path, header=header, streams=streams, truncated=truncated, _by_stream=by_stream,
                 _chunks=chunks)


def _per_stream(data: bytes, n_streams: int, pieces: list[tuple[int, int, int]]
                ) -> tuple[dict[int, np.ndarray], list[tuple[int, int, int]]]:
    """Each stream's events (EVENT_DTYPE, recording order) and each chunk's place in them."""
    totals = [0] * n_streams
    chunks = []
    for sid, _offset, count in pieces:
        chunks.append((sid, totals[sid], count))
        totals[sid] += count
    by_stream = {sid: np.empty(total, EVENT_DTYPE) for sid, total in enumerate(totals)}
    raw = np.frombuffer(data, np.uint8)
    for (sid, offset, count), (_sid, first, _count) in zip(pieces, chunks):
        rows = by_stream[sid].view(np.uint8).reshape(-1, EVENT_DTYPE.itemsize)
        rows[first:first + count, :EVENT_SIZE] = raw[offset:offset + count * EVENT_SIZE].reshape(count, EVENT_SIZE)
    for sid, events in by_stream.items():
        events["stream"] = sid
    return by_stream, chunks

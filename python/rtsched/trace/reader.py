"""Read an rtsched trace file (``.rtst``, docs/trace-format.md) into numpy.

    from rtsched.trace import read_trace
    trace = read_trace("out/trace.rtst")
    trace.header            # dict: version, clock, n_streams, t0_ns, duration_ns, name
    trace.streams           # list of dicts: stream_id, task_id, tid, name, period_ns,
                            #   deadline_ns, capacity, lost
    trace.events            # EVENT_DTYPE array, every stream, sorted by time_ns (stable)
    trace.events_of(0)      # one stream's events in recording order
    trace.blocks_of(0, n)   # the same, at most n events at a time (the stream never whole)
    trace.lost_total        # events dropped (full rings), over all streams
    trace.truncated         # the run did not close the file (crash): what is whole was read

Reading the file reads its header, stream table and chunk headers only; the events stay in
the file (or the bytes given) and are read when asked for, a block of a chunk at a time, as
one copy of bytes (EVENT_DTYPE is the file's 32-byte record followed by the stream id), so a
stream's events are never in memory unless ``events_of`` asks for them whole (the two streams
asked for last are kept); ``events``, every stream merged in time order, is read and sorted
only when first asked for.
"""

from __future__ import annotations

import mmap
import os
import weakref
from collections import OrderedDict
from collections.abc import Iterator
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


#: Streams whose whole events ``Trace.events_of`` keeps (the report reads a stream several times in a row).
_KEPT_STREAMS = 2


@dataclass
class Trace:
    path: str
    header: dict[str, Any]
    streams: list[dict[str, Any]]
    truncated: bool = False
    # Where each chunk's events lie in the file: (stream, byte offset, events), in file order,
    # and the file's bytes when the trace was parsed from bytes (else the file at ``path`` is read).
    _pieces: list[tuple[int, int, int]] = field(default_factory=list, repr=False)
    _data: bytes | None = field(default=None, repr=False)
    _fd: int | None = field(default=None, repr=False)  # the file, open while the trace lives
    _kept: OrderedDict[int, np.ndarray] = field(default_factory=OrderedDict, repr=False)

    @property
    def lost_total(self) -> int:
        return sum(s["lost"] for s in self.streams)

    @cached_property
    def events(self) -> np.ndarray:
        """Every event (EVENT_DTYPE), sorted by time_ns; at equal times in file order."""
        file_order = np.concatenate([self._read(sid, offset, count) for sid, offset, count in self._pieces]
                                    or [np.zeros(0, EVENT_DTYPE)])
        return file_order[np.argsort(file_order["time_ns"], kind="stable")]

    @cached_property
    def _recorded(self) -> dict[int, tuple[frozenset[int], frozenset[int]]]:
        """Stream -> (the event types, the CPUs) its events have (one pass over the file)."""
        types: dict[int, set[int]] = {sid: set() for sid in range(len(self.streams))}
        cpus: dict[int, set[int]] = {sid: set() for sid in range(len(self.streams))}
        for sid, offset, count in self._pieces:
            for block in self._blocks(sid, offset, count, 1 << 16):
                types[sid].update(np.flatnonzero(np.bincount(block["type"])).tolist())
                cpus[sid].update(np.flatnonzero(np.bincount(block["cpu"])).tolist())
        return {sid: (frozenset(types[sid]), frozenset(cpus[sid])) for sid in types}

    def has_event(self, kind: int) -> bool:
        """Whether any stream recorded an event of this type (without sorting ``events``)."""
        return any(int(kind) in kinds for kinds, _cpus in self._recorded.values())

    def kinds_of(self, stream_id: int) -> frozenset[int]:
        """The event types the stream's events have (a report that needs a stream's events of
        some types alone reads nothing of a stream without them)."""
        return self._recorded[stream_id][0]

    def cpus_of(self, stream_id: int) -> frozenset[int]:
        """The CPU numbers the stream's events carry (CPU_UNKNOWN among them, if recorded so)."""
        return self._recorded[stream_id][1]

    def events_of(self, stream_id: int) -> np.ndarray:
        """One stream's events in the order its thread recorded them (which
        is not always time order: a RELEASE carries the nominal release time,
        earlier than the event before it when the job is late)."""
        if not 0 <= stream_id < len(self.streams):
            raise KeyError(f"no stream {stream_id} (the trace has {len(self.streams)})")
        if stream_id in self._kept:
            self._kept.move_to_end(stream_id)
            return self._kept[stream_id]
        events = np.concatenate([self._read(sid, offset, count) for sid, offset, count in self._pieces
                                 if sid == stream_id] or [np.zeros(0, EVENT_DTYPE)])
        events.flags.writeable = False  # shared by whoever asks next
        self._kept[stream_id] = events
        while len(self._kept) > _KEPT_STREAMS:
            self._kept.popitem(last=False)
        return events

    def events_in(self, stream_id: int) -> int:
        """How many events the stream has (what ``events_of`` would return)."""
        return sum(count for sid, _offset, count in self._pieces if sid == stream_id)

    def blocks_of(self, stream_id: int, block_events: int) -> Iterator[np.ndarray]:
        """One stream's events in recording order, at most ``block_events`` at a time, read
        from the file block by block."""
        if not 0 <= stream_id < len(self.streams):
            raise KeyError(f"no stream {stream_id} (the trace has {len(self.streams)})")
        for sid, offset, count in self._pieces:
            if sid == stream_id:
                yield from self._blocks(sid, offset, count, block_events)

    def stream_of_task(self, task_id: int) -> dict[str, Any]:
        """The stream record of the task with this index in the task set."""
        for stream in self.streams:
            if stream["task_id"] == task_id:
                return stream
        raise KeyError(f"no stream for task {task_id}")

    def _blocks(self, sid: int, offset: int, count: int, block_events: int) -> Iterator[np.ndarray]:
        for first in range(0, count, block_events):
            yield self._read(sid, offset + first * EVENT_SIZE, min(block_events, count - first))

    def _read(self, sid: int, offset: int, count: int) -> np.ndarray:
        """``count`` events of stream ``sid`` from byte ``offset`` of the file, as EVENT_DTYPE."""
        events = np.empty(count, EVENT_DTYPE)
        rows = events.view(np.uint8).reshape(-1, EVENT_DTYPE.itemsize)
        if self._data is not None:
            raw = np.frombuffer(self._data, np.uint8, count * EVENT_SIZE, offset)
        else:
            assert self._fd is not None
            raw = np.frombuffer(os.pread(self._fd, count * EVENT_SIZE, offset), np.uint8)
            if len(raw) != count * EVENT_SIZE:
                got = len(raw)
                raise TraceFormatError(self.path, offset + got, "the file is shorter than when it was read")
        rows[:, :EVENT_SIZE] = raw.reshape(count, EVENT_SIZE)
        events["stream"] = sid
        return events


def _cstr(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", errors="replace")


def read_trace(path: str | os.PathLike[str]) -> Trace:
    """Read a trace file. Raises TraceFormatError (a ValueError) naming the
    offset and the problem; a file that ends inside a chunk (a run that
    crashed) is read up to its last whole event, with ``truncated=True``."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size < HEADER_SIZE:  # (mmap refuses an empty file)
            return parse_trace(f.read(), os.fspath(path))
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            trace = _parse(data, os.fspath(path), keep=False)
        # the events are read from this descriptor, which stays valid if the file is removed
        trace._fd = os.dup(f.fileno())
        weakref.finalize(trace, os.close, trace._fd)
        return trace


def parse_trace(data: bytes | mmap.mmap, path: str = "<bytes>") -> Trace:
    """read_trace on the bytes of a trace file (kept: the events are read from them when asked for)."""
    return _parse(data, path, keep=True)


def _parse(data: bytes | mmap.mmap, path: str, keep: bool) -> Trace:
    """The trace in ``data``: its header, stream table and chunk headers read; the bytes kept
    (``keep``) for the events, else read_trace gives the trace its file to read them from."""
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

    return Trace(path=path, header=header, streams=streams, truncated=truncated, _pieces=pieces,
                 _data=bytes(data) if keep else None)

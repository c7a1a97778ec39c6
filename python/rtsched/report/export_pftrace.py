"""A run's trace in Perfetto's own protobuf format (``trace.pftrace``; opens in ui.perfetto.dev
and in trace_processor), written on the trace's columns.

The file is a ``Trace`` message (protos/perfetto/trace/trace.proto): a sequence of
``TracePacket``s on one packet sequence (trusted_packet_sequence_id 1):

- the first packet clears the sequence's incremental state and interns every name
  (``InternedData.event_names``: task names, instants, PREM phases; ``debug_annotation_names``:
  ``job``, ``interval``); every later event refers to them by iid;
- a ``TrackDescriptor`` per track: ``tasks`` and ``CPUs`` (parents), one per task, one per
  server (children of ``tasks``), one per CPU (children of ``CPUs``), in that order;
- ``TrackEvent``s sorted by time: a SLICE_BEGIN / SLICE_END pair per slice and an INSTANT per
  instant event. The slices and instants are those of ``export_perfetto``'s JSON (same
  segments: ``job_segments``; same left-off rule on the CPU tracks), named after the task (a
  job slice, with a ``job`` annotation), the server and its client (a service), or the PREM
  phase (with an ``interval`` annotation); the instants carry the job number.

Timestamps are the trace's (CLOCK_MONOTONIC ns), not shifted to t0. At equal times a slice's
end comes before an instant, an instant before a begin, and an outer slice begins before
and ends after the slices it encloses, so that every track nests as it did in the run.

Written from one pass over the trace in time windows (``job_pass``, ``PftraceWriter``): the
preamble first (the CPUs from a pass over the file's CPU column), then each window's events
once the pass's watermark is past them; the file is the same whatever the windows
(tests/python/test_report_chunked.py), and no array of every slice is ever made.

Field numbers (perfetto/protos/perfetto/trace/...): Trace.packet 1; TracePacket.timestamp 8,
trusted_packet_sequence_id 10, track_event 11, interned_data 12, sequence_flags 13,
track_descriptor 60; TrackEvent.debug_annotations 4, type 9, name_iid 10, track_uuid 11;
TrackDescriptor.uuid 1, name 2, parent_uuid 5; InternedData.event_names 2,
debug_annotation_names 3 (EventName / DebugAnnotationName: iid 1, name 2);
DebugAnnotation.name_iid 1, int_value 4.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np

from rtsched.outputs import partial
from rtsched.report import pftrace_native
from rtsched.report.export_perfetto import INSTANT_NAMES, MAX_CPU, job_segments, service_segments
from rtsched.report.job_pass import BLOCK_EVENTS, StreamBlock, run_pass
from rtsched.report.job_stream import NEVER_NS as _NEVER
from rtsched.report.job_stream import TaskInfo, first_by_job, sorted_member
from rtsched.report.prem import gate_spans, prem_intervals
from rtsched.report.protobuf_wire import LEN, VARINT, Field, encode_rows, field_bytes, field_sizes, field_varint, tag
from rtsched.trace import EventType as EV
from rtsched.trace import Trace

__all__ = ["BLOCK_ROWS", "SLICE_BEGIN", "SLICE_END", "INSTANT", "PftraceWriter", "write_pftrace", "write_pftrace_to"]

SLICE_BEGIN, SLICE_END, INSTANT = 1, 2, 3  # TrackEvent.Type
SEQUENCE_ID = 1
INCREMENTAL_STATE_CLEARED, NEEDS_INCREMENTAL_STATE = 1, 2  # TracePacket.SequenceFlags
TASKS_UUID, CPUS_UUID = 1, 2
TASK_UUID_FIRST = 16  # then the servers' tracks, then the CPUs' (small uuids: one-byte varints in every event)
#: Packets encoded at a time: the encoder's arrays stay small (and in the CPU's caches).
BLOCK_ROWS = 1 << 16

_INSTANTS: dict[int, str] = {
    EV.RELEASE: "release",
    EV.DEADLINE_MISS: "deadline miss",
    EV.BUDGET_OVERRUN: "budget overrun",
    **INSTANT_NAMES,
}
# Events that split a job into several segments: jobs with any go through job_segments.
_SEGMENTING = [EV.SLEEP, EV.COND_WAIT, EV.COND_WAKE, EV.RPC_CALL, EV.RPC_REPLY, EV.LOCK_REQUEST, EV.LOCK_ACQUIRE,
               EV.PREEMPT, EV.RESUME]


def _kind_table(kinds: Sequence[int]) -> np.ndarray:
    """A lookup table over every event type (uint16): True at ``kinds``."""
    table = np.zeros(1 << 16, bool)
    table[list(kinds)] = True
    return table


_IS_SEGMENTING = _kind_table(_SEGMENTING)
_IS_INSTANT = _kind_table(list(_INSTANTS))
_ARG_NAMES = ("job", "interval")
_JOB_SHIFT, _SLOW = 16, 1 << 62  # a segment's order among its stream's: (slow, job, segment)


def _task_segments(events: np.ndarray, completed: np.ndarray) -> tuple[np.ndarray, ...]:
    """(job, begin, end, begin_cpu, end_cpu, order) of every execution segment of the
    ``completed`` jobs (ascending numbers) of one stream (or of the jobs of a part of it that
    holds all their events). A job with one START, one COMPLETE and nothing that suspends or
    preempts it has one segment, START to COMPLETE, taken on the columns; the others go through
    ``job_segments``. ``order``: where the segment comes among the stream's (those taken on the
    columns by job, then the others by job and segment)."""
    in_job = events[events["job"] > 0]
    starts, start_at = first_by_job(in_job, EV.START)
    dones, done_at = first_by_job(in_job, EV.COMPLETE)
    kinds, jobs = in_job["type"], in_job["job"]
    slow = sorted_member(completed, jobs[_IS_SEGMENTING[kinds]])
    for kind, firsts in ((EV.START, starts), (EV.COMPLETE, dones)):
        if int((kinds == kind).sum()) > len(firsts):  # a job with two: which ones, found the slow way
            numbers, counts = np.unique(jobs[kinds == kind], return_counts=True)
            slow |= sorted_member(completed, numbers[counts > 1])
    fast = completed[~slow & sorted_member(completed, starts) & sorted_member(completed, dones)]
    s_at, d_at = start_at[np.searchsorted(starts, fast)], done_at[np.searchsorted(dones, fast)]
    ok = (s_at < d_at) & (in_job["time_ns"][d_at] >= in_job["time_ns"][s_at])
    columns = [fast[ok], in_job["time_ns"][s_at[ok]], in_job["time_ns"][d_at[ok]], in_job["cpu"][s_at[ok]],
               in_job["cpu"][d_at[ok]], fast[ok].astype(np.int64) << _JOB_SHIFT]
    slow_jobs = completed[slow]
    if len(slow_jobs):
        order = np.argsort(jobs, kind="stable")
        grouped = in_job[order]
        lo = np.searchsorted(grouped["job"], slow_jobs, "left")
        hi = np.searchsorted(grouped["job"], slow_jobs, "right")
        rows = [(int(j), *seg, _SLOW | (int(j) << _JOB_SHIFT) | k)
                for j, a, b in zip(slow_jobs.tolist(), lo.tolist(), hi.tolist())
                for k, seg in enumerate(job_segments(grouped[a:b]))]
        if rows:
            extra = np.array(rows, np.int64).T
            columns = [np.concatenate([c.astype(np.int64), e]) for c, e in zip(columns, extra)]
    return tuple(np.asarray(c, np.int64) for c in columns)


def _laminar(begin: np.ndarray, end: np.ndarray) -> bool:
    """Whether the slices nest as they are (``_nested`` would keep them all), checked on the
    columns: as parentheses in time order (at equal times ends before begins, outer begins
    first, inner ends first, an empty slice's end after its begin), the begins and ends met at
    each depth must pair up, each end right after its own begin."""
    n = len(begin)
    if n < 2:
        return True
    times = np.concatenate([begin, end])
    rank = np.concatenate([np.ones(n, np.int64), np.where(end == begin, 2, 0)])
    tiebreak = np.concatenate([-end, -begin])
    order = np.lexsort((tiebreak, rank, times))
    is_begin = order < n
    depth_after = np.cumsum(np.where(is_begin, 1, -1))
    level = np.where(is_begin, depth_after, depth_after + 1)
    by_level = order[np.lexsort((np.arange(2 * n), level))]  # each depth's events, in time order
    first, second = by_level[0::2], by_level[1::2]
    return bool((first < n).all() and (second - n == first).all())


def _nested(begin: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Which slices of one CPU track to keep: in (begin, -end) order, those that nest inside the
    open ones (a slice that would overlap one without nesting is left off)."""
    if _laminar(begin, end):
        return np.ones(len(begin), bool)
    order = np.lexsort((-end, begin))
    keep = np.zeros(len(begin), bool)
    stack: list[int] = []
    for k, b, e in zip(order.tolist(), begin[order].tolist(), end[order].tolist()):
        while stack and stack[-1] <= b:
            stack.pop()
        if stack and e > stack[-1]:
            continue
        stack.append(e)
        keep[k] = True
    return keep


def _preamble(names: dict[str, int], tracks: list[tuple[int, str, int]]) -> bytes:
    """The first packet (interned names, incremental state cleared) and the track descriptors."""
    interned = b"".join(field_bytes(2, field_varint(1, iid) + field_bytes(2, name)) for name, iid in names.items())
    interned += b"".join(field_bytes(3, field_varint(1, k + 1) + field_bytes(2, name))
                         for k, name in enumerate(_ARG_NAMES))
    first = field_varint(10, SEQUENCE_ID) + field_varint(13, INCREMENTAL_STATE_CLEARED) + field_bytes(12, interned)
    packets = [first]
    for uuid, name, parent in [(TASKS_UUID, "tasks", 0), (CPUS_UUID, "CPUs", 0), *tracks]:
        descriptor = field_varint(1, uuid) + field_bytes(2, name) + (field_varint(5, parent) if parent else b"")
        packets.append(field_varint(10, SEQUENCE_ID) + field_bytes(60, descriptor))
    return b"".join(field_bytes(1, p) for p in packets)


def _total(sizes: list[np.ndarray]) -> np.ndarray:
    """Each row's bytes over these fields (the length of the message they make)."""
    total = np.zeros_like(sizes[0])
    for size in sizes:
        total += size
    return total


def _packets(ts: np.ndarray, kind: np.ndarray, track: np.ndarray, name: np.ndarray, arg_name: np.ndarray,
             arg: np.ndarray) -> bytes:
    """The TrackEvent packets of these rows (already in time order): by the native encoder
    (report.pftrace_native) when it is built, else by ``numpy_packets``."""
    made = pftrace_native.packets(ts, kind, track, name, arg_name, arg)
    return made if made is not None else numpy_packets(ts, kind, track, name, arg_name, arg)


def numpy_packets(ts: np.ndarray, kind: np.ndarray, track: np.ndarray, name: np.ndarray, arg_name: np.ndarray,
                  arg: np.ndarray) -> bytes:
    """``_packets`` on numpy's columns (the field layout is written down in
    tools/report/track_event_packets.h for the native encoder)."""
    named = kind != SLICE_END
    one = np.ones(len(ts), np.int64)
    event_fields: list[Field] = [
        (tag(9, VARINT), kind, None),
        (tag(11, VARINT), track, None),
        (tag(10, VARINT), name, named),
    ]
    annotation: list[Field] = [(tag(1, VARINT), arg_name, named), (tag(4, VARINT), arg, named)]
    annotation_sizes = field_sizes(annotation)
    head: list[Field] = [(tag(4, LEN), _total(annotation_sizes), named)]
    event_sizes = field_sizes(event_fields) + field_sizes(head) + annotation_sizes
    top: list[Field] = [
        (tag(8, VARINT), ts, None),
        (tag(10, VARINT), one * SEQUENCE_ID, None),
        (tag(13, VARINT), one * NEEDS_INCREMENTAL_STATE, None),
        (tag(11, LEN), _total(event_sizes), None),
    ]
    packet_sizes = field_sizes(top) + event_sizes
    packet: list[Field] = [(tag(1, LEN), _total(packet_sizes), None)]
    return encode_rows([*packet, *top, *event_fields, *head, *annotation], len(ts),
                       field_sizes(packet) + packet_sizes)


#: A TrackEvent waiting to be written, as columns: its time and sort keys (at equal times, see
#: the module doc; then ends after begins, then in the order of ``group``, ``sub``, ``order``:
#: a task's instants, its slices, PREM phases, gate spans; the servers' services; each CPU's
#: slices by task and that task's order), and what its packet says.
_COLUMNS = {"ts": np.int64, "rank": np.int8, "tiebreak": np.int64, "is_end": np.bool_, "group": np.int64,
            "sub": np.int64, "order": np.int64, "kind": np.int8, "track": np.int32, "name": np.int32,
            "arg_name": np.uint8, "arg": np.int64}
_SORT_KEYS = ("order", "sub", "group", "is_end", "tiebreak", "rank", "ts")  # lexsort: last is first


class _Events:
    """TrackEvents as one array per column of ``_COLUMNS`` (kept apart: a window's events are
    joined, split at the watermark and reordered column by column, never as records)."""

    __slots__ = ("columns",)

    def __init__(self, columns: dict[str, np.ndarray]) -> None:
        self.columns = columns

    @staticmethod
    def empty() -> _Events:
        return _Events({k: np.zeros(0, t) for k, t in _COLUMNS.items()})

    @staticmethod
    def joined(parts: Sequence[_Events]) -> _Events:
        parts = [p for p in parts if len(p)]
        if len(parts) < 2:
            return parts[0] if parts else _Events.empty()
        return _Events({k: np.concatenate([p.columns[k] for p in parts]) for k in _COLUMNS})

    def __len__(self) -> int:
        return len(self.columns["ts"])

    def __getitem__(self, key: str) -> np.ndarray:
        return self.columns[key]

    def take(self, which: np.ndarray) -> _Events:
        return _Events({k: c[which] for k, c in self.columns.items()})


def _time_order(rows: _Events) -> np.ndarray:
    """The order of ``_SORT_KEYS`` (what lexsort on them gives), sorted on four keys where the
    values fit: rank, tiebreak and is_end in one (the tiebreaks' range below 2**58), group and
    sub in another (sub below 2**24); a sort costs about a pass per key."""
    if not len(rows):
        return np.zeros(0, np.intp)
    tiebreak = rows["tiebreak"]
    low, high = int(tiebreak.min()), int(tiebreak.max())
    if high - low >= 1 << 58 or int(rows["sub"].max()) >= 1 << 24 or int(rows["group"].max()) >= 1 << 38:
        return np.lexsort([rows[k] for k in _SORT_KEYS])
    step = (rows["rank"].astype(np.int64) << 59) | ((tiebreak - low) << 1) | rows["is_end"].astype(np.int64)
    source = (rows["group"] << 24) | rows["sub"]
    return np.lexsort((rows["order"], source, step, rows["ts"]))


def _rows(begin: np.ndarray, end: np.ndarray, track: int | np.ndarray, name: int | np.ndarray, arg_name: str,
          arg: np.ndarray, group: int | np.ndarray, sub: int | np.ndarray, order: np.ndarray,
          instant: bool = False) -> _Events:
    """The TrackEvents of these slices (a begin and an end each, begins first) or instants (one each)."""
    n = len(begin)
    begin, end = np.asarray(begin, np.int64), np.asarray(end, np.int64)
    copies = 1 if instant else 2

    def each(value: int | np.ndarray, kind: type) -> np.ndarray:
        one: np.ndarray = np.broadcast_to(np.asarray(value, kind), (n,))
        return np.tile(one, copies) if copies > 1 else np.array(one)

    columns = {"track": each(track, np.int32), "name": each(name, np.int32), "arg": each(arg, np.int64),
               "arg_name": np.full(n * copies, _ARG_NAMES.index(arg_name) + 1, np.uint8),
               "group": each(group, np.int64), "sub": each(sub, np.int64), "order": each(order, np.int64)}
    if instant:
        columns.update(ts=begin.copy(), kind=np.full(n, INSTANT, np.int8), rank=np.ones(n, np.int8),
                       tiebreak=-begin, is_end=np.zeros(n, np.bool_))
        return _Events(columns)
    columns.update(ts=np.concatenate([begin, end]),
                   kind=np.repeat(np.array([SLICE_BEGIN, SLICE_END], np.int8), n),
                   rank=np.concatenate([np.full(n, 2, np.int8), np.where(begin == end, 3, 0).astype(np.int8)]),
                   tiebreak=np.concatenate([-end, -begin]),
                   is_end=np.repeat(np.array([False, True]), n))
    return _Events(columns)


class _CpuTrack:
    """One CPU's slices, kept as ``_nested`` would keep them from all of them at once, decided in
    time windows: the kept slices still open at a window's end carry to the next (they alone can
    enclose or cross a later slice)."""

    def __init__(self) -> None:
        self._open = np.zeros((0, 2), np.int64)  # (begin, end) of kept slices, in the order kept

    def keep(self, begin: np.ndarray, end: np.ndarray, until_ns: int) -> np.ndarray:
        """Which of these slices (every one of the CPU's beginning before ``until_ns`` not yet
        given) to keep."""
        both_begin = np.concatenate([self._open[:, 0], begin])
        both_end = np.concatenate([self._open[:, 1], end])
        if _laminar(both_begin, both_end):
            keep = np.ones(len(begin), bool)
            stack = np.stack([both_begin, both_end], axis=1)[np.lexsort((-both_end, both_begin))]
        else:
            keep = np.zeros(len(begin), bool)
            stack_list = [tuple(pair) for pair in self._open.tolist()]
            order = np.lexsort((-end, begin))
            for k, b, e in zip(order.tolist(), begin[order].tolist(), end[order].tolist()):
                while stack_list and stack_list[-1][1] <= b:
                    stack_list.pop()
                if stack_list and e > stack_list[-1][1]:
                    continue
                stack_list.append((b, e))
                keep[k] = True
            stack = np.array(stack_list, np.int64).reshape(-1, 2)
        self._open = stack[stack[:, 1] > until_ns] if until_ns < _NEVER else stack[:0]
        return keep


class PftraceWriter:
    """trace.pftrace written from a pass over ``trace`` (``job_pass.run_pass``): each window's
    slices and instants wait until the pass's watermark is past them, then are sorted, encoded
    and written. Memory: what waits (the slices still open, a window's events), the jobs in
    progress, and the PREM phases, gate spans and services (made beforehand from their streams)."""

    def __init__(self, trace: Trace, out: BinaryIO) -> None:
        self._out, self.left_off = out, 0
        streams = sorted((s for s in trace.streams if s["task_id"] >= 0), key=lambda s: int(s["task_id"]))
        self._tasks = len(streams)
        names: dict[str, int] = {}

        def iid(name: str) -> int:
            return names.setdefault(name, len(names) + 1)

        self._instant_iid = np.zeros(max(_INSTANTS) + 1, np.int64)
        for kind, label in _INSTANTS.items():
            self._instant_iid[kind] = iid(label)
        self._uuid = [TASK_UUID_FIRST + int(s["task_id"]) for s in streams]
        self._name = [iid(str(s["name"])) for s in streams]
        waiting: list[_Events] = []
        cpus = {c for s in streams for c in trace.cpus_of(int(s["stream_id"])) if c < MAX_CPU}
        tracks = [(uuid, str(s["name"]), TASKS_UUID) for uuid, s in zip(self._uuid, streams)]
        prem, gates = trace.has_event(EV.PREM_MEMORY), trace.has_event(EV.GATE_RUN)
        for p, s in enumerate(streams):
            rows = prem_intervals(trace, str(s["name"])) if prem else None
            if rows is not None and len(rows):
                order = np.arange(len(rows))
                waiting.append(_rows(rows["start"], rows["execution"], self._uuid[p], iid("memory phase"),
                                     "interval", rows["index"], 8 * p + 2, 0, order))
                waiting.append(_rows(rows["execution"], rows["end"], self._uuid[p], iid("execution phase"),
                                     "interval", rows["index"], 8 * p + 3, 0, order))
            spans = gate_spans(trace, str(s["name"])) if gates else None
            if spans is not None and len(spans):
                waiting.append(_rows(spans[:, 0], spans[:, 1], self._uuid[p], iid("run (gate open)"), "interval",
                                     np.arange(len(spans)), 8 * p + 4, 0, np.arange(len(spans))))
        task_names = {int(s["task_id"]): str(s["name"]) for s in streams}
        services = service_segments(trace) if trace.has_event(EV.RPC_SERVE_START) else []
        servers = sorted({sv[0] for sv in services})
        tracks += [(TASK_UUID_FIRST + self._tasks + k, server, TASKS_UUID) for k, server in enumerate(servers)]
        self._cpu_uuid_first = TASK_UUID_FIRST + self._tasks + len(servers)
        self._candidates: list[np.ndarray] = []  # CPU slices not yet decided (_CANDIDATE)
        if services:
            server_of, begins, ends, b_cpu, e_cpu, clients, jobs = zip(*services)
            track = TASK_UUID_FIRST + self._tasks + np.array([servers.index(sv) for sv in server_of])
            labels = np.array([iid(f"{sv} for {task_names.get(c, c)}") for sv, c in zip(server_of, clients)])
            begin_ns, end_ns, b, e = (np.array(c, np.int64) for c in (begins, ends, b_cpu, e_cpu))
            order = np.arange(len(services))
            waiting.append(_rows(begin_ns, end_ns, track, labels, "job", np.array(jobs), 8 * self._tasks, 0, order))
            cpus |= {int(c) for c in np.concatenate([b, e]) if c < MAX_CPU}
            self._candidate(begin_ns, end_ns, b, e, labels, np.array(jobs), self._tasks, order)
        self._cpus = {cpu: _CpuTrack() for cpu in sorted(cpus)}
        tracks += [(self._cpu_uuid_first + cpu, f"CPU {cpu}", CPUS_UUID) for cpu in sorted(cpus)]
        self._waiting = _Events.joined(waiting)
        out.write(_preamble(names, tracks))

    def _candidate(self, begin: np.ndarray, end: np.ndarray, begin_cpu: np.ndarray, end_cpu: np.ndarray,
                   name: np.ndarray, job: np.ndarray, sub: int, order: np.ndarray) -> None:
        on_cpu = (begin_cpu == end_cpu) & (begin_cpu < MAX_CPU)
        self.left_off += int((~on_cpu).sum())
        rows = np.zeros(int(on_cpu.sum()), _CANDIDATE)
        rows["begin"], rows["end"], rows["cpu"] = begin[on_cpu], end[on_cpu], begin_cpu[on_cpu]
        rows["name"], rows["job"], rows["sub"], rows["order"] = name[on_cpu], job[on_cpu], sub, order[on_cpu]
        self._candidates.append(rows)

    def window(self, blocks: Sequence[StreamBlock], watermark_ns: int) -> None:
        made = [self._waiting]
        for block in blocks:
            p, events = block.position, block.events
            at = np.flatnonzero(_IS_INSTANT[events["type"]])
            if len(at):
                marked = events[at]
                made.append(_rows(marked["time_ns"], marked["time_ns"], self._uuid[p],
                                  self._instant_iid[marked["type"]], "job", marked["job"], 8 * p, 0,
                                  block.first_event + at, instant=True))
            if len(block.rows):
                job, begin, end, begin_cpu, end_cpu, order = _task_segments(block.closed, block.rows["job"])
                made.append(_rows(begin, end, self._uuid[p], self._name[p], "job", job, 8 * p + 1, 0, order))
                self._candidate(begin, end, begin_cpu, end_cpu, np.full(len(begin), self._name[p]), job, p, order)
        made.append(self._decide(watermark_ns))
        waiting = _Events.joined(made)
        ready = waiting["ts"] < watermark_ns
        self._write(waiting.take(ready))
        self._waiting = waiting.take(~ready)

    def _decide(self, watermark_ns: int) -> _Events:
        """The CPU tracks' TrackEvents of the slices beginning before the watermark."""
        candidates = np.concatenate(self._candidates) if self._candidates else np.zeros(0, _CANDIDATE)
        now = candidates["begin"] < watermark_ns
        self._candidates = [candidates[~now]]
        made = []
        for cpu, track in self._cpus.items():
            mine = candidates[now & (candidates["cpu"] == cpu)]
            if not len(mine):
                track.keep(mine["begin"], mine["end"], watermark_ns)
                continue
            kept = mine[track.keep(mine["begin"], mine["end"], watermark_ns)]
            self.left_off += len(mine) - len(kept)
            made.append(_rows(kept["begin"], kept["end"], self._cpu_uuid_first + cpu, kept["name"], "job", kept["job"],
                              8 * (self._tasks + 1) + cpu, kept["sub"], kept["order"]))
        return _Events.joined(made)

    def _write(self, rows: _Events) -> None:
        order = _time_order(rows)
        columns = [rows[k][order] for k in ("ts", "kind", "track", "name", "arg_name", "arg")]  # not whole rows
        for first in range(0, len(order), BLOCK_ROWS):
            self._out.write(_packets(*(c[first:first + BLOCK_ROWS] for c in columns)))

    def finish(self, tasks: tuple[TaskInfo, ...]) -> None:
        self._write(self._waiting)


_CANDIDATE = np.dtype([("begin", "<i8"), ("end", "<i8"), ("cpu", "<i8"), ("name", "<i4"), ("job", "<i8"),
                       ("sub", "<i8"), ("order", "<i8")])


def write_pftrace(trace: Trace, path: str | Path, *, block_events: int = BLOCK_EVENTS) -> int:
    """Write ``path`` (whole or not at all, rtsched.outputs) from a pass over ``trace``
    (``block_events`` at a time; the file is the same whatever the size); returns the CPU-track
    slices left off (as the JSON's metadata says)."""
    with partial(Path(path)) as tmp, open(tmp, "wb") as out:
        return write_pftrace_to(trace, out, block_events=block_events)


def write_pftrace_to(trace: Trace, out: BinaryIO, *, block_events: int = BLOCK_EVENTS) -> int:
    """``write_pftrace`` into an open file, from a pass of its own over ``trace``."""
    writer = PftraceWriter(trace, out)
    run_pass(trace, None, [writer], block_events=block_events)
    return writer.left_off

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

Field numbers (perfetto/protos/perfetto/trace/...): Trace.packet 1; TracePacket.timestamp 8,
trusted_packet_sequence_id 10, track_event 11, interned_data 12, sequence_flags 13,
track_descriptor 60; TrackEvent.debug_annotations 4, type 9, name_iid 10, track_uuid 11;
TrackDescriptor.uuid 1, name 2, parent_uuid 5; InternedData.event_names 2,
debug_annotation_names 3 (EventName / DebugAnnotationName: iid 1, name 2);
DebugAnnotation.name_iid 1, int_value 4.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rtsched.outputs import partial
from rtsched.report.export_perfetto import INSTANT_NAMES, MAX_CPU, job_segments, service_segments
from rtsched.report.jobs import JobTable, first_by_job
from rtsched.report.prem import gate_spans, prem_intervals
from rtsched.report.protobuf_wire import LEN, VARINT, Field, encode_rows, field_bytes, field_sizes, field_varint, tag
from rtsched.trace import EventType as EV
from rtsched.trace import Trace

__all__ = ["BLOCK_ROWS", "SLICE_BEGIN", "SLICE_END", "INSTANT", "write_pftrace"]

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
_SEGMENTING = np.array([EV.SLEEP, EV.COND_WAIT, EV.COND_WAKE, EV.RPC_CALL, EV.RPC_REPLY, EV.LOCK_REQUEST,
                        EV.LOCK_ACQUIRE, EV.PREEMPT, EV.RESUME], dtype=np.uint16)
_ARG_NAMES = ("job", "interval")


@dataclass
class _Slices:
    """Slices and instants gathered as columns (one list entry per batch)."""

    names: dict[str, int] = field(default_factory=dict)  # interned name -> iid (from 1)
    begin: list[np.ndarray] = field(default_factory=list)
    end: list[np.ndarray] = field(default_factory=list)  # == begin for an instant
    track: list[np.ndarray] = field(default_factory=list)
    name: list[np.ndarray] = field(default_factory=list)
    arg_name: list[np.ndarray] = field(default_factory=list)  # iid in _ARG_NAMES + 1
    arg: list[np.ndarray] = field(default_factory=list)
    instant: list[np.ndarray] = field(default_factory=list)

    def iid(self, name: str) -> int:
        return self.names.setdefault(name, len(self.names) + 1)

    def add(self, begin: np.ndarray, end: np.ndarray, track: int | np.ndarray, name: int | np.ndarray,
            arg_name: str, arg: np.ndarray, instant: bool = False) -> None:
        n = len(begin)
        self.begin.append(np.asarray(begin, np.int64))
        self.end.append(np.asarray(end, np.int64))
        self.track.append(np.broadcast_to(np.asarray(track, np.int64), (n,)))
        self.name.append(np.broadcast_to(np.asarray(name, np.int64), (n,)))
        self.arg_name.append(np.full(n, _ARG_NAMES.index(arg_name) + 1, np.int64))
        self.arg.append(np.asarray(arg, np.int64))
        self.instant.append(np.full(n, instant))

    def columns(self) -> tuple[np.ndarray, ...]:
        """The batches as columns; the batches themselves are let go (half the memory at the peak)."""
        def cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
            whole: np.ndarray = np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)
            parts.clear()
            return whole

        return (cat(self.begin, np.int64), cat(self.end, np.int64), cat(self.track, np.int64),
                cat(self.name, np.int64), cat(self.arg_name, np.int64), cat(self.arg, np.int64),
                cat(self.instant, bool))


def _task_segments(events: np.ndarray, completed: np.ndarray) -> tuple[np.ndarray, ...]:
    """(job, begin, end, begin_cpu, end_cpu) of every execution segment of the ``completed`` jobs
    (ascending numbers) of one stream. A job with one START, one COMPLETE and nothing that
    suspends or preempts it has one segment, START to COMPLETE, taken on the columns; the
    others go through ``job_segments``."""
    in_job = events[events["job"] > 0]
    starts, start_at = first_by_job(in_job, EV.START)
    dones, done_at = first_by_job(in_job, EV.COMPLETE)
    kinds, jobs = in_job["type"], in_job["job"]
    slow = np.isin(completed, jobs[np.isin(kinds, _SEGMENTING)])
    for kind, firsts in ((EV.START, starts), (EV.COMPLETE, dones)):
        if int((kinds == kind).sum()) > len(firsts):  # a job with two: which ones, found the slow way
            numbers, counts = np.unique(jobs[kinds == kind], return_counts=True)
            slow |= np.isin(completed, numbers[counts > 1])
    fast = completed[~slow & np.isin(completed, starts) & np.isin(completed, dones)]
    s_at, d_at = start_at[np.searchsorted(starts, fast)], done_at[np.searchsorted(dones, fast)]
    ok = (s_at < d_at) & (in_job["time_ns"][d_at] >= in_job["time_ns"][s_at])
    columns = [fast[ok], in_job["time_ns"][s_at[ok]], in_job["time_ns"][d_at[ok]], in_job["cpu"][s_at[ok]],
               in_job["cpu"][d_at[ok]]]
    slow_jobs = completed[slow]
    if len(slow_jobs):
        order = np.argsort(jobs, kind="stable")
        grouped = in_job[order]
        lo = np.searchsorted(grouped["job"], slow_jobs, "left")
        hi = np.searchsorted(grouped["job"], slow_jobs, "right")
        rows = [(int(j), *seg) for j, a, b in zip(slow_jobs.tolist(), lo.tolist(), hi.tolist())
                for seg in job_segments(grouped[a:b])]
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


def _gather(table: JobTable, trace: Trace) -> tuple[_Slices, list[tuple[int, str, int]], int]:
    """Every slice and instant, the tracks (uuid, name, parent uuid) and the CPU slices left off."""
    out = _Slices()
    tracks: list[tuple[int, str, int]] = []
    cpu_begin, cpu_end, cpu_of, cpu_name, cpu_job = [], [], [], [], []
    cpus_seen: set[int] = set()
    instant_iid = np.zeros(max(_INSTANTS) + 1, np.int64)
    for kind, label in _INSTANTS.items():
        instant_iid[kind] = out.iid(label)
    for info in table.tasks:
        uuid = TASK_UUID_FIRST + info.index
        tracks.append((uuid, info.name, TASKS_UUID))
        name = out.iid(info.name)
        events = trace.events_of(info.stream)
        cpus_seen.update(int(c) for c in np.unique(events["cpu"]) if c < MAX_CPU)
        marked = events[np.isin(events["type"], list(_INSTANTS))]
        out.add(marked["time_ns"], marked["time_ns"], uuid, instant_iid[marked["type"]], "job", marked["job"], True)
        job, begin, end, begin_cpu, end_cpu = _task_segments(events, table.of_task(info.index)["job"])
        out.add(begin, end, uuid, name, "job", job)
        cpu_begin.append(begin)
        cpu_end.append(end)
        cpu_of.append(np.where((begin_cpu == end_cpu) & (begin_cpu < MAX_CPU), begin_cpu, -1))
        cpu_name.append(np.full(len(begin), name))
        cpu_job.append(job)
        rows = prem_intervals(trace, info.name)
        if len(rows):
            out.add(rows["start"], rows["execution"], uuid, out.iid("memory phase"), "interval", rows["index"])
            out.add(rows["execution"], rows["end"], uuid, out.iid("execution phase"), "interval", rows["index"])
        spans = gate_spans(trace, info.name)
        if len(spans):
            out.add(spans[:, 0], spans[:, 1], uuid, out.iid("run (gate open)"), "interval", np.arange(len(spans)))
    names = {info.index: info.name for info in table.tasks}
    services = service_segments(trace)
    servers = sorted({s[0] for s in services})
    for k, server in enumerate(servers):
        tracks.append((TASK_UUID_FIRST + len(table.tasks) + k, server, TASKS_UUID))
    if services:
        server_of, begins, ends, b_cpu, e_cpu, clients, jobs = zip(*services)
        track = TASK_UUID_FIRST + len(table.tasks) + np.array([servers.index(s) for s in server_of])
        label_iid = np.array([out.iid(f"{s} for {names.get(c, c)}") for s, c in zip(server_of, clients)])
        begin_ns, end_ns, b, e = (np.array(c, np.int64) for c in (begins, ends, b_cpu, e_cpu))
        out.add(begin_ns, end_ns, track, label_iid, "job", np.array(jobs))
        cpus_seen.update(int(c) for c in np.concatenate([b, e]) if c < MAX_CPU)
        cpu_begin.append(begin_ns)
        cpu_end.append(end_ns)
        cpu_of.append(np.where((b == e) & (b < MAX_CPU), b, -1))
        cpu_name.append(label_iid)
        cpu_job.append(np.array(jobs))
    cpu_uuid_first = TASK_UUID_FIRST + len(table.tasks) + len(servers)
    on_cpu = np.concatenate(cpu_of) if cpu_of else np.zeros(0, np.int64)
    left_off = int((on_cpu < 0).sum())
    if len(on_cpu):
        begin, end = np.concatenate(cpu_begin), np.concatenate(cpu_end)
        name_col, job_col = np.concatenate(cpu_name), np.concatenate(cpu_job)
        for cpu in sorted(set(np.unique(on_cpu[on_cpu >= 0]).tolist()) | cpus_seen):
            mine = np.flatnonzero(on_cpu == cpu)
            keep = mine[_nested(begin[mine], end[mine])]
            left_off += len(mine) - len(keep)
            out.add(begin[keep], end[keep], cpu_uuid_first + cpu, name_col[keep], "job", job_col[keep])
    for cpu in sorted(set(np.unique(on_cpu[on_cpu >= 0]).tolist()) | cpus_seen):
        tracks.append((cpu_uuid_first + cpu, f"CPU {cpu}", CPUS_UUID))
    return out, tracks, left_off


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


def _time_order(slices: _Slices) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """(ts, kind, source slice) of every TrackEvent, sorted by time (see the module doc for the
    order at equal times), and the slices' columns."""
    columns = slices.columns()
    begin, end, instant = columns[0], columns[1], columns[6]
    n = len(begin)
    # rows: each slice twice (begin, end), each instant once
    ends = np.flatnonzero(~instant)
    ts = np.concatenate([begin, end[ends]])
    kind = np.concatenate([np.where(instant, INSTANT, SLICE_BEGIN), np.full(len(ends), SLICE_END)]).astype(np.int8)
    src = np.concatenate([np.arange(n), ends])
    zero = begin[src] == end[src]
    # at equal times: ends (inner first), instants, begins (outer first), then ends of empty slices
    rank = np.select([(kind == SLICE_END) & ~zero, kind == INSTANT, kind == SLICE_BEGIN], [0, 1, 2], 3)
    tiebreak = np.where(kind == SLICE_BEGIN, -end[src], -begin[src])
    order = np.lexsort((tiebreak, rank, ts))
    return ts[order], kind[order], src[order], columns


def _total(sizes: list[np.ndarray]) -> np.ndarray:
    """Each row's bytes over these fields (the length of the message they make)."""
    total = np.zeros_like(sizes[0])
    for size in sizes:
        total += size
    return total


def _packets(ts: np.ndarray, kind: np.ndarray, src: np.ndarray, columns: tuple[np.ndarray, ...]) -> bytes:
    """The TrackEvent packets of these rows (already in time order)."""
    _begin, _end, track, name, arg_name, arg, _instant = columns
    named = kind != SLICE_END
    one = np.ones(len(ts), np.int64)
    event_fields: list[Field] = [
        (tag(9, VARINT), kind, None),
        (tag(11, VARINT), track[src], None),
        (tag(10, VARINT), name[src], named),
    ]
    annotation: list[Field] = [(tag(1, VARINT), arg_name[src], named), (tag(4, VARINT), arg[src], named)]
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


def write_pftrace(table: JobTable, trace: Trace, path: str | Path) -> int:
    """Write ``path`` (whole or not at all, rtsched.outputs); returns the CPU-track slices left
    off (as the JSON's metadata says). The packets are encoded and written BLOCK_ROWS at a time."""
    slices, tracks, left_off = _gather(table, trace)
    ts, kind, src, columns = _time_order(slices)
    with partial(Path(path)) as tmp, open(tmp, "wb") as out:
        out.write(_preamble(slices.names, tracks))
        for first in range(0, len(ts), BLOCK_ROWS):
            block = slice(first, first + BLOCK_ROWS)
            out.write(_packets(ts[block], kind[block], src[block], columns))
    return left_off

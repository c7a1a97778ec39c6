"""One pass over a trace's task streams, in time windows, for everything the report computes
per job: each window hands its consumers every stream's next events (those recorded before the
window's end, in recording order), the job rows they close (``job_stream.StreamJobs``) and a
*watermark*: no later window holds an event, or a job row, or anything made from one, earlier
than it. What is before the watermark can be written in time order across the streams.

    tasks = run_pass(trace, paces, [figures, csv, pftrace])   # each a PassConsumer

Memory: about ``block_events`` events in all, whatever the number of streams (each stream's
current block is its share, ``block_events`` / streams, and a window holds about
``block_events`` events over all of them), the jobs not yet closed, and what the consumers
keep; never a stream's events or job rows whole.

Why the watermark holds: a stream's later events are those not yet read (the rest of its
current block, then blocks whose smallest times a first pass over the file found), and the
events of the jobs not yet closed (a job's row and segments start no earlier than its earliest
event). The watermark is the smallest of these over the streams.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from rtsched.report.job_stream import NEVER_NS as _NEVER
from rtsched.report.job_stream import ReleasePace, StreamJobs, TaskInfo
from rtsched.trace import EVENT_DTYPE, Trace

__all__ = ["BLOCK_EVENTS", "PassConsumer", "StreamBlock", "run_pass"]

#: Events of all streams in one window, and read from the file at a time over all streams (a
#: window's arrays are tens of MB at most; fewer, larger windows cost less per event).
BLOCK_EVENTS = 1 << 18
#: The least events read from one stream at a time (reads of a few events cost more per event).
STREAM_BLOCK_EVENTS_MIN = 1 << 12


@dataclass(frozen=True)
class StreamBlock:
    """A window's share of one task's stream."""

    position: int        # the task's place among the trace's task streams (the report's order)
    index: int           # the task's index in the set
    first_event: int     # where ``events`` begins in the stream
    events: np.ndarray   # EVENT_DTYPE, recording order
    closed: np.ndarray   # the events of the jobs these events closed (job > 0)
    rows: np.ndarray     # those jobs' rows (JOB_DTYPE, job order)


class PassConsumer(Protocol):
    def window(self, blocks: Sequence[StreamBlock], watermark_ns: int) -> None:
        """The next window; ``watermark_ns``: nothing later is earlier (``_NEVER`` at the end)."""

    def finish(self, tasks: tuple[TaskInfo, ...]) -> None:
        """After the last window: each task's counts (TaskInfo, the report's order)."""


class _Cursor:
    """A stream read block by block: the smallest time from each block on (a first pass over
    the stream's times), and where reading is."""

    def __init__(self, trace: Trace, stream_id: int, block_events: int) -> None:
        lows, highs = [], []
        for block in trace.blocks_of(stream_id, block_events):
            lows.append(int(block["time_ns"].min()))
            highs.append(int(block["time_ns"].max()))
        self.first_ns = min(lows, default=_NEVER)
        self.last_ns = max(highs, default=-_NEVER)
        self._later_low = np.minimum.accumulate(np.array([*lows, _NEVER], np.int64)[::-1])[::-1]
        self._blocks = trace.blocks_of(stream_id, block_events)
        self._block = np.zeros(0, EVENT_DTYPE)
        self._read_blocks = 0
        self._at = 0     # in the current block
        self.read = 0    # events taken

    def take_before(self, end_ns: int) -> np.ndarray:
        """The next events up to the first recorded at or after ``end_ns`` (recording order)."""
        parts = []
        while True:
            if self._at == len(self._block):
                block = next(self._blocks, None)
                if block is None:
                    break
                self._block, self._at = block, 0
                self._read_blocks += 1
            late = np.flatnonzero(self._block["time_ns"][self._at:] >= end_ns)
            stop = self._at + int(late[0]) if len(late) else len(self._block)
            parts.append(self._block[self._at:stop])
            self._at = stop
            if stop < len(self._block):
                break
        taken = parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else self._block[:0]
        self.read += len(taken)
        return taken

    @property
    def done(self) -> bool:
        return self._at == len(self._block) and self._read_blocks == len(self._later_low) - 1

    def low_ns(self) -> int:
        """The smallest time of the events not yet taken (``_NEVER``: none)."""
        rest = self._block["time_ns"][self._at:]
        return min(int(rest.min()) if len(rest) else _NEVER, int(self._later_low[self._read_blocks]))


def run_pass(trace: Trace, paces: Mapping[int, ReleasePace] | None, consumers: Sequence[PassConsumer], *,
             block_events: int = BLOCK_EVENTS) -> tuple[TaskInfo, ...]:
    """Hand ``consumers`` the trace's task streams (in task order) window by window; return
    each task's counts (TaskInfo, in that order, as the consumers' ``finish`` gets them)."""
    header = trace.header
    t0_ns = int(header.get("t0_ns", 0))
    end_ns = t0_ns + int(header.get("duration_ns", 0)) if header.get("duration_ns") else None
    streams = sorted((s for s in trace.streams if s["task_id"] >= 0), key=lambda s: int(s["task_id"]))
    # each stream's read is its share of the window (at 2^18 a stream, 50 streams held 420 MB)
    per_stream = max(min(block_events, STREAM_BLOCK_EVENTS_MIN), block_events // max(1, len(streams)))
    cursors = [_Cursor(trace, int(s["stream_id"]), per_stream) for s in streams]
    jobs = [StreamJobs(int(s["task_id"]), t0_ns, end_ns, (paces or {}).get(int(s["task_id"])), str(s["name"]))
            for s in streams]
    first = min((c.first_ns for c in cursors), default=0)
    span = max((c.last_ns for c in cursors), default=0) - first + 1
    events = max(1, sum(trace.events_in(int(s["stream_id"])) for s in streams))
    step = max(1, span * block_events // events)  # about block_events events a window, over all streams
    window_end = first
    while not all(c.done for c in cursors):
        window_end = min(window_end + step, _NEVER)
        blocks = []
        for position, (stream, cursor, stream_jobs) in enumerate(zip(streams, cursors, jobs)):
            start = cursor.read
            taken = cursor.take_before(window_end)
            closed = stream_jobs.feed(taken)
            if len(taken) or len(closed.events):
                blocks.append(StreamBlock(position, int(stream["task_id"]), start, taken, closed.events, closed.rows))
        watermark = min((min(c.low_ns(), j.waiting_from_ns) for c, j in zip(cursors, jobs)), default=_NEVER)
        for consumer in consumers:
            consumer.window(blocks, watermark)
    blocks, tasks = [], []
    for position, (stream, cursor, stream_jobs) in enumerate(zip(streams, cursors, jobs)):
        closed, counts = stream_jobs.finish()
        if len(closed.events):
            blocks.append(StreamBlock(position, int(stream["task_id"]), cursor.read, closed.events[:0], closed.events,
                                      closed.rows))
        tasks.append(TaskInfo(index=int(stream["task_id"]), name=str(stream["name"]), stream=int(stream["stream_id"]),
                              tid=int(stream["tid"]), period_ns=int(stream["period_ns"]),
                              deadline_ns=int(stream["deadline_ns"]), lost_events=int(stream.get("lost", 0)),
                              released=counts.released, censored=counts.censored, incomplete=counts.incomplete,
                              unfinished_missed=counts.unfinished_missed,
                              unfinished_tardiness_ns=counts.unfinished_tardiness_ns))
    for consumer in consumers:
        consumer.window(blocks, _NEVER)
    for consumer in consumers:
        consumer.finish(tuple(tasks))
    return tuple(tasks)

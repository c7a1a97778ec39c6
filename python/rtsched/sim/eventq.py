"""The simulator's event queue: a min-heap of (time_ns, seq, kind, thread, arg).

Invariant: events come out in time order and, at one time, in the order they
were pushed (``seq`` increases with every push), so a run is deterministic.
An event may be stale (its thread's state moved on since it was pushed); the
engine checks the version it carries (``arg``) and skips it.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

__all__ = ["EventQueue", "RELEASE", "READY", "DONE", "WAKE"]

#: A task's next job is released (arg: the nominal release time in ns).
RELEASE = 0
#: A released job becomes runnable after its release latency (arg: (nominal release ns, RELEASE's arg0)).
READY = 1
#: The running thread's current stretch of CPU time ends (arg: its run version).
DONE = 2
#: A sleeping thread wakes (arg: its sleep version).
WAKE = 3


class EventQueue:
    """``heap`` and ``seq`` (an ``itertools.count``) are public for the engine's hot loop, which
    pops and pushes them inline: ``heappush(q.heap, (time, next(q.seq), kind, thread, arg))``."""

    __slots__ = ("heap", "seq")

    def __init__(self) -> None:
        self.heap: list[tuple[int, int, int, Any, Any]] = []  # arg: an int, READY's a pair
        self.seq = itertools.count()

    def push(self, time_ns: int, kind: int, thread: Any, arg: Any) -> None:
        heapq.heappush(self.heap, (time_ns, next(self.seq), kind, thread, arg))

    def next_time(self) -> int | None:
        """The time of the earliest event, None when empty."""
        return self.heap[0][0] if self.heap else None

    def pop_at(self, time_ns: int) -> list[tuple[int, int, int, Any, int]]:
        """Every event at ``time_ns`` (the earliest time), in push order."""
        heap = self.heap
        out = []
        while heap and heap[0][0] == time_ns:
            out.append(heapq.heappop(heap))
        return out

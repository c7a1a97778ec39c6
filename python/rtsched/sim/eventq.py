"""The simulator's event queue: a min-heap of (time_ns, seq, kind, thread, arg).

Invariant: events come out in time order and, at one time, in the order they
were pushed (``seq`` increases with every push), so a run is deterministic.
An event may be stale (its thread's state moved on since it was pushed); the
engine checks the version it carries (``arg``) and skips it.
"""

from __future__ import annotations

import heapq
from typing import Any

__all__ = ["EventQueue", "RELEASE", "READY", "DONE", "WAKE"]

#: A task's next job is released (arg: the nominal release time in ns).
RELEASE = 0
#: A released job becomes runnable after its release latency (arg: nominal release, ns).
READY = 1
#: The running thread's current stretch of CPU time ends (arg: its run version).
DONE = 2
#: A sleeping thread wakes (arg: its sleep version).
WAKE = 3


class EventQueue:
    __slots__ = ("_heap", "_seq")

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, int, Any, int]] = []
        self._seq = 0

    def push(self, time_ns: int, kind: int, thread: Any, arg: int) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (time_ns, self._seq, kind, thread, arg))

    def next_time(self) -> int | None:
        """The time of the earliest event, None when empty."""
        return self._heap[0][0] if self._heap else None

    def pop_at(self, time_ns: int) -> list[tuple[int, int, int, Any, int]]:
        """Every event at ``time_ns`` (the earliest time), in push order."""
        heap = self._heap
        out = []
        while heap and heap[0][0] == time_ns:
            out.append(heapq.heappop(heap))
        return out

"""The part of a ULT's switched-in time its worker really had the CPU, from the kernel's schedule.

The ult backend charges a reservation its tasks' CPU time (the worker's CPU clock,
docs/ult.md), while rtsched's trace gives wall-clock intervals (START/RESUME .. PREEMPT/COMPLETE).
Time the kernel gives the worker's CPU to another thread, an interrupt or the fair server while
a ULT is switched in is in the interval, not in the budget. A live test that checks a budget
from the trace records the kernel's schedule of the CPU during the run and keeps only the
stretches the worker held (``worker_share``). The host's steal of a virtual CPU is in neither
view: tests skip on it with the figure (stolen_cpu.skip_if_stolen).
"""

from __future__ import annotations

import contextlib
from bisect import bisect_left, bisect_right
from typing import Iterator

from rtsched.measure.kernel_recorder import KernelSchedError, KernelSchedRecorder
from rtsched.trace.kernel_sched import KernelSchedule

Interval = tuple[int, int]


@contextlib.contextmanager
def kernel_schedule_of(cpus: list[int]) -> Iterator[list[KernelSchedule]]:
    """Records the kernel's schedule of ``cpus`` around the block: the list holds it after the
    block, and stays empty where tracefs refuses (then wall time is all a test has)."""
    got: list[KernelSchedule] = []
    try:
        recorder = KernelSchedRecorder(cpus)
        recorder.__enter__()
    except KernelSchedError:
        yield got
        return
    try:
        yield got
    finally:
        recorder.__exit__(None, None, None)
    got.append(recorder.schedule)


def overlap(a: Interval, b: Interval) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def worker_share(intervals: list[Interval], schedule: KernelSchedule, cpu: int) -> list[Interval]:
    """``intervals`` cut to the stretches in which the worker held ``cpu``. The worker is the
    thread that held the CPU longest inside the intervals: the ULTs run on it."""
    stretches = sorted(schedule.intervals.get(cpu, []))
    starts = [start for start, _, _ in stretches]
    pieces = []  # (interval, stretch) that overlap
    for interval in sorted(intervals):
        # a stretch that began before the interval may still cover its start
        for index in range(max(0, bisect_right(starts, interval[0]) - 1), bisect_left(starts, interval[1])):
            if overlap(interval, stretches[index][:2]):
                pieces.append((interval, stretches[index]))
    held: dict[tuple, int] = {}
    for interval, (start, end, holder) in pieces:
        if holder[0] == "task":
            held[holder] = held.get(holder, 0) + overlap(interval, (start, end))
    if not held:
        return []
    worker = max(held, key=held.__getitem__)
    return [(max(a, start), min(b, end)) for (a, b), (start, end, holder) in pieces if holder == worker]

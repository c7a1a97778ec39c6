"""The kernel's schedule of a run's CPUs, read from a tracefs text trace: who had each CPU when.

A job that takes longer than its bound was either given more work than the
model says or kept off its CPU by something the model does not know: an
interrupt, a kernel thread, another real-time program, or a ``SCHED_OTHER``
thread run ahead of the real-time ones (the kernel's fair server, Linux
≥ 6.12, which gives fair tasks up to ``runtime`` per ``period`` on each CPU,
50 ms per second by default; older kernels: RT throttling). rtsched's own
trace sees only its threads; this is the kernel's side
(``rtsched.measure.kernel_recorder`` records it during a run).

:func:`parse_sched_text` reads the text of a tracefs ``trace`` file with
``sched_switch``, ``sched_wakeup``, ``irq_handler_entry/exit`` and
``softirq_entry/exit`` and attributes every stretch of time on a CPU, from
one event to the next, to the interrupt or soft interrupt being handled, or
else to the task in the line's task column (the kernel leaves out some
switches out of idle; the column is always right). Times are the trace
clock's (``mono``: the clock of rtsched's own traces) in integer ns.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

__all__ = ["RT_PRIO_LIMIT", "Usage", "KernelSchedule", "parse_sched_text"]

RT_PRIO_LIMIT = 100  # kernel prio below this: SCHED_FIFO / SCHED_RR (-1: SCHED_DEADLINE)

_LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+"
                   r"(?P<sec>\d+)\.(?P<frac>\d+):\s+(?P<event>\w+):\s?(?P<rest>.*)$")
_WAKEUP = re.compile(r"comm=(?P<comm>.*?) pid=(?P<pid>\d+) prio=(?P<prio>-?\d+)")
_NEXT = re.compile(r"next_comm=(?P<comm>.*?) next_pid=(?P<pid>\d+) next_prio=(?P<prio>-?\d+)")
_IRQ_NAME = re.compile(r"name=(\S+)")
_SOFTIRQ = re.compile(r"action=(\w+)")

#: Who had a CPU: ("task", pid, comm), ("irq", 0, name) or ("softirq", 0, action).
Holder = tuple[str, int, str]


@dataclass(frozen=True, slots=True)
class Usage:
    """Time of one window on one or more CPUs, in ns, by who had the CPU.

    ``tasks``: (pid, comm, kind) → ns, kind ``rt`` (SCHED_FIFO/RR/DEADLINE)
    or ``fair`` (any other policy); ``irqs``: "irq NAME" / "softirq ACTION" →
    ns; ``idle_ns``: the idle task.
    """

    tasks: dict[tuple[int, str, str], int]
    irqs: dict[str, int]
    idle_ns: int

    def foreign(self, own_pids: Iterable[int]) -> dict[tuple[int, str, str], int]:
        """Tasks other than ``own_pids`` (and other than the idle task)."""
        own = set(own_pids)
        return {k: v for k, v in self.tasks.items() if k[0] not in own}


@dataclass
class _Parsed:
    intervals: dict[int, list[tuple[int, int, Holder]]] = field(default_factory=dict)
    prio: dict[int, int] = field(default_factory=dict)
    first_ns: int | None = None
    last_ns: int | None = None


class KernelSchedule:
    """Per CPU, time-ordered (start_ns, end_ns, holder) stretches, and each task's last kernel prio,
    parsed from the trace's text when first asked for: a run in which no job went above its
    bound never asks, and its report does not wait for the parse (0.2 s of a 10 s run's text)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._ends: dict[int, list[int]] = {}  # per CPU, the stretches' ends when they are in time order

    @cached_property
    def _parsed(self) -> _Parsed:
        parsed = _parse(self._text)
        self._text = ""
        return parsed

    @property
    def intervals(self) -> dict[int, list[tuple[int, int, Holder]]]:
        return self._parsed.intervals

    @property
    def prio(self) -> dict[int, int]:
        return self._parsed.prio

    @property
    def first_ns(self) -> int | None:
        return self._parsed.first_ns

    @property
    def last_ns(self) -> int | None:
        return self._parsed.last_ns

    def covers(self, start_ns: int, end_ns: int) -> bool:
        """Whether the trace spans [start_ns, end_ns]."""
        return (self.first_ns is not None and self.last_ns is not None
                and self.first_ns <= start_ns and end_ns <= self.last_ns)

    def usage(self, cpus: Iterable[int], start_ns: int, end_ns: int) -> Usage:
        """Who had ``cpus`` during [start_ns, end_ns)."""
        tasks: dict[tuple[int, str, str], int] = defaultdict(int)
        irqs: dict[str, int] = defaultdict(int)
        idle = 0
        for cpu in cpus:
            for a, b, (kind, pid, name) in self._overlapping(cpu, start_ns, end_ns):
                if b <= start_ns or a >= end_ns:
                    continue
                ns = min(b, end_ns) - max(a, start_ns)
                if kind != "task":
                    irqs[f"{kind} {name}"] += ns
                elif pid == 0:
                    idle += ns
                else:
                    rt = self.prio.get(pid, RT_PRIO_LIMIT) < RT_PRIO_LIMIT
                    tasks[(pid, name, "rt" if rt else "fair")] += ns
        return Usage(dict(tasks), dict(irqs), idle)

    def _overlapping(self, cpu: int, start_ns: int, end_ns: int) -> list[tuple[int, int, Holder]]:
        """``cpu``'s stretches from the first that ends after ``start_ns`` to the last that begins
        before ``end_ns``, found by bisection where the stretches follow one another in time (as
        the parser records them), else all of them."""
        stretches = self.intervals.get(cpu, [])
        ends = self._ends.get(cpu)
        if ends is None or len(ends) != len(stretches):
            ordered = all(b0 <= a1 for (_, b0, _h0), (a1, _, _h1) in zip(stretches, stretches[1:]))
            ends = self._ends[cpu] = [b for _, b, _h in stretches] if ordered else []
        if len(ends) != len(stretches):
            return stretches
        first = bisect_right(ends, start_ns)
        last = bisect_left(ends, end_ns, lo=first)
        return stretches[first:last + 1]


def parse_sched_text(text: str) -> KernelSchedule:
    """A tracefs ``trace`` file's text as a :class:`KernelSchedule` (other lines are skipped),
    parsed when first asked for."""
    return KernelSchedule(text)


def _parse(text: str) -> _Parsed:
    out = _Parsed()
    last: dict[int, int] = {}
    irq_stack: dict[int, list[Holder]] = defaultdict(list)
    for line in text.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        cpu = int(m["cpu"])
        ts = int(m["sec"]) * 1_000_000_000 + int(m["frac"].ljust(9, "0")[:9])
        pid, comm, event, rest = int(m["pid"]), m["comm"], m["event"], m["rest"]
        if out.first_ns is None:
            out.first_ns = ts
        out.last_ns = ts
        if cpu in last and ts > last[cpu]:
            stack = irq_stack[cpu]
            holder: Holder = stack[-1] if stack else ("task", pid, comm)
            out.intervals.setdefault(cpu, []).append((last[cpu], ts, holder))
        last[cpu] = ts
        if event == "sched_switch":
            n = _NEXT.search(rest)
            if n:
                out.prio[int(n["pid"])] = int(n["prio"])
        elif event == "sched_wakeup":
            w = _WAKEUP.search(rest)
            if w:
                out.prio[int(w["pid"])] = int(w["prio"])
        elif event == "irq_handler_entry":
            name = _IRQ_NAME.search(rest)
            irq_stack[cpu].append(("irq", 0, name.group(1) if name else "?"))
        elif event == "softirq_entry":
            action = _SOFTIRQ.search(rest)
            irq_stack[cpu].append(("softirq", 0, action.group(1) if action else "?"))
        elif event in ("irq_handler_exit", "softirq_exit") and irq_stack[cpu]:
            irq_stack[cpu].pop()
    return out

"""What the kernel ran on each CPU, from tracefs: who took the CPU from a job, and for how long.

A job that takes longer than its bound was either given more work than the
model says or kept off its CPU by something the model does not know: an
interrupt, a kernel thread, another real-time program, or a ``SCHED_OTHER``
thread run ahead of real-time ones (the kernel's fair server, Linux ≥ 6.12,
which gives fair tasks up to ``runtime`` per ``period`` on each CPU, 50 ms per
second by default; older kernels: RT throttling). rtsched's own trace sees
only its threads; this module records the kernel's view during a run.

:class:`KernelSchedRecorder` makes a tracefs *instance* of its own
(``instances/rtsched-<pid>``: the global buffer and other tracers are left
alone), with the ``mono`` clock (the clock of rtsched's traces), on the given
CPUs, enabling ``sched_switch``, ``sched_wakeup``, ``irq_handler_entry/exit``
and ``softirq_entry/exit``; :func:`parse_sched_text` turns its text output
into :class:`CpuIntervals`: every stretch of time on a CPU attributed to the
task that ran (the task column of each line: the kernel leaves out some
switches out of idle, the column does not) or to the interrupt or soft
interrupt that was being handled. :meth:`KernelSchedule.usage` sums a
window.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["TRACEFS_DIRS", "KernelSchedError", "Usage", "KernelSchedule", "KernelSchedRecorder",
           "parse_sched_text"]

TRACEFS_DIRS = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
EVENTS = ("sched/sched_switch", "sched/sched_wakeup", "irq/irq_handler_entry", "irq/irq_handler_exit",
          "irq/softirq_entry", "irq/softirq_exit")
RT_PRIO_LIMIT = 100  # kernel prio below this: SCHED_FIFO / SCHED_RR (and -1: SCHED_DEADLINE)

_LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+"
                   r"(?P<sec>\d+)\.(?P<frac>\d+):\s+(?P<event>\w+):\s?(?P<rest>.*)$")
_PRIO = re.compile(r"(?:next_)?comm=(?P<comm>.*?) (?:next_)?pid=(?P<pid>\d+) (?:next_)?prio=(?P<prio>-?\d+)")
_NEXT = re.compile(r"next_comm=(?P<comm>.*?) next_pid=(?P<pid>\d+) next_prio=(?P<prio>-?\d+)")
_IRQ_NAME = re.compile(r"name=(\S+)")
_SOFTIRQ = re.compile(r"action=(\w+)")


class KernelSchedError(RuntimeError):
    """tracefs is missing or refuses what the recorder needs (the message says which)."""


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

    def foreign(self, own_pids: set[int]) -> dict[tuple[int, str, str], int]:
        """Tasks other than ``own_pids`` and the idle task."""
        return {k: v for k, v in self.tasks.items() if k[0] not in own_pids}


@dataclass
class KernelSchedule:
    """Per CPU, time-ordered (start_ns, end_ns, who): who is (pid, comm) or ("irq"/"softirq", name)."""

    intervals: dict[int, list[tuple[int, int, tuple[object, str]]]] = field(default_factory=dict)
    prio: dict[int, int] = field(default_factory=dict)  # pid → last kernel prio seen
    first_ns: int | None = None
    last_ns: int | None = None

    def covers(self, start_ns: int, end_ns: int) -> bool:
        return self.first_ns is not None and self.last_ns is not None and \
            self.first_ns <= start_ns and end_ns <= self.last_ns

    def usage(self, cpus: tuple[int, ...] | list[int], start_ns: int, end_ns: int) -> Usage:
        tasks: dict[tuple[int, str, str], int] = defaultdict(int)
        irqs: dict[str, int] = defaultdict(int)
        idle = 0
        for cpu in cpus:
            for a, b, who in self.intervals.get(cpu, ()):
                if b <= start_ns or a >= end_ns:
                    continue
                ns = min(b, end_ns) - max(a, start_ns)
                kind, name = who
                if kind in ("irq", "softirq"):
                    irqs[f"{kind} {name}"] += ns
                elif kind == 0:
                    idle += ns
                else:
                    pid = int(kind)  # type: ignore[call-overload]
                    rt = self.prio.get(pid, RT_PRIO_LIMIT) < RT_PRIO_LIMIT
                    tasks[(pid, name, "rt" if rt else "fair")] += ns
        return Usage(dict(tasks), dict(irqs), idle)


def parse_sched_text(text: str) -> KernelSchedule:
    """A tracefs ``trace`` file (text, any clock in seconds) as a :class:`KernelSchedule`."""
    out = KernelSchedule()
    last: dict[int, int] = {}
    irq_stack: dict[int, list[tuple[str, str]]] = defaultdict(list)
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
            who: tuple[object, str] = stack[-1] if stack else (pid, "idle" if pid == 0 else comm)
            out.intervals.setdefault(cpu, []).append((last[cpu], ts, who))
        last[cpu] = ts
        if event == "sched_switch":
            n = _NEXT.search(rest)
            if n:
                out.prio[int(n["pid"])] = int(n["prio"])
        elif event == "sched_wakeup":
            w = _PRIO.search(rest)
            if w:
                out.prio[int(w["pid"])] = int(w["prio"])
        elif event == "irq_handler_entry":
            name = _IRQ_NAME.search(rest)
            irq_stack[cpu].append(("irq", name.group(1) if name else "?"))
        elif event == "softirq_entry":
            action = _SOFTIRQ.search(rest)
            irq_stack[cpu].append(("softirq", action.group(1) if action else "?"))
        elif event in ("irq_handler_exit", "softirq_exit") and irq_stack[cpu]:
            irq_stack[cpu].pop()
    return out


def tracefs_root() -> Path:
    for d in TRACEFS_DIRS:
        if os.path.isdir(os.path.join(d, "instances")):
            return Path(d)
    raise KernelSchedError("tracefs is not mounted (looked in " + ", ".join(TRACEFS_DIRS) +
                           "): mount -t tracefs nodev /sys/kernel/tracing")


class KernelSchedRecorder:
    """Records the kernel's schedule on ``cpus`` into a tracefs instance of its own.

    ``with KernelSchedRecorder([1]) as rec: ...`` then ``rec.schedule``.
    Needs write access to tracefs (root, or a tracefs mounted for the user);
    a refusal raises :class:`KernelSchedError` before anything runs.
    """

    def __init__(self, cpus: list[int] | tuple[int, ...], buffer_kb_per_cpu: int = 16384) -> None:
        self.cpus = tuple(sorted(set(cpus)))
        self.buffer_kb_per_cpu = buffer_kb_per_cpu
        self.path: Path | None = None
        self.schedule: KernelSchedule | None = None
        self.lost_events = 0

    def _write(self, name: str, value: str) -> None:
        assert self.path is not None
        try:
            (self.path / name).write_text(value)
        except OSError as error:
            raise KernelSchedError(f"{self.path / name}: {error.strerror or error}") from error

    def __enter__(self) -> "KernelSchedRecorder":
        root = tracefs_root()
        self.path = root / "instances" / f"rtsched-{os.getpid()}"
        try:
            self.path.mkdir()
        except OSError as error:
            self.path = None
            raise KernelSchedError(f"{root}/instances: cannot make an instance: {error.strerror or error}") \
                from error
        try:
            self._write("tracing_on", "0")
            self._write("trace_clock", "mono")
            self._write("buffer_size_kb", str(self.buffer_kb_per_cpu))
            self._write("tracing_cpumask", _hex_mask(self.cpus))
            for event in EVENTS:
                self._write(f"events/{event}/enable", "1")
            self._write("tracing_on", "1")
        except BaseException:
            self._remove()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.path is None:
            return
        try:
            self._write("tracing_on", "0")
            text = (self.path / "trace").read_text(errors="replace")
            self.lost_events = _lost(self.path, self.cpus)
            self.schedule = parse_sched_text(text)
        finally:
            self._remove()

    def _remove(self) -> None:
        if self.path is not None:
            try:
                os.rmdir(self.path)
            except OSError:
                pass
            self.path = None


def _hex_mask(cpus: tuple[int, ...]) -> str:
    mask = 0
    for c in cpus:
        mask |= 1 << c
    return format(mask, "x")


def _lost(path: Path, cpus: tuple[int, ...]) -> int:
    """Events the ring buffers overwrote or dropped, from per_cpu/cpuN/stats."""
    total = 0
    for cpu in cpus:
        try:
            stats = (path / "per_cpu" / f"cpu{cpu}" / "stats").read_text()
        except OSError:
            continue
        for line in stats.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("overrun", "dropped events"):
                try:
                    total += int(value.strip())
                except ValueError:
                    pass
    return total

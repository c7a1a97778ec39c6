"""Record the kernel's schedule of some CPUs during a run, in a tracefs instance of rtsched's own.

``with KernelSchedRecorder([1]) as rec: run()`` then ``rec.schedule`` (a
``rtsched.trace.kernel_sched.KernelSchedule``). The recorder makes
``instances/rtsched-<pid>`` under tracefs (the global buffer and other
tracers are left alone), with the ``mono`` clock (the clock of rtsched's
traces), tracing only the given CPUs, and enables ``sched_switch``,
``sched_wakeup``, ``irq_handler_entry/exit`` and ``softirq_entry/exit``; at
the end it reads the text, counts what the ring buffers lost and removes the
instance. A process killed before that (SIGKILL: no ``__exit__``) leaves
the instance to its watcher (``rtsched.measure.guard``), which stops and
removes it at once. It needs write access to tracefs (root, or a tracefs mounted for
the user); a refusal raises :class:`KernelSchedError`, saying which file,
before anything runs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from rtsched.measure.guard import guard_this_process
from rtsched.measure.tracefs import TRACEFS_DIRS, find_tracefs, instance_name, mount_tracefs
from rtsched.trace.kernel_sched import KernelSchedule, parse_sched_text

__all__ = ["TRACEFS_DIRS", "KernelSchedError", "KernelSchedRecorder", "tracefs_root"]

EVENTS = ("sched/sched_switch", "sched/sched_wakeup", "irq/irq_handler_entry", "irq/irq_handler_exit",
          "irq/softirq_entry", "irq/softirq_exit")


class KernelSchedError(RuntimeError):
    """tracefs is missing or refuses what the recorder needs (the message says which)."""


def tracefs_root() -> Path:
    """The mounted tracefs; mounted here first when it is mounted nowhere and this process may
    (said in one line on standard error); KernelSchedError saying what to do otherwise."""
    root = find_tracefs()
    if root is not None:
        return root
    mounted, why = mount_tracefs()
    if mounted is not None and find_tracefs() is not None:
        print(f"rtsched: mounted tracefs at {mounted} (it was not mounted) to record the kernel's schedule",
              file=sys.stderr)
        return mounted
    raise KernelSchedError("tracefs is not mounted (looked in " + ", ".join(TRACEFS_DIRS) + f"): {why}")


class KernelSchedRecorder:
    """Records the kernel's schedule of ``cpus`` (see the module doc)."""

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
        guard_this_process()  # before the instance exists: a SIGKILL from here on leaves nothing recording
        self.path = root / "instances" / instance_name(os.getpid())
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
            self._write("tracing_cpumask", format(sum(1 << c for c in self.cpus), "x"))
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


def _lost(path: Path, cpus: tuple[int, ...]) -> int:
    """Events the ring buffers overwrote or dropped (per_cpu/cpuN/stats)."""
    total = 0
    for cpu in cpus:
        try:
            stats = (path / "per_cpu" / f"cpu{cpu}" / "stats").read_text()
        except OSError:
            continue
        for line in stats.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("overrun", "dropped events") and value.strip().isdigit():
                total += int(value.strip())
    return total

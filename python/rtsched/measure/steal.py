"""CPU time the hypervisor took from this virtual machine's CPUs ("steal", /proc/stat).

On a VM the host may deschedule a virtual CPU: the guest's threads then stand
still while the guest's clocks run, and no guest mechanism (priority,
inheritance, throttling) can see or prevent it. ``rtsched run`` records the
steal time of the run's CPUs over the run, so that a response time stretched
by the host is not mistaken for the task set's own behaviour.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

__all__ = ["read_steal_ns", "steal_during", "StealSampler"]

_STAT = Path("/proc/stat")
#: Field of a ``cpuN`` line of /proc/stat holding steal time (after the name:
#: user nice system idle iowait irq softirq steal ...).
_STEAL_FIELD = 8


def read_steal_ns(cpus, stat_text: str | None = None) -> dict[int, int] | None:
    """Cumulative steal time of each CPU in ``cpus`` (ns), or None when unknown."""
    try:
        text = stat_text if stat_text is not None else _STAT.read_text()
        tick_ns = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None
    wanted = {f"cpu{c}": c for c in cpus}
    out: dict[int, int] = {}
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] in wanted and len(fields) > _STEAL_FIELD:
            out[wanted[fields[0]]] = int(fields[_STEAL_FIELD]) * tick_ns
    return out if len(out) == len(wanted) else None


def steal_during(before: dict[int, int] | None, after: dict[int, int] | None) -> dict[str, int] | None:
    """Steal time per CPU between two readings (keys are CPU numbers as strings, for JSON)."""
    if before is None or after is None:
        return None
    return {str(c): after[c] - before[c] for c in sorted(before)}


class StealSampler:
    """Samples the steal time of ``cpus`` every ``interval_ns`` in a thread while in a ``with``.

    ``samples``: (CLOCK_MONOTONIC ns, per-CPU cumulative steal ns), the clock of rtsched's
    traces, so that a job's window can be given the steal of its CPUs
    (``rtsched.report.excess``). /proc/stat counts in clock ticks (10 ms at USER_HZ 100), so
    a window's steal is known to a tick at each end. The thread sleeps between samples and
    runs at the caller's (non-real-time) policy.
    """

    def __init__(self, cpus: tuple[int, ...] | list[int], interval_ns: int = 20_000_000) -> None:
        self.cpus = tuple(cpus)
        self.interval_ns = interval_ns
        self.samples: list[tuple[int, dict[int, int]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rtsched-steal", daemon=True)

    def _sample(self) -> None:
        steal = read_steal_ns(self.cpus)
        if steal is not None:
            self.samples.append((time.monotonic_ns(), steal))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_ns / 1e9):
            self._sample()

    def __enter__(self) -> "StealSampler":
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

"""Where and when a measurement was taken: the machine, its load and the host's steal.

A measurement on a shared or virtual machine is only as good as what the
machine did meanwhile, so a profile carries the machine's identity, the load
average before and after, and the share of each CPU's time the hypervisor
took (steal) during the measurement, from /proc/stat.
"""

from __future__ import annotations

import os
import socket
from datetime import datetime, timezone
from pathlib import Path

PROC_STAT = Path("/proc/stat")
PROC_CPUINFO = Path("/proc/cpuinfo")
PROC_LOADAVG = Path("/proc/loadavg")

# /proc/stat per-CPU columns: user nice system idle iowait irq softirq steal guest guest_nice.
# guest and guest_nice are already counted in user and nice, so the total stops at steal.
_STEAL_COLUMN = 7
_TOTAL_COLUMNS = 8

CpuTimes = dict[int, tuple[int, int]]  # cpu -> (steal ticks, total ticks)


def cpu_times(stat_text: str | None = None) -> CpuTimes:
    """Per CPU: (steal, total) clock ticks since boot, from /proc/stat (or the text given)."""
    text = stat_text if stat_text is not None else PROC_STAT.read_text()
    times: CpuTimes = {}
    for line in text.splitlines():
        words = line.split()
        if not words or not words[0].startswith("cpu") or words[0] == "cpu":
            continue
        values = [int(w) for w in words[1:1 + _TOTAL_COLUMNS]]
        values += [0] * (_TOTAL_COLUMNS - len(values))
        times[int(words[0][3:])] = (values[_STEAL_COLUMN], sum(values))
    return times


def steal_ratios(before: CpuTimes, after: CpuTimes) -> dict[int, float]:
    """Per CPU: the share of its time stolen by the host between two cpu_times() readings (0..1)."""
    ratios: dict[int, float] = {}
    for cpu, (steal1, total1) in after.items():
        if cpu not in before:
            continue
        steal0, total0 = before[cpu]
        elapsed = total1 - total0
        ratios[cpu] = (steal1 - steal0) / elapsed if elapsed > 0 else 0.0
    return ratios


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages."""
    return [float(w) for w in PROC_LOADAVG.read_text().split()[:3]]


def cpu_model() -> str:
    try:
        for line in PROC_CPUINFO.read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Processor", "cpu model"):
                return value.strip()
    except OSError:
        pass
    return os.uname().machine


def utc_now_iso() -> str:
    """The current time as ISO-8601 UTC to the second, e.g. 2026-11-25T15:04:05Z."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def machine_identity() -> dict:
    """hostname, cpu_model, kernel (uname -r)."""
    return {"hostname": socket.gethostname(), "cpu_model": cpu_model(), "kernel": os.uname().release}

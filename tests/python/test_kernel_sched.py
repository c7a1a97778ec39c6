"""The kernel's schedule from tracefs: parsing, attribution of a window, and a live recording."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import pytest

from rtsched.measure.kernel_recorder import KernelSchedError, KernelSchedRecorder, tracefs_root
from rtsched.trace.kernel_sched import parse_sched_text

# Times are seconds.microseconds as the `mono` clock prints them. CPU 1: idle
# until a timer wakes rt (pid 100, prio 9) - the kernel writes no switch out of
# idle here, the task column shows who runs -, an interrupt and a soft
# interrupt inside it, then a fair task (pid 200) while rt is still runnable.
TEXT = """\
# tracer: nop
          <idle>-0       [001] d.h1.   100.000000: sched_wakeup: comm=rt pid=100 prio=9 target_cpu=001
              rt-100     [001] d.h..   100.001000: irq_handler_entry: irq=36 name=virtio1-req.0
              rt-100     [001] d.h..   100.001010: irq_handler_exit: irq=36 ret=handled
              rt-100     [001] ..s..   100.001010: softirq_entry: vec=9 [action=RCU]
              rt-100     [001] ..s..   100.001040: softirq_exit: vec=9 [action=RCU]
              rt-100     [001] d..2.   100.002000: sched_switch: prev_comm=rt prev_pid=100 prev_prio=9 prev_state=R ==> next_comm=grep next_pid=200 next_prio=120
            grep-200     [001] d..2.   100.005000: sched_switch: prev_comm=grep prev_pid=200 prev_prio=120 prev_state=Z ==> next_comm=rt next_pid=100 next_prio=9
              rt-100     [001] d..2.   100.006000: sched_switch: prev_comm=rt prev_pid=100 prev_prio=9 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0       [000] d..2.   100.006500: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=300 next_prio=120
          <idle>-0       [001] d.h1.   100.007000: sched_wakeup: comm=rt pid=100 prio=9 target_cpu=001
"""
US = 1_000


def test_window_is_attributed_by_task_column_and_interrupts():
    ks = parse_sched_text(TEXT)
    u = ks.usage([1], 100_000_000 * US, 100_007_000 * US)
    assert u.tasks == {(100, "rt", "rt"): (2000 - 40 + 1000) * US, (200, "grep", "fair"): 3000 * US}
    assert u.irqs == {"irq virtio1-req.0": 10 * US, "softirq RCU": 30 * US}
    assert u.idle_ns == 1000 * US
    assert u.foreign({100}) == {(200, "grep", "fair"): 3000 * US}
    # A sub-window cuts intervals at its edges; CPU 0 is apart.
    assert ks.usage([1], 100_004_000 * US, 100_005_500 * US).tasks == {
        (200, "grep", "fair"): 1000 * US, (100, "rt", "rt"): 500 * US}
    assert ks.usage([0], 100_000_000 * US, 100_007_000 * US).tasks == {}
    assert ks.covers(100_000_000 * US, 100_007_000 * US)
    assert not ks.covers(99_000_000 * US, 100_001_000 * US)


def test_a_window_found_by_bisection_sums_what_every_stretch_gives():
    """usage() looks only at the stretches that reach into its window: at every edge of every
    stretch and beside them, the same time per holder as summing over all of them."""
    ks = parse_sched_text(TEXT)
    edges = {t for stretches in ks.intervals.values() for a, b, _h in stretches for t in (a, b)}
    points = sorted({*edges, *(t + 1 for t in edges), *(t - 1 for t in edges)})
    for start in points:
        for end in (p for p in points if p > start):
            for cpus in ([0], [1], [0, 1]):
                every: Counter[tuple[str, int, str]] = Counter()
                for cpu in cpus:
                    for a, b, holder in ks.intervals.get(cpu, []):
                        every[holder] += max(0, min(b, end) - max(a, start))
                got = ks.usage(cpus, start, end)
                assert sum(got.tasks.values()) + sum(got.irqs.values()) + got.idle_ns == sum(every.values())
                assert got.tasks == {(pid, comm, kind): every[("task", pid, comm)]
                                     for (pid, comm, kind) in got.tasks}
                assert got.irqs == {f"{kind} {name}": every[(kind, 0, name)] for kind, _pid, name in every
                                    if kind != "task" and every[(kind, 0, name)]}
                assert got.idle_ns == sum(ns for (kind, pid, _), ns in every.items() if kind == "task" and pid == 0)


def test_lines_that_are_not_events_are_ignored():
    ks = parse_sched_text("# tracer: nop\n#\n CPU:1 [LOST 12 EVENTS]\n\n")
    assert ks.intervals == {} and ks.first_ns is None


def _tracefs_writable() -> bool:
    try:
        return os.access(tracefs_root() / "instances", os.W_OK)
    except KernelSchedError:
        return False


@pytest.mark.skipif(not _tracefs_writable(), reason="needs write access to tracefs (root)")
def test_live_recording_sees_a_fifo_child_and_cleans_up():
    cpu = os.cpu_count() - 1
    with KernelSchedRecorder([cpu], buffer_kb_per_cpu=1024) as rec:
        instance = rec.path
        child = subprocess.run(
            ["chrt", "-f", "10", "taskset", "-c", str(cpu), sys.executable, "-c",
             "import time\nfor _ in range(20): time.sleep(0.001)"], check=False)
    assert child.returncode == 0
    assert instance is not None and not instance.exists()
    ks = rec.schedule
    assert ks is not None and ks.first_ns is not None
    usage = ks.usage([cpu], ks.first_ns, ks.last_ns)
    kinds = {kind for (pid, comm, kind) in usage.tasks if comm.startswith("python")}
    assert "rt" in kinds

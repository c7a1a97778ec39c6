"""What took the CPU from the calibration's OS-interference loop, by cause.

``rtsched calibrate`` measures OS interference as the time a SCHED_FIFO loop
of fixed work loses per window (each window's length less the shortest's).
That figure alone cannot tell the machine from the method, so the windows
are laid over the kernel's schedule of the CPU recorded meanwhile
(``rtsched.trace.kernel_sched``) and the host's steal sampled from
``/proc/stat`` (``rtsched.measure.steal``), and each window's loss is split into:

- ``interrupts``: interrupt and soft-interrupt handlers, by name;
- ``threads_rt``: other real-time threads (another program's, or the kernel's
  own at real-time priority);
- ``threads_fair``: ``SCHED_OTHER`` threads run ahead of the loop: the
  kernel's fair server (Linux >= 6.12, 50 ms per second by default) or RT
  throttling gives them the CPU; the measuring command's own threads are
  named ``measuring`` apart;
- ``steal``: time the host took from the VM, which the guest's schedule
  shows as the loop running (a bare-metal machine has none: it is the
  host's disturbance, not this machine's overhead);
- ``unattributed``: the rest of the loss: what no recorded event accounts for
  (the local timer tick is not traced as an interrupt here, cache and TLB
  refills after another thread ran, frequency changes).

Figures are for the worst window (what the analysis folds in) and summed over
all windows (what the machine takes on average), in ns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from rtsched.trace.kernel_sched import KernelSchedule

__all__ = ["Causes", "causes_line", "interference_causes", "quiet_machine_note"]

#: (CLOCK_MONOTONIC ns, per-CPU cumulative steal ns), as rtsched.measure.steal samples it.
StealSample = tuple[int, dict[int, int]]


@dataclass
class Causes:
    """The loss of one window, or of several summed, by cause (ns)."""

    lost_ns: int = 0
    interrupts: dict[str, int] = field(default_factory=dict)
    threads_rt: dict[str, int] = field(default_factory=dict)
    threads_fair: dict[str, int] = field(default_factory=dict)
    measuring_ns: int = 0
    steal_ns: int = 0

    @property
    def attributed_ns(self) -> int:
        return (sum(self.interrupts.values()) + sum(self.threads_rt.values()) + sum(self.threads_fair.values())
                + self.measuring_ns + self.steal_ns)

    @property
    def unattributed_ns(self) -> int:
        return max(0, self.lost_ns - self.attributed_ns)

    def add(self, other: "Causes") -> None:
        self.lost_ns += other.lost_ns
        self.measuring_ns += other.measuring_ns
        self.steal_ns += other.steal_ns
        for mine, theirs in ((self.interrupts, other.interrupts), (self.threads_rt, other.threads_rt),
                             (self.threads_fair, other.threads_fair)):
            for name, ns in theirs.items():
                mine[name] = mine.get(name, 0) + ns

    def as_dict(self) -> dict:
        def largest(d: dict[str, int]) -> dict[str, int]:
            return dict(sorted(d.items(), key=lambda kv: -kv[1]))

        return {"lost_ns": self.lost_ns, "interrupts": largest(self.interrupts),
                "threads_rt": largest(self.threads_rt), "threads_fair": largest(self.threads_fair),
                "measuring_ns": self.measuring_ns, "steal_ns": self.steal_ns,
                "unattributed_ns": self.unattributed_ns}


def _steal_in(samples: Sequence[StealSample], cpu: int, start_ns: int, end_ns: int) -> int:
    """The steal of ``cpu`` between the last sample at or before start and the first at or after
    end, spread evenly over that span and scaled to the window (``/proc/stat`` counts in ticks)."""
    before = [s for s in samples if s[0] <= start_ns]
    after = [s for s in samples if s[0] >= end_ns]
    if not before or not after:
        return 0
    (t0, s0), (t1, s1) = before[-1], after[0]
    if t1 <= t0 or cpu not in s0 or cpu not in s1:
        return 0
    return int((s1[cpu] - s0[cpu]) * (end_ns - start_ns) / (t1 - t0))


def _window(kernel: KernelSchedule | None, steal: Sequence[StealSample], cpu: int, loop_tid: int,
            measuring_pids: set[int], start_ns: int, length_ns: int, base_ns: int) -> Causes:
    causes = Causes(lost_ns=length_ns - base_ns)
    end_ns = start_ns + length_ns
    if kernel is not None and kernel.covers(start_ns, end_ns):
        usage = kernel.usage([cpu], start_ns, end_ns)
        causes.interrupts = dict(usage.irqs)
        for (pid, comm, kind), ns in usage.foreign([loop_tid]).items():
            if pid in measuring_pids:
                causes.measuring_ns += ns
            else:
                into = causes.threads_rt if kind == "rt" else causes.threads_fair
                into[comm] = into.get(comm, 0) + ns
    causes.steal_ns = min(_steal_in(steal, cpu, start_ns, end_ns), max(0, causes.lost_ns - causes.attributed_ns))
    return causes


def interference_causes(starts_ns: Sequence[int], lengths_ns: Sequence[int], cpu: int, loop_tid: int,
                        kernel: KernelSchedule | None, steal: Sequence[StealSample],
                        measuring_pids: set[int]) -> dict:
    """The worst window's causes and the sum over every window (see the module doc)."""
    base = min(lengths_ns)
    worst_at = max(range(len(lengths_ns)), key=lambda i: lengths_ns[i])
    total = Causes()
    worst = Causes()
    for i, (start, length) in enumerate(zip(starts_ns, lengths_ns)):
        window = _window(kernel, steal, cpu, loop_tid, measuring_pids, start, length, base)
        total.add(window)
        if i == worst_at:
            worst = window
    return {"kernel_schedule": kernel is not None, "windows": len(lengths_ns),
            "worst_window": worst.as_dict(), "all_windows": total.as_dict()}


def _ms(ns: int) -> str:
    return f"{ns / 1e6:.3f} ms"


def causes_line(causes: dict, title: str) -> str:
    """One line: a window's loss and its largest causes."""
    lost = causes["lost_ns"]
    parts = []
    if causes["steal_ns"]:
        parts.append(f"host steal {_ms(causes['steal_ns'])}")
    parts += [f"{name} {_ms(ns)}" for name, ns in list(causes["interrupts"].items())[:3]]
    parts += [f"{comm} (real-time) {_ms(ns)}" for comm, ns in list(causes["threads_rt"].items())[:3]]
    parts += [f"{comm} (fair, run by the fair server) {_ms(ns)}"
              for comm, ns in list(causes["threads_fair"].items())[:3]]
    if causes["measuring_ns"]:
        parts.append(f"the measuring command's own threads {_ms(causes['measuring_ns'])}")
    parts.append(f"unattributed {_ms(causes['unattributed_ns'])}")
    return f"{title}: {_ms(lost)} lost: " + ", ".join(parts)


def quiet_machine_note(causes: dict) -> str | None:
    """What a quiet bare-metal machine would remove from the worst window, if anything."""
    lost = causes["lost_ns"]
    removable = causes["steal_ns"] + causes["measuring_ns"] + sum(causes["threads_fair"].values())
    if lost <= 0 or removable <= 0:
        return None
    return (f"{_ms(removable)} of the worst window's {_ms(lost)} came from host steal, other programs' "
            "fair threads or the measuring command itself: a quiet bare-metal machine would not have it")


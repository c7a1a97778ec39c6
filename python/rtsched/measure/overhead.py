"""The OS-overhead test of seed 002 §2.5.2 (ASMP-Linux), on a stock kernel.

A loop of integer arithmetic calibrated to a target length (default 100 ms)
runs N times; each run takes T_x = T + epsilon, and with T estimated by the
fastest run, epsilon = T_x - min(T_x) is the time the system took from the
loop. Four variants, as the thesis's N, R_w, R_b and A_on:

- ``other``: SCHED_OTHER;
- ``fifo-irq``: SCHED_FIFO on the CPU that takes the most device interrupts;
- ``fifo-quiet``: SCHED_FIFO on the CPU that takes the fewest;
- ``fifo-shielded``: SCHED_FIFO on a CPU shielded with ``rtsched shield``.

Only one loop runs at a time (a SCHED_FIFO loop owns its CPU), with a gap
between loops that keeps it under the kernel's RT throttling.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from rtsched.measure import irqs
from rtsched.native import NativeToolFailed, run_native_tool

VARIANTS = ("other", "fifo-irq", "fifo-quiet", "fifo-shielded")


class OverheadError(RuntimeError):
    pass


@dataclass
class OverheadRun:
    variant: str
    cpu: int
    raw: dict

    @property
    def samples_ns(self) -> list[int]:
        return self.raw["samples_ns"]

    def epsilons_ms(self, base_ns: int | None = None) -> list[float]:
        base = base_ns if base_ns is not None else min(self.samples_ns)
        return [(s - base) / 1e6 for s in self.samples_ns]

    def summary(self, base_ns: int | None = None) -> dict:
        eps = sorted(self.epsilons_ms(base_ns))
        n = len(eps)
        if not n:
            return {"variant": self.variant, "cpu": self.cpu, "iterations": 0}
        mean = sum(eps) / n
        var = sum((e - mean) ** 2 for e in eps) / n
        return {
            "variant": self.variant,
            "cpu": self.cpu,
            "iterations": n,
            "base_ms": (base_ns if base_ns is not None else min(self.samples_ns)) / 1e6,
            "eps_avg_ms": mean,
            "eps_std_ms": var ** 0.5,
            "eps_min_ms": eps[0],
            "eps_p99_ms": eps[min(n - 1, int(0.99 * n))],
            "eps_max_ms": eps[-1],
        }


def irq_cpus(online: list[int], seconds: float = 0.5) -> tuple[int, int, dict[int, int]]:
    """(CPU with the most device interrupts, CPU with the fewest, counts).

    Counted over ``seconds`` now (under the load that is running), with the
    totals since boot breaking ties.
    """
    rates = irqs.device_irq_rates(seconds)
    totals = irqs.device_irq_counts()
    key = {cpu: (rates.get(cpu, 0), totals.get(cpu, 0)) for cpu in online}
    busiest = max(online, key=lambda c: key[c])
    quietest = min(online, key=lambda c: key[c])
    if busiest == quietest and len(online) > 1:
        quietest = next(c for c in online if c != busiest)
    return busiest, quietest, {c: key[c][0] for c in online}


def calibrate(cpu: int, priority: int, target_ms: float) -> int:
    """Loop steps for ``target_ms`` on ``cpu`` under SCHED_FIFO (so the calibration is undisturbed).

    Every variant then runs this same loop, so one base T (the fastest run of
    all) serves them all.
    """
    return int(run_loop(cpu, "fifo", priority, target_ms, 1, 0)["loop_steps"])


def run_loop(
    cpu: int,
    policy: str,
    priority: int,
    target_ms: float,
    iterations: int,
    gap_ms: float,
    cpuset: str | None = None,
    steps: int | None = None,
) -> dict:
    args = [
        "--cpu", str(cpu), "--policy", policy, "--target-ms", str(target_ms),
        "--iterations", str(iterations), "--gap-ms", str(gap_ms),
    ]
    if policy == "fifo":
        args += ["--priority", str(priority)]
    if cpuset:
        args += ["--cpuset", cpuset]
    if steps:
        args += ["--steps", str(steps)]
    bound = iterations * (target_ms + gap_ms) / 1e3 * 20 + 30  # SCHED_OTHER under load is slow
    try:
        output = run_native_tool("rtsched-overhead", args, timeout_s=bound)
    except NativeToolFailed as error:
        raise OverheadError(str(error)) from error
    data = json.loads(output)
    if data.get("format") != "rtsched-overhead/1":
        raise OverheadError("unexpected rtsched-overhead output")
    return data

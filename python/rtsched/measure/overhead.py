"""The OS-overhead test of seed 002 §2.5.2 (ASMP-Linux), on a stock kernel.

A loop of integer arithmetic calibrated to a target length (default 100 ms)
runs N times; each run takes T_x = T + epsilon, and with T estimated by the
fastest run, epsilon = T_x - min(T_x) is the time the system took from the
loop. Five variants, as the thesis's N, R_w, R_b, A_on and A_off:

- ``other``: SCHED_OTHER;
- ``fifo-irq``: SCHED_FIFO on the CPU that takes the most device interrupts;
- ``fifo-quiet``: SCHED_FIFO on the CPU that takes the fewest;
- ``fifo-shielded``: SCHED_FIFO on a CPU shielded with ``rtsched shield``;
- ``fifo-tickless``: the same on a shielded ``nohz_full`` CPU, where the
  kernel stops the local timer while the loop is the only task there (the
  thesis's A_off switched the local timer off by hand; a stock kernel does it
  with ``nohz_full``). It runs only where ``nohz_full`` covers the CPU;
  elsewhere it is skipped, saying why.

Only one loop runs at a time (a SCHED_FIFO loop owns its CPU), with a gap
between loops that keeps it under the kernel's RT throttling. Each loop's
local timer interrupts are counted (``LocalTimerWindow``): A_off's claim, no
tick during the loop, is checked rather than assumed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from rtsched.cpus import format_cpu_list
from rtsched.measure import irqs
from rtsched.measure.kernel_facts import CpuFact
from rtsched.native import NativeToolFailed, run_native_tool

VARIANTS = ("other", "fifo-irq", "fifo-quiet", "fifo-shielded", "fifo-tickless")
#: The variants that run on a CPU shielded for them.
SHIELDED_VARIANTS = ("fifo-shielded", "fifo-tickless")


class OverheadError(RuntimeError):
    pass


@dataclass(frozen=True)
class VariantPlan:
    """Where and how one variant runs, or why it cannot run here (``skipped``)."""

    variant: str
    cpu: int | None = None
    policy: str = "fifo"
    skipped: str | None = None

    @property
    def shielded(self) -> bool:
        return self.variant in SHIELDED_VARIANTS


def plan_variant(variant: str, busiest: int, quietest: int, shield_cpu: int | None, online: list[int],
                 nohz_full: CpuFact) -> VariantPlan:
    """The CPU and policy of ``variant``. The shielded ones run on ``shield_cpu`` when given;
    ``fifo-tickless`` needs a ``nohz_full`` CPU (``quietest`` if it is one, else the first)."""
    if variant == "other":
        return VariantPlan(variant, quietest, "other")
    if variant == "fifo-irq":
        return VariantPlan(variant, busiest)
    if variant == "fifo-quiet":
        return VariantPlan(variant, quietest)
    if variant == "fifo-shielded":
        return VariantPlan(variant, shield_cpu if shield_cpu is not None else quietest)
    if variant != "fifo-tickless":
        raise ValueError(f"unknown overhead variant {variant!r}")
    tickless = [cpu for cpu in online if nohz_full.covers(cpu)]
    if not tickless:
        return VariantPlan(variant, skipped=(
            "fifo-tickless (A_off, local timer off) needs a nohz_full CPU and this machine has none "
            f"({nohz_full.source}); boot with nohz_full=CPUS a kernel built with CONFIG_NO_HZ_FULL"))
    if shield_cpu is not None and shield_cpu not in tickless:
        return VariantPlan(variant, skipped=(
            f"fifo-tickless (A_off) needs a nohz_full CPU and --shield-cpu {shield_cpu} is not one "
            f"(nohz_full: {format_cpu_list(tickless)}); pass --shield-cpu {tickless[0]}"))
    if shield_cpu is not None:
        return VariantPlan(variant, shield_cpu)
    return VariantPlan(variant, quietest if quietest in tickless else tickless[0])


@dataclass
class OverheadRun:
    variant: str
    cpu: int
    raw: dict
    local_timer_interrupts: int | None = None  # taken by the loop's CPU while the variant ran

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
            return {"variant": self.variant, "cpu": self.cpu, "iterations": 0,
                    "local_timer_interrupts": self.local_timer_interrupts}
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
            "local_timer_interrupts": self.local_timer_interrupts,
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

"""Frequency/voltage levels of a CPU and its power model (``platform.dvfs``; docs/dvfs.md).

A CPU runs at one *operating point* (a frequency and the voltage it needs) at
a time. Its power, exact (``Fraction``, milliwatts):

- running at ``op``: ``dynamic(op) + static_mw`` with
  ``dynamic(op) = capacitance_pf · voltage_mv² · frequency_mhz · 1e-9`` mW
  (the CMOS ``α·C·V²·f`` of Broekaert et al. §II.A, α folded into the
  effective switched capacitance);
- idle (halted, clock gated): ``idle_mw``, at any operating point.

Energy in picojoules is power (mW) × time (ns).

Execution times scale with frequency: a ``compute`` of ``ns`` is its length at
the highest frequency ``f_max``; at ``f`` it takes
``ns · (memory_bound + (1 − memory_bound) · f_max / f)``, the
``memory_bound`` fraction being memory stalls that do not speed up with the
core clock (``slowdown``).

Invariants: operating points are sorted by strictly increasing frequency with
non-decreasing voltage (validated at load), so running power strictly increases
with frequency. ``efficient_points`` are the operating points whose energy per
unit of work (above idle) is strictly below that of every higher point: on
them that energy is strictly increasing in frequency, so a policy that picks
the lowest efficient point meeting its demand never spends more energy on a
piece of work than the highest frequency would (a point below the lowest
efficient one, the *critical frequency*, would take so long that static power
eats the dynamic saving).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["OperatingPoint", "PowerModel"]

#: mW per (pF · mV² · MHz): 1e-12 F · 1e-6 V² · 1e6 Hz = 1e-12 W = 1e-9 mW.
_MW_PER_PF_MV2_MHZ = Fraction(1, 10**9)


@dataclass(frozen=True, slots=True)
class OperatingPoint:
    """A frequency and the supply voltage the CPU needs to run at it."""

    frequency_mhz: int
    voltage_mv: int


@dataclass(frozen=True, slots=True)
class PowerModel:
    """The DVFS levels of every CPU of the platform and their power (the module's docstring)."""

    operating_points: tuple[OperatingPoint, ...]
    capacitance_pf: Fraction
    static_mw: Fraction = Fraction(0)
    idle_mw: Fraction = Fraction(0)
    memory_bound: Fraction = Fraction(0)

    @property
    def max_point(self) -> OperatingPoint:
        return self.operating_points[-1]

    def dynamic_mw(self, op: OperatingPoint) -> Fraction:
        return self.capacitance_pf * op.voltage_mv * op.voltage_mv * op.frequency_mhz * _MW_PER_PF_MV2_MHZ

    def running_mw(self, op: OperatingPoint) -> Fraction:
        """Power while the CPU executes at ``op``."""
        return self.dynamic_mw(op) + self.static_mw

    def slowdown(self, op: OperatingPoint) -> Fraction:
        """Time at ``op`` of one ns of work measured at the highest frequency (>= 1)."""
        ratio = Fraction(self.max_point.frequency_mhz, op.frequency_mhz)
        return self.memory_bound + (1 - self.memory_bound) * ratio

    def speed(self, op: OperatingPoint) -> Fraction:
        """Work (in ns at the highest frequency) done per ns at ``op`` (<= 1)."""
        return 1 / self.slowdown(op)

    def energy_per_work_pj(self, op: OperatingPoint) -> Fraction:
        """Energy beyond idling that one ns of work costs at ``op``: it takes ``slowdown`` ns at
        running power instead of idle power."""
        return (self.running_mw(op) - self.idle_mw) * self.slowdown(op)

    @property
    def efficient_points(self) -> tuple[OperatingPoint, ...]:
        """The operating points some higher point does not beat on energy per work (see the
        module's invariants); always includes the highest."""
        kept: list[OperatingPoint] = []
        best_above: Fraction | None = None
        for op in reversed(self.operating_points):
            cost = self.energy_per_work_pj(op)
            if best_above is None or cost < best_above:
                kept.append(op)
                best_above = cost
        return tuple(reversed(kept))

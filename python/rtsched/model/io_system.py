"""The I/O model (seed 002, chapters 3 and 4): peripherals behind a shared
interconnect and main memory, periodic I/O flows, and the reservation
controller's sporadic servers.

- The **memory** (interconnect and main memory together) moves at most
  ``memory_bytes_per_s``; every transfer crosses it.
- A **peripheral** reaches the interconnect through its own link of
  ``link_bytes_per_s`` (None: not a bottleneck); its flows (the thesis's
  virtual flows, one DMA engine each) share that link.
- A **flow** moves ``size_bytes`` every ``period_ns`` (the period, or the
  minimum inter-arrival of a sporadic flow: the simulation releases at that
  spacing, its worst case), first at ``offset_ns``; a chunk's data is ready at
  the peripheral at its release and must be in memory by release +
  ``deadline_ns``. ``transfer_ns`` is the chunk's transfer time alone on the
  bus, so the flow's own peak rate (its DMA engine) is size / transfer. A flow
  transfers one chunk at a time, oldest first.
- A **server** (budget_ns every period_ns) is a sporadic server of the
  reservation controller; it serves one peripheral's flows or one virtual flow.
  Servers are ordered rate-monotonically (shorter period first, the file's
  order among equal periods): ``IoSystem.servers`` is in priority order.

Invariants (checked by the loader): names unique per kind; every reference
resolves; a flow's peak rate is at most its peripheral's link and the memory
(else it could not transfer in ``transfer_ns`` even alone); either every flow
names a server or none does (the controller schedules all real-time traffic
or none).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from math import lcm

__all__ = ["Peripheral", "Flow", "IoServer", "IoSystem"]


@dataclass(frozen=True)
class Peripheral:
    name: str
    link_bytes_per_s: Fraction | None = None


@dataclass(frozen=True)
class Flow:
    name: str
    peripheral: str
    size_bytes: int
    transfer_ns: int
    period_ns: int
    deadline_ns: int
    offset_ns: int = 0
    server: str | None = None

    @property
    def peak_bytes_per_ns(self) -> Fraction:
        """The flow's rate alone on the bus: size / transfer time."""
        return Fraction(self.size_bytes, self.transfer_ns)

    @property
    def utilization(self) -> Fraction:
        return Fraction(self.transfer_ns, self.period_ns)


@dataclass(frozen=True)
class IoServer:
    name: str
    budget_ns: int
    period_ns: int

    @property
    def utilization(self) -> Fraction:
        return Fraction(self.budget_ns, self.period_ns)


@dataclass(frozen=True)
class IoSystem:
    name: str
    memory_bytes_per_s: Fraction
    peripherals: tuple[Peripheral, ...]
    flows: tuple[Flow, ...]
    #: In priority order (rate monotonic, ties in file order).
    servers: tuple[IoServer, ...] = ()
    #: Simulated length; None: one hyperperiod of the flows from the latest offset.
    horizon_ns: int | None = None

    @property
    def memory_bytes_per_ns(self) -> Fraction:
        return self.memory_bytes_per_s / 1_000_000_000

    def peripheral(self, name: str) -> Peripheral:
        for p in self.peripherals:
            if p.name == name:
                return p
        raise KeyError(name)

    def server(self, name: str) -> IoServer:
        for s in self.servers:
            if s.name == name:
                return s
        raise KeyError(name)

    def flows_of_server(self, name: str) -> tuple[Flow, ...]:
        return tuple(f for f in self.flows if f.server == name)

    @property
    def scheduled(self) -> bool:
        """True when the reservation controller serves the flows (they name servers)."""
        return bool(self.servers)

    def hyperperiod_ns(self) -> int:
        return lcm(*(f.period_ns for f in self.flows), *(s.period_ns for s in self.servers))

    def simulated_ns(self) -> int:
        """How long a simulation releases chunks: the horizon, else offsets + one hyperperiod."""
        if self.horizon_ns is not None:
            return self.horizon_ns
        return max(f.offset_ns for f in self.flows) + self.hyperperiod_ns()

    def without_controller(self) -> IoSystem:
        """The same flows on a COTS bus: no servers (the thesis's unscheduled run)."""
        return IoSystem(self.name, self.memory_bytes_per_s, self.peripherals,
                        tuple(replace(f, server=None) for f in self.flows), (), self.horizon_ns)

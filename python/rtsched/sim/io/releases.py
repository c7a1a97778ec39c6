"""The chunks an I/O simulation releases, and the pending chunks' shared bookkeeping."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from rtsched.model.io_system import Flow, IoSystem
from rtsched.sim.io.results import Chunk, Time

__all__ = ["Release", "Pending", "releases_of"]


@dataclass(frozen=True)
class Release:
    at_ns: int
    flow: Flow
    index: int


def releases_of(system: IoSystem) -> list[Release]:
    """Every chunk released before ``system.simulated_ns()``, by time (file order on ties)."""
    end = system.simulated_ns()
    result = []
    for order, flow in enumerate(system.flows):
        k = 0
        while (at := flow.offset_ns + k * flow.period_ns) < end:
            result.append((at, order, Release(at, flow, k)))
            k += 1
    return [r for _, _, r in sorted(result, key=lambda x: (x[0], x[1]))]


class Pending:
    """A released chunk not yet in memory: ``remaining`` is in bytes (shared bus) or ns (controller)."""

    def __init__(self, release: Release, remaining: Fraction | int):
        self.release = release
        self.remaining = remaining
        self.start_ns: Time | None = None

    def done(self, finish_ns: Time) -> Chunk:
        r = self.release
        return Chunk(r.flow.name, r.index, r.at_ns, r.flow.deadline_ns, self.start_ns, finish_ns)

"""What an I/O simulation returns: each chunk's transfer, the bus-access
segments (who moved data when, at what rate), and the largest backlog each
flow left waiting at its peripheral. Times are exact: integer ns under the
reservation controller, ``Fraction`` ns on the unscheduled (shared) bus."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Chunk", "BusSegment", "IoRun", "FlowOutcome"]

Time = int | Fraction


@dataclass(frozen=True)
class Chunk:
    """One chunk (job) of a flow: released at ``release_ns``, first on the bus at
    ``start_ns``, all its data in memory at ``finish_ns`` (None: not by the end)."""

    flow: str
    index: int
    release_ns: int
    deadline_ns: int
    start_ns: Time | None
    finish_ns: Time | None

    @property
    def response_ns(self) -> Time | None:
        return None if self.finish_ns is None else self.finish_ns - self.release_ns

    @property
    def transfer_ns(self) -> Time | None:
        """From the first bus access to the last byte (the thesis's "transfer time")."""
        if self.finish_ns is None or self.start_ns is None:
            return None
        return self.finish_ns - self.start_ns

    @property
    def missed(self) -> bool:
        return self.finish_ns is None or self.finish_ns > self.release_ns + self.deadline_ns


@dataclass(frozen=True)
class BusSegment:
    """``flow`` moved data from ``start_ns`` to ``end_ns`` at ``bytes_per_ns``."""

    flow: str
    start_ns: Time
    end_ns: Time
    bytes_per_ns: Fraction


@dataclass(frozen=True)
class FlowOutcome:
    flow: str
    chunks: int
    misses: int
    worst_response_ns: Time | None
    worst_transfer_ns: Time | None
    max_backlog_bytes: Fraction


@dataclass(frozen=True)
class IoRun:
    """One simulation: ``scheduled`` is True under the reservation controller."""

    scheduled: bool
    simulated_ns: int
    chunks: tuple[Chunk, ...]
    segments: tuple[BusSegment, ...]
    max_backlog_bytes: dict[str, Fraction]

    def chunks_of(self, flow: str) -> tuple[Chunk, ...]:
        return tuple(c for c in self.chunks if c.flow == flow)

    def outcome(self, flow: str) -> FlowOutcome:
        chunks = self.chunks_of(flow)
        responses = [c.response_ns for c in chunks if c.response_ns is not None]
        transfers = [c.transfer_ns for c in chunks if c.transfer_ns is not None]
        return FlowOutcome(flow, len(chunks), sum(c.missed for c in chunks),
                           max(responses, default=None), max(transfers, default=None),
                           self.max_backlog_bytes.get(flow, Fraction(0)))

    @property
    def misses(self) -> int:
        return sum(c.missed for c in self.chunks)

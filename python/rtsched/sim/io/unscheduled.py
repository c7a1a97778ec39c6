"""The COTS bus (the thesis's first runs): every chunk transfers as soon as
its data is ready, concurrent transfers share the bandwidth max-min fairly
(``bandwidth.fair_rates``) and so slow each other. A fluid, exact
(``Fraction`` ns) event simulation: between two events (a release, a chunk
done) every rate is constant, so each flow's progress is rate x time."""

from __future__ import annotations

from collections import deque
from fractions import Fraction

from rtsched.model.io_system import IoSystem
from rtsched.sim.io.bandwidth import fair_rates
from rtsched.sim.io.releases import Pending, releases_of
from rtsched.sim.io.results import BusSegment, Chunk, IoRun

__all__ = ["simulate_unscheduled"]


def _links(system: IoSystem, active: list[str]) -> list[tuple[Fraction, list[str]]]:
    links: list[tuple[Fraction, list[str]]] = [(system.memory_bytes_per_ns, active)]
    flows = {f.name: f for f in system.flows}
    for p in system.peripherals:
        members = [name for name in active if flows[name].peripheral == p.name]
        if p.link_bytes_per_s is not None and members:
            links.append((p.link_bytes_per_s / 1_000_000_000, members))
    return links


def _append(segments: list[BusSegment], seg: BusSegment) -> None:
    """Add a segment, merged into the flow's last one when it continues it at the same rate."""
    for i in range(len(segments) - 1, -1, -1):
        last = segments[i]
        if last.flow == seg.flow:
            if last.end_ns == seg.start_ns and last.bytes_per_ns == seg.bytes_per_ns:
                segments[i] = BusSegment(last.flow, last.start_ns, seg.end_ns, seg.bytes_per_ns)
                return
            break
    segments.append(seg)


def simulate_unscheduled(system: IoSystem) -> IoRun:
    """Simulate ``system``'s flows on a bus nothing schedules (its servers, if any, are ignored)."""
    releases = deque(releases_of(system))
    pending = {f.name: deque[Pending]() for f in system.flows}
    peaks = {f.name: f.peak_bytes_per_ns for f in system.flows}
    chunks: list[Chunk] = []
    segments: list[BusSegment] = []
    backlog = {f.name: Fraction(0) for f in system.flows}
    now = Fraction(0)
    while releases or any(pending.values()):
        while releases and releases[0].at_ns == now:
            r = releases.popleft()
            queue = pending[r.flow.name]
            queue.append(Pending(r, Fraction(r.flow.size_bytes)))
            backlog[r.flow.name] = max(backlog[r.flow.name], Fraction(sum(p.remaining for p in queue)))
        active = [name for name, q in pending.items() if q]
        for name in active:
            if pending[name][0].start_ns is None:
                pending[name][0].start_ns = now
        rates = fair_rates({n: peaks[n] for n in active}, _links(system, active))
        until = [Fraction(releases[0].at_ns)] if releases else []
        until += [now + pending[n][0].remaining / rates[n] for n in active]
        later = min(until)
        for name in active:
            head = pending[name][0]
            head.remaining -= rates[name] * (later - now)
            _append(segments, BusSegment(name, now, later, rates[name]))
            if head.remaining == 0:
                chunks.append(pending[name].popleft().done(later))
        now = later
    chunks.sort(key=lambda c: (c.release_ns, c.flow))
    return IoRun(False, system.simulated_ns(), tuple(chunks), tuple(segments), backlog)

"""The reservation controller (the thesis's §3.4 and §4.2): one sporadic
server per peripheral or per virtual flow, scheduled rate-monotonically; only
one flow transfers at a time, alone on the bus at its peak rate.

Each server sees its flows' ``data_rdy`` (a chunk is pending) and the
controller raises ``block`` for every server but one: the highest-priority
server whose data is ready and whose budget is not exhausted. A server's
flows are served oldest chunk first. Integer ns throughout.

Events: a release, a chunk done, a run reaching its limit (budget used up,
or a refill becoming eligible: ``SporadicServer.run_limit_ns``), a refill of
a waiting server. At each event the running server is stopped and the
controller decides again, so every run draws on one fixed set of refills.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

from rtsched.model.io_system import IoSystem
from rtsched.sim.io.releases import Pending, releases_of
from rtsched.sim.io.results import BusSegment, Chunk, IoRun
from rtsched.sim.sporadic_server import SporadicServer

__all__ = ["simulate_controller"]


def simulate_controller(system: IoSystem, max_refills: int | None = None) -> IoRun:
    """Simulate ``system`` under its servers (``system.servers``, in priority order)."""
    if not system.scheduled:
        raise ValueError(f'"{system.name}" declares no servers: nothing for the reservation controller to schedule')
    servers = {s.name: SporadicServer(s.budget_ns, s.period_ns, max_refills) for s in system.servers}
    order = [s.name for s in system.servers]
    queues = {name: deque[Pending]() for name in order}
    flows = {f.name: f for f in system.flows}
    releases = deque(releases_of(system))
    chunks: list[Chunk] = []
    segments: list[BusSegment] = []
    backlog = {f.name: Fraction(0) for f in system.flows}
    now = 0
    while releases or any(queues.values()):
        while releases and releases[0].at_ns == now:
            r = releases.popleft()
            assert r.flow.server is not None
            queue = queues[r.flow.server]
            queue.append(Pending(r, r.flow.transfer_ns))
            servers[r.flow.server].activate(now)
            mine = sum(p.remaining for p in queue if p.release.flow.name == r.flow.name)
            backlog[r.flow.name] = max(backlog[r.flow.name], mine * r.flow.peak_bytes_per_ns)
        granted = next((n for n in order if queues[n] and servers[n].available_ns(now) > 0), None)
        events = [releases[0].at_ns] if releases else []
        events += [t for n in order if queues[n] and (t := servers[n].next_refill_ns(now)) is not None]
        if granted is not None:
            head = queues[granted][0]
            if head.start_ns is None:
                head.start_ns = now
            server = servers[granted]
            server.start(now)
            end = min([now + int(head.remaining), server.run_limit_ns(now), *events])
            server.stop(end)
            head.remaining -= end - now
            flow = head.release.flow
            segments.append(BusSegment(flow.name, now, end, flow.peak_bytes_per_ns))
            if head.remaining == 0:
                chunks.append(queues[granted].popleft().done(end))
                if not queues[granted]:
                    server.deactivate(end)
            now = end
        else:
            now = min(events)
    chunks.sort(key=lambda c: (c.release_ns, c.flow))
    return IoRun(True, system.simulated_ns(), tuple(chunks), tuple(_merged(segments)), backlog)


def _merged(segments: list[BusSegment]) -> list[BusSegment]:
    """Contiguous segments of one flow as one (the controller splits runs at every event)."""
    result: list[BusSegment] = []
    for seg in segments:
        if result and result[-1].flow == seg.flow and result[-1].end_ns == seg.start_ns:
            result[-1] = BusSegment(seg.flow, result[-1].start_ns, seg.end_ns, seg.bytes_per_ns)
        else:
            result.append(seg)
    return result

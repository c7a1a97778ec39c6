"""Bounds for I/O flows under the reservation controller (seed 002, §3.3):
sporadic servers scheduled rate-monotonically on the bus, one flow each.

**Response.** Sprunt et al. show that a sporadic server (budget C_s, period
T_s) interferes with lower priorities no more than a periodic task (C_s, T_s),
so the higher-priority servers are such tasks in the response-time analysis.
A flow with transfer c <= C_s and period P >= T_s finds its server's whole
budget at each release (the previous chunk's consumption was posted back at
its activation + T_s <= its release + P), so its chunk is a task (c, P) at
the server's priority: R = c + sum_hp ceil(R / T_j) C_j (``fp_uni.response_time``).
A flow with c > C_s needs k = ceil(c / C_s) budgets: budget j is eligible at
release + (j - 1) T_s (rule 3 of ``rtsched.sim.sporadic_server``), each full
budget is served within its server's own response time R_s <= T_s, so
R <= (k - 1) T_s + R(c - (k - 1) C_s); it needs P >= k T_s.
A bound is claimed only when it is within the flow's period (chunks of a flow
never wait behind each other) and then it is also within the deadline or the
flow is reported as missing it.

**Buffer and delay.** A chunk's data is at the peripheral from its release
until it is in memory, at most R later, and R <= P, so the bridge holds at
most one chunk: ``buffer_bytes`` = size, and no byte waits longer than R
(``delay_ns``).

Not analysed (``reason`` says so): a flow on a bus without the controller
(its rate depends on every concurrent transfer), a server shared by several
flows. Bus transactions are taken as preemptible at any instant: the thesis
(§3.6) bounds the non-preemptible transaction at 16 us against periods of ms.
"""

from __future__ import annotations

from dataclasses import dataclass

from rtsched.analysis.fp_uni import response_time
from rtsched.model.io_system import Flow, IoSystem

__all__ = ["IoFlowBound", "io_flow_bounds"]


@dataclass(frozen=True)
class IoFlowBound:
    flow: str
    server: str | None
    #: Worst-case response (release to last byte in memory), None when not bounded.
    response_ns: int | None
    #: Most data waiting at the peripheral, None when not bounded.
    buffer_bytes: int | None
    #: Longest a byte waits at the peripheral, None when not bounded.
    delay_ns: int | None
    reason: str = ""


def _unbounded(flow: Flow, reason: str) -> IoFlowBound:
    return IoFlowBound(flow.name, flow.server, None, None, None, reason)


def _bound(system: IoSystem, flow: Flow) -> IoFlowBound:
    if flow.server is None:
        return _unbounded(flow, "no reservation controller: on a shared COTS bus a transfer's rate "
                                "depends on every concurrent transfer")
    if len(system.flows_of_server(flow.server)) > 1:
        return _unbounded(flow, f'server "{flow.server}" serves several flows (not analysed)')
    server = system.server(flow.server)
    rank = system.servers.index(server)
    hp = [(s.budget_ns, s.period_ns) for s in system.servers[:rank]]
    k = -(-flow.transfer_ns // server.budget_ns)
    if flow.period_ns < k * server.period_ns:
        return _unbounded(flow, f"the period ({flow.period_ns} ns) is shorter than the {k} server period(s) "
                                f"a chunk needs ({k} x {server.period_ns} ns)")
    if k > 1:
        own, _ = response_time(server.budget_ns, 0, 0, server.period_ns, server.period_ns, hp)
        if own is None:
            return _unbounded(flow, f'server "{server.name}" is not served within its period')
    last = flow.transfer_ns - (k - 1) * server.budget_ns
    limit = flow.period_ns - (k - 1) * server.period_ns
    r_last, _ = response_time(last, 0, 0, flow.period_ns, limit, hp)
    if r_last is None:
        return _unbounded(flow, f"no response bound within the period ({flow.period_ns} ns)")
    r = (k - 1) * server.period_ns + r_last
    return IoFlowBound(flow.name, flow.server, r, flow.size_bytes, r)


def io_flow_bounds(system: IoSystem) -> tuple[IoFlowBound, ...]:
    """One bound per flow of ``system``, in its order (``reason`` says why one is missing)."""
    return tuple(_bound(system, f) for f in system.flows)

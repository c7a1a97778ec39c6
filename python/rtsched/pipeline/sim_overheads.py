"""The overheads the simulator charges, from an overhead profile (the same ones the bounds count)."""

from __future__ import annotations

from rtsched.analysis.overheads import Overheads
from rtsched.sim import SimOverheads

__all__ = ["sim_overheads"]


def sim_overheads(ov: Overheads | None) -> SimOverheads:
    """What the simulator charges for ``ov`` (none: nothing)."""
    if ov is None:
        return SimOverheads()
    return SimOverheads(
        context_switch_ns=ov.context_switch_ns or 0,
        release_latency_ns=ov.release_latency_ns or 0,
        lock_ns=dict(ov.lock_ns),
        unlock_ns=dict(ov.unlock_ns),
        contended_lock_ns=dict(ov.contended_lock_ns),
        contended_unlock_ns=dict(ov.contended_unlock_ns),
        rpc_call_ns=ov.rpc_call_ns or 0,
        trace_event_ns=ov.trace_event_ns or 0,
        interference_ns=min(ov.interference_max_lost_ns or 0, ov.interference_window_ns or 0),
    )

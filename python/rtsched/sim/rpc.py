"""RPC servers of the simulator, as ``rtsched-run``'s (docs/taskset.md, Servers).

A server is a thread of base priority ``priority`` that serves one request
at a time, the most urgent caller's first (FIFO among equals): RPC_SERVE_START,
``service`` ns of CPU time, RPC_SERVE_END, then the reply. A caller records
RPC_CALL, queues its request and waits; with PI-CV (the default) it lends the
server its key while it waits, queued or in service (seed 004); it records
RPC_REPLY when it runs again. The call's overhead (``rpc_call_ns``) and the
server's trace events are served with the request. A server's events carry the caller's job
number, its arg0 the caller's task index.
"""

from __future__ import annotations

from typing import Protocol

from rtsched.trace import EventType as EV
from rtsched.sim.eventq import EventQueue
from rtsched.sim.options import SimOverheads
from rtsched.sim.threads import IDLE, SimThread

__all__ = ["call", "serve"]

_CALL, _SERVE_START, _SERVE_END = int(EV.RPC_CALL), int(EV.RPC_SERVE_START), int(EV.RPC_SERVE_END)
#: RPC_SERVE_START and RPC_SERVE_END.
_SERVER_EVENTS_PER_REQUEST = 2


class Scheduler(Protocol):
    picv: bool
    queue: EventQueue
    overheads: SimOverheads

    def block(self, thread: SimThread, holder: SimThread, cause: int, donate: bool, record: bool,
              now: int) -> None: ...
    def unblock(self, thread: SimThread, now: int) -> None: ...
    def make_ready(self, thread: SimThread) -> None: ...
    def leave_cpu(self, thread: SimThread, now: int, state: int) -> None: ...


def call(client: SimThread, server: SimThread, server_number: int, service_ns: int, sched: Scheduler,
         now: int) -> None:
    """``client`` (running) queues a request for ``service_ns`` and waits for the reply."""
    client.events.append((now, _CALL, client.cpu, client.job, server_number, 0, service_ns))
    client.in_call = True
    server.requests.append((client, service_ns))
    sched.block(client, server, 0, sched.picv, False, now)
    if server.state == IDLE:
        sched.make_ready(server)


def serve(server: SimThread, sched: Scheduler, now: int) -> None:
    """``server`` (running, its last service done): reply, then take the next request or go idle."""
    if server.serving is not None:
        client, _service = server.serving
        server.events.append((now, _SERVE_END, server.cpu, client.job, client.index, 0, server.job_cpu_ns))
        server.serving = None
        sched.unblock(client, now)
    if not server.requests:
        sched.leave_cpu(server, now, IDLE)
        return
    client, service = min(server.requests, key=lambda r: r[0].key)  # min keeps the first of equals
    server.requests.remove((client, service))
    server.serving = (client, service)
    server.events.append((now, _SERVE_START, server.cpu, client.job, client.index, 0, service))
    server.job_cpu_ns = 0
    # the call's round trip and the server's two trace events, served with the request
    ov = sched.overheads
    server.remaining = service + ov.rpc_call_ns + _SERVER_EVENTS_PER_REQUEST * ov.trace_event_ns

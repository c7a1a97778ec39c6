"""The body interpreter: what a running thread does next, at simulated time ``now``.

``advance`` runs the zero-time steps of the thread's job (job start, lock,
unlock, sleep, completion) until the thread needs CPU time (it schedules the
end of that stretch), blocks, sleeps, or has no job left. It records the
trace events the C runner's threads record, in the same order: a gated job's
LOCK_BLOCKED, then RELEASE (at the nominal release) and START; LOCK_REQUEST,
LOCK_BLOCKED, LOCK_ACQUIRE; LOCK_RELEASE; COND_WAIT, COND_WAKE, COND_SIGNAL,
COND_BROADCAST; RPC_CALL, RPC_REPLY (and a server's RPC_SERVE_START,
RPC_SERVE_END); SLEEP; COMPLETE and DEADLINE_MISS.
"""

from __future__ import annotations

from heapq import heappush
from typing import Protocol

from rtsched.trace import RELEASE_CAUSE_MASK, ReleaseCause
from rtsched.trace import EventType as EV
from rtsched.sim.eventq import DONE, WAKE
from rtsched.sim.condvars import Scheduler as CondScheduler
from rtsched.sim.condvars import SimCondVar, wake_waiters
from rtsched.sim.rpc import Scheduler as RpcScheduler
from rtsched.sim.rpc import call, serve
from rtsched.sim.protocols import Partitions, SimLock, gate_holder, try_lock, unlock, wait_at_gate
from rtsched.sim.threads import (FINISHED, IDLE, OP_ACTIVATE, OP_AFFINITY, OP_CALL, OP_COMPUTE, OP_LOCK, OP_SIGNAL, OP_SLEEP, OP_UNLOCK, OP_WAIT, SLEEPING,
                                 WAITING,
                                 SimThread)

__all__ = ["Machine", "advance"]


class Machine(CondScheduler, RpcScheduler, Protocol):
    """What the body interpreter asks of the engine (rtsched.sim.engine.Engine is one): the
    engine calls ``advance`` and passes itself, so the body never imports the engine."""

    partitions: Partitions
    gated: bool
    jobs_completed: int
    locks: list[SimLock]
    condvars: list[SimCondVar]
    threads: list[SimThread]
    first_server: int

    def begin_job(self, t: SimThread) -> None: ...
    def completed(self, t: SimThread, now: int) -> None: ...
    def activate(self, by: SimThread, index: int, now: int) -> None: ...
    def move(self, t: SimThread, cpu_set: int, now: int) -> bool: ...
    def release_next_start(self, t: SimThread, now: int) -> None: ...
    def leave_cpu(self, t: SimThread, now: int, state: int) -> None: ...

_RELEASE, _START, _COMPLETE, _MISS = int(EV.RELEASE), int(EV.START), int(EV.COMPLETE), int(EV.DEADLINE_MISS)
_REQUEST, _ACQUIRE, _UNLOCKED, _SLEEP = (int(EV.LOCK_REQUEST), int(EV.LOCK_ACQUIRE), int(EV.LOCK_RELEASE),
                                          int(EV.SLEEP))
_REPLY = int(EV.RPC_REPLY)
_BY_ACTIVATION = int(ReleaseCause.ACTIVATION)
_COND_WAIT, _COND_WAKE, _SIGNAL, _BROADCAST = (int(EV.COND_WAIT), int(EV.COND_WAKE), int(EV.COND_SIGNAL),
                                               int(EV.COND_BROADCAST))


def advance(engine: Machine, t: SimThread, now: int) -> None:
    """Run ``t`` (RUNNING on ``t.cpu``) from ``now`` until it needs CPU time or leaves its CPU."""
    ops = t.ops
    n_ops = len(ops)
    events = t.events
    queue = engine.queue
    while True:
        if t.remaining > 0:
            t.version += 1
            heappush(queue.heap, (now + t.remaining, next(queue.seq), DONE, t, t.version))
            return
        if t.is_interference:  # its window of lost CPU time is over
            engine.leave_cpu(t, now, FINISHED)
            return
        if t.is_server:
            serve(t, engine, now)
            if t.remaining > 0:
                continue
            return
        pc = t.pc
        if pc < 0:  # the job's start: the gate, then RELEASE and START
            holder = gate_holder(t, engine.partitions) if engine.gated else None
            if holder is not None:
                wait_at_gate(t, holder, engine.partitions, engine, now)
                return
            t.job += 1
            if t.job_cause & RELEASE_CAUSE_MASK == _BY_ACTIVATION:  # it takes its activation as it starts,
                # as rts_activation_wait does (a job released otherwise took none)
                t.unbegun -= 1
            events.append((t.job_release, _RELEASE, t.cpu, t.job, t.job_cause, 0, t.job_deadline))
            events.append((now, _START, t.cpu, t.job, 0, 0, 0))
            t.remaining += engine.overheads.trace_event_ns * t.events_per_job
            t.pc = 0
            if t.starts_next is not None:
                engine.release_next_start(t, now)
            continue
        if pc == n_ops:  # the job's end
            events.append((now, _COMPLETE, t.cpu, t.job, 0, 0, t.job_cpu_ns))
            if now > t.job_deadline:
                events.append((now, _MISS, t.cpu, t.job, 0, 0, now - t.job_deadline))
            engine.jobs_completed += 1
            engine.completed(t, now)  # a self-paced task's next release
            if t.max_jobs and t.job >= t.max_jobs:
                engine.leave_cpu(t, now, FINISHED)
                return
            if not t.pending:
                engine.leave_cpu(t, now, IDLE)
                return
            engine.begin_job(t)
            continue
        op, arg = ops[pc]
        if op == OP_COMPUTE:
            t.remaining = t.exec_times.draw(arg)
            t.pc = pc + 1
        elif op == OP_LOCK:
            lock = engine.locks[arg]
            if t.granted is lock:  # handed over while it was blocked
                t.granted = None
                t.retrying = False
                events.append((now, _ACQUIRE, t.cpu, t.job, arg, 0, 0))
                t.remaining += engine.overheads.lock_cost_ns(lock.protocol, True)
                t.pc = pc + 1
                continue
            if not t.retrying:
                events.append((now, _REQUEST, t.cpu, t.job, arg, 0, 0))
            if not try_lock(t, lock, engine.partitions, engine, now):
                t.retrying = True  # woken, it asks again without a second LOCK_REQUEST
                return
            contended = t.retrying
            t.retrying = False
            events.append((now, _ACQUIRE, t.cpu, t.job, arg, 0, 0))
            t.remaining += engine.overheads.lock_cost_ns(lock.protocol, contended)
            t.pc = pc + 1
        elif op == OP_SLEEP:
            events.append((now, _SLEEP, t.cpu, t.job, 0, 0, arg))
            t.pc = pc + 1
            engine.leave_cpu(t, now, SLEEPING)
            engine.queue.push(now + arg, WAKE, t, t.version)
            return
        elif op == OP_UNLOCK:
            lock = engine.locks[arg]
            contended = unlock(t, lock, engine.partitions, engine, now)
            events.append((now, _UNLOCKED, t.cpu, t.job, arg, 0, 0))
            t.remaining += engine.overheads.unlock_cost_ns(lock.protocol, contended)
            t.pc = pc + 1
        elif op == OP_WAIT:
            cv = engine.condvars[arg]
            if t.in_wait:  # woken, the mutex taken again (perhaps handed over)
                t.granted = None
            else:
                events.append((now, _COND_WAIT, t.cpu, t.job, arg, 0, 0))
                cv.waiting += 1
                t.in_wait = True
            if cv.pending:
                cv.pending -= 1
                cv.waiting -= 1
                t.in_wait = False
                events.append((now, _COND_WAKE, t.cpu, t.job, arg, 0, 0))
                t.pc = pc + 1
                continue
            unlock(t, cv.mutex, engine.partitions, engine, now)
            cv.waiters.append(t)
            engine.leave_cpu(t, now, WAITING)
            return
        elif op == OP_ACTIVATE:
            engine.activate(t, arg, now)
            t.pc = pc + 1
        elif op == OP_AFFINITY:
            t.pc = pc + 1
            if not engine.move(t, arg, now):
                return  # off its CPU, ready: it goes on where its new CPUs let it
        elif op == OP_CALL:
            if t.in_call:  # the reply came
                t.in_call = False
                events.append((now, _REPLY, t.cpu, t.job, t.calls[arg][0] - engine.first_server, 0, 0))
                t.pc = pc + 1
                continue
            server_thread, service = t.calls[arg]
            call(t, engine.threads[server_thread], server_thread - engine.first_server, service, engine, now)
            return
        else:  # OP_SIGNAL, OP_BROADCAST
            cv = engine.condvars[arg]
            everyone = op != OP_SIGNAL
            events.append((now, _BROADCAST if everyone else _SIGNAL, t.cpu, t.job, arg, 0, 0))
            cv.pending += cv.waiting if everyone else 1
            wake_waiters(cv, everyone, engine.partitions, engine, now)
            t.pc = pc + 1

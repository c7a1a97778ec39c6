"""Event types of the trace, mirroring ``enum rts_trace_event_type`` in
``include/rtsched/trace.h`` (docs/trace-format.md has the meaning of job, arg0
and arg1 for each). 16..63 are reserved for rtsched, 64 and above are free for
users."""

from __future__ import annotations

from enum import IntEnum


class EventType(IntEnum):
    RELEASE = 1  # arg1: absolute deadline; time_ns: nominal release time
    START = 2  # the job's first instruction
    COMPLETE = 3  # arg1: CPU time the job consumed (ns)
    DEADLINE_MISS = 4  # arg1: tardiness (ns)
    BUDGET_OVERRUN = 5  # arg1: budget (ns)
    LOCK_REQUEST = 6  # arg0: resource
    LOCK_ACQUIRE = 7  # arg0: resource
    LOCK_RELEASE = 8  # arg0: resource
    COND_WAIT = 9  # arg0: condvar; about to wait
    COND_WAKE = 10  # arg0: condvar; returned from the wait with the mutex
    COND_SIGNAL = 11  # arg0: condvar
    COND_BROADCAST = 12  # arg0: condvar
    SLEEP = 13  # arg1: duration (ns)
    TASK_EXIT = 14  # arg1: jobs completed
    MARKER = 15  # arg0: user code; arg1: user value
    LOCK_BLOCKED = 16  # arg0: BlockCause; arg1: TID of the thread waited for
    BOOST = 17  # arg0: level; arg1: TID of the holder boosted to it
    UNBOOST = 18  # arg0: level given up; arg1: TID of that holder
    RPC_CALL = 19  # client: arg0: server; arg1: requested service (ns); before queueing
    RPC_SERVE_START = 20  # server: job: the caller's job; arg0: caller task; arg1: service (ns)
    RPC_SERVE_END = 21  # server: job: the caller's job; arg0: caller task; arg1: CPU time used (ns)
    RPC_REPLY = 22  # client: arg0: server; the reply arrived
    PREEMPT = 23  # ult backend: arg0: the CPU the job leaves to another job
    RESUME = 24  # ult backend: arg0: the CPU it resumes on, after a PREEMPT
    MIGRATE = 25  # ult backend: arg0: CPU it last ran on; arg1: CPU it runs on now
    PRIORITY = 26  # arg0: the thread's effective priority from now on; arg1: TID of the thread it has it from (0: its own)
    FREQ_CHANGE = 27  # simulated DVFS: cpu: the CPU; arg0: frequency (kHz); arg1: voltage (uV)
    PREM_MEMORY = 28  # arg0: interval's index in the body; arg1: ns since the interval began (gate wait); memory phase starts
    PREM_EXEC = 29  # arg0: 1 if a peripheral was still in its run span (forced); arg1: ns since the interval began
    PREM_END = 30  # arg0: involuntary switches during the interval; arg1: padding (ns, < 0: overran)
    GATE_RUN = 31  # a peripheral starts a run span: no memory phase starts until its GATE_HOLD
    GATE_HOLD = 32  # arg0: 1 held by a memory phase, 0 its work is done; the run span has ended
    # reservations (ult backend), on the reservation's stream (task_id -1): job: its period number
    RESERVATION_REPLENISH = 33  # arg0: budget used in the period before (ns, saturated); arg1: budget from now (ns)
    RESERVATION_DEPLETE = 34  # arg1: the budget that ran out (ns); time: when it reached zero
    RESERVATION_BUDGET = 35  # the controller changed the budget: arg0: its request (ns, saturated); arg1: the new budget (ns)
    # event-triggered tasks, on the activating task's stream
    ACTIVATE = 36  # arg0: the activated task's trace task id; arg1: 1 kept (a job released or waiting), 0 lost


class BlockCause(IntEnum):
    """arg0 of LOCK_BLOCKED, mirroring ``enum rts_block_cause``."""

    OWNER = 1  # the lock itself is held
    CEILING = 2  # the lock is free; the partition's system ceiling is not below the caller
    GATE = 3  # job start held back by a ceiling or a boosted holder


class ReleaseCause(IntEnum):
    """The low byte of RELEASE's arg0, mirroring ``enum rts_release_cause``; above it
    (``RELEASE_BY_SHIFT``), for an activation, the activating task's trace task id + 1 (0: none)."""

    TIMER = 0  # periodic or sporadic: its release time came
    COMPLETION = 1  # self-paced: the previous job completed (or its least gap passed)
    ACTIVATION = 2  # event-triggered: rts_task_activate


RELEASE_CAUSE_MASK = 0xFF
RELEASE_BY_SHIFT = 8
RESERVED_FIRST = 37
USER_FIRST = 64

# Module-level names, as in C: EV_RELEASE, EV_START, ...
EV_RELEASE = EventType.RELEASE
EV_START = EventType.START
EV_COMPLETE = EventType.COMPLETE
EV_DEADLINE_MISS = EventType.DEADLINE_MISS
EV_BUDGET_OVERRUN = EventType.BUDGET_OVERRUN
EV_LOCK_REQUEST = EventType.LOCK_REQUEST
EV_LOCK_ACQUIRE = EventType.LOCK_ACQUIRE
EV_LOCK_RELEASE = EventType.LOCK_RELEASE
EV_COND_WAIT = EventType.COND_WAIT
EV_COND_WAKE = EventType.COND_WAKE
EV_COND_SIGNAL = EventType.COND_SIGNAL
EV_COND_BROADCAST = EventType.COND_BROADCAST
EV_SLEEP = EventType.SLEEP
EV_TASK_EXIT = EventType.TASK_EXIT
EV_MARKER = EventType.MARKER
EV_LOCK_BLOCKED = EventType.LOCK_BLOCKED
EV_BOOST = EventType.BOOST
EV_UNBOOST = EventType.UNBOOST
EV_RPC_CALL = EventType.RPC_CALL
EV_RPC_SERVE_START = EventType.RPC_SERVE_START
EV_RPC_SERVE_END = EventType.RPC_SERVE_END
EV_RPC_REPLY = EventType.RPC_REPLY
EV_PREEMPT = EventType.PREEMPT
EV_RESUME = EventType.RESUME
EV_MIGRATE = EventType.MIGRATE
EV_PRIORITY = EventType.PRIORITY
EV_FREQ_CHANGE = EventType.FREQ_CHANGE
EV_PREM_MEMORY = EventType.PREM_MEMORY
EV_PREM_EXEC = EventType.PREM_EXEC
EV_PREM_END = EventType.PREM_END
EV_GATE_RUN = EventType.GATE_RUN
EV_GATE_HOLD = EventType.GATE_HOLD


def event_name(value: int) -> str:
    """``"RELEASE"`` for 1, ..., ``"reserved(20)"`` / ``"user(70)"`` otherwise."""
    try:
        return EventType(value).name
    except ValueError:
        return f"user({value})" if value >= USER_FIRST else f"reserved({value})"

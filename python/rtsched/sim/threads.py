"""The state of one simulated task thread, and the compiled form of a job body.

A thread runs its task's jobs one after another, as the C runner's threads
do: a job released while the previous one still runs waits in ``pending``
and starts when that one completes (its response counts from its nominal
release). Priorities are integer *keys*, smaller is more urgent: ``-priority``
under fixed priority, the absolute deadline (ns) under EDF.

Invariants: ``key`` = min(base_key, eager ceiling keys, donors' keys);
``blocked_on`` is set exactly when ``state`` is BLOCKED; an IDLE thread has nothing ``pending``; events are recorded only by a
RUNNING thread, so their CPU is never NO_CPU, except PRIORITY, which a change of donors
records on any thread (on its last CPU, or CPU_UNKNOWN before it ran); a RUNNING thread has
``cpu`` set and its CPU's slot in its domain points back to it.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rtsched.model import Broadcast, Call, Compute, IoWrite, Lock, MemWrite, Signal, Sleep, Task, Unlock, Wait
from rtsched.model.model import Activate, Affinity, SetTaskgroup

__all__ = [
    "IDLE", "READY", "RUNNING", "BLOCKED", "SLEEPING", "FINISHED", "WAITING",
    "OP_COMPUTE", "OP_SLEEP", "OP_LOCK", "OP_UNLOCK", "OP_WAIT", "OP_SIGNAL", "OP_BROADCAST", "OP_CALL",
    "OP_ACTIVATE", "OP_AFFINITY",
    "compile_body", "events_per_job", "SimThread",
]

#: WAITING: on a condition variable, its mutex given back (not blocked on a thread).
IDLE, READY, RUNNING, BLOCKED, SLEEPING, FINISHED, WAITING = range(7)
OP_COMPUTE, OP_SLEEP, OP_LOCK, OP_UNLOCK, OP_WAIT, OP_SIGNAL, OP_BROADCAST, OP_CALL, OP_ACTIVATE, OP_AFFINITY = range(10)

#: ``SimThread.cpu`` of a thread that has not run yet (it records events only while running).
NO_CPU = -1
#: The first thread id of the simulated threads (the trace's stream tids are TID_BASE + index).
TID_BASE = 10000


def compile_body(task: Task, lock_index: dict[str, int], condvar_index: dict[str, int],
                 server_index: dict[str, int], task_index: dict[str, int], cpu_sets: list[tuple[int, ...]]
                 ) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The body as (op, argument) pairs: ns for compute and sleep (a memwrite or iowrite is a
    compute of its WCET), the lock's index for lock and
    unlock, the condition variable's for wait, signal and broadcast, the call's for call, the
    activated task's for activate, the CPUs' index in ``cpu_sets`` (appended to) for affinity;
    and the calls as (server thread index, service ns)."""
    ops: list[tuple[int, int]] = []
    calls: list[tuple[int, int]] = []
    for action in task.body:
        if isinstance(action, Compute):
            ops.append((OP_COMPUTE, action.ns))
        elif isinstance(action, (MemWrite, IoWrite)):
            ops.append((OP_COMPUTE, action.wcet_ns))  # its WCET as CPU time, as the analysis takes it
        elif isinstance(action, Sleep):
            ops.append((OP_SLEEP, action.ns))
        elif isinstance(action, Lock):
            ops.append((OP_LOCK, lock_index[action.resource]))
        elif isinstance(action, Unlock):
            ops.append((OP_UNLOCK, lock_index[action.resource]))
        elif isinstance(action, Wait):
            ops.append((OP_WAIT, condvar_index[action.condvar]))
        elif isinstance(action, Signal):
            ops.append((OP_SIGNAL, condvar_index[action.condvar]))
        elif isinstance(action, Broadcast):
            ops.append((OP_BROADCAST, condvar_index[action.condvar]))
        elif isinstance(action, Call):
            ops.append((OP_CALL, len(calls)))
            calls.append((server_index[action.server], action.ns))
        elif isinstance(action, Activate):
            ops.append((OP_ACTIVATE, task_index[action.task]))
        elif isinstance(action, Affinity):
            ops.append((OP_AFFINITY, len(cpu_sets)))
            cpu_sets.append(action.cpus)
        elif isinstance(action, SetTaskgroup):
            continue  # only where it changes no share (sim/support.py: one best-effort thread per group)
        else:
            raise ValueError(f'task "{task.name}": action {action.op} is not simulated')
    return tuple(ops), tuple(calls)


#: Trace events an op records on every path (LOCK_BLOCKED and DEADLINE_MISS only on some: not counted).
_EVENTS_OF_OP = {OP_COMPUTE: 0, OP_SLEEP: 1, OP_LOCK: 2, OP_UNLOCK: 1, OP_WAIT: 2, OP_SIGNAL: 1, OP_BROADCAST: 1,
                 OP_CALL: 2, OP_ACTIVATE: 1, OP_AFFINITY: 0}
#: RELEASE, START and COMPLETE.
EVENTS_PER_JOB_BASE = 3


def events_per_job(ops: tuple[tuple[int, int], ...]) -> int:
    """The trace events every job of a body records: RELEASE, START, COMPLETE, and per op its own
    (LOCK_REQUEST and LOCK_ACQUIRE, LOCK_RELEASE, COND_WAIT and COND_WAKE, COND_SIGNAL or
    COND_BROADCAST, SLEEP, RPC_CALL and RPC_REPLY). A section counts 3 and a call 2, as
    ``analysis.overheads.apply_overheads`` counts them."""
    return EVENTS_PER_JOB_BASE + sum(_EVENTS_OF_OP[op] for op, _arg in ops)


class SimThread:
    __slots__ = (
        "index", "task_id", "name", "tid", "domain", "partition", "ops", "calls", "level", "is_edf", "is_server",
        "period_ns", "deadline_ns", "max_jobs", "gaps", "exec_times",
        "state", "base_key", "key", "seq", "queued", "cpu", "run_since", "version", "remaining",
        "pc", "job", "job_release", "job_deadline", "job_cpu_ns", "pending", "released",
        "donors", "blocked_on", "donating", "eager_keys", "held", "granted", "retrying", "in_wait",
        "in_call", "requests", "serving", "events", "events_per_job", "is_interference",
        "kind", "activation_queue", "activated_at_start", "started_by_activation", "unbegun", "pending_causes",
        "job_cause", "fair", "starts_next",
    )

    def __init__(self, index: int, name: str, domain: Any, partition: str | None, priority: int | None,
                 is_edf: bool, *, task: Task | None = None, ops: tuple[tuple[int, int], ...] = (),
                 calls: tuple[tuple[int, int], ...] = (), level: int = 0, gaps: Any = None,
                 exec_times: Any = None) -> None:
        """A task's thread (``task`` given: its index in the set) or an RPC server's (``task`` None:
        ``index`` is the stream's, after the tasks'). The engine makes OS interference threads
        from server-like ones (``is_interference``: not a server, not in the trace)."""
        self.index = index
        self.task_id = index if task is not None else -1
        self.name = name
        self.tid = TID_BASE + index
        self.domain = domain
        self.partition = partition  # its ceiling domain: the partition, or a reservation's (sim/reservation_locks.py)
        self.ops = ops
        self.calls = calls        # (server thread index, service ns) of each call, by OP_CALL's argument
        self.level = level
        self.is_edf = is_edf
        self.is_server = task is None
        self.period_ns = task.period_ns if task is not None else 0
        self.deadline_ns = task.deadline_ns if task is not None else 0
        self.max_jobs = (task.max_jobs or 0) if task is not None else 0
        self.gaps = gaps
        self.exec_times = exec_times
        self.state = IDLE
        self.base_key = 0 if is_edf else -(priority or 0)
        self.key = self.base_key
        self.seq = 0
        self.queued = 0          # version of the thread's live entry in its domain's ready heap
        self.cpu = NO_CPU          # the CPU it runs on, or last ran on
        self.run_since = 0
        self.version = 0         # bumped whenever a pending DONE or WAKE event becomes stale
        self.remaining = 0       # CPU time left in the current compute stretch (ns)
        self.pc = -1             # next op; -1: the job has not started
        self.job = 0             # number of the last started job
        self.job_release = 0
        self.job_deadline = 0
        self.job_cpu_ns = 0
        self.pending: deque[int] = deque()   # nominal releases of jobs released but not begun
        self.released = 0
        self.donors: list[SimThread] = []
        self.blocked_on: SimThread | None = None
        self.donating = False
        self.eager_keys: list[int] = []
        self.held: list[Any] = []
        self.granted: Any = None  # a lock handed over while blocked, to record on resuming
        self.retrying = False     # blocked on a lock request (or a job start), retried when woken
        self.in_wait = False      # between its COND_WAIT and its COND_WAKE
        self.in_call = False      # between its RPC_CALL and its RPC_REPLY
        self.requests: list[tuple[SimThread, int]] = []  # a server's queue: (client, service ns)
        self.serving: tuple[SimThread, int] | None = None  # a server's request in service
        self.events: list[tuple[int, int, int, int, int, int, int]] = []  # (time, type, cpu, job, arg0, 0, arg1)
        self.events_per_job = events_per_job(ops)
        self.is_interference = False
        self.kind = task.kind if task is not None else "service"
        self.activation_queue = task.activation_queue if task is not None else 0
        self.activated_at_start = task.activated_at_start if task is not None else False
        self.started_by_activation = task.started_by_activation if task is not None else False
        self.unbegun = 0  # an event task's activations kept (released or queued) and not yet started
        self.pending_causes: deque[int] = deque()  # RELEASE's arg0 of each pending job (trace.ReleaseCause)
        self.job_cause = 0  # RELEASE's arg0 of the current job
        self.fair: Any = None  # a best-effort thread's share (sim/fair.py's FairEntity), else None
        # the event task whose start job (activated_at_start) is released when this one's first job
        # starts (Engine._threads: start jobs of one instant go one after another)
        self.starts_next: SimThread | None = None

    def own_key(self) -> int:
        return min(self.eager_keys) if self.eager_keys and min(self.eager_keys) < self.base_key else self.base_key

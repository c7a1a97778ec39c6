"""Blocking observed in a run, per task, from its trace's lock events.

Each task's stream is read in recording order (docs/trace-format.md):

- a **lock request** runs from ``LOCK_REQUEST`` to its ``LOCK_ACQUIRE``; the
  ``LOCK_BLOCKED`` events the library records in between give its causes
  (``owner``: the lock was held; ``ceiling``: the lock was free but the
  partition's system ceiling was not below the task);
- a **gate wait** is a ``LOCK_BLOCKED`` of cause ``gate`` outside a request
  (a job start held back under SRP, IPCP, MPCP or FMLP+); it runs from its
  first ``LOCK_BLOCKED`` to the stream's next event of another kind, other
  than ``RELEASE`` (normally the job's ``START``), and belongs to that
  event's job.

A request blocked several times for one cause counts once for it; one
blocked for two causes (PCP: ceiling, then owner) counts once for each.
``job_blocking_max_ns`` is the largest total of one job's lock and gate
waits, the figure to set beside the analysis' blocking term: it includes
preemptions by higher-priority jobs while waiting, which the analysis counts
as interference, so it may exceed the term without anything being wrong.
Requests cut by lost events or by the end of the run are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rtsched.trace import EventType as EV
from rtsched.trace import Trace
from rtsched.trace.events import BlockCause

__all__ = ["NO_BLOCKING", "TaskBlocking", "blocking_by_task"]

_CAUSES = {BlockCause.OWNER: "owner", BlockCause.CEILING: "ceiling", BlockCause.GATE: "gate"}
# Events that do not end a gate wait: the library's own, recorded while a thread waits, and
# RELEASE, which rts_job_next records after the gate but stamps with the nominal release time.
_DURING_WAIT = frozenset({int(EV.LOCK_BLOCKED), int(EV.BOOST), int(EV.UNBOOST), int(EV.RELEASE)})


@dataclass(frozen=True)
class TaskBlocking:
    lock_requests: int = 0
    blocked_owner: int = 0    # requests that waited (at least once) because the lock was held
    blocked_ceiling: int = 0  # requests that waited because of the system ceiling (PCP)
    blocked_gate: int = 0     # job starts held back by the gate
    lock_wait_max_ns: int | None = None  # longest request -> acquire
    gate_wait_max_ns: int | None = None  # longest gate wait
    job_blocking_max_ns: int | None = None  # largest sum of one job's lock and gate waits


#: What a task that never locks shows.
NO_BLOCKING = TaskBlocking()


def _max(current: int | None, value: int) -> int:
    return value if current is None or value > current else current


_LOCK_EVENTS = np.array([EV.LOCK_REQUEST, EV.LOCK_BLOCKED, EV.LOCK_ACQUIRE], dtype=np.uint16)


def _of_stream(events: np.ndarray) -> TaskBlocking:
    if not np.isin(events["type"], _LOCK_EVENTS).any():
        return NO_BLOCKING  # no request, no gate wait: nothing to walk through
    requests = 0
    blocked = {"owner": 0, "ceiling": 0, "gate": 0}
    lock_wait_max: int | None = None
    gate_wait_max: int | None = None
    per_job: dict[int, int] = {}
    request: tuple[int, set[str]] | None = None  # (request time, causes)
    gate_since: int | None = None
    for type_, time_ns, job, arg0 in zip(events["type"].tolist(), events["time_ns"].tolist(),
                                         events["job"].tolist(), events["arg0"].tolist()):
        if gate_since is not None and type_ not in _DURING_WAIT:
            wait = time_ns - gate_since
            blocked["gate"] += 1
            gate_wait_max = _max(gate_wait_max, wait)
            per_job[job] = per_job.get(job, 0) + wait
            gate_since = None
        if type_ == EV.LOCK_REQUEST:
            request = (time_ns, set())
        elif type_ == EV.LOCK_BLOCKED:
            cause = _CAUSES.get(arg0)
            if request is not None and cause in ("owner", "ceiling"):
                request[1].add(cause)
            elif request is None and cause == "gate" and gate_since is None:
                gate_since = time_ns
        elif type_ == EV.LOCK_ACQUIRE and request is not None:
            wait = time_ns - request[0]
            requests += 1
            for cause in request[1]:
                blocked[cause] += 1
            lock_wait_max = _max(lock_wait_max, wait)
            per_job[job] = per_job.get(job, 0) + wait
            request = None
        elif type_ in (EV.START, EV.COMPLETE):
            request = None  # a request whose ACQUIRE was lost
    return TaskBlocking(
        lock_requests=requests,
        blocked_owner=blocked["owner"],
        blocked_ceiling=blocked["ceiling"],
        blocked_gate=blocked["gate"],
        lock_wait_max_ns=lock_wait_max,
        gate_wait_max_ns=gate_wait_max,
        job_blocking_max_ns=max(per_job.values()) if per_job else None,
    )


def blocking_by_task(trace: Trace) -> dict[int, TaskBlocking]:
    """Task index -> what its stream shows of lock requests, blocking causes and waits."""
    result: dict[int, TaskBlocking] = {}
    for stream in trace.streams:
        if stream["task_id"] < 0:
            continue
        sid = int(stream["stream_id"])
        locks = not trace.kinds_of(sid).isdisjoint(_LOCK_EVENTS.tolist())
        result[int(stream["task_id"])] = _of_stream(trace.events_of(sid)) if locks else NO_BLOCKING
    return result

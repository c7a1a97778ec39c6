"""Lock protocols of the simulator: none, PIP, and the ceiling protocols PCP, SRP, IPCP.

What each does (docs/ceiling.md has the library's, which this follows):

- **none**: a held lock blocks the caller (cause *owner*); no inheritance.
- **pip**: as none, and the owner inherits the most urgent key of the threads
  blocked on it, transitively. At unlock the most urgent waiter becomes the
  owner at once (the kernel's rt_mutex hands over); it records LOCK_ACQUIRE
  when it runs.
- Ceiling protocols keep, per one-CPU partition, the locks held (entries).
  The *system ceiling* seen by a thread is the highest ceiling among entries
  held by other threads.
  - **pcp**: a lock request by a thread whose level is not above the system
    ceiling blocks (cause *ceiling*) on the holder of that entry, which
    inherits its key.
  - **srp**, **ipcp**: a job start whose level is not above the system ceiling
    of the srp/ipcp entries waits (cause *gate*, before its RELEASE event),
    lending the holder its key; lock requests then always find the lock free.
    The eager form also raises the holder to its ceiling at lock (FP only).
  Threads blocked on a ceiling or at the gate retry when an entry goes away.

Invariant: ``lock.owner`` holds ``lock`` in its ``held`` list, and a ceiling
lock that has an owner is in its partition's ``entries``.
"""

from __future__ import annotations

from typing import Protocol

from rtsched.model.ceilings import LockSetting
from rtsched.trace import BlockCause
from rtsched.sim.threads import SimThread

__all__ = ["SimLock", "Partitions", "try_lock", "unlock", "gate_holder", "wait_at_gate"]

GATE_PROTOCOLS = frozenset({"srp", "ipcp"})
CEILING_PROTOCOLS = frozenset({"pcp", "srp", "ipcp"})


class Scheduler(Protocol):
    """What the protocols ask of the engine."""

    def block(self, thread: SimThread, holder: SimThread, cause: int, donate: bool, now: int) -> None: ...
    def unblock(self, thread: SimThread, now: int) -> None: ...
    def update_key(self, thread: SimThread) -> None: ...
    def retarget(self, thread: SimThread, holder: SimThread) -> None: ...


class SimLock:
    __slots__ = ("index", "name", "protocol", "ceiling", "eager", "partition", "owner", "waiters")

    def __init__(self, index: int, name: str, protocol: str, setting: LockSetting | None) -> None:
        self.index = index
        self.name = name
        self.protocol = protocol
        self.ceiling = setting.ceiling if setting is not None else 0
        self.eager = setting is not None and setting.variant == "eager"
        self.partition = setting.partition if setting is not None else None
        self.owner: SimThread | None = None
        self.waiters: list[SimThread] = []


class Partitions:
    """Per partition (by name): the ceiling-protocol locks held there, and the threads waiting
    on a ceiling or at the gate (to retry when a lock there is released)."""

    def __init__(self) -> None:
        self.entries: dict[str, list[SimLock]] = {}
        self.retrying: dict[str, list[SimThread]] = {}

    def ceiling_for(self, thread: SimThread, protocols: frozenset[str]) -> tuple[int, SimThread | None]:
        """(the highest ceiling, its holder) among the entries of ``protocols`` on the
        thread's partition held by other threads; (0, None) when there is none."""
        best, holder = 0, None
        for lock in self.entries.get(thread.partition or "", ()):
            if lock.owner is not thread and lock.protocol in protocols and lock.ceiling > best:
                best, holder = lock.ceiling, lock.owner
        return best, holder


def _acquire(thread: SimThread, lock: SimLock, parts: Partitions, sched: Scheduler) -> None:
    lock.owner = thread
    thread.held.append(lock)
    if lock.protocol in CEILING_PROTOCOLS:
        parts.entries.setdefault(lock.partition or "", []).append(lock)
        if lock.eager and not thread.is_edf:
            thread.eager_keys.append(-lock.ceiling)
            sched.update_key(thread)


def try_lock(thread: SimThread, lock: SimLock, parts: Partitions, sched: Scheduler, now: int) -> bool:
    """Take ``lock`` (True) or block the thread on whoever it waits for (False; ``sched.block``
    records the LOCK_BLOCKED event with its cause)."""
    owner = lock.owner
    if owner is not None:
        lock.waiters.append(thread)
        sched.block(thread, owner, BlockCause.OWNER, lock.protocol != "none", now)
        return False
    if lock.protocol == "pcp":
        ceiling, holder = parts.ceiling_for(thread, CEILING_PROTOCOLS)
        if holder is not None and thread.level <= ceiling:
            parts.retrying.setdefault(thread.partition or "", []).append(thread)
            sched.block(thread, holder, BlockCause.CEILING, True, now)
            return False
    _acquire(thread, lock, parts, sched)
    return True


def gate_holder(thread: SimThread, parts: Partitions) -> SimThread | None:
    """The holder that holds back the start of ``thread``'s job (SRP, IPCP), or None."""
    if not parts.entries:
        return None
    ceiling, holder = parts.ceiling_for(thread, GATE_PROTOCOLS)
    if holder is not None and thread.level <= ceiling:
        return holder
    return None


def wait_at_gate(thread: SimThread, holder: SimThread, parts: Partitions, sched: Scheduler, now: int) -> None:
    parts.retrying.setdefault(thread.partition or "", []).append(thread)
    sched.block(thread, holder, BlockCause.GATE, True, now)


def unlock(thread: SimThread, lock: SimLock, parts: Partitions, sched: Scheduler, now: int) -> bool:
    """Release ``lock``; hand it to its most urgent waiter, wake the threads waiting on a ceiling
    or at the gate of its partition. True when someone waited for it (a contended unlock)."""
    lock.owner = None
    thread.held.remove(lock)
    contended = bool(lock.waiters)
    if lock.protocol in CEILING_PROTOCOLS:
        parts.entries[lock.partition or ""].remove(lock)
        if lock.eager and not thread.is_edf:
            thread.eager_keys.remove(-lock.ceiling)
        waiting = parts.retrying.pop(lock.partition or "", [])
        contended = contended or bool(waiting)
        for t in waiting:
            sched.unblock(t, now)
    if lock.waiters:
        heir = min(lock.waiters, key=lambda w: (w.key, w.seq))
        lock.waiters.remove(heir)
        sched.unblock(heir, now)
        _acquire(heir, lock, parts, sched)
        heir.granted = lock
        for w in lock.waiters:  # the others now wait for the heir
            sched.retarget(w, heir)
    sched.update_key(thread)
    return contended

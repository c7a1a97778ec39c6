"""Lock protocols of the simulator: none, PIP, the FIFO mutex, the local ceiling protocols
PCP, SRP, IPCP, and the global ones MPCP and FMLP+ (partitioned FP, one-CPU partitions).

What each does (docs/ceiling.md has the library's, which this follows):

- **none**: a held lock blocks the caller; no inheritance.
- **pip**: as none, and the owner inherits the most urgent key of the threads
  blocked on it, transitively. At unlock the most urgent waiter becomes the
  owner at once (the kernel's rt_mutex hands over); it records LOCK_ACQUIRE
  when it runs.
- **fifo** (docs/fifo-mutex.md): a held lock blocks the caller, which lends
  nothing (the holder keeps its own priority: a thread of a priority between
  the holder's and a waiter's delays the waiter); at unlock the *longest
  waiting* request becomes the owner at once, whatever its priority (no
  barging: the unlocker cannot take it back before the heir ran). A
  condition variable on it moves its waiters in the order they waited
  (``condvars.py``).
- Ceiling protocols put an *entry* on a partition for each lock held: a local
  lock's on its users' partition with key = its ceiling; a global lock's on
  the partition its holder runs on, with a key above every local level
  (MPCP: ``0x10000`` + its ceiling; FMLP+: ``0x40000000`` + an inverted
  request clock, the earlier request the higher key). The *system ceiling*
  seen by a thread is the highest key among entries held by other threads.
  - **pcp**: a lock request by a thread whose level is not above the system
    ceiling blocks (cause *ceiling*) on that entry's holder, which inherits.
  - **srp, ipcp, mpcp, fmlp+**: a job start whose level is not above the
    system ceiling of these entries waits (cause *gate*, before its RELEASE
    event), lending the holder its key.
  - **mpcp** waiters of a held lock are served in priority order and lend
    the holder their key (the kernel's PI futex, across CPUs); **fmlp+**
    waiters are served in request order (a ticket lock) and lend nothing.
  - The **eager** form also raises the holder to the lock's ceiling at lock
    and back at unlock (FP).
  Threads blocked on a ceiling or at the gate retry when an entry of their
  partition goes away.

Events: LOCK_BLOCKED is recorded for the ceiling protocols only (the library
writes it; a none or pip mutex waits inside the kernel without a record).

Invariant: ``lock.owner`` holds ``lock`` in its ``held`` list, and a ceiling
lock that has an owner is in ``entries[lock.entry_partition]``.
"""

from __future__ import annotations

from typing import Protocol

from rtsched.model.ceilings import LockSetting
from rtsched.model.model import ALL_CEILING_PROTOCOLS, LOCAL_PROTOCOLS, START_GATE_PROTOCOLS
from rtsched.trace import BlockCause
from rtsched.sim.threads import SimThread

__all__ = ["SimLock", "Partitions", "try_lock", "unlock", "gate_holder", "wait_at_gate"]

#: Protocols whose waiters lend their holder nothing.
NO_INHERITANCE = frozenset({"none", "fmlp+", "fifo"})
#: Protocols that serve their waiters in request order, not by priority.
FIFO_ORDER = frozenset({"fmlp+", "fifo"})
#: Entry keys of the global protocols, above every local level (at most 65535).
MPCP_KEY_BASE = 0x10000
FMLP_KEY_BASE = 0x40000000


class Scheduler(Protocol):
    """What the protocols ask of the engine."""

    def block(self, thread: SimThread, holder: SimThread, cause: int, donate: bool, record: bool,
              now: int) -> None: ...
    def unblock(self, thread: SimThread, now: int) -> None: ...
    def update_key(self, thread: SimThread) -> None: ...
    def retarget(self, thread: SimThread, holder: SimThread) -> None: ...


class SimLock:
    __slots__ = ("index", "name", "protocol", "ceiling", "eager", "partition", "owner", "waiters",
                 "entry_key", "entry_partition", "records")

    def __init__(self, index: int, name: str, protocol: str, setting: LockSetting | None) -> None:
        self.index = index
        self.name = name
        self.protocol = protocol
        self.ceiling = setting.ceiling if setting is not None else 0
        self.eager = setting is not None and setting.variant == "eager"
        self.partition = setting.partition if setting is not None else None
        self.owner: SimThread | None = None
        self.waiters: list[SimThread] = []  # in request order
        self.entry_key = 0
        self.entry_partition = ""
        self.records = protocol in ALL_CEILING_PROTOCOLS


class Partitions:
    """Per partition (by name): the ceiling-protocol entries held there, the threads waiting
    on a ceiling or at the gate (to retry when an entry there goes away), FMLP+'s request clock."""

    def __init__(self) -> None:
        self.entries: dict[str, list[SimLock]] = {}
        self.retrying: dict[str, list[SimThread]] = {}
        self.fmlp_clock: dict[str, int] = {}

    def ceiling_for(self, thread: SimThread, protocols: frozenset[str]) -> tuple[int, SimThread | None]:
        """(the highest key, its holder) among the entries of ``protocols`` on the thread's
        partition held by other threads; (0, None) when there is none."""
        best, holder = 0, None
        for lock in self.entries.get(thread.partition or "", ()):
            if lock.owner is not thread and lock.protocol in protocols and lock.entry_key > best:
                best, holder = lock.entry_key, lock.owner
        return best, holder


def _acquire(thread: SimThread, lock: SimLock, parts: Partitions, sched: Scheduler) -> None:
    lock.owner = thread
    thread.held.append(lock)
    if lock.protocol not in ALL_CEILING_PROTOCOLS:
        return
    if lock.protocol in LOCAL_PROTOCOLS:
        lock.entry_partition, lock.entry_key = lock.partition or "", lock.ceiling
    else:
        lock.entry_partition = thread.partition or ""
        if lock.protocol == "mpcp":
            lock.entry_key = MPCP_KEY_BASE + lock.ceiling
        else:
            clock = parts.fmlp_clock.get(lock.entry_partition, 0) + 1
            parts.fmlp_clock[lock.entry_partition] = clock
            lock.entry_key = FMLP_KEY_BASE + (FMLP_KEY_BASE - clock)
    parts.entries.setdefault(lock.entry_partition, []).append(lock)
    if lock.eager and not thread.is_edf:
        thread.eager_keys.append(-lock.ceiling)
        sched.update_key(thread)


def try_lock(thread: SimThread, lock: SimLock, parts: Partitions, sched: Scheduler, now: int) -> bool:
    """Take ``lock`` (True) or block the thread on whoever it waits for (False)."""
    owner = lock.owner
    if owner is not None:
        lock.waiters.append(thread)
        donate = lock.protocol not in NO_INHERITANCE
        sched.block(thread, owner, BlockCause.OWNER, donate, lock.records, now)
        return False
    if lock.protocol == "pcp":
        ceiling, holder = parts.ceiling_for(thread, ALL_CEILING_PROTOCOLS)
        if holder is not None and thread.level <= ceiling:
            parts.retrying.setdefault(thread.partition or "", []).append(thread)
            sched.block(thread, holder, BlockCause.CEILING, True, True, now)
            return False
    _acquire(thread, lock, parts, sched)
    return True


def gate_holder(thread: SimThread, parts: Partitions) -> SimThread | None:
    """The holder that holds back the start of ``thread``'s job, or None."""
    if not parts.entries:
        return None
    ceiling, holder = parts.ceiling_for(thread, START_GATE_PROTOCOLS)
    if holder is not None and thread.level <= ceiling:
        return holder
    return None


def wait_at_gate(thread: SimThread, holder: SimThread, parts: Partitions, sched: Scheduler, now: int) -> None:
    parts.retrying.setdefault(thread.partition or "", []).append(thread)
    sched.block(thread, holder, BlockCause.GATE, True, True, now)


def _heir(lock: SimLock) -> SimThread:
    """Who gets ``lock`` next: the first requester under FMLP+ and the FIFO mutex, else the
    most urgent waiter."""
    if lock.protocol in FIFO_ORDER:
        return lock.waiters[0]
    return min(lock.waiters, key=lambda w: (w.key, w.seq))


def unlock(thread: SimThread, lock: SimLock, parts: Partitions, sched: Scheduler, now: int) -> bool:
    """Release ``lock``; hand it to its next waiter, wake the threads waiting on a ceiling or at
    the gate of its entry's partition. True when someone waited for it (a contended unlock)."""
    lock.owner = None
    thread.held.remove(lock)
    contended = bool(lock.waiters)
    if lock.protocol in ALL_CEILING_PROTOCOLS:
        parts.entries[lock.entry_partition].remove(lock)
        if lock.eager and not thread.is_edf:
            thread.eager_keys.remove(-lock.ceiling)
        waiting = parts.retrying.pop(lock.entry_partition, [])
        contended = contended or bool(waiting)
        for t in waiting:
            sched.unblock(t, now)
    if lock.waiters:
        heir = _heir(lock)
        lock.waiters.remove(heir)
        sched.unblock(heir, now)
        _acquire(heir, lock, parts, sched)
        heir.granted = lock
        for w in lock.waiters:  # the others now wait for the heir
            sched.retarget(w, heir)
    sched.update_key(thread)
    return contended

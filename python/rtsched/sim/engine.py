"""The discrete-event engine: time, releases, CPUs, blocking and inheritance.

One ``Engine`` simulates one task set once, over integer nanoseconds from
t0 = 0 to ``end_ns``. Each step takes every event of the earliest time
(releases, ends of CPU stretches, wake-ups), then *settles*: dispatches every
domain whose queue or running keys changed and advances every thread that got
a CPU, until nothing changes at that instant. Only events at or before
``end_ns`` are taken, and jobs are released only before it; what runs past
the end is cut there (the report counts those jobs as censored).

Everything is deterministic: ties in time are taken in the order the events
were pushed, ties in priority by the order threads became ready.
"""

from __future__ import annotations

import random
from heapq import heappop, heappush

from rtsched.model import TaskSet
from rtsched.model.model import START_GATE_PROTOCOLS
from rtsched.model.ceilings import lock_levels, lock_settings
from rtsched.model.placement import Placement
from rtsched.trace import CPU_UNKNOWN, RELEASE_BY_SHIFT, BlockCause, ReleaseCause
from rtsched.trace import EventType as EV
from rtsched.sim.body import advance
from rtsched.sim.condvars import SimCondVar
from rtsched.sim.dispatch import Domain, dispatch
from rtsched.sim.draws import ExecutionTimes, SporadicGaps, demand_streams
from rtsched.sim.eventq import DONE, READY as READY_EVENT, RELEASE, WAKE, EventQueue
from rtsched.sim.fair import BASE_SLICE_NS, FAIR_KEY, SLICE_EVENT, FairClass, FairEntity, fixed_priority, weight_of
from rtsched.sim.options import SimOptions
from rtsched.sim.protocols import Partitions, SimLock
from rtsched.sim.reservations import RESERVATION_EVENT, attach_reservations
from rtsched.sim.threads import BLOCKED, FINISHED, IDLE, NO_CPU, READY, RUNNING, SLEEPING, SimThread, compile_body

#: The key of an OS interference thread: above every priority and every absolute deadline.
_INTERFERENCE_KEY = -(1 << 62)

__all__ = ["Engine"]

_BLOCKED = int(EV.LOCK_BLOCKED)
_PRIORITY = int(EV.PRIORITY)
_ACTIVATE = int(EV.ACTIVATE)
_BY_TIMER, _BY_COMPLETION = int(ReleaseCause.TIMER), int(ReleaseCause.COMPLETION)
#: The kinds whose next release the timer sets when a job is released (the others: completions, activations).
_TIMED = ("periodic", "sporadic")
#: Longest chain of inheritance followed (a longer one means a deadlock in the set's locking).
_CHAIN_MAX = 1000


class Engine:
    def __init__(self, taskset: TaskSet, placement: Placement, options: SimOptions, end_ns: int) -> None:
        self.taskset = taskset
        self.end_ns = end_ns
        self.overheads = options.overheads
        self._release_latency_ns = options.overheads.release_latency_ns
        self.queue = EventQueue()
        self.jobs_completed = 0
        self.picv = options.picv
        self._jitter_ns = options.release_jitter_ns
        self._jitter = random.Random(options.seed * 7919 + 1) if options.release_jitter_ns else None
        self.ready_seq = 0
        self.now = 0  # the instant being simulated
        self._to_advance: list[SimThread] = []
        settings = lock_settings(taskset)
        self.locks = [SimLock(i, r.name, r.protocol, settings.get(r.name)) for i, r in enumerate(taskset.resources)]
        self.gated = any(lock.protocol in START_GATE_PROTOCOLS for lock in self.locks)
        mutex = {lock.name: lock for lock in self.locks}
        self.condvars = [SimCondVar(i, c.name, mutex[c.mutex]) for i, c in enumerate(taskset.condvars)]
        self.partitions = Partitions()
        self.dirty_domains: list[Domain] = []  # domains to dispatch at this instant
        self.domains = self._domains(taskset, placement, self.dirty_domains)
        self.threads = self._threads(taskset, options)
        self.fair = self._fair_class(taskset, placement)  # None: no best-effort task
        self.reservations = attach_reservations(self, taskset, self.threads)  # their trace streams
        for t in self.threads:  # each fixed priority at t0, so that a trace shows them without a change
            if not t.is_edf:
                t.events.append((0, _PRIORITY, CPU_UNKNOWN, 0, fixed_priority(t.key), 0, 0))
        self.first_server = len(taskset.tasks)  # thread index of server 0
        self.interference = self._interference(options.overheads.interference_ns)

    # --- set-up -------------------------------------------------------------------------------

    @staticmethod
    def _domains(taskset: TaskSet, placement: Placement, dirty: list[Domain]) -> dict[str | None, Domain]:
        if not taskset.platform.is_partitioned:
            return {None: Domain("all", placement.cpus, dirty)}
        return {p.name: Domain(p.name, p.cpus, dirty) for p in placement.partitions}

    def _threads(self, taskset: TaskSet, options: SimOptions) -> list[SimThread]:
        """A thread per task (streams 0..n-1), then one per RPC server (task_id -1), as the runner's."""
        levels = lock_levels(taskset)
        lock_index = {lock.name: lock.index for lock in self.locks}
        condvar_index = {cv.name: cv.index for cv in self.condvars}
        server_index = {s.name: len(taskset.tasks) + j for j, s in enumerate(taskset.servers)}
        task_index = {t.name: i for i, t in enumerate(taskset.tasks)}
        self.cpu_sets: list[tuple[int, ...]] = []  # the CPUs of each affinity action (OP_AFFINITY's argument)
        partitioned, is_edf = taskset.platform.is_partitioned, taskset.platform.is_edf
        threads = []
        # Event tasks that run before they first wait (activated_at_start) and share their first release
        # start one after another, in the set's order: each one's start job is released (at the shared
        # nominal instant, its response's origin) when the one before it starts, so it is ready a release
        # latency later. rt-app lets its threads go from a barrier one wake-up after another, and a live
        # run never starts two at the same instant; started together (after the same OS interference
        # window), two loops that wake each other as the last thing their jobs do (rt-app's tutorial
        # example4) would each find the other still running (its unlock's cost) and lose both wake-ups:
        # a deadlock that neither rt-app nor a live run has.
        last_start: dict[int, SimThread] = {}  # offset -> the last start job queued at it
        for i, task in enumerate(taskset.tasks):
            sporadic = task.sporadic if task.kind == "sporadic" else None
            gaps = SporadicGaps(sporadic.seed, sporadic.max_extra_ns) if sporadic and sporadic.max_extra_ns else None
            ops, calls = compile_body(task, lock_index, condvar_index, server_index, task_index, self.cpu_sets)
            # a best-effort task may have no partition: its domain is its CPU's (_fair_class)
            domain = self.domains.get(task.partition if partitioned else None) or next(iter(self.domains.values()))
            thread = SimThread(i, task.name, domain, task.partition,
                               task.priority, is_edf, task=task, ops=ops, calls=calls,
                               level=levels.get(task.name, 0), gaps=gaps,
                               exec_times=ExecutionTimes(options.seed, i, options.exec_low_ppm, demand_streams(task)))
            threads.append(thread)
            starts = (task.kind != "event" or task.activated_at_start) and not task.started_by_activation
            if starts and task.offset_ns < self.end_ns:
                before = last_start.get(task.offset_ns) if task.activated_at_start else None
                if before is not None:
                    before.starts_next = thread
                else:
                    self.queue.push(task.offset_ns, RELEASE, thread, task.offset_ns)
                if task.activated_at_start:
                    last_start[task.offset_ns] = thread
        for j, server in enumerate(taskset.servers):
            domain = self.domains[server.partition if partitioned else None]
            threads.append(SimThread(len(taskset.tasks) + j, server.name, domain, server.partition, server.priority,
                                     False))
        return threads

    def _fair_class(self, taskset: TaskSet, placement: Placement) -> FairClass | None:
        """The best-effort threads' class (sim/fair.py), each thread given its weight, the CPUs it
        may use (its partition's, else the platform's) and, as its domain until it first runs,
        its first CPU's; None when the set has no best-effort task."""
        background = [(task, t) for task, t in zip(taskset.tasks, self.threads) if task.is_background]
        if not background:
            return None
        cpu_domain = {cpu: d for d in self.domains.values() for cpu in d.cpus}
        for task, t in background:
            cpus = tuple(c for c in placement.cpus_of(task.name) if c in cpu_domain)
            if not cpus:
                raise ValueError(f'task "{task.name}": none of its CPUs {placement.cpus_of(task.name)} is in a '
                                 "partition of the simulated set")
            t.fair = FairEntity(weight_of(task), cpus, task.slice_ns or BASE_SLICE_NS)
            t.base_key = t.key = FAIR_KEY
            t.domain = cpu_domain[cpus[0]]
        return FairClass([t for _task, t in background], cpu_domain, self.queue)

    def _interference(self, lost_ns: int) -> list[SimThread]:
        """One thread per CPU, above everything, that takes its CPU for ``lost_ns`` from t0 (the
        worst window of OS interference at the critical instant); woken at 0, never in the trace."""
        out: list[SimThread] = []
        if lost_ns <= 0:
            return out
        for domain in self.domains.values():
            for _cpu in domain.cpus:
                t = SimThread(-1, "(os interference)", domain, None, None, False)
                t.is_server = False
                t.is_interference = True
                t.base_key = t.key = _INTERFERENCE_KEY
                t.remaining = lost_ns
                t.state = SLEEPING
                self.queue.push(0, WAKE, t, t.version)
                out.append(t)
        return out

    # --- the loop -----------------------------------------------------------------------------

    def run(self) -> None:
        heap = self.queue.heap
        end = self.end_ns
        to_advance = self._to_advance
        while heap:
            now = heap[0][0]
            if now > end:
                break
            self.now = now
            while heap and heap[0][0] == now:
                _time, _seq, kind, t, arg = heappop(heap)
                if kind == DONE:
                    if arg == t.version and t.state == RUNNING:
                        t.job_cpu_ns += now - t.run_since
                        t.run_since = now
                        t.remaining = 0
                        to_advance.append(t)
                elif kind == RELEASE:
                    self._release(t, arg, now)
                elif kind == READY_EVENT:
                    self._job_ready(t, *arg)
                elif kind == WAKE:
                    if arg == t.version and t.state == SLEEPING:
                        self.make_ready(t)
                elif kind == RESERVATION_EVENT:  # t: a ReservationTree
                    t.on_event(arg, now)
                elif kind == SLICE_EVENT:
                    self.fair.slice_ended(t, arg)  # type: ignore[union-attr]  # only pushed by it
            self._settle(now)

    def _settle(self, now: int) -> None:
        # Threads whose stretch of CPU time ended at ``now`` go on first, before any dispatch
        # at ``now``: a job whose work is done at t completes at t even when a higher-priority
        # job is released at t (otherwise it would be preempted with nothing left to run and
        # complete only after that job: a response the model does not have).
        # Best-effort threads get the CPUs left idle once the real-time ones have settled.
        dirty = self.dirty_domains
        to_advance = self._to_advance
        fair = self.fair
        while True:
            while to_advance:  # in the order they were queued, those queued meanwhile after them
                t = to_advance.pop(0)
                if t.state == RUNNING:
                    advance(self, t, now)
            if dirty:
                while dirty:
                    dispatch(dirty.pop(), now, self._start, self._preempt)
                if fair is not None:
                    fair.dirty = True  # a CPU may have been freed
            elif fair is not None and fair.dirty:
                fair.dispatch(now, self._start, self._preempt)
            else:
                return

    # --- releases -----------------------------------------------------------------------------

    def _release(self, t: SimThread, nominal: int, now: int, cause: int | None = None) -> None:
        """Release a job of ``t`` at ``nominal`` (``cause``: RELEASE's arg0; by default its timer,
        or for a self-paced task after its first job, its last completion)."""
        if cause is None:
            cause = _BY_COMPLETION if t.kind == "self-paced" and t.released else _BY_TIMER
        t.released += 1
        if t.kind in _TIMED and (not t.max_jobs or t.released < t.max_jobs):
            following = nominal + t.period_ns
            if t.gaps is not None:
                following += t.gaps.next_extra_ns()
            if following < self.end_ns:
                heappush(self.queue.heap, (following, next(self.queue.seq), RELEASE, t, following))
        delay = self._release_latency_ns
        if self._jitter is not None:
            delay += self._jitter.randint(0, self._jitter_ns)
        if delay:
            self.queue.push(now + delay, READY_EVENT, t, (nominal, cause))
        else:
            self._job_ready(t, nominal, cause)

    def _job_ready(self, t: SimThread, nominal: int, cause: int) -> None:
        if t.state == IDLE:  # then nothing is pending: the job begins now, without the queue
            self._begin(t, nominal, cause)
            self.make_ready(t)
        else:
            t.pending.append(nominal)
            t.pending_causes.append(cause)

    def begin_job(self, t: SimThread) -> None:
        """Make the oldest pending job ``t``'s current one (not started: ``pc`` -1)."""
        self._begin(t, t.pending.popleft(), t.pending_causes.popleft())

    def completed(self, t: SimThread, now: int) -> None:
        """``t``'s job completed at ``now``: a self-paced task's next job is released then, or at
        its least gap after the last release if that is later (docs/taskset.md "Task kinds")."""
        if t.kind != "self-paced" or (t.max_jobs and t.released >= t.max_jobs):
            return
        following = max(now, t.job_release + t.period_ns)
        if following >= self.end_ns:
            return
        if following == now:
            self._release(t, now, now)
        else:
            self.queue.push(following, RELEASE, t, following)

    def activate(self, by: SimThread, index: int, now: int) -> None:
        """``by`` activates event task ``index`` at ``now``: kept (a job released, or waiting in its
        queue) or lost as its activation_queue says, recorded on ``by``'s stream (ACTIVATE)."""
        t = self.threads[index]
        if t.state == FINISHED:
            kept = False
        elif t.started_by_activation:  # its start: kept once, whenever it comes
            kept = t.released == 0 and t.unbegun == 0
        elif t.activation_queue:
            kept = t.unbegun < t.activation_queue
        else:  # rt-app's: kept only while the task waits for one (after its own first job, if it has one)
            kept = t.unbegun == 0 and t.state == IDLE and (t.released > 0 or not t.activated_at_start)
        by.events.append((now, _ACTIVATE, by.cpu, by.job, t.task_id, 0, int(kept)))
        if kept:
            t.unbegun += 1
            self._release(t, now, now, int(ReleaseCause.ACTIVATION) | (by.task_id + 1) << RELEASE_BY_SHIFT)

    def release_next_start(self, t: SimThread, now: int) -> None:
        """``t``'s first job starts at ``now``: release the start job queued behind it (_threads), at
        their shared nominal instant."""
        follower, t.starts_next = t.starts_next, None
        assert follower is not None
        self.queue.push(now, RELEASE, follower, t.job_release)

    def _begin(self, t: SimThread, release: int, cause: int) -> None:
        t.job_cause = cause
        t.job_release = release
        t.job_deadline = release + t.deadline_ns
        t.job_cpu_ns = 0
        t.pc = -1
        if t.is_edf and t.fair is None:
            t.base_key = t.job_deadline
            if t.donors or t.eager_keys or t.state not in (IDLE, RUNNING):
                self.update_key(t)
            elif t.key != t.base_key:  # update_key's outcome without donors or ceilings
                t.key = t.base_key
                if t.state == RUNNING:
                    t.domain.mark_dirty()

    # --- CPUs ---------------------------------------------------------------------------------

    def make_ready(self, t: SimThread) -> None:
        t.state = READY
        self.ready_seq += 1
        t.seq = self.ready_seq
        if t.fair is not None and t.key == FAIR_KEY:
            self.fair.enqueue(t, True, self.now)  # type: ignore[union-attr]
        else:
            t.domain.push(t)

    def _start(self, t: SimThread, cpu: int, now: int) -> None:
        domain = t.domain
        t.state = RUNNING
        t.cpu = cpu
        t.run_since = now
        domain.running[cpu] = t
        if domain.last_thread[cpu] is not t:
            domain.last_thread[cpu] = t
            if not t.is_interference:  # the interrupts and kernel threads' own switches are in their loss
                t.remaining += self.overheads.context_switch_ns
        if t.fair is not None:
            self.fair.took_cpu(t, now)  # type: ignore[union-attr]
        self._to_advance.append(t)

    def _preempt(self, t: SimThread, now: int) -> None:
        elapsed = now - t.run_since
        t.remaining -= elapsed
        t.job_cpu_ns += elapsed
        t.version += 1
        t.domain.running[t.cpu] = None
        t.state = READY
        if t.fair is None:
            t.domain.push(t)  # keeps its seq: the head of its priority
            return
        fair = self.fair
        assert fair is not None
        fair.left_cpu(t, now, unfinished=True)
        if t.key == FAIR_KEY:
            fair.enqueue(t, False, now)
        else:  # boosted: a real-time thread of its CPU's domain
            t.domain.push(t)

    def move(self, t: SimThread, cpu_set: int, now: int) -> bool:
        """``t`` (RUNNING, best-effort: sim/support.py refuses a real-time task that moves) may run
        on the CPUs of ``cpu_sets[cpu_set]`` only from now on, as sched_setaffinity on itself makes
        it: it stays on its CPU if that is one of them (True), else leaves it, READY, and the fair
        class gives it one of them (False). Boosted (holding a lock a real-time thread waits for), it stays in
        its CPU's domain until the boost ends, an approximation (the kernel would move it)."""
        fair = t.fair
        assert fair is not None and self.fair is not None
        fair.cpus = tuple(c for c in self.cpu_sets[cpu_set] if c in self.fair.cpu_domain)
        if t.cpu in fair.cpus or t.key != FAIR_KEY:
            return True
        t.domain.mark_dirty()
        self._preempt(t, now)  # recorded as a preemption (PREEMPT, then RESUME on its new CPU)
        return False

    def leave_cpu(self, t: SimThread, now: int, state: int) -> None:
        """``t`` stops running (blocked, sleeping, idle or finished); its CPU is free."""
        t.job_cpu_ns += now - t.run_since
        t.remaining = 0
        t.version += 1
        t.domain.running[t.cpu] = None
        t.domain.mark_dirty()
        t.state = state
        if t.fair is not None:
            self.fair.left_cpu(t, now, unfinished=False)  # type: ignore[union-attr]

    # --- blocking and inheritance -------------------------------------------------------------

    def block(self, t: SimThread, holder: SimThread, cause: int, donate: bool, record: bool, now: int) -> None:
        """``t`` waits for ``holder`` (for a lock, a ceiling, or at the gate of its next job), lending
        it its key when ``donate``; when ``record``, records LOCK_BLOCKED (cause, holder's TID)."""
        if record:
            job = t.job + 1 if cause == BlockCause.GATE else t.job
            t.events.append((now, _BLOCKED, t.cpu, job, int(cause), 0, holder.tid))
        if t.state == RUNNING:
            self.leave_cpu(t, now, BLOCKED)
        else:  # woken from a condition variable, it waits for the mutex's owner
            t.state = BLOCKED
        t.blocked_on = holder
        t.donating = donate
        if donate:
            holder.donors.append(t)
            self.update_key(holder)

    def unblock(self, t: SimThread, now: int) -> None:
        holder = t.blocked_on
        assert holder is not None
        t.blocked_on = None
        if t.donating:
            holder.donors.remove(t)
            self.update_key(holder)
        self.make_ready(t)

    def retarget(self, t: SimThread, holder: SimThread) -> None:
        """``t`` stays blocked, now on ``holder`` (a lock changed hands)."""
        old = t.blocked_on
        assert old is not None
        t.blocked_on = holder
        if t.donating:
            old.donors.remove(t)
            holder.donors.append(t)
            self.update_key(old)
            self.update_key(holder)

    def update_key(self, t: SimThread) -> None:
        """Recompute ``t``'s key from its own and its donors', and pass a change down the chain.
        A fixed-priority thread records each change as PRIORITY (the priority it now has, the TID
        of the donor it has it from or 0), whatever its state, as it records its base priority at
        t0: an observation of the model that the real runner does not write, so it costs no
        simulated time."""
        for _ in range(_CHAIN_MAX):
            key = t.own_key()
            donor = None
            for d in t.donors:
                if d.key < key:
                    key, donor = d.key, d
            if key == t.key:
                return
            if t.fair is not None and (key == FAIR_KEY) != (t.key == FAIR_KEY):
                self._change_class(t, key)
            t.key = key
            if not t.is_edf and not t.is_interference:
                cpu = t.cpu if t.cpu != NO_CPU else CPU_UNKNOWN
                t.events.append((self.now, _PRIORITY, cpu, t.job, fixed_priority(key), 0,
                                 donor.tid if donor is not None else 0))
            if t.state == READY:
                if t.fair is not None and key == FAIR_KEY:
                    self.fair.enqueue(t, False, self.now)  # type: ignore[union-attr]
                else:
                    t.domain.push(t)
            elif t.state == RUNNING:
                t.domain.mark_dirty()
            if t.state != BLOCKED or not t.donating or t.blocked_on is None:
                return
            t = t.blocked_on
        raise RuntimeError("a cycle of threads blocked on one another (deadlock in the set's locking)")

    def _change_class(self, t: SimThread, key: int) -> None:
        """Best-effort ``t`` inherits a real-time key (``key`` below FAIR_KEY) or gives the last one
        back: a running thread's fair clock stops or starts (its domain's dispatch, due, decides
        whether it keeps its CPU)."""
        fair = self.fair
        assert fair is not None
        if t.state != RUNNING:
            return
        if key == FAIR_KEY:
            fair.run_clock(t, self.now)
        else:
            fair.charge(t, self.now)

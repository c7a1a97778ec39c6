"""A discrete-time schedule explorer: one legal schedule of a scenario, tick by tick.

Given a :class:`~.model.SystemModel` and a legal :class:`~.model.Scenario`,
:func:`explore` builds the schedule the model's scheduler and protocols
produce and records who ran where at each tick. The schedule is legal by
construction; the *choice* among legal schedules is the scenario's
(arrivals, delays, shorter bodies, tie-break order, supply), which the
harness varies.

Platform:

- uniprocessor (``FP``, ``EDF``) and partitioned (``P-FP``, ``P-EDF``):
  one processor per partition, each scheduling its own tasks' jobs;
  global (``G-FP``, ``G-EDF``): the ``cpus`` most urgent ready jobs run,
  any job on any processor (free migration);
- a task is a thread: its jobs run one after the other (a job becomes ready
  at arrival + delay, or when the previous job of its task completes);
- fixed priority: a higher number is more urgent; EDF: an earlier absolute
  deadline. Ties: the job ready earlier (a running job keeps its processor),
  then the scenario's ``order`` — any tie-break is legal;
- a periodic-resource supply (``Scenario.supply``) makes the processor
  unavailable outside the supplied ticks.

Locks, as the registry's tests model them (ceilings per processor: the
highest priority — under EDF the highest preemption level, shorter
relative deadline = higher — of the processor's tasks that use the
resource):

- ``none``: a waiter blocks; the holder keeps its priority;
- ``pip``: the holder runs at the highest priority of the jobs it blocks,
  transitively (under EDF: the earliest deadline);
- ``none`` and ``pip`` hand the lock over at unlock: its most urgent waiter
  owns it at once, before it runs (the kernel's rt_mutex, rtsched's
  simulator), so a job that requests the lock again may find that waiter
  holding it;
- ``pcp``: a job may lock only when its priority is above the ceilings of
  every resource other jobs hold; the job holding the highest such ceiling
  inherits its priority (under EDF: treated as ``srp``);
- ``srp``: a job may *start* only when its preemption level is above the
  ceiling of every held resource (``ipcp`` under EDF is treated the same);
- ``ipcp`` (fixed priority): a holder runs at the resource's ceiling;
- ``np``: a holder is not preempted;
- a call to a server (``picv-rpc``): the server takes requests by client
  priority, one at a time, at the priority of the highest client it serves
  or keeps waiting (see ``model.expand_calls``: the caller holding the
  server under ``pip`` for the call's length);
- a global resource (shared across partitions, or under ``mpcp`` /
  ``fmlp+``): a job that finds it taken suspends and queues (``mpcp``: by
  priority; ``fmlp+``: in request order); the holder runs boosted above
  every normal priority of its processor (``mpcp``: boosted jobs ordered by
  the resource's global ceiling, the highest priority of any user;
  ``fmlp+``: by request time, earliest first); the resource goes to the next
  waiter at unlock;
- a resource under ``dpcp`` or ``dflp`` (the distributed protocols): a job
  that reaches its lock, on its own processor, becomes an *agent* on the
  resource's synchronization partition until its unlock (it leaves its own
  processor meanwhile); agents run above every normal task of that
  processor. ``dflp``: one FIFO queue per resource, agents ordered by
  request time; ``dpcp``: an agent has its task's priority and the agents of
  a processor follow the PCP (ceiling: the highest priority of any user),
  the blocking agent inheriting the blocked one's priority.

``np`` body intervals, once begun, run to their end (a boundary between two
intervals is a preemption point). A job tries a lock only when it has a
processor, and waits for it (lending its priority) only once it tried; a
job that takes a free lock keeps its place among equal priorities, one that
waited for it joins their tail; unlock, sleep and completion happen the instant its preceding
execution ends. Events of one instant are applied in a fixed order (one of
the legal interleavings).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from rtsched.analysis.soundness.model import (
    CALL, EXEC, LOCK, NP, SLEEP, UNLOCK, Job, Scenario, SystemModel, TaskModel, expand_calls, server_lock)

__all__ = ["Semantics", "Run", "explore"]

_EDF_AS_SRP = {"pcp": "srp", "ipcp": "srp"}
_DISTRIBUTED = ("dpcp", "dflp")
#: Local protocols whose lock goes to the most urgent waiter at unlock (see _Explorer._hand_over).
_HANDED_OVER = ("pip", "none")

#: The jobs of one processor, or of every processor under global scheduling: a partition, or None.
Group = str | None


@dataclass(frozen=True)
class Semantics:
    """Choices the explorer takes from the test under check.

    ``global_protocol``: the protocol of every resource shared across
    partitions (``mpcp``, ``fmlp+``, ``dpcp`` or ``dflp``; the partitioned
    tests impose theirs); None: each resource's own protocol.
    """

    global_protocol: str | None = None


@dataclass
class Run:
    """The schedule: per processor, the task whose job ran at each tick (None: idle)."""

    slots: dict[str, list[str | None]]
    finish: list[int | None]  # per scenario job: completion instant, None if unfinished at ``end``
    end: int

    def response(self, scenario: Scenario, index: int) -> int | None:
        f = self.finish[index]
        return None if f is None else f - scenario.jobs[index].arrival


class _Job:
    """The state of one job while the explorer runs."""

    __slots__ = ("index", "spec", "task", "body", "group", "pc", "left", "active", "done", "finish", "held",
                 "sleep_until", "waking", "started", "queued", "request", "ready_since", "base", "level", "rank",
                 "home", "agent", "waits_since", "tried", "waited")

    def __init__(self, index: int, spec: Job, task: TaskModel, group: Group, base: int, level: int, rank: int):
        self.index = index
        self.spec = spec
        self.task = task
        self.body = expand_calls(spec.body)
        self.group = group  # where it runs now: its home group, or an agent's synchronization partition
        self.home = group
        self.agent = False  # a request under dpcp / dflp issued and not yet unlocked
        self.waited = False  # found its lock taken (blocked or queued) since it last took one
        self.pc = 0
        self.left = 0
        self.active = False
        self.done = False
        self.finish: int | None = None
        self.held: list[str] = []
        self.sleep_until = 0
        self.waking = False  # asleep: the operations after the sleep apply when it ends
        self.started = False
        self.queued: str | None = None
        self.request = 0
        self.ready_since = 0
        self.base = base  # priority (FP) or −absolute deadline (EDF): higher is more urgent
        self.level = level  # preemption level for SRP ceilings (FP: the priority; EDF: −relative deadline)
        self.rank = rank
        self.waits_since = 0  # when it last stopped at a lock (who waited longest, for a hand-over)
        self.tried: str | None = None  # the local lock it requested, on a processor, and waits for


class _Explorer:
    def __init__(self, model: SystemModel, scenario: Scenario, semantics: Semantics):
        self.model = model
        self.scenario = scenario
        problem = model.problem()
        self.fp = problem.is_fp
        self.global_sched = problem.is_global
        self.global_res = problem.global_resources()
        self.semantics = semantics
        self.protocol: dict[str, str] = {}
        for r in problem.resources():
            p = problem.protocol(r)
            if r in self.global_res:
                p = semantics.global_protocol or p
                if p not in ("mpcp", "fmlp+") + _DISTRIBUTED:
                    raise ValueError(f"resource {r} is shared across partitions under {p}: "
                                     "the explorer needs mpcp, fmlp+, dpcp or dflp semantics for it")
            elif not self.fp:
                p = _EDF_AS_SRP.get(p, p)
            self.protocol[r] = p
        callers: dict[str, set[str | None]] = {}
        for t in model.tasks:
            for kind, value in t.body:
                if kind == CALL:
                    callers.setdefault(value[0], set()).add(t.partition)
        for server, parts in callers.items():
            if len(parts) > 1 or self.global_sched:
                raise ValueError(f"server {server} is called from {len(parts)} partitions or under global "
                                 "scheduling: the explorer serves calls on the caller's processor only")
            self.protocol[server_lock(server)] = "pip"
        self.cpus: dict[str | None, list[str]] = {}  # group (partition; None: global or one CPU) → CPU labels
        if self.global_sched:
            self.cpus[None] = [f"cpu{k}" for k in range(model.cpus)]
        else:
            for t in model.tasks:
                self.cpus.setdefault(t.partition, [t.partition or "cpu0"])
        self.sync = {r: problem.sync_partition(r) for r in self.global_res if self.protocol[r] in _DISTRIBUTED}
        for part in self.sync.values():
            self.cpus.setdefault(part, [part or "cpu0"])
        self.moved = False  # a job became an agent or came back this instant: every group is chosen again
        order = {name: k for k, name in enumerate(scenario.order)}
        self.jobs: list[_Job] = []
        self.by_task: dict[str, list[_Job]] = {t.name: [] for t in model.tasks}
        for index, spec in enumerate(scenario.jobs):
            task = model.task(spec.task)
            group = None if self.global_sched else task.partition
            base = task.priority if self.fp else -(spec.arrival + task.deadline)
            level = task.priority if self.fp else -task.deadline
            job = _Job(index, spec, task, group, base, level, order.get(task.name, len(order)))
            self.jobs.append(job)
            self.by_task[task.name].append(job)
        for jobs in self.by_task.values():
            jobs.sort(key=lambda j: j.spec.arrival)
        # simultaneous events on different processors (two requests of one global resource at the
        # same instant) are applied processor by processor, in the scenario's tie-break order
        rank = {t.name: order.get(t.name, len(order)) for t in model.tasks}
        first = {g: min((rank[t.name] for t in model.tasks if (None if self.global_sched else t.partition) == g),
                        default=0) for g in self.cpus}
        self.cpus = dict(sorted(self.cpus.items(), key=lambda item: first[item[0]]))
        self.ceiling = self._ceilings()
        self.global_ceiling = {r: max(t.priority for t in model.tasks if any(op == (LOCK, r) for op in t.body))
                               for r in self.global_res}
        for r, part in self.sync.items():  # the agents' PCP: one ceiling, on the synchronization partition
            self.ceiling[(part, r)] = self.global_ceiling[r]
        self.holder: dict[str, _Job | None] = {r: None for r in self.protocol}
        self.queue: dict[str, list[_Job]] = {r: [] for r in self.global_res}
        self.slots: dict[str, list[str | None]] = {cpu: [] for cpus in self.cpus.values() for cpu in cpus}
        self.running: dict[str, _Job | None] = {cpu: None for cpu in self.slots}

    def _ceilings(self) -> dict[tuple[Group, str], int]:
        """(group, resource) → ceiling: the highest priority / preemption level of the group's users."""
        out: dict[tuple[Group, str], int] = {}
        for t in self.model.tasks:
            group = None if self.global_sched else t.partition
            level = t.priority if self.fp else -t.deadline
            for kind, r in expand_calls(t.body):
                if kind == LOCK:
                    key = (group, r)
                    out[key] = max(out.get(key, level), level)
        return out

    # ---- job progress ----------------------------------------------------------------------

    def _advance(self, job: _Job, now: int) -> None:
        """Apply the zero-time operations at the job's program counter (a lock waits for a processor)."""
        body = job.body
        while job.pc < len(body):
            kind, value = body[job.pc]
            if kind in (EXEC, NP):
                if value > 0:
                    job.left = value
                    return
                job.pc += 1
            elif kind == SLEEP:
                job.pc += 1
                if value > 0:
                    job.sleep_until = job.ready_since = now + value
                    job.waking = True
                    return
            elif kind == UNLOCK:
                job.pc += 1
                self._unlock(job, value, now)
            else:  # LOCK
                return
        job.done = True
        job.finish = now

    def _unlock(self, job: _Job, resource: str, now: int) -> None:
        job.held.remove(resource)
        self.holder[resource] = None
        if job.agent:
            job.agent = False
            job.group = job.home
            self.moved = True
        if resource not in self.global_res and self.protocol[resource] in _HANDED_OVER:
            self._hand_over(job.group, resource, now)
            return
        waiters = self.queue.get(resource)
        if not waiters:
            return
        if self.protocol[resource] == "mpcp":
            nxt = max(waiters, key=lambda w: (w.task.priority, -w.request, -w.index))
        else:
            nxt = min(waiters, key=lambda w: (w.request, w.index))
        waiters.remove(nxt)
        nxt.queued = None
        self._take(nxt, resource, now, waited=True)

    def _hand_over(self, group: Group, resource: str, now: int) -> None:
        """A local ``pip`` / ``none`` lock (or a server) released: its most urgent waiter owns it at once.

        The kernel's rt_mutex and rtsched's simulator hand a PI or plain mutex to its most urgent
        waiter at unlock (``sim/protocols.py``), and a server takes its next queued request as soon
        as it finishes one: the unlocker cannot take it back before the heir ran. A waiter is a job
        that requested ``resource`` on a processor and found it taken (``tried``); the heir is the
        most urgent by effective priority (inheritance included), then the longest waiting.
        """
        waiting = [j for j in self.jobs if j.group == group and j.active and not j.done and j.tried == resource]
        if not waiting:
            return
        _, eff, _, _ = self._priorities(group, now)
        heir = max(waiting, key=lambda j: (eff[j.index], -j.waits_since, -j.rank, -j.index))
        self._take(heir, resource, now, waited=True)

    def _take(self, job: _Job, resource: str, now: int, waited: bool = False) -> None:
        """The job owns ``resource``; one that ``waited`` for it joins the tail of its priority level
        (a job that takes a free lock keeps its place, as under SCHED_FIFO)."""
        job.tried = None
        self.holder[resource] = job
        job.held.append(resource)
        job.pc += 1
        if waited or job.waited:  # it waited for the lock: ready again from now; one that took a free
            job.ready_since = max(job.ready_since, now)  # lock kept running (an equal priority does not preempt it)
        job.waited = False
        self._advance(job, now)

    def _lock(self, job: _Job, resource: str, now: int) -> None:
        """The job, on a processor, tries its lock (local locks are tried only when admissible)."""
        job.started = True  # it ran the lock call: SRP's rule (start only above the ceiling) is behind it
        if resource in self.sync and not job.agent:  # issued on its own processor: it becomes an agent
            job.agent = True
            job.group = self.sync[resource]
            job.request = now
            job.waited = True  # ready on the synchronization partition from when it takes the resource there
            self.moved = True
            if self.protocol[resource] == "dpcp":
                return  # it locks under the agents' PCP when it runs there
        elif resource in self.sync:
            self._take(job, resource, now)  # a dpcp agent chosen to run: not blocked by the PCP
            return
        if resource in self.global_res:
            if not job.agent:
                job.request = now
            if self.holder[resource] is None and not self.queue[resource]:
                self._take(job, resource, now)
            else:
                job.queued = resource
                job.waited = True
                self.queue[resource].append(job)
            return
        self._take(job, resource, now)

    def _activate(self, now: int) -> None:
        for jobs in self.by_task.values():
            for job in jobs:
                if job.done:
                    continue
                if job.waking and job.sleep_until <= now:
                    job.waking = False
                    self._advance(job, now)
                elif not job.active and job.spec.arrival + job.spec.delay <= now:
                    job.active = True
                    job.ready_since = now
                    self._advance(job, now)
                if not job.done:
                    break  # only the earliest unfinished job of a task may be active

    # ---- priorities and choice ---------------------------------------------------------------

    def _waiting_lock(self, job: _Job) -> str | None:
        if job.pc < len(job.body) and job.body[job.pc][0] == LOCK:
            r: str = job.body[job.pc][1]
            if job.agent and self.protocol[r] == "dpcp":
                return r
            return None if r in self.global_res else r
        return None

    def _blocker(self, job: _Job, resource: str, eff: dict[int, int],
                 held_by_others: Callable[[_Job], list[tuple[str, _Job]]]) -> _Job | None:
        """Who keeps ``job`` from taking the local ``resource`` now (None: it may take it)."""
        holder = self.holder[resource]
        if holder is not None and holder is not job:
            return holder
        if self.protocol[resource] in ("pcp", "dpcp"):
            best: tuple[int, _Job] | None = None
            for r, h in held_by_others(job):
                if self.protocol[r] == self.protocol[resource]:  # normal tasks' PCP, or the agents'
                    c = self.ceiling[(job.group, r)]
                    if c >= eff[job.index] and (best is None or c > best[0]):
                        best = (c, h)
            return None if best is None else best[1]
        return None

    def _priorities(self, group: Group, now: int) -> tuple[list[_Job], dict[int, int], dict[int, _Job],
                                                           list[tuple[str, _Job]]]:
        """Effective priorities (inheritance, immediate ceilings) and the jobs blocked on local locks."""
        live = [j for j in self.jobs if j.group == group and j.active and not j.done]
        eff = {j.index: j.base for j in live}
        if self.fp:
            for j in live:
                for res in j.held:
                    if self.protocol[res] == "ipcp":
                        eff[j.index] = max(eff[j.index], self.ceiling[(group, res)])
        held = [(r, h) for r, h in self.holder.items() if h is not None and h.group == group]

        def held_by_others(job: _Job) -> list[tuple[str, _Job]]:
            return [(r, h) for r, h in held if h is not job]

        blocked: dict[int, _Job] = {}
        for _ in range(len(live) + 2):
            blocked = {}
            inherits: list[tuple[_Job, _Job]] = []  # (waiter, the job it lends its priority to)
            for j in live:
                r = self._waiting_lock(j)
                if r is None or j.tried != r or j.queued or j.sleep_until > now:
                    continue  # a job lends its priority and waits only once it requested the lock
                b = self._blocker(j, r, eff, held_by_others)
                if b is not None:
                    blocked[j.index] = b
                    j.waited = True
                    if self.protocol[r] != "none":
                        inherits.append((j, b))
            changed = False
            for j, b in inherits:
                if eff[j.index] > eff[b.index]:
                    eff[b.index] = eff[j.index]
                    changed = True
            if not changed:
                break
        return live, eff, blocked, held

    def _key(self, job: _Job, eff: dict[int, int]) -> tuple[int, ...]:
        kind = job.body[job.pc][0] if job.pc < len(job.body) else None
        if (kind == NP and job.left < job.body[job.pc][1]) or any(self.protocol[r] == "np" for r in job.held):
            head: tuple[int, int] = (3, 0)
        elif job.agent:  # above every normal task; among agents, dpcp: priority, dflp: request time
            head = (2, eff[job.index]) if self._agent_protocol(job) == "dpcp" else (2, -job.request)
        else:
            boosted = [r for r in job.held if r in self.global_res]
            if boosted:
                if self.protocol[boosted[0]] == "mpcp":
                    head = (2, max(self.global_ceiling[r] for r in boosted))
                else:
                    head = (2, -job.request)
            else:
                head = (1, eff[job.index])
        return head + (-job.ready_since, -job.rank, -job.index)

    def _agent_protocol(self, job: _Job) -> str:
        """The protocol of the request an agent serves (the resource it holds, or waits to lock)."""
        held = [r for r in job.held if r in self.sync]
        return self.protocol[held[0] if held else job.body[job.pc][1]]

    def _eligible(self, job: _Job, now: int, blocked: dict[int, _Job], held: list[tuple[str, _Job]]) -> bool:
        if job.queued or job.sleep_until > now or job.index in blocked:
            return False
        if not job.started and not job.agent:
            srp = [self.ceiling[(job.group, r)] for r, h in held if self.protocol[r] == "srp" and h is not job]
            if srp and max(srp) >= job.level:
                return False
        return True

    def _pick(self, group: Group, now: int) -> list[_Job]:
        width = len(self.cpus[group])
        for _ in range(4 * len(self.jobs) + 8):
            live, eff, blocked, held = self._priorities(group, now)
            ready = [j for j in live if self._eligible(j, now, blocked, held)]
            ready.sort(key=lambda j: self._key(j, eff), reverse=True)
            chosen = ready[:width]
            for j in chosen:
                if j.pc < len(j.body) and j.body[j.pc][0] == LOCK:
                    r = self._waiting_lock(j)  # a local lock (or a dpcp agent's): taken, or waited for
                    if r is not None and self._blocker(j, r, eff, lambda job: [(x, h) for x, h in held
                                                                                 if h is not job]) is not None:
                        j.tried = r
                        j.waits_since = now
                    else:
                        self._lock(j, j.body[j.pc][1], now)
                        self._activate(now)  # a job that ended in that zero-time step lets its task's next one start
                    break
            else:
                return chosen
        raise RuntimeError("the explorer's choice did not settle (zero-time loop)")

    def _place(self, group: Group, chosen: Sequence[_Job]) -> None:
        """Put the chosen jobs on the group's processors, each staying where it ran if it can."""
        cpus = self.cpus[group]
        free = [c for c in cpus if self.running[c] not in chosen]
        placed = {job.index: c for c in cpus if (job := self.running[c]) is not None and job in chosen}
        for c in cpus:
            self.running[c] = None
        for j in chosen:
            cpu = placed.get(j.index) or free.pop(0)
            self.running[cpu] = j

    def run(self, until: int) -> Run:
        now = 0
        while now < until and not all(j.done for j in self.jobs):
            self._activate(now)
            ran: list[_Job] = []
            for _ in range(4 * len(self.jobs) + 8):
                self.moved = False
                ran = []
                for group in self.cpus:
                    chosen = self._pick(group, now) if self.scenario.available(now) else []
                    self._place(group, chosen)
                    ran += chosen
                if not self.moved:
                    break
            else:
                raise RuntimeError("the explorer's agents did not settle (zero-time loop)")
            for cpu, job in self.running.items():
                self.slots[cpu].append(job.task.name if job is not None else None)
            for job in ran:
                job.started = True
                job.left -= 1
                if job.left == 0:
                    job.pc += 1
                    self._advance(job, now + 1)
            now += 1
        return Run(self.slots, [j.finish for j in self.jobs], now)


def explore(model: SystemModel, scenario: Scenario, until: int, semantics: Semantics = Semantics()) -> Run:
    """The schedule of ``scenario`` up to instant ``until`` (or until every job completes)."""
    return _Explorer(model, scenario, semantics).run(until)

"""The analysis's own light task model, and the adapter from ``rtsched.model``.

The analysis does not work on :class:`rtsched.model.TaskSet` directly: it
works on :class:`AnalysisProblem`, a flat, exact description in the manner of
SchedCAT's task objects (but frozen, and in integer nanoseconds), so a test
can be fed by a task-set file (:func:`from_taskset`), by a generator
(``rtsched.analysis.generators``) or by hand (the known-answer tests).

Priorities follow SCHED_FIFO: a higher number is more urgent.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable, Mapping

from rtsched.model.model import DISTRIBUTED_PROTOCOLS, GLOBAL_PROTOCOLS, LOCAL_PROTOCOLS, PROTOCOLS

if TYPE_CHECKING:
    from rtsched.model import Action, Task, TaskSet

__all__ = [
    "DISTRIBUTED_PROTOCOLS",
    "CROSS_PARTITION_PROTOCOLS",
    "KNOWN_PROTOCOLS",
    "ReservedJobs",
    "AnalysisProblem",
    "AnalysisTask",
    "CriticalSection",
    "Rpc",
    "ceil_div",
    "ceil_fraction",
    "from_taskset",
    "varying_demand_notes",
]

#: Protocols the analysis knows. ``none``: a plain mutex (priority inversion is
#: unbounded when a medium-priority task exists); ``pip`` priority inheritance;
#: ``pcp`` the original priority ceiling protocol; ``srp`` Baker's stack
#: resource policy; ``ipcp`` immediate ceiling (``PTHREAD_PRIO_PROTECT``);
#: The model's protocols (rtsched.model.model.PROTOCOLS, defined there once), and ``np``
#: (non-preemptive critical sections), which only the analysis knows; ``mpcp`` and ``fmlp+``
#: are the multiprocessor protocols of partitioned FP; ``dpcp`` and ``dflp`` its distributed
#: protocols (sections run by agents on the resource's synchronization partition,
#: ``AnalysisProblem.sync_partition``).
KNOWN_PROTOCOLS = (*PROTOCOLS, "np")
#: The protocols of resources shared across partitions: the global ones and the distributed ones.
CROSS_PARTITION_PROTOCOLS = GLOBAL_PROTOCOLS | DISTRIBUTED_PROTOCOLS


def ceil_div(a: int, b: int) -> int:
    """⌈a / b⌉ for integers (b > 0), exact."""
    return -(-a // b)


def ceil_fraction(x: Fraction | int) -> int:
    """The least integer ≥ x."""
    if isinstance(x, int):
        return x
    return -((-x.numerator) // x.denominator)


@dataclass(frozen=True, slots=True)
class CriticalSection:
    """One outermost-or-inner critical section of a job: ``resource`` held for ``length_ns``.

    ``nested``: resources locked while this one is held (empty when the
    section is not nested). The length of an outer section includes its inner
    ones. A job may have several sections on the same resource.
    """

    resource: str
    length_ns: int
    nested: tuple[str, ...] = ()
    outermost: bool = True


@dataclass(frozen=True, slots=True)
class Rpc:
    """A remote procedure call (seed 004 §5): ``length_ns`` of work by ``server`` per call."""

    server: str
    length_ns: int


@dataclass(frozen=True, slots=True)
class AnalysisTask:
    """A sporadic task as the analyses see it.

    ``wcet_ns`` is the task's own execution (without RPCs, which
    ``rpcs`` lists). ``jitter_ns`` is release jitter; ``suspension_ns`` the
    total self-suspension per job (sleeps), treated suspension-obliviously
    (as execution) by the tests that accept it. ``np_segments_ns``: the
    job's non-preemptive intervals in order (PREM, limited preemption); empty
    means fully preemptive. ``extra_blocking_ns`` is added to whatever
    blocking a test computes (overheads, or a blocking term given by hand).
    """

    name: str
    wcet_ns: int
    period_ns: int
    deadline_ns: int
    priority: int = 0
    jitter_ns: int = 0
    suspension_ns: int = 0
    critical_sections: tuple[CriticalSection, ...] = ()
    partition: str | None = None
    np_segments_ns: tuple[int, ...] = ()
    rpcs: tuple[Rpc, ...] = ()
    extra_blocking_ns: int = 0
    waits: bool = False
    _resources: frozenset[str] = field(init=False, repr=False, compare=False, default=frozenset())

    def __post_init__(self) -> None:
        if self.period_ns <= 0 or self.deadline_ns <= 0:
            raise ValueError(f"{self.name}: period and deadline must be positive")
        if self.wcet_ns < 0 or self.jitter_ns < 0 or self.suspension_ns < 0:
            raise ValueError(f"{self.name}: negative duration")
        names: set[str] = set()
        for cs in self.critical_sections:
            names.add(cs.resource)
            names.update(cs.nested)
        object.__setattr__(self, "_resources", frozenset(names))

    @property
    def utilization(self) -> Fraction:
        return Fraction(self.wcet_ns, self.period_ns)

    @property
    def density(self) -> Fraction:
        return Fraction(self.wcet_ns, min(self.deadline_ns, self.period_ns))

    @property
    def exec_ns(self) -> int:
        """CPU demand per job used by suspension-oblivious tests: WCET + suspensions."""
        return self.wcet_ns + self.suspension_ns

    def resources(self) -> frozenset[str]:
        """Every resource the job locks (outer and nested)."""
        return self._resources

    def max_cs(self, resource: str) -> int:
        """The longest section of this job on ``resource`` (0 when it never locks it)."""
        return max((cs.length_ns for cs in self.critical_sections if cs.resource == resource), default=0)

    def requests(self, resource: str) -> int:
        return sum(1 for cs in self.critical_sections if cs.resource == resource)

    def scaled(self, wcet_ns: int) -> "AnalysisTask":
        return replace(self, wcet_ns=wcet_ns)


@dataclass(frozen=True, slots=True)
class ReservedJobs:
    """A task's jobs inside a SCHED_DEADLINE reservation of their own (runtime, deadline, period),
    whose server the problem lists in the task's place (``rtsched.analysis.dl_reservations``).

    ``alone``: one job at a time in the reservation (self-paced; event with no queue), else the
    bound holds only while it is within ``job_period_ns``. ``why_not``: what keeps its jobs
    from a bound there (sleeps, locks, waits, calls), or empty."""

    wcet_ns: int
    job_period_ns: int
    job_deadline_ns: int
    runtime_ns: int
    deadline_ns: int
    period_ns: int
    alone: bool
    why_not: str = ""


@dataclass(frozen=True, slots=True)
class AnalysisProblem:
    """A task set to analyse.

    ``scheduler``: ``FP`` or ``EDF`` (one processor), ``P-FP``, ``P-EDF``,
    ``G-FP``, ``G-EDF``. ``cpus``: processors available (global schedulers).
    ``protocols``: resource name → protocol (see KNOWN_PROTOCOLS); resources
    not listed use ``pip``. ``unanalysable``: task name → why the adapter
    could not describe it exactly (the tests report no bound for it).
    ``notes``: what the adapter assumed, shown with the result.
    ``ceilings``: resource → a ceiling given by hand (a priority), which
    replaces the computed one (the highest priority of its users) in the
    fixed-priority blocking terms; resources not listed use the computed one.
    ``partition_cpus``: partition → its number of CPUs (partitions not
    listed have one); see ``clusters``. ``sync_partitions``: resource under
    dpcp or dflp → the partition whose processor runs its agents (resources
    not listed: see ``sync_partition``). ``deadline_at_wakeup``: under EDF,
    whether the scheduler gives a job its absolute deadline when it wakes
    (ready time + D: SCHED_DEADLINE, the threads backend) rather than at its
    arrival (arrival + D: the ult backend, ``rtsched sim``, the textbook
    model); it decides how release jitter is folded (``jitter_fold``).
    ``dl_reservations``: task name → its jobs, for a task whose SCHED_DEADLINE reservation is not
    its jobs' (``dl_deadline``, ``dl_period``): ``tasks`` holds its server in its place, and every
    test's bound for it is made its jobs' (``rtsched.analysis.dl_reservations``).
    """

    tasks: tuple[AnalysisTask, ...]
    scheduler: str = "FP"
    cpus: int = 1
    protocols: Mapping[str, str] = field(default_factory=dict)
    name: str = ""
    unanalysable: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    ceilings: Mapping[str, int] = field(default_factory=dict)
    partition_cpus: Mapping[str, int] = field(default_factory=dict)
    sync_partitions: Mapping[str, str] = field(default_factory=dict)
    deadline_at_wakeup: bool = False
    dl_reservations: Mapping[str, ReservedJobs] = field(default_factory=dict)
    # name -> task, made with the problem (a search per lookup made large sets quadratic)
    _by_name: dict[str, AnalysisTask] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_name = {t.name: t for t in self.tasks}
        if len(by_name) != len(self.tasks):
            raise ValueError("task names must be unique")
        object.__setattr__(self, "_by_name", by_name)
        for part, n in self.partition_cpus.items():
            if n < 1:
                raise ValueError(f"partition {part}: {n} CPUs (at least 1)")

    def clusters(self) -> dict[str, int]:
        """Partitions of several CPUs that hold tasks → their CPU count (empty: one CPU each).

        Under P-FP / P-EDF such a partition is a cluster: its tasks are
        scheduled globally inside it (C-FP, C-EDF), which the uniprocessor
        tests do not cover.
        """
        if self.is_global or not self.partition_cpus:
            return {}
        used = {t.partition for t in self.tasks if t.partition is not None}
        return {p: n for p, n in self.partition_cpus.items() if n > 1 and p in used}

    @property
    def is_fp(self) -> bool:
        return self.scheduler in ("FP", "P-FP", "G-FP")

    @property
    def is_edf(self) -> bool:
        return self.scheduler in ("EDF", "P-EDF", "G-EDF")

    @property
    def is_global(self) -> bool:
        return self.scheduler in ("G-FP", "G-EDF")

    def protocol(self, resource: str) -> str:
        return self.protocols.get(resource, "pip")

    def sync_partition(self, resource: str) -> str | None:
        """Where ``resource``'s agents run (dpcp, dflp): the partition given in ``sync_partitions``,
        else the partition of its first user in task order (None: no task uses it)."""
        if resource in self.sync_partitions:
            return self.sync_partitions[resource]
        return next((t.partition for t in self.tasks if resource in t.resources()), None)

    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tasks)

    def job_parameters(self, name: str) -> tuple[int, int, int]:
        """(period, deadline, WCET) of the task's jobs: its own, not its reservation's server's."""
        jobs = self.dl_reservations.get(name)
        if jobs is not None:
            return jobs.job_period_ns, jobs.job_deadline_ns, jobs.wcet_ns
        t = self._by_name[name]
        return t.period_ns, t.deadline_ns, t.wcet_ns

    def task(self, name: str) -> AnalysisTask:
        return self._by_name[name]

    def partitions(self) -> dict[str | None, tuple[AnalysisTask, ...]]:
        """Tasks grouped by partition (one group ``None`` on a uniprocessor or global set)."""
        groups: dict[str | None, list[AnalysisTask]] = {}
        for t in self.tasks:
            groups.setdefault(t.partition, []).append(t)
        return {k: tuple(v) for k, v in groups.items()}

    def resources(self) -> frozenset[str]:
        out: set[str] = set()
        for t in self.tasks:
            out |= t.resources()
        return frozenset(out)

    def global_resources(self) -> frozenset[str]:
        """Resources used from more than one partition, and those under a global protocol
        (mpcp, fmlp+: their holders are boosted above every local priority even when one
        partition uses them)."""
        if (not CROSS_PARTITION_PROTOCOLS.intersection(self.protocols.values())
                and len({t.partition for t in self.tasks}) <= 1):
            return frozenset()  # one partition, no global protocol (unlisted resources are pip)
        where: dict[str, set[str | None]] = {}
        for t in self.tasks:
            for r in t.resources():
                where.setdefault(r, set()).add(t.partition)
        return frozenset(r for r, parts in where.items()
                         if len(parts) > 1 or self.protocol(r) in CROSS_PARTITION_PROTOCOLS)

    def utilization(self) -> Fraction:
        return sum((t.utilization for t in self.tasks), Fraction(0))

    def with_tasks(self, tasks: Iterable[AnalysisTask]) -> "AnalysisProblem":
        return replace(self, tasks=tuple(tasks))

    def with_protocol(self, protocol: str) -> "AnalysisProblem":
        """The same problem with every resource under ``protocol``."""
        return replace(self, protocols={r: protocol for r in self.resources()})


# --------------------------------------------------------------------------
# The adapter from rtsched.model


@dataclass
class _OpenSection:
    """A critical section being read: its resource, length so far, the resources
    locked inside it, and how many sections enclose it (0: outermost)."""

    resource: str
    length_ns: int
    nested: set[str]
    depth: int


def varying_demand_notes(taskset: TaskSet) -> list[str]:
    """One note per task with computes of varying demand: the analysis takes their maximum."""
    from rtsched.model import Compute, format_duration

    notes = []
    for t in taskset.tasks:
        varying = [a for a in t.body if isinstance(a, Compute) and a.demand is not None]
        if varying and not t.is_background:
            maxima = ", ".join(format_duration(a.ns) for a in varying)
            notes.append(f"{t.name}: compute of varying demand analysed at its maximum ({maxima}), the WCET")
    return notes


def _background_interference(taskset: TaskSet) -> str | None:
    """Why no real-time task is bounded when a best-effort task reaches into the real-time set: a lock
    it shares with a real-time task (held, it blocks that task and, boosted, any between them) or a call
    to an RPC server (served at the server's real-time priority). None when it does neither. The tests
    here take critical sections and calls of real-time tasks only, so such a set gets no bound at all
    rather than a wrong one."""
    from rtsched.model import Call, Lock

    rt_locks = {a.resource for t in taskset.rt_tasks for a in t.body if isinstance(a, Lock)}
    for t in taskset.tasks:
        if not t.is_background:
            continue
        for a in t.body:
            if isinstance(a, Lock) and a.resource in rt_locks:
                return (f'best-effort task {t.name} (policy {t.policy}) locks "{a.resource}", which real-time '
                        "tasks lock too: the blocking it causes is not in these tests; give the lock only to "
                        "real-time tasks, or make the task real-time")
            if isinstance(a, Call):
                return (f'best-effort task {t.name} (policy {t.policy}) calls server "{a.server}", served at '
                        "real-time priority: that service is not in these tests; make the task real-time")
    return None


def _moving_tasks(taskset: TaskSet, names: list[str]) -> dict[str, str]:
    """Task name -> why it has no bound, when a real-time task changes its CPUs (``affinity``): no test
    here models a task that moves between CPUs, neither for itself (it runs on CPUs whose load its
    partition or cluster does not count) nor for the tasks of the CPUs it moves to (it interferes
    there). So one such task leaves every real-time task without a bound. Empty: none moves (a
    best-effort task that moves runs below every real-time one, as it would where it started)."""
    from rtsched.model import Affinity

    moves = {t.name: next(a.cpus for a in t.body if isinstance(a, Affinity)) for t in taskset.rt_tasks
             if any(isinstance(a, Affinity) for a in t.body)}
    if not moves:
        return {}
    first = next(iter(moves))
    return {name: f"no bound: the task changes its CPUs (affinity {list(moves[name])}): no test here models a "
                  "task that moves between CPUs" if name in moves else
                  f"no bound: real-time task {first} changes its CPUs (affinity): its interference on the CPUs "
                  "it moves to is in no test here" for name in names}


def _policy_changes(taskset: TaskSet, names: list[str]) -> dict[str, str]:
    """Task name -> why it has no bound, when a task changes its policy or priority (``sched``) and is
    real-time before or after: no test here gives a task two priorities, neither for itself nor for the
    tasks it interferes with under each. So one such task leaves every real-time task without a bound.
    Empty: none changes (a best-effort task that only changes its nice or best-effort policy stays below
    every real-time one)."""
    from rtsched.model import SetSched

    changes = {t.name: next(a for a in t.body if isinstance(a, SetSched)) for t in taskset.tasks
               if any(isinstance(a, SetSched) for a in t.body)
               and (not t.is_background or any(isinstance(a, SetSched) and a.policy == "fifo" for a in t.body))}
    if not changes:
        return {}
    first, change = next(iter(changes.items()))
    said = f"sched {change.policy}" + (f" {change.priority}" if change.priority is not None else "")
    return {name: f"no bound: the task changes its policy or priority ({said}): no test here gives a task two "
                  "priorities" if name in changes else
                  f"no bound: task {first} changes its policy or priority ({said}): its interference under "
                  "each is in no test here" for name in names}


def _sections_of(body: Iterable[Action],
                 condvar_mutex: Mapping[str, str]) -> tuple[tuple[CriticalSection, ...], int, bool]:
    """Critical sections (compute, memwrite, iowrite and sleep inside lock/unlock), total sleep,
    whether it waits.

    A ``wait`` on a condition variable releases its mutex for the wait and
    takes it again after: the section is split there.
    """
    from rtsched.model import Compute, IoWrite, Lock, MemWrite, Sleep, Unlock, Wait

    open_: list[_OpenSection] = []
    sections: list[CriticalSection] = []
    sleep = 0
    waits = False

    def close(index: int) -> None:
        done = open_.pop(index)
        sections.append(CriticalSection(done.resource, done.length_ns, tuple(sorted(done.nested)),
                                        outermost=done.depth == 0))

    for action in body:
        if isinstance(action, Compute):
            for entry in open_:
                entry.length_ns += action.ns
        elif isinstance(action, (MemWrite, IoWrite)):  # its WCET, as CPU time (suspension-oblivious for iowrite)
            for entry in open_:
                entry.length_ns += action.wcet_ns
        elif isinstance(action, Sleep):
            sleep += action.ns
            for entry in open_:
                entry.length_ns += action.ns
        elif isinstance(action, Lock):
            for entry in open_:
                entry.nested.add(action.resource)
            open_.append(_OpenSection(action.resource, 0, set(), len(open_)))
        elif isinstance(action, Unlock):
            for i in range(len(open_) - 1, -1, -1):
                if open_[i].resource == action.resource:
                    close(i)
                    break
        elif isinstance(action, Wait):
            waits = True
            mutex = condvar_mutex.get(action.condvar)
            for i in range(len(open_) - 1, -1, -1):
                if open_[i].resource == mutex:
                    reopened = _OpenSection(open_[i].resource, 0, set(), open_[i].depth)
                    close(i)
                    open_.insert(i, reopened)
                    break
    while open_:
        close(len(open_) - 1)
    return tuple(sections), sleep, waits


def _reserved_jobs(t: Task, sleep_ns: int, sections: tuple[CriticalSection, ...], waits: bool,
                   rpcs: tuple[Rpc, ...]) -> ReservedJobs:
    """A task's jobs in its own SCHED_DEADLINE reservation, and what keeps them from a bound there."""
    blockers = [what for what, present in (("sleeps", sleep_ns), ("locks", sections), ("condition waits", waits),
                                           ("calls", rpcs)) if present]
    why_not = (f"its job {', '.join(blockers)} inside its own SCHED_DEADLINE reservation: the bound from the "
               "reservation's supply assumes a job that only computes" if blockers else "")
    return ReservedJobs(wcet_ns=t.wcet_ns, job_period_ns=t.period_ns, job_deadline_ns=t.deadline_ns,
                        runtime_ns=t.dl_runtime_ns, deadline_ns=t.dl_reservation_deadline_ns,
                        period_ns=t.dl_reservation_period_ns,
                        alone=t.kind == "self-paced" or (t.kind == "event" and t.activation_queue == 0),
                        why_not=why_not)


def from_taskset(taskset: TaskSet, cpus: int | None = None) -> AnalysisProblem:
    """Describe a :class:`rtsched.model.TaskSet` for the analyses.

    - WCET: the task's ``wcet_ns``; sleeps in the body become
      ``suspension_ns``.
    - Critical sections: for each lock/unlock pair, the compute (and sleep)
      between them; nested locks are recorded; a condition-variable wait
      splits the section of its mutex.
    - Priority: the SCHED_FIFO priority (0 for SCHED_DEADLINE tasks);
      partition: the task's partition.
    - Calls to servers: ``rpcs`` (``Rpc(server, service)``, seed 004's
      D_{i,k}); the servers are not tasks here (their work is their callers').
      The analysis assumes (seed 004 §5) every server below every real-time
      task and on its callers' partition; otherwise a server's work would
      interfere in ways Eq. 1–5 do not count, and every task is listed in
      ``unanalysable`` with the reason.
    - Non-preemptive intervals (``np_segments_ns``): a PREM task's
      predictable intervals, each its ``length`` (its body has nothing else,
      so they sum to its WCET); ``fp-lp`` analyses them (``gedf-np-tardiness``
      too, for G-EDF sets built through the API).
    - SCHED_OTHER background tasks are left out (noted).
    - A task inside a reservation is listed in ``unanalysable``: a flat test
      does not see the reservation's supply (``rtsched.analysis.reservations``
      analyses the hierarchy).
    - A task that waits on a condition variable is listed in
      ``unanalysable``: how long it waits depends on its signaller, which no
      test here bounds.
    - Partitions: their CPU counts (``partition_cpus``); a partition of
      several CPUs is a cluster (see ``AnalysisProblem.clusters``).
    ``cpus``: processors for global schedulers (default: the platform's CPUs,
    else the online ones).
    """
    from rtsched.model import Call

    sched = taskset.platform.scheduler
    condvar_mutex = {c.name: c.mutex for c in taskset.condvars}
    servers = {s.name: s for s in getattr(taskset, "servers", ())}
    lowest_rt = min((t.priority for t in taskset.rt_tasks if t.priority is not None), default=None)
    server_problem: str | None = None
    tasks: list[AnalysisTask] = []
    unanalysable: dict[str, str] = {}
    notes: list[str] = []
    dl_reservations: dict[str, ReservedJobs] = {}
    for t in taskset.tasks:
        if t.is_background:
            notes.append(f"{t.name}: best-effort task (policy {t.policy}), no bound: it runs only when no "
                         "real-time task of its CPUs is ready, for as long as they leave it")
            continue
        sections, sleep, waits = _sections_of(t.body, condvar_mutex)
        if waits:
            unanalysable[t.name] = (
                "waits on a condition variable: the wait lasts until another task signals, "
                "which these tests do not bound"
            )
        rpcs = tuple(Rpc(a.server, a.ns) for a in t.body if isinstance(a, Call))
        for rpc in rpcs:
            server = servers[rpc.server]
            if lowest_rt is not None and server.priority >= lowest_rt:
                server_problem = server_problem or (
                    f'server "{server.name}" has priority {server.priority}, not below every '
                    f"real-time task (lowest: {lowest_rt}): the RPC analysis (seed 004 §5) assumes "
                    "servers below every task"
                )
            elif taskset.platform.is_partitioned and server.partition != t.partition:
                server_problem = server_problem or (
                    f'{t.name} calls server "{server.name}" on partition {server.partition}, not its '
                    f"own ({t.partition}): the RPC analysis takes one partition at a time"
                )
        if t.has_own_dl_reservation:
            dl_reservations[t.name] = _reserved_jobs(t, sleep, sections, waits, rpcs)
        tasks.append(
            AnalysisTask(
                name=t.name,
                wcet_ns=t.dl_runtime_ns if t.has_own_dl_reservation else t.wcet_ns,
                period_ns=t.dl_reservation_period_ns,
                deadline_ns=t.dl_reservation_deadline_ns,
                priority=t.priority if t.priority is not None else 0,
                suspension_ns=0 if t.has_own_dl_reservation else sleep,  # the server's runtime holds all
                critical_sections=sections,
                partition=t.partition if taskset.platform.is_partitioned else None,
                waits=waits,
                rpcs=rpcs,
                np_segments_ns=tuple(p.length_ns for p in t.prem_intervals),
            )
        )
    if cpus is None:
        if taskset.platform.cpus is not None:
            cpus = len(taskset.platform.cpus)
        else:
            from rtsched.cpus import allowed_cpus

            cpus = len(allowed_cpus())  # what `rtsched run` gives a set without platform.cpus
    if server_problem is not None:
        unanalysable = {t.name: server_problem for t in tasks}
    background_problem = _background_interference(taskset)
    if background_problem is not None:
        unanalysable = {t.name: background_problem for t in tasks}
    unanalysable.update(_moving_tasks(taskset, [t.name for t in tasks]))
    unanalysable.update(_policy_changes(taskset, [t.name for t in tasks]))
    for t in taskset.rt_tasks:
        if t.reservation is not None:
            unanalysable[t.name] = (f'runs inside reservation "{t.reservation}": the reservation analysis '
                                    "(rtsched analyze, docs/reservations.md) bounds it, not a flat test")
    if any(t.suspension_ns for t in tasks):
        notes.append("sleeps in job bodies are analysed as execution (suspension-oblivious)")
    notes += varying_demand_notes(taskset)
    return AnalysisProblem(
        tasks=tuple(tasks),
        scheduler=sched,
        cpus=cpus,
        protocols={r.name: r.protocol for r in taskset.resources},
        ceilings={r.name: r.ceiling for r in taskset.resources
                  if r.ceiling is not None and r.protocol in LOCAL_PROTOCOLS and taskset.platform.is_fp},
        name=taskset.name,
        unanalysable=unanalysable,
        notes=tuple(notes),
        partition_cpus={p.name: len(p.cpus) for p in (taskset.platform.partitions or ())}
        if taskset.platform.is_partitioned else {},
        sync_partitions={r.name: r.sync_partition for r in taskset.resources if r.sync_partition is not None},
        deadline_at_wakeup=taskset.platform.backend == "threads",
        dl_reservations=dl_reservations,
    )

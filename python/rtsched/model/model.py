"""The task model shared by analysis, simulation and the runner (docs/architecture.md, "Python: the data flow").

Frozen dataclasses, every duration an exact integer of nanoseconds (``_ns``),
every default already applied: a TaskSet built by ``rtsched.model.load`` is
complete and valid. Names stay names here; ``rtsched.model.resolve`` turns
them into the indices the C runner wants.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar, Literal, Union

from rtsched.model.budget_control import BudgetControl
from rtsched.model.chains import Chain, Link
from rtsched.model.demand import Demand
from rtsched.model.power import PowerModel

__all__ = [
    "BEST_EFFORT",
    "SCHEDULERS",
    "FP_SCHEDULERS",
    "EDF_SCHEDULERS",
    "PARTITIONED_SCHEDULERS",
    "CLUSTERED_SCHEDULERS",
    "PROTOCOLS",
    "ALL_CEILING_PROTOCOLS",
    "LOCAL_PROTOCOLS",
    "GLOBAL_PROTOCOLS",
    "DISTRIBUTED_PROTOCOLS",
    "VARIANTS",
    "Partition",
    "Platform",
    "BACKENDS",
    "Resource",
    "CondVar",
    "RpcServer",
    "Reservation",
    "RESERVATION_KINDS",
    "RESERVATION_ENFORCEMENTS",
    "RESERVATION_SCHEDULERS",
    "CRITICALITIES",
    "Sporadic",
    "Compute",
    "Sleep",
    "Lock",
    "Unlock",
    "Wait",
    "Signal",
    "Broadcast",
    "Call",
    "Prem",
    "PREM_ACCESS",
    "MemWrite",
    "IoWrite",
    "WRITE_BUFFER_DEFAULT_BYTES",
    "IO_DEVICE_DEFAULT",
    "Action",
    "Task",
    "TaskSet",
]

Scheduler = Literal["P-FP", "G-FP", "G-EDF", "P-EDF"]
Policy = Literal["fifo", "deadline", "other", "batch", "idle"]
#: The best-effort policies: SCHED_OTHER, SCHED_BATCH, SCHED_IDLE.
BEST_EFFORT: tuple[Policy, ...] = ("other", "batch", "idle")

SCHEDULERS: tuple[str, ...] = ("P-FP", "G-FP", "G-EDF", "P-EDF")
FP_SCHEDULERS = frozenset({"P-FP", "G-FP"})
EDF_SCHEDULERS = frozenset({"G-EDF", "P-EDF"})
PARTITIONED_SCHEDULERS = frozenset({"P-FP", "P-EDF"})
#: Names of clustered scheduling a file may give: the same run as the partitioned scheduler, whose
#: partitions of several CPUs are clusters (global scheduling inside each; docs/taskset.md).
CLUSTERED_SCHEDULERS: dict[str, str] = {"C-FP": "P-FP", "C-EDF": "P-EDF"}

#: Execution backends (docs/ult.md): each task a kernel thread, or a user-level thread of the library.
BACKENDS: tuple[str, ...] = ("threads", "ult")

#: Locking protocols implemented today (docs/taskset.md; docs/ceiling.md for the ceiling ones).
PROTOCOLS: tuple[str, ...] = ("none", "pip", "pcp", "srp", "ipcp", "mpcp", "fmlp+", "fifo", "dpcp", "dflp")
#: Distributed protocols of partitioned fixed priority (analysis only: rtsched analyze, not run or sim):
#: each resource's critical sections run on its synchronization partition (``Resource.sync_partition``).
DISTRIBUTED_PROTOCOLS = frozenset({"dpcp", "dflp"})
#: Local ceiling protocols: one partition (one CPU) uses the resource.
LOCAL_PROTOCOLS = frozenset({"pcp", "srp", "ipcp"})
#: Global protocols of partitioned fixed priority: users on any partition.
GLOBAL_PROTOCOLS = frozenset({"mpcp", "fmlp+"})
#: Every ceiling protocol of the model, local and global (the analysis has its own subset).
ALL_CEILING_PROTOCOLS = LOCAL_PROTOCOLS | GLOBAL_PROTOCOLS
#: Protocols whose deferred form holds a job back at its start while a ceiling or a global
#: request stands (docs/ceiling.md): the wait is the model's own, with its CPU possibly idle.
START_GATE_PROTOCOLS = frozenset({"srp", "ipcp"}) | GLOBAL_PROTOCOLS
#: Protocols the runner and the library implement (rts_mutex's enum rts_protocol; a test keeps
#: the two in agreement): all but the distributed ones, which are analysed only.
RUNTIME_PROTOCOLS: tuple[str, ...] = tuple(p for p in PROTOCOLS if p not in DISTRIBUTED_PROTOCOLS)
#: Forms of the ceiling protocols: deferred (no priority change on the uncontended
#: path) or eager (sched_setattr to the ceiling at lock, back at unlock).
VARIANTS: tuple[str, ...] = ("deferred", "eager")


@dataclass(frozen=True, slots=True)
class Partition:
    """A named set of CPUs; under P-EDF an exclusive cpuset (its own root domain)."""

    name: str
    cpus: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Platform:
    """Where and how the set runs.

    ``cpus`` is None when the file leaves it out: all online CPUs, read when
    the set is resolved for a run, not when it is loaded. ``partitions`` is
    None under a partitioned scheduler when the file leaves it out: one
    partition per CPU, named ``cpu0``, ``cpu1``, ... (see ``partitions_for``).
    It is ``()`` under global schedulers. ``clustered``: the file named the
    scheduler ``C-FP`` or ``C-EDF`` (``CLUSTERED_SCHEDULERS``); ``scheduler``
    is then ``P-FP`` / ``P-EDF``, which run the same way: a partition of
    several CPUs is a cluster, scheduled globally inside. ``backend``: who
    runs the tasks, ``threads`` (kernel threads) or ``ult`` (the library's
    user-level scheduler, docs/ult.md). ``dvfs``: the CPUs' frequency/voltage
    levels and power model (``rtsched.model.power``; None: not given, only
    the simulator's DVFS policies need it).
    """

    scheduler: Scheduler
    cpus: tuple[int, ...] | None = None
    partitions: tuple[Partition, ...] | None = ()
    clustered: bool = False
    backend: str = "threads"
    dvfs: PowerModel | None = None

    @property
    def policy(self) -> str:
        """The scheduler's name as the file gave it: ``C-FP`` / ``C-EDF`` when ``clustered``."""
        if self.clustered:
            return next(c for c, p in CLUSTERED_SCHEDULERS.items() if p == self.scheduler)
        return self.scheduler

    @property
    def is_partitioned(self) -> bool:
        return self.scheduler in PARTITIONED_SCHEDULERS

    @property
    def is_fp(self) -> bool:
        return self.scheduler in FP_SCHEDULERS

    @property
    def is_edf(self) -> bool:
        return self.scheduler in EDF_SCHEDULERS

    def partitions_for(self, cpus: tuple[int, ...]) -> tuple[Partition, ...]:
        """The partitions once the platform's CPUs are known (explicit ones, or one per CPU)."""
        if not self.is_partitioned:
            return ()
        if self.partitions is not None:
            return self.partitions
        return tuple(Partition(f"cpu{cpu}", (cpu,)) for cpu in cpus)


@dataclass(frozen=True, slots=True)
class Resource:
    """A mutex under ``protocol`` (one of PROTOCOLS).

    Ceiling protocols only: ``variant`` (``deferred`` or ``eager``) and
    ``ceiling``, the ceiling the file gives (None: computed from the task
    set, see ``rtsched.model.ceilings``). Both are None for none and pip.
    ``sync_partition``: dpcp and dflp only, the partition whose processor
    runs the resource's agents (None: the partition of its first user, in
    task order).
    """

    name: str
    protocol: str = "pip"
    variant: str | None = None
    ceiling: int | None = None
    sync_partition: str | None = None

    @property
    def is_ceiling(self) -> bool:
        return self.protocol in ALL_CEILING_PROTOCOLS


@dataclass(frozen=True, slots=True)
class CondVar:
    """A condition variable, always used with the resource ``mutex``."""

    name: str
    mutex: str


@dataclass(frozen=True, slots=True)
class RpcServer:
    """An RPC server: a SCHED_FIFO thread of base priority ``priority`` that
    serves calls one at a time, highest-priority caller first.

    ``service_ns`` is the service a call gets when it names none (None: every
    call must give its own). ``queue_capacity`` is the most requests waiting
    at once (None: one per task that calls the server, so a call never waits
    for room: each caller has at most one call outstanding). ``partition``
    under P-FP, None under G-FP (it runs on every platform CPU).
    """

    name: str
    priority: int
    partition: str | None = None
    service_ns: int | None = None
    queue_capacity: int | None = None


#: Reservation kinds (docs/reservations.md): a periodic server (replenished every period, its
#: budget idles away when nothing inside is ready), a constant bandwidth server (soft: its
#: deadline postponed at once when its budget runs out; hard: throttled until its deadline), or
#: a sporadic server (Sprunt et al.: budget consumed only while a task inside runs, each amount
#: replenished one period after the activation it was consumed in).
RESERVATION_KINDS: tuple[str, ...] = ("periodic", "cbs", "hard-cbs", "sporadic")
#: who enforces a reservation's budget: the user-level scheduler's timers, or the kernel's
#: SCHED_DEADLINE on its CPU's worker (top level only; docs/reservations.md, "Enforced by the kernel")
RESERVATION_ENFORCEMENTS: tuple[str, ...] = ("user", "kernel")
#: How a reservation schedules its children (tasks and reservations).
RESERVATION_SCHEDULERS: tuple[str, ...] = ("FP", "EDF")
#: Hard reservations keep their budget; soft ones have it adapted at run time.
CRITICALITIES: tuple[str, ...] = ("hard", "soft")


@dataclass(frozen=True, slots=True)
class Reservation:
    """A CPU reservation of the hierarchy (seed 000's server ⟨P, B, Pr, ζ⟩; not an RPC server).

    ``budget_ns`` of CPU time every ``period_ns`` for its children, which it
    schedules by ``scheduler`` (``FP``: by their priority; ``EDF``: by their
    deadlines). ``parent`` is None at the top level, where the platform's
    scheduler orders the reservations of a partition with the tasks placed
    there directly. ``priority`` is set exactly when the parent (or the
    platform, at the top) schedules by fixed priority. ``importance``
    (larger is more important) is set only for soft reservations: in
    overload the adapted bandwidth goes to the more important first.
    ``partition`` is the partition of the top-level ancestor (P-FP / P-EDF).
    Invariants (checked at load): budget ≤ period; a child's bandwidth ≤ its
    parent's, and the hard children of a reservation together too; a hard
    reservation never sits inside a soft one; tasks attach to leaves only.
    """

    name: str
    kind: str
    period_ns: int
    budget_ns: int
    scheduler: str
    criticality: str
    parent: str | None = None
    priority: int | None = None
    importance: int | None = None
    partition: str | None = None
    #: the ``controller`` key as written (defaults filled in); None: not written (model.reservation_control)
    controller: BudgetControl | None = None
    #: ``user``: the user-level scheduler enforces the budget; ``kernel``: its worker's SCHED_DEADLINE
    enforcement: str = "user"

    @property
    def bandwidth(self) -> Fraction:
        """budget / period, exact."""
        return Fraction(self.budget_ns, self.period_ns)

    @property
    def is_hard(self) -> bool:
        return self.criticality == "hard"

    @property
    def is_cbs(self) -> bool:
        """A constant bandwidth server, soft (``cbs``) or hard (``hard-cbs``)."""
        return self.kind in ("cbs", "hard-cbs")


@dataclass(frozen=True, slots=True)
class Sporadic:
    """Sporadic arrivals: gap = period + uniform random extra in [0, max_extra_ns]."""

    max_extra_ns: int = 0
    seed: int = 1


@dataclass(frozen=True, slots=True)
class Compute:
    """Consume ``ns`` of CPU time; with a ``demand``, the job's own value of it
    (``rtsched.model.demand.job_durations``) and ``ns`` is the demand's maximum, the WCET the
    analysis uses."""

    op: ClassVar[str] = "compute"
    ns: int
    demand: Demand | None = None


@dataclass(frozen=True, slots=True)
class Sleep:
    """Sleep for ``ns`` (relative)."""

    op: ClassVar[str] = "sleep"
    ns: int


@dataclass(frozen=True, slots=True)
class Lock:
    op: ClassVar[str] = "lock"
    resource: str


@dataclass(frozen=True, slots=True)
class Unlock:
    op: ClassVar[str] = "unlock"
    resource: str


@dataclass(frozen=True, slots=True)
class Wait:
    """Wait for a signal on ``condvar`` (its mutex held)."""

    op: ClassVar[str] = "wait"
    condvar: str


@dataclass(frozen=True, slots=True)
class Signal:
    op: ClassVar[str] = "signal"
    condvar: str


@dataclass(frozen=True, slots=True)
class Broadcast:
    op: ClassVar[str] = "broadcast"
    condvar: str


@dataclass(frozen=True, slots=True)
class Call:
    """A remote procedure call: queue a request for ``ns`` of service by ``server``
    and wait for its reply (the caller lends the server its priority under PI-CV)."""

    op: ClassVar[str] = "call"
    server: str
    ns: int


#: How a predictable interval's execution phase walks its buffers: in address order, or in a
#: fixed pseudo-random order of their cache lines (the thesis's linear_access / random_access).
PREM_ACCESS: tuple[str, ...] = ("linear", "random")


@dataclass(frozen=True, slots=True)
class Prem:
    """A PREM predictable interval (seed 002, chapter 5; docs/prem.md).

    The memory phase touches every cache line of ``buffers_bytes`` (one buffer per size, private to
    the task); the execution phase then works ``compute_ns`` of CPU time over those buffers in the
    ``access`` order. The whole interval runs non-preemptively and is padded to ``length_ns`` from
    the start of its memory phase, so it always lasts ``length_ns``: the thesis's e_{i,j}, with
    ``length_ns - compute_ns`` the memory phase's budget. Invariant: 0 < compute_ns < length_ns.
    """

    op: ClassVar[str] = "prem"
    buffers_bytes: tuple[int, ...]
    compute_ns: int
    length_ns: int
    access: str = "linear"


#: The write buffer a memwrite or iowrite action uses when the file gives none (rt-app's
#: ``mem_buffer_size`` default, 4 MiB).
WRITE_BUFFER_DEFAULT_BYTES = 4 << 20
#: Where an iowrite action writes when the file names no device (rt-app's ``io_device`` default).
IO_DEVICE_DEFAULT = "/dev/null"


@dataclass(frozen=True, slots=True)
class MemWrite:
    """Write ``bytes`` into the task's write buffer with real stores (docs/taskset.md "memwrite").

    The stores go in chunks of ``buffer_bytes``, each from the buffer's start, so a write larger
    than the buffer wraps (rt-app's ``mem``). Its duration is not known from its size, so the file
    gives ``wcet_ns``: the analysis and the simulator take it as CPU time.
    """

    op: ClassVar[str] = "memwrite"
    bytes: int
    buffer_bytes: int
    wcet_ns: int


@dataclass(frozen=True, slots=True)
class IoWrite:
    """Write ``bytes`` to ``device`` with write(2), in chunks of ``buffer_bytes`` from the task's
    write buffer (rt-app's ``iorun``; docs/taskset.md "iowrite"). It may block in the kernel; the
    analysis and the simulator take its ``wcet_ns`` as CPU time (suspension-oblivious)."""

    op: ClassVar[str] = "iowrite"
    bytes: int
    buffer_bytes: int
    wcet_ns: int
    device: str = IO_DEVICE_DEFAULT


@dataclass(frozen=True, slots=True)
class Activate:
    """Release the next job of event task ``task`` now, or keep the activation for it, or lose it,
    as that task's ``activation_queue`` says (docs/taskset.md "Task kinds")."""

    op: ClassVar[str] = "activate"
    task: str


@dataclass(frozen=True, slots=True)
class Affinity:
    """From here on, the task's thread runs on ``cpus`` only (sched_setaffinity on itself), until
    another ``affinity`` of the task: the change outlives the job (rt-app's per-phase ``cpus``;
    docs/taskset.md "affinity"). Its first job starts on the task's own CPUs (partition or platform)."""

    op: ClassVar[str] = "affinity"
    cpus: tuple[int, ...]  # distinct, ascending, each one of the platform's CPUs


@dataclass(frozen=True, slots=True)
class SetSched:
    """From here on, the task's thread runs under ``policy`` (``fifo`` at ``priority``, ``other`` or
    ``batch`` at ``nice``, ``idle``), set with sched_setattr on itself, until another ``sched`` of
    the task: the change outlives the job (rt-app's per-phase ``policy`` and ``priority``;
    docs/taskset.md "sched"). Its first job starts under the task's own policy."""

    op: ClassVar[str] = "sched"
    policy: str  # fifo, other, batch or idle
    priority: int | None = None  # fifo: 1..99
    nice: int = 0  # other, batch: -20..19


@dataclass(frozen=True, slots=True)
class SetTaskgroup:
    """From here on, the task's thread is in the cpu cgroup ``path`` ("/" the root), until another
    ``taskgroup`` of the task (rt-app's per-phase ``taskgroup``; docs/taskset.md "Taskgroups")."""

    op: ClassVar[str] = "taskgroup"
    path: str


Action = Union[Compute, Sleep, Lock, Unlock, Wait, Signal, Broadcast, Call, Prem, MemWrite, IoWrite, Activate,
               Affinity, SetSched, SetTaskgroup]

#: Action classes by their name in a task-set file.
ACTIONS: dict[str, type] = {
    cls.op: cls for cls in (Compute, Lock, Unlock, Wait, Signal, Broadcast, Sleep, Call, Prem, MemWrite, IoWrite,
                            Activate, Affinity, SetSched, SetTaskgroup)
}


@dataclass(frozen=True, slots=True)
class Task:
    """A task and its job body. ``kind`` says what releases its jobs: ``periodic`` and
    ``sporadic`` a timer (``period_ns`` apart, a sporadic one up to its extra later);
    ``self-paced`` the last job's completion, ``period_ns`` after the last release at the
    earliest; ``event`` an activation by another task (``Activate``), which the analysis
    takes to come ``period_ns`` apart at least, kept while a job runs up to
    ``activation_queue`` (0: lost, rt-app's semantics); with ``activated_at_start`` its first
    job is released at ``offset_ns`` by the task itself (before it, no job waits for an
    activation: one is lost or queued). A periodic, sporadic or self-paced task
    ``started_by_activation`` waits for one activation for its first job (rt-app's fork), then
    releases its jobs as its kind says from there; later activations of it are lost. For the analysis every kind is a
    sporadic task with minimum inter-arrival ``period_ns``.

    ``policy`` is the kernel policy: ``fifo`` (FP schedulers), ``deadline``
    (EDF schedulers) or a best-effort policy, ``other``, ``batch`` or ``idle``
    (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE: background load, not analysed; ``nice``
    -20..19 weighs ``other`` and ``batch`` among themselves, 0 for every other policy);
    inside a reservation, ``fifo`` or ``deadline`` after the reservation's
    scheduler (FP or EDF). ``reservation``: the leaf reservation the task
    runs in (None: scheduled directly by the platform's scheduler).
    ``peripheral_buffer_bytes``: set for a *peripheral* task (PREM's memory-heavy or I/O load):
    its compute actions write over a private buffer of that size and run only while no
    predictable interval of the set is in its memory phase (docs/prem.md).
    ``priority`` is set only for ``fifo``; ``partition`` only under P-FP /
    P-EDF (optional for ``other``). ``budget_ns`` is None when the file gives
    none (FP: not monitored; EDF: the runtime is ``wcet_ns``). ``stack_bytes``: the stack
    its job bodies run on under either backend (None: the backend's default; model/stacks.py).
    ``dl_deadline_ns``, ``dl_period_ns``: policy ``deadline``, threads backend: the kernel's
    deadline and period of the thread's SCHED_DEADLINE reservation when they are not its jobs'
    (rt-app's ``dl-deadline``, ``dl-period``; None: the job's deadline, the task's period).
    ``slice_ns``: policies ``other`` and ``batch``, threads backend: the fair scheduler's slice
    (Linux 6.12+; None: the kernel's default). ``taskgroup``: best-effort tasks, threads backend:
    the cpu cgroup (rt-app's taskgroup, "/tg1") its thread starts in (None: the runner's).
    """

    name: str
    kind: Literal["periodic", "sporadic", "self-paced", "event"]
    period_ns: int
    deadline_ns: int
    offset_ns: int
    wcet_ns: int
    policy: Policy
    priority: int | None = None
    partition: str | None = None
    budget_ns: int | None = None
    max_jobs: int | None = None
    sporadic: Sporadic | None = None
    body: tuple[Action, ...] = field(default=())
    reservation: str | None = None
    peripheral_buffer_bytes: int | None = None
    stack_bytes: int | None = None
    activation_queue: int = 0
    activated_at_start: bool = False
    started_by_activation: bool = False
    nice: int = 0
    dl_deadline_ns: int | None = None
    dl_period_ns: int | None = None
    slice_ns: int | None = None
    taskgroup: str | None = None

    @property
    def utilization(self) -> Fraction:
        """wcet / period, exact."""
        return Fraction(self.wcet_ns, self.period_ns)

    @property
    def density(self) -> Fraction:
        """wcet / min(deadline, period), exact."""
        return Fraction(self.wcet_ns, min(self.deadline_ns, self.period_ns))

    @property
    def is_background(self) -> bool:
        """A best-effort task (other, batch, idle): load, not part of the real-time set."""
        return self.policy in BEST_EFFORT

    @property
    def compute_ns(self) -> int:
        """The sum of the body's compute actions (the default WCET adds prem lengths and write wcets)."""
        return sum(a.ns for a in self.body if isinstance(a, Compute))

    @property
    def writes(self) -> tuple[MemWrite | IoWrite, ...]:
        """The body's memwrite and iowrite actions, in order."""
        return tuple(a for a in self.body if isinstance(a, (MemWrite, IoWrite)))

    @property
    def prem_intervals(self) -> tuple[Prem, ...]:
        """The body's predictable intervals, in order (empty: not a PREM task)."""
        return tuple(a for a in self.body if isinstance(a, Prem))

    @property
    def dl_runtime_ns(self) -> int:
        """The SCHED_DEADLINE runtime: the budget, or the WCET when none is given."""
        return self.budget_ns if self.budget_ns is not None else self.wcet_ns

    @property
    def has_own_dl_reservation(self) -> bool:
        """Whether its SCHED_DEADLINE deadline or period is not its jobs' (``dl_deadline``, ``dl_period``)."""
        return self.dl_deadline_ns is not None or self.dl_period_ns is not None

    @property
    def dl_reservation_deadline_ns(self) -> int:
        """The kernel's deadline of its SCHED_DEADLINE reservation: ``dl_deadline``, else its deadline."""
        return self.dl_deadline_ns if self.dl_deadline_ns is not None else self.deadline_ns

    @property
    def dl_reservation_period_ns(self) -> int:
        """The kernel's period of its SCHED_DEADLINE reservation: ``dl_period``, else its period."""
        return self.dl_period_ns if self.dl_period_ns is not None else self.period_ns

    @property
    def calls(self) -> tuple[Call, ...]:
        """The body's RPCs, in order."""
        return tuple(a for a in self.body if isinstance(a, Call))

    def resources_used(self) -> tuple[str, ...]:
        """Resources the body locks, in order of first use."""
        seen: dict[str, None] = {}
        for action in self.body:
            if isinstance(action, Lock):
                seen.setdefault(action.resource, None)
        return tuple(seen)

    def activates(self, target: str) -> bool:
        """Whether the body activates the event task ``target``."""
        return any(isinstance(a, Activate) and a.task == target for a in self.body)


@dataclass(frozen=True, slots=True)
class TaskSet:
    """A complete, validated task set. ``duration_ns`` is None when the file gives none."""

    name: str
    platform: Platform
    tasks: tuple[Task, ...]
    resources: tuple[Resource, ...] = ()
    condvars: tuple[CondVar, ...] = ()
    duration_ns: int | None = None
    servers: tuple[RpcServer, ...] = ()
    reservations: tuple[Reservation, ...] = ()
    chains: tuple[Chain, ...] = ()  # cause-effect chains (rtsched.model.chains, docs/chains.md)

    @property
    def scheduler(self) -> str:
        return self.platform.scheduler

    @property
    def rt_tasks(self) -> tuple[Task, ...]:
        """The real-time tasks (all but SCHED_OTHER background tasks)."""
        return tuple(t for t in self.tasks if not t.is_background)

    def task(self, name: str) -> Task:
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(name)

    def resource(self, name: str) -> Resource:
        for r in self.resources:
            if r.name == name:
                return r
        raise KeyError(name)

    def condvar(self, name: str) -> CondVar:
        for c in self.condvars:
            if c.name == name:
                return c
        raise KeyError(name)

    def rpc_server(self, name: str) -> RpcServer:
        for s in self.servers:
            if s.name == name:
                return s
        raise KeyError(name)

    def reservation(self, name: str) -> Reservation:
        for r in self.reservations:
            if r.name == name:
                return r
        raise KeyError(name)

    def child_reservations(self, parent: str | None) -> tuple[Reservation, ...]:
        """The reservations directly inside ``parent`` (None: the top-level ones), in file order."""
        return tuple(r for r in self.reservations if r.parent == parent)

    def tasks_in(self, reservation: str) -> tuple[Task, ...]:
        """The tasks attached to ``reservation`` (a leaf), in file order."""
        return tuple(t for t in self.tasks if t.reservation == reservation)

    def callers_of(self, server: str) -> tuple[Task, ...]:
        """The tasks whose body calls ``server``."""
        return tuple(t for t in self.tasks if any(c.server == server for c in t.calls))

    def service_utilization(self) -> dict[str, Fraction]:
        """RPC server name -> the CPU share its service takes: sum of call / period
        over the real-time tasks' calls to it."""
        result = {s.name: Fraction(0) for s in self.servers}
        for t in self.rt_tasks:
            for call in t.calls:
                result[call.server] += Fraction(call.ns, t.period_ns)
        return result

    def total_utilization(self) -> Fraction:
        """Sum of wcet/period over the real-time tasks, plus the servers' service."""
        own = sum((t.utilization for t in self.rt_tasks), Fraction(0))
        return own + sum(self.service_utilization().values(), Fraction(0))

    def utilization_by_partition(self) -> dict[str, Fraction]:
        """Partition name -> sum of wcet/period of its real-time tasks, plus the
        service of the servers on it (the calls run there, not on the caller's).

        Only under partitioned schedulers; partitions come from the file (or
        ``cpu<N>`` names when it gives none, listing only the used ones).
        """
        if not self.platform.is_partitioned:
            raise ValueError(
                f"{self.scheduler} is a global scheduler: use total_utilization()"
            )
        result: dict[str, Fraction] = {}
        if self.platform.partitions is not None:
            result = {p.name: Fraction(0) for p in self.platform.partitions}
        for t in self.rt_tasks:
            assert t.partition is not None
            result[t.partition] = result.get(t.partition, Fraction(0)) + t.utilization
        for name, share in self.service_utilization().items():
            partition = self.rpc_server(name).partition
            assert partition is not None
            result[partition] = result.get(partition, Fraction(0)) + share
        return result

    def tasks_of_partition(self, partition: str) -> tuple[Task, ...]:
        return tuple(t for t in self.tasks if t.partition == partition)

    def chain_links(self, chain: Chain) -> tuple[Link, ...]:
        """The kind of each of ``chain``'s links (one fewer than its tasks): ``event`` where the next
        task is an event task that the previous one activates, else ``register`` (rtsched.model.chains)."""
        links: list[Link] = []
        for before, after in zip(chain.tasks, chain.tasks[1:]):
            event = self.task(after).kind == "event" and self.task(before).activates(after)
            links.append("event" if event else "register")
        return tuple(links)

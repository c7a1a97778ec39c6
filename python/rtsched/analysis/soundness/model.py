"""What the soundness harness explores: concrete task bodies, and one legal run of them.

An analysis sees an :class:`~rtsched.analysis.tasks.AnalysisTask` (WCET,
section lengths, total suspension). The harness needs more: *where* in the
job each section and each sleep lies. A :class:`TaskModel` is that job body,
in integer ticks, with its maxima; :meth:`SystemModel.problem` derives the
``AnalysisProblem`` the tests are given, the way ``from_taskset`` reads a
task-set file (sections measure the execution and sleep between lock and
unlock; sleeps become ``suspension_ns``; ``np`` intervals become
``np_segments_ns``).

A :class:`Scenario` is one legal behaviour of the model within a horizon:
every job's arrival (sporadic: arrivals of a task at least a period apart),
its release delay (at most the task's jitter) and its body with every
amount at most the model's (execution, section contents and sleeps may be
shorter: the tests are for upper bounds). :func:`check_legal` says why a
scenario is not legal; the explorer runs only legal ones.

Body operations, as ``(kind, value)`` pairs:

- ``("exec", n)``   — n ticks of preemptive execution;
- ``("np", n)``     — n ticks of execution that is not preempted once begun
  (a limited-preemption interval, ``fp-lp``);
- ``("sleep", n)``  — a self-suspension of n ticks;
- ``("lock", r)`` / ``("unlock", r)`` — take / give back resource r
  (properly nested);
- ``("call", (server, n))`` — a remote procedure call: n ticks of work by
  ``server`` while the caller waits (``picv-rpc``; seed 004 §5). Outside any
  critical section.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, CriticalSection, Rpc

__all__ = ["EXEC", "NP", "SLEEP", "LOCK", "UNLOCK", "CALL", "Op", "TaskModel", "SystemModel", "Job", "Scenario",
           "check_legal", "expand_calls", "server_lock"]

EXEC, NP, SLEEP, LOCK, UNLOCK, CALL = "exec", "np", "sleep", "lock", "unlock", "call"
TIMED = (EXEC, NP, SLEEP)

#: (kind, value): the value is ticks (int), a resource (str) or (server, ticks) by the kind; Any because
#: the bodies are read by unpacking (kind, value), which mypy does not narrow by the kind (TaskModel checks it).
Op = tuple[str, Any]


@dataclass
class _OpenSection:
    """A section being read: resource, ticks so far, resources locked inside, enclosing sections (0: outermost)."""

    resource: str
    length: int
    nested: set[str]
    depth: int


def _sections(body: tuple[Op, ...]) -> tuple[CriticalSection, ...]:
    """The critical sections of a body: length = execution and sleep between lock and unlock."""
    open_: list[_OpenSection] = []
    out: list[CriticalSection] = []
    for kind, value in body:
        if kind in TIMED:
            for entry in open_:
                entry.length += value
        elif kind == LOCK:
            for entry in open_:
                entry.nested.add(value)
            open_.append(_OpenSection(value, 0, set(), len(open_)))
        elif kind == UNLOCK:
            done = open_.pop()
            out.append(CriticalSection(done.resource, done.length, tuple(sorted(done.nested)),
                                       outermost=done.depth == 0))
    return tuple(out)


@dataclass(frozen=True)
class TaskModel:
    """A sporadic task with a concrete job body (maxima), in ticks (1 tick = 1 ns for the tests)."""

    name: str
    period: int
    deadline: int
    body: tuple[Op, ...]
    priority: int = 0
    jitter: int = 0
    partition: str | None = None

    def __post_init__(self) -> None:
        held: list[str] = []
        for op in self.body:
            kind, value = op
            if kind in TIMED:
                if not isinstance(value, int) or value < 0:
                    raise ValueError(f"{self.name}: {op} needs a tick count ≥ 0")
            elif kind == LOCK:
                if value in held:
                    raise ValueError(f"{self.name}: locks {value} twice")
                held.append(value)
            elif kind == UNLOCK:
                if not held or held[-1] != value:
                    raise ValueError(f"{self.name}: unlock {value} is not the innermost lock held ({held})")
                held.pop()
            elif kind == CALL:
                if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str)
                        and isinstance(value[1], int) and value[1] >= 0):
                    raise ValueError(f"{self.name}: {op} needs (server, ticks ≥ 0)")
                if held:
                    raise ValueError(f"{self.name}: a call inside a critical section ({held}) is not modelled")
            else:
                raise ValueError(f"{self.name}: unknown operation {op}")
        if held:
            raise ValueError(f"{self.name}: ends holding {held}")
        if self.period <= 0 or self.deadline <= 0:
            raise ValueError(f"{self.name}: period and deadline must be positive")

    @property
    def wcet(self) -> int:
        return sum(v for k, v in self.body if k in (EXEC, NP))

    @property
    def suspension(self) -> int:
        return sum(v for k, v in self.body if k == SLEEP)

    def analysis_task(self) -> AnalysisTask:
        nps = tuple(v for k, v in self.body if k == NP)
        return AnalysisTask(
            name=self.name, wcet_ns=self.wcet, period_ns=self.period, deadline_ns=self.deadline,
            priority=self.priority, jitter_ns=self.jitter, suspension_ns=self.suspension,
            critical_sections=_sections(self.body), partition=self.partition, np_segments_ns=nps,
            rpcs=tuple(Rpc(v[0], v[1]) for k, v in self.body if k == CALL))


@dataclass(frozen=True)
class SystemModel:
    """Task models plus the platform: scheduler (as AnalysisProblem), processors, protocols, and the
    synchronization partitions of resources under dpcp / dflp (``AnalysisProblem.sync_partitions``)."""

    tasks: tuple[TaskModel, ...]
    scheduler: str = "FP"
    cpus: int = 1
    protocols: Mapping[str, str] = field(default_factory=dict)
    sync_partitions: Mapping[str, str] = field(default_factory=dict)

    def problem(self) -> AnalysisProblem:
        return AnalysisProblem(tasks=tuple(t.analysis_task() for t in self.tasks), scheduler=self.scheduler,
                               cpus=self.cpus, protocols=dict(self.protocols),
                               sync_partitions=dict(self.sync_partitions))

    def task(self, name: str) -> TaskModel:
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(name)

    def with_protocol(self, protocol: str) -> "SystemModel":
        names = {op[1] for t in self.tasks for op in t.body if op[0] == LOCK}
        return replace(self, protocols={r: protocol for r in names})


@dataclass(frozen=True)
class Job:
    """One job: arrival, release delay (≤ jitter; ready at arrival + delay), its concrete body."""

    task: str
    arrival: int
    delay: int
    body: tuple[Op, ...]


@dataclass(frozen=True)
class Scenario:
    """One legal behaviour: the jobs, a tie-break order of tasks (first wins), and the supply.

    ``supply``: for a periodic resource Γ(Π, Θ), the ticks of each server
    period at which the processor is available (offsets in [0, Π), Θ of
    them per period); periods beyond the tuple get their Θ ticks at the end
    of the period. None: the processors are always available.
    """

    jobs: tuple[Job, ...]
    order: tuple[str, ...] = ()
    supply_period: int = 0
    supply_budget: int = 0
    supply: tuple[tuple[int, ...], ...] | None = None

    def available(self, t: int) -> bool:
        if self.supply is None:
            return True
        k, offset = divmod(t, self.supply_period)
        if k < len(self.supply):
            return offset in self.supply[k]
        return offset >= self.supply_period - self.supply_budget


def server_lock(server: str) -> str:
    """The explorer's name for the serialisation of a server's requests (see expand_calls)."""
    return f"rpc:{server}"


def expand_calls(body: tuple[Op, ...]) -> tuple[Op, ...]:
    """A body with each call written as what it does to the schedule.

    A server serves one request at a time, takes waiting requests by client priority and
    runs at the priority of the highest client it serves or keeps waiting (PI condition
    variables, seed 004), below every client otherwise; the caller waits meanwhile. On the
    caller's processor that is the caller holding a lock on the server under priority
    inheritance for the call's length: ``lock rpc:S; exec n; unlock rpc:S``.
    """
    out: list[Op] = []
    for kind, value in body:
        if kind == CALL:
            out += [(LOCK, server_lock(value[0])), (EXEC, value[1]), (UNLOCK, server_lock(value[0]))]
        else:
            out.append((kind, value))
    return tuple(out)


def check_legal(model: SystemModel, scenario: Scenario) -> str | None:
    """None when the scenario is a legal behaviour of the model, else why not."""
    last: dict[str, int] = {}
    for job in sorted(scenario.jobs, key=lambda j: (j.task, j.arrival)):
        try:
            task = model.task(job.task)
        except KeyError:
            return f"job of unknown task {job.task}"
        if job.arrival < 0:
            return f"{job.task}: arrival {job.arrival} < 0"
        if job.task in last and job.arrival - last[job.task] < task.period:
            return f"{job.task}: arrivals {last[job.task]} and {job.arrival} closer than the period {task.period}"
        last[job.task] = job.arrival
        if not 0 <= job.delay <= task.jitter:
            return f"{job.task}@{job.arrival}: release delay {job.delay} outside [0, {task.jitter}]"
        if len(job.body) != len(task.body):
            return f"{job.task}@{job.arrival}: body has {len(job.body)} operations, the task {len(task.body)}"
        for got, top in zip(job.body, task.body):
            if got[0] != top[0] or (got[0] in (LOCK, UNLOCK) and got[1] != top[1]):
                return f"{job.task}@{job.arrival}: operation {got} where the task has {top}"
            if got[0] in TIMED and not 0 <= got[1] <= top[1]:
                return f"{job.task}@{job.arrival}: {got} exceeds the task's {top}"
            if got[0] == CALL and (got[1][0] != top[1][0] or not 0 <= got[1][1] <= top[1][1]):
                return f"{job.task}@{job.arrival}: {got} is not a shorter or equal {top}"
    if scenario.supply is not None:
        for k, ticks in enumerate(scenario.supply):
            if len(set(ticks)) != scenario.supply_budget or any(not 0 <= x < scenario.supply_period for x in ticks):
                return (f"supply period {k}: {ticks} is not {scenario.supply_budget} distinct ticks "
                        f"in [0, {scenario.supply_period})")
    return None

"""One entry of ``tasks``, in steps: its own values (timing, body, sizes), its sporadic
releases, who orders it (its reservation's scheduler, else the platform's), its policy and
priority under that, its partition, the default WCET, and SCHED_DEADLINE's limits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from rtsched.model.demand_format import trace_job_limit
from rtsched.model.durations import format_duration
from rtsched.model.model import (
    BEST_EFFORT,
    FP_SCHEDULERS,
    PARTITIONED_SCHEDULERS,
    Action,
    Activate,
    Affinity,
    Compute,
    IoWrite,
    MemWrite,
    Platform,
    Policy,
    Prem,
    Reservation,
    SetSched,
    SetTaskgroup,
    Sporadic,
    Task,
)
from rtsched.model.placement import platform_cpus_given
from rtsched.model.prem import parse_peripheral
from rtsched.model.stacks import parse_stack
from rtsched.model.validation.body import read_body, read_taskgroup
from rtsched.model.validation.checker import Checker, Declared, Names
from rtsched.model.validation.fields import SPORADIC, TASK, TASKS

__all__ = ["read_tasks", "read_task", "DL_MIN_RUNTIME_NS"]

#: SCHED_DEADLINE refuses a runtime below 1024 ns (kernel DL_SCALE).
DL_MIN_RUNTIME_NS = 1 << 10


def read_tasks(c: Checker, value: Any, platform: Platform | None, declared: Declared) -> list[Task] | None:
    items = TASKS.read(c, value, "tasks")
    if items is None:
        return None
    result: list[Task] = []
    names: Names = []
    read: list[tuple[int, Task]] = []
    for i, item in enumerate(items):
        task = read_task(c, item, f"tasks[{i}]", i, platform, declared, names)
        if task is not None:
            result.append(task)
            read.append((i, task))
    c.unique(names, "task")
    _check_activations(c, read, {str(n) for n, _ in names if isinstance(n, str)})
    if platform is not None:
        _check_affinities(c, read, platform)
        _check_sched_changes(c, read, platform)
        _check_taskgroup_changes(c, read, platform)
    return result


def _check_taskgroup_changes(c: Checker, tasks: list[tuple[int, Task]], platform: Platform) -> None:
    """A ``taskgroup`` action moves a best-effort kernel thread between cpu cgroups; a task in a taskgroup
    never becomes real-time (``sched``), as rt-app refuses."""
    for i, task in tasks:
        moves = [j for j, a in enumerate(task.body) if isinstance(a, SetTaskgroup)]
        if moves and task.policy not in BEST_EFFORT:
            c.error(f"tasks[{i}].body[{moves[0]}].taskgroup", f'task "{task.name}": '
                    + _RT_TASKGROUP.format(policy=task.policy))
        elif moves and platform.backend == "ult":
            c.error(f"tasks[{i}].body[{moves[0]}].taskgroup", f'task "{task.name}": ' + _ULT_TASKGROUP)
        elif moves or task.taskgroup is not None:
            rt = next((j for j, a in enumerate(task.body) if isinstance(a, SetSched) and a.policy == "fifo"), None)
            if rt is not None:
                c.error(f"tasks[{i}].body[{rt}].sched", f'task "{task.name}" is in a taskgroup: '
                        + _RT_TASKGROUP.format(policy="fifo"))


def _check_sched_changes(c: Checker, tasks: list[tuple[int, Task]], platform: Platform) -> None:
    """A ``sched`` action changes a kernel thread's own policy: not under ult, not in a reservation, and
    not for a SCHED_DEADLINE task (its reservation would be lost)."""
    for i, task in tasks:
        for j, action in enumerate(task.body):
            if not isinstance(action, SetSched):
                continue
            where = f"tasks[{i}].body[{j}].sched"
            if platform.backend == "ult":
                c.error(where, f'task "{task.name}" changes its policy: not under backend ult, whose workers run '
                               "every task (a user-level thread has no policy of its own); use backend threads")
            elif task.policy == "deadline":
                c.error(where, f'task "{task.name}" is SCHED_DEADLINE: it would lose its reservation; give it '
                               "policy fifo or a best-effort policy to change its policy")
            elif task.reservation is not None:
                c.error(where, f'task "{task.name}" runs in reservation "{task.reservation}", which orders it')
            break


def _check_affinities(c: Checker, tasks: list[tuple[int, Task]], platform: Platform) -> None:
    """Every ``affinity`` names CPUs of the platform, when the file gives them (else the run checks them
    against the machine's, resolve.py), and runs on a kernel thread of its own (not under ult)."""
    known = platform_cpus_given(platform)
    for i, task in tasks:
        for j, action in enumerate(task.body):
            if not isinstance(action, Affinity):
                continue
            where = f"tasks[{i}].body[{j}].affinity"
            if platform.backend == "ult":
                c.error(where, f'task "{task.name}" changes its CPUs: not under backend ult, whose workers run '
                               "every task (a user-level thread has no affinity of its own); use backend threads")
                continue
            outside = [cpu for cpu in action.cpus if known is not None and cpu not in known]
            if outside:
                c.error(where, f'task "{task.name}": CPU {outside[0]} is not one of the platform\'s CPUs '
                               f"({', '.join(map(str, known or ()))})")


def _check_activations(c: Checker, tasks: list[tuple[int, Task]], names: set[str]) -> None:
    """Every ``activate`` names an event task of the set."""
    events = {t.name for _, t in tasks if t.kind == "event" or t.started_by_activation}
    for i, task in tasks:
        for j, action in enumerate(task.body):
            if not isinstance(action, Activate) or action.task in events:
                continue
            where = f"tasks[{i}].body[{j}].activate"
            if action.task in names:
                c.error(where, f'"{action.task}" is not an event task: only those are activated '
                               "(give it kind: event, or started_by_activation: true)")
            else:
                c.error(where, f'no task "{action.task}" in this set'
                               + (f" (event tasks: {', '.join(sorted(events))})" if events else ""))


@dataclass
class _Entry:
    """A task's mapping being read: each step reports through ``c`` and clears ``ok`` on an error."""

    c: Checker
    data: dict[str, Any]
    path: str
    ok: bool = True

    def value(self, key: str, default: Any = None, read: Callable[[Any, str], Any] | None = None) -> Any:
        """``data[key]`` read as the format says (or by ``read``); ``default`` when absent."""
        if key not in self.data:
            return default
        where = f"{self.path}.{key}"
        result = read(self.data[key], where) if read else TASK.fields[key].read(self.c, self.data[key], where)
        if result is None:
            self.ok = False
        return result

    def fail(self, path: str, message: str) -> None:
        self.c.error(path, message)
        self.ok = False


@dataclass(frozen=True)
class _Orderer:
    """Who orders a task's jobs: its reservation (``owner``) when it has one, else the platform's scheduler."""

    scheduler: str | None
    owner: Reservation | None

    @property
    def by_priority(self) -> bool:
        return self.owner.scheduler == "FP" if self.owner is not None else self.scheduler in FP_SCHEDULERS

    @property
    def native_policy(self) -> str:
        return "fifo" if self.by_priority else "deadline"

    def __str__(self) -> str:
        return f'reservation "{self.owner.name}"' if self.owner is not None else str(self.scheduler)


def read_task(c: Checker, item: Any, path: str, index: int, platform: Platform | None, declared: Declared,
              names: Names) -> Task | None:
    data = c.mapping(item, path)
    if data is None:
        return None
    c.format_keys(data, TASK, path)
    e = _Entry(c, data, path)
    name = e.value("name")
    names.append((name, f"{path}.name"))
    kind = e.value("kind", "periodic")
    period = e.value("period")
    deadline = e.value("deadline", period)
    offset = e.value("offset", 0)
    wcet = e.value("wcet")
    budget = e.value("budget")
    max_jobs = e.value("max_jobs")
    body = e.value("body", read=lambda v, p: read_body(c, v, p, declared))
    if body is not None and (trace_jobs := trace_job_limit(body)) is not None:
        max_jobs = min(max_jobs or trace_jobs, trace_jobs)  # a stop trace ends the task
    reservation = e.value("reservation")
    peripheral = e.value("peripheral", read=lambda v, p: c.reported(parse_peripheral(v, p)))
    stack = e.value("stack", read=lambda v, p: c.reported(parse_stack(v, p)))
    if any(key not in data for key in TASK.required):
        e.ok = False
    sporadic = _sporadic(e, kind, index)
    activation_queue = e.value("activation_queue", 0)
    if "activation_queue" in data and kind != "event":
        e.fail(f"{path}.activation_queue", "only for kind: event (the activations an event task keeps while busy)")
    activated_at_start = e.value("activated_at_start", False)
    if "activated_at_start" in data and kind != "event":
        e.fail(f"{path}.activated_at_start", "only for kind: event (its first job released at offset by itself)")
    if activated_at_start and activation_queue:
        e.fail(f"{path}.activated_at_start", "only with activation_queue 0 (an activation before the first job "
                                             "is then lost, as rt-app's resume to a thread not yet waiting)")
    started = e.value("started_by_activation", False)
    if started and (kind == "event" or "offset" in data):
        e.fail(f"{path}.started_by_activation", "only for periodic, sporadic and self-paced tasks, without an "
                                                "offset (the activation releases the first job)")
    if kind == "event" and "offset" in data and not activated_at_start:
        e.fail(f"{path}.offset", "an event task's jobs come with its activations: it has no offset (unless "
                                 "activated_at_start: true releases its first job at the offset)")

    scheduler = platform.scheduler if platform is not None else None
    owner = declared.reservations.get(reservation) if reservation is not None else None
    if reservation is not None and owner is None:
        if reservation not in c.invalid_names:  # else its reservation's own error says what is wrong
            c.reference(reservation, f"{path}.reservation", declared.reservations, "reservation")
        return None
    orderer = _Orderer(scheduler, owner)
    policy = _policy(e, orderer)
    priority = _priority(e, policy, orderer)
    nice = _nice(e, policy, platform)
    slice_ns = _slice(e, policy, platform)
    taskgroup = _taskgroup(e, policy, platform)
    dl_deadline, dl_period = _dl_reservation(e, policy, platform, reservation)
    partition = _partition(e, policy, platform)
    wcet = _default_wcet(e, body, wcet)
    if policy == "deadline" and period is not None and deadline is not None and wcet is not None:
        _deadline_limits(e, name, dl_period or period, dl_deadline or deadline, wcet, budget,
                         own=dl_deadline is not None or dl_period is not None)

    if not e.ok or policy is None or name is None:
        return None
    assert wcet is not None  # read, or the body's (which a valid task has)
    return Task(
        name=name,
        kind=kind,
        period_ns=period,
        deadline_ns=deadline,
        offset_ns=offset,
        wcet_ns=wcet,
        policy=cast(Policy, policy),
        priority=priority,
        partition=partition,
        budget_ns=budget,
        max_jobs=max_jobs,
        sporadic=sporadic,
        body=tuple(body),
        reservation=reservation,
        peripheral_buffer_bytes=peripheral,
        stack_bytes=stack,
        activation_queue=activation_queue or 0,
        activated_at_start=bool(activated_at_start),
        started_by_activation=bool(started),
        nice=nice,
        dl_deadline_ns=dl_deadline,
        dl_period_ns=dl_period,
        slice_ns=slice_ns,
        taskgroup=taskgroup,
    )


def _sporadic(e: _Entry, kind: str | None, index: int) -> Sporadic | None:
    """The ``sporadic`` mapping (kind sporadic only); by default no extra gap and seed index + 1."""
    path = f"{e.path}.sporadic"
    if "sporadic" not in e.data:
        return Sporadic(0, index + 1) if kind == "sporadic" else None
    if kind != "sporadic":
        e.fail(path, "only for kind: sporadic")
        return None
    data = e.c.mapping(e.data["sporadic"], path)
    if data is None:
        e.ok = False
        return None
    e.c.format_keys(data, SPORADIC, path)
    extra: int | None = e.c.read(data, SPORADIC, "max_extra", path) if "max_extra" in data else 0
    seed: int | None = e.c.read(data, SPORADIC, "seed", path) if "seed" in data else index + 1
    if extra is None or seed is None:
        e.ok = False
        return None
    return Sporadic(extra, seed)


def _policy(e: _Entry, orderer: _Orderer) -> str | None:
    """The task's policy: its orderer's native one (fifo or deadline) or a best-effort one; default the native."""
    if "policy" not in e.data:
        return orderer.native_policy if orderer.scheduler is not None else None
    policy: str | None = e.value("policy")
    if (policy is not None and orderer.scheduler is not None and policy != orderer.native_policy
            and policy not in BEST_EFFORT):
        e.fail(
            f"{e.path}.policy",
            f'"{policy}" does not go with {"scheduler " + str(orderer) if orderer.owner is None else orderer}, '
            f'whose tasks are "{orderer.native_policy}": leave policy out, or write "other", "batch" or "idle" '
            "for a background task",
        )
        return None
    return policy


def _priority(e: _Entry, policy: str | None, orderer: _Orderer) -> int | None:
    """Required for a fifo task, refused for the others."""
    if policy == "fifo":
        if "priority" not in e.data:
            e.fail(e.path, f'missing required key "priority" (SCHED_FIFO 1..99, higher is more urgent, under {orderer})')
            return None
        priority: int | None = e.value("priority")
        return priority
    if "priority" in e.data and policy is not None:
        if policy != "deadline":
            why = f'not used for policy "{policy}" (a best-effort task has no real-time priority; nice weighs it): remove it'
        elif orderer.owner is None:
            why = f"not used under {orderer.scheduler} (SCHED_DEADLINE orders jobs by deadline): remove it"
        else:
            why = f"not used inside {orderer}, which orders jobs by deadline (EDF): remove it"
        e.fail(f"{e.path}.priority", why)
    return None


def _nice(e: _Entry, policy: str | None, platform: Platform | None) -> int:
    """-20..19 for policies other and batch (default 0); refused for the others and under the ult backend
    (as are policies batch and idle)."""
    if policy in ("batch", "idle") and platform is not None and platform.backend == "ult":
        e.fail(f"{e.path}.policy", _ULT_BEST_EFFORT)
    if "nice" not in e.data or policy is None:
        return 0
    nice: int | None = e.value("nice")
    if nice is None:
        return 0
    if policy not in ("other", "batch"):
        why = ("SCHED_IDLE has the least weight whatever the nice" if policy == "idle"
               else f"policy {policy} has a real-time {'priority' if policy == 'fifo' else 'deadline'} instead")
        e.fail(f"{e.path}.nice", f"nice weighs policies other and batch only: {why}; remove it")
    elif platform is not None and platform.backend == "ult" and nice != 0:
        e.fail(f"{e.path}.nice", _ULT_BEST_EFFORT)
    return nice


#: The fair scheduler's slice range (Linux 6.12+ clamps sched_runtime to it; kernel/sched/syscalls.c).
SLICE_RANGE_NS = (100_000, 100_000_000)


def _slice(e: _Entry, policy: str | None, platform: Platform | None) -> int | None:
    """The fair scheduler's slice: policies other and batch, threads backend, 0.1..100 ms."""
    if "slice" not in e.data or policy is None:
        return None
    value: int | None = e.value("slice")
    if value is None:
        return None
    if policy not in ("other", "batch"):
        e.fail(f"{e.path}.slice", f"a slice is the fair scheduler's, for policies other and batch only "
                                  f"(policy {policy}): remove it")
    elif platform is not None and platform.backend == "ult":
        e.fail(f"{e.path}.slice", _ULT_BEST_EFFORT)
    elif not SLICE_RANGE_NS[0] <= value <= SLICE_RANGE_NS[1]:
        e.fail(f"{e.path}.slice", f"{format_duration(value)} is not in 100us..100ms, the slices the kernel "
                                  "takes (it would clamp it)")
    return value


def _taskgroup(e: _Entry, policy: str | None, platform: Platform | None) -> str | None:
    """A cpu cgroup (rt-app's taskgroup): best-effort tasks on kernel threads."""
    if "taskgroup" not in e.data or policy is None:
        return None
    value: str | None = e.value("taskgroup", read=lambda v, p: read_taskgroup(e.c, v, p))
    if value is None:
        return None
    if policy not in BEST_EFFORT:
        e.fail(f"{e.path}.taskgroup", _RT_TASKGROUP.format(policy=policy))
    elif platform is not None and platform.backend == "ult":
        e.fail(f"{e.path}.taskgroup", _ULT_TASKGROUP)
    return value


#: Why a real-time task has no taskgroup (rt-app refuses it too: "No taskgroup support for policy").
_RT_TASKGROUP = ("a cpu cgroup shares CPU time among best-effort threads; a {policy} thread in one would need "
                 "real-time runtime given to the group, which rt-app does not give either (it refuses taskgroups "
                 "for real-time policies): remove it, or make the task other, batch or idle")
_ULT_TASKGROUP = ("the ult backend runs every task on its worker threads, so a task has no cgroup of its own; use "
                  "backend: threads")


def _dl_reservation(e: _Entry, policy: str | None, platform: Platform | None,
                    reservation: str | None) -> tuple[int | None, int | None]:
    """``dl_deadline``, ``dl_period``: policy deadline on kernel threads, outside reservations."""
    given = [k for k in ("dl_deadline", "dl_period") if k in e.data]
    if not given or policy is None:
        return None, None
    values = [e.value(k) if k in e.data else None for k in ("dl_deadline", "dl_period")]
    where = f"{e.path}.{given[0]}"
    if policy != "deadline":
        e.fail(where, f"the deadline and period of a SCHED_DEADLINE reservation: not used for policy {policy}; "
                      "remove it")
    elif reservation is not None:
        e.fail(where, f'the task runs inside reservation "{reservation}", which gives it its CPU time: remove it')
    elif platform is not None and platform.backend == "ult":
        e.fail(where, "the ult backend runs every task on its own worker threads: a task has no SCHED_DEADLINE "
                      "reservation of its own; use backend: threads")
    return values[0], values[1]


#: Why the ult backend refuses batch, idle and nice (the library says the same, src/task/taskset.c).
_ULT_BEST_EFFORT = ("the ult backend runs every task on its SCHED_FIFO worker threads, so a task has no kernel "
                    "policy or nice of its own: its background tasks are policy other, nice 0 (below every "
                    "priority); use backend: threads for batch, idle or nice")


def _partition(e: _Entry, policy: str | None, platform: Platform | None) -> str | None:
    """Required under a partitioned scheduler (but for a background task), refused under a global one."""
    scheduler = platform.scheduler if platform is not None else None
    if scheduler in PARTITIONED_SCHEDULERS and platform is not None:
        if "partition" in e.data:
            partition: str | None = e.value("partition", read=lambda v, p: e.c.partition_ref(v, p, platform))
            return partition
        if policy not in BEST_EFFORT:
            e.fail(e.path, f'missing required key "partition" (required under {scheduler})')
        return None
    if "partition" in e.data and scheduler is not None:
        e.fail(
            f"{e.path}.partition",
            f"not used under {scheduler} (global scheduling: tasks run on all platform CPUs): remove it",
        )
    return None


def _default_wcet(e: _Entry, body: list[Action] | None, wcet: int | None) -> int | None:
    """``wcet``, by default the body's compute, PREM intervals and writes (which must not sum to 0)."""
    if body is None or wcet is not None or "wcet" in e.data:
        return wcet
    total = sum(a.ns for a in body if isinstance(a, Compute)) + sum(
        a.length_ns for a in body if isinstance(a, Prem)) + sum(
        a.wcet_ns for a in body if isinstance(a, (MemWrite, IoWrite)))
    if total == 0:
        e.fail(
            f"{e.path}.wcet",
            "the body has no compute, prem, memwrite or iowrite, so the default WCET would be 0: give wcet",
        )
    return total


def _deadline_limits(e: _Entry, name: str | None, period: int, deadline: int, wcet: int, budget: int | None,
                     own: bool = False) -> None:
    """SCHED_DEADLINE's: a runtime (the budget, else the WCET) of at least 1024 ns, runtime <= deadline <= period
    (``own``: the reservation's dl_deadline and dl_period where given, else the task's)."""
    runtime = budget if budget is not None else wcet
    runtime_name = "budget" if budget is not None else "wcet (the runtime when no budget is given)"
    if runtime < DL_MIN_RUNTIME_NS:
        e.fail(e.path, f"SCHED_DEADLINE needs a runtime of at least 1024ns; {runtime_name} is {runtime}ns")
    if not runtime <= deadline <= period:
        fd = format_duration
        if deadline > period:
            fix = f"make the deadline at most the period ({fd(period)})"
        else:
            fix = f"make the {runtime_name.split(' ')[0]} at most the deadline ({fd(deadline)})"
        whose = " (the reservation's dl_deadline and dl_period where given)" if own else ""
        e.fail(
            e.path,
            f'task "{name}": SCHED_DEADLINE needs runtime <= deadline <= period{whose}, got '
            f"runtime {fd(runtime)}, deadline {fd(deadline)}, period {fd(period)}: {fix}",
        )

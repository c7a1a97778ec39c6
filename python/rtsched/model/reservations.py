"""Reservations in a task set: reading the ``reservations`` list, and the rules of the tree.

A reservation (docs/reservations.md; seed 000, AdHierSched) gives its
children ``budget`` of CPU time every ``period``: tasks attached to it, or
child reservations, to any depth. Two steps live here:

- ``read_reservations``: each entry's keys and values, with their paths, as
  the validator reads every other list (it lends its checks through
  ``Checks``, so this module does not import the validator);
- ``reservation_problems``: the rules that need the whole set, as (path,
  message) pairs: parents exist and form a tree, bandwidths nest, hard
  never inside soft, tasks attach to leaves, priorities where the parent
  orders by priority, one partition per subtree, the ult backend; a CBS
  under EDF, a sporadic server at the top of a P-FP partition (hard, FP
  inside); both hold tasks only; a kernel-enforced reservation alone at
  the top of its partition (model.kernel_reservations).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any, Collection, Protocol

from rtsched.model.durations import format_duration
from rtsched.model.kernel_reservations import kernel_enforcement_problems
from rtsched.model.reservation_control import controller_problems, read_controller
from rtsched.model.model import (
    CRITICALITIES,
    PARTITIONED_SCHEDULERS,
    RESERVATION_ENFORCEMENTS,
    RESERVATION_KINDS,
    RESERVATION_SCHEDULERS,
    Platform,
    Reservation,
    TaskSet,
)

__all__ = ["RESERVATION_KEYS", "Checks", "read_reservations", "reservation_problems", "with_inherited", "parent_orders_by_priority"]

RESERVATION_KEYS = frozenset(
    {"name", "kind", "period", "budget", "scheduler", "criticality", "parent", "priority", "importance", "partition",
     "controller", "enforcement"}
)


class Checks(Protocol):
    """What the validator lends: its error list and its typed readers (each reports and returns None)."""

    #: names declared but invalid (already reported): references to them are not errors again
    invalid_names: set[str]

    def error(self, path: str, message: str) -> None: ...
    def mapping(self, value: Any, path: str) -> dict[str, Any] | None: ...
    def keys(self, data: dict[str, Any], allowed: Collection[str], path: str,
             required: tuple[str, ...] = ()) -> None: ...
    def list_of(self, value: Any, path: str, *, nonempty: bool = False) -> list[Any] | None: ...
    def name(self, value: Any, path: str, *, limit: int = ...) -> str | None: ...
    def duration(self, value: Any, path: str, *, positive: bool = True) -> int | None: ...
    def integer(self, value: Any, path: str, lo: int | None = None, hi: int | None = None) -> int | None: ...
    def enum(self, value: Any, path: str, choices: Collection[str],
             future: dict[str, str] | None = None) -> str | None: ...
    def unique(self, names: list[tuple[str | None, str]], what: str) -> None: ...
    def partition_ref(self, value: Any, path: str, platform: Platform) -> str | None: ...


def read_reservations(checks: Checks, value: Any, platform: Platform | None) -> dict[str, Reservation]:
    """The ``reservations`` list, entry by entry. Tree rules come later (``reservation_problems``).

    Read here: the keys; durations; budget ≤ period; kind, scheduler and
    criticality (default: the parent's, ``hard`` at the top; resolved by
    ``reservation_problems``, which sees the parents); priority 1..99;
    importance ≥ 1; a top-level partition under P-FP / P-EDF.
    """
    items = checks.list_of(value, "reservations")
    result: dict[str, Reservation] = {}
    if items is None:
        return result
    names: list[tuple[str | None, str]] = []
    for i, item in enumerate(items):
        path = f"reservations[{i}]"
        data = checks.mapping(item, path)
        if data is None:
            continue
        checks.keys(data, RESERVATION_KEYS, path, required=("name", "period", "budget", "scheduler"))
        ok = all(k in data for k in ("name", "period", "budget", "scheduler"))
        name = checks.name(data["name"], f"{path}.name") if "name" in data else None
        names.append((name, f"{path}.name"))
        kind: str | None = "periodic"
        if "kind" in data:
            kind = checks.enum(data["kind"], f"{path}.kind", RESERVATION_KINDS)
        period = checks.duration(data["period"], f"{path}.period") if "period" in data else None
        budget = checks.duration(data["budget"], f"{path}.budget") if "budget" in data else None
        if period is not None and budget is not None and budget > period:
            checks.error(f"{path}.budget", f"budget {format_duration(budget)} is above the period "
                         f"{format_duration(period)}: a reservation supplies at most its period")
            ok = False
        scheduler = (checks.enum(data["scheduler"], f"{path}.scheduler", RESERVATION_SCHEDULERS)
                     if "scheduler" in data else None)
        criticality = ""  # "": the parent's (resolved with the tree)
        if "criticality" in data:
            criticality = checks.enum(data["criticality"], f"{path}.criticality", CRITICALITIES) or ""
            ok = ok and criticality != ""
        parent = None
        if "parent" in data:
            parent = checks.name(data["parent"], f"{path}.parent")
            ok = ok and parent is not None
        priority = None
        if "priority" in data:
            priority = checks.integer(data["priority"], f"{path}.priority", 1, 99)
            ok = ok and priority is not None
        importance = None
        if "importance" in data:
            importance = checks.integer(data["importance"], f"{path}.importance", 1)
            ok = ok and importance is not None
        partition = None
        if "partition" in data and platform is not None:
            if parent is not None:
                checks.error(f"{path}.partition", "only for a top-level reservation: a child runs on its "
                             "parent's partition; remove it")
                ok = False
            elif platform.scheduler not in PARTITIONED_SCHEDULERS:
                checks.error(f"{path}.partition", f"not used under {platform.scheduler}: remove it")
                ok = False
            else:
                partition = checks.partition_ref(data["partition"], f"{path}.partition", platform)
                ok = ok and partition is not None
        elif "parent" not in data and platform is not None and platform.scheduler in PARTITIONED_SCHEDULERS:
            checks.error(path, f'missing required key "partition" (a top-level reservation under '
                         f"{platform.scheduler} runs on one partition)")
            ok = False
        enforcement: str | None = "user"
        if "enforcement" in data:
            enforcement = checks.enum(data["enforcement"], f"{path}.enforcement", RESERVATION_ENFORCEMENTS)
            ok = ok and enforcement is not None
        controller = None
        if "controller" in data:
            controller = read_controller(checks, data["controller"], f"{path}.controller", period, budget)
            ok = ok and controller is not None
        if (not ok or name is None or kind is None or period is None or budget is None or scheduler is None
                or enforcement is None or name in result):
            if name is not None and name not in result:
                checks.invalid_names.add(name)
            continue
        result[name] = Reservation(name, kind, period, budget, scheduler, criticality, parent, priority,
                                   importance, partition, controller, enforcement)
    checks.unique(names, "reservation")
    return result


def parent_orders_by_priority(taskset: TaskSet, reservation: Reservation) -> bool:
    """Whether what schedules ``reservation`` (its parent, or the platform at the top) uses priorities."""
    if reservation.parent is None:
        return taskset.platform.is_fp
    return taskset.reservation(reservation.parent).scheduler == "FP"


def _index(taskset: TaskSet) -> dict[str, int]:
    return {r.name: i for i, r in enumerate(taskset.reservations)}


def _ancestry_problems(taskset: TaskSet) -> list[tuple[str, str]]:
    """Unknown parents and cycles: each reservation's parent chain reaches the top."""
    index = _index(taskset)
    problems: list[tuple[str, str]] = []
    for i, r in enumerate(taskset.reservations):
        if r.parent is not None and r.parent not in index:
            known = ", ".join(sorted(index)) or "none"
            problems.append((f"reservations[{i}].parent", f'unknown reservation "{r.parent}" (known: {known})'))
    if problems:
        return problems
    for i, r in enumerate(taskset.reservations):
        seen = [r.name]
        parent = r.parent
        while parent is not None:
            if parent in seen:
                cycle = " -> ".join(seen[seen.index(parent):] + [parent])
                problems.append((f"reservations[{i}].parent", f"the parents form a cycle ({cycle}): "
                                 "reservations form a tree"))
                break
            seen.append(parent)
            parent = taskset.reservation(parent).parent
    return problems


def with_inherited(taskset: TaskSet) -> TaskSet:
    """``taskset`` with each reservation's criticality and partition filled in from its ancestors
    (unchanged when the parents do not form a tree: ``reservation_problems`` says why)."""
    if not taskset.reservations or _ancestry_problems(taskset):
        return taskset
    return replace(taskset, reservations=_resolve_inherited(taskset))


def _resolve_inherited(taskset: TaskSet) -> tuple[Reservation, ...]:
    done: dict[str, Reservation] = {}

    def resolved(r: Reservation) -> Reservation:
        if r.name in done:
            return done[r.name]
        if r.parent is None:
            out = replace(r, criticality=r.criticality or "hard")
        else:
            parent = resolved(taskset.reservation(r.parent))
            out = replace(r, criticality=r.criticality or parent.criticality, partition=parent.partition)
        done[r.name] = out
        return out

    return tuple(resolved(r) for r in taskset.reservations)


def _fmt_share(x: Fraction) -> str:
    return f"{float(x):.4g}"


def reservation_problems(taskset: TaskSet) -> list[tuple[str, str]]:
    """(path, message) for each tree rule ``taskset`` breaks (give it ``with_inherited(taskset)``)."""
    if not taskset.reservations:
        return []
    problems: list[tuple[str, str]] = []
    platform = taskset.platform
    if platform.backend != "ult":
        problems.append(("reservations", "reservations are scheduled by the library's user-level scheduler: "
                         "write platform.backend: ult (docs/reservations.md)"))
    if platform.is_partitioned and platform.partitions is not None:
        for j, p in enumerate(platform.partitions):
            if len(p.cpus) != 1:
                problems.append((f"platform.partitions[{j}].cpus", f'partition "{p.name}" has {len(p.cpus)} '
                                 "CPUs: a reservation hierarchy runs on one CPU (give each partition one)"))
    elif not platform.is_partitioned:
        problems.append(("platform.scheduler", f"reservations need a partitioned scheduler (P-FP or P-EDF, one "
                         f"CPU per partition), not {platform.scheduler}"))
    problems += _ancestry_problems(taskset)
    if problems:
        return problems
    index = _index(taskset)
    for i, r in enumerate(taskset.reservations):
        path = f"reservations[{i}]"
        by_priority = parent_orders_by_priority(taskset, r)
        orderer = f'parent "{r.parent}"' if r.parent is not None else f"platform ({platform.scheduler})"
        if by_priority and r.priority is None:
            problems.append((path, f'missing required key "priority" (its {orderer} schedules by fixed priority)'))
        elif not by_priority and r.priority is not None:
            problems.append((f"{path}.priority", f"not used: its {orderer} schedules by EDF; remove it"))
        if r.is_cbs and by_priority:
            problems.append((f"{path}.kind", f"a CBS orders by deadlines: its {orderer} must schedule by EDF"))
        if r.kind == "sporadic":
            problems += _sporadic_problems(r, path, orderer, by_priority)
        if r.importance is not None and r.is_hard:
            problems.append((f"{path}.importance", "only for soft reservations (a hard one keeps its budget); "
                             "remove it or write criticality: soft"))
        if r.parent is None:
            continue
        parent = taskset.reservation(r.parent)
        if parent.is_cbs or parent.kind == "sporadic":
            what = "a CBS" if parent.is_cbs else "a sporadic server"
            problems.append((f"{path}.parent", f'"{parent.name}" is {what}: it holds tasks, not reservations'))
        if r.is_hard and not parent.is_hard:
            problems.append((f"{path}.criticality", f'a hard reservation inside soft "{parent.name}" gets no '
                             "guarantee (its parent's budget is adapted): make it soft, or its parent hard"))
        if r.bandwidth > parent.bandwidth:
            problems.append((f"{path}.budget", f'bandwidth {_fmt_share(r.bandwidth)} (budget/period) exceeds its '
                             f'parent "{parent.name}"\'s {_fmt_share(parent.bandwidth)}'))
    for holder in (None, *taskset.reservations):
        problems += _sibling_problems(taskset, holder, index)
    problems += controller_problems(taskset)
    problems += kernel_enforcement_problems(taskset)
    for i, t in enumerate(taskset.tasks):
        if t.reservation is None:
            continue
        path = f"tasks[{i}].reservation"  # it exists: the task's reader checked
        children = taskset.child_reservations(t.reservation)
        if children:
            listed = ", ".join(c.name for c in children)
            problems.append((path, f'"{t.reservation}" holds reservations ({listed}): attach tasks to a leaf'))
        owner = taskset.reservation(t.reservation)
        if platform.is_partitioned and t.partition != owner.partition:
            problems.append((f"tasks[{i}].partition", f'"{t.partition}" is not its reservation\'s partition '
                             f'("{owner.partition}")'))
        if t.is_background:
            problems.append((f"tasks[{i}].policy", "a background task has no place in a reservation"))
    problems += _background_lock_problems(taskset)
    return problems


def _background_lock_problems(taskset: Any) -> list[tuple[str, str]]:
    """A best-effort task may not lock what a real-time task locks beside reservations: the reservation
    analysis counts real-time tasks' critical sections only, so it would bound them without that blocking."""
    from rtsched.model.model import Lock

    rt_locks = {a.resource for t in taskset.rt_tasks for a in t.body if isinstance(a, Lock)}
    problems: list[tuple[str, str]] = []
    for i, t in enumerate(taskset.tasks):
        shared = sorted({a.resource for a in t.body if isinstance(a, Lock)} & rt_locks) if t.is_background else []
        if shared:
            problems.append((f"tasks[{i}].body", f'best-effort task "{t.name}" (policy {t.policy}) locks '
                             f'"{shared[0]}", which real-time tasks lock too: in a set with reservations the '
                             "blocking it causes is in no bound; give the lock only to real-time tasks"))
    return problems


def _sporadic_problems(r: Reservation, path: str, orderer: str, by_priority: bool) -> list[tuple[str, str]]:
    """A sporadic server (Sprunt et al.) is a fixed-priority server: at the top of a P-FP partition,
    hard (analysed as a periodic task of its budget and period), its tasks ordered by FP."""
    problems: list[tuple[str, str]] = []
    if r.parent is not None:
        problems.append((f"{path}.parent", "a sporadic server sits at the top level of a P-FP partition "
                         "(its rules assume it is scheduled by fixed priority with the tasks it competes with); "
                         "remove the parent"))
    elif not by_priority:
        problems.append((f"{path}.kind", f"a sporadic server is scheduled by fixed priority: its {orderer} "
                         "must be P-FP"))
    if r.scheduler != "FP":
        problems.append((f"{path}.scheduler", "the tasks of a sporadic server are ordered by fixed priority: "
                         "write FP"))
    if not r.is_hard:
        problems.append((f"{path}.criticality", "a sporadic server keeps its budget (the controller adapts "
                         "periodic reservations only): remove it or write hard"))
    return problems


def _sibling_problems(taskset: TaskSet, parent: Reservation | None, index: dict[str, int]) -> list[tuple[str, str]]:
    """The hard children of ``parent`` fit its bandwidth (at the top: each partition's whole CPU)."""
    problems: list[tuple[str, str]] = []
    children = [r for r in taskset.child_reservations(None if parent is None else parent.name) if r.is_hard]
    if parent is None:
        groups: dict[str | None, list[Reservation]] = {}
        for r in children:
            groups.setdefault(r.partition, []).append(r)
        for partition, group in groups.items():
            total = sum((r.bandwidth for r in group), Fraction(0))
            if total > 1:
                where = f' on partition "{partition}"' if partition is not None else ""
                problems.append(("reservations", f"the top-level hard reservations{where} "
                                 f"({', '.join(r.name for r in group)}) take {_fmt_share(total)} of one CPU"))
        return problems
    total = sum((r.bandwidth for r in children), Fraction(0))
    if total > parent.bandwidth:
        problems.append((f"reservations[{index[parent.name]}]", f'the hard children of "{parent.name}" '
                         f"({', '.join(r.name for r in children)}) take {_fmt_share(total)}, above its bandwidth "
                         f"{_fmt_share(parent.bandwidth)}"))
    return problems

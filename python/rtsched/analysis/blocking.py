"""Blocking terms on one processor under fixed priorities.

For a task τ_i among the tasks sharing its processor, the longest time τ_i
can wait for lower-priority tasks (priority inversion), by the protocol of
each resource:

- ``pip`` (Sha, Rajkumar, Lehoczky 1990, priority inheritance): a job is
  blocked at most once by each lower-priority job and at most once per
  resource (for non-nested sections), on the resources whose ceiling is at
  least its priority (direct or push-through blocking). The bound is the
  heaviest choice of sections satisfying both rules: a maximum-weight
  bipartite matching (lower tasks × resources), exact, no larger than the
  textbook min(Σ per task, Σ per resource). With nested sections the
  per-task rule alone is used (Σ over lower tasks of their longest
  outermost section that can block).
- ``pcp`` (Sha et al. 1990), ``srp`` (Baker 1991) and ``ipcp`` (immediate
  ceiling): at most one section, the longest outermost section of a
  lower-priority task on a resource whose ceiling is ≥ the priority of τ_i.
- ``np`` (non-preemptive sections): the longest section of any lower-priority task.
- ``none`` (plain mutex, no inheritance): only direct blocking on the
  resources τ_i locks, once per lower task and resource like PIP; and
  **unbounded** when a task of priority strictly between the holder and
  τ_i exists (the classic unbounded priority inversion).

Mixed protocols on one processor: the terms of each family are added (a
safe composition assumed by rtsched, not a published result).

The ceiling of a resource is the highest priority of the tasks (on this
processor) that lock it. Tasks of equal priority are not "lower": the
response-time analysis counts them as interference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from rtsched.analysis.matching import max_weight_matching
from rtsched.analysis.tasks import CEILING_PROTOCOLS, AnalysisTask

__all__ = ["Blocking", "ceilings", "blocking_term", "pip_blocking", "ceiling_blocking", "np_blocking"]


@dataclass(frozen=True, slots=True)
class Blocking:
    """A blocking term: ``ns`` (None: unbounded) and how it was obtained."""

    ns: int | None
    reason: str


def ceilings(tasks: Sequence[AnalysisTask]) -> dict[str, int]:
    """Resource → the highest priority among the tasks that lock it."""
    out: dict[str, int] = {}
    for t in tasks:
        for r in t.resources():
            if r not in out or t.priority > out[r]:
                out[r] = t.priority
    return out


def _section_ceiling(cs, ceil: dict[str, int]) -> int:
    c = ceil.get(cs.resource, 0)
    for r in cs.nested:
        c = max(c, ceil.get(r, 0))
    return c


def pip_blocking(task: AnalysisTask, tasks: Sequence[AnalysisTask], ceil: dict[str, int] | None = None,
                 resources: Callable[[str], bool] | None = None, direct_only: bool = False) -> Blocking:
    """The PIP bound (matching; per-task sum with nesting) over the resources ``resources`` accepts."""
    if ceil is None:
        ceil = ceilings(tasks)
    own = task.resources()
    edges: dict[tuple[str, str], int] = {}
    per_task: dict[str, int] = {}
    nested = False
    for j in tasks:
        if j.priority >= task.priority or j is task:
            continue
        for cs in j.critical_sections:
            if not cs.outermost:
                continue
            if resources is not None and not resources(cs.resource):
                continue
            if direct_only:
                if cs.resource not in own and not (set(cs.nested) & own):
                    continue
            elif _section_ceiling(cs, ceil) < task.priority:
                continue
            if cs.nested:
                nested = True
            key = (j.name, cs.resource)
            if cs.length_ns > edges.get(key, 0):
                edges[key] = cs.length_ns
            if cs.length_ns > per_task.get(j.name, 0):
                per_task[j.name] = cs.length_ns
    if not edges:
        return Blocking(0, "no lower-priority section can block")
    if nested:
        total = sum(per_task.values())
        return Blocking(total, "nested sections: one outermost section per lower-priority task")
    total, chosen = max_weight_matching(edges)
    detail = ", ".join(f"{j}/{r}" for j, r in chosen)
    return Blocking(total, f"one section per lower task and per resource (matching: {detail})")


def ceiling_blocking(task: AnalysisTask, tasks: Sequence[AnalysisTask], ceil: dict[str, int] | None = None,
                     resources: Callable[[str], bool] | None = None) -> Blocking:
    """PCP / SRP / immediate ceiling: the longest single lower-priority section with ceiling ≥ priority."""
    if ceil is None:
        ceil = ceilings(tasks)
    best = 0
    who = ""
    for j in tasks:
        if j.priority >= task.priority:
            continue
        for cs in j.critical_sections:
            if not cs.outermost or (resources is not None and not resources(cs.resource)):
                continue
            if _section_ceiling(cs, ceil) >= task.priority and cs.length_ns > best:
                best, who = cs.length_ns, f"{j.name}/{cs.resource}"
    if not best:
        return Blocking(0, "no lower-priority section with a ceiling at or above this priority")
    return Blocking(best, f"one section ({who})")


def np_blocking(task: AnalysisTask, tasks: Sequence[AnalysisTask],
                resources: Callable[[str], bool] | None = None) -> Blocking:
    """Non-preemptive sections: the longest section of any lower-priority task."""
    best = 0
    who = ""
    for j in tasks:
        if j.priority >= task.priority:
            continue
        for cs in j.critical_sections:
            if not cs.outermost or (resources is not None and not resources(cs.resource)):
                continue
            if cs.length_ns > best:
                best, who = cs.length_ns, f"{j.name}/{cs.resource}"
    if not best:
        return Blocking(0, "no lower-priority section")
    return Blocking(best, f"one non-preemptive section ({who})")


def _unbounded_inversion(task: AnalysisTask, tasks: Sequence[AnalysisTask], protocol_of) -> str | None:
    own = task.resources()
    for j in tasks:
        if j.priority >= task.priority:
            continue
        shared = [r for r in j.resources() & own if protocol_of(r) == "none"]
        if not shared:
            continue
        for k in tasks:
            if k is not task and k is not j and j.priority < k.priority < task.priority:
                return (f"unbounded priority inversion: {j.name} can hold {shared[0]} (protocol none) "
                        f"while {k.name} preempts it")
    return None


def blocking_term(task: AnalysisTask, tasks: Sequence[AnalysisTask], protocol_of: Callable[[str], str],
                  ceil: dict[str, int] | None = None) -> Blocking:
    """The blocking of ``task`` among ``tasks`` (one processor), each resource under its protocol."""
    if ceil is None:
        ceil = ceilings(tasks)
    parts: list[str] = []
    total = 0
    protos = {protocol_of(r) for t in tasks for r in t.resources()}
    if not protos:
        return Blocking(task.extra_blocking_ns, "no shared resources" + (
            f"; {task.extra_blocking_ns} ns given" if task.extra_blocking_ns else ""))
    unknown = protos - {"pip", "none", "np"} - CEILING_PROTOCOLS
    if unknown:
        return Blocking(None, f"protocol {sorted(unknown)[0]} is not a uniprocessor protocol")
    if "none" in protos:
        problem = _unbounded_inversion(task, tasks, protocol_of)
        if problem:
            return Blocking(None, problem)
    if "pip" in protos:
        b = pip_blocking(task, tasks, ceil, lambda r: protocol_of(r) == "pip")
        total += b.ns or 0
        if b.ns:
            parts.append(f"PIP {b.ns} ns: {b.reason}")
    if "none" in protos:
        b = pip_blocking(task, tasks, ceil, lambda r: protocol_of(r) == "none", direct_only=True)
        total += b.ns or 0
        if b.ns:
            parts.append(f"plain mutex {b.ns} ns: {b.reason}")
    if protos & CEILING_PROTOCOLS:
        b = ceiling_blocking(task, tasks, ceil, lambda r: protocol_of(r) in CEILING_PROTOCOLS)
        total += b.ns or 0
        if b.ns:
            parts.append(f"ceiling {b.ns} ns: {b.reason}")
    if "np" in protos:
        b = np_blocking(task, tasks, lambda r: protocol_of(r) == "np")
        total += b.ns or 0
        if b.ns:
            parts.append(f"non-preemptive {b.ns} ns: {b.reason}")
    if task.extra_blocking_ns:
        total += task.extra_blocking_ns
        parts.append(f"given {task.extra_blocking_ns} ns")
    return Blocking(total, "; ".join(parts) if parts else "no lower-priority section can block")

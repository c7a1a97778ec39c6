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

_CEIL = CEILING_PROTOCOLS

__all__ = ["Blocking", "ceilings", "blocking_term", "blocking_context", "pip_blocking", "ceiling_blocking", "np_blocking"]


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


class _Context:
    """The sections of one processor's tasks, indexed once for every task's blocking term."""

    __slots__ = ("ceil", "sections", "protos", "resources", "ceiling_sections")

    def __init__(self, tasks: Sequence[AnalysisTask], protocol_of: Callable[[str], str] | None,
                 ceil: dict[str, int] | None = None):
        self.resources = {t.name: t.resources() for t in tasks}
        if ceil is None:
            ceil = {}
            for t in tasks:
                for r in self.resources[t.name]:
                    if r not in ceil or t.priority > ceil[r]:
                        ceil[r] = t.priority
        self.ceil = ceil
        proto_cache: dict[str, str] = {}
        # (owner priority, owner name, resource, length, section ceiling, protocol, nested resources)
        self.sections = []
        for t in tasks:
            for cs in t.critical_sections:
                if not cs.outermost:
                    continue
                c = ceil.get(cs.resource, 0)
                for r in cs.nested:
                    c = max(c, ceil.get(r, 0))
                if protocol_of is None:
                    p = ""
                else:
                    p = proto_cache.get(cs.resource)
                    if p is None:
                        p = proto_cache[cs.resource] = protocol_of(cs.resource)
                self.sections.append((t.priority, t.name, cs.resource, cs.length_ns, c, p, cs.nested))
        self.protos = {s[5] for s in self.sections}
        # ceiling-protocol sections alone, longest first: (owner priority, ceiling, length, owner, resource)
        self.ceiling_sections = sorted(((s[0], s[4], s[3], s[1], s[2]) for s in self.sections if s[5] in _CEIL),
                                       key=lambda s: -s[2])
        if protocol_of is not None:
            for t in tasks:
                for r in self.resources[t.name]:
                    if r not in proto_cache:
                        proto_cache[r] = protocol_of(r)
                    self.protos.add(proto_cache[r])


def _pip(task: AnalysisTask, ctx: _Context, accept, direct_only: bool = False) -> Blocking:
    own = ctx.resources.get(task.name) or task.resources()
    edges: dict[tuple[str, str], int] = {}
    per_task: dict[str, int] = {}
    nested = False
    prio = task.priority
    for sp, name, res, length, c, p, nest in ctx.sections:
        if sp >= prio or name == task.name or not accept(p, res):
            continue
        if direct_only:
            if res not in own and not (set(nest) & own):
                continue
        elif c < prio:
            continue
        if nest:
            nested = True
        key = (name, res)
        if length > edges.get(key, 0):
            edges[key] = length
        if length > per_task.get(name, 0):
            per_task[name] = length
    if not edges:
        return Blocking(0, "no lower-priority section can block")
    if nested:
        return Blocking(sum(per_task.values()), "nested sections: one outermost section per lower-priority task")
    total, chosen = max_weight_matching(edges)
    detail = ", ".join(f"{j}/{r}" for j, r in chosen)
    return Blocking(total, f"one section per lower task and per resource (matching: {detail})")


def _longest(task: AnalysisTask, ctx: _Context, accept, need_ceiling: bool) -> tuple[int, str]:
    best = 0
    who = None
    prio = task.priority
    for sp, name, res, length, c, p, _ in ctx.sections:
        if sp < prio and length > best and accept(p, res) and (not need_ceiling or c >= prio):
            best, who = length, (name, res)
    return best, (f"{who[0]}/{who[1]}" if who else "")


def _accept_from(resources: Callable[[str], bool] | None):
    if resources is None:
        return lambda p, r: True
    return lambda p, r: resources(r)


def pip_blocking(task: AnalysisTask, tasks: Sequence[AnalysisTask], ceil: dict[str, int] | None = None,
                 resources: Callable[[str], bool] | None = None, direct_only: bool = False) -> Blocking:
    """The PIP bound (matching; per-task sum with nesting) over the resources ``resources`` accepts."""
    return _pip(task, _Context(tasks, None, ceil), _accept_from(resources), direct_only)


def ceiling_blocking(task: AnalysisTask, tasks: Sequence[AnalysisTask], ceil: dict[str, int] | None = None,
                     resources: Callable[[str], bool] | None = None) -> Blocking:
    """PCP / SRP / immediate ceiling: the longest single lower-priority section with ceiling ≥ priority."""
    best, who = _longest(task, _Context(tasks, None, ceil), _accept_from(resources), True)
    if not best:
        return Blocking(0, "no lower-priority section with a ceiling at or above this priority")
    return Blocking(best, f"one section ({who})")


def np_blocking(task: AnalysisTask, tasks: Sequence[AnalysisTask],
                resources: Callable[[str], bool] | None = None) -> Blocking:
    """Non-preemptive sections: the longest section of any lower-priority task."""
    best, who = _longest(task, _Context(tasks, None), _accept_from(resources), False)
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


def blocking_context(tasks: Sequence[AnalysisTask], protocol_of: Callable[[str], str],
                     ceil: dict[str, int] | None = None) -> _Context:
    """Index the sections of one processor's tasks once (pass it to ``blocking_term``)."""
    return _Context(tasks, protocol_of, ceil)


def blocking_term(task: AnalysisTask, tasks: Sequence[AnalysisTask], protocol_of: Callable[[str], str],
                  ceil: dict[str, int] | None = None, ctx: _Context | None = None) -> Blocking:
    """The blocking of ``task`` among ``tasks`` (one processor), each resource under its protocol."""
    if ctx is None:
        ctx = _Context(tasks, protocol_of, ceil)
    protos = ctx.protos
    extra = task.extra_blocking_ns
    if not protos:
        return Blocking(extra, "no shared resources" + (f"; {extra} ns given" if extra else ""))
    unknown = protos - {"pip", "none", "np"} - _CEIL
    if unknown:
        return Blocking(None, f"protocol {sorted(unknown)[0]} is not a uniprocessor protocol")
    if "none" in protos:
        problem = _unbounded_inversion(task, tasks, protocol_of)
        if problem:
            return Blocking(None, problem)
    parts: list[str] = []
    total = 0
    if "pip" in protos:
        b = _pip(task, ctx, lambda p, r: p == "pip")
        if b.ns:
            total += b.ns
            parts.append(f"PIP {b.ns} ns: {b.reason}")
    if "none" in protos:
        b = _pip(task, ctx, lambda p, r: p == "none", direct_only=True)
        if b.ns:
            total += b.ns
            parts.append(f"plain mutex {b.ns} ns: {b.reason}")
    if protos & _CEIL:
        best, who = 0, ""
        prio = task.priority
        for sp, c, length, name, res in ctx.ceiling_sections:  # longest first: the first match is the max
            if sp < prio <= c:
                best, who = length, f"{name}/{res}"
                break
        if best:
            total += best
            parts.append(f"ceiling {best} ns: one section ({who})")
    if "np" in protos:
        best, who = _longest(task, ctx, lambda p, r: p == "np", False)
        if best:
            total += best
            parts.append(f"non-preemptive {best} ns: one section ({who})")
    if extra:
        total += extra
        parts.append(f"given {extra} ns")
    return Blocking(total, "; ".join(parts) if parts else "no lower-priority section can block")

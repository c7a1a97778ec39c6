"""Analysis of a reservation hierarchy (docs/reservations.md), compositional as Shin & Lee's.

Each hard reservation R = Γ(Π, Θ) is checked on its own: its children are
its tasks (a leaf) or its child reservations, each child reservation Γ(Π', Θ')
standing for a periodic task of period and deadline Π' and execution Θ'
(a child that receives Θ' within every Π' supplies at least its own
periodic resource); ``prm-fp`` or ``prm-edf`` (by R's scheduler) decides
them under Γ(Π, Θ), and gives the least budget with the exact supply bound
function and with the linear one. At the top, each partition's top-level
reservations (as such periodic tasks) and the tasks placed there directly
are checked by the platform's uniprocessor test (``fp-rta``, ``edf-qpa``).

A task's bound is its leaf's PRM bound; it holds when every reservation on
the way up and the top level are schedulable, which is what ``schedulable``
of the whole means. Soft reservations are not analysed, but a parent counts
an adapted one with the largest budget its controller may grant
(``max_budget``, ``model.reservation_control.largest_budgets_ns``: its initial budget would let a raised
one take the CPU of the hard tasks beside it, issue 35 class 8); their tasks
get ``unknown``. A CBS beside others at the top of a P-EDF partition counts
with a demand of L·Q/T in every window (``rtsched.analysis.cbs_demand``: a
CBS that wakes with budget left keeps its deadline, so it may claim part of a
window shorter than T; issue 35 class 6); a CBS inside a reservation leaves
that reservation without a bound. Inside, a hard CBS (``hard-cbs``) is the
periodic resource of its (Q, T): throttled until its deadline, it gets Q in
each window of length T from its replenishment. A soft CBS (``cbs``) runs
ahead of its bandwidth on an idle CPU and may wake to a deadline far ahead:
its tasks get ``unknown``. A sporadic server is a
periodic task of (Q, T) at the top level (the sporadic-server theorem); its tasks are
bounded by ``ss-fp`` (rtsched.analysis.sporadic_server) when it is the highest priority of
its partition, else they have no bound ("unknown", the reason says why) and fail nothing.

With ``overheads`` (a machine's profile), the tasks are those of
``overheads.apply_overheads`` (WCETs, sections and release jitter folded in;
the tests fold the jitter as ``jitter_fold`` says), and the OS interference
task of each partition is counted wherever an FP scheduler decides: at the
top level of a P-FP partition (above every reservation and task there) and
inside every FP reservation (above its children: a budget is charged in
wall-clock time, ult/reservation.c, so an interrupt while a reservation runs
takes its budget). A task that an EDF level decides (in an EDF reservation,
or placed at the top of a P-EDF partition), or that a sporadic server
serves, has its jobs stretched instead (``overheads.interference_stretch_ns``),
as no task stands above them there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from rtsched.analysis.cbs_demand import CbsServer, edf_beside_cbs
from rtsched.analysis.jitter_fold import FP, fold_jitter
from rtsched.analysis.overheads import Overheads, apply_overheads, interference_stretch_ns, is_interference
from rtsched.analysis.registry import run_test
from rtsched.analysis.reservation_locks import LockScope, with_blocking
from rtsched.analysis.results import (NOT_SCHEDULABLE, SCHEDULABLE, UNSUPPORTED, AnalysisResult, TaskBound,
                                     unsupported)
from rtsched.analysis.sporadic_server import sporadic_server_fp
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, from_taskset
from rtsched.model import Reservation, TaskSet
from rtsched.model.reservation_control import largest_budgets_ns

__all__ = ["ReservationOutcome", "HierarchyResult", "analyze_hierarchy", "analyze_reservations"]

#: The name of the whole analysis, as an AnalysisResult's ``test``.
TEST = "reservations"


@dataclass(frozen=True, slots=True)
class ReservationOutcome:
    """One reservation's verdict. ``result`` is None for a soft one or a soft CBS (not analysed).

    ``min_budget_ns`` / ``min_budget_linear_ns``: the least budget that makes
    its children schedulable with the exact / linear supply bound (None:
    none up to the period, or soft). ``is_minimum``: the budget given is the
    least with the exact bound.
    """

    reservation: Reservation
    result: AnalysisResult | None
    min_budget_ns: int | None
    min_budget_linear_ns: int | None

    @property
    def name(self) -> str:
        return self.reservation.name

    @property
    def schedulable(self) -> bool:
        """Its children are shown schedulable, or not analysed: a soft reservation, or a sporadic
        server whose tasks have no bound (they are "unknown", as a soft reservation's)."""
        if self.result is None:
            return True
        return self.result.schedulable or (self.reservation.kind == "sporadic"
                                           and self.result.verdict == UNSUPPORTED)

    @property
    def is_minimum(self) -> bool:
        return self.min_budget_ns is not None and self.reservation.budget_ns == self.min_budget_ns


@dataclass(frozen=True, slots=True)
class HierarchyResult:
    """Every reservation's outcome, each partition's top level, and the per-task result."""

    reservations: tuple[ReservationOutcome, ...]
    top: tuple[tuple[str | None, AnalysisResult], ...]
    tasks: AnalysisResult

    @property
    def schedulable(self) -> bool:
        return self.tasks.schedulable

    def outcome(self, name: str) -> ReservationOutcome:
        for o in self.reservations:
            if o.name == name:
                return o
        raise KeyError(name)


def _as_task(r: Reservation, budgets: dict[str, int]) -> AnalysisTask:
    """A child reservation as its parent sees it: Θ of execution every Π, deadline Π (Θ: the
    budget it is analysed with, ``budgets``: the largest it may hold, an adapted one's
    controller's ``max_budget``, since a budget raised at run time takes that much from its
    siblings and the tasks beside it)."""
    return AnalysisTask(name=r.name, wcet_ns=budgets[r.name], period_ns=r.period_ns,
                        deadline_ns=r.period_ns, priority=r.priority or 0, partition=r.partition)


def _children(taskset: TaskSet, own: dict[str, AnalysisTask], parent: str, budgets: dict[str, int]
              ) -> tuple[AnalysisTask, ...]:
    inner = tuple(own[t.name] for t in taskset.tasks_in(parent))
    return inner + tuple(_as_task(r, budgets) for r in taskset.child_reservations(parent))


def _unanalysed(r: Reservation) -> str | None:
    """Why the tasks of ``r`` get no bound by design (None: they are analysed)."""
    if not r.is_hard:
        return f'in soft reservation "{r.name}": its budget is adapted at run time'
    if r.kind == "cbs":
        # A soft CBS postpones its deadline by T at each depletion, at once: on an idle CPU it runs
        # ahead, and after a pause its tasks wake to a deadline far in the future (the kept or the
        # postponed chunk), behind any other work due before it: no supply bound of its (Q, T)
        # holds for them. A hard CBS is throttled until its deadline, so its windows stay T long.
        return (f'in CBS "{r.name}" (kind cbs): a soft CBS runs ahead of its bandwidth on an idle CPU and its '
                "deadline stays ahead after a pause, so its tasks have no bound (kind hard-cbs has one)")
    return None


def _one(taskset: TaskSet, own: dict[str, AnalysisTask], r: Reservation, locks: LockScope,
         protocol_of: Callable[[str], str], os_tasks: dict[str | None, AnalysisTask], unanalysed: dict[str, str],
         budgets: dict[str, int]) -> ReservationOutcome:
    if r.name in unanalysed:
        return ReservationOutcome(r, None, None, None)
    test = "prm-fp" if r.scheduler == "FP" else "prm-edf"
    children = _children(taskset, own, r.name, budgets)
    problem = AnalysisProblem(tasks=_above(children, os_tasks.get(r.partition)) if r.scheduler == "FP" else children,
                              scheduler=r.scheduler, name=r.name)
    if not problem.tasks:
        empty = AnalysisResult(test, SCHEDULABLE, (), f"{r.name} holds nothing", exact=True)
        return ReservationOutcome(r, empty, 0, 0)
    if problem.resources() or r.name in locks.why_leaf:
        return _with_locks(taskset, r, problem, test, locks, protocol_of)
    if r.kind == "sporadic":
        return _sporadic(taskset, own, r)
    cbs = [c.name for c in taskset.child_reservations(r.name) if c.is_cbs]
    if cbs:  # a CBS claims L·Q/T of any window (rtsched.analysis.cbs_demand); a supply with blackouts cannot
        return ReservationOutcome(r, unsupported(test, problem.names(), (  # be shown to serve that
            f"no bound: CBS {', '.join(cbs)} inside \"{r.name}\": a CBS that wakes with budget left may claim "
            f"up to L·Q/T of a window of any length L, which the periodic supply of \"{r.name}\" (a blackout "
            "of 2(Π − Θ)) is not shown to serve; only CBSs at the top of a P-EDF partition are analysed")),
            None, None)
    result = run_test(test, problem, period_ns=r.period_ns, budget_ns=r.budget_ns)
    linear = run_test(test, problem, period_ns=r.period_ns, supply="linear")
    return ReservationOutcome(r, result, result.details.get("min_budget_ns"),
                              linear.details.get("min_budget_ns"))


def _with_locks(taskset: TaskSet, r: Reservation, problem: AnalysisProblem, test: str, locks: LockScope,
                protocol_of: Callable[[str], str]) -> ReservationOutcome:
    """A hard leaf whose tasks lock resources (rtsched.analysis.reservation_locks): bounded with
    their blocking terms when the resources are its own and it is FP, else no bound and why."""
    names = problem.names()
    why = locks.why_leaf.get(r.name)
    if why is None and (r.scheduler != "FP" or r.kind != "periodic"):
        why = (f"shared resources inside a {r.kind} {r.scheduler} reservation are not analysed (only a "
               "periodic FP reservation's own resources are)")
    given = sorted(problem.resources() & set(locks.ceilings))
    if why is None and given:
        why = (f'the ceiling of "{given[0]}" is given in the file: inside a reservation it is computed from '
               "the reservation's levels")
    if why is not None:
        return ReservationOutcome(r, unsupported(test, names, why), None, None)
    tasks, terms = with_blocking(problem.tasks, protocol_of)
    unbounded = {n: b.reason for n, b in terms.items() if b.ns is None}
    if unbounded:
        reason = "; ".join(f"{n}: {why}" for n, why in unbounded.items())
        return ReservationOutcome(r, unsupported(test, names, f"no blocking bound: {reason}"), None, None)
    independent = replace(problem, tasks=tasks)
    result = run_test(test, independent, period_ns=r.period_ns, budget_ns=r.budget_ns)
    linear = run_test(test, independent, period_ns=r.period_ns, supply="linear")
    bounds = tuple(replace(b, reason=f"{b.reason}; blocking {terms[b.name].ns} ns: {terms[b.name].reason}",
                           blocking_ns=terms[b.name].ns) for b in result.tasks)
    exact = result.exact and not any(terms[n].ns for n in names)  # a blocking term is an upper bound
    result = replace(result, tasks=bounds, exact=exact, label="exact" if exact else "sufficient")
    return ReservationOutcome(r, result, result.details.get("min_budget_ns"), linear.details.get("min_budget_ns"))


def _sporadic(taskset: TaskSet, own: dict[str, AnalysisTask], r: Reservation) -> ReservationOutcome:
    """A sporadic server's tasks (the model puts it at the top of a P-FP partition, tasks only)."""
    level = r.priority or 0
    above = [f"{o.name} ({o.priority})" for o in taskset.child_reservations(None)
             if o is not r and o.partition == r.partition and (o.priority or 0) >= level]
    above += [f"{t.name} ({t.priority})" for t in taskset.rt_tasks
              if t.reservation is None and t.partition == r.partition and (t.priority or 0) >= level]
    tasks = tuple(own[t.name] for t in taskset.tasks_in(r.name))

    def served(problem: AnalysisProblem) -> AnalysisResult:
        return sporadic_server_fp(r.name, problem.tasks, r.period_ns, r.budget_ns, above)

    # the server replenishes from when its tasks become ready, not from their arrivals: FP's shift holds
    result = fold_jitter(served, "ss-fp", FP, AnalysisProblem(tasks=tasks, name=r.name))
    return ReservationOutcome(r, result, result.details.get("min_budget_ns"), None)


def _above(tasks: tuple[AnalysisTask, ...], os_task: AnalysisTask | None) -> tuple[AnalysisTask, ...]:
    """``tasks`` with ``os_task`` (an OS interference task; None: none) above every one of them."""
    if os_task is None or not tasks:
        return tasks
    return (*tasks, replace(os_task, priority=max(t.priority for t in tasks) + 1))


def _top(taskset: TaskSet, own: dict[str, AnalysisTask], locks: LockScope,
         os_tasks: dict[str | None, AnalysisTask], budgets: dict[str, int]
         ) -> tuple[tuple[str | None, AnalysisResult], ...]:
    """Per partition: its top-level reservations and directly placed tasks, by the platform's test
    (no bound where a top-level task shares a resource with a reservation's)."""
    parts: dict[str | None, list[AnalysisTask]] = {}
    servers: dict[str | None, list[CbsServer]] = {}
    for r in taskset.child_reservations(None):
        parts.setdefault(r.partition, [])
        if r.is_cbs:  # its demand is a line, not a staircase (rtsched.analysis.cbs_demand)
            servers.setdefault(r.partition, []).append((r.name, r.budget_ns, r.period_ns))
        else:
            parts[r.partition].append(_as_task(r, budgets))
    for t in taskset.rt_tasks:
        if t.reservation is None:
            parts.setdefault(t.partition, []).append(own[t.name])
    fp = taskset.platform.is_fp
    out = []
    for part, tasks in parts.items():
        problem = AnalysisProblem(tasks=_above(tuple(tasks), os_tasks.get(part)) if fp else tuple(tasks),
                                  scheduler="FP" if fp else "EDF", name=str(part),
                                  protocols=locks.protocols, ceilings=locks.ceilings)
        test = "fp-rta" if fp else "edf-qpa"
        why = locks.partitions.get(part)
        if why:
            names = (*problem.names(), *(s[0] for s in servers.get(part, ())))
            out.append((part, unsupported(test, names, why)))
        elif part in servers:
            out.append((part, edf_beside_cbs(f"the top level of {part}", tasks, servers[part])))
        else:
            out.append((part, run_test(test, problem)))
        raised = [f'"{r.name}" at {budgets[r.name]} ns' for r in taskset.child_reservations(None)
                  if r.partition == part and budgets[r.name] != r.budget_ns]
        if raised:
            res = out[-1][1]
            out[-1] = (part, replace(res, reason=f"{res.reason} (adapted reservations counted with the largest "
                                     f"budget their controller may grant, max_budget: {', '.join(raised)})"))
    return tuple(out)


def _ancestors(taskset: TaskSet, name: str) -> list[str]:
    chain = [name]
    parent = taskset.reservation(name).parent
    while parent is not None:
        chain.append(parent)
        parent = taskset.reservation(parent).parent
    return chain


def analyze_reservations(taskset: TaskSet, overheads: Overheads | None = None) -> HierarchyResult:
    """Analyse every reservation of ``taskset`` bottom-up and the top level; see the module doc.
    ``overheads``: folded into the tasks first (the module doc says where the OS interference is)."""
    return analyze_hierarchy(taskset, from_taskset(taskset), overheads)


def analyze_hierarchy(taskset: TaskSet, whole: AnalysisProblem, overheads: Overheads | None = None
                      ) -> HierarchyResult:
    """``analyze_reservations`` with the set's problem (``from_taskset``) built by the caller."""
    if overheads is not None:
        # as under P-FP (no stretch): where an EDF level decides, the stretch comes below (_stretched)
        whole = apply_overheads(replace(whole, scheduler="P-FP", partition_cpus={}), overheads)
        whole = replace(whole, tasks=_stretched(taskset, whole.tasks, overheads))
    own = {t.name: t for t in whole.tasks if not is_interference(t.name)}
    os_tasks = {t.partition: t for t in whole.tasks if is_interference(t.name)}  # its priority: _above
    # what every level needs, known before any is decided
    unanalysed = {r.name: why for r in taskset.reservations if (why := _unanalysed(r)) is not None}
    chains = {r.name: _ancestors(taskset, r.name) for r in taskset.reservations}
    budgets = largest_budgets_ns(taskset)  # what each reservation counts for in its parent
    locks = LockScope(taskset, whole.protocols, whole.ceilings)
    outcomes = tuple(_one(taskset, own, r, locks, whole.protocol, os_tasks, unanalysed, budgets)
                     for r in taskset.reservations)
    by_name = {o.name: o for o in outcomes}
    top = _top(taskset, own, locks, os_tasks, budgets)
    top_ok = {part: res.schedulable for part, res in top}
    no_bound = {o.name: o.result.reason for o in outcomes
                if o.result is not None and o.result.verdict == UNSUPPORTED and o.reservation.kind != "sporadic"}
    no_bound.update({str(p): res.reason for p, res in top if res.verdict == UNSUPPORTED})
    bounds: list[TaskBound] = []
    for t in taskset.rt_tasks:
        if t.reservation is None:
            part_result = dict(top)[t.partition]
            bounds.append(part_result.task(t.name))
            continue
        leaf = by_name[t.reservation]
        if t.reservation in unanalysed:
            bounds.append(TaskBound(t.name, None, "unknown", unanalysed[t.reservation]))
            continue
        assert leaf.result is not None
        bound = leaf.result.task(t.name)
        chain = chains[t.reservation]
        root = taskset.reservation(chain[-1])
        unbounded = [n for n in chain + [str(root.partition)] if n in no_bound]
        broken = [n for n in chain if not by_name[n].schedulable and n not in no_bound]
        if not top_ok[root.partition] and str(root.partition) not in no_bound:
            broken.append(f"the top level of {root.partition}")
        if unbounded and bound.verdict == "ok":
            bound = TaskBound(t.name, None, "unknown", f"no bound: {no_bound[unbounded[0]]}")
        elif broken and bound.verdict == "ok":
            bound = TaskBound(t.name, None, "miss", f"{bound.reason}; but not guaranteed: {', '.join(broken)} "
                              "not schedulable")
        bounds.append(bound)
    hard = [b for b in bounds if b.verdict != "unknown"]
    failing = ([o.name for o in outcomes if not o.schedulable and o.name not in no_bound]
               + [str(p) for p, ok in top_ok.items() if not ok and str(p) not in no_bound])
    if failing or not all(b.verdict == "ok" for b in hard):
        verdict, reason = NOT_SCHEDULABLE, f"not schedulable: {', '.join(failing) or 'a task misses'}"
    elif no_bound:  # nothing fails, but some hard tasks have no bound: not shown schedulable
        verdict = UNSUPPORTED
        reason = "no bound for " + "; ".join(f"{n}: {why}" for n, why in no_bound.items())
    else:
        verdict, reason = SCHEDULABLE, "every hard reservation and the top level are schedulable"
    details = {"reservations": {o.name: {"budget_ns": o.reservation.budget_ns, "min_budget_ns": o.min_budget_ns,
                                         "min_budget_linear_ns": o.min_budget_linear_ns}
                                for o in outcomes if o.result is not None},
               # what each reservation counts for in its parent (an adapted one: its controller's max_budget)
               "analysed_budget_ns": budgets}
    if overheads is not None:
        details["notes"] = list(whole.notes)
    return HierarchyResult(outcomes, top, AnalysisResult(TEST, verdict, tuple(bounds), reason, details=details))


def _stretched(taskset: TaskSet, tasks: tuple[AnalysisTask, ...], overheads: Overheads) -> tuple[AnalysisTask, ...]:
    """``tasks`` with the jobs stretched by the OS interference (one CPU) where no interference task
    stands above them: an EDF level decides them, or a sporadic server serves them (``ss-fp`` takes
    no task above the server; its budget is charged while an interrupt stalls its task)."""
    def stretched(name: str) -> bool:
        home = taskset.task(name).reservation
        if home is None:
            return not taskset.platform.is_fp
        r = taskset.reservation(home)
        return r.scheduler != "FP" or r.kind == "sporadic"
    return tuple(replace(t, wcet_ns=t.wcet_ns + interference_stretch_ns(overheads, t.deadline_ns, 1))
                 if not is_interference(t.name) and stretched(t.name) else t for t in tasks)

"""Reservations in the simulator (periodic, CBS and sporadic): the rules of src/ult/reservation.c on one CPU.

A partition (one CPU: the model checks it) that holds reservations is
dispatched by ``ReservationTree.dispatch`` instead of the flat dispatcher
(the engine calls it when ``Domain.tree`` is set). At each decision, as the
ult runtime does under its cluster's lock:

1. the time since the last decision is charged to the reservation path that
   was active (the reservation entered last and all its ancestors), whether
   a task ran or the CPU idled: **the budget idles away**; a budget that
   reaches zero records ``RESERVATION_DEPLETE``;
2. reservations whose period begins now are replenished to their full budget
   (``RESERVATION_REPLENISH``: arg0 the budget used in the period before,
   arg1 the budget, ``job`` the period's number, 1 at t0);
3. a walk from the top picks, at each level, the first of the ready threads
   attached there and the child reservations with budget left, in the
   level's order (FP: priority; EDF: deadline, a reservation's being the end
   of its current period; at the top, the platform's); ties: threads, then
   the reservation first in the file. A thread ends the walk; a reservation
   is entered; a level with nothing to run idles the CPU (the path stays
   active and its budget idles away).

Every decision instant is an event: releases and ends of work (the engine's),
replenishments (every period of every reservation) and the active path's
depletion (now + the least budget on it; stale ones are skipped by version).
Threads of such a partition record ``PREEMPT`` and ``RESUME`` as the ult
backend does, so per-period CPU time can be read from the trace.

Invariant: after ``dispatch`` the CPU runs exactly the walk's thread (or
nothing), and the only reservations charged are those on ``path`` since
``charged_to``. A CBS (``cbs_update``) is replenished at decisions, not
every period, and chosen only while a task inside is ready.

Locks (docs/reservations.md, "Locks inside reservations"): a thread that holds
a lock runs only in its own reservation, on its budget (no bandwidth
inheritance); what it inherits from its waiters (``Engine.update_key``, as the
ult runtime's ``pi_block``) is its key, which orders it among its own
reservation's threads, whichever reservation the waiter is in. Ceiling
protocols work per reservation (sim/reservation_locks.py). Condition
variables and calls beside reservations are refused (rtsched.sim.support).

A sporadic reservation (``kind: sporadic``; at run time: src/ult/sporadic_reservation.c) keeps
its budget in a ``SporadicBudget`` (sim/sporadic_reservation.py: Sprunt's rules, the I/O controller's server):
it is charged only while a task inside runs, chosen only while one is ready, and each of its
refill instants is a decision (an event with arg -1).
"""

from __future__ import annotations

from typing import Any, Callable

from rtsched.model import Reservation, TaskSet
from rtsched.model.budget_control import BudgetPolicy, control_budgets
from rtsched.model.reservation_control import adapted, capacity_ppb, sibling_groups
from rtsched.sim.reservation_control import Control, ControlGroup, set_budget
from rtsched.sim.reservation_locks import scope_ceilings
from rtsched.trace import EventType as EV
from rtsched.sim.sporadic_reservation import SporadicBudget
from rtsched.sim.threads import READY, TID_BASE, SimThread

__all__ = ["RESERVATION_EVENT", "SimReservation", "ReservationTree", "attach_reservations"]

#: The event kind of a reservation decision (after the engine's kinds 0..3): arg 0 is a
#: replenishment check, a positive arg the version of a depletion.
RESERVATION_EVENT = 4

_REPLENISH, _DEPLETE = int(EV.RESERVATION_REPLENISH), int(EV.RESERVATION_DEPLETE)
_PREEMPT, _RESUME = int(EV.PREEMPT), int(EV.RESUME)
_U32 = (1 << 32) - 1


class SimReservation:
    """One reservation's state, and its trace stream (task_id -1, its name)."""

    __slots__ = ("model", "order", "name", "task_id", "tid", "period_ns", "deadline_ns", "budget_ns",
                 "parent", "children", "threads", "left_ns", "used_ns", "period_no", "period_end",
                 "key", "events", "is_cbs", "hard_cbs", "backlogged", "sporadic", "control")

    def __init__(self, model: Reservation, stream_index: int, parent: SimReservation | None,
                 parent_is_fp: bool) -> None:
        self.model = model
        self.order = model.scheduler  # how it orders its children
        self.name = model.name
        self.task_id = -1
        self.tid = TID_BASE + stream_index
        self.period_ns = model.period_ns
        self.deadline_ns = model.period_ns
        self.budget_ns = model.budget_ns
        self.parent = parent
        self.children: list[SimReservation] = []
        self.threads: list[SimThread] = []
        self.left_ns = 0
        self.used_ns = 0
        self.period_no = 0
        self.period_end = 0
        # its key in its parent's order: -priority (FP), else the end of its period (set per period)
        self.key = -(model.priority or 0) if parent_is_fp else 0
        self.events: list[tuple[int, int, int, int, int, int, int]] = []
        self.is_cbs = model.is_cbs
        self.hard_cbs = model.kind == "hard-cbs"  # throttled until its deadline at zero budget
        self.backlogged = False  # a CBS or sporadic: a task inside was ready at the last decision
        self.sporadic: SporadicBudget | None = None  # kind sporadic: its server (set by its tree)
        self.control: Control | None = None  # an adapted reservation's controller (sim/reservation_control.py)


class ReservationTree:
    """The reservations of one one-CPU partition, and the decisions of its dispatcher."""

    def __init__(self, engine: Any, domain: Any, top: list[SimReservation], top_is_fp: bool,
                 top_threads: list[SimThread], all_: list[SimReservation]) -> None:
        self.engine = engine
        self.domain = domain
        self.cpu = domain.cpus[0]
        self.top = top
        self.top_is_fp = top_is_fp
        self.top_threads = top_threads
        self.all = all_
        self.interference: list[SimThread] | None = None
        self.path: list[SimReservation] = []  # the active reservations, top first
        self.charged_to = 0
        self.version = 0
        self.preempted: set[SimThread] = set()  # switched out by a decision: RESUME when chosen again
        self.running: SimThread | None = None  # the thread the last decision chose
        for r in all_:
            if r.model.kind == "sporadic":
                r.sporadic = SporadicBudget(r.model, r.events, self.cpu)
        if all_:  # every period's start is a decision, the first at t0
            engine.queue.push(0, RESERVATION_EVENT, self, 0)

    # --- budgets ------------------------------------------------------------------------------

    def charge(self, now: int) -> None:
        for r in self.path:
            if r.sporadic is not None:  # charged by its server, only for what a task inside ran
                r.sporadic.stop(now)
        dt = now - self.charged_to
        self.charged_to = now
        if dt <= 0:
            return
        leaf = self.path[-1] if self.path else None
        if leaf is not None and leaf.control is not None and self.running in leaf.threads:
            leaf.control.used_ns += dt  # its tasks' CPU time, for the controller
        for r in self.path:
            if r.sporadic is not None:
                continue
            spent = min(dt, r.left_ns)
            r.left_ns -= spent
            r.used_ns += spent
            if spent and r.left_ns == 0:
                r.events.append((now, _DEPLETE, self.cpu, r.period_no, 0, 0, r.budget_ns))
                if r.hard_cbs and now < r.period_end < self.engine.end_ns:  # its throttling ends: a decision
                    self.engine.queue.push(r.period_end, RESERVATION_EVENT, self, -1)

    def on_event(self, arg: int, now: int) -> None:
        """A replenishment check (arg 0), the active path's depletion (arg > 0: its version), a
        sporadic reservation's refill or a hard CBS's deadline (arg < 0)."""
        if arg > 0 and arg != self.version:
            return
        self.charge(now)
        if arg == 0:
            following = None
            for r in self.all:
                if r.is_cbs or r.sporadic is not None:
                    continue  # their rules apply at decisions (cbs_update, sporadic_update)
                if r.period_end <= now:
                    r.period_no += 1
                    if r.control is not None:
                        if r.period_no > 1 and (r.period_no - 1) % r.control.periods == 0:
                            assert r.control.group is not None
                            r.control.group.control(r, now, self.cpu)
                        set_budget(r, now, self.cpu)
                    r.events.append((now, _REPLENISH, self.cpu, r.period_no, min(r.used_ns, _U32), 0, r.budget_ns))
                    r.left_ns, r.used_ns = r.budget_ns, 0
                    r.period_end = now + r.period_ns
                    if r.parent is None and not self.top_is_fp or r.parent is not None and r.parent.order == "EDF":
                        r.key = r.period_end
                if following is None or r.period_end < following:
                    following = r.period_end
            if following is not None and following < self.engine.end_ns:  # periods begun before the end, as releases
                self.engine.queue.push(following, RESERVATION_EVENT, self, 0)
        self.domain.mark_dirty()

    def cbs_update(self, ready: dict[SimThread, None], current: SimThread | None, now: int) -> None:
        """The CBS rules (Abeni & Buttazzo, as src/ult/reservation.c's ``cbs_update``): a CBS whose
        tasks became ready while none was takes a new deadline now + T and its full budget Q,
        unless its budget left still fits its bandwidth before its deadline (left·T < (d − now)·Q);
        one whose budget ran out while tasks are ready gets Q back and d + T: a soft CBS at once,
        a hard one (``hard-cbs``) at its deadline d, throttled until then."""
        for r in self.all:
            if not r.is_cbs:
                continue
            backlogged = current in r.threads or any(t in ready for t in r.threads)
            if backlogged and not r.backlogged and (
                    r.period_no == 0 or r.period_end <= now
                    or r.left_ns * r.period_ns >= (r.period_end - now) * r.budget_ns):
                r.period_no += 1
                r.events.append((now, _REPLENISH, self.cpu, r.period_no, 0, 0, r.budget_ns))
                r.left_ns, r.used_ns = r.budget_ns, 0
                r.period_end = r.key = now + r.period_ns
            if backlogged and r.left_ns <= 0 and not (r.hard_cbs and r.period_end > now):
                r.period_no += 1
                r.events.append((now, _REPLENISH, self.cpu, r.period_no, min(r.used_ns, _U32), 0, r.budget_ns))
                r.left_ns, r.used_ns = r.budget_ns, 0
                r.period_end += r.period_ns
                r.key = r.period_end
            r.backlogged = backlogged

    def sporadic_update(self, ready: dict[SimThread, None], current: SimThread | None, now: int) -> None:
        """Each sporadic reservation's server sees whether a task inside is ready (activation) and
        traces what came back; its next refill instant is armed as a decision."""
        for r in self.all:
            if r.sporadic is None:
                continue
            r.backlogged = current in r.threads or any(t in ready for t in r.threads)
            r.left_ns = r.sporadic.update(r.backlogged, now)
            refill = r.sporadic.next_refill_ns(now)
            if refill is not None and refill < self.engine.end_ns:  # as periods: begun before the end
                self.engine.queue.push(refill, RESERVATION_EVENT, self, -1)

    # --- the decision -------------------------------------------------------------------------

    def dispatch(self, now: int, start: Callable[[SimThread, int, int], None],
                 preempt: Callable[[SimThread, int], Any]) -> None:
        self.charge(now)
        domain = self.domain
        ready: dict[SimThread, None] = {}  # in queue order, each once
        for _key, _seq, queued, t in domain.heap:
            if queued == t.queued and t.state == READY:
                ready[t] = None
        domain.heap.clear()
        current = domain.running[self.cpu]
        self.cbs_update(ready, current, now)
        self.sporadic_update(ready, current, now)
        if self.interference is None:  # made after the trees: above everything, at the top
            self.interference = [t for t in self.engine.interference if t.domain is domain]
            self.top_threads = self.interference + self.top_threads
        path: list[SimReservation] = []
        threads, children = self.top_threads, self.top
        chosen: SimThread | None = None
        while True:
            best: Any = None
            best_rank: tuple[int, int, int] | None = None
            for t in threads:
                if t in ready or t is current:
                    rank = (t.key, 0, t.seq)
                    if best_rank is None or rank < best_rank:
                        best, best_rank = t, rank
            for i, r in enumerate(children):
                # a CBS or sporadic reservation with nothing ready keeps its budget
                if r.left_ns > 0 and (r.backlogged or not (r.is_cbs or r.sporadic is not None)):
                    rank = (r.key, 1, i)
                    if best_rank is None or rank < best_rank:
                        best, best_rank = r, rank
            if best is None:
                break
            if isinstance(best, SimThread):
                chosen = best
                break
            path.append(best)
            threads, children = best.threads, best.children
        for t in ready:  # the ready queue stays whole, for the next decision
            if t is not chosen:
                domain.heap.append((t.key, t.seq, t.queued, t))
        if current is not None and current is not chosen:
            if not current.is_interference:
                current.events.append((now, _PREEMPT, self.cpu, current.job, self.cpu, 0, 0))
                self.preempted.add(current)
            preempt(current, now)  # re-queued by the domain (its heap is only a list here)
        if chosen is not None and chosen is not current:
            if chosen in self.preempted:
                self.preempted.discard(chosen)
                chosen.events.append((now, _RESUME, self.cpu, chosen.job, self.cpu, 0, 0))
            start(chosen, self.cpu, now)
        self.path = path
        self.running = chosen
        self.version += 1
        for r in path:
            if r.sporadic is not None:  # its depletion: the run's limit (budget used up, or a refill)
                r.left_ns = r.sporadic.start(now) - now
        if path:
            left = min(r.left_ns for r in path)
            if now + left <= self.engine.end_ns:
                self.engine.queue.push(now + left, RESERVATION_EVENT, self, self.version)
        domain.dirty = False


def attach_reservations(engine: Any, taskset: TaskSet, threads: list[SimThread],
                        policy: BudgetPolicy = control_budgets) -> list[SimReservation]:
    """Build each partition's tree, give its domain the tree and its threads the keys of their
    reservation's order, and the adapted reservations their controller (``policy``); return the
    reservations as trace streams (after the threads')."""
    if not taskset.reservations:
        return []
    first = len(threads)
    made: dict[str, SimReservation] = {}
    ordered: list[SimReservation] = []
    pending = list(taskset.reservations)
    while pending:  # parents first
        for m in list(pending):
            if m.parent is None or m.parent in made:
                parent = made.get(m.parent) if m.parent else None
                parent_is_fp = taskset.platform.is_fp if parent is None else parent.order == "FP"
                r = SimReservation(m, first + len(ordered), parent, parent_is_fp)
                if parent is not None:
                    parent.children.append(r)
                made[m.name] = r
                ordered.append(r)
                pending.remove(m)
    for i, task in enumerate(taskset.tasks):
        if task.reservation is None:
            continue
        r = made[task.reservation]
        t = threads[i]
        r.threads.append(t)
        t.is_edf = r.order == "EDF"
        t.base_key = t.key = 0 if t.is_edf else -(task.priority or 0)
    scope_ceilings(taskset, threads, engine.locks)
    _attach_controls(taskset, made, policy)
    file_order = {m.name: k for k, m in enumerate(taskset.reservations)}
    for domain in engine.domains.values():
        top = sorted((r for r in ordered if r.parent is None and r.model.partition == domain.name),
                     key=lambda r: file_order[r.name])
        if not top:
            continue
        subtree = [r for r in ordered if _top_of(r) in top]
        top_threads = [t for t in threads if t.domain is domain
                       and (t.is_server or taskset.tasks[t.index].reservation is None)]
        domain.tree = ReservationTree(engine, domain, top, taskset.platform.is_fp, top_threads, subtree)
    return ordered


def _top_of(r: SimReservation) -> SimReservation:
    while r.parent is not None:
        r = r.parent
    return r


def _attach_controls(taskset: TaskSet, made: dict[str, SimReservation], policy: BudgetPolicy) -> None:
    """A ``Control`` for each adapted reservation, a ``ControlGroup`` for those of one parent."""
    for parent, group in sibling_groups(taskset):
        members = []
        for m in group:
            params = adapted(taskset, m)
            if params is not None:
                r = made[m.name]
                r.control = Control(params, m.importance or 1, r)
                members.append(r)
        if members:
            shared = ControlGroup(members, capacity_ppb(taskset, parent, group), policy)
            for r in members:
                assert r.control is not None
                r.control.group = shared

"""The budget controller in the simulator (docs/reservations.md, "The budget controller").

Each adapted reservation (``rtsched.model.reservation_control.adapted``: a
soft periodic leaf) has a ``Control``; the adapted reservations that share a
parent form a ``ControlGroup`` with the bandwidth they share. At the
replenishment that ends a reservation's control period (every k-th of its
periods), before its new budget is given:

1. its ``Observation`` is read: the CPU time its threads ran (``used_ns``,
   charged by the tree while one of them runs), and from their trace events
   and state the jobs completed, those late, and the time jobs spent past
   their deadlines within the control period (``late_ns``: a late
   completion at c with tardiness L counts c − max(c − L, start); a job
   still past its deadline d at the end counts end − max(d, start));
2. the policy (``control_budgets``) gives the next budgets of the whole
   group from each member's latest observation (a member not yet observed
   asks for its first budget);
3. each member's new budget: a smaller one applies at once (its budget left
   is cut to it), a larger one at the member's next replenishment (the one
   now, for the reservation whose period ended). So at no instant do the
   members hold more than the larger of their old and new shares.

Each budget that changes records ``RESERVATION_BUDGET`` on the member's
stream (arg0: its request, saturated; arg1: the new budget).
"""

from __future__ import annotations

from typing import Protocol, Sequence

from rtsched.model.budget_control import BudgetControl, BudgetPolicy, Observation, request_ns
from rtsched.sim.threads import FINISHED, IDLE, SimThread
from rtsched.trace import EventType as EV


class SimReservation(Protocol):
    """What the controller reads and sets of a simulated reservation (sim/reservations.py's
    ``SimReservation``; a protocol here, so that the controller does not import the tree)."""

    name: str
    period_ns: int
    budget_ns: int
    left_ns: int
    period_no: int
    threads: list[SimThread]
    events: list[tuple[int, int, int, int, int, int, int]]
    control: Control | None

__all__ = ["Control", "ControlGroup", "set_budget"]

_BUDGET, _COMPLETE, _MISS = int(EV.RESERVATION_BUDGET), int(EV.COMPLETE), int(EV.DEADLINE_MISS)
_U32 = (1 << 32) - 1


class Control:
    """An adapted reservation's controller state."""

    __slots__ = ("params", "importance", "group", "periods", "start_ns", "used_ns", "scanned", "last",
                 "request_ns", "next_budget_ns")

    def __init__(self, params: BudgetControl, importance: int, r: SimReservation) -> None:
        self.params = params
        self.importance = importance
        self.group: ControlGroup | None = None
        self.periods = params.period_ns // r.period_ns  # k: its periods per control period
        self.start_ns = 0  # the current control period began then
        self.used_ns = 0  # its threads' CPU time since then
        self.scanned: dict[int, int] = {}  # per thread index: its events read so far
        self.request_ns = r.budget_ns
        self.next_budget_ns = r.budget_ns
        # not yet observed: asks for its first budget
        self.last = Observation(r.period_ns, r.budget_ns, 1, r.budget_ns, 0, 0, 0, importance,
                                params.min_budget_ns, params.max_budget_ns, 0)

    def observe(self, r: SimReservation, now: int) -> Observation:
        """The control period [start_ns, now) of ``r``; starts the next one."""
        start = self.start_ns
        jobs = missed = late = 0
        for t in r.threads:
            events = t.events
            for k in range(self.scanned.get(t.index, 0), len(events)):
                time, kind = events[k][0], events[k][1]
                if kind == _COMPLETE:
                    jobs += 1
                elif kind == _MISS:
                    missed += 1
                    late += time - max(time - events[k][6], start)
            self.scanned[t.index] = len(events)
            if t.state not in (IDLE, FINISHED) and t.job_deadline < now:
                late += now - max(t.job_deadline, start)
            late += sum(now - max(release + t.deadline_ns, start) for release in t.pending
                        if release + t.deadline_ns < now)
        o = Observation(r.period_ns, r.budget_ns, self.periods, self.used_ns, jobs, missed, late,
                        self.importance, self.params.min_budget_ns, self.params.max_budget_ns,
                        self.params.headroom_percent)
        self.start_ns, self.used_ns = now, 0
        return o


class ControlGroup:
    """The adapted reservations of one parent (at the top: of one partition), in file order, and the
    bandwidth they share (ppb of one CPU)."""

    def __init__(self, members: Sequence[SimReservation], capacity_ppb: int, policy: BudgetPolicy) -> None:
        self.members = members
        self.capacity_ppb = capacity_ppb
        self.policy = policy

    def control(self, r: SimReservation, now: int, cpu: int) -> None:
        """``r``'s control period ended at ``now`` (its replenishment, before the budget is given)."""
        ctl = r.control
        assert ctl is not None
        ctl.last = ctl.observe(r, now)
        budgets = self.policy([m.control.last for m in self.members if m.control], self.capacity_ppb)
        for m, budget in zip(self.members, budgets):
            mc = m.control
            assert mc is not None
            mc.request_ns = request_ns(mc.last)
            mc.next_budget_ns = budget
            if budget < m.budget_ns and m is not r:  # a decrease applies at once
                m.left_ns = min(m.left_ns, budget)
                set_budget(m, now, cpu)

    def __repr__(self) -> str:
        return f"ControlGroup({[m.name for m in self.members]}, {self.capacity_ppb})"


def set_budget(r: SimReservation, now: int, cpu: int) -> None:
    """Give ``r`` its controller's next budget (recording ``RESERVATION_BUDGET`` if it changes)."""
    ctl = r.control
    if ctl is None or ctl.next_budget_ns == r.budget_ns:
        return
    r.budget_ns = ctl.next_budget_ns
    r.events.append((now, _BUDGET, cpu, r.period_no, min(ctl.request_ns, _U32), 0, r.budget_ns))

"""The adaptive budget controller of soft reservations (seed 000 §III-A, §IV-H; docs/reservations.md).

A soft periodic reservation that holds tasks (a leaf) has its budget set
again at the end of each **control period** (a whole number of its periods)
from what was observed in it: the CPU time its tasks ran and how late their
jobs were. The soft reservations that share a parent then share what the
parent has left after its hard children, by importance.

``control_budgets`` is the one replaceable function (``BudgetPolicy``): it
takes one ``Observation`` per soft reservation of a parent and the bandwidth
they may share, and returns their next budgets. The simulator calls it
(rtsched.sim.reservations) and src/ult/budget_controller.c is the same
function in C, for the runtime; tests/python/test_budget_control.py checks
both on one table of inputs.

The default policy, ``adhiersched`` (the paper's: "each server receives just
enough CPU time at each server period", its consumed budget plus the extra
budget its late tasks ask for; "hard servers keep their budgets"; in
overload, "servers in the order of their importance"). Per reservation, over
a control period of k periods P, budget B:

1. request = used · (1 + h) / k + late · B / (P · k) (each term rounded
   up), clamped to [min_budget, max_budget]: the CPU time its tasks ran per
   period (the paper's consumed budget; not the busiest period's, which for
   a task whose jobs span several periods is always the whole budget) with a
   headroom h (``headroom_percent``, ours: the paper gives none) for demand
   that varies within the control period, plus the time its jobs spent past
   their deadlines converted to CPU time at its bandwidth B/P, per period
   (the paper's extra requested budget): a starving reservation's request
   grows, an idle one's falls to what it used, at least min_budget;
2. share: every reservation first gets its min_budget; then, most important
   first (larger ``importance``; ties: file order), each gets what it asks
   above that while the shared bandwidth lasts.

Arithmetic is exact in integers: bandwidths in parts per billion
(``PPB``), a grant rounded down, what it takes rounded up, so the shares
never exceed ``capacity_ppb``. ``jobs`` and ``missed`` are inputs for other
policies; the default reads ``used_ns`` and ``late_ns``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

__all__ = [
    "PPB",
    "CONTROL_POLICIES",
    "DEFAULT_CONTROL_PERIODS",
    "DEFAULT_MIN_BUDGET_PERCENT",
    "DEFAULT_HEADROOM_PERCENT",
    "BudgetControl",
    "Observation",
    "BudgetPolicy",
    "control_budgets",
    "request_ns",
    "ppb_ceil",
    "ppb_floor",
]

#: bandwidth unit: parts per billion of one CPU
PPB = 1_000_000_000

#: ``adhiersched``: the default policy below; ``fixed``: the budget stays the first one
CONTROL_POLICIES: tuple[str, ...] = ("adhiersched", "fixed")

#: the default control period, in periods of the reservation (our choice: the paper does not give its value)
DEFAULT_CONTROL_PERIODS = 10

#: the default least budget, in percent of the reservation's period
DEFAULT_MIN_BUDGET_PERCENT = 1

#: the default headroom above the CPU time used, in percent (our choice: the least that keeps the
#: case study's soft servers within the paper's adaptive miss ratios, docs/reservations.md)
DEFAULT_HEADROOM_PERCENT = 30


@dataclass(frozen=True, slots=True)
class BudgetControl:
    """A reservation's ``controller`` key: its policy and parameters (ns), defaults filled in.

    Invariants (checked at load): ``period_ns`` is a whole number ≥ 1 of the
    reservation's periods; 0 < min_budget_ns ≤ budget ≤ max_budget_ns ≤ period;
    0 ≤ headroom_percent ≤ 1000.
    """

    policy: str
    period_ns: int
    min_budget_ns: int
    max_budget_ns: int
    headroom_percent: int = DEFAULT_HEADROOM_PERCENT


@dataclass(frozen=True, slots=True)
class Observation:
    """One soft reservation over the control period that just ended.

    ``periods``: its periods in the control period (k ≥ 1); ``used_ns``: the
    CPU time its tasks ran (not budget idled away); ``jobs``: jobs of its
    tasks completed; ``missed``: of those, completed after their deadline;
    ``late_ns``: the time its jobs spent past their deadlines within the
    control period, jobs still running late included. The rest are its
    parameters: ``importance``, ``min_budget_ns``, ``max_budget_ns``,
    ``headroom_percent``.
    """

    period_ns: int
    budget_ns: int
    periods: int
    used_ns: int
    jobs: int
    missed: int
    late_ns: int
    importance: int
    min_budget_ns: int
    max_budget_ns: int
    headroom_percent: int


#: the controller's signature: observations of the soft reservations of one parent, the bandwidth
#: they share (ppb of one CPU) → their next budgets (ns), in the same order
BudgetPolicy = Callable[[Sequence[Observation], int], list[int]]


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def ppb_ceil(budget_ns: int, period_ns: int) -> int:
    """budget/period in parts per billion, rounded up (what a budget takes)."""
    return _ceil_div(budget_ns * PPB, period_ns)


def ppb_floor(budget_ns: int, period_ns: int) -> int:
    """budget/period in parts per billion, rounded down (what a parent offers)."""
    return budget_ns * PPB // period_ns


def request_ns(o: Observation) -> int:
    """Step 1: the budget a reservation asks for from its observation (ns)."""
    demand = (_ceil_div(o.used_ns * (100 + o.headroom_percent), 100 * o.periods)
              + _ceil_div(o.late_ns * o.budget_ns, o.period_ns * o.periods))
    return min(max(demand, o.min_budget_ns), o.max_budget_ns)


def control_budgets(observations: Sequence[Observation], capacity_ppb: int) -> list[int]:
    """The default policy (``adhiersched``): next budgets (ns) of the soft reservations of one
    parent, in the order given (file order), sharing ``capacity_ppb``."""
    free = capacity_ppb - sum(ppb_ceil(o.min_budget_ns, o.period_ns) for o in observations)
    budgets = [o.min_budget_ns for o in observations]
    by_importance = sorted(range(len(observations)), key=lambda i: (-observations[i].importance, i))
    for i in by_importance:
        o = observations[i]
        offered = max(free, 0) * o.period_ns // PPB
        grant = min(request_ns(o) - o.min_budget_ns, offered)
        budgets[i] += grant
        free -= ppb_ceil(grant, o.period_ns)
    return budgets

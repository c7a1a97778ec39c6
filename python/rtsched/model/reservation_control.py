"""A reservation's ``controller`` key (docs/reservations.md, "The budget controller").

``read_controller`` reads the mapping with its paths; ``controller_problems``
checks what needs the tree (only soft periodic leaves are adapted; the least
budgets of the adapted children of a parent fit what its hard children leave);
``adapted`` says which reservations the controller adapts and with what
parameters (the key's, or the defaults for a soft leaf without one).
"""

from __future__ import annotations

from typing import Any, Collection, Protocol

from rtsched.model.budget_control import (
    CONTROL_POLICIES,
    DEFAULT_CONTROL_PERIODS,
    DEFAULT_HEADROOM_PERCENT,
    DEFAULT_MIN_BUDGET_PERCENT,
    PPB,
    BudgetControl,
    ppb_ceil,
    ppb_floor,
)
from rtsched.model.durations import format_duration
from rtsched.model.model import Reservation, TaskSet

__all__ = ["CONTROLLER_KEYS", "read_controller", "controller_problems", "adapted", "default_control",
           "largest_budgets_ns", "sibling_groups", "capacity_ppb"]

CONTROLLER_KEYS = frozenset({"policy", "period", "min_budget", "max_budget", "headroom"})


class ControlChecks(Protocol):
    """The validator's readers used here (each reports and returns None)."""

    def error(self, path: str, message: str) -> None: ...
    def mapping(self, value: Any, path: str) -> dict[str, Any] | None: ...
    def keys(self, data: dict[str, Any], allowed: Collection[str], path: str,
             required: tuple[str, ...] = ()) -> None: ...
    def duration(self, value: Any, path: str, *, positive: bool = True) -> int | None: ...
    def enum(self, value: Any, path: str, choices: Collection[str],
             future: dict[str, str] | None = None) -> str | None: ...
    def integer(self, value: Any, path: str, lo: int | None = None, hi: int | None = None) -> int | None: ...


def default_control(period_ns: int, budget_ns: int) -> BudgetControl:
    """The parameters of a soft leaf without a ``controller`` key (or the ones it leaves out)."""
    least = min(max(1, -(-period_ns * DEFAULT_MIN_BUDGET_PERCENT // 100)), budget_ns)
    return BudgetControl("adhiersched", DEFAULT_CONTROL_PERIODS * period_ns, least, period_ns,
                         DEFAULT_HEADROOM_PERCENT)


def read_controller(checks: ControlChecks, value: Any, path: str, period_ns: int | None,
                    budget_ns: int | None) -> BudgetControl | None:
    """The ``controller`` mapping at ``path`` (a reservation with ``period_ns`` and first ``budget_ns``:
    None when those did not read); None after reporting an error."""
    data = checks.mapping(value, path)
    if data is None:
        return None
    checks.keys(data, CONTROLLER_KEYS, path)
    if period_ns is None or budget_ns is None:
        return None
    defaults = default_control(period_ns, budget_ns)
    ok = True
    policy = defaults.policy
    if "policy" in data:
        policy = checks.enum(data["policy"], f"{path}.policy", CONTROL_POLICIES) or ""
        ok = policy != ""
    values = {}
    for key, default in (("period", defaults.period_ns), ("min_budget", defaults.min_budget_ns),
                         ("max_budget", defaults.max_budget_ns)):
        got = checks.duration(data[key], f"{path}.{key}") if key in data else default
        ok = ok and got is not None
        values[key] = got or 0
    headroom = defaults.headroom_percent
    if "headroom" in data:
        got_headroom = checks.integer(data["headroom"], f"{path}.headroom", 0, 1000)
        ok = ok and got_headroom is not None
        headroom = got_headroom or 0
    if not ok:
        return None
    if values["period"] % period_ns:
        checks.error(f"{path}.period", f"{format_duration(values['period'])} is not a whole number of the "
                     f"reservation's periods ({format_duration(period_ns)}): budgets change at replenishments")
        ok = False
    if values["max_budget"] > period_ns:
        checks.error(f"{path}.max_budget", f"{format_duration(values['max_budget'])} is above the period "
                     f"{format_duration(period_ns)}")
        ok = False
    if not values["min_budget"] <= budget_ns <= values["max_budget"]:
        checks.error(f"{path}.min_budget" if values["min_budget"] > budget_ns else f"{path}.max_budget",
                     f"the first budget {format_duration(budget_ns)} must lie in [min_budget "
                     f"{format_duration(values['min_budget'])}, max_budget {format_duration(values['max_budget'])}]")
        ok = False
    return (BudgetControl(policy, values["period"], values["min_budget"], values["max_budget"], headroom)
            if ok else None)


def _is_leaf(taskset: TaskSet, r: Reservation) -> bool:
    return not taskset.child_reservations(r.name)


def adapted(taskset: TaskSet, r: Reservation) -> BudgetControl | None:
    """The controller's parameters for ``r`` when its budget is adapted (a soft periodic leaf whose
    policy is not ``fixed``), else None."""
    if r.is_hard or r.kind != "periodic" or not _is_leaf(taskset, r):
        return None
    control = r.controller or default_control(r.period_ns, r.budget_ns)
    return None if control.policy == "fixed" else control


def largest_budgets_ns(taskset: TaskSet) -> dict[str, int]:
    """Reservation name -> the largest budget it may hold at run time: its own, or for one the
    controller adapts, the largest the controller may grant it (``max_budget``: the policies
    rtsched ships, ``adhiersched`` in Python and C, clamp their request there and grant at most
    the request)."""
    out = {}
    for r in taskset.reservations:
        control = adapted(taskset, r)
        out[r.name] = r.budget_ns if control is None else max(r.budget_ns, control.max_budget_ns)
    return out


def controller_problems(taskset: TaskSet) -> list[tuple[str, str]]:
    """(path, message) for each misplaced ``controller`` key, and each parent whose adapted children's
    least budgets do not fit beside its other children (give it the inherited taskset)."""
    problems: list[tuple[str, str]] = []
    for i, r in enumerate(taskset.reservations):
        if r.controller is None:
            continue
        path = f"reservations[{i}].controller"
        if r.is_hard:
            problems.append((path, "only for soft reservations (a hard one keeps its budget); remove it or "
                             "write criticality: soft"))
        elif r.kind != "periodic":
            problems.append((path, f"only for periodic reservations: a {r.kind} keeps its budget"))
        elif not _is_leaf(taskset, r):
            problems.append((path, "only for a reservation that holds tasks: the controller adapts leaves, "
                             "and a parent's budget is shared among its soft children"))
    names = [r.name for r in taskset.reservations]
    for parent, group in sibling_groups(taskset):
        if not any(adapted(taskset, c) for c in group):
            continue
        taken = sum(ppb_ceil(control.min_budget_ns, c.period_ns) if (control := adapted(taskset, c))
                    else ppb_ceil(c.budget_ns, c.period_ns) for c in group)
        offered = PPB if parent is None else ppb_floor(parent.budget_ns, parent.period_ns)
        if taken > offered:
            where = "reservations" if parent is None else f"reservations[{names.index(parent.name)}]"
            whose = f'"{parent.name}"' if parent is not None else f'the top of partition "{group[0].partition}"'
            problems.append((where, f"the least budgets of the adapted reservations in {whose} with the "
                             f"budgets of the others take {taken / PPB:.4g} of a CPU, above the "
                             f"{offered / PPB:.4g} there"))
    return problems


def sibling_groups(taskset: TaskSet) -> list[tuple[Reservation | None, tuple[Reservation, ...]]]:
    """The reservations by parent (at the top: by partition), each group in file order."""
    groups: list[tuple[Reservation | None, tuple[Reservation, ...]]] = []
    tops: dict[str | None, list[Reservation]] = {}
    for r in taskset.child_reservations(None):
        tops.setdefault(r.partition, []).append(r)
    groups += [(None, tuple(g)) for g in tops.values()]
    for parent in taskset.reservations:
        children = taskset.child_reservations(parent.name)
        if children:
            groups.append((parent, children))
    return groups


def capacity_ppb(taskset: TaskSet, parent: Reservation | None, group: tuple[Reservation, ...]) -> int:
    """The bandwidth the adapted reservations of ``group`` (the children of ``parent``) share: the
    parent's (a whole CPU at the top), rounded down, less what the others hold, rounded up."""
    offered = PPB if parent is None else ppb_floor(parent.budget_ns, parent.period_ns)
    return offered - sum(ppb_ceil(c.budget_ns, c.period_ns) for c in group if adapted(taskset, c) is None)

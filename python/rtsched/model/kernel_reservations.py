"""Where a reservation enforced by the kernel may sit (``enforcement: kernel``; docs/reservations.md).

Such a reservation's CPU worker runs under SCHED_DEADLINE with runtime = its
budget and deadline = period = its period: the kernel's CBS throttles the
worker, and with it everything the worker runs. Hence the rules, each a
(path, message) pair like the tree's other rules:

- at the top level (a child's budget is its parent's to give);
- periodic (a CBS or a sporadic server is a server of another kind), and
  not adapted (the controller would change a budget the kernel does not see);
- alone on its partition: no other top-level reservation and no task
  outside it there (the throttled worker runs all of them);
- a budget of at least 1024 ns (SCHED_DEADLINE's least runtime).

What depends on the machine (the kernel's period limits and its bandwidth
limit) is checked when the set is resolved for a run (model.resolve).
"""

from __future__ import annotations

from rtsched.model.model import TaskSet
from rtsched.model.reservation_control import adapted

__all__ = ["DL_MIN_RUNTIME_NS", "kernel_enforcement_problems"]

#: SCHED_DEADLINE refuses a runtime below 1 << DL_SCALE ns (kernel/sched/deadline.c)
DL_MIN_RUNTIME_NS = 1024


def kernel_enforcement_problems(taskset: TaskSet) -> list[tuple[str, str]]:
    """(path, message) for each kernel-enforced reservation that cannot be one (give it the inherited set)."""
    problems: list[tuple[str, str]] = []
    for i, r in enumerate(taskset.reservations):
        if r.enforcement != "kernel":
            continue
        path = f"reservations[{i}]"
        if r.parent is not None:
            problems.append((f"{path}.enforcement", f'only a top-level reservation is enforced by the kernel '
                             f'(it throttles the CPU\'s worker, which runs the whole tree); "{r.name}" sits in '
                             f'"{r.parent}": remove the key, or enforce "{r.parent}"\'s top level by the kernel'))
            continue
        if r.kind != "periodic":
            what = {"cbs": "a CBS", "hard-cbs": "a hard CBS"}.get(r.kind, "a sporadic server")
            problems.append((f"{path}.enforcement", f'"{r.name}" is {what}; the kernel enforces a periodic '
                             "reservation (SCHED_DEADLINE is a CBS itself): write kind: periodic"))
        if adapted(taskset, r) is not None:
            problems.append((f"{path}.enforcement", f'the controller adapts "{r.name}"\'s budget, which the kernel '
                             "would not follow: make it hard, give it children, or write "
                             "controller: {policy: fixed}"))
        if r.budget_ns < DL_MIN_RUNTIME_NS:
            problems.append((f"{path}.budget", f"SCHED_DEADLINE needs a runtime of at least {DL_MIN_RUNTIME_NS} ns, "
                             f"got {r.budget_ns} ns"))
        others = [o.name for o in taskset.child_reservations(None)
                  if o.name != r.name and o.partition == r.partition]
        if others:
            problems.append((f"{path}.enforcement", f'enforced by the kernel, "{r.name}" must be alone at the top of '
                             f'partition "{r.partition}" (one worker runs the CPU and the kernel throttles all of '
                             f"it), but {', '.join(others)} sit(s) there too: put them inside it, or on another "
                             "partition"))
        for j, t in enumerate(taskset.tasks):
            if t.reservation is None and t.partition == r.partition:
                problems.append((f"tasks[{j}].reservation", f'task "{t.name}" runs on partition "{r.partition}" '
                                 f'outside "{r.name}", which the kernel enforces there: attach it to "{r.name}" '
                                 "or to a reservation inside it"))
    return problems


def kernel_machine_problems(taskset: TaskSet, period_limits_ns: tuple[int, int] | None,
                            rt_bandwidth_us: tuple[int, int] | None) -> list[str]:
    """What this machine's kernel refuses of the kernel-enforced reservations (checked at resolve time).

    ``period_limits_ns``: kernel.sched_deadline_period_min_us / _max_us in ns; ``rt_bandwidth_us``:
    kernel.sched_rt_runtime_us / sched_rt_period_us (runtime -1: no limit); None: unknown. The
    bandwidth checked here is the kernel's ceiling: the fair server (since Linux 6.12, 50 ms of every
    1 s per CPU by default) and other SCHED_DEADLINE tasks take their share of it too, so a budget
    below the ceiling may still be refused when the run starts (the runner says so).
    """
    errors: list[str] = []
    for i, r in enumerate(taskset.reservations):
        if r.enforcement != "kernel":
            continue
        if period_limits_ns is not None:
            lo, hi = period_limits_ns
            if not lo <= r.period_ns <= hi:
                errors.append(f"reservations[{i}].period: SCHED_DEADLINE on this kernel accepts periods from "
                              f"{lo // 1000}us to {hi // 1000}us (kernel.sched_deadline_period_min_us / _max_us), "
                              f"got {r.period_ns // 1000}us")
        if rt_bandwidth_us is not None and rt_bandwidth_us[0] >= 0:
            runtime_us, period_us = rt_bandwidth_us
            if r.budget_ns * period_us > runtime_us * r.period_ns:
                errors.append(f"reservations[{i}].budget: bandwidth {r.budget_ns / r.period_ns:.4g} is above what "
                              f"SCHED_DEADLINE admits on one CPU here: sched_rt_runtime_us/sched_rt_period_us = "
                              f"{runtime_us}/{period_us}, less the kernel's fair server (by default 50 ms of every "
                              "1 s since Linux 6.12): lower the budget")
    return errors

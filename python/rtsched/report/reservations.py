"""Budget consumed per reservation (docs/reservations.md), from its trace stream's
RESERVATION_REPLENISH, RESERVATION_DEPLETE and RESERVATION_BUDGET events
(docs/trace-format.md), and the deadline-miss ratio of its tasks.

    budgets = reservation_budgets(trace, taskset)   # one ReservationBudget per reservation traced
    budgets[0].used_max_ns, budgets[0].depletions
    plot_reservation_budgets(budgets, "budget.png", "set")   # given and used per period (seed 000 Fig. 6)

A reservation's stream has task_id -1 and its name. The budget used in period k
is the arg0 of period k+1's REPLENISH, so the periods counted are those whose
end the trace saw (the last one, cut by the end of the run, is not). The
budget controller's changes are its RESERVATION_BUDGET events (seed 000's
Fig. 6). The miss ratio is the paper's: jobs of its tasks (of every leaf
below it) completed after their deadline over the jobs completed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rtsched.model import TaskSet
from rtsched.outputs import partial
from rtsched.trace import EventType as EV
from rtsched.trace import Trace

__all__ = ["ReservationBudget", "plot_reservation_budgets", "reservation_budgets", "reservation_line"]


@dataclass(frozen=True, slots=True)
class ReservationBudget:
    """What one reservation's periods used of its budget. ``used_ns``: per whole period, in
    order (the budget used, running its tasks or idling); ``budgets_ns``: the budget each of
    those periods had; ``depletions``: periods whose budget ran out (DEPLETE events)."""

    name: str
    period_ns: int
    periods: int
    depletions: int
    used_ns: tuple[int, ...]
    budgets_ns: tuple[int, ...]
    replenish_times_ns: tuple[int, ...]  # the start of each period begun, since t0
    #: (time since t0, new budget) of each change by the budget controller
    budget_changes: tuple[tuple[int, int], ...] = ()
    jobs: int = 0  # jobs of its tasks completed
    misses: int = 0  # of those, completed after their deadline
    #: enforced by the kernel (``enforcement: kernel``): its budget, which its worker's SCHED_DEADLINE
    #: enforces; its stream then has no REPLENISH / DEPLETE events (the user level keeps no budget)
    kernel_budget_ns: int | None = None

    @property
    def miss_ratio(self) -> float:
        """misses / jobs (0 without any job)."""
        return self.misses / self.jobs if self.jobs else 0.0

    @property
    def used_mean_ns(self) -> float:
        return float(np.mean(self.used_ns)) if self.used_ns else 0.0

    @property
    def used_max_ns(self) -> int:
        return max(self.used_ns, default=0)

    @property
    def used_share(self) -> float:
        """Budget used over budget given, over the whole periods (0 without any)."""
        given = sum(self.budgets_ns)
        return sum(self.used_ns) / given if given else 0.0

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(used_mean_ns=self.used_mean_ns, used_max_ns=self.used_max_ns, used_share=self.used_share,
                 miss_ratio=self.miss_ratio)
        for key in ("used_ns", "budgets_ns", "replenish_times_ns"):
            d[key] = list(d[key])
        d["budget_changes"] = [{"time_ns": t, "budget_ns": b} for t, b in self.budget_changes]
        return d


def reservation_budgets(trace: Trace, taskset: TaskSet) -> tuple[ReservationBudget, ...]:
    """One ReservationBudget per reservation of ``taskset`` with a stream in ``trace``, in the
    file's order (none for a trace without reservation streams)."""
    t0 = int(trace.header["t0_ns"])
    streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams if s["task_id"] < 0}
    task_streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams if s["task_id"] >= 0}
    out = []
    for r in taskset.reservations:
        if r.name not in streams:
            continue
        events = trace.events_of(streams[r.name])
        replenish = events[events["type"] == int(EV.RESERVATION_REPLENISH)]
        budgets = [int(b) for b in replenish["arg1"]]
        changes = events[events["type"] == int(EV.RESERVATION_BUDGET)]
        jobs = misses = 0
        for task in _tasks_below(taskset, r.name):
            if task.name in task_streams:
                kinds = trace.events_of(task_streams[task.name])["type"]
                jobs += int((kinds == int(EV.COMPLETE)).sum())
                misses += int((kinds == int(EV.DEADLINE_MISS)).sum())
        out.append(
            ReservationBudget(
                name=r.name,
                period_ns=r.period_ns,
                periods=len(replenish),
                depletions=int((events["type"] == int(EV.RESERVATION_DEPLETE)).sum()),
                used_ns=tuple(int(u) for u in replenish["arg0"][1:]),
                budgets_ns=tuple(budgets[:-1]),
                replenish_times_ns=tuple(int(t) - t0 for t in replenish["time_ns"]),
                budget_changes=tuple((int(t) - t0, int(b)) for t, b in zip(changes["time_ns"], changes["arg1"])),
                jobs=jobs,
                misses=misses,
                kernel_budget_ns=r.budget_ns if r.enforcement == "kernel" else None,
            )
        )
    return tuple(out)


def _tasks_below(taskset: TaskSet, name: str) -> list[Any]:
    """The tasks of reservation ``name`` and of every reservation below it."""
    found = list(taskset.tasks_in(name))
    for child in taskset.child_reservations(name):
        found += _tasks_below(taskset, child.name)
    return found


def plot_reservation_budgets(budgets: tuple[ReservationBudget, ...], path: str | Path, name: str) -> None:
    """One panel per reservation, over time (ms since t0): the budget each period was given
    (a step line) and the budget it used (a bar per whole period), in ms."""
    from rtsched.report.plots import pyplot

    plt = pyplot()
    fig, axes = plt.subplots(max(1, len(budgets)), 1, figsize=(10, 1.5 + 1.8 * len(budgets)), dpi=100,
                             sharex=True, squeeze=False)
    for row, b in enumerate(budgets):
        ax = axes[row][0]
        starts = [t / 1e6 for t in b.replenish_times_ns[: len(b.used_ns)]]
        ax.bar(starts, [u / 1e6 for u in b.used_ns], width=b.period_ns / 1e6 * 0.8, align="edge",
               color="tab:blue", alpha=0.6, label="used")
        if starts:
            ax.step(starts + [starts[-1] + b.period_ns / 1e6], [g / 1e6 for g in b.budgets_ns] + [b.budgets_ns[-1] / 1e6],
                    where="post", color="tab:red", label="budget")
        if b.budget_changes:  # the controller's changes (seed 000 Fig. 6)
            ax.plot([t / 1e6 for t, _ in b.budget_changes], [v / 1e6 for _, v in b.budget_changes], "o",
                    color="tab:green", markersize=3, label="budget changed")
        ax.set_ylabel(f"{b.name} (ms)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    for row in axes:
        if row[0].get_legend_handles_labels()[0]:
            row[0].legend(loc="upper right", fontsize="small")
    axes[-1][0].set_xlabel("time since t0 (ms)")
    fig.suptitle(f"{name}: budget per reservation period, given and used")
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)


def reservation_line(r: ReservationBudget) -> str:
    """The report's text line for one reservation (its budget, what its periods used, the controller's
    changes, its tasks' miss ratio)."""
    if r.kernel_budget_ns is not None:
        line = (f"reservation {r.name}: budget {r.kernel_budget_ns / 1e6:g} ms / {r.period_ns / 1e6:g} ms, "
                "enforced by the kernel (SCHED_DEADLINE on its CPU's worker; no user-level budget events)")
        if r.jobs:
            line += f"; {r.misses} of {r.jobs} job(s) missed ({100 * r.miss_ratio:.2f}%)"
        return line
    budget = max(r.budgets_ns, default=0)
    line = (f"reservation {r.name}: budget {budget / 1e6:g} ms / {r.period_ns / 1e6:g} ms; "
            f"used {r.used_mean_ns / 1e6:.2f} ms a period on average, at most {r.used_max_ns / 1e6:.2f} "
            f"ms ({100 * r.used_share:.0f}% of the budget over {len(r.used_ns)} whole periods); "
            f"{r.depletions} depletion(s)")
    if r.budget_changes:
        values = [b for _t, b in r.budget_changes]
        line += (f"; budget changed {len(values)} time(s), {min(values) / 1e6:g}..{max(values) / 1e6:g} ms, "
                 f"last {values[-1] / 1e6:g} ms")
    if r.jobs:
        line += f"; {r.misses} of {r.jobs} job(s) missed ({100 * r.miss_ratio:.2f}%)"
    return line

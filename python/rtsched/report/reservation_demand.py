"""CPU demand per reservation over time (seed 000's Fig. 5), from its tasks' job records in a trace.

    demand = reservation_demand(trace, taskset)     # one ReservationDemand per reservation holding tasks
    demand[0].demand_ns, demand[0].share_mean         # per window; the mean share of the CPU
    plot_reservation_demand(demand, "demand.png", "set")

The **demand** of a window is the CPU time of the jobs of the reservation's
tasks (of every leaf below it) *released* in it: what its tasks asked for
then, whether or not the budget let them run in that window (the definition
of examples/adhiersched/generate_demand.py, and of the paper's Table III and
Fig. 5: a server's demand run alone with the whole CPU). A job's CPU time is
its COMPLETE event's ``arg1`` (docs/trace-format.md), so any trace producer
gets the same figures. The windows are the reservation's **control
periods** when the budget controller adapts it (``adapted``: what the
controller observes at each decision), else the least whole number of its
periods that is at least the longest period of its tasks (so that each
window holds a job of each; a parent of reservations with a short period
would otherwise show a job's whole demand in the one period it was released
in); only the windows that end by the end of the run count. A job released in a window that had
not completed by the end of the run (or whose COMPLETE a full ring lost) has
no known CPU time: it is counted in ``unfinished`` of its window, whose
demand is then a lower bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtsched.model import TaskSet
from rtsched.model.reservation_control import adapted
from rtsched.outputs import partial
from rtsched.trace import EventType as EV
from rtsched.trace import Trace

__all__ = ["ReservationDemand", "plot_reservation_demand", "reservation_demand", "demand_line"]


@dataclass(frozen=True, slots=True)
class ReservationDemand:
    """One reservation's demand per window [k·window_ns, (k+1)·window_ns) since t0, k < len(demand_ns).
    ``bandwidth``: its budget over its period at the start of each window (the budget it was
    given then: the file's, or the controller's last change before it)."""

    name: str
    window_ns: int
    demand_ns: tuple[int, ...]
    unfinished: tuple[int, ...]  # per window: jobs released in it whose CPU time is not known
    bandwidth: tuple[float, ...]

    @property
    def shares(self) -> tuple[float, ...]:
        """Each window's demand as a share of the window (of one CPU)."""
        return tuple(d / self.window_ns for d in self.demand_ns)

    @property
    def share_mean(self) -> float:
        return sum(self.demand_ns) / (self.window_ns * len(self.demand_ns)) if self.demand_ns else 0.0

    @property
    def share_max(self) -> float:
        return max(self.shares, default=0.0)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "window_ns": self.window_ns, "demand_ns": list(self.demand_ns),
                "unfinished": list(self.unfinished), "bandwidth": list(self.bandwidth),
                "share_mean": self.share_mean, "share_max": self.share_max}


def _tasks_below(taskset: TaskSet, name: str) -> list[str]:
    found = [t.name for t in taskset.tasks_in(name)]
    for child in taskset.child_reservations(name):
        found += _tasks_below(taskset, child.name)
    return found


def _budget_at(changes: list[tuple[int, int]], first_ns: int, at_ns: int) -> int:
    """The budget in force at ``at_ns`` (since t0): the last change at or before it, else the first."""
    budget = first_ns
    for when, value in changes:
        if when > at_ns:
            break
        budget = value
    return budget


def reservation_demand(trace: Trace, taskset: TaskSet) -> tuple[ReservationDemand, ...]:
    """One ReservationDemand per reservation of ``taskset`` with tasks below it, in the file's order
    (none for a trace without reservation streams: the run had no reservations)."""
    header = trace.header
    t0, duration = int(header["t0_ns"]), int(header.get("duration_ns") or 0)
    streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams if s["task_id"] < 0}
    task_streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams if s["task_id"] >= 0}
    if not streams or duration <= 0:
        return ()
    out = []
    for r in taskset.reservations:
        names = [n for n in _tasks_below(taskset, r.name) if n in task_streams]
        if not names:
            continue
        control = adapted(taskset, r)
        if control is not None:
            window = control.period_ns
        else:
            longest = max(taskset.task(n).period_ns for n in names)
            window = r.period_ns * max(1, -(-longest // r.period_ns))
        count = duration // window
        demand, unfinished = [0] * count, [0] * count
        for name in names:
            events = trace.events_of(task_streams[name])
            done = events[(events["type"] == int(EV.COMPLETE)) & (events["time_ns"] <= t0 + duration)]
            cpu_time = dict(zip(done["job"].tolist(), done["arg1"].tolist()))
            released = events[events["type"] == int(EV.RELEASE)]
            for job, at in zip(released["job"].tolist(), released["time_ns"].tolist()):
                k = (at - t0) // window
                if not 0 <= k < count:
                    continue
                if job in cpu_time:
                    demand[k] += int(cpu_time[job])
                else:
                    unfinished[k] += 1
        changes: list[tuple[int, int]] = []
        if r.name in streams:
            ev = trace.events_of(streams[r.name])
            ev = ev[ev["type"] == int(EV.RESERVATION_BUDGET)]
            changes = [(int(t) - t0, int(b)) for t, b in zip(ev["time_ns"], ev["arg1"])]
        bandwidth = tuple(_budget_at(changes, r.budget_ns, k * window) / r.period_ns for k in range(count))
        out.append(ReservationDemand(r.name, window, tuple(demand), tuple(unfinished), bandwidth))
    return tuple(out)


def plot_reservation_demand(demands: tuple[ReservationDemand, ...], path: str | Path, name: str) -> None:
    """One panel per reservation over time (ms since t0): its demand per window in % of the
    window (a step line; windows with unfinished jobs, whose demand is a lower bound, marked),
    its mean, and the bandwidth its budget gave it (budget / period, %)."""
    from rtsched.report.plots import pyplot

    plt = pyplot()
    fig, axes = plt.subplots(max(1, len(demands)), 1, figsize=(10, 1.5 + 1.8 * len(demands)), dpi=100,
                             sharex=True, squeeze=False)
    for row, d in enumerate(demands):
        ax = axes[row][0]
        starts = [k * d.window_ns / 1e6 for k in range(len(d.demand_ns) + 1)]
        shares = [100 * s for s in d.shares]
        if shares:
            ax.step(starts, shares + [shares[-1]], where="post", linewidth=0.8, color="tab:blue", label="demand")
            ax.step(starts, [100 * b for b in d.bandwidth] + [100 * d.bandwidth[-1]], where="post",
                    linewidth=0.8, color="tab:red", label="budget / period")
            ax.axhline(100 * d.share_mean, color="tab:blue", linestyle="--", linewidth=0.8,
                       label=f"mean {100 * d.share_mean:.2f} %")
            low = [(starts[k] + d.window_ns / 2e6, shares[k]) for k, n in enumerate(d.unfinished) if n]
            if low:
                ax.plot(*zip(*low), "v", color="tab:gray", markersize=3, label="jobs unfinished: at least")
        ax.set_ylabel(f"{d.name} (% per {d.window_ns / 1e6:g} ms)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper right", fontsize="small")
    axes[-1][0].set_xlabel("time since t0 (ms)")
    fig.suptitle(f"{name}: CPU demand per reservation (jobs released in each window)")
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)


def demand_line(d: ReservationDemand) -> str:
    """The report's text line for one reservation's demand."""
    line = (f"demand of {d.name}: {100 * d.share_mean:.2f}% of the CPU on average, at most "
            f"{100 * d.share_max:.2f}% (per {d.window_ns / 1e6:g} ms window, {len(d.demand_ns)} whole windows)")
    unknown = sum(d.unfinished)
    if unknown:
        line += f"; {unknown} job(s) unfinished at the end, not counted"
    return line

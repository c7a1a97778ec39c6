"""PNG plots of a run (matplotlib, Agg backend): response-time CDF per task,
and a schedule chart (Gantt) of a window, one row per CPU."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rtsched.outputs import partial
from rtsched.report.export_perfetto import job_segments, service_segments
from rtsched.report.jobs import JobTable
from rtsched.report.priorities import PriorityTime
from rtsched.trace import EventType as EV
from rtsched.trace import Trace

__all__ = ["plot_priority_time", "plot_response_cdf", "plot_schedule"]


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_response_cdf(table: JobTable, path: str | Path) -> None:
    """Empirical CDF of each task's response times (ms), deadlines as dotted lines."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, info in enumerate(table.tasks):
        rows = table.of_task(info.index)
        color = colors[k % len(colors)]
        if len(rows):
            response = np.sort(rows["response"]) / 1e6
            y = np.arange(1, len(response) + 1) / len(response)
            ax.step(response, y, where="post", label=f"{info.name} ({len(rows)} jobs)", color=color)
        if info.deadline_ns:
            ax.axvline(info.deadline_ns / 1e6, color=color, linestyle=":", linewidth=1)
    ax.set_xlabel("response time (ms); dotted: relative deadline")
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{table.name}: response-time CDF per task")
    ax.grid(True, alpha=0.3)
    if table.tasks:
        ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)


def plot_schedule(
    table: JobTable, trace: Trace, path: str | Path, window_ns: tuple[int, int] | None = None
) -> int:
    """Gantt chart of the window (ns since t0; default the first 200 ms): one row per CPU,
    bars = job execution segments coloured by task (under the threads backend preemption
    is not traced: a bar may include time the job was preempted, nested bars are drawn
    thinner; under the ult backend the bars are the exact execution intervals, from the
    PREEMPT / RESUME events, ``job_segments``), releases as
    ticks above; servers' services (calls) are bars of their own colour. Returns the
    number of bars drawn."""
    plt = pyplot()
    from matplotlib.patches import Patch

    lo, hi = window_ns if window_ns is not None else (0, 200_000_000)
    t0 = table.t0_ns
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    completed = {(int(j["task"]), int(j["job"])) for j in table.jobs}
    bars: dict[int, list[tuple[float, float, int]]] = {}
    releases: list[tuple[float, int]] = []
    for info in table.tasks:
        events = trace.events_of(info.stream)
        jobs = events[events["job"] > 0]
        for number in np.unique(jobs["job"]).tolist():
            if (info.index, number) not in completed:
                continue
            for begin, end, cpu, end_cpu in job_segments(jobs[jobs["job"] == number]):
                b, e = begin - t0, end - t0
                if e < lo or b > hi:
                    continue
                bars.setdefault(cpu, []).append((max(b, lo) / 1e6, (min(e, hi) - max(b, lo)) / 1e6, info.index))
        rel = jobs[jobs["type"] == EV.RELEASE]["time_ns"] - t0
        releases.extend((r / 1e6, info.index) for r in rel[(rel >= lo) & (rel <= hi)].tolist())
    services = service_segments(trace)
    servers = sorted({s[0] for s in services})
    for server, begin, end, cpu, end_cpu, _client, _job in services:
        b, e = begin - t0, end - t0
        if e < lo or b > hi or cpu != end_cpu:
            continue
        colour = len(table.tasks) + servers.index(server)
        bars.setdefault(cpu, []).append((max(b, lo) / 1e6, (min(e, hi) - max(b, lo)) / 1e6, colour))
    cpus = sorted(bars) or [0]
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.9 * len(cpus)), dpi=100)
    drawn = 0
    for row, cpu in enumerate(cpus):
        segments = sorted(bars.get(cpu, []), key=lambda s: (s[0], -s[1]))
        open_ends: list[float] = []
        for start, width, task in segments:
            while open_ends and open_ends[-1] <= start:
                open_ends.pop()
            depth = len(open_ends)
            open_ends.append(start + width)
            height = 0.7 * (0.6**depth)
            ax.broken_barh([(start, width)], (row - height / 2, height), facecolors=colors[task % len(colors)],
                           edgecolor="black", linewidth=0.3)
            drawn += 1
    for r, task in releases:
        ax.plot([r, r], [len(cpus) - 0.5, len(cpus) - 0.3], color=colors[task % len(colors)], linewidth=1)
    ax.set_yticks(range(len(cpus)), [f"CPU {c}" for c in cpus])
    ax.set_ylim(-0.6, len(cpus) - 0.2)
    ax.set_xlim(lo / 1e6, hi / 1e6)
    ax.set_xlabel("time since release t0 (ms); ticks at the top: job releases")
    ax.set_title(f"{table.name}: schedule {lo / 1e6:g}-{hi / 1e6:g} ms")
    handles = [Patch(color=colors[t.index % len(colors)], label=t.name) for t in table.tasks]
    handles += [Patch(color=colors[(len(table.tasks) + k) % len(colors)], label=f"{s} (service)")
                for k, s in enumerate(servers)]
    ax.legend(handles=handles,
              loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)
    return drawn


def plot_priority_time(priorities: tuple[PriorityTime, ...], name: str, path: str | Path) -> None:
    """Per thread, bars of the time (ms, log scale) it was assigned each priority: its base
    priority hatched, inherited or donated ones plain (seed 000, Cucinotta's Fig. 8)."""
    plt = pyplot()
    levels = sorted({p for row in priorities for p, _ns in row.ns_at_priority}, reverse=True)
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    width = 0.8 / max(1, len(levels))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, level in enumerate(levels):
        xs, heights, hatches = [], [], []
        for i, row in enumerate(priorities):
            ns = dict(row.ns_at_priority).get(level, 0)
            if ns:
                xs.append(i + (k - (len(levels) - 1) / 2) * width)
                heights.append(ns / 1e6)
                hatches.append("//" if level == row.base_priority else "")
        bars = ax.bar(xs, heights, width, label=f"priority {level}", color=colors[k % len(colors)])
        for bar, hatch in zip(bars, hatches):
            bar.set_hatch(hatch)
    ax.set_xticks(range(len(priorities)), [row.thread for row in priorities])
    ax.set_yscale("log")
    ax.set_ylabel("time assigned the priority (ms, log scale); hatched: its own")
    ax.set_title(f"{name}: time each thread spent at each priority")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)

"""Frequency over time from a trace's FREQ_CHANGE events (the simulator's DVFS policies).

    steps = frequency_steps(trace)            # {cpu: [(time_ns, kHz), ...]} in time order
    plot_frequency({"cc-edf": trace}, "frequency.png", end_ns=trace.duration_ns)

A CPU keeps the frequency of its last FREQ_CHANGE until its next one (a step
function); a trace without such events (a real run, a simulation without
``--dvfs``) has no steps.
"""

from __future__ import annotations

from pathlib import Path

from rtsched.outputs import partial
from rtsched.report.plots import pyplot
from rtsched.trace import EventType as EV
from rtsched.trace import Trace

__all__ = ["frequency_steps", "plot_frequency"]

_STYLES = ("-", "--", "-.", ":")


def frequency_steps(trace: Trace) -> dict[int, list[tuple[int, int]]]:
    """Per CPU, (time_ns, frequency_khz) of each FREQ_CHANGE, in time order."""
    events = trace.events[trace.events["type"] == int(EV.FREQ_CHANGE)]
    steps: dict[int, list[tuple[int, int]]] = {}
    for e in sorted(events.tolist(), key=lambda row: (row[0], row[2])):
        steps.setdefault(int(e[2]), []).append((int(e[0]), int(e[4])))
    return steps


def plot_frequency(traces: dict[str, Trace], path: str | Path, end_ns: int,
                   window_ns: tuple[int, int] | None = None) -> None:
    """One panel per CPU, one step line per labelled trace: frequency (MHz) over time (ms)."""
    plt = pyplot()
    by_label = {label: frequency_steps(t) for label, t in traces.items()}
    cpus = sorted({cpu for steps in by_label.values() for cpu in steps})
    fig, axes = plt.subplots(max(1, len(cpus)), 1, figsize=(10, 2.2 + 1.8 * len(cpus)), dpi=100,
                             sharex=True, squeeze=False)
    lo, hi = window_ns if window_ns is not None else (0, end_ns)
    for row, cpu in enumerate(cpus):
        ax = axes[row][0]
        for k, (label, steps) in enumerate(by_label.items()):
            points = steps.get(cpu, [])
            if not points:
                continue
            xs = [t / 1e6 for t, _ in points] + [end_ns / 1e6]
            ys = [khz / 1e3 for _, khz in points] + [points[-1][1] / 1e3]
            # each later line thinner and dashed differently, so that equal steps stay visible
            ax.step(xs, ys, where="post", label=label, linewidth=max(1.0, 3.5 - 0.8 * k),
                    linestyle=_STYLES[k % len(_STYLES)])
        ax.set_ylabel(f"CPU {cpu} (MHz)")
        ax.set_xlim(lo / 1e6, hi / 1e6)
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(loc="upper right", fontsize="small")
    axes[-1][0].set_xlabel("time (ms)")
    fig.suptitle("CPU frequency chosen by the DVFS policy")
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)

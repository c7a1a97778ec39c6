"""Bus-access traces as PNG (as the thesis's Figs. 3.7/3.8 and 4.3/4.4): one
row per flow, a bar while it moves data (its height the share of the flow's
peak rate it gets: full height alone on the bus, lower when slowed), a tick
at each release, a red cross at a missed deadline, and the analysis's
response bound as a bracket after each release when there is one."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rtsched.model.io_system import IoSystem
from rtsched.outputs import partial
from rtsched.sim.io.results import IoRun

__all__ = ["plot_bus_trace"]


def plot_bus_trace(system: IoSystem, run: IoRun, path: Path, bounds_ns: Mapping[str, int | None] | None = None,
                   window_ns: tuple[int, int] | None = None) -> None:
    """Draw ``run``'s bus accesses to ``path``; ``window_ns`` defaults to the simulated length."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    lo, hi = window_ns if window_ns is not None else (0, run.simulated_ns)
    flows = list(system.flows)
    fig, ax = plt.subplots(figsize=(11, 1.0 + 0.7 * len(flows)))
    for row, flow in enumerate(flows):
        y = len(flows) - 1 - row
        peak = flow.peak_bytes_per_ns
        for seg in run.segments:
            if seg.flow == flow.name and seg.end_ns > lo and seg.start_ns < hi:
                share = float(seg.bytes_per_ns / peak)
                ax.barh(y - 0.35 + 0.35 * (1 - share), float(seg.end_ns - seg.start_ns) / 1e6,
                        left=float(seg.start_ns) / 1e6, height=0.7 * share, align="edge", color=f"C{row}")
        bound = (bounds_ns or {}).get(flow.name)
        for chunk in run.chunks_of(flow.name):
            if not lo <= chunk.release_ns <= hi:
                continue
            ax.plot([chunk.release_ns / 1e6] * 2, [y - 0.45, y + 0.45], color="black", lw=0.8)
            if bound is not None:
                end = (chunk.release_ns + bound) / 1e6
                ax.plot([chunk.release_ns / 1e6, end], [y + 0.42] * 2, color="gray", lw=0.8)
                ax.plot([end] * 2, [y + 0.32, y + 0.45], color="gray", lw=0.8)
            if chunk.missed:
                ax.plot((chunk.release_ns + chunk.deadline_ns) / 1e6, y, "x", color="red", ms=9, mew=2)
    ax.set_yticks(range(len(flows)), [f.name for f in reversed(flows)])
    ax.set_xlim(lo / 1e6, hi / 1e6)
    ax.set_xlabel("time (ms)")
    mode = "reservation controller (sporadic servers, RM)" if run.scheduled else "unscheduled COTS bus"
    ax.set_title(f"{system.name}: bus accesses, {mode}; | release, x missed deadline"
                 + (", gray: response bound" if bounds_ns else ""))
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)

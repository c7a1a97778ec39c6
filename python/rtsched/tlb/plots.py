"""Figures of the TLB study, after the paper's: the first task's execution-time
distribution per policy (its Figs. 2 and 5) and the locking methods' cost lines
against the misses they remove (its Fig. 6)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from rtsched.outputs import partial
from rtsched.tlb.costs import LockingCosts
from rtsched.tlb.study import StudyResult

__all__ = ["plot_execution_times", "plot_locking_costs"]


def plot_execution_times(result: StudyResult, path: Path) -> None:
    """How often each execution time of the first task occurs, per policy (log scale, as Figs. 2 and 5)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for row, marker in zip(result.rows, "os^v"):
        counts = Counter(result.first_exec_ns(row.policy))
        times = sorted(counts)
        ax.plot([t / 1000 for t in times], [counts[t] for t in times], marker=marker, linestyle="",
                label=f"{row.policy} ({row.entries_locked} locked)")
    ax.set_yscale("log")
    ax.set_xlabel(f"{result.first_task} execution time (µs)")
    ax.set_ylabel(f"jobs (of {result.periods})")
    ax.set_title(f"{result.first_task}: best case {result.first_bcet_ns / 1000:,.0f} µs, "
                 f"miss handler {result.costs.miss_ns / 1000:g} µs")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)


def plot_locking_costs(costs: LockingCosts, path: Path, max_entries: int = 64) -> None:
    """Method 1 and 2 per job against locked entries, beside the misses they remove (one per entry, Fig. 6)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = list(range(1, max_entries + 1))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(entries, [costs.method1_ns(n) / 1000 for n in entries], label="dynamic locking, method 1")
    ax.plot(entries, [costs.method2_ns(n) / 1000 for n in entries], label="dynamic locking, method 2")
    ax.plot(entries, [n * costs.miss_ns / 1000 for n in entries], linestyle="--",
            label="one TLB miss per entry")
    crossover = costs.crossover_entries()
    if crossover is not None and crossover <= max_entries:
        ax.axvline(crossover, color="grey", linestyle=":", label=f"method 2 cheaper from {crossover} entries")
    ax.set_xlabel("locked TLB entries")
    ax.set_ylabel("time per job (µs)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)

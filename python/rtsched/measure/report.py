"""Tables (rich) and plots (matplotlib, Agg) of latency and overhead results."""

from __future__ import annotations

from typing import Iterable

from rich.console import Console
from rich.table import Table

from rtsched.measure.histogram import Histogram
from rtsched.outputs import partial


def _us(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if value < 1000 else f"{value:.0f}"


def latency_table(title: str, histograms: Iterable[Histogram]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("run")
    for name in ("samples", "min", "avg", "p50", "p90", "p99", "p99.9", "max", "overflows"):
        table.add_column(name, justify="right")
    for h in histograms:
        s = h.summary()
        table.add_row(
            h.label,
            str(s["samples"]),
            _us(s["min_us"]),
            _us(s["avg_us"]),
            _us(s["p50_us"]),
            _us(s["p90_us"]),
            _us(s["p99_us"]),
            _us(s["p99_9_us"]),
            _us(s["max_us"]),
            str(s["overflows"]),
        )
    return table


def ratio_table(title: str, rows: list[dict]) -> Table:
    """rows: {label, p50_a, p50_b, p50_ratio, p99_a, p99_b, p99_ratio}."""
    table = Table(title=title, title_justify="left")
    for name in ("CPU", "p50 rtsched", "p50 cyclictest", "ratio", "p99 rtsched", "p99 cyclictest", "ratio"):
        table.add_column(name, justify="right")
    for r in rows:
        table.add_row(
            r["label"],
            _us(r["p50_a"]), _us(r["p50_b"]), "-" if r["p50_ratio"] is None else f"{r['p50_ratio']:.3f}",
            _us(r["p99_a"]), _us(r["p99_b"]), "-" if r["p99_ratio"] is None else f"{r['p99_ratio']:.3f}",
        )
    return table


def overhead_table(title: str, summaries: list[dict]) -> Table:
    table = Table(title=title, title_justify="left")
    for name in ("variant", "CPU", "runs", "base ms", "eps avg", "eps std", "eps p99", "eps max", "timer IRQs"):
        table.add_column(name, justify="right")
    for s in summaries:
        ticks = s.get("local_timer_interrupts")
        ticks_text = "-" if ticks is None else str(ticks)
        if not s.get("iterations"):
            table.add_row(s["variant"], str(s["cpu"]), "0", "-", "-", "-", "-", "-", ticks_text)
            continue
        table.add_row(
            s["variant"], str(s["cpu"]), str(s["iterations"]), f"{s['base_ms']:.3f}",
            f"{s['eps_avg_ms']:.3f}", f"{s['eps_std_ms']:.3f}", f"{s['eps_p99_ms']:.3f}",
            f"{s['eps_max_ms']:.3f}", ticks_text,
        )
    return table


def plot_histograms(path: str, histograms: list[Histogram], title: str) -> None:
    """Log-count histograms (1 us buckets), one line per run, as seed 000's figures."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(9, 5))
    for h in histograms:
        if not h.samples:
            continue
        # Empty buckets as gaps (NaN), so no line is drawn across them.
        ys = [c if c else float("nan") for c in h.buckets]
        p99 = h.percentile(99)
        label = f"{h.label} (p50 {_us(h.median_us)}, p99 {_us(p99)}, max {_us(h.observed_max_us)} us)"
        ax.step(range(len(ys)), ys, where="mid", label=label, linewidth=1, marker=".", markersize=2)
    ax.set_yscale("log")
    ax.set_xscale("symlog", linthresh=100)  # linear up to 100 us, where most samples are; log beyond
    ax.set_xlabel("scheduling latency (us, 1 us buckets)")
    ax.set_ylabel("samples")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)


def plot_overhead(path: str, runs: list[tuple[str, list[float]]], title: str) -> None:
    """Inverse CDFs of epsilon per variant (as seed 002 Figs. 2.11-2.14), log y."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(9, 5))
    for label, eps in runs:
        if not eps:
            continue
        ordered = sorted(eps)
        n = len(ordered)
        ax.plot([(i + 1) / n for i in range(n)], [max(e, 1e-3) for e in ordered], label=label, marker=".")
    ax.set_yscale("log")
    ax.set_xlabel("probability (epsilon <= y)")
    ax.set_ylabel("epsilon = T_x - min T_x (ms)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)


def console() -> Console:
    return Console(stderr=False)

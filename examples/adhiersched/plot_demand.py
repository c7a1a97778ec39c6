#!/usr/bin/env python3
"""The case study's CPU demand over time, per soft server (seed 000's Fig. 5, which shows S3's).

Reads demand/*.csv and draws, for S3, S4 and S5, the CPU demand of each of the server's
periods (the CPU time of its tasks' jobs released in it, in % of the period; the definition
of generate_demand.py) over the minute, with its average (Table III):

    PYTHONPATH=python python3 examples/adhiersched/plot_demand.py [--out demand.png] [--seconds 60]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from generate_demand import HERE, SERVERS, read, server_demand
from rtsched.report.plots import pyplot


def demand_percent() -> dict[str, np.ndarray]:
    """Per soft server, the CPU demand of each of its periods over the minute, in % of the period."""
    traces = read(HERE / "demand")
    return {s.name: 100 * server_demand(s, traces[s.name]) / s.period_us for s in SERVERS}


def plot(path: Path, seconds: float) -> None:
    demand = demand_percent()
    plt = pyplot()
    fig, axes = plt.subplots(len(SERVERS), 1, figsize=(10, 1.5 + 1.8 * len(SERVERS)), dpi=100, sharex=True)
    for ax, server in zip(axes, SERVERS, strict=True):
        series = demand[server.name]
        starts = np.arange(len(series)) * server.period_us / 1e6
        shown = starts < seconds
        ax.step(starts[shown], series[shown], where="post", linewidth=0.7, color="tab:blue", label="demand")
        ax.axhline(series.mean(), color="tab:red", linewidth=1, label=f"average {series.mean():.2f} %")
        ax.set_ylabel(f"{server.name} (% of {server.period_us // 1000} ms)")
        ax.set_ylim(0, max(series) * 1.05)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("AdHierSched case study: CPU demand per server period (seed 000 Fig. 5)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("demand.png"), help="the PNG (default demand.png)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how much of the minute to show")
    args = parser.parse_args(argv)
    plot(args.out, args.seconds)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Generate the demand traces of the AdHierSched case study (seed 000, Khalilzad, Behnam, Nolte, §V).

The paper's soft servers S3, S4, S5 hold a media player (Mplayer, type 2) and
image-processing tasks (OpenCV, type 3) whose CPU time varies from frame to
frame. Their Table III gives each server's average and maximum CPU demand in
percent: S3 13.35 / 60, S4 12.36 / 54, S5 11.98 / 44. This script writes one
trace per task (Table II: the periods) whose statistics are those, to the µs:

    python3 examples/adhiersched/generate_demand.py            # writes demand/*.csv here
    python3 examples/adhiersched/generate_demand.py --check    # recomputes and prints the table

**Definition.** A server's CPU demand in its period k is the CPU time of the
jobs of its tasks released in [k·P, (k+1)·P), as a percentage of P; the
average is over the 60 s of the traces (the paper's one-minute run, every
task released from 0), the maximum over its periods. The traces hold the
jobs released in those 60 s and cycle after it (``at_end: cycle``).

**Shapes.** A frame's cost follows its content: the log of each task's cost
is an AR(1) process (slow drift within a scene) with occasional scene cuts
(a jump to a new level); the media player adds a group-of-pictures pattern,
a key frame every 12 frames costing 2.5 times the others. A power γ of these
shapes sets how peaked they are: γ is found by bisection so that the
server's maximum is Table III's, then each task is scaled to its share of the
average (S3: 90 % the player, 10 % the image task; S4: half each; S5: 30 % the 350 ms task, 70 % the 150 ms one).
Values are rounded to whole µs and the peak period's largest job corrected by
the rounding's few µs, so the maximum is exact; the average is within 0.001
percentage points.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HORIZON_US = 60_000_000
DEFAULT_SEED = 2013
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class TaskSpec:
    name: str
    period_us: int
    kind: str      # "video" (Mplayer) or "image" (the OpenCV filter)
    share: float   # of its server's average demand


@dataclass(frozen=True)
class ServerSpec:
    name: str
    period_us: int
    average_percent: float
    maximum_percent: float
    tasks: tuple[TaskSpec, ...]


#: Table II (periods) and Table III (demand) of the paper.
SERVERS = (
    ServerSpec("S3", 20_000, 13.35, 60.0, (TaskSpec("t3_1", 40_000, "video", 0.9),
                                           TaskSpec("t3_2", 200_000, "image", 0.1))),
    ServerSpec("S4", 100_000, 12.36, 54.0, (TaskSpec("t4_1", 350_000, "image", 0.5),
                                            TaskSpec("t4_2", 200_000, "image", 0.5))),
    ServerSpec("S5", 75_000, 11.98, 44.0, (TaskSpec("t5_1", 350_000, "image", 0.3),
                                           TaskSpec("t5_2", 150_000, "image", 0.7))),
)


def jobs_in_horizon(period_us: int) -> int:
    return -(-HORIZON_US // period_us)


def shape(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Positive per-frame costs of mean 1: log-AR(1) drift, scene cuts, a GOP pattern for video."""
    phi, sigma, cut = (0.97, 0.08, 0.02) if kind == "video" else (0.9, 0.15, 0.05)
    level = np.empty(n)
    x = 0.0
    for k in range(n):
        x = rng.normal(0.0, 0.5) if rng.random() < cut else phi * x + rng.normal(0.0, sigma)
        level[k] = x
    costs = np.exp(level)
    if kind == "video":
        costs = costs * np.where(np.arange(n) % 12 == 0, 2.5, 1.0)
    return costs / costs.mean()


def server_demand(server: ServerSpec, traces_us: dict[str, np.ndarray]) -> np.ndarray:
    """Per server period: the CPU time (µs) of the jobs released in it."""
    windows = np.zeros(HORIZON_US // server.period_us)
    for task in server.tasks:
        releases = np.arange(len(traces_us[task.name])) * task.period_us
        np.add.at(windows, releases // server.period_us, traces_us[task.name])
    return windows


def _scaled(server: ServerSpec, shapes: dict[str, np.ndarray], gamma: float) -> dict[str, np.ndarray]:
    out = {}
    for task in server.tasks:
        y = shapes[task.name] ** gamma
        total_us = task.share * server.average_percent / 100 * HORIZON_US  # its share over the horizon
        out[task.name] = y / y.sum() * total_us
    return out


def fit(server: ServerSpec, shapes: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Integer µs traces with the server's Table III average and maximum."""
    target_us = server.maximum_percent / 100 * server.period_us
    lo, hi = 0.0, 8.0
    if server_demand(server, _scaled(server, shapes, lo)).max() > target_us:
        raise SystemExit(f"{server.name}: even constant demand peaks above {server.maximum_percent} %: "
                         "change the tasks' shares")
    for _ in range(60):
        mid = (lo + hi) / 2
        if server_demand(server, _scaled(server, shapes, mid)).max() < target_us:
            lo = mid
        else:
            hi = mid
    traces = {name: np.rint(v).astype(np.int64) for name, v in _scaled(server, shapes, lo).items()}
    windows = server_demand(server, traces)
    peak = int(np.argmax(windows))
    gap = int(round(target_us - windows[peak]))
    # the largest job released in the peak period absorbs the rounding
    best = max(((t, k) for t in server.tasks for k in range(len(traces[t.name]))
                if k * t.period_us // server.period_us == peak), key=lambda tk: traces[tk[0].name][tk[1]])
    traces[best[0].name][best[1]] += gap
    assert server_demand(server, traces).max() == target_us, server.name
    return traces


def statistics_percent(server: ServerSpec, traces_us: dict[str, np.ndarray]) -> tuple[float, float]:
    windows = server_demand(server, traces_us)
    return 100 * windows.sum() / HORIZON_US, 100 * windows.max() / server.period_us


def write(out_dir: Path, seed: int) -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = {}
    for server in SERVERS:
        shapes = {t.name: shape(t.kind, jobs_in_horizon(t.period_us), rng) for t in server.tasks}
        traces = fit(server, shapes)
        result[server.name] = traces
        for task in server.tasks:
            lines = [f"# {task.name} of {server.name} (AdHierSched case study, seed 000 Tables II-III): "
                     f"period {task.period_us // 1000}ms, {len(traces[task.name])} jobs = 60 s",
                     f"# generated by examples/adhiersched/generate_demand.py --seed {seed}",
                     "exec_us", *map(str, traces[task.name])]
            (out_dir / f"{task.name}.csv").write_text("\n".join(lines) + "\n")
    return result


def read(out_dir: Path) -> dict[str, dict[str, np.ndarray]]:
    return {s.name: {t.name: np.loadtxt(out_dir / f"{t.name}.csv", comments="#", skiprows=3, dtype=np.int64)
                     for t in s.tasks} for s in SERVERS}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=HERE / "demand", help="folder of the CSV files")
    parser.add_argument("--check", action="store_true", help="read the CSV files and print their statistics")
    args = parser.parse_args(argv)
    traces = read(args.out) if args.check else write(args.out, args.seed)
    print(f"{'server':8}{'average %':>12}{'paper':>8}{'maximum %':>12}{'paper':>8}")
    total = [0.0, 0.0]
    for server in SERVERS:
        avg, peak = statistics_percent(server, traces[server.name])
        total = [total[0] + avg, total[1] + peak]
        print(f"{server.name:8}{avg:12.3f}{server.average_percent:8.2f}{peak:12.3f}{server.maximum_percent:8.2f}")
    print(f"{'total':8}{total[0]:12.3f}{37.43:8.2f}{total[1]:12.3f}{158:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

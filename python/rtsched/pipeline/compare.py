"""One task set run twice, side by side: ``rtsched run --compare-picv`` (with and
without PI-CV, seed 004 §6.2, Table II and Fig. 9) and ``--compare-backends``
(under the threads backend, then under the ult backend, docs/ult.md).

    from rtsched.pipeline.compare import compare_picv, compare_backends
    comparison = compare_picv(load_taskset("examples/picv-rpc.yaml"), RunOptions())
    comparison.rows()          # per task and variant: jobs, misses, mean, p90, p99, max, bound

The comparison is a function of the runs' results (``Comparison.rows``), never of their
summaries rewritten. Each run writes its usual outputs in ``OUT/<variant>/`` (``picv``,
``no-picv``; ``threads``, ``ult``); the comparison adds ``OUT/compare.json``
and, for PI-CV, ``OUT/response-cdf-picv.png`` (each task's response-time CDF
with and without PI-CV). When the set is the paper's (``name: picv-rpc``),
seed 004's Table II is shown beside it. The bound is the analysis's, which
assumes the first variant (PI-CV; the kernel's scheduling for backends).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from rtsched.model import TaskSet, TaskSetError
from rtsched.outputs import partial, write_text
from rtsched.pipeline.experiment import Result
from rtsched.pipeline.run_set import RunOptions, default_out_dir, run_taskset
from rtsched.run.backends import BACKEND_VARIANTS, backend_refusals, backend_variants

__all__ = ["PAPER_TABLE_II", "PICV_VARIANTS", "Comparison", "compare_backends", "compare_picv"]

MS = 1_000_000

#: Seed 004 (Cucinotta et al.) Table II, response times in ms, for the set
#: named "picv-rpc" (examples/picv-rpc.yaml): variant -> task -> (mean, p90, max).
PAPER_TABLE_II: dict[str, dict[str, dict[str, tuple[float, float, float]]]] = {
    "picv-rpc": {
        "picv": {"Client1": (15.379, 18.913, 18.995), "Client2": (22.816, 28.938, 28.996)},
        "no-picv": {"Client1": (25.776, 33.71, 33.76), "Client2": (33.587, 38.489, 38.55)},
    }
}

PICV_VARIANTS: tuple[str, ...] = ("picv", "no-picv")
#: compare.json's format per kind of comparison.
FORMATS: dict[tuple[str, ...], str] = {PICV_VARIANTS: "rtsched-picv-compare/1", BACKEND_VARIANTS: "rtsched-backend-compare/1"}


@dataclass
class Comparison:
    taskset: TaskSet
    out_dir: Path
    runs: dict[str, Result]  # by variant, in the order they ran
    files: dict[str, Path]
    variants: tuple[str, ...] = PICV_VARIANTS

    @property
    def interrupted(self) -> bool:
        return any(r.interrupted for r in self.runs.values())

    def paper(self) -> dict[str, dict[str, tuple[float, float, float]]] | None:
        return PAPER_TABLE_II.get(self.taskset.name) if self.variants == PICV_VARIANTS else None

    def rows(self) -> list[dict[str, Any]]:
        """Per task (set order) and variant: this run's figures (ns), the bound (PI-CV: the
        first variant's only, the analysis assumes PI-CV; backends: both, each run's own, as
        release jitter folds per backend under EDF), and the paper's (ms) when known."""
        paper = self.paper() or {}
        out = []
        for task in self.taskset.rt_tasks:
            for variant in self.variants:
                run = self.runs.get(variant)
                stats = next((s for s in run.stats if s.task == task.name), None) if run else None
                first = variant == self.variants[0] or self.variants == BACKEND_VARIANTS  # the bound applies
                out.append(
                    {
                        "task": task.name,
                        "variant": variant,
                        "jobs": stats.jobs if stats else 0,
                        "deadline_misses": stats.deadline_misses if stats else 0,
                        "mean_ns": stats.response_mean_ns if stats else None,
                        "p90_ns": stats.response_p90_ns if stats else None,
                        "p99_ns": stats.response_p99_ns if stats else None,
                        "max_ns": stats.response_max_ns if stats else None,
                        "release_latency_median_ns": stats.release_latency_median_ns if stats else None,
                        "release_latency_p99_ns": stats.release_latency_p99_ns if stats else None,
                        "release_latency_max_ns": stats.release_latency_max_ns if stats else None,
                        "bound_ns": stats.bound_ns if stats and first else None,
                        "bound_exceeded": bool(stats and first and stats.bound_exceeded),
                        "paper_ms": paper.get(variant, {}).get(task.name),
                    }
                )
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": FORMATS[self.variants],
            "name": self.taskset.name,
            "duration_ns": next(iter(self.runs.values())).summary.get("duration_ns") if self.runs else None,
            "rows": self.rows(),
            "paper": "seed 004 Table II" if self.paper() else None,
            "runs": {v: str(r.out_dir) for v, r in self.runs.items()},
            "files": {k: str(v) for k, v in sorted(self.files.items())},
        }


def plot_cdf_comparison(comparison: Comparison, path: str | Path) -> None:
    """Response-time CDF of each task with (solid) and without (dashed) PI-CV,
    bounds as dotted lines (the paper's Fig. 9 for its two clients)."""
    from rtsched.report.plots import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    callers = [t.name for t in comparison.taskset.rt_tasks if t.calls] or [
        t.name for t in comparison.taskset.rt_tasks
    ]
    for k, name in enumerate(callers):
        color = colors[k % len(colors)]
        for variant, style in zip(PICV_VARIANTS, ("-", "--")):
            run = comparison.runs.get(variant)
            if run is None or run.table is None:
                continue
            info = next((t for t in run.table.tasks if t.name == name), None)
            if info is None:
                continue
            rows = run.table.of_task(info.index)
            if not len(rows):
                continue
            response = np.sort(rows["response"]) / MS
            y = np.arange(1, len(response) + 1) / len(response)
            label = f"{name}, {'PI-CV' if variant == 'picv' else 'no PI-CV'}"
            ax.step(response, y, where="post", linestyle=style, color=color, label=label)
        bound = next((s.bound_ns for s in comparison.runs["picv"].stats if s.task == name), None) \
            if "picv" in comparison.runs else None
        if bound is not None:
            ax.axvline(bound / MS, color=color, linestyle=":", linewidth=1)
    ax.set_xlabel("response time (ms); dotted: analytical bound with PI-CV")
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"{comparison.taskset.name}: response-time CDF with and without PI-CV")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)


def _run_variants(tasksets: dict[str, TaskSet], options: RunOptions, picv: dict[str, bool]) -> Comparison:
    """Run each variant's task set into OUT/<variant>/, in order; stop after an interrupted run."""
    first = next(iter(tasksets.values()))
    out_dir = Path(options.out_dir) if options.out_dir is not None else default_out_dir(first)
    runs: dict[str, Result] = {}
    for variant, taskset in tasksets.items():
        run_options = replace(options, picv=picv[variant], out_dir=out_dir / variant)
        runs[variant] = run_taskset(taskset, run_options)
        if runs[variant].interrupted:
            break
    comparison = Comparison(first, out_dir, runs, {}, tuple(tasksets))
    if len(runs) == len(tasksets) and all(r.table is not None for r in runs.values()):
        comparison.files["compare.json"] = out_dir / "compare.json"
        write_text(comparison.files["compare.json"], json.dumps(comparison.as_dict(), indent=2) + "\n")
    return comparison


def compare_picv(taskset: TaskSet, options: RunOptions | None = None) -> Comparison:
    """Run ``taskset`` with PI-CV, then without, into OUT/picv and OUT/no-picv.
    Stops after the first run when it was interrupted. Raises what run_taskset raises."""
    options = options or RunOptions()
    comparison = _run_variants({v: taskset for v in PICV_VARIANTS}, options,
                               {"picv": True, "no-picv": False})
    if "compare.json" in comparison.files and options.plots:
        comparison.files["response-cdf-picv.png"] = comparison.out_dir / "response-cdf-picv.png"
        plot_cdf_comparison(comparison, comparison.files["response-cdf-picv.png"])
    return comparison


def compare_backends(taskset: TaskSet, options: RunOptions | None = None) -> Comparison:
    """Run ``taskset`` under the threads backend, then the ult backend (whatever its file's
    ``platform.backend``), into OUT/threads and OUT/ult, one after the other. Raises
    TaskSetError, before running anything, when either backend refuses the set
    (``rtsched.run.backends.backend_refusals``);
    else what run_taskset raises."""
    options = options or RunOptions()
    refusals = backend_refusals(taskset, options.duration_ns, options.picv)
    if refusals:
        raise TaskSetError(refusals)
    return _run_variants(backend_variants(taskset), options, {b: options.picv for b in BACKEND_VARIANTS})

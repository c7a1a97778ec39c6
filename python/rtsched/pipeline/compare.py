"""Results of one task set side by side: the one comparison over labelled results.

    from rtsched.pipeline.compare import compare, produce_in_turn
    results = produce_in_turn([("picv", lambda done: run_taskset(taskset, on)),
                               ("no-picv", lambda done: run_taskset(taskset, off))])
    comparison = compare(results)
    comparison.rows()          # per task and label: jobs, misses, mean, p90, p99, max, bound
    compare(results, jobs=JobTolerance(100_000, 0.05)).jobs   # the second's jobs beside the first's

Every comparison of ``rtsched run`` is this one function over results, whatever produced them:
PI-CV on and off, the two backends, a run and its simulation (``rtsched.pipeline.comparisons``
runs them). Another producer of the same set (rt-app, say) is one more labelled result. The
comparison is a function of the results (``Comparison.rows``, ``Comparison.jobs``), never of
their summaries rewritten; what it writes is the caller's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtsched.model import TaskSet
from rtsched.pipeline.result import Result
from rtsched.report.compare_sim import SimComparison, compare_with_sim
from rtsched.run.backends import BACKEND_VARIANTS

__all__ = ["PAPER_TABLE_II", "PICV_VARIANTS", "Comparison", "JobTolerance", "Step", "compare", "produce_in_turn"]

#: Seed 004 (Cucinotta et al.) Table II, response times in ms, for the set
#: named "picv-rpc" (examples/picv-rpc.yaml): label -> task -> (mean, p90, max).
PAPER_TABLE_II: dict[str, dict[str, dict[str, tuple[float, float, float]]]] = {
    "picv-rpc": {
        "picv": {"Client1": (15.379, 18.913, 18.995), "Client2": (22.816, 28.938, 28.996)},
        "no-picv": {"Client1": (25.776, 33.71, 33.76), "Client2": (33.587, 38.489, 38.55)},
    }
}

PICV_VARIANTS: tuple[str, ...] = ("picv", "no-picv")
#: compare.json's format per kind of comparison (by its labels).
FORMATS: dict[tuple[str, ...], str] = {PICV_VARIANTS: "rtsched-picv-compare/1", BACKEND_VARIANTS: "rtsched-backend-compare/1"}

#: One result of a comparison: its label, and how it is produced from the results before it.
Step = tuple[str, Callable[[Mapping[str, Result]], Result]]


@dataclass(frozen=True)
class JobTolerance:
    """How far a job's response may be from its reference's before it diverges:
    max(``ns``, ``share`` × the reference's)."""

    ns: int
    share: float


@dataclass
class Comparison:
    taskset: TaskSet
    out_dir: Path                    # where the comparison's own files go
    runs: dict[str, Result]          # by label, in the order they were produced
    labels: tuple[str, ...]          # every label planned (``runs`` stops after an interrupted one)
    jobs: SimComparison | None = None  # the first result's jobs beside the second's, when asked
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def interrupted(self) -> bool:
        return any(r.interrupted for r in self.runs.values())

    def paper(self) -> dict[str, dict[str, tuple[float, float, float]]] | None:
        """The published figures of this set under these labels (seed 004's, for picv-rpc)."""
        published = PAPER_TABLE_II.get(self.taskset.name)
        return published if published is not None and set(published) == set(self.labels) else None

    def rows(self) -> list[dict[str, Any]]:
        """Per task (set order) and label: its figures (ns), beside its own bound (none for a run
        without PI-CV: the RPC bounds assume it) and the paper's (ms) when known."""
        paper = self.paper() or {}
        out = []
        for task in self.taskset.rt_tasks:
            for label in self.labels:
                run = self.runs.get(label)
                stats = next((s for s in run.stats if s.task == task.name), None) if run else None
                out.append(
                    {
                        "task": task.name,
                        "variant": label,
                        "jobs": stats.jobs if stats else 0,
                        "deadline_misses": stats.deadline_misses if stats else 0,
                        "mean_ns": stats.response_mean_ns if stats else None,
                        "p90_ns": stats.response_p90_ns if stats else None,
                        "p99_ns": stats.response_p99_ns if stats else None,
                        "max_ns": stats.response_max_ns if stats else None,
                        "release_latency_median_ns": stats.release_latency_median_ns if stats else None,
                        "release_latency_p99_ns": stats.release_latency_p99_ns if stats else None,
                        "release_latency_max_ns": stats.release_latency_max_ns if stats else None,
                        "bound_ns": stats.bound_ns if stats else None,
                        "bound_exceeded": bool(stats and stats.bound_exceeded),
                        "paper_ms": paper.get(label, {}).get(task.name),
                    }
                )
        return out

    def as_dict(self) -> dict[str, Any]:
        """compare.json: the rows, each result's folder, the comparison's files."""
        return {
            "format": FORMATS.get(self.labels, "rtsched-compare/1"),
            "name": self.taskset.name,
            "duration_ns": next(iter(self.runs.values())).summary.get("duration_ns") if self.runs else None,
            "rows": self.rows(),
            "paper": "seed 004 Table II" if self.paper() else None,
            "runs": {v: str(r.out_dir) for v, r in self.runs.items()},
            "files": {k: str(v) for k, v in sorted(self.files.items())},
        }


def produce_in_turn(steps: Sequence[Step]) -> dict[str, Result]:
    """Each step's result by its label, in order, each step given the results before it;
    stops after an interrupted one. Raises what a step raises."""
    done: dict[str, Result] = {}
    for label, produce in steps:
        done[label] = produce(done)
        if done[label].interrupted:
            break
    return done


def compare(results: Mapping[str, Result], *, labels: Sequence[str] | None = None,
            out_dir: Path | None = None, jobs: JobTolerance | None = None) -> Comparison:
    """The comparison of ``results`` (by label, in order; ``labels``: every one planned, by
    default theirs), its files to go in ``out_dir`` (by default the first's parent). ``jobs``:
    join the first result's jobs with the second's (the reference) job by job, explaining the
    jobs slower than their reference from the first's kernel schedule."""
    first, *others = results.values()
    pairs = None
    if jobs is not None:
        assert first.report is not None and others and others[0].report is not None, "two reported results"
        pairs = compare_with_sim(first.report, others[0].report, kernel=first.kernel, steal=first.steal_samples,
                                 tolerance_ns=jobs.ns, tolerance_share=jobs.share)
    return Comparison(first.taskset, out_dir if out_dir is not None else first.out_dir.parent, dict(results),
                      tuple(labels if labels is not None else results), pairs)

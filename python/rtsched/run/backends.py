"""The two backends one set is run under by ``rtsched run --compare-backends`` (docs/ult.md),
and why a set cannot run under one of them, told before anything runs. The comparison of
the two runs is the pipeline's (``rtsched.pipeline.comparisons``)."""

from __future__ import annotations

from dataclasses import replace

from rtsched.model import TaskSet, TaskSetError, to_runner_input
from rtsched.model.validate import whole_set_problems
from rtsched.run.producer import DEFAULT_DURATION_NS

__all__ = ["BACKEND_VARIANTS", "backend_refusals", "backend_variants"]

BACKEND_VARIANTS: tuple[str, ...] = ("threads", "ult")


def backend_variants(taskset: TaskSet) -> dict[str, TaskSet]:
    """``taskset`` under each backend, whatever its file's ``platform.backend``."""
    return {b: replace(taskset, platform=replace(taskset.platform, backend=b)) for b in BACKEND_VARIANTS}


def backend_refusals(taskset: TaskSet, duration_ns: int | None = None, picv: bool = True) -> list[str]:
    """Why ``taskset`` cannot run under one of the two backends, each reason naming the
    feature and the backend (empty: it runs under both). Each variant is checked as its own
    file would be (validation: what ult lacks, what only ult runs), then resolved for this
    machine as the run would resolve it (e.g. G-EDF on part of the CPUs under threads)."""
    reasons: list[str] = []
    for backend, variant in backend_variants(taskset).items():
        found = [f"{path}: {message}" for path, message in whole_set_problems(variant)]
        if not found:
            try:
                to_runner_input(variant, "trace.rtst", duration_ns=duration_ns or variant.duration_ns
                                or DEFAULT_DURATION_NS, picv=picv)
            except TaskSetError as e:
                found = list(e.errors)  # each already "path: message"
        reasons += [f"{problem} (refused under the {backend} backend, which --compare-backends runs the set "
                    "under too)" for problem in found]
    return reasons

"""The tidy rows of a sweep: one per set x test, computed a chunk at a time.

A :class:`Chunk` is samples ``[start, stop)`` of grid point ``point``; the
unit of work that a process or a Dask worker runs (:func:`compute_chunk`) and
of the files written (one Parquet part per chunk). Its rows come in the
canonical order: by sample, then by the experiment's order of tests; reading
the parts by (point, start) gives the whole sweep in that order whatever the
chunking was.

Columns (:func:`schema`): ``point``, ``sample``, ``set_seed``, every generator
parameter (docs/sweep.md), ``set_utilization`` (the set's own, after WCETs are
rounded up to whole ns; a correctly rounded float sum), ``test`` (the test's label), ``test_name``,
``verdict``, ``schedulable``, ``label`` (``exact``, ``sufficient`` or
``necessary``; empty when no test ran), and per task ``task_names``,
``bounds_ns`` (null: no bound), ``blocking_ns``. A test's reason in words is
not stored (a few tests word it in an order that depends on Python's hash
seed, which would break byte-identical rows): :func:`rtsched.sweep.sets.regenerate`
gives the set back to ask the test again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from rtsched.analysis.registry import run_test
from rtsched.sweep.experiment import PARAMS, Experiment, TestSpec
from rtsched.sweep.sets import GenerationError, generate_set, set_seed

__all__ = ["AnalysisFailed", "Chunk", "chunks_of", "compute_chunk", "schema"]

_ARROW_KIND = {"int": pa.int64(), "float": pa.float64(), "str": pa.string()}


class AnalysisFailed(RuntimeError):
    """A test raised on a set: the sweep stops, naming the grid point, the sample and the test."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """Samples [start, stop) of grid point ``point`` (its index in ``Experiment.points()``)."""

    point: int
    start: int
    stop: int

    @property
    def sets(self) -> int:
        return self.stop - self.start


def schema() -> pa.Schema:
    return pa.schema(
        [("point", pa.int32()), ("sample", pa.int32()), ("set_seed", pa.int64())]
        + [(name, _ARROW_KIND[p.kind]) for name, p in PARAMS.items()]
        + [("set_utilization", pa.float64()), ("test", pa.string()), ("test_name", pa.string()),
           ("verdict", pa.string()), ("schedulable", pa.bool_()), ("label", pa.string()),
           ("task_names", pa.list_(pa.string())), ("bounds_ns", pa.list_(pa.int64())),
           ("blocking_ns", pa.list_(pa.int64()))])


def chunks_of(point: int, samples: range, chunk_sets: int) -> list[Chunk]:
    """``samples`` (a contiguous range) of ``point`` cut into chunks of at most ``chunk_sets``."""
    return [Chunk(point, s, min(s + chunk_sets, samples.stop)) for s in range(samples.start, samples.stop, chunk_sets)]


def _run(test: TestSpec, problem: Any) -> Any:
    options: dict[str, Any] = dict(test.options)
    if test.overheads is not None:
        options["overheads"] = test.overheads
    return run_test(test.name, problem, **options)


def _named(point: dict[str, Any], experiment: Experiment) -> str:
    return ", ".join(f"{k}={point[k]}" for k in experiment.grid_keys)


def compute_chunk(experiment: Experiment, chunk: Chunk) -> pa.Table:
    """Generate the chunk's sets, run every test on each: its rows, in the canonical order."""
    point = experiment.point(chunk.point)
    columns: dict[str, list[Any]] = {name: [] for name in schema().names}
    for sample in range(chunk.start, chunk.stop):
        seed = set_seed(experiment.seed, point, sample)
        try:
            generated = generate_set(point, seed)
        except GenerationError as error:
            raise GenerationError(f"grid point {chunk.point} ({_named(point, experiment)}), sample {sample}: "
                                  f"{error}") from None
        utilization = math.fsum(t.wcet_ns / t.period_ns for t in generated.problem.tasks)  # Fractions: slow
        for test in experiment.tests:
            if generated.unplaced:
                verdict, label, names, bounds, blocking = "not partitioned", "", [], [], []
            else:
                try:
                    result = _run(test, generated.problem)
                except Exception as error:  # any failure of a test: named, with what regenerates the set
                    raise AnalysisFailed(f"grid point {chunk.point} ({_named(point, experiment)}), sample {sample}, "
                                         f"test {test.label}: {type(error).__name__}: {error}") from error
                verdict, label = result.verdict, result.label
                names = [t.name for t in result.tasks]
                bounds = [t.bound_ns for t in result.tasks]
                blocking = [t.blocking_ns for t in result.tasks]
            row = {"point": chunk.point, "sample": sample, "set_seed": seed, **point,
                   "set_utilization": utilization, "test": test.label, "test_name": test.name,
                   "verdict": verdict, "schedulable": verdict == "schedulable", "label": label,
                   "task_names": names, "bounds_ns": bounds, "blocking_ns": blocking}
            for name, values in columns.items():
                values.append(row[name])
    return pa.table(columns, schema=schema())

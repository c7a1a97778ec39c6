"""Running a sweep: the missing chunks, computed in parallel, each written as it arrives.

Two executors, one loop (:func:`run_sweep`):

- local (default): a ``concurrent.futures.ProcessPoolExecutor`` over
  ``workers`` processes (default: every CPU);
- Dask (``dask_address``): a ``dask.distributed.Client`` on that scheduler,
  or on a ``LocalCluster`` of ``workers`` one-thread processes for ``"local"``;
  the experiment is scattered once, the chunks go out with ``client.map`` and
  come back with ``as_completed``. Dask is optional (``pip install .[dask]``).

Either way a worker computes a chunk's rows and returns them; only this
process writes (one part per chunk, atomically; see ``store``), so a worker
needs no access to the results folder and a remote cluster works as a local
one. Chunks should take long enough (default 1,000 sets, about a second)
that the executor's cost per task is small beside the work.
"""

from __future__ import annotations

import importlib
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)

from rtsched.cpus import allowed_cpus
from rtsched.sweep.experiment import Experiment
from rtsched.sweep.rows import Chunk, compute_chunk
from rtsched.sweep.store import ResultsDir, SweepError

__all__ = ["DEFAULT_CHUNK_SETS", "SweepSummary", "run_sweep"]

DEFAULT_CHUNK_SETS = 1000
DASK_MISSING = "--dask needs the optional packages dask and distributed: pip install .[dask] (or 'rtsched[dask]')"


@dataclass(frozen=True, slots=True)
class SweepSummary:
    """What one run did: sets in the experiment, found already written, computed now."""

    sets_total: int
    sets_found: int
    sets_computed: int
    wall_s: float
    executor: str
    workers: int
    chunks: int

    @property
    def sets_per_s(self) -> float:
        return self.sets_computed / self.wall_s if self.wall_s > 0 else 0.0


def _ignore_interrupts() -> None:
    """In a worker: Ctrl-C is for the parent, which stops the pool (a worker would carry on past it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _local(experiment: Experiment, chunks: list[Chunk], workers: int) -> Iterator[tuple[Chunk, pa.Table]]:
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_interrupts)
    try:
        futures = {pool.submit(compute_chunk, experiment, chunk): chunk for chunk in chunks}
        for future in as_completed(futures):
            yield futures.pop(future), future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _dask_distributed() -> Any:
    """``dask.distributed``, typed as Any (optional: mypy must see the same with or without it)."""
    try:
        return importlib.import_module("dask.distributed")
    except ImportError:
        raise SweepError(DASK_MISSING) from None


def _dask(experiment: Experiment, chunks: list[Chunk], address: str, workers: int) -> Iterator[tuple[Chunk, pa.Table]]:
    distributed = _dask_distributed()
    cluster = None
    if address == "local":
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        client = distributed.Client(cluster)
    else:
        client = distributed.Client(address)
    try:
        shared = client.scatter(experiment, broadcast=True)
        keys = [f"rtsched-sweep-{experiment.sha256[:12]}-p{c.point}-s{c.start}-{c.stop}" for c in chunks]
        futures = client.map(compute_chunk, [shared] * len(chunks), chunks, key=keys)
        chunk_of = dict(zip(keys, chunks))
        for future in distributed.as_completed(futures):
            table = future.result()
            yield chunk_of[future.key], table
            future.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _progress(console: Console) -> Progress:
    return Progress(TextColumn("[bold]sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("sets"),
                    TaskProgressColumn(), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                    TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=False)


def run_sweep(experiment: Experiment, output: str | Path, *, workers: int | None = None,
              chunk_sets: int = DEFAULT_CHUNK_SETS, dask_address: str | None = None,
              progress: bool = True, console: Console | None = None) -> SweepSummary:
    """Compute and write every set x test not yet in ``output`` (resuming what a previous run left)."""
    if chunk_sets < 1:
        raise ValueError(f"chunk_sets must be >= 1, not {chunk_sets}")
    workers = workers or len(allowed_cpus())  # a worker per CPU this process may use
    if dask_address is not None:
        _dask_distributed()  # before anything is written
    results = ResultsDir.open(output, experiment)
    chunks = results.missing(chunk_sets)
    todo = sum(c.sets for c in chunks)
    executor = "local" if dask_address is None else f"dask {dask_address}"
    started = time.time()
    t0 = time.perf_counter()
    computed = 0
    stream: Iterator[tuple[Chunk, pa.Table]] = iter(())
    if chunks:
        stream = (_local(experiment, chunks, workers) if dask_address is None
                  else _dask(experiment, chunks, dask_address, workers))
    bar = _progress(console or Console(stderr=True))
    bar.disable = not progress
    try:
        with bar:
            task = bar.add_task("sweep", total=todo, rate="")
            for chunk, table in stream:
                results.write_part(chunk, table)
                computed += chunk.sets
                elapsed = time.perf_counter() - t0
                bar.update(task, advance=chunk.sets, rate=f"{computed / elapsed:,.0f} sets/s")
    finally:
        close: Any = getattr(stream, "close", None)  # stops the executor (pending chunks cancelled)
        if close is not None:
            close()
        wall = time.perf_counter() - t0
        computed = todo - sum(c.sets for c in results.missing(chunk_sets))  # exact, wherever an interrupt fell
        results.record_run({"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
                            "executor": executor, "workers": workers, "chunk_sets": chunk_sets,
                            "sets_to_compute": todo, "sets_computed": computed, "wall_s": round(wall, 3),
                            "completed": computed == todo})
    return SweepSummary(experiment.total_sets, experiment.total_sets - todo, computed, wall, executor, workers,
                        len(chunks))

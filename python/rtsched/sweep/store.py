"""A sweep's results folder: the experiment, its provenance, and the rows as Parquet parts.

    OUT/experiment.yaml       the experiment file as it was run (byte for byte)
    OUT/provenance.json       rtsched version, seed, the file's SHA-256, machine, every run
    OUT/parts/p{point}-s{start}-{stop}.parquet   the rows of one chunk

Invariants: a part is complete or absent (written under a temporary name,
then renamed: a rename is atomic on one file system, so a killed sweep leaves
no half part, only a temporary file that the next run deletes); parts never
overlap (their names give what they cover, and :meth:`ResultsDir.missing`
hands out only uncovered samples); a folder holds one experiment (a run of a
changed file is refused). Together: a resumed sweep ends with every row once.
The folder is a Parquet dataset (``pyarrow.dataset.dataset(OUT / "parts")``,
``pandas.read_parquet``); :func:`read_results` reads it in canonical order.
"""

from __future__ import annotations

import json
import os
import platform
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rtsched import __version__
from rtsched.outputs import partial, write_text
from rtsched.sweep.experiment import Experiment
from rtsched.sweep.rows import Chunk, chunks_of, schema

__all__ = ["ResultsDir", "SweepError", "read_results"]

_PART = re.compile(r"p(\d+)-s(\d+)-(\d+)\.parquet")


class SweepError(Exception):
    """A results folder that cannot be used (another experiment's, damaged)."""


def _part_name(chunk: Chunk) -> str:
    return f"p{chunk.point:06d}-s{chunk.start:010d}-{chunk.stop:010d}.parquet"


def _write_json_atomic(path: Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=1) + "\n")


def _parts(parts_dir: Path) -> list[Chunk]:
    """The chunks written, sorted by (point, start); SweepError when two overlap."""
    found = []
    for path in parts_dir.glob("p*.parquet"):
        match = _PART.fullmatch(path.name)
        if match:
            found.append(Chunk(*(int(g) for g in match.groups())))
    found.sort(key=lambda c: (c.point, c.start))
    for a, b in zip(found, found[1:]):
        if a.point == b.point and b.start < a.stop:
            raise SweepError(f"{parts_dir}: parts {_part_name(a)} and {_part_name(b)} overlap")
    return found


@dataclass(frozen=True)
class ResultsDir:
    """The results folder of one experiment (made, or checked to be that experiment's, by :meth:`open`)."""

    path: Path
    experiment: Experiment

    @property
    def parts_dir(self) -> Path:
        return self.path / "parts"

    @classmethod
    def open(cls, path: str | Path, experiment: Experiment) -> "ResultsDir":
        path = Path(path)
        provenance = path / "provenance.json"
        if provenance.exists():
            recorded = json.loads(provenance.read_text())["experiment"]["sha256"]
            if recorded != experiment.sha256:
                raise SweepError(f"{path} holds the results of another experiment file (SHA-256 {recorded[:12]}..., "
                                 f"this one {experiment.sha256[:12]}...): give another --output, or delete it")
        elif path.exists() and any(path.iterdir()):
            raise SweepError(f"{path} exists and is not a sweep's results folder (no provenance.json)")
        (path / "parts").mkdir(parents=True, exist_ok=True)
        for folder in (path, path / "parts"):  # what a killed run was writing (rtsched.outputs)
            for stale in folder.glob(".*.partial-*"):
                stale.unlink()
        if not provenance.exists():
            write_text((path / "experiment.yaml"), experiment.text)
            _write_json_atomic(provenance, _provenance(experiment))
        return cls(path, experiment)

    def missing(self, chunk_sets: int) -> list[Chunk]:
        """The chunks still to compute: every uncovered range of samples, cut into chunks of ``chunk_sets``."""
        done: dict[int, list[Chunk]] = {}
        for part in _parts(self.parts_dir):
            done.setdefault(part.point, []).append(part)
        todo = []
        for point in range(len(self.experiment.points())):
            cursor = 0
            for part in done.get(point, []) + [Chunk(point, self.experiment.samples, self.experiment.samples)]:
                if part.start > cursor:
                    todo.extend(chunks_of(point, range(cursor, part.start), chunk_sets))
                cursor = max(cursor, part.stop)
        return todo

    def write_part(self, chunk: Chunk, table: pa.Table) -> None:
        """Write a chunk's rows atomically (temporary file, then rename)."""
        with partial(self.parts_dir / _part_name(chunk)) as tmp:
            pq.write_table(table, tmp, compression="zstd")

    def record_run(self, run: dict[str, Any]) -> None:
        """Append one run (executor, workers, sets computed, time) to the provenance."""
        provenance_path = self.path / "provenance.json"
        provenance = json.loads(provenance_path.read_text())
        provenance["runs"].append(run)
        _write_json_atomic(provenance_path, provenance)


def _provenance(experiment: Experiment) -> dict[str, Any]:
    return {
        "rtsched_version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "experiment": {"file": experiment.source, "sha256": experiment.sha256, "name": experiment.name,
                       "seed": experiment.seed, "samples_per_point": experiment.samples,
                       "points": len(experiment.points()), "sets": experiment.total_sets,
                       "tests": [t.label for t in experiment.tests],
                       "overhead_files": sorted({t.overheads_file for t in experiment.tests if t.overheads_file})},
        "machine": {"hostname": socket.gethostname(), "platform": platform.platform(),
                    "python": platform.python_version(), "cpus": os.cpu_count(), "pyarrow": pa.__version__},
        "runs": [],
    }


def read_results(path: str | Path) -> pa.Table:
    """Every row of a results folder, in canonical order (point, sample, test)."""
    parts_dir = Path(path) / "parts"
    if not parts_dir.is_dir():
        raise SweepError(f"{path}: not a sweep's results folder (no parts/)")
    tables = [pq.read_table(parts_dir / _part_name(c), schema=schema()) for c in _parts(parts_dir)]
    return pa.concat_tables(tables) if tables else schema().empty_table()

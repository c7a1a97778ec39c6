"""Every example experiment is a valid file whose first and last grid points run."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtsched.sweep import load_experiment
from rtsched.sweep.rows import Chunk, compute_chunk

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples" / "sweeps").glob("*.yaml"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_an_example_loads_and_its_extreme_points_run(path):
    experiment = load_experiment(path)
    last = len(experiment.points()) - 1
    for point in (0, last):
        rows = compute_chunk(experiment, Chunk(point, 0, 2))
        assert rows.num_rows == 2 * len(experiment.tests)
        assert set(rows.column("verdict").to_pylist()) <= {"schedulable", "not schedulable", "not partitioned"}

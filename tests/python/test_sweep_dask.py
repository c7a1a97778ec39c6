"""The Dask path: a local dask.distributed cluster gives the rows of the local executor, byte for byte.

Skipped only when dask/distributed are not installed (scripts/setup installs the
``dask`` extra, so CI runs it)."""

from __future__ import annotations

import pytest

pytest.importorskip("dask.distributed")

from rtsched.cli.main import main  # noqa: E402
from rtsched.sweep import load_experiment, read_results, run_sweep  # noqa: E402
from sweep_helpers import table_bytes, write  # noqa: E402

SWEEP = """\
seed: 5
samples: 25
generator: {tasks: 8, resources: 2, cs_max_us: 500}
grid:
  utilization: [0.5, 0.8]
  protocol: [pcp, pip]
tests: [fp-rta, fp-ll]
"""


def test_a_local_dask_cluster_gives_the_local_rows_byte_for_byte(tmp_path, capsys):
    experiment = load_experiment(write(tmp_path, SWEEP))
    run_sweep(experiment, tmp_path / "local", workers=2, chunk_sets=10, progress=False)
    assert main(["sweep", str(tmp_path / "exp.yaml"), "-o", str(tmp_path / "dask"), "--dask", "local", "-j", "2",
                 "--chunk-sets", "7", "-q"]) == 0
    assert "dask local, 2 worker(s)" in capsys.readouterr().out
    local, dask = read_results(tmp_path / "local"), read_results(tmp_path / "dask")
    assert dask.num_rows == 4 * 25 * 2
    assert table_bytes(dask) == table_bytes(local)

"""Running sweeps: identical rows whatever the chunking and workers, resume after a kill, known curves."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.compute as pc
import pytest

from rtsched.analysis import run_test
from rtsched.cli.main import main
from rtsched.sweep import SweepError, load_experiment, read_results, regenerate, run_sweep
from rtsched.sweep.curves import wilson_interval
from sweep_helpers import LL_SWEEP, table_bytes, write

RESOURCE_SWEEP = """\
seed: 3
samples: 30
generator: {tasks: 6, utilization: 0.6, resources: 2, p_access: 0.5, cs_min_us: 10, cs_max_us: 2000}
grid:
  protocol: [pcp, srp]
  period_max_ms: [100, 1000]
tests: [fp-rta, {name: fp-rta-np, label: np}]
"""


def test_rows_are_identical_run_twice_in_other_chunkings_and_workers(tmp_path):
    experiment = load_experiment(write(tmp_path, RESOURCE_SWEEP))
    runs = [("a", 2, 7), ("b", 2, 7), ("c", 1, 30), ("d", 2, 1)]
    digests = []
    for name, workers, chunk in runs:
        summary = run_sweep(experiment, tmp_path / name, workers=workers, chunk_sets=chunk, progress=False)
        assert summary.sets_computed == 4 * 30
        digests.append(table_bytes(read_results(tmp_path / name)))
    assert len(set(digests)) == 1
    rows = read_results(tmp_path / "a")
    assert rows.num_rows == 4 * 30 * 2
    assert rows.column("test").to_pylist()[:4] == ["fp-rta", "np", "fp-rta", "np"]
    assert sorted(set(rows.column("protocol").to_pylist())) == ["pcp", "srp"]
    assert any(b for bs in rows.column("blocking_ns").to_pylist() for b in bs)  # sections were generated


def test_a_row_is_regenerated_alone(tmp_path):
    experiment = load_experiment(write(tmp_path, RESOURCE_SWEEP))
    run_sweep(experiment, tmp_path / "out", workers=1, chunk_sets=30, progress=False)
    row = read_results(tmp_path / "out").filter(pc.equal(pc.field("sample"), 17)).to_pylist()[4]
    point = experiment.points()[row["point"]]
    result = run_test("fp-rta", regenerate(experiment.seed, point, row["sample"]).problem)
    assert (row["test"], row["verdict"]) == ("fp-rta", result.verdict)
    assert row["bounds_ns"] == [t.bound_ns for t in result.tasks]


def _signal_midway(file: Path, out: Path, sig: int) -> int:
    """Start the command in a session of its own, send ``sig`` to it and its workers once 3 parts exist."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-m", "rtsched.cli.main", "sweep", str(file), "-o", str(out),
                             "--chunk-sets", "3", "-j", "2", "-q"], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while len(list((out / "parts").glob("p*.parquet"))) < 3:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the sweep wrote nothing in 60 s"
        time.sleep(0.01)
    os.killpg(proc.pid, sig)
    return proc.wait(timeout=60)


def test_a_sweep_killed_midway_resumes_with_no_duplicate_and_no_missing_row(tmp_path):
    text = RESOURCE_SWEEP.replace("samples: 30", "samples: 300")
    file = write(tmp_path, text)
    experiment = load_experiment(file)
    # the command and its workers, as an OOM killer or a lost node would
    assert _signal_midway(file, tmp_path / "killed", signal.SIGKILL) == -signal.SIGKILL
    written = len(list((tmp_path / "killed" / "parts").glob("p*.parquet")))
    assert 3 <= written < 4 * 100, "the sweep ended before it was killed: make it longer"
    (tmp_path / "killed" / "parts" / ".p000000-s0000000000-0000000003.partial-999.parquet").write_bytes(b"half")
    (tmp_path / "killed" / ".provenance.partial-999.json").write_bytes(b"")
    summary = run_sweep(experiment, tmp_path / "killed", workers=2, chunk_sets=50, progress=False)
    assert summary.sets_found >= 9 and summary.sets_found + summary.sets_computed == 4 * 300
    resumed = read_results(tmp_path / "killed")
    keys = list(zip(*(resumed.column(k).to_pylist() for k in ("point", "sample", "test"))))
    assert len(keys) == len(set(keys)) == 4 * 300 * 2
    run_sweep(experiment, tmp_path / "whole", workers=2, chunk_sets=100, progress=False)
    assert table_bytes(resumed) == table_bytes(read_results(tmp_path / "whole"))
    assert not list((tmp_path / "killed" / "parts").glob(".*.partial-*"))
    assert not list((tmp_path / "killed").glob(".*.partial-*"))
    again = run_sweep(experiment, tmp_path / "killed", progress=False)
    assert (again.sets_computed, again.chunks) == (0, 0)


def test_ctrl_c_stops_the_workers_keeps_the_parts_and_records_the_run(tmp_path):
    file = write(tmp_path, RESOURCE_SWEEP.replace("samples: 30", "samples: 300"))
    assert _signal_midway(file, tmp_path / "out", signal.SIGINT) == 130  # SIGINT to the whole group, as a terminal
    [run] = json.loads((tmp_path / "out" / "provenance.json").read_text())["runs"]
    assert not run["completed"] and 9 <= run["sets_computed"] < run["sets_to_compute"] == 1200
    summary = run_sweep(load_experiment(file), tmp_path / "out", workers=2, progress=False)
    assert summary.sets_found == run["sets_computed"] and summary.sets_found + summary.sets_computed == 1200


def test_a_folder_of_another_experiment_is_refused(tmp_path):
    run_sweep(load_experiment(write(tmp_path, LL_SWEEP)), tmp_path / "out", workers=1, progress=False)
    changed = load_experiment(write(tmp_path, LL_SWEEP.replace("seed: 11", "seed: 12"), "other.yaml"))
    with pytest.raises(SweepError, match="holds the results of another experiment file"):
        run_sweep(changed, tmp_path / "out", progress=False)


def test_dask_missing_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails as if not installed
    experiment = load_experiment(write(tmp_path, LL_SWEEP))
    with pytest.raises(SweepError, match=r"pip install \.\[dask\]"):
        run_sweep(experiment, tmp_path / "out", dask_address="local", progress=False)
    assert not (tmp_path / "out").exists()


def test_wilson_interval_known_values():
    assert wilson_interval(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    assert wilson_interval(5, 10) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert wilson_interval(40, 40)[1] == 1.0


def test_known_curves_every_set_under_the_liu_layland_bound_is_schedulable(tmp_path, capsys):
    file = write(tmp_path, LL_SWEEP)
    assert main(["sweep", str(file), "-o", str(tmp_path / "out"), "-q"]) == 0
    rows = read_results(tmp_path / "out")
    ll_bound = 4 * (2 ** (1 / 4) - 1)
    under = rows.filter(pc.less_equal(rows["set_utilization"], ll_bound))
    assert under.num_rows == 3 * 40 * 2  # the points 0.3, 0.5, 0.7 (WCETs rounded up by less than 1e-4)
    assert all(under.column("schedulable").to_pylist())

    capsys.readouterr()
    assert main(["sweep", "plot", str(tmp_path / "out"), "-o", str(tmp_path / "c.svg"), "--json"]) == 0
    table = {(p["test"], p["utilization"]): (p["sets"], p["value"]) for p in json.loads(capsys.readouterr().out)}
    for test in ("fp-ll", "fp-rta"):
        assert [table[test, u] for u in (0.3, 0.5, 0.7)] == [(40, 1.0)] * 3
        assert table[test, 1.2] == (40, 0.0)  # U > 1: never schedulable
    assert (tmp_path / "c.svg").read_text().lstrip().startswith("<?xml")

    assert main(["sweep", "plot", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert (tmp_path / "out" / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert printed.count("fp-rta") == 4 and "[0.912, 1.000]" in printed  # Wilson for 40 of 40
    assert main(["sweep", "plot", str(tmp_path / "out"), "-x", "tasks"]) == 2


def test_the_command_needs_pyarrow_only_when_sweep_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed
    assert main(["sweep", str(write(tmp_path, LL_SWEEP))]) == 1
    assert "needs pyarrow" in capsys.readouterr().err


def test_the_default_chunk_size_is_the_packages():
    from rtsched.cli import sweep as command
    from rtsched.sweep import DEFAULT_CHUNK_SETS
    assert command.DEFAULT_CHUNK_SETS == DEFAULT_CHUNK_SETS


def test_a_test_that_raises_stops_the_sweep_naming_point_sample_and_test(tmp_path, capsys):
    text = LL_SWEEP.replace("[fp-ll, fp-rta]", "[fp-ll, {name: fp-rta, options: {colour: blue}}]")
    assert main(["sweep", str(write(tmp_path, text)), "-o", str(tmp_path / "out"), "-q", "-j", "1"]) == 1
    err = capsys.readouterr().err
    assert "grid point 0 (utilization=0.3), sample 0, test fp-rta: TypeError:" in err and "colour" in err

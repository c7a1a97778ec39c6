"""`rtsched io FILE`: exit codes, the JSON summary, the files it writes."""

from __future__ import annotations

import json
from pathlib import Path

from rtsched.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_io_reports_both_runs_and_the_bounds(tmp_path, capsys):
    code = main(["io", str(EXAMPLES / "io/table-4-1.yaml"), "--out", str(tmp_path), "--json", "--fail-on-miss"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    engine = summary["flows"][0]
    assert engine["flow"] == "engine-0" and engine["unscheduled"]["misses"] >= 1
    assert engine["scheduled"]["misses"] == 0 and engine["bound"]["response_ns"] == 3_800_000
    assert {p.name for p in tmp_path.iterdir()} == {"summary.json", "bus-unscheduled.png", "bus-scheduled.png"}


def test_io_refuses_an_invalid_file_with_its_errors(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nmemory_bandwidth: 1GB\nperipherals: []\nflows: []\n")
    assert main(["io", str(bad), "--out", str(tmp_path / "out"), "--no-plots"]) == 2  # an invalid input
    err = capsys.readouterr().err
    assert "memory_bandwidth: expected a bandwidth such as 250MB/s" in err
    assert "peripherals: expected a non-empty" in err

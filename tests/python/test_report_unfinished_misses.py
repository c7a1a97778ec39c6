"""A deadline that passed is a miss whether or not the job started (issue 36, item 2): a starved
task's jobs are counted from their releases, in the table, the summary and --fail-on-miss, for the
simulator and (test_run_unfinished_misses_live.py) the runner alike."""

from __future__ import annotations

import json

import yaml

from input_fuzz import run_cli
from rtsched.cli.exit_codes import Exit

#: On one CPU a hog of utilization 1 for its first 100 ms starves `low` (T = D = 20 ms) for the
#: whole 100 ms run: low's five jobs are released at 0, 20, ..., 80 ms; the four due by 80 ms miss
#: without ever starting; the fifth (due at 100 ms, the end) is left out as censored.
STARVING_SET = {
    "name": "starving", "duration": "100ms",
    "platform": {"scheduler": "P-FP", "cpus": [1]},
    "tasks": [
        {"name": "hog", "period": "1s", "priority": 90, "partition": "cpu1", "body": [{"compute": "150ms"}]},
        {"name": "low", "period": "20ms", "priority": 10, "partition": "cpu1", "body": [{"compute": "1ms"}]},
    ],
}


def starving_file(tmp_path):
    path = tmp_path / "starving.yaml"
    path.write_text(yaml.safe_dump(STARVING_SET, sort_keys=False))
    return path


def check_starved_summary(summary: dict) -> None:
    low = next(t for t in summary["tasks"] if t["task"] == "low")
    assert low["jobs"] == 0
    assert low["released"] == 5 and low["unfinished_missed"] == 4 and low["censored"] == 1, low
    assert low["deadline_misses"] == 4
    assert low["tardiness_max_ns"] >= 80_000_000 - 1  # job 1: due at 20 ms, not done at 100 ms
    assert summary["deadline_misses"] >= 4 and summary["unfinished_missed_jobs"] >= 4


def test_sim_counts_the_jobs_a_starved_task_never_started(tmp_path):
    out = tmp_path / "out"
    code, err = run_cli(["sim", "--no-plots", "--ideal", "--out", str(out), "--fail-on-miss",
                         str(starving_file(tmp_path))], 60)
    assert code == Exit.FAILED, err
    assert "deadline miss" in err
    check_starved_summary(json.loads((out / "summary.json").read_text()))

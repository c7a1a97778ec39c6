"""Jobs that used more CPU time than their task's WCET are named (issue 31, item 5): in the
summary, the table's notes and, for a job above its bound, its cause; jobs within the WCET are
not. The simulator runs the body (3 ms) where the file declares a WCET of 2 ms."""

from __future__ import annotations

import json

import yaml

from input_fuzz import run_cli
from rtsched.report.cpu_overuse import overuse_tolerance_ns

OVERUSING_SET = {
    "name": "overuse", "duration": "200ms",
    "platform": {"scheduler": "P-FP", "cpus": [1]},
    "tasks": [
        {"name": "short", "period": "20ms", "priority": 90, "partition": "cpu1", "wcet": "2ms",
         "body": [{"compute": "3ms"}]},
        {"name": "fine", "period": "50ms", "priority": 80, "partition": "cpu1", "body": [{"compute": "3ms"}]},
    ],
}


def overusing_file(tmp_path):
    path = tmp_path / "overuse.yaml"
    path.write_text(yaml.safe_dump(OVERUSING_SET, sort_keys=False))
    return path


def check_overuse(summary: dict) -> None:
    over = summary["jobs_over_wcet"]
    assert {o["task"] for o in over} == {"short"}
    short = next(t for t in summary["tasks"] if t["task"] == "short")
    assert len(over) == short["jobs"] >= 9
    assert [o["job"] for o in over] == sorted(o["job"] for o in over)
    for o in over:
        assert o["wcet_ns"] == 2_000_000 and o["cpu_ns"] >= 3_000_000 and o["beyond_ns"] == o["cpu_ns"] - 2_000_000
    causes = [j["cause"] for j in summary["jobs_above_bound"] if j["task"] == "short"]
    assert causes and all("beyond its WCET" in c for c in causes)


def test_the_tolerance_is_a_twentieth_of_the_wcet_and_at_least_50_us():
    assert overuse_tolerance_ns(10_000_000) == 500_000
    assert overuse_tolerance_ns(100_000) == 50_000


def test_sim_names_the_jobs_that_ran_beyond_their_wcet(tmp_path):
    out = tmp_path / "out"
    code, err = run_cli(["sim", "--no-plots", "--ideal", "--out", str(out), str(overusing_file(tmp_path))], 60)
    assert code == 0, err
    check_overuse(json.loads((out / "summary.json").read_text()))

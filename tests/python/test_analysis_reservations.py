"""The reservation analysis (docs/reservations.md): seed 000's S1 as the known answer,
composition through nested hard reservations, soft ones left to the controller, and
`rtsched analyze` on a set with reservations."""

import json
import os
import subprocess
import sys
from pathlib import Path

from rtsched.analysis import bounds_for, from_taskset, run_test
from rtsched.analysis.reservations import analyze_reservations
from rtsched.model import taskset_from_dict

ROOT = Path(__file__).resolve().parents[2]
MS = 1_000_000


def task(name, period, compute, reservation, priority=None):
    t = {"name": name, "period": period, "partition": "cpu0", "reservation": reservation,
         "body": [{"compute": compute}]}
    if priority is not None:
        t["priority"] = priority
    return t


def case_study(s1_budget="39ms"):
    """Seed 000's Table II shape: hard S1 (FP) beside soft S2 (EDF) holding S3."""
    return {
        "name": "adhiersched",
        "platform": {"scheduler": "P-EDF", "backend": "ult", "cpus": [0]},
        "reservations": [
            {"name": "S1", "period": "100ms", "budget": s1_budget, "scheduler": "FP", "partition": "cpu0"},
            {"name": "S2", "period": "10ms", "budget": "6.1ms", "scheduler": "EDF", "criticality": "soft",
             "partition": "cpu0"},
            {"name": "S3", "parent": "S2", "period": "20ms", "budget": "2.67ms", "scheduler": "EDF",
             "importance": 3},
        ],
        "tasks": [
            task("t1", "200ms", "31ms", "S1", 20),
            task("t2", "400ms", "31ms", "S1", 10),
            task("t3", "40ms", "4ms", "S3"),
        ],
    }


def test_seed_000_s1_least_budgets_and_bounds():
    result = analyze_reservations(taskset_from_dict(case_study()))
    s1 = result.outcome("S1")
    # exact sbf: 31 ms; linear bound: Θ² ≥ 1550 ms², 39.37 ms (the paper's "B1 = 39")
    assert s1.min_budget_ns == 31 * MS
    assert s1.min_budget_linear_ns == 39_370_040
    assert not s1.is_minimum and s1.schedulable
    assert result.outcome("S2").result is None  # soft: adapted, not analysed
    # the bounds are the PRM ones of S1's own test
    direct = run_test("prm-fp", from_taskset(taskset_from_dict(case_study())).with_tasks(
        [t for t in from_taskset(taskset_from_dict(case_study())).tasks if t.name in ("t1", "t2")]),
        period_ns=100 * MS, budget_ns=39 * MS)
    assert result.tasks.bound("t1") == direct.bound("t1") == 153 * MS
    assert result.tasks.bound("t2") == direct.bound("t2")
    assert result.tasks.task("t3").verdict == "unknown"
    assert result.schedulable


def test_the_least_budget_is_named_as_such():
    result = analyze_reservations(taskset_from_dict(case_study("31ms")))
    assert result.outcome("S1").is_minimum and result.schedulable
    tight = analyze_reservations(taskset_from_dict(case_study("30ms")))
    assert not tight.outcome("S1").schedulable and not tight.schedulable
    assert tight.tasks.task("t1").verdict == "miss" or tight.tasks.task("t2").verdict == "miss"


def nested(inner_budget):
    """Hard P (FP, 6/10) holding hard Q (EDF, inner_budget/20) and R (FP, 10/100), each with a task."""
    return {
        "name": "nested",
        "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
        "reservations": [
            {"name": "P", "period": "10ms", "budget": "6ms", "scheduler": "FP", "priority": 10,
             "partition": "cpu0"},
            {"name": "Q", "parent": "P", "period": "20ms", "budget": inner_budget, "scheduler": "EDF",
             "priority": 5},
            {"name": "R", "parent": "P", "period": "100ms", "budget": "10ms", "scheduler": "FP", "priority": 4},
        ],
        "tasks": [task("q", "80ms", "4ms", "Q"), task("r", "400ms", "5ms", "R", 3)],
    }


def test_nested_reservations_compose():
    ts = taskset_from_dict(nested("4ms"))
    result = analyze_reservations(ts)
    assert result.outcome("Q").schedulable and result.outcome("R").schedulable
    # P sees Q and R as periodic tasks (Π, Θ): its own PRM test decides them
    p = result.outcome("P")
    assert p.result is not None and {b.name for b in p.result.tasks} == {"Q", "R"}
    assert p.schedulable and result.schedulable
    # Q at 10/20 fits P's bandwidth (0.5 + 0.1 = 0.6) but not its supply: Γ(10, 6) may give only
    # 8 ms in 20 ms (sbf(20) = 20 − 3·4); that breaks every guarantee under P
    big = analyze_reservations(taskset_from_dict(nested("10ms")))
    assert not big.outcome("P").schedulable
    assert big.tasks.task("q").verdict == "miss" and "not guaranteed" in big.tasks.task("q").reason
    assert not big.schedulable


def test_flat_tests_leave_reservation_tasks_alone_and_bounds_for_uses_the_hierarchy():
    ts = taskset_from_dict(case_study())
    assert "reservation analysis" in from_taskset(ts).unanalysable["t1"]
    assert bounds_for(ts).test == "reservations"
    assert bounds_for(ts).bound("t1") == 153 * MS


def test_rtsched_analyze_prints_the_least_budgets(tmp_path):
    path = tmp_path / "set.json"
    path.write_text(json.dumps(case_study()))
    env_path = str(ROOT / "python")
    run = subprocess.run([sys.executable, "-c", "import sys; from rtsched.cli.main import main; sys.exit(main())",
                          "analyze", str(path), "--json"], capture_output=True, text=True,
                         env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin", "RTSCHED_OVERHEADS": os.environ["RTSCHED_OVERHEADS"]})
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    s1 = next(r for r in out["reservations"] if r["name"] == "S1")
    assert (s1["min_budget_ns"], s1["min_budget_linear_ns"], s1["is_minimum"]) == (31 * MS, 39_370_040, False)
    assert out["verdict"] == "schedulable"
    text = subprocess.run([sys.executable, "-c", "import sys; from rtsched.cli.main import main; sys.exit(main())",
                           "analyze", str(path)], capture_output=True, text=True,
                          env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin", "COLUMNS": "200", "RTSCHED_OVERHEADS": os.environ["RTSCHED_OVERHEADS"]})
    assert "least (sbf)" in text.stdout and "schedulable" in text.stdout

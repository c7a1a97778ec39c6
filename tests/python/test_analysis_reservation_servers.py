"""Servers whose rules move what they take (issue 35, classes 6 and 8), analysed and simulated.

Class 6: a CBS that wakes with budget left keeps its deadline when the budget fits before it
(Abeni & Buttazzo's rule, rtsched's ``cbs_update``), so beside a plain EDF task with D < T it
claims up to L·Q/T of a window shorter than its period; the hierarchy analysis counted it as a
sporadic task (Q, T, T). A soft CBS also runs ahead of its bandwidth on an idle CPU, so its own
tasks have no periodic-resource bound. Class 8: an adapted reservation above a hard task was
counted with its first budget while its controller may raise it to ``max_budget``.
Each set here was accepted before the fix with a bound the simulated schedule exceeds."""

import json
import os
import subprocess
import sys
from pathlib import Path

from rtsched.analysis.cbs_demand import edf_beside_cbs
from rtsched.analysis.reservations import analyze_reservations
from rtsched.analysis.tasks import AnalysisTask, CriticalSection
from rtsched.model import taskset_from_dict

from sim_helpers import worst_responses

ROOT = Path(__file__).resolve().parents[2]
US = 1_000
MS = 1_000_000


def _edf(reservations, tasks):
    return {"name": "servers", "platform": {"scheduler": "P-EDF", "backend": "ult", "cpus": [0]},
            "reservations": reservations, "tasks": tasks}


def cbs_wakes_with_budget_left(kind="hard-cbs"):
    """S, a CBS of 2 ms every 4 ms, and a plain task p (2 ms, D = 3 ms). At 0 ``a`` runs 0.6 ms in S
    (deadline 4 ms) and S goes idle with 1.4 ms left; at 1.1 ms ``b`` wakes S: 1.4·4 < (4 − 1.1)·2,
    so S keeps its deadline 4 ms, earlier than p's 4.1 ms, and b runs first: p ends at 4.5 ms, a
    response of 3.4 ms. As the sporadic task (2, 4, 4) S claims nothing of p's 3 ms window."""
    return _edf([{"name": "S", "kind": kind, "period": "4ms", "budget": "2ms", "scheduler": "EDF",
                  "partition": "cpu0"}],
                [{"name": "a", "reservation": "S", "partition": "cpu0", "period": "20ms",
                  "body": [{"compute": "600us"}]},
                 {"name": "b", "reservation": "S", "partition": "cpu0", "period": "20ms", "offset": "1100us",
                  "body": [{"compute": "1400us"}]},
                 {"name": "p", "partition": "cpu0", "period": "20ms", "deadline": "3ms", "offset": "1100us",
                  "body": [{"compute": "2ms"}]}])


def test_a_cbs_that_keeps_its_deadline_on_wake_up_counts_at_its_bandwidth(tmp_path):
    for kind in ("cbs", "hard-cbs"):
        data = cbs_wakes_with_budget_left(kind)
        result = analyze_reservations(taskset_from_dict(data))
        assert not result.schedulable
        assert result.tasks.task("p").verdict == "miss"
        top = dict(result.top)["cpu0"]
        assert top.test == "edf-cbs" and "3500000.0 ns > 3000000 ns" in top.reason
        # the breaking schedule: p responds 3.4 ms, above the 3 ms bound (its deadline) given before
        worst, misses = worst_responses(tmp_path / f"{kind}.rtst", taskset_from_dict(data), 40 * MS)
        assert worst["p"] == 3400 * US > 3 * MS and misses == 2


def test_with_a_deadline_the_cbs_window_leaves_room_for_the_set_is_accepted(tmp_path):
    # p's deadline 4 ms: dbf(4) + 4·2/4 = 4 ≤ 4, and at 8: 2 + 4 ≤ 8; the same schedule meets it
    data = cbs_wakes_with_budget_left()
    data["tasks"][2]["deadline"] = "4ms"
    result = analyze_reservations(taskset_from_dict(data))
    assert result.schedulable and result.tasks.bound("p") == 4 * MS
    assert result.tasks.bound("b") is not None  # a hard CBS's tasks keep their PRM bound
    worst, misses = worst_responses(tmp_path / "t.rtst", taskset_from_dict(data), 40 * MS)
    assert worst["p"] <= 4 * MS and misses == 0


def test_edf_beside_cbs_known_answers():
    def t(name, c, d, p):
        return AnalysisTask(name=name, wcet_ns=c, period_ns=p, deadline_ns=d)

    # Abeni & Buttazzo's theorem: implicit deadlines, U = 1 exactly: schedulable
    assert edf_beside_cbs("x", [t("p", 1, 2, 2)], [("S", 2, 4)]).schedulable
    # U = 1 with a constrained deadline: the window of 3 holds 2 + 3·1/2 > 3
    assert not edf_beside_cbs("x", [t("p", 2, 3, 8), t("q", 2, 8, 8)], [("S", 1, 2)]).schedulable
    # the staircase alone (dbf of (2, 4, 4)) would accept (2, 3, 20): the line does not
    r = edf_beside_cbs("x", [t("p", 2, 3, 20)], [("S", 2, 4)])
    assert not r.schedulable and r.tasks[0].verdict == "miss"
    # a CBS gets its period as its bound, the tasks their deadlines
    r = edf_beside_cbs("x", [t("p", 1, 3, 20)], [("S", 2, 4)])
    assert r.schedulable and r.bounds() == {"p": 3, "S": 4}
    # U > 1 with the CBSs
    assert not edf_beside_cbs("x", [t("p", 1, 2, 2)], [("S", 3, 5)]).schedulable
    # a sleep counts as execution: 1 + 1 asleep in a window of 3 beside 2·3/4 is too much
    sleepy = AnalysisTask(name="p", wcet_ns=1, period_ns=20, deadline_ns=3, suspension_ns=1)
    assert not edf_beside_cbs("x", [sleepy], [("S", 2, 4)]).schedulable
    assert edf_beside_cbs("x", [AnalysisTask(name="p", wcet_ns=1, period_ns=20, deadline_ns=3)],
                          [("S", 2, 4)]).schedulable
    # a task that locks is refused (no bound), not guessed
    locker = AnalysisTask(name="p", wcet_ns=1, period_ns=20, deadline_ns=3,
                          critical_sections=(CriticalSection("r", 1),))
    assert edf_beside_cbs("x", [locker], [("S", 1, 4)]).verdict == "unsupported"


def soft_cbs_runs_ahead(kind):
    """A CBS (2 ms every 10 ms, FP inside) whose ``bulk`` (20 ms) runs alone from 0: a soft CBS
    postpones its deadline at each depletion, at once, and ends at 20 ms with deadline 100 ms and
    no budget; ``urgent`` (2 ms, D = 100 ms) wakes it at 21 ms to (2 ms, 110 ms), behind the plain
    ``p`` (71 ms, deadline 110 ms). A hard CBS is throttled instead and keeps urgent within 18 ms."""
    return _edf([{"name": "S", "kind": kind, "period": "10ms", "budget": "2ms", "scheduler": "FP",
                  "partition": "cpu0"}],
                [{"name": "bulk", "reservation": "S", "partition": "cpu0", "period": "1000ms", "priority": 1,
                  "body": [{"compute": "20ms"}]},
                 {"name": "urgent", "reservation": "S", "partition": "cpu0", "period": "1000ms",
                  "deadline": "100ms", "priority": 2, "offset": "21ms", "body": [{"compute": "2ms"}]},
                 {"name": "p", "partition": "cpu0", "period": "1000ms", "deadline": "89ms", "offset": "21ms",
                  "body": [{"compute": "71ms"}]}])


def test_a_soft_cbs_gives_its_tasks_no_bound_a_hard_one_does(tmp_path):
    soft = analyze_reservations(taskset_from_dict(soft_cbs_runs_ahead("cbs")))
    assert soft.schedulable  # p is bounded; the soft CBS's tasks are not analysed (as a soft reservation's)
    assert soft.tasks.task("urgent").verdict == "unknown" and "runs ahead" in soft.tasks.task("urgent").reason
    worst, _ = worst_responses(tmp_path / "soft.rtst", taskset_from_dict(soft_cbs_runs_ahead("cbs")), 1000 * MS)
    assert worst["urgent"] == 73 * MS > 18 * MS  # 18 ms: the Γ(10, 2) bound it was given before
    hard = analyze_reservations(taskset_from_dict(soft_cbs_runs_ahead("hard-cbs")))
    assert hard.schedulable and hard.tasks.bound("urgent") == 18 * MS
    worst, _ = worst_responses(tmp_path / "hard.rtst", taskset_from_dict(soft_cbs_runs_ahead("hard-cbs")),
                               1000 * MS)
    assert worst["urgent"] <= 18 * MS


def test_a_cbs_inside_a_reservation_leaves_it_without_a_bound():
    data = _edf([{"name": "E", "period": "10ms", "budget": "6ms", "scheduler": "EDF", "partition": "cpu0"},
                 {"name": "Q", "parent": "E", "kind": "hard-cbs", "period": "10ms", "budget": "2ms",
                  "scheduler": "EDF"},
                 {"name": "F", "parent": "E", "period": "10ms", "budget": "2ms", "scheduler": "EDF"}],
                [{"name": "q", "reservation": "Q", "partition": "cpu0", "period": "50ms", "body": [{"compute": "1ms"}]},
                 {"name": "f", "reservation": "F", "partition": "cpu0", "period": "50ms",
                  "body": [{"compute": "1ms"}]}])
    result = analyze_reservations(taskset_from_dict(data))
    assert result.tasks.verdict == "unsupported"
    assert {b.verdict for b in result.tasks.tasks} == {"unknown"}
    assert 'CBS Q inside "E"' in result.tasks.task("f").reason


def raised_above_a_hard_task(max_budget="8ms"):
    """P-FP: S, soft (1 ms every 10 ms at first, the controller may grant up to ``max_budget``),
    at priority 20 with a hog; h (3 ms every 10 ms) at priority 10 outside. Counted with 1 ms,
    h's bound is 4 ms; the hog's demand makes the controller raise S to its max_budget."""
    return {"name": "raised", "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
            "reservations": [{"name": "S", "period": "10ms", "budget": "1ms", "scheduler": "FP",
                              "criticality": "soft", "priority": 20, "partition": "cpu0",
                              "controller": {"period": "10ms", "min_budget": "1ms", "max_budget": max_budget}}],
            "tasks": [{"name": "hog", "reservation": "S", "partition": "cpu0", "period": "100ms", "priority": 5,
                       "body": [{"compute": "90ms"}]},
                      {"name": "h", "partition": "cpu0", "period": "10ms", "priority": 10,
                       "body": [{"compute": "3ms"}]}]}


def test_an_adapted_reservation_counts_with_its_max_budget(tmp_path):
    result = analyze_reservations(taskset_from_dict(raised_above_a_hard_task()))
    assert not result.schedulable and result.tasks.task("h").verdict == "miss"
    top = dict(result.top)["cpu0"]
    assert 'max_budget: "S" at 8000000 ns' in top.reason
    assert result.tasks.details["analysed_budget_ns"] == {"S": 8 * MS}
    # the breaking schedule: the controller raises S and h responds far beyond the 4 ms bound of before
    worst, misses = worst_responses(tmp_path / "t.rtst", taskset_from_dict(raised_above_a_hard_task()), 300 * MS)
    assert worst["h"] > 4 * MS and misses > 0
    # a max_budget that leaves h room: its bound counts it (3 + 5 = 8 ms), and the schedule keeps it
    fits = taskset_from_dict(raised_above_a_hard_task("5ms"))
    result = analyze_reservations(fits)
    assert result.schedulable and result.tasks.bound("h") == 8 * MS
    worst, misses = worst_responses(tmp_path / "fits.rtst", fits, 300 * MS)
    assert 4 * MS < worst["h"] <= 8 * MS  # (the misses are the hog's)


def _analyze(path, *args):
    return subprocess.run([sys.executable, "-c", "import sys; from rtsched.cli.main import main; sys.exit(main())",
                           "analyze", str(path), *args], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin", "COLUMNS": "250", "RTSCHED_OVERHEADS": os.environ["RTSCHED_OVERHEADS"]})


def test_analyze_shows_the_budget_it_counted(tmp_path):
    path = tmp_path / "raised.json"
    path.write_text(json.dumps(raised_above_a_hard_task()))
    run = _analyze(path, "--json")
    assert run.returncode != 0, run.stderr  # not schedulable
    (s,) = json.loads(run.stdout)["reservations"]
    assert (s["budget_ns"], s["analysed_budget_ns"]) == (MS, 8 * MS)
    assert "counted as 8ms (max_budget)" in _analyze(path).stdout

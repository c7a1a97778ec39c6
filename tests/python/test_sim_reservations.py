"""Periodic reservations in the simulator (sim/reservations.py): hand-computed schedules with
exact simulated times, the trace's REPLENISH / DEPLETE streams, the report's budget table, and
examples/reservations.yaml within its budgets."""

from __future__ import annotations

from pathlib import Path

from rtsched.model import load_taskset, taskset_from_dict
from rtsched.report.reservations import reservation_budgets
from rtsched.sim import SimOptions, simulate
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace
from sim_helpers import execution_intervals

MS = 1_000_000
ROOT = Path(__file__).resolve().parents[2]


def _set(reservations, tasks, scheduler="P-FP"):
    return taskset_from_dict({"name": "r", "platform": {"scheduler": scheduler, "backend": "ult", "cpus": [0]},
                              "reservations": reservations, "tasks": tasks})


def _run(tmp_path, taskset, duration_ns):
    run = simulate(taskset, SimOptions(duration_ns=duration_ns), tmp_path / "trace.rtst")
    return read_trace(run.trace_path)


def _events(trace, name):
    stream = next(s for s in trace.streams if s["name"] == name)
    return [(int(e["time_ns"]), EV(int(e["type"])).name, int(e["job"]), int(e["arg0"]), int(e["arg1"]))
            for e in trace.events_of(stream["stream_id"])]


HOG = {"name": "hog", "partition": "cpu0", "period": "100ms", "priority": 10, "body": [{"compute": "80ms"}]}


def test_hog_runs_exactly_its_budget_each_period(tmp_path):
    ts = _set([{"name": "R", "period": "10ms", "budget": "3ms", "scheduler": "FP", "priority": 20,
                "partition": "cpu0"}], [{**HOG, "reservation": "R"}])
    trace = _run(tmp_path, ts, 35 * MS)
    assert execution_intervals(trace, "hog") == [(0, 3 * MS), (10 * MS, 13 * MS), (20 * MS, 23 * MS), (30 * MS, 33 * MS)]
    assert _events(trace, "R") == [
        (0, "RESERVATION_REPLENISH", 1, 0, 3 * MS), (3 * MS, "RESERVATION_DEPLETE", 1, 0, 3 * MS),
        (10 * MS, "RESERVATION_REPLENISH", 2, 3 * MS, 3 * MS), (13 * MS, "RESERVATION_DEPLETE", 2, 0, 3 * MS),
        (20 * MS, "RESERVATION_REPLENISH", 3, 3 * MS, 3 * MS), (23 * MS, "RESERVATION_DEPLETE", 3, 0, 3 * MS),
        (30 * MS, "RESERVATION_REPLENISH", 4, 3 * MS, 3 * MS), (33 * MS, "RESERVATION_DEPLETE", 4, 0, 3 * MS)]
    (budget,) = reservation_budgets(trace, ts)  # the report's table reads the simulated stream
    assert (budget.periods, budget.depletions, budget.used_ns) == (4, 4, (3 * MS,) * 3)


def test_budget_idles_away_before_a_lower_sibling(tmp_path):
    # A (FP 20, 4/10 ms) holds a 1 ms task: it idles 3 ms of its budget; B's hog (FP 10, 6/10) runs after.
    ts = _set([{"name": "A", "period": "10ms", "budget": "4ms", "scheduler": "FP", "priority": 20,
                "partition": "cpu0"},
               {"name": "B", "period": "10ms", "budget": "6ms", "scheduler": "FP", "priority": 10,
                "partition": "cpu0"}],
              [{"name": "light", "reservation": "A", "partition": "cpu0", "period": "10ms", "priority": 10,
                "body": [{"compute": "1ms"}]}, {**HOG, "reservation": "B"}])
    trace = _run(tmp_path, ts, 30 * MS)
    assert execution_intervals(trace, "light") == [(0, MS), (10 * MS, 11 * MS), (20 * MS, 21 * MS)]
    assert execution_intervals(trace, "hog") == [(4 * MS, 10 * MS), (14 * MS, 20 * MS), (24 * MS, 30 * MS)]
    assert [e for e in _events(trace, "A") if e[1] == "RESERVATION_DEPLETE"] == [
        (4 * MS, "RESERVATION_DEPLETE", 1, 0, 4 * MS), (14 * MS, "RESERVATION_DEPLETE", 2, 0, 4 * MS),
        (24 * MS, "RESERVATION_DEPLETE", 3, 0, 4 * MS)]


def test_nested_child_is_bounded_by_its_parent(tmp_path):
    # child 2/10 ms inside parent 4/20 ms: the child depletes at 2, the parent idles to 4; at 10 the
    # child is replenished but its parent has nothing left; at 20 both again.
    ts = _set([{"name": "P", "period": "20ms", "budget": "4ms", "scheduler": "FP", "priority": 20,
                "partition": "cpu0"},
               {"name": "C", "parent": "P", "period": "10ms", "budget": "2ms", "scheduler": "FP", "priority": 5}],
              [{**HOG, "reservation": "C"}])
    trace = _run(tmp_path, ts, 45 * MS)
    assert execution_intervals(trace, "hog") == [(0, 2 * MS), (20 * MS, 22 * MS), (40 * MS, 42 * MS)]
    assert [e[:2] for e in _events(trace, "P") if e[1] == "RESERVATION_DEPLETE"] == [
        (4 * MS, "RESERVATION_DEPLETE"), (24 * MS, "RESERVATION_DEPLETE"), (44 * MS, "RESERVATION_DEPLETE")]


def test_example_stays_within_each_budget(tmp_path):
    ts = load_taskset(ROOT / "examples/reservations.yaml")
    trace = _run(tmp_path, ts, 400 * MS)
    for r in ts.reservations:
        tasks = [t.name for t in ts.tasks if t.reservation == r.name]
        per_period: dict[int, int] = {}
        for name in tasks:
            for a, b in execution_intervals(trace, name):
                assert a // r.period_ns == (b - 1) // r.period_ns, (name, a, b)  # never across a period
                per_period[a // r.period_ns] = per_period.get(a // r.period_ns, 0) + b - a
        assert per_period and max(per_period.values()) <= r.budget_ns, r.name
        # the tasks ask for more than the budget: every whole period uses all of it
        assert sorted(per_period.values())[:-1] == [r.budget_ns] * (len(per_period) - 1), r.name
    for b in reservation_budgets(trace, ts):
        assert b.used_max_ns == b.budgets_ns[0] and b.depletions >= b.periods


def test_same_schedule_twice(tmp_path):
    ts = load_taskset(ROOT / "examples/reservations.yaml")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = simulate(ts, SimOptions(duration_ns=100 * MS), tmp_path / "a/t.rtst").trace_path.read_bytes()
    b = simulate(ts, SimOptions(duration_ns=100 * MS), tmp_path / "b/t.rtst").trace_path.read_bytes()
    assert a == b


def test_a_cbs_postpones_its_deadline_and_keeps_the_hog_from_its_sibling(tmp_path):
    # Two CBSs at the top of a P-EDF CPU. At 0 both arrive (d = 10): H first (file order) runs the
    # hog [0, 1) and depletes; with the hog still ready it gets Q back and d = 20, so V (d = 10)
    # runs the victim [1, 2). H then runs alone, postponed at each depletion (d = 10·t at t = 3,
    # 4, ...); at 10 the victim arrives, V takes d = 20 < H's 100 and runs it [10, 11), and so on.
    ts = _set([{"name": "H", "kind": "cbs", "period": "10ms", "budget": "1ms", "scheduler": "EDF",
                "partition": "cpu0"},
               {"name": "V", "kind": "cbs", "period": "10ms", "budget": "2ms", "scheduler": "EDF",
                "partition": "cpu0"}],
              [{"name": "hog", "reservation": "H", "partition": "cpu0", "period": "100ms",
                "body": [{"compute": "80ms"}]},
               {"name": "victim", "reservation": "V", "partition": "cpu0", "period": "10ms",
                "body": [{"compute": "1ms"}]}], scheduler="P-EDF")
    trace = _run(tmp_path, ts, 25 * MS)
    assert execution_intervals(trace, "victim") == [(MS, 2 * MS), (10 * MS, 11 * MS), (20 * MS, 21 * MS)]
    assert execution_intervals(trace, "hog") == [(0, MS), (2 * MS, 10 * MS), (11 * MS, 20 * MS), (21 * MS, 25 * MS)]
    assert _events(trace, "H")[:5] == [
        (0, "RESERVATION_REPLENISH", 1, 0, MS), (MS, "RESERVATION_DEPLETE", 1, 0, MS),
        (MS, "RESERVATION_REPLENISH", 2, MS, MS), (3 * MS, "RESERVATION_DEPLETE", 2, 0, MS),
        (3 * MS, "RESERVATION_REPLENISH", 3, MS, MS)]
    assert _events(trace, "V") == [(0, "RESERVATION_REPLENISH", 1, 0, 2 * MS),
                                   (10 * MS, "RESERVATION_REPLENISH", 2, 0, 2 * MS),
                                   (20 * MS, "RESERVATION_REPLENISH", 3, 0, 2 * MS)]



def test_a_hard_cbs_is_throttled_until_its_deadline(tmp_path):
    # The set above with H a hard CBS (kind hard-cbs): at its depletion at 1 it waits for its
    # deadline 10 instead of taking d = 20 at once, so the CPU idles [2, 10) and the hog gets
    # 1 ms between H's deadlines, never more. At 10 H gets Q and d = 20; the victim's V takes
    # d = 20 too (its old deadline passed) and runs after H (file order): [10, 11), [11, 12).
    ts = _set([{"name": "H", "kind": "hard-cbs", "period": "10ms", "budget": "1ms", "scheduler": "EDF",
                "partition": "cpu0"},
               {"name": "V", "kind": "cbs", "period": "10ms", "budget": "2ms", "scheduler": "EDF",
                "partition": "cpu0"}],
              [{"name": "hog", "reservation": "H", "partition": "cpu0", "period": "100ms",
                "body": [{"compute": "80ms"}]},
               {"name": "victim", "reservation": "V", "partition": "cpu0", "period": "10ms",
                "body": [{"compute": "1ms"}]}], scheduler="P-EDF")
    trace = _run(tmp_path, ts, 25 * MS)
    assert execution_intervals(trace, "hog") == [(0, MS), (10 * MS, 11 * MS), (20 * MS, 21 * MS)]
    assert execution_intervals(trace, "victim") == [(MS, 2 * MS), (11 * MS, 12 * MS), (21 * MS, 22 * MS)]
    assert _events(trace, "H") == [
        (0, "RESERVATION_REPLENISH", 1, 0, MS), (MS, "RESERVATION_DEPLETE", 1, 0, MS),
        (10 * MS, "RESERVATION_REPLENISH", 2, MS, MS), (11 * MS, "RESERVATION_DEPLETE", 2, 0, MS),
        (20 * MS, "RESERVATION_REPLENISH", 3, MS, MS), (21 * MS, "RESERVATION_DEPLETE", 3, 0, MS)]


def test_cbss_in_an_edf_reservation_isolate_an_overrunning_task(tmp_path):
    # the live test's set (test_run_reservations_live.py), simulated: the hog overruns its 1/10 ms
    # CBS and misses; the victim in its 3/10 ms CBS misses nothing; only the hog's CBS depletes.
    ts = _set([{"name": "E", "period": "10ms", "budget": "4ms", "scheduler": "EDF", "partition": "cpu0"},
               {"name": "Qh", "parent": "E", "kind": "cbs", "period": "10ms", "budget": "1ms", "scheduler": "EDF"},
               {"name": "Qv", "parent": "E", "kind": "cbs", "period": "10ms", "budget": "3ms", "scheduler": "EDF"}],
              [{"name": "hog", "reservation": "Qh", "partition": "cpu0", "period": "5ms",
                "body": [{"compute": "4ms"}]},
               {"name": "victim", "reservation": "Qv", "partition": "cpu0", "period": "10ms",
                "body": [{"compute": "2ms"}]}], scheduler="P-EDF")
    trace = _run(tmp_path, ts, 500 * MS)
    kinds = {name: [e[1] for e in _events(trace, name)] for name in ("hog", "victim", "Qh", "Qv")}
    assert kinds["victim"].count("COMPLETE") == 50 and "DEADLINE_MISS" not in kinds["victim"]
    assert kinds["hog"].count("DEADLINE_MISS") >= 20
    assert kinds["Qh"].count("RESERVATION_DEPLETE") >= 20 and "RESERVATION_DEPLETE" not in kinds["Qv"]

"""Reservations in the task-set format (docs/reservations.md): the model, inheritance down
the tree, the round trip, and every bad file rejected with its path."""

import copy
import json
import subprocess

import pytest

from rtsched.model import Reservation, taskset_from_dict, taskset_to_dict, to_runner_input, validate_dict
from rtsched.model import TaskSetError
from rtsched.native import NativeToolMissing, native_tool
from rtsched.sim import check_supported

MS = 1_000_000

BASE = {
    "name": "hier",
    "duration": "1s",
    "platform": {"scheduler": "P-EDF", "backend": "ult", "cpus": [0]},
    "reservations": [
        {"name": "H", "period": "100ms", "budget": "39ms", "scheduler": "FP", "partition": "cpu0"},
        {"name": "S", "period": "10ms", "budget": "6ms", "scheduler": "EDF", "criticality": "soft",
         "partition": "cpu0"},
        {"name": "A", "parent": "S", "period": "20ms", "budget": "4ms", "scheduler": "EDF", "importance": 2},
        {"name": "B", "parent": "S", "period": "50ms", "budget": "5ms", "scheduler": "FP"},
    ],
    "tasks": [
        {"name": "h1", "period": "200ms", "priority": 20, "partition": "cpu0", "reservation": "H",
         "body": [{"compute": "31ms"}]},
        {"name": "a1", "period": "40ms", "partition": "cpu0", "reservation": "A", "body": [{"compute": "4ms"}]},
        {"name": "b1", "period": "100ms", "priority": 5, "partition": "cpu0", "reservation": "B",
         "body": [{"compute": "3ms"}]},
    ],
}


def doc(change=None):
    d = copy.deepcopy(BASE)
    if change:
        change(d)
    return d


def errors(change):
    return validate_dict(doc(change))


def test_reservations_build_the_model_with_inherited_fields():
    ts = taskset_from_dict(doc())
    assert ts.reservation("H") == Reservation("H", "periodic", 100 * MS, 39 * MS, "FP", "hard", None, None, None,
                                              "cpu0")
    a = ts.reservation("A")
    assert (a.criticality, a.partition, a.parent, a.importance) == ("soft", "cpu0", "S", 2)  # from S
    assert [r.name for r in ts.child_reservations("S")] == ["A", "B"]
    assert [r.name for r in ts.child_reservations(None)] == ["H", "S"]
    assert [t.name for t in ts.tasks_in("A")] == ["a1"]
    # a task takes its policy from its reservation's scheduler, not the platform's
    assert (ts.task("h1").policy, ts.task("h1").priority) == ("fifo", 20)
    assert (ts.task("a1").policy, ts.task("a1").priority) == ("deadline", None)
    assert ts.task("b1").policy == "fifo"


def test_round_trip():
    ts = taskset_from_dict(doc())
    assert taskset_from_dict(taskset_to_dict(ts)) == ts


def test_a_cbs_goes_inside_an_edf_parent():
    def add_cbs(d):
        d["reservations"].append({"name": "C", "kind": "cbs", "parent": "A", "period": "20ms", "budget": "1ms",
                                  "scheduler": "EDF"})
        d["tasks"][1]["reservation"] = "C"
    ts = taskset_from_dict(doc(add_cbs))
    assert ts.reservation("C").kind == "cbs"


def test_the_runner_input_lists_them_parents_first_and_tasks_point_at_their_leaf():
    runner = to_runner_input(taskset_from_dict(doc()), "t.rtst", cpus_online=(0, 1),
                             dl_period_limits=(100_000, 4 * 10**9))
    assert runner["backend"] == "ult:pedf"
    assert [(r["name"], r["parent"], r["order"], r["cpu"]) for r in runner["reservations"]] == [
        ("H", None, "FP", 0), ("S", None, "EDF", 0), ("A", 1, "EDF", 0), ("B", 1, "FP", 0)]
    assert [(r["period_ns"], r["budget_ns"]) for r in runner["reservations"]][0] == (100 * MS, 39 * MS)
    # priorities only under an FP parent (P-EDF at the top, S is EDF): none here
    assert {r["priority"] for r in runner["reservations"]} == {0}
    names = [r["name"] for r in runner["reservations"]]
    assert {t["name"]: names[t["reservation"]] for t in runner["tasks"]} == {"h1": "H", "a1": "A", "b1": "B"}


@pytest.mark.parametrize("protocol, refused", [("srp", True), ("pip", False)])
def test_a_ceiling_lock_inside_a_reservation_is_simulated_but_not_run(protocol, refused):
    """The ult runtime keeps one system ceiling per CPU: a ceiling lock of H's tasks would hold back
    job starts in S, a blocking S's bounds do not count. The file is valid (the simulator scopes the
    ceiling to H); only the runner input is refused, naming the resource and the reservation."""
    def two_users(d):
        d["resources"] = [{"name": "q", "protocol": protocol}]
        h1 = d["tasks"][0]
        h1["body"] = [{"lock": "q"}, {"compute": "1ms"}, {"unlock": "q"}, {"compute": "30ms"}]
        d["tasks"].append({"name": "h2", "period": "400ms", "priority": 10, "partition": "cpu0",
                           "reservation": "H", "body": [{"lock": "q"}, {"compute": "1ms"}, {"unlock": "q"}]})

    assert errors(two_users) == []
    taskset = taskset_from_dict(doc(two_users))
    if not refused:
        to_runner_input(taskset, "t.rtst", cpus_online=(0, 1), dl_period_limits=(100_000, 4 * 10**9))
        return
    with pytest.raises(TaskSetError) as refusal:
        to_runner_input(taskset, "t.rtst", cpus_online=(0, 1), dl_period_limits=(100_000, 4 * 10**9))
    assert f'resources[0].protocol: "q" uses {protocol} inside reservation "H"' in str(refusal.value)
    assert "one system ceiling per CPU" in str(refusal.value)


def test_a_cbs_holds_tasks_not_reservations():
    def nest_in_cbs(d):
        d["reservations"][2]["kind"] = "cbs"
        d["reservations"].append({"name": "D", "parent": "A", "period": "40ms", "budget": "1ms", "scheduler": "EDF"})
        d["tasks"][1]["reservation"] = "D"
    assert 'reservations[4].parent: "A" is a CBS: it holds tasks, not reservations' in errors(nest_in_cbs)


def test_a_cbs_goes_to_the_runner_with_its_kind_and_the_simulator_takes_it():
    def add_cbs(d):
        d["reservations"].append({"name": "C", "kind": "cbs", "parent": "A", "period": "20ms", "budget": "1ms",
                                  "scheduler": "EDF"})
        d["tasks"][1]["reservation"] = "C"
    runner = to_runner_input(taskset_from_dict(doc(add_cbs)), "t.rtst", cpus_online=(0,),
                             dl_period_limits=(100_000, 4 * 10**9))
    assert [(r["name"], r["kind"], r["parent"]) for r in runner["reservations"]] == [
        ("H", "periodic", None), ("S", "periodic", None), ("A", "periodic", 1), ("B", "periodic", 1), ("C", "cbs", 2)]
    assert runner["tasks"][1]["reservation"] == 4
    check_supported(taskset_from_dict(doc(add_cbs)))  # periodic and CBS reservations are simulated


def test_a_hard_cbs_is_a_cbs_for_the_rules_and_goes_to_the_runner_with_its_kind():
    def add_hard_cbs(d):
        d["reservations"].append({"name": "C", "kind": "hard-cbs", "parent": "A", "period": "20ms",
                                  "budget": "1ms", "scheduler": "EDF"})
        d["tasks"][1]["reservation"] = "C"
    ts = taskset_from_dict(doc(add_hard_cbs))
    assert ts.reservation("C").is_cbs and taskset_from_dict(taskset_to_dict(ts)) == ts
    runner = to_runner_input(ts, "t.rtst", cpus_online=(0,), dl_period_limits=(100_000, 4 * 10**9))
    assert [(r["name"], r["kind"]) for r in runner["reservations"]][-1] == ("C", "hard-cbs")
    check_supported(ts)

    def under_fp(d):
        d["reservations"].append({"name": "C", "kind": "hard-cbs", "parent": "B", "priority": 3,
                                  "period": "50ms", "budget": "1ms", "scheduler": "EDF"})
    assert 'reservations[4].kind: a CBS orders by deadlines: its parent "B" must schedule by EDF' in errors(under_fp)

    def nest_in_hard_cbs(d):
        d["reservations"][2]["kind"] = "hard-cbs"
        d["reservations"].append({"name": "D", "parent": "A", "period": "40ms", "budget": "1ms", "scheduler": "EDF"})
        d["tasks"][1]["reservation"] = "D"
    assert 'reservations[4].parent: "A" is a CBS: it holds tasks, not reservations' in errors(nest_in_hard_cbs)


@pytest.mark.parametrize(
    "change, expected",
    [
        # the three the issue names
        (lambda d: d["reservations"][0].update(budget="120ms"),
         ["reservations[0].budget: budget 120ms is above the period 100ms: a reservation supplies at most "
          "its period"]),
        (lambda d: d["reservations"][2].update(budget="19ms"),
         ["reservations[2].budget: bandwidth 0.95 (budget/period) exceeds its parent \"S\"'s 0.6"]),
        (lambda d: d["tasks"][1].update(reservation="S"),
         ['tasks[1].reservation: "S" holds reservations (A, B): attach tasks to a leaf']),
        # the tree
        (lambda d: d["reservations"][2].update(parent="Z"),
         ['reservations[2].parent: unknown reservation "Z" (known: A, B, H, S)']),
        (lambda d: (d["reservations"][2].update(parent="B"), d["reservations"][3].update(parent="A")),
         ["reservations[2].parent: the parents form a cycle (A -> B -> A): reservations form a tree",
          "reservations[3].parent: the parents form a cycle (B -> A -> B): reservations form a tree"]),
        (lambda d: d["reservations"][2].update(criticality="hard", importance=None) or
         d["reservations"][2].pop("importance"),
         ['reservations[2].criticality: a hard reservation inside soft "S" gets no guarantee (its parent\'s '
          "budget is adapted): make it soft, or its parent hard"]),
        (lambda d: d["reservations"][0].update(importance=3),
         ["reservations[0].importance: only for soft reservations (a hard one keeps its budget); remove it or "
          "write criticality: soft"]),
        (lambda d: d["reservations"][3].update(partition="cpu0"),
         ["reservations[3].partition: only for a top-level reservation: a child runs on its parent's "
          "partition; remove it"]),
        (lambda d: d["reservations"][1].pop("partition"),
         ['reservations[1]: missing required key "partition" (a top-level reservation under P-EDF runs on one '
          "partition)"]),
        (lambda d: d["reservations"][0].update(period="10ms", budget="9ms") or d["reservations"].append(
            {"name": "H2", "period": "10ms", "budget": "2ms", "scheduler": "FP", "partition": "cpu0"}),
         ["reservations: the top-level hard reservations on partition \"cpu0\" (H, H2) take 1.1 of one CPU"]),
        (lambda d: d["reservations"][0].update(budget="9ms") or d["reservations"].extend([
            {"name": "H1", "parent": "H", "period": "100ms", "budget": "5ms", "scheduler": "FP", "priority": 2},
            {"name": "H2", "parent": "H", "period": "100ms", "budget": "5ms", "scheduler": "FP", "priority": 1}])
         or d["tasks"][0].update(reservation="H1"),
         ['reservations[0]: the hard children of "H" (H1, H2) take 0.1, above its bandwidth 0.09']),
        # who orders whom
        (lambda d: d["reservations"][0].update(priority=3),
         ["reservations[0].priority: not used: its platform (P-EDF) schedules by EDF; remove it"]),
        (lambda d: d["reservations"].append({"name": "C", "kind": "cbs", "parent": "B", "priority": 3,
                                             "period": "50ms", "budget": "1ms", "scheduler": "EDF"}) or
         d["tasks"][2].update(reservation="A", priority=None) or d["tasks"][2].pop("priority"),
         ['reservations[4].kind: a CBS orders by deadlines: its parent "B" must schedule by EDF']),
        (lambda d: d["reservations"][3].pop("priority") if "priority" in d["reservations"][3] else
         d["reservations"][2].update(priority=4),
         ['reservations[2].priority: not used: its parent "S" schedules by EDF; remove it']),
        (lambda d: d["tasks"][1].update(priority=3),
         ['tasks[1].priority: not used inside reservation "A", which orders jobs by deadline (EDF): remove it']),
        (lambda d: d["tasks"][0].pop("priority"),
         ['tasks[0]: missing required key "priority" (SCHED_FIFO 1..99, higher is more urgent, under reservation '
          '"H")']),
        (lambda d: d["tasks"][0].update(reservation="nope"),
         ['tasks[0].reservation: unknown reservation "nope" (known: "H", "S", "A", "B")']),
        # where they run
        (lambda d: d["platform"].update(backend="threads"),
         ["reservations: reservations are scheduled by the library's user-level scheduler: write "
          "platform.backend: ult (docs/reservations.md)"]),
        (lambda d: d["reservations"][0].update(perod="1ms"),
         ['reservations[0].perod: unknown key (did you mean "period"?)']),
    ],
)
def test_bad_files_are_rejected_with_their_path(change, expected):
    assert errors(change) == expected


def test_an_invalid_reservation_is_reported_once_not_again_by_its_tasks():
    assert errors(lambda d: d["reservations"][0].update(budget="101ms")) == [
        "reservations[0].budget: budget 101ms is above the period 100ms: a reservation supplies at most its period"]


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda r: r["reservations"][2].update(parent=3), "$.reservations[2].parent: expected the index of a "
                                                          "reservation listed before this one"),
        (lambda r: r["reservations"][0].update(budget_ns=200 * MS), "$.reservations[0].budget_ns: 200000000 is "
                                                                    "out of range [1, 100000000]"),
        (lambda r: r["reservations"][1].update(order="RM"), '$.reservations[1]: order "RM" is not FP or EDF'),
        (lambda r: r["reservations"][1].update(kind="tbs"),
         '$.reservations[1]: kind "tbs" is not periodic, cbs, hard-cbs or sporadic'),
        (lambda r: r["tasks"][0].update(reservation=7), "$.tasks[0].reservation: no such reservation"),
        (lambda r: r.update(backend="threads"), "$.reservations: reservations need the ult backend"),
        (lambda r: r.update(backend="ult:gedf"), "$.reservations: reservations need backend ult:pfp or ult:pedf"),
    ],
)
def test_the_runner_reads_reservations_and_names_what_is_wrong_where(tmp_path, change, expected):
    """An input error (exit 2) before anything runs: no real-time scheduling is needed."""
    try:
        runner = native_tool("rtsched-run")
    except NativeToolMissing as missing:
        pytest.skip(str(missing))
    spec = to_runner_input(taskset_from_dict(doc()), str(tmp_path / "t.rtst"), cpus_online=(0, 1),
                           dl_period_limits=(100_000, 4 * 10**9))
    change(spec)
    path = tmp_path / "runner.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run([str(runner), str(path), "--quiet"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr

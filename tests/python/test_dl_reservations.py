"""A SCHED_DEADLINE reservation of a task's own (``dl_deadline``, ``dl_period``) and a fair policy's
``slice`` (docs/taskset.md): validated with reasons, given to the runner, refused by the simulator by
name, and analysed with the reservation in the task's place and the jobs bounded from its supply
(analysis/dl_reservations.py)."""

from __future__ import annotations

import pytest

from rtsched.analysis import run_test
from rtsched.analysis.dl_reservations import job_response_ns
from rtsched.analysis.tasks import from_taskset
from rtsched.model import TaskSetError, taskset_from_dict, to_runner_input
from rtsched.sim import unsupported_features

MS = 1_000_000


def taskset(*tasks: dict, scheduler: str = "G-EDF", **platform) -> dict:
    return {"name": "dl", "platform": {"scheduler": scheduler, "cpus": [0, 1], **platform}, "tasks": list(tasks)}


def loop(**extra) -> dict:
    return {"name": "loop", "kind": "self-paced", "period": "20ms", "budget": "50ms", "dl_deadline": "100ms",
            "dl_period": "100ms", "body": [{"compute": "5ms"}], **extra}


def errors_of(data: dict) -> list[str]:
    with pytest.raises(TaskSetError) as e:
        taskset_from_dict(data)
    return e.value.errors


def test_the_keys_are_read_and_given_to_the_runner():
    ts = taskset_from_dict(taskset(loop(), {"name": "bg", "policy": "batch", "slice": "7ms", "period": "10ms",
                                            "body": [{"compute": "1ms"}]}))
    loop_task, bg = ts.tasks
    assert (loop_task.dl_deadline_ns, loop_task.dl_period_ns, loop_task.has_own_dl_reservation) == (
        100 * MS, 100 * MS, True)
    assert (loop_task.dl_reservation_deadline_ns, loop_task.dl_reservation_period_ns) == (100 * MS, 100 * MS)
    assert bg.slice_ns == 7 * MS and not bg.has_own_dl_reservation
    runner = to_runner_input(ts, "t.rtst", duration_ns=100 * MS)
    by_name = {t["name"]: t for t in runner["tasks"]}
    assert {k: by_name["loop"][k] for k in ("dl_runtime_ns", "dl_deadline_ns", "dl_period_ns", "slice_ns",
                                            "period_ns", "deadline_ns")} == {
        "dl_runtime_ns": 50 * MS, "dl_deadline_ns": 100 * MS, "dl_period_ns": 100 * MS, "slice_ns": 0,
        "period_ns": 20 * MS, "deadline_ns": 20 * MS}
    assert (by_name["bg"]["slice_ns"], by_name["bg"]["dl_period_ns"]) == (7 * MS, 0)


def test_only_the_dl_period_given_keeps_the_jobs_deadline_for_the_reservation():
    ts = taskset_from_dict(taskset({k: v for k, v in loop(budget="10ms").items() if k != "dl_deadline"}))
    (t,) = ts.tasks
    assert (t.dl_deadline_ns, t.dl_reservation_deadline_ns, t.dl_reservation_period_ns) == (None, 20 * MS, 100 * MS)


@pytest.mark.parametrize(("task", "platform", "words"), [
    (loop(policy="fifo", priority=10), {"scheduler": "G-FP"}, "not used for policy fifo"),
    (loop(budget="150ms"), {}, "SCHED_DEADLINE needs runtime <= deadline <= period (the reservation's"),
    (loop(dl_deadline="120ms"), {}, "make the deadline at most the period (100ms)"),
    (loop(), {"backend": "ult"}, "use backend: threads"),
    ({"name": "f", "period": "10ms", "priority": 5, "slice": "3ms", "body": [{"compute": "1ms"}]},
     {"scheduler": "G-FP"}, "for policies other and batch only (policy fifo)"),
    ({"name": "i", "policy": "idle", "period": "10ms", "slice": "3ms", "body": [{"compute": "1ms"}]}, {},
     "for policies other and batch only (policy idle)"),
    ({"name": "o", "policy": "other", "period": "10ms", "slice": "200ms", "body": [{"compute": "1ms"}]}, {},
     "200ms is not in 100us..100ms"),
    ({"name": "o", "policy": "other", "period": "10ms", "slice": "3ms", "body": [{"compute": "1ms"}]},
     {"scheduler": "G-FP", "backend": "ult"}, "use backend: threads for batch, idle or nice"),
])
def test_refusals_say_what_and_where(task, platform, words):
    data = taskset(task)
    data["platform"].update(platform)
    errors = errors_of(data)
    assert any(words in e for e in errors), errors
    assert all(e.startswith("tasks[0]") for e in errors), errors


def test_inside_a_reservation_it_is_refused():
    data = {"name": "r", "platform": {"scheduler": "P-EDF", "backend": "ult", "cpus": [0]},
            "reservations": [{"name": "S", "period": "10ms", "budget": "5ms", "scheduler": "EDF",
                              "partition": "cpu0"}],
            "tasks": [{"name": "t", "period": "20ms", "partition": "cpu0", "reservation": "S",
                       "dl_period": "40ms", "body": [{"compute": "1ms"}]}]}
    assert any("runs inside reservation" in e for e in errors_of(data))


def test_the_simulator_refuses_it_by_name():
    (problem,) = unsupported_features(taskset_from_dict(taskset(loop())))
    assert problem.startswith('tasks[0].dl_deadline: "loop" has a SCHED_DEADLINE reservation apart from its jobs')


def test_job_response_from_the_reservation_supply():
    # one window: the longest gap P + D - 2Q, then C
    assert job_response_ns(5 * MS, 50 * MS, 100 * MS, 100 * MS) == 105 * MS
    # a full CPU: no gap
    assert job_response_ns(20 * MS, 200 * MS, 200 * MS, 200 * MS) == 20 * MS
    # three windows of 2 ms for 5 ms, constrained deadline 6 ms of period 10 ms:
    # gap 10 + 6 - 4 = 12, then 5, then two more periods less their budgets
    assert job_response_ns(5 * MS, 2 * MS, 6 * MS, 10 * MS) == 12 * MS + 5 * MS + 2 * 8 * MS


def test_the_tests_see_the_reservation_and_bound_the_jobs_from_it():
    ts = taskset_from_dict(taskset(loop(), {"name": "timer", "period": "10ms", "body": [{"compute": "1ms"}]}))
    problem = from_taskset(ts)
    server = problem.task("loop")
    assert (server.wcet_ns, server.deadline_ns, server.period_ns) == (50 * MS, 100 * MS, 100 * MS)
    assert problem.job_parameters("loop") == (20 * MS, 20 * MS, 5 * MS)
    result = run_test("gedf-rta", problem)
    b = result.task("loop")
    assert (b.bound_ns, b.verdict) == (105 * MS, "miss")  # above its jobs' 20 ms deadline
    assert "shown to meet its deadlines" in b.reason and result.verdict == "not schedulable"
    ok = run_test("gedf-rta", taskset_from_dict(taskset(loop(period="200ms", deadline="110ms"))))
    assert (ok.task("loop").bound_ns, ok.task("loop").verdict, ok.verdict) == (105 * MS, "ok", "schedulable")


def test_custom_slice_shaped_set_is_bounded_at_its_jobs_length():
    """rt-app's custom-slice.json as imported: a full-CPU reservation (200 ms every 200 ms) for 20 ms jobs."""
    ts = taskset_from_dict(taskset(
        {"name": "thread0", "kind": "self-paced", "policy": "other", "nice": -19, "slice": "100ms",
         "period": "20ms", "body": [{"compute": "20ms"}]},
        {"name": "thread1", "kind": "self-paced", "period": "20ms", "budget": "200ms", "dl_deadline": "200ms",
         "dl_period": "200ms", "body": [{"compute": "20ms"}]}))
    b = run_test("gedf-rta", ts).task("thread1")
    assert (b.bound_ns, b.verdict) == (20 * MS, "ok")


def test_no_bound_where_the_supply_does_not_decide():
    sleeper = loop(body=[{"compute": "2ms"}, {"sleep": "1ms"}, {"compute": "2ms"}])
    b = run_test("gedf-rta", taskset_from_dict(taskset(sleeper))).task("loop")
    assert (b.bound_ns, b.verdict) == (None, "unknown") and "sleeps" in b.reason
    # a timer task whose job may still run at its next release
    timer = {**loop(), "kind": "periodic", "period": "50ms"}
    b = run_test("gedf-rta", taskset_from_dict(taskset(timer))).task("loop")
    assert (b.bound_ns, b.verdict) == (None, "miss") and "next release" in b.reason
    # a reservation the test does not show schedulable: three full CPUs on two
    full = [{**loop(), "name": f"l{i}", "budget": "100ms"} for i in range(3)]
    result = run_test("gedf-rta", taskset_from_dict(taskset(*full)))
    assert all(t.bound_ns is None and "not shown to meet its deadlines" in t.reason for t in result.tasks)


def test_overheads_go_to_the_jobs_not_to_the_reservation_s_runtime():
    from rtsched.analysis.overheads import Overheads, apply_overheads

    problem = from_taskset(taskset_from_dict(taskset(loop())))
    ov = Overheads(context_switch_ns=10_000, release_latency_ns=30_000, trace_event_ns=1_000)
    folded = apply_overheads(problem, ov)
    assert folded.task("loop").wcet_ns == 50 * MS  # the kernel holds the thread to its runtime
    assert folded.dl_reservations["loop"].wcet_ns == 5 * MS + 2 * 10_000 + 3 * 1_000 + 30_000
    b = run_test("gedf-rta", problem, overheads=ov).task("loop")
    assert b.bound_ns == job_response_ns(folded.dl_reservations["loop"].wcet_ns, 50 * MS, 100 * MS, 100 * MS)


def test_a_job_s_cliff_is_its_own_execution_in_the_reservation():
    """The sensitivity adds execution to the jobs, not to the reservation's runtime: one window of 50 ms
    holds a job of up to 50 ms at the same gap, so the bound grows with the job up to there, then jumps."""
    from rtsched.analysis.sensitivity import sensitivity

    ts = taskset_from_dict(taskset(loop(period="200ms", deadline="200ms")))
    (slack,) = sensitivity("gedf-rta", from_taskset(ts), cliffs_only=True).tasks
    assert (slack.bound_ns, slack.cliff_ns) == (105 * MS, 45 * MS)

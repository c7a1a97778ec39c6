"""Issue 35, classes 3-5: uniprocessor FP blocking that counted a nested or a repeated request once.

Each case: a set the analysis accepted with a bound that a legal schedule exceeds, that schedule
(the soundness explorer's, and the simulator's with the same releases, 1 tick = 1 ms), and the
bound the analysis gives now. The old bounds are written down (``OLD_*``) to show the witness beats
them; the analysis must now give at least the witness's response.

- class 3: a low task's plain-mutex (``none``) section holds an inner section under a ceiling
  protocol or PIP; a high task locks the inner resource, a medium task neither. The holder runs at
  the inner ceiling (``ipcp``), shuts the medium job out (``srp``), or inherits the high priority
  (``pcp``, ``pip``) for the whole inner section: the medium task waits for it. The blocking
  families read only outermost sections, and the outer one is a plain mutex the medium task never
  waits for: blocking 0.
- class 4: PIP hands a mutex to its most urgent waiter at unlock (the kernel's rt_mutex, rtsched's
  simulator). A job requesting r twice can meet two lower holders: the one holding r when it
  arrives, and the one waiting for r then, which owns r from the first unlock on. "Once per
  resource" counted one.
- class 5: a PI-CV server takes its next queued request at once; a client calling it twice waits
  for a lower client's call queued behind its first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rtsched.analysis import AnalysisTask, CriticalSection
from rtsched.analysis.blocking import blocking_term
from rtsched.analysis.registry import run_test
from rtsched.analysis.soundness.explorer import explore
from rtsched.analysis.soundness.model import Job, Op, Scenario, SystemModel, TaskModel, check_legal
from rtsched.model import taskset_from_dict

from sim_helpers import MS, worst_responses


def _cs(r: str, n: int) -> tuple[Op, ...]:
    return (("lock", r), ("exec", n), ("unlock", r))


def _explored(model: SystemModel, first: dict[str, int], horizon: int = 20) -> dict[str, int]:
    """The largest response of each task in the periodic schedule from the given first releases."""
    jobs = tuple(Job(t.name, a, 0, t.body) for t in model.tasks for a in range(first[t.name], horizon, t.period))
    scenario = Scenario(jobs, tuple(t.name for t in model.tasks))
    assert check_legal(model, scenario) is None
    run = explore(model, scenario, 4 * horizon)
    worst: dict[str, int] = {}
    for k, job in enumerate(jobs):
        response = run.response(scenario, k)
        assert response is not None, f"{job.task}@{job.arrival} unfinished"
        worst[job.task] = max(worst.get(job.task, 0), response)
    return worst


def _simulated(tmp_path: Path, model: SystemModel, first: dict[str, int], servers: tuple[str, ...] = ()) -> dict:
    """The same releases in rtsched's simulator (1 tick = 1 ms): the largest response of each task, in ticks."""
    def body(ops: tuple[Op, ...]) -> list[dict]:
        out: list[dict] = []
        for kind, value in ops:
            if kind == "exec":
                out.append({"compute": f"{value}ms"})
            elif kind == "call":
                out.append({"call": {"server": value[0], "duration": f"{value[1]}ms"}})
            else:
                out.append({kind: value})
        return out
    data: dict = {"name": "witness", "platform": {"scheduler": "P-FP", "cpus": [0]},
                  "tasks": [{"name": t.name, "period": f"{t.period}ms", "deadline": f"{t.deadline}ms",
                             "priority": 10 * t.priority, "partition": "cpu0", "offset": f"{first[t.name]}ms",
                             "body": body(t.body)} for t in model.tasks]}
    if model.protocols:
        data["resources"] = [{"name": r, "protocol": p} for r, p in model.protocols.items()]
    if servers:
        data["servers"] = [{"name": s, "priority": 1, "partition": "cpu0", "duration": "1ms"} for s in servers]
    worst, misses = worst_responses(tmp_path / "witness.rtst", taskset_from_dict(data), 20 * MS)
    return {name: (r // MS if r is not None else None) for name, r in worst.items()}


# ---- class 3: an inner ceiling (or PIP) section of a plain-mutex section ------------------------------------

OLD_MEDIUM_BOUND = 2  # C = 1, blocking 0


def _nested(inner: str) -> SystemModel:
    return SystemModel((
        TaskModel("H", 10, 10, _cs("b", 1), 3),
        TaskModel("M", 10, 10, (("exec", 1),), 2),
        TaskModel("L", 20, 20, (("lock", "a"), ("exec", 1), ("lock", "b"), ("exec", 3), ("unlock", "b"),
                                ("unlock", "a")), 1),
    ), "FP", 1, {"a": "none", "b": inner})


@pytest.mark.parametrize("inner", ["ipcp", "srp", "pcp", "pip"])
def test_an_inner_section_of_a_plain_mutex_section_blocks_a_medium_task(inner, tmp_path):
    model = _nested(inner)
    first = {"L": 0, "M": 2, "H": 2}  # L holds a, then b (3 ticks) when H and M arrive
    assert _explored(model, first)["M"] == 4 > OLD_MEDIUM_BOUND
    assert _simulated(tmp_path, model, first)["M"] == 4
    result = run_test("fp-rta", model.problem())
    assert result.schedulable
    assert result.task("M").blocking_ns == 3 and result.bound("M") == 5  # 1 + L's inner section 3 + H's 1


def test_an_outer_pip_section_already_counted_its_inner_ceiling_section():
    model = SystemModel(_nested("ipcp").tasks, "FP", 1, {"a": "pip", "b": "ipcp"})
    assert _explored(model, {"L": 0, "M": 2, "H": 2})["M"] == 4
    assert run_test("fp-rta", model.problem()).bound("M") >= 4


# ---- class 4: PIP, one resource requested twice --------------------------------------------------------------

OLD_HIGH_BOUND = 6  # C = 3, blocking 3 (one section on r)


def _twice() -> SystemModel:
    return SystemModel((
        TaskModel("H", 10, 10, _cs("r", 1) + (("exec", 1),) + _cs("r", 1), 3),
        TaskModel("L2", 20, 20, (("exec", 1),) + _cs("r", 3), 2),
        TaskModel("L1", 20, 20, _cs("r", 3), 1),
    ), "FP", 1, {"r": "pip"})


@pytest.mark.parametrize("test", ["fp-rta", "fp-rta-pip"])
def test_a_pip_resource_requested_twice_blocks_once_per_request(test, tmp_path):
    model = _twice()
    # L1 holds r; L2 preempts it and waits for r; H arrives, waits, gets r from L1, hands it to L2 at its
    # first unlock, and finds L2 holding it at its second request: 3 + 1 (rest of L1's) + 3 (L2's)
    first = {"L1": 0, "L2": 1, "H": 3}
    assert _explored(model, first)["H"] == 7 > OLD_HIGH_BOUND
    assert _simulated(tmp_path, model, first)["H"] == 7
    result = run_test(test, model.problem())
    assert result.schedulable
    assert result.task("H").blocking_ns == 6 and result.bound("H") == 9


def test_one_request_per_job_keeps_the_one_section_per_resource():
    model = SystemModel((TaskModel("H", 10, 10, _cs("r", 1) + (("exec", 2),), 3),) + _twice().tasks[1:],
                        "FP", 1, {"r": "pip"})
    assert run_test("fp-rta", model.problem()).task("H").blocking_ns == 3


def test_push_through_by_two_jobs_of_a_higher_task_counts_both_lower_sections():
    # one request per job of H, but two of its jobs in M's window: L2, waiting for r when H's first job
    # releases it, owns it when H's second job asks for it, and runs at H's priority over M again
    model = SystemModel((
        TaskModel("H", 4, 4, _cs("r", 1), 4),
        TaskModel("M", 20, 20, (("exec", 3),), 3),
        TaskModel("L2", 40, 40, (("exec", 1),) + _cs("r", 3), 2),
        TaskModel("L1", 40, 40, _cs("r", 3), 1),
    ), "FP", 1, {"r": "pip"})
    worst = _explored(model, {"L1": 0, "L2": 1, "H": 3, "M": 3}, horizon=12)
    assert worst["M"] == 10  # the old bound: 3 + 3 (one section on r) + 2 jobs of H = 8
    result = run_test("fp-rta", model.problem())
    assert result.task("M").blocking_ns == 6 and result.bound("M") == 12  # 3 + 6 + 3 jobs of H
    assert result.task("H").blocking_ns == 3  # H's own single request: one section


def test_a_later_job_of_the_busy_period_counts_its_requests_too():
    # H's deadline beyond its period: a busy period of two H jobs, each with one request of r
    h = AnalysisTask("H", 2, 4, 8, priority=3, critical_sections=(CriticalSection("r", 1),))
    lows = [AnalysisTask(f"L{k}", 3, 40, 40, priority=k, critical_sections=(CriticalSection("r", 3),))
            for k in (1, 2)]
    tasks = [h] + lows
    assert blocking_term(h, tasks, lambda r: "pip", jobs=1).ns == 3
    assert blocking_term(h, tasks, lambda r: "pip", jobs=2).ns == 6
    assert blocking_term(h, tasks, lambda r: "pip").ns == 6  # any number of jobs


# ---- class 5: PI-CV RPC, two calls to one server ----------------------------------------------------------------

OLD_CLIENT_BOUND = 6  # E = 3, interference 3 (one call to S)


def test_two_calls_to_one_server_wait_once_per_call(tmp_path):
    model = SystemModel((
        TaskModel("C", 10, 10, (("call", ("S", 1)), ("exec", 1), ("call", ("S", 1))), 3),
        TaskModel("L2", 20, 20, (("exec", 1), ("call", ("S", 3))), 2),
        TaskModel("L1", 20, 20, (("call", ("S", 3)), ("exec", 1)), 1),
    ), "FP", 1, {})
    first = {"L1": 0, "L2": 1, "C": 3}  # L1's call served, L2's queued, C's first served, then L2's
    assert _explored(model, first)["C"] == 7 > OLD_CLIENT_BOUND
    assert _simulated(tmp_path, model, first, servers=("S",))["C"] == 7
    result = run_test("picv-rpc", model.problem())
    assert result.schedulable
    assert result.task("C").blocking_ns == 6 and result.bound("C") == 9


# ---- found by the widened harness: a plain-mutex holder that sleeps beside a task of its priority ---------

def test_a_plain_mutex_holder_that_may_sleep_beside_a_task_of_its_priority_is_unbounded():
    # L1 sleeps inside its section on r; L2, of the same priority, runs meanwhile and keeps the processor
    # when L1 wakes (FIFO among equals): H waits for all of L2's job, which no section bounds
    model = SystemModel((
        TaskModel("H", 8, 8, _cs("r", 1), 6),
        TaskModel("L1", 16, 16, (("lock", "r"), ("exec", 1), ("sleep", 1), ("exec", 1), ("unlock", "r")), 1),
        TaskModel("L2", 16, 16, (("exec", 4),), 1),
    ), "FP", 1, {"r": "none"})
    assert _explored(model, {"L1": 0, "L2": 0, "H": 1})["H"] == 6  # L2's 4, L1's last 1, H's 1
    result = run_test("fp-rta", model.problem())
    assert result.task("H").bound_ns is None and "unbounded priority inversion" in result.task("H").reason


# ---- the explorer's rules the witnesses above rely on ------------------------------------------------------------

def _slots(model: SystemModel, first: dict[str, int], until: int) -> list:
    jobs = tuple(Job(t.name, first[t.name], 0, t.body) for t in model.tasks)
    return explore(model, Scenario(jobs, tuple(t.name for t in model.tasks)), until).slots["cpu0"]


def test_the_explorer_hands_a_lock_only_to_a_job_that_requested_it():
    # L never ran, so it never requested r: H's first unlock leaves r free for H's second request
    model = SystemModel((TaskModel("H", 10, 10, _cs("r", 1) + _cs("r", 1), 3),
                         TaskModel("L", 10, 10, _cs("r", 2), 1)), "FP", 1, {"r": "pip"})
    assert _slots(model, {"H": 0, "L": 0}, 5) == ["H", "H", "L", "L"]


def test_the_explorer_hands_a_lock_to_its_most_urgent_waiter_at_unlock():
    # L1 holds r; L2 and then M request it (L2 at 2, M at 4); at L1's unlock M (more urgent) owns it, at
    # M's unlock L2 does, so M's second request waits for L2 (were r free then, M would run on: M M L2)
    model = SystemModel((TaskModel("M", 10, 10, (("exec", 1),) + _cs("r", 1) + _cs("r", 1), 3),
                         TaskModel("L2", 10, 10, (("exec", 1),) + _cs("r", 1), 2),
                         TaskModel("L1", 10, 10, _cs("r", 3), 1)), "FP", 1, {"r": "pip"})
    assert _slots(model, {"M": 3, "L2": 1, "L1": 0}, 9) == ["L1", "L2", "L1", "M", "L1", "M", "L2", "M"]


def test_a_job_taking_a_free_lock_keeps_its_place_among_equal_priorities():
    model = SystemModel((TaskModel("A", 10, 10, (("exec", 1),) + _cs("r", 2), 1),
                         TaskModel("B", 10, 10, (("exec", 1),), 1)), "FP", 1, {"r": "none"})
    assert _slots(model, {"A": 0, "B": 0}, 5) == ["A", "A", "A", "B"]

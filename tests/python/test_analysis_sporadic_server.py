"""The analysis of a sporadic reservation (rtsched.analysis.sporadic_server, docs/reservations.md):
hand-computed supply and bounds, the "no bound" case, and, over hypothesis-generated sets,
the simulated schedule against them: the hard tasks below the server never respond later than
fp-rta's bound with the server as a periodic task (Q, T), whatever its tasks ask for, and
the tasks inside never later than ss-fp's bound when it has one. 400 examples found no
counterexample (SIM_PROPERTY_EXAMPLES=400, 2026-11-25); the property catches the classic
defect (posting every refill at the activation + T, premature replenishment: a hard task
misses its bound) and a supply blackout shortened by 10 % (a served task passes its bound)."""

from __future__ import annotations

import math
import os

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rtsched.analysis.reservations import analyze_reservations
from rtsched.analysis.sporadic_server import ss_sbf, ss_tbf
from rtsched.model import taskset_from_dict
from sim_helpers import worst_responses

MS = 1_000_000
US = 1_000


def _set(server, inner, outer):
    return taskset_from_dict({"name": "ss", "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
                              "reservations": [{"name": "SS", "kind": "sporadic", "scheduler": "FP",
                                                "partition": "cpu0", **server}],
                              "tasks": [{**t, "reservation": "SS"} for t in inner] + outer})


def _task(name, priority, period_ms, compute_ms):
    return {"name": name, "partition": "cpu0", "period": f"{period_ms}ms", "priority": priority,
            "body": [{"compute": f"{compute_ms}ms"}]}


def test_supply_has_a_blackout_of_period_minus_budget_then_the_budget_every_period():
    # T = 10, Q = 3: nothing for 7, then 3 at full rate, and again every 10.
    assert [ss_sbf(10, 3, t) for t in (0, 7, 8, 10, 17, 18, 20, 27, 30)] == [0, 0, 1, 3, 3, 4, 6, 6, 9]
    # the least time to receive x: x plus one blackout per started chunk of Q
    assert [ss_tbf(10, 3, x) for x in (1, 3, 4, 5, 6, 7)] == [8, 10, 18, 19, 20, 28]


def test_bounds_inside_and_below_the_server():
    # Inside: a1 (prio 10, 2 ms / 40) and a2 (prio 9, 2 ms / 40) in a 3 / 10 ms server at the
    # top. a1: tbf(2) = 2 + 7 = 9 ms; a2: tbf(2 + 2) = 4 + 7·2 = 18 ms. Below: hard (5 ms / 30)
    # with the server as a periodic task 3 / 10: R = 5 + 3⌈R/10⌉ = 8 ms.
    ts = _set({"period": "10ms", "budget": "3ms", "priority": 30},
              [_task("a1", 10, 40, 2), _task("a2", 9, 40, 2)], [_task("hard", 10, 30, 5)])
    result = analyze_reservations(ts)
    assert {b.name: (b.bound_ns, b.verdict) for b in result.tasks.tasks} == {
        "a1": (9 * MS, "ok"), "a2": (18 * MS, "ok"), "hard": (8 * MS, "ok")}
    outcome = result.outcome("SS")
    assert outcome.result is not None and outcome.result.test == "ss-fp"
    # the least budget: a2 needs tbf(4) ≤ 40 ms: with Q = 1 ms, 4 + 9·4 = 40
    assert outcome.min_budget_ns == 1 * MS and outcome.min_budget_linear_ns is None
    assert result.schedulable


def test_below_another_task_the_server_s_tasks_have_no_bound_and_fail_nothing():
    ts = _set({"period": "10ms", "budget": "3ms", "priority": 20},
              [_task("a1", 10, 40, 2)], [_task("hi", 30, 30, 5), _task("lo", 10, 30, 5)])
    result = analyze_reservations(ts)
    bounds = {b.name: b for b in result.tasks.tasks}
    assert (bounds["a1"].bound_ns, bounds["a1"].verdict) == (None, "unknown")
    assert bounds["a1"].reason.startswith('no bound: sporadic server "SS" is not the highest priority of its '
                                          "partition (hi (30) at or above it)")
    # hi: 5 ms; the server (3 / 10) below it: lo = 5 + 5 + 3·⌈R/10⌉ → 16 ms
    assert (bounds["hi"].bound_ns, bounds["lo"].bound_ns) == (5 * MS, 16 * MS)
    assert result.schedulable


def test_a_served_task_that_sleeps_has_no_bound_and_an_empty_server_holds_nothing():
    sleeper = {**_task("a1", 10, 40, 2), "body": [{"compute": "1ms"}, {"sleep": "1ms"}, {"compute": "1ms"}]}
    result = analyze_reservations(_set({"period": "10ms", "budget": "3ms", "priority": 30}, [sleeper], []))
    (bound,) = result.tasks.tasks
    assert (bound.bound_ns, bound.verdict) == (None, "unknown")
    assert bound.reason == 'no bound for the tasks of sporadic server "SS": a1: it sleeps (self-suspension)'
    empty = analyze_reservations(_set({"period": "10ms", "budget": "3ms", "priority": 30}, [],
                                      [_task("hard", 10, 30, 5)]))
    assert empty.schedulable and empty.outcome("SS").result is not None
    assert {b.name: b.bound_ns for b in empty.tasks.tasks} == {"hard": 8 * MS}


PERIODS_MS = (5, 6, 8, 10, 12, 15, 20, 24, 30, 40, 60)
EXAMPLES = int(os.environ.get("SIM_PROPERTY_EXAMPLES", "40"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def sets(draw):
    period = draw(st.sampled_from((5, 8, 10, 12, 20))) * MS
    budget = draw(st.integers(1, period // (2 * 100 * US))) * 100 * US
    inner, periods = [], [period]
    for i in range(draw(st.integers(1, 3))):  # soft, aperiodic: sporadic gaps, demand up to overload
        p = draw(st.sampled_from(PERIODS_MS)) * MS
        periods.append(p)
        c = draw(st.integers(1, max(1, p // (3 * 100 * US)))) * 100 * US
        inner.append({"name": f"a{i}", "partition": "cpu0", "period": f"{p}ns", "priority": 10 + i,
                      "offset": f"{draw(st.integers(0, p // MS)) * MS}ns", "kind": "sporadic",
                      "sporadic": {"max_extra": f"{p}ns", "seed": draw(st.integers(1, 99))},
                      "body": [{"compute": f"{c}ns"}]})
    outer = []
    hard = sorted(draw(st.sampled_from(PERIODS_MS)) * MS for _ in range(draw(st.integers(1, 3))))
    for i, p in enumerate(hard):  # hard, periodic, rate monotonic below the server
        c = draw(st.integers(1, max(1, p // (3 * 100 * US)))) * 100 * US
        outer.append({"name": f"h{i}", "partition": "cpu0", "period": f"{p}ns", "priority": 20 - i,
                      "offset": f"{draw(st.integers(0, p // MS)) * MS}ns", "body": [{"compute": f"{c}ns"}]})
    server = {"period": f"{period}ns", "budget": f"{budget}ns", "priority": 30}
    return _set(server, inner, outer), periods + hard


@FAST
@given(sets(), st.integers(1, 1000))
def test_hard_tasks_below_keep_their_rta_bound_and_the_served_tasks_theirs(tmp_path, generated, seed):
    taskset, periods = generated
    result = analyze_reservations(taskset)
    bounds = {b.name: b for b in result.tasks.tasks}
    hard = [t.name for t in taskset.tasks if t.reservation is None]
    if not all(bounds[n].verdict == "ok" for n in hard):
        event("the hard tasks do not fit beside the server")
        return
    event("the served tasks have bounds" if all(bounds[t.name].verdict == "ok" for t in taskset.tasks
                                                if t.reservation) else "a served task has no bound within D")
    worst, _ = worst_responses(tmp_path / "t.rtst", taskset, 3 * math.lcm(*periods), seed=seed)
    for name, response in worst.items():
        bound = bounds[name] if name in bounds else None
        if response is None or bound is None or bound.verdict != "ok":
            continue
        if name not in hard:
            event("a served task met its ss-fp bound")
        assert response <= bound.bound_ns, (name, response, bound.bound_ns)
    assert all(worst[n] is not None for n in bounds if bounds[n].verdict == "ok")  # each bounded task completed

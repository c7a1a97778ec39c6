"""Properties of the simulator against the analysis (hypothesis over generated sets):
uniprocessor FP with synchronous release and WCETs reaches fp-rta's exact bound; EDF
with U <= 1 never misses; no simulated response exceeds a sustainable test's bound
(fp-rta, edf-qpa) under offsets, sporadic gaps and shorter execution times, nor fp-rta's
with the blocking terms of pip, pcp, srp and ipcp; G-EDF and G-FP on two CPUs never
contradict a global test that accepts the set (seven G-EDF tests, two G-FP ones); PI-CV
RPC bounds hold. 400 examples each found no counterexample (SIM_PROPERTY_EXAMPLES=400,
2026-11-25; 600 for the global and RPC properties)."""

from __future__ import annotations

import math
import os

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from rtsched.analysis import from_taskset, run_test
from rtsched.model import taskset_from_dict
from sim_helpers import worst_responses

MS = 1_000_000
US = 1_000
#: Periods dividing 120 ms: every hyperperiod is at most 120 ms.
PERIODS_MS = (5, 6, 8, 10, 12, 15, 20, 24, 30, 40, 60, 120)


@st.composite
def task_params(draw, n_max=6, u_max=1.0):
    n = draw(st.integers(2, n_max))
    periods = [draw(st.sampled_from(PERIODS_MS)) * MS for _ in range(n)]
    shares = [draw(st.integers(1, 100)) for _ in range(n)]
    u = draw(st.floats(0.2, u_max))
    wcets = [max(10 * US, int(u * s / sum(shares) * p) // US * US) for s, p in zip(shares, periods)]
    return periods, wcets


def _set(scheduler, periods, wcets, extra=None, resources=()):
    tasks = []
    order = sorted(range(len(periods)), key=lambda i: (periods[i], i))  # rate monotonic
    for rank, i in enumerate(order):
        task = {"name": f"t{i}", "period": f"{periods[i]}ns", "partition": "cpu0",
                "body": [{"compute": f"{wcets[i]}ns"}]}
        if scheduler == "P-FP":
            task["priority"] = 90 - rank
        task.update((extra or {}).get(i, {}))
        tasks.append(task)
    return taskset_from_dict({"name": "gen", "platform": {"scheduler": scheduler, "cpus": [0]}, "tasks": tasks,
                              "resources": list(resources)})


#: Generated sets per property (40 in the suite; SIM_PROPERTY_EXAMPLES=400 for a longer hunt).
EXAMPLES = int(os.environ.get("SIM_PROPERTY_EXAMPLES", "40"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FAST
@given(task_params(u_max=0.95))
def test_fp_synchronous_worst_response_equals_the_exact_rta(tmp_path, params):
    periods, wcets = params
    taskset = _set("P-FP", periods, wcets)
    result = run_test("fp-rta", from_taskset(taskset))
    bounds = {b.name: b.bound_ns for b in result.tasks}
    if any(bounds[t.name] is None or bounds[t.name] > t.period_ns for t in taskset.tasks):
        return  # not schedulable with D = T: the first busy period is not the worst
    hyper = math.lcm(*periods)
    worst, _ = worst_responses(tmp_path / "t.rtst", taskset, hyper)
    assert worst == bounds


@FAST
@given(task_params(u_max=1.0))
def test_edf_with_utilization_at_most_one_never_misses(tmp_path, params):
    periods, wcets = params
    if sum(c / p for c, p in zip(wcets, periods)) > 1:
        return
    taskset = _set("P-EDF", periods, wcets)
    _, misses = worst_responses(tmp_path / "t.rtst", taskset, 2 * math.lcm(*periods))
    assert misses == 0


@FAST
@given(task_params(u_max=0.95), st.data())
def test_no_response_exceeds_a_sustainable_bound(tmp_path, params, data):
    periods, wcets = params
    scheduler, test = data.draw(st.sampled_from((("P-FP", "fp-rta"), ("P-EDF", "edf-qpa"))))
    extra = {}
    for i, p in enumerate(periods):
        extra[i] = {"offset": f"{data.draw(st.integers(0, p // US)) * US}ns"}
        if scheduler == "P-EDF":
            extra[i]["deadline"] = f"{max(wcets[i], data.draw(st.integers(wcets[i] // US, p // US)) * US)}ns"
        if data.draw(st.booleans()):
            extra[i].update(kind="sporadic", sporadic={"max_extra": f"{p // 2}ns", "seed": i + 1})
    taskset = _set(scheduler, periods, wcets, extra)
    result = run_test(test, from_taskset(taskset))
    if not result.schedulable:
        return
    bounds = {b.name: b.bound_ns for b in result.tasks}
    low = data.draw(st.sampled_from((None, 300_000)))
    worst, misses = worst_responses(tmp_path / "t.rtst", taskset, 3 * math.lcm(*periods), exec_low_ppm=low,
                                   seed=data.draw(st.integers(1, 1000)))
    assert misses == 0
    for name, response in worst.items():
        assert response is None or response <= bounds[name], (name, response, bounds[name])


@FAST
@given(task_params(n_max=5, u_max=0.8), st.data())
def test_no_response_exceeds_fp_rta_with_blocking(tmp_path, params, data):
    """Uniprocessor FP with critical sections on shared resources (pip, pcp, srp, ipcp):
    fp-rta's bound with the protocol's blocking term holds in every simulated job."""
    periods, wcets = params
    protocol = data.draw(st.sampled_from(("pip", "pcp", "srp", "ipcp")))
    extra = {}
    for i, (p, c) in enumerate(zip(periods, wcets)):
        if c < 30 * US or not data.draw(st.booleans()):
            continue
        resource = data.draw(st.sampled_from(("r1", "r2")))
        inside = data.draw(st.integers(1, c // US - 2)) * US
        before = data.draw(st.integers(0, (c - inside) // US - 1)) * US
        body = ([{"compute": f"{before}ns"}] if before else []) + [
            {"lock": resource}, {"compute": f"{inside}ns"}, {"unlock": resource}]
        rest = c - before - inside
        if rest:
            body.append({"compute": f"{rest}ns"})
        extra[i] = {"body": body, "offset": f"{data.draw(st.integers(0, p // US)) * US}ns"}
    used = sorted({a["lock"] for e in extra.values() for a in e["body"] if "lock" in a})
    if not used:
        return
    taskset = _set("P-FP", periods, wcets, extra, [{"name": r, "protocol": protocol} for r in used])
    result = run_test("fp-rta", from_taskset(taskset))
    if not result.schedulable:
        return
    event(f"checked {protocol}")
    bounds = {b.name: b.bound_ns for b in result.tasks}
    worst, misses = worst_responses(tmp_path / "t.rtst", taskset, 2 * math.lcm(*periods))
    assert misses == 0
    for name, response in worst.items():
        assert response is None or response <= bounds[name], (protocol, name, response, bounds[name])


#: The global tests that give a verdict (and, for the RTAs, bounds) for every legal
#: sporadic job sequence with execution times up to the WCETs, by scheduler.
GLOBAL_TESTS = {"G-EDF": ("gedf-gfb", "gedf-bcl", "gedf-bcl-iterative", "gedf-rta", "gedf-baker", "gedf-baruah",
                          "gedf-ffdbf"),
                "G-FP": ("gfp-rta", "gfp-guan")}


@FAST
@given(task_params(n_max=6, u_max=1.6), st.data())
def test_no_global_test_is_contradicted_by_a_simulated_schedule(tmp_path, params, data):
    """Two CPUs, one ready queue: whatever global test accepts the set, the simulated G-EDF or
    G-FP schedule (offsets, sporadic gaps, shorter execution times) misses nothing and no job
    exceeds the test's bound where it gives one."""
    periods, wcets = params
    assume(all(c <= p for c, p in zip(wcets, periods)))
    scheduler = data.draw(st.sampled_from(sorted(GLOBAL_TESTS)))
    tasks = []
    for i, (p, c) in enumerate(zip(periods, wcets)):
        deadline = max(c, data.draw(st.integers(c // US, p // US)) * US)
        task = {"name": f"t{i}", "period": f"{p}ns", "deadline": f"{deadline}ns",
                "offset": f"{data.draw(st.integers(0, p // US)) * US}ns", "body": [{"compute": f"{c}ns"}]}
        if scheduler == "G-FP":
            task["priority"] = 90 - sorted(range(len(periods)), key=lambda k: (periods[k], k)).index(i)
        if data.draw(st.booleans()):
            task.update(kind="sporadic", sporadic={"max_extra": f"{p // 2}ns", "seed": i + 1})
        tasks.append(task)
    taskset = taskset_from_dict({"name": "gen", "platform": {"scheduler": scheduler, "cpus": [0, 1]},
                                 "tasks": tasks})
    problem = from_taskset(taskset)
    accepted = {}
    for test in GLOBAL_TESTS[scheduler]:
        result = run_test(test, problem)
        if result.schedulable:
            accepted[test] = {b.name: b.bound_ns for b in result.tasks}
    if not accepted:
        return
    event(f"{scheduler} accepted by {len(accepted)} tests")
    low = data.draw(st.sampled_from((None, 300_000)))
    worst, misses = worst_responses(tmp_path / "t.rtst", taskset, 3 * math.lcm(*periods), exec_low_ppm=low,
                                    seed=data.draw(st.integers(1, 1000)))
    assert misses == 0, sorted(accepted)
    for test, bounds in accepted.items():
        for name, response in worst.items():
            bound = bounds.get(name)
            assert response is None or bound is None or response <= bound, (test, name, response, bound)


@FAST
@given(st.integers(1, 3), st.data())
def test_picv_rpc_bounds_hold_in_simulation(tmp_path, clients, data):
    """Clients on one CPU call a lower-priority server that PI-CV lends their priority, beside
    independent tasks (seed 004 §5): no simulated response exceeds picv-rpc's bound."""
    service_us = data.draw(st.integers(100, 2_000))
    tasks = []
    for i in range(clients + data.draw(st.integers(0, 2))):
        period_ms = data.draw(st.sampled_from((10, 20, 30, 40, 60)))
        body = [{"compute": f"{period_ms * data.draw(st.integers(10, 400))}us"}]  # 1-40 % of the period
        if i < clients:
            body.append({"call": {"server": "Server", "duration": f"{service_us}us"}})
        tasks.append({"name": f"t{i}", "period": f"{period_ms}ms", "priority": 90 - i, "partition": "cpu0",
                      "offset": f"{data.draw(st.integers(0, period_ms * 1000))}us", "body": body})
    taskset = taskset_from_dict({
        "name": "rpc", "platform": {"scheduler": "P-FP", "cpus": [0]}, "tasks": tasks,
        "servers": [{"name": "Server", "priority": 10, "partition": "cpu0", "duration": f"{service_us}us"}]})
    result = run_test("picv-rpc", from_taskset(taskset))
    if not result.schedulable:
        return
    event("checked")
    bounds = {b.name: b.bound_ns for b in result.tasks}
    worst, misses = worst_responses(tmp_path / "t.rtst", taskset, 2 * math.lcm(*(t.period_ns for t in taskset.tasks)))
    assert misses == 0
    for name, response in worst.items():
        if name in bounds:
            assert response is None or response <= bounds[name], (name, response, bounds[name])

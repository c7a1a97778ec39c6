"""Property tests (hypothesis): monotonicity, lower bounds, dominance, agreement with simulation."""

from __future__ import annotations

from dataclasses import replace
from math import lcm

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched.analysis import AnalysisProblem, AnalysisTask, CriticalSection, run_test
from rtsched.analysis.hierarchical import lsbf, min_budget, sbf
from sim_helpers import problem_taskset, worst_responses

#: The problems' times are small integers; simulated, one unit is a millisecond (SCHED_DEADLINE
#: refuses runtimes below 1024 ns, so the task-set file refuses them too).
SCALE_NS = 1_000_000
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def fp_sets(draw, max_tasks=5, resources=2, rm=False, implicit=False):
    n = draw(st.integers(1, max_tasks))
    periods = [draw(st.sampled_from([4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 40])) for _ in range(n)]
    tasks = []
    for i, t in enumerate(periods):
        c = draw(st.integers(1, max(1, t // 2)))
        d = t if implicit else draw(st.integers(c, t))
        sections = []
        for r in range(resources):
            if draw(st.booleans()):
                sections.append(CriticalSection(f"r{r}", draw(st.integers(1, c))))
        tasks.append((c, t, d, tuple(sections)))
    if rm:
        order = sorted(range(n), key=lambda k: tasks[k][1])
    else:
        order = draw(st.permutations(range(n)))
    prio = {k: n - pos for pos, k in enumerate(order)}
    protocol = draw(st.sampled_from(["pip", "pcp", "srp", "np"]))
    return AnalysisProblem(
        tuple(AnalysisTask(f"t{k}", c, t, d, priority=prio[k], critical_sections=cs)
              for k, (c, t, d, cs) in enumerate(tasks)),
        protocols={f"r{r}": protocol for r in range(resources)},
    )


@FAST
@given(fp_sets(), st.data())
def test_more_wcet_never_lowers_a_bound(problem, data):
    k = data.draw(st.integers(0, len(problem.tasks) - 1))
    extra = data.draw(st.integers(1, 5))
    bigger = problem.with_tasks(replace(t, wcet_ns=t.wcet_ns + extra) if i == k else t
                                for i, t in enumerate(problem.tasks))
    before = run_test("fp-rta", problem)
    after = run_test("fp-rta", bigger)
    for a, b in zip(before.tasks, after.tasks):
        if b.bound_ns is not None:
            assert a.bound_ns is not None and a.bound_ns <= b.bound_ns
    if after.schedulable:
        assert before.schedulable


@FAST
@given(fp_sets())
def test_a_bound_is_never_below_wcet_plus_blocking(problem):
    r = run_test("fp-rta", problem)
    for b in r.tasks:
        if b.bound_ns is not None:
            assert b.bound_ns >= problem.task(b.name).wcet_ns + b.blocking_ns


@FAST
@given(fp_sets(rm=True, implicit=True))
def test_rta_dominates_hyperbolic_dominates_liu_layland(problem):
    ll = run_test("fp-ll", problem).schedulable
    hb = run_test("fp-hyperbolic", problem).schedulable
    rta = run_test("fp-rta", problem).schedulable
    assert not ll or hb
    assert not hb or rta


@FAST
@given(fp_sets(resources=3))
def test_pcp_never_worse_than_pip(problem):
    pip = run_test("fp-rta-pip", problem)
    pcp = run_test("fp-rta-pcp", problem)
    for a, b in zip(pip.tasks, pcp.tasks):
        if a.bound_ns is not None:
            assert b.bound_ns is not None and b.bound_ns <= a.bound_ns


SIMULATED = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SIMULATED
@given(fp_sets(resources=0, max_tasks=4))
def test_rta_equals_simulated_worst_case(tmp_path, problem):
    # distinct priorities in any order, constrained deadlines, synchronous release:
    # the RTA is exact, so rtsched.sim reaches every bound within the hyperperiod
    r = run_test("fp-rta", problem)
    if not r.schedulable:
        return
    horizon = lcm(*(t.period_ns for t in problem.tasks))
    worst, _ = worst_responses(tmp_path / "fp.rtst", problem_taskset(problem, SCALE_NS), horizon * SCALE_NS)
    for b in r.tasks:
        assert worst[b.name] == b.bound_ns * SCALE_NS


@SIMULATED
@given(fp_sets(resources=0, max_tasks=4))
def test_edf_demand_and_qpa_agree_with_simulation(tmp_path, problem):
    p = replace(problem, scheduler="EDF")
    dbf_ok = run_test("edf-dbf", p).schedulable
    qpa_ok = run_test("edf-qpa", p).schedulable
    assert dbf_ok == qpa_ok
    horizon = lcm(*(t.period_ns for t in p.tasks)) + max(t.deadline_ns for t in p.tasks)
    if p.utilization() <= 1:
        _, misses = worst_responses(tmp_path / "edf.rtst", problem_taskset(p, SCALE_NS), 2 * horizon * SCALE_NS)
        assert dbf_ok == (misses == 0)
    if all(t.deadline_ns == t.period_ns for t in p.tasks):
        assert run_test("edf-util", p).schedulable == qpa_ok


@FAST
@given(fp_sets(resources=0, max_tasks=4))
def test_full_supply_component_equals_rta(problem):
    # Γ(Π, Π) supplies everything: prm-fp gives the plain RTA's bounds
    r = run_test("prm-fp", problem, period_ns=7, budget_ns=7)
    plain = run_test("fp-rta", problem)
    assert r.schedulable == plain.schedulable
    if plain.schedulable:
        assert r.bounds() == plain.bounds()


@FAST
@given(st.integers(1, 50), st.data())
def test_linear_supply_is_below_the_exact_one(period, data):
    budget = data.draw(st.integers(0, period))
    for t in range(0, 4 * period):
        assert lsbf(period, budget, t) <= sbf(period, budget, t) <= t


@FAST
@given(fp_sets(resources=0, max_tasks=3))
def test_linear_budget_is_never_smaller(problem):
    exact = min_budget(problem.tasks, 4, "FP")
    linear = min_budget(problem.tasks, 4, "FP", linear=True)
    if linear is not None:
        assert exact is not None and exact <= linear


@st.composite
def gedf_sets(draw):
    m = draw(st.integers(1, 3))
    n = draw(st.integers(m + 1, m + 4))
    tasks = []
    for i in range(n):
        t = draw(st.sampled_from([10, 20, 25, 40, 50]))
        c = draw(st.integers(1, t))
        d = draw(st.integers(c, t))
        tasks.append(AnalysisTask(f"t{i}", c, t, d))
    return AnalysisProblem(tuple(tasks), scheduler="G-EDF", cpus=m)


@FAST
@given(gedf_sets())
def test_gedf_sufficient_tests_never_pass_infeasible_sets(problem):
    m = problem.cpus
    passed = [name for name in ("gedf-gfb", "gedf-bcl", "gedf-rta") if run_test(name, problem).schedulable]
    if passed:
        assert problem.utilization() <= m
        assert all(t.density <= 1 for t in problem.tasks)
    if m == 1 and run_test("gedf-gfb", problem).schedulable:
        # on one processor GFB is the density test, which implies the exact EDF test
        assert run_test("edf-dbf", replace(problem, scheduler="EDF")).schedulable


@FAST
@given(gedf_sets())
def test_gedf_rta_bounds_within_wcet_and_deadline(problem):
    r = run_test("gedf-rta", problem)
    for b in r.tasks:
        if b.bound_ns is not None:
            t = problem.task(b.name)
            assert t.wcet_ns <= b.bound_ns <= t.deadline_ns


@st.composite
def pfp_sets(draw):
    n = draw(st.integers(2, 6))
    tasks = []
    for i in range(n):
        t = draw(st.sampled_from([20, 40, 50, 100, 200]))
        c = draw(st.integers(2, max(2, t // 4)))
        sections = tuple(CriticalSection(f"g{r}", draw(st.integers(1, c // 2)))
                         for r in range(2) if draw(st.booleans()))
        tasks.append(AnalysisTask(f"t{i}", c, t, t, priority=draw(st.integers(1, 50)),
                                  critical_sections=sections, partition=f"p{i % 2}"))
    proto = draw(st.sampled_from(["mpcp", "fmlp+"]))
    return AnalysisProblem(tuple(tasks), scheduler="P-FP", cpus=2, protocols={"g0": proto, "g1": proto})


@FAST
@given(pfp_sets(), st.data())
def test_multiprocessor_locking_bounds_are_monotone_and_above_wcet(problem, data):
    name = "p-fp-mpcp" if problem.protocol("g0") == "mpcp" else "p-fp-fmlp+"
    r = run_test(name, problem)
    for b in r.tasks:
        if b.bound_ns is not None:
            assert b.bound_ns >= problem.task(b.name).wcet_ns + b.blocking_ns
    k = data.draw(st.integers(0, len(problem.tasks) - 1))
    bigger = problem.with_tasks(replace(t, wcet_ns=t.wcet_ns + 3) if i == k else t
                                for i, t in enumerate(problem.tasks))
    after = run_test(name, bigger)
    for a, b in zip(r.tasks, after.tasks):
        if b.bound_ns is not None:
            assert a.bound_ns is not None and a.bound_ns <= b.bound_ns

"""p-fp-dpcp-lp and p-fp-dflp-lp: the distributed protocols' LP blocking (after Brandenburg, RTAS 2013).

A set worked by hand under both protocols (every LP value and bound), the
DPCP wait W by hand, the LP against SciPy's linprog (HiGHS) on generated
sets, two properties on generated sets (adding a request never lowers any
task's LP blocking; the LP never exceeds the trivial bound, every section
of every other task once per job in the window), the refusals with their
reasons, the registry and ``rtsched analyze`` on examples/dpcp-dflp.yaml.
"""

from __future__ import annotations

import os

import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from rtsched.analysis import TESTS, AnalysisProblem, AnalysisTask, CriticalSection, run_test
from rtsched.analysis.lp_distributed import build_distributed_lp, distributed_lp_blocking, dpcp_wait
from rtsched.analysis.registry import DESCRIPTIONS, default_test

MS = 1_000_000
ROOT = Path(__file__).resolve().parents[2]


def _task(name, c, t, prio, part, *sections):
    return AnalysisTask(name, c * MS, t * MS, t * MS, priority=prio, partition=part,
                        critical_sections=tuple(CriticalSection(r, n * MS) for r, n in sections))


def _worked(protocol: str) -> AnalysisProblem:
    """cpu0: τ1 (C 2, T = D 10, prio 3, q for 1), τ3 (C 3, T = D 20, prio 1, q for 2);
    cpu1: τ2 (C 2, T = D 10, prio 2, q for 1); q's agents on cpu1."""
    tasks = (_task("t1", 2, 10, 3, "cpu0", ("q", 1)), _task("t2", 2, 10, 2, "cpu1", ("q", 1)),
             _task("t3", 3, 20, 1, "cpu0", ("q", 2)))
    return AnalysisProblem(tasks, "P-FP", protocols={"q": protocol}, sync_partitions={"q": "cpu1"})


def test_dpcp_by_hand():
    """Supplies ⌈(D_i + D_x)/T_x⌉: in τ1's window (10) 2 jobs of τ2 and 2 of τ3; ceiling(q) = 3.
    τ1: its one request to cpu1 waits for one lower-priority agent at most (C7, cap 1): τ3's 2 ms;
    nothing preempts it (no agent on cpu0). B = own 1 + 2; e = 2 − 1; R = 1 + 3 = 4.
    τ2 (cpu1, its request local): W = 1 + 2 (one lower agent) + ⌈(W + 10)/10⌉·1 → 5; τ1's agents
    wait-delay at most 1·1·⌈15/10⌉ = 2 times (C8) or preempt τ2 (any number: τ1 is remote); τ3's
    agents (C7 cap 1) or preempt (τ3 is remote too): both supplies full, 2·1 + 2·2 = 6.
    B = 1 + 6, e = 1, R = 8. τ3: W = 2 + ⌈(W + 10)/10⌉·(1 + 1) → 6; τ1 and τ2 each at most
    ⌈16/10⌉ = 2 times (C8): LP 4, B = 6, e = 1; τ1 interferes with e = 1, jitter R1 − e1 = 3:
    R = 7 + ⌈(R + 3)/10⌉ → 9."""
    problem = _worked("dpcp")
    glob = frozenset({"q"})
    ceiling = {"q": 3}
    sync: dict[str, str | None] = {"q": "cpu1"}
    assert dpcp_wait(problem.task("t2"), "q", problem.tasks, glob, sync, ceiling) == 5 * MS
    assert dpcp_wait(problem.task("t3"), "q", problem.tasks, glob, sync, ceiling) == 6 * MS
    result = run_test("p-fp-dpcp-lp", problem)
    assert result.details["lp_blocking_ns"] == {"t1": 2 * MS, "t2": 6 * MS, "t3": 4 * MS}
    assert [result.task(n).blocking_ns for n in ("t1", "t2", "t3")] == [3 * MS, 7 * MS, 6 * MS]
    assert [result.bound(n) for n in ("t1", "t2", "t3")] == [4 * MS, 8 * MS, 9 * MS]
    assert result.schedulable and result.label == "sufficient"


def test_dflp_by_hand():
    """The same set under DFLP: each request waits for at most one agent of each other task at
    its processor (C5). τ1: τ2's 1 + τ3's 2 = 3, B = 4, R = 5. τ2: τ1's agents 2 (supply, waiting
    or preempting) + τ3's 2·2 = 6, R = 8. τ3: τ1's and τ2's once each, 2, B = 4; τ1's jitter
    5 − 1 = 4: R = 5 + ⌈(R + 4)/10⌉ → 6."""
    result = run_test("p-fp-dflp-lp", _worked("dflp"))
    assert result.details["lp_blocking_ns"] == {"t1": 3 * MS, "t2": 6 * MS, "t3": 2 * MS}
    assert [result.bound(n) for n in ("t1", "t2", "t3")] == [5 * MS, 8 * MS, 6 * MS]
    assert result.schedulable


@pytest.mark.parametrize("protocol, lp_ms", [("dpcp", 6), ("dflp", 5)])
def test_local_lower_priority_agents_once_per_arrival(protocol, lp_ms):
    """C3: τ2 (lower, cpu0) locks q, whose agents run on cpu0, every 2 ms; τ1 (cpu0, T = D = 20)
    makes one request, to r on cpu1. τ2 issues requests only while τ1 is not ready: 1 + 1 of its
    agents preempt τ1 (2 ms), though ⌈(20 + 2)/2⌉ = 11 jobs of τ2 meet τ1's window. τ3 (cpu1,
    T = D = 50, 2 jobs in the window) preempts τ1 with both its q agents (2 ms, remote: no C3)
    and delays τ1's request on r: DPCP, W = 1 + ⌈(W + 50)/50⌉·1 = 3 so both jobs (C8: 2 ms);
    DFLP, one agent of τ3 per request of τ1 (C5: 1 ms)."""
    t1 = _task("t1", 2, 20, 2, "cpu0", ("r", 1))
    t2 = _task("t2", 1, 2, 1, "cpu0", ("q", 1))
    t3 = _task("t3", 2, 50, 3, "cpu1", ("q", 1), ("r", 1))
    problem = AnalysisProblem((t1, t2, t3), "P-FP", protocols={"q": protocol, "r": protocol},
                              sync_partitions={"q": "cpu0", "r": "cpu1"})
    glob = problem.global_resources()
    lp = build_distributed_lp(t1, problem.tasks, glob, {q: problem.sync_partition(q) for q in glob}, protocol)
    assert lp is not None and lp.solve().bound_ns == lp_ms * MS


def _random_problem(rng: random.Random, protocol: str) -> AnalysisProblem:
    tasks = []
    prios = rng.sample(range(1, 20), 6)
    for k in range(rng.randint(3, 6)):
        period = rng.choice((10, 20, 25, 40, 50, 100))
        sections = tuple(CriticalSection(rng.choice("qrs"), rng.randint(1, 3) * MS)
                         for _ in range(rng.choice((0, 1, 1, 2))))
        tasks.append(AnalysisTask(f"t{k}", rng.randint(1, 4) * MS + sum(cs.length_ns for cs in sections),
                                  period * MS, period * MS, priority=prios[k], partition=f"cpu{rng.randint(0, 1)}",
                                  critical_sections=sections))
    sync = {r: f"cpu{rng.randint(0, 1)}" for r in "qrs"}
    return AnalysisProblem(tuple(tasks), "P-FP", protocols={r: protocol for r in "qrs"}, sync_partitions=sync)


def _lps(problem: AnalysisProblem, protocol: str):
    glob = problem.global_resources()
    sync = {q: problem.sync_partition(q) for q in glob}
    return {t.name: build_distributed_lp(t, problem.tasks, glob, sync, protocol) for t in problem.tasks}


@pytest.mark.parametrize("protocol", ["dpcp", "dflp"])
def test_lp_matches_highs(protocol):
    scipy_optimize = pytest.importorskip("scipy.optimize", reason="SciPy is not a dependency; cross-check only")
    import numpy as np

    rng = random.Random(22)
    checked = 0
    for _ in range(60):
        for lp in _lps(_random_problem(rng, protocol), protocol).values():
            if lp is None or not lp.edges:
                continue
            nc = len(lp.caps)
            a = np.zeros((nc + len(lp.supply), len(lp.edges)))
            for e, (c, s) in enumerate(lp.edges):
                a[c, e] = a[nc + s, e] = 1
            res = scipy_optimize.linprog(-np.array([lp.lengths[s] for _, s in lp.edges], dtype=float), A_ub=a,
                                         b_ub=np.array(lp.caps + lp.supply, dtype=float), bounds=(0, None),
                                         method="highs")
            assert res.status == 0
            assert lp.solve().bound_ns == round(-res.fun)
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("protocol", ["dpcp", "dflp"])
def test_never_above_the_trivial_bound(protocol):
    """Every section of every other task charged once per job of it in the window, and no more."""
    rng = random.Random(5)
    for _ in range(80):
        problem = _random_problem(rng, protocol)
        for name, lp in _lps(problem, protocol).items():
            if lp is None:
                continue
            i = problem.task(name)
            trivial = sum(-(-(i.deadline_ns + x.deadline_ns) // x.period_ns) * cs.length_ns
                          for x in problem.tasks if x is not i for cs in x.critical_sections)
            assert lp.solve().bound_ns <= trivial


@pytest.mark.parametrize("protocol", ["dpcp", "dflp"])
def test_adding_a_request_never_lowers_the_blocking(protocol):
    rng = random.Random(9)
    compared = 0
    for _ in range(80):
        problem = _random_problem(rng, protocol)
        before = _lps(problem, protocol)
        k = rng.randrange(len(problem.tasks))
        x = problem.tasks[k]
        extra = CriticalSection(rng.choice("qrs"), rng.randint(1, 3) * MS)
        grown = replace(x, wcet_ns=x.wcet_ns + extra.length_ns, critical_sections=x.critical_sections + (extra,))
        after = _lps(problem.with_tasks(problem.tasks[:k] + (grown,) + problem.tasks[k + 1:]), protocol)
        for name, lp in before.items():
            if lp is None:
                continue
            new = after[name]
            if new is None:  # a DPCP wait grew past the deadline: no bound at all, not a lower one
                assert protocol == "dpcp"
                continue
            assert new.solve().bound_ns >= lp.solve().bound_ns
            compared += 1
    assert compared > 100


def test_sections_nested_or_inside_others_are_refused():
    t1 = AnalysisTask("t1", 3 * MS, 10 * MS, 10 * MS, priority=2, partition="cpu0",
                      critical_sections=(CriticalSection("l", 2 * MS, ("q",)), CriticalSection("q", 1 * MS,
                                                                                                outermost=False)))
    t2 = _task("t2", 2, 10, 1, "cpu1", ("q", 1))
    result = run_test("p-fp-dpcp-lp", AnalysisProblem((t1, t2), "P-FP", protocols={"q": "dpcp", "l": "pcp"}))
    assert result.verdict == "unsupported"
    assert result.reason == "t1: a dpcp section nested with another (l); p-fp-dpcp-lp assumes non-nested ones"


def test_refusals():
    t1, t2 = _task("t1", 2, 10, 2, "cpu0", ("q", 1)), _task("t2", 2, 10, 1, "cpu1", ("q", 1))
    mixed = AnalysisProblem((t1, replace(t2, critical_sections=t2.critical_sections + (CriticalSection("r", MS),)),
                             replace(t1, name="t3", critical_sections=(CriticalSection("r", MS),))),
                            "P-FP", protocols={"q": "dpcp", "r": "dflp"})
    assert run_test("p-fp-dpcp-lp", mixed).reason == ("p-fp-dpcp-lp assumes dpcp on every global resource; "
                                                      "some use dflp")
    long = AnalysisProblem((replace(t1, deadline_ns=20 * MS), t2), "P-FP", protocols={"q": "dflp"})
    assert run_test("p-fp-dflp-lp", long).reason == ("t1: deadline above the period; p-fp-dflp-lp bounds one "
                                                     "job's blocking and assumes D ≤ T")
    cluster = AnalysisProblem((t1, t2), "P-FP", protocols={"q": "dflp"}, sync_partitions={"q": "big"},
                              partition_cpus={"big": 2})
    assert run_test("p-fp-dflp-lp", cluster).reason == ("q: its synchronization partition big has several CPUs; "
                                                        "the agents' analysis assumes one")
    assert run_test("p-fp-mpcp", AnalysisProblem((t1, t2), "P-FP", protocols={"q": "dpcp"})).reason == (
        "q is under dpcp, whose sections run on another processor: use p-fp-dpcp-lp")


def test_default_sync_partition_is_the_first_users():
    t1, t2 = _task("t1", 2, 10, 2, "cpu1", ("q", 1)), _task("t2", 2, 10, 1, "cpu0", ("q", 1))
    problem = AnalysisProblem((t1, t2), "P-FP", protocols={"q": "dpcp"})
    assert problem.sync_partition("q") == "cpu1"
    assert replace(problem, sync_partitions={"q": "cpu0"}).sync_partition("q") == "cpu0"


def test_an_unbounded_wait_gives_no_bound():
    """τ2's request on q (agents on cpu0) waits for τ1's 6 ms agents: W = 1 + ⌈(W + 10)/10⌉·6 is
    13 > D = 10 at the first step. τ2 gets no bound; then τ1's bound is not proven either (its
    LP counted τ2's jobs assuming τ2 meets its deadline)."""
    t1, t2 = _task("t1", 7, 10, 2, "cpu0", ("q", 6)), _task("t2", 2, 10, 1, "cpu1", ("q", 1))
    problem = AnalysisProblem((t1, t2), "P-FP", protocols={"q": "dpcp"}, sync_partitions={"q": "cpu0"})
    glob = frozenset({"q"})
    assert distributed_lp_blocking(t2, problem.tasks, glob, {"q": "cpu0"}, "dpcp") is None
    result = run_test("p-fp-dpcp-lp", problem)
    assert result.task("t2").verdict == "unknown" and result.verdict == "not schedulable"
    assert result.task("t2").reason.startswith("a request's wait for its agent exceeds the deadline")
    assert result.task("t1").verdict == "unknown" and result.task("t1").reason.startswith("the LP's request counts")


def test_registry_and_default():
    for name in ("p-fp-dpcp-lp", "p-fp-dflp-lp"):
        assert name in TESTS and "Brandenburg 2013" in DESCRIPTIONS[name]
    assert default_test(_worked("dpcp")) == "p-fp-dpcp-lp"
    assert default_test(_worked("dflp")) == "p-fp-dflp-lp"


def test_analyze_the_example_file():
    cmd = [sys.executable, "-c", "import sys; from rtsched.cli.main import main; sys.exit(main())", "analyze",
           str(ROOT / "examples" / "dpcp-dflp.yaml"), "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT / "python"), "RTSCHED_OVERHEADS": os.environ["RTSCHED_OVERHEADS"]}, check=False)
    assert out.returncode == 0, out.stderr
    assert '"test": "p-fp-dpcp-lp"' in out.stdout and '"verdict": "schedulable"' in out.stdout


def test_schedcat_example():
    """SchedCAT's ``schedcat/locking/linprog/common.py`` example (its LP printed, no answer given):
    τ1 (C 10, T 100), τ2 (25, 200), τ3 (33, 33) in decreasing priority on partitions 0, 1, 0, each
    requesting resource 0 once (lengths 1, 2, 3), resource 0 on partition 0, windows = periods.
    For τ1: τ2 has ⌈300/200⌉ = 2 requests in the window, τ3 ⌈133/33⌉ = 5. DFLP: one of each per
    request of τ1 (C5), τ2's agents (remote task) preempt τ1 at will (2·2), τ3's once per arrival
    (C3): 2·2 + (1 + 1)·3 = 10. DPCP: 10 too: τ2 and τ3 share one lower-priority wait (C7 over
    direct and indirect delay, the PCP's single blocking), which τ3's 3 takes. SchedCAT's
    lp_dpcp.cpp bounds only the lower-priority *direct* variables there and leaves the indirect
    ones to the supply, which gives τ3's five requests: 2·2 + 5·3 = 19."""
    tasks = (_task("t1", 10, 100, 3, "p0", ("q", 1)), _task("t2", 25, 200, 2, "p1", ("q", 2)),
             _task("t3", 33, 33, 1, "p0", ("q", 3)))
    sync: dict[str, str | None] = {"q": "p0"}
    for protocol in ("dflp", "dpcp"):
        got = distributed_lp_blocking(tasks[0], tasks, frozenset({"q"}), sync, protocol)
        assert got is not None and got.bound_ns == 10 * MS

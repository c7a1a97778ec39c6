"""p-fp-fmlp+-lp and p-fp-mpcp-lp: blocking bounded by a linear program (after Brandenburg, RTAS 2013).

A known answer worked by hand (the request supply of a rare remote task
binds where the closed form charges it once per request), the LP solver
against SciPy's linprog (HiGHS) where SciPy is installed, and the property
the construction guarantees: never above the closed form ``p-fp-fmlp+``
(the blocking of every task on generated sets, and every bound on the sets
it accepts), so every set it accepts, the LP test accepts. For MPCP the same
(the closed form charged local lower-priority tasks min(N_i + 1, N_y) times,
which a soundness regression broke; now N_i + 1, as the LP caps them).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, CriticalSection, run_test
from rtsched.analysis.lp_blocking import fmlp_plus_lp_blocking, lp_optimum, mpcp_lp_blocking
from rtsched.analysis.soundness.families import partitioned_global, partitioned_suspension

MS = 1_000_000


def _task(name, c, t, prio, part, *sections):
    return AnalysisTask(name, c * MS, t * MS, t * MS, priority=prio, partition=part,
                        critical_sections=tuple(CriticalSection(r, n * MS) for r, n in sections))


def test_a_rare_remote_request_is_charged_once():
    """τ1 on cpu0 (C = 4, T = D = 50 ms) locks q twice per job (1 ms each); τ2 on cpu1 (C = 5,
    T = 100, D = 100) holds q for 3 ms once per job. The closed form charges τ2's 3 ms per request
    of τ1: 2 × 3 = 6 ms. At most ⌈(50 + 100)/100⌉ = 2 jobs of τ2 overlap τ1's window... and each
    request of τ1 waits behind at most one of them: the LP also finds 6. With T2 = 200 ms
    (⌈150/200⌉ = 1 job) the supply binds: 3 ms, where the closed form still says 6."""
    t1 = _task("t1", 4, 50, 2, "cpu0", ("q", 1), ("q", 1))
    for period, lp_ms in ((100, 6), (200, 3)):
        t2 = replace(_task("t2", 5, period, 1, "cpu1", ("q", 3)), deadline_ns=100 * MS)
        problem = AnalysisProblem((t1, t2), "P-FP", protocols={"q": "fmlp+"})
        assert fmlp_plus_lp_blocking(t1, problem.tasks, frozenset({"q"})).bound_ns == lp_ms * MS
        lp, closed = run_test("p-fp-fmlp+-lp", problem), run_test("p-fp-fmlp+", problem)
        assert lp.task("t1").blocking_ns == lp_ms * MS and closed.task("t1").blocking_ns == 6 * MS
        assert lp.bound("t1") == (4 + lp_ms) * MS and lp.schedulable and lp.label == "sufficient"


def test_lp_optimum_by_hand():
    """Two causes (caps 2 and 1) share section 0 (length 5, supply 2); cause 1 also reaches
    section 1 (length 3, supply 5). Greedy: section 0 takes 2 (from cause 0), section 1 takes 1:
    2·5 + 1·3 = 13. Re-routing case: cause 0 reaches both sections, cause 1 only section 1: section 0
    (length 5, supply 1) first takes cause 0; section 1 then gets cause 1 and cause 0's rest."""
    assert lp_optimum([2, 1], [2, 5], [5, 3], [(0, 0), (1, 0), (1, 1)]) == 13
    assert lp_optimum([1, 1], [1, 2], [5, 3], [(0, 0), (0, 1), (1, 1)]) == 8
    assert lp_optimum([1, 1], [1, 1], [5, 4], [(0, 0), (1, 0), (0, 1)]) == 9  # needs the re-route


def test_lp_optimum_matches_highs():
    scipy_optimize = pytest.importorskip("scipy.optimize", reason="SciPy is not a dependency; cross-check only")
    import numpy as np

    rng = random.Random(3)
    for _ in range(400):
        nc, ns = rng.randint(1, 6), rng.randint(1, 8)
        caps = [rng.randint(0, 5) for _ in range(nc)]
        supply = [rng.randint(0, 4) for _ in range(ns)]
        lengths = [rng.randint(1, 100) for _ in range(ns)]
        edges = sorted({(rng.randrange(nc), rng.randrange(ns)) for _ in range(rng.randint(1, nc * ns))})
        a = np.zeros((nc + ns, len(edges)))
        for e, (c, s) in enumerate(edges):
            a[c, e] = a[nc + s, e] = 1
        res = scipy_optimize.linprog(-np.array([lengths[s] for _, s in edges], dtype=float), A_ub=a,
                                     b_ub=np.array(caps + supply, dtype=float), bounds=(0, None), method="highs")
        assert res.status == 0
        assert lp_optimum(caps, supply, lengths, edges) == round(-res.fun)


def test_refuses_other_global_protocols():
    t1 = _task("t1", 4, 50, 2, "cpu0", ("q", 1))
    t2 = _task("t2", 5, 100, 1, "cpu1", ("q", 3))
    problem = AnalysisProblem((t1, t2), "P-FP", protocols={"q": "mpcp"})
    assert run_test("p-fp-fmlp+-lp", problem).verdict == "unsupported"


@pytest.mark.parametrize("family", [partitioned_global, partitioned_suspension])
def test_never_above_the_closed_form(family):
    rng = random.Random(11)
    accepted = 0
    for _ in range(150):
        problem = family(rng, protocol="fmlp+").problem()
        lp, closed = run_test("p-fp-fmlp+-lp", problem), run_test("p-fp-fmlp+", problem)
        for a, b in zip(closed.tasks, lp.tasks):
            if closed.schedulable:  # (when a task misses, the LP's request counts leave the others unknown)
                assert b.verdict == "ok" and b.bound_ns <= a.bound_ns, (problem, a, b)
            if a.blocking_ns is not None and b.blocking_ns is not None:
                assert b.blocking_ns <= a.blocking_ns, (problem, a, b)
        accepted += closed.schedulable
    assert accepted >= 10


def test_mpcp_a_rare_remote_holder_is_charged_per_job_not_per_wait():
    """τ1 (prio 2) on cpu0 locks q twice (1 ms each), C = 4, T = D = 50 ms; τ2 (prio 1, lower) on cpu1
    holds q for 3 ms, T = 200, D = 100. The closed form charges the lower-priority holder once per
    request: 2 × 3 = 6 ms. Only ⌈(50 + 100)/200⌉ = 1 job of τ2 overlaps τ1's window: the LP charges 3."""
    t1 = _task("t1", 4, 50, 2, "cpu0", ("q", 1), ("q", 1))
    t2 = replace(_task("t2", 5, 200, 1, "cpu1", ("q", 3)), deadline_ns=100 * MS)
    problem = AnalysisProblem((t1, t2), "P-FP", protocols={"q": "mpcp"})
    assert mpcp_lp_blocking(t1, problem.tasks, frozenset({"q"})).bound_ns == 3 * MS
    lp, closed = run_test("p-fp-mpcp-lp", problem), run_test("p-fp-mpcp", problem)
    assert lp.task("t1").blocking_ns == 3 * MS and closed.task("t1").blocking_ns == 6 * MS
    assert lp.schedulable and lp.bound("t1") == 7 * MS


def test_mpcp_local_lower_priority_sections_once_per_release_or_resumption():
    """τ1 (prio 3, cpu0) locks q once, C = 1, T = 4, D = 2 ms; τ3 (prio 1, cpu0) and τ4 (prio 2,
    cpu1) hold q for 1 ms once per job, T = 10 and 8. Causes: one lower-priority section on q for
    τ1's one request (cap 1: τ3's or τ4's), and τ3's boosted sections at τ1's release and resumption
    (cap N_1 + 1 = 2). ⌈(2 + 10)/10⌉ = 2 jobs of τ3 overlap τ1's window (supply 2 per section), so the
    LP charges 1 + 2 = 3 ms, as the closed form now does: (N_1 + 1)·1 for τ3 (it charged
    min(N_1 + 1, N_3)·1, counting τ3's sections per job of τ3, though two of its jobs fit in the window)."""
    t1 = replace(_task("t1", 1, 4, 3, "cpu0", ("q", 1)), deadline_ns=2 * MS)
    t3 = _task("t3", 1, 10, 1, "cpu0", ("q", 1))
    t4 = _task("t4", 1, 8, 2, "cpu1", ("q", 1))
    problem = AnalysisProblem((t1, t3, t4), "P-FP", protocols={"q": "mpcp"})
    assert mpcp_lp_blocking(t1, problem.tasks, frozenset({"q"})).bound_ns == 3 * MS
    assert run_test("p-fp-mpcp", problem).task("t1").blocking_ns == 3 * MS


@pytest.mark.parametrize("family", [partitioned_global, partitioned_suspension])
def test_mpcp_never_above_the_closed_form(family):
    rng = random.Random(12)
    accepted = 0
    for _ in range(150):
        problem = family(rng, protocol="mpcp").problem()
        lp, closed = run_test("p-fp-mpcp-lp", problem), run_test("p-fp-mpcp", problem)
        for a, b in zip(closed.tasks, lp.tasks):
            if a.blocking_ns is not None and b.blocking_ns is not None:
                assert b.blocking_ns <= a.blocking_ns, (problem, a, b)
        accepted += lp.schedulable
    assert accepted >= 10

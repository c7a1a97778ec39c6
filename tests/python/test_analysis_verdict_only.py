"""``verdict_only``: the tests that take it stop once the verdict is decided, and give the same verdict.

gedf-bcl and fp-rta stop at the first task that fails, edf-qpa at the first partition that misses
(the rest: ``unknown``, saying why), gedf-bcl-iterative and gedf-rta after the first round that shows
every task. Checked on generated sets (G-EDF on 2-8 CPUs, P-EDF on 3 partitions) against the
full run, plus one hand-made set each where the stop is visible.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, run_test
from rtsched.analysis.generators import generate_problem

TESTS = ("gedf-bcl", "gedf-bcl-iterative", "gedf-rta")


def _gedf_sets() -> list[AnalysisProblem]:
    out = []
    for seed in range(120):
        m = (2, 4, 8)[seed % 3]
        try:
            out.append(generate_problem(m + 1 + seed % (2 * m), (0.3 + 0.6 * (seed % 10) / 9) * m, 9000 + seed,
                                        scheduler="G-EDF", cpus=m, deadlines="constrained", utilizations="uunifast-discard"))
        except ValueError:  # UUniFast-discard found no vector
            continue
    return out


@pytest.mark.parametrize("test", TESTS)
def test_same_verdict_as_the_full_run(test):
    for problem in _gedf_sets():
        full, quick = run_test(test, problem), run_test(test, problem, verdict_only=True)
        assert quick.verdict == full.verdict, problem.name
        for f, q in zip(full.tasks, quick.tasks):
            if q.verdict == "ok":
                assert q.bound_ns is not None and f.bound_ns is not None
                assert f.bound_ns <= q.bound_ns <= problem.task(q.name).deadline_ns


def test_fp_rta_same_verdict_and_stops_at_the_first_miss():
    for seed in range(200):
        problem = generate_problem(4 + seed % 12, 0.6 + 0.4 * (seed % 10) / 9, 5000 + seed, resources=3,
                                   protocol=("pcp", "pip", "srp", "np")[seed % 4])
        full, quick = run_test("fp-rta", problem), run_test("fp-rta", problem, verdict_only=True)
        assert quick.verdict == full.verdict, problem.name
        first = next((k for k, t in enumerate(full.tasks) if t.verdict == "miss"), len(full.tasks))
        assert quick.tasks[:first + 1] == full.tasks[:first + 1]
        assert all(t.verdict == "unknown" and "verdict_only" in t.reason for t in quick.tasks[first + 1:])


def test_bcl_stops_at_the_first_failing_task():
    """Three tasks of C = D = 2 on 2 CPUs: the first already fails BCL; the rest are not analysed."""
    problem = AnalysisProblem(tuple(AnalysisTask(f"t{i}", 2, 4, 2) for i in range(3)), scheduler="G-EDF", cpus=2)
    quick = run_test("gedf-bcl", problem, verdict_only=True)
    assert quick.verdict == "not schedulable"
    assert [t.verdict for t in quick.tasks] == ["miss", "unknown", "unknown"]
    assert "verdict_only" in quick.tasks[1].reason
    assert [t.verdict for t in run_test("gedf-bcl", problem).tasks] == ["miss", "miss", "miss"]


def test_iterative_tests_stop_at_the_first_round_that_shows_every_task():
    """Light tasks: round 1 shows all; the full run goes on while bounds shrink (or slacks grow)."""
    problem = AnalysisProblem(tuple(AnalysisTask(f"t{i}", 1, 10, 10) for i in range(4)), scheduler="G-EDF", cpus=2)
    assert run_test("gedf-bcl-iterative", problem, verdict_only=True).details["rounds"] == 1
    assert run_test("gedf-bcl-iterative", problem).details["rounds"] == 2
    quick, full = run_test("gedf-rta", problem, verdict_only=True), run_test("gedf-rta", problem)
    assert quick.schedulable and full.schedulable
    assert "1 round(s)" in quick.tasks[0].reason and "1 round(s)" not in full.tasks[0].reason


def test_qpa_stops_at_the_first_partition_that_misses():
    tasks = (AnalysisTask("a", 3, 4, 4, partition="p0"), AnalysisTask("b", 3, 4, 4, partition="p0"),
             AnalysisTask("c", 1, 4, 4, partition="p1"))
    problem = AnalysisProblem(tasks, scheduler="P-EDF")
    quick, full = run_test("edf-qpa", problem, verdict_only=True), run_test("edf-qpa", problem)
    assert quick.verdict == full.verdict == "not schedulable"
    assert [t.verdict for t in full.tasks] == ["miss", "miss", "ok"]
    assert [t.verdict for t in quick.tasks] == ["miss", "miss", "unknown"]
    one_cpu = replace(problem, scheduler="EDF", tasks=tuple(replace(t, partition=None) for t in tasks))
    assert run_test("edf-qpa", one_cpu, verdict_only=True) == run_test("edf-qpa", one_cpu)

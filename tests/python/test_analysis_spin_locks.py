"""p-fp-msrp: partitioned FP with MSRP spin locks (Gai, Lipari, Di Natale, RTSS 2001), worked by hand."""

from __future__ import annotations

from rtsched.analysis import AnalysisProblem, AnalysisTask, CriticalSection, run_test

MS = 1_000_000


def _task(name, c, t, prio, part, *sections):
    return AnalysisTask(name, c * MS, t * MS, t * MS, priority=prio, partition=part,
                        critical_sections=tuple(CriticalSection(r, n * MS) for r, n in sections))


def _three_cpus() -> AnalysisProblem:
    return AnalysisProblem((
        _task("a", 2, 10, 3, "c0"),
        _task("b", 3, 20, 2, "c0", ("q", 1)),
        _task("c", 4, 30, 1, "c0", ("q", 2)),
        _task("d", 2, 15, 1, "c1", ("q", 3)),
        _task("e", 1, 40, 0, "c2", ("q", 1)),
    ), "P-FP", protocols={"q": "msrp"})


def test_spin_and_non_preemptive_blocking_by_hand():
    """spin(q, c0) = 3 (c1's longest) + 1 (c2's) = 4; spin(q, c1) = 2 + 1 = 3; spin(q, c2) = 2 + 3 = 5.
    a: C = 2, blocked by c's non-preemptive section 2 + 4 = 6: R = 8. b: C' = 3 + 4 = 7, same blocking,
    R = 7 + 6 + 2⌈R/10⌉ = 17. c: C' = 8, R = 8 + 2⌈R/10⌉ + 7⌈R/20⌉ = 19. d: C' = 2 + 3 = 5. e: 1 + 5 = 6."""
    result = run_test("p-fp-msrp", _three_cpus())
    assert result.schedulable and result.label == "sufficient"
    assert result.details["spin_ns"] == {"a": 0, "b": 4 * MS, "c": 4 * MS, "d": 3 * MS, "e": 5 * MS}
    assert result.bounds() == {"a": 8 * MS, "b": 17 * MS, "c": 19 * MS, "d": 5 * MS, "e": 6 * MS}
    assert result.task("a").blocking_ns == 6 * MS


def test_other_protocols_on_global_resources_are_refused():
    problem = _three_cpus()
    from dataclasses import replace

    assert run_test("p-fp-msrp", replace(problem, protocols={"q": "fmlp+"})).verdict == "unsupported"
    local = replace(problem, tasks=problem.tasks[:3], protocols={"q": "msrp"})
    assert run_test("p-fp-msrp", local).verdict == "unsupported"  # msrp on a one-partition resource

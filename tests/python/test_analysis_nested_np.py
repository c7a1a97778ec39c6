"""A non-preemptive section blocks every task, at whatever depth it is nested.

Found by the soundness harness (docs/soundness.md): the FP blocking term counted only outermost
sections, so an ``np`` section inside a section under another protocol was never counted, and
the EDF tests counted an ``np`` section (and a section nested inside another) only against tasks
that lock the same resource.
"""

from __future__ import annotations

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, CriticalSection, run_test

MS = 1_000_000


def _fp_np_inside_srp(outer: str) -> AnalysisProblem:
    # lo holds a (outer protocol, ceiling = lo's own priority) and, inside it, b (np) for 2 ms.
    sections = (CriticalSection("a", 2 * MS, ("b",)), CriticalSection("b", 2 * MS, outermost=False))
    return AnalysisProblem(
        tasks=(
            AnalysisTask("hi", 1 * MS, 5 * MS, 5 * MS, priority=2),
            AnalysisTask("lo", 5 * MS, 12 * MS, 12 * MS, priority=1, critical_sections=sections),
        ),
        scheduler="FP", protocols={"a": outer, "b": "np"})


@pytest.mark.parametrize("outer", ["srp", "pcp", "ipcp", "pip"])
def test_fp_counts_an_np_section_nested_in_another_protocols_section(outer):
    # hi arrives just after lo entered b: it waits the whole np section, response 1 + 2 = 3.
    hi = {b.name: b for b in run_test("fp-rta", _fp_np_inside_srp(outer)).tasks}["hi"]
    assert hi.blocking_ns == 2 * MS, hi
    assert hi.bound_ns == 3 * MS, hi


def test_fp_np_term_is_not_counted_twice_for_an_outermost_np_section():
    sections = (CriticalSection("b", 2 * MS, ("c",)), CriticalSection("c", 1 * MS, outermost=False))
    problem = AnalysisProblem(
        tasks=(
            AnalysisTask("hi", 1 * MS, 5 * MS, 5 * MS, priority=2),
            AnalysisTask("lo", 5 * MS, 12 * MS, 12 * MS, priority=1, critical_sections=sections),
        ),
        scheduler="FP", protocols={"b": "np", "c": "np"})
    hi = {b.name: b for b in run_test("fp-rta", problem).tasks}["hi"]
    assert hi.blocking_ns == 2 * MS, hi

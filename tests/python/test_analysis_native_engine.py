"""The native kernels (tools/analysis, ``native_engine``) give exactly the Python tests' answers.

On seeded generated sets in three time units (periods 10 ms - 1 s counted in ns, µs and ms),
for gedf-gfb, gedf-bcl and gedf-rta (with and without verdict_only), gedf-baker, gedf-baruah,
gedf-ffdbf, edf-qpa (EDF and P-EDF, arbitrary
deadlines, jitter) and fp-rta (FP and P-FP, equal priorities, jitter, blocking given by hand,
arbitrary deadlines): the registry's result (kernel verdict, the rest completed on read) equals
the pure-Python test's field by field, and the kernels' own per-task outputs equal the Python
bounds. Plus the cases the kernel hands back to Python (GFB on its boundary, U = 1), and how a
DeferredResult behaves as an AnalysisResult. Skipped, saying so, when the library is not built
(RTSCHED_NATIVE_BIN: a build tree's tools folder).
"""

from __future__ import annotations

import copy
import pickle
import random
from dataclasses import replace

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, native_engine, run_test
from rtsched.analysis.edf_uni import edf_qpa
from rtsched.analysis.fp_uni import fp_rta
from rtsched.analysis.gedf import gedf_bcl, gedf_gfb, gedf_rta
from rtsched.analysis.gedf_baker import gedf_baker
from rtsched.analysis.gedf_demand import gedf_baruah, gedf_ffdbf
from rtsched.analysis.results import AnalysisResult, DeferredResult, KernelMismatch

pytestmark = pytest.mark.skipif(native_engine.engine() != "native",
                                reason=f"{native_engine.LIBRARY} not built or turned off (RTSCHED_NATIVE_BIN)")

#: 10 ms - 1 s in each unit
UNITS = {"ns": 10_000_000, "us": 10_000, "ms": 10}
SETS = 400  # per unit and family
#: fewer for the tests whose Python reference takes ~10-100 ms a set (numpy over every breakpoint)
FEWER = {"gedf-baruah": 100, "gedf-ffdbf": 200}


def _task(rng: random.Random, i: int, lo: int, util: float, deadline: str, **extra: object) -> AnalysisTask:
    period = rng.randint(lo, 100 * lo)
    wcet = max(1, min(period, round(util * period)))
    if deadline == "constrained":
        d = rng.randint(wcet, period)
    else:  # arbitrary: also beyond the period
        d = rng.randint(max(1, wcet // 2), 3 * period)
    return AnalysisTask(f"t{i}", wcet, period, d, **extra)  # type: ignore[arg-type]


def _gedf(rng: random.Random, lo: int) -> AnalysisProblem:
    m = rng.randint(1, 8)
    n = rng.randint(1, 3 * m + 2)
    total = rng.uniform(0.2, 1.1) * m
    tasks = [_task(rng, i, lo, min(1.0, rng.uniform(0.2, 1.8) * total / n), "constrained") for i in range(n)]
    return AnalysisProblem(tuple(tasks), scheduler="G-EDF", cpus=m, name=f"gedf-{rng.random()}")


def _edf(rng: random.Random, lo: int) -> AnalysisProblem:
    n = rng.randint(1, 15)
    parts = rng.choice((1, 1, 2, 3))
    total = rng.uniform(0.3, 1.05) * parts
    tasks = [_task(rng, i, lo, rng.uniform(0.2, 1.8) * total / n, rng.choice(("constrained", "arbitrary")),
                   jitter_ns=rng.choice((0, 0, 0, rng.randint(0, lo // 4))),
                   partition=f"p{rng.randrange(parts)}" if parts > 1 else None) for i in range(n)]
    return AnalysisProblem(tuple(tasks), scheduler="P-EDF" if parts > 1 else "EDF", name=f"edf-{rng.random()}")


def _fp(rng: random.Random, lo: int) -> AnalysisProblem:
    n = rng.randint(1, 15)
    parts = rng.choice((1, 1, 2, 3))
    total = rng.uniform(0.4, 1.1) * parts
    tasks = [_task(rng, i, lo, rng.uniform(0.2, 1.8) * total / n, rng.choice(("constrained", "arbitrary")),
                   priority=rng.randint(0, n // 2 + 1),  # ties
                   jitter_ns=rng.choice((0, 0, rng.randint(0, lo // 2))),
                   extra_blocking_ns=rng.choice((0, 0, rng.randint(0, lo // 10))),
                   partition=f"p{rng.randrange(parts)}" if parts > 1 else None) for i in range(n)]
    return AnalysisProblem(tuple(tasks), scheduler="P-FP" if parts > 1 else "FP", name=f"fp-{rng.random()}")


FAMILIES = {
    "gedf-gfb": (_gedf, gedf_gfb, {}),
    "gedf-bcl": (_gedf, gedf_bcl, {}),
    "gedf-bcl verdict_only": (_gedf, gedf_bcl, {"verdict_only": True}),
    "gedf-rta": (_gedf, gedf_rta, {}),
    "gedf-rta verdict_only": (_gedf, gedf_rta, {"verdict_only": True}),
    "gedf-baker": (_gedf, gedf_baker, {}),
    "gedf-baruah": (_gedf, gedf_baruah, {}),
    "gedf-ffdbf": (_gedf, gedf_ffdbf, {}),
    "edf-qpa": (_edf, edf_qpa, {}),
    "edf-qpa verdict_only": (_edf, edf_qpa, {"verdict_only": True}),
    "fp-rta": (_fp, fp_rta, {}),
    "fp-rta verdict_only": (_fp, fp_rta, {"verdict_only": True}),
}


@pytest.mark.parametrize("unit", sorted(UNITS))
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_registry_result_is_the_python_result(family, unit):
    make, python, options = FAMILIES[family]
    rng = random.Random(f"{family} {unit}")
    deferred = verdicts = 0
    sets = FEWER.get(family, SETS)
    for _ in range(sets):
        problem = make(rng, UNITS[unit])
        fast = run_test(family.split()[0], problem, **options)
        deferred += isinstance(fast, DeferredResult)
        verdict = fast.verdict  # the kernel's, before anything else is read
        slow = python(problem, **options)
        verdicts += slow.schedulable
        assert verdict == slow.verdict, problem
        assert [t.bound_ns for t in fast.tasks] == [t.bound_ns for t in slow.tasks], problem
        assert fast.to_dict() == slow.to_dict(), problem
        assert fast == slow and slow == fast
    assert deferred >= sets * 0.7, f"the kernel decided only {deferred} of {sets} sets"
    assert 0.05 * sets < verdicts < 0.95 * sets, f"{verdicts} of {sets} schedulable: not a mixed corpus"


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_kernel_outputs_per_task(unit):
    """The kernels' own per-task answers (not what the completed result copies from Python)."""
    rng = random.Random(f"per task {unit}")
    for index in range(SETS):
        g = _gedf(rng, UNITS[unit])
        cdt = [v for x in g.tasks for v in (x.exec_ns, x.deadline_ns, x.period_ns)]
        for quick in (False, True):
            verdict, ok = native_engine.bcl_kernel(cdt, g.cpus, quick)
            slow = gedf_bcl(g, verdict_only=quick)
            assert verdict == slow.schedulable
            assert list(ok) == [{"ok": 1, "miss": 0, "unknown": 2}[t.verdict] for t in slow.tasks], g
        for quick in (False, True):
            verdict, bounds, rounds = native_engine.gedf_rta_kernel(cdt, g.cpus, quick)
            slow = gedf_rta(g, verdict_only=quick)
            assert verdict == slow.schedulable
            assert [b if b >= 0 else None for b in bounds] == [t.bound_ns for t in slow.tasks], g
            assert [{-1: "miss", -2: "unknown"}.get(b, "ok") for b in bounds] == [t.verdict for t in slow.tasks]
            assert not verdict or slow.tasks[0].reason.endswith(f", {rounds} round(s)")
        for kernel, python in ((native_engine.baker_kernel, gedf_baker), (native_engine.baruah_kernel, gedf_baruah)):
            if python is gedf_baruah and index >= FEWER["gedf-baruah"]:
                continue
            slow = python(g)
            verdict, ok = kernel(cdt, g.cpus)
            alone, _ = kernel(cdt, g.cpus, per_task=False)
            if verdict != native_engine.PYTHON:
                assert alone == verdict == {"schedulable": 1, "not schedulable": 0, "unknown": 2}[slow.verdict], g
                assert ok == [{"ok": 1, "miss": 0, "unknown": 2}[t.verdict] for t in slow.tasks], g
        if g.cpus >= 2 and index < FEWER["gedf-ffdbf"]:
            verdict, sigma, _ = native_engine.ffdbf_kernel(cdt, g.cpus)
            slow = gedf_ffdbf(g)
            assert verdict == native_engine.PYTHON or verdict == slow.schedulable, g
            assert sigma is None or sigma == slow.details["sigma"] * 1000, g
        gfb = native_engine.gfb_kernel(cdt, g.cpus)
        assert gfb == native_engine.PYTHON or gfb == gedf_gfb(g).schedulable, g
        f = _fp(rng, UNITS[unit])
        f = replace(f, tasks=tuple(replace(x, partition=None) for x in f.tasks), scheduler="FP")
        ts = f.tasks
        verdict, r, _ = native_engine.fp_rta_kernel([x.exec_ns for x in ts], [x.period_ns for x in ts],
                                                    [x.deadline_ns for x in ts], [x.jitter_ns for x in ts],
                                                    [x.extra_blocking_ns for x in ts], [x.priority for x in ts])
        slow = fp_rta(f)
        assert verdict == slow.schedulable
        assert [b if b >= 0 else None for b in r] == [t.bound_ns for t in slow.tasks], f
        e = _edf(rng, UNITS[unit])
        ts = tuple(replace(x, partition=None, jitter_ns=0) for x in e.tasks)
        qpa = native_engine.qpa_kernel([x.exec_ns for x in ts], [x.deadline_ns for x in ts],
                                       [x.period_ns for x in ts])
        assert qpa == native_engine.PYTHON or qpa == edf_qpa(AnalysisProblem(ts, scheduler="EDF")).schedulable


def _gfb_on_the_boundary() -> AnalysisProblem:
    # m = 2, δ = 1/2 each: Σδ = 3/2 = m − (m − 1)·δmax exactly (schedulable: ≤)
    tasks = tuple(AnalysisTask(f"t{i}", 5, 10, 10) for i in range(3))
    return AnalysisProblem(tasks, scheduler="G-EDF", cpus=2)


def test_gfb_leaves_its_boundary_to_python():
    problem = _gfb_on_the_boundary()
    assert native_engine.gfb_kernel([v for x in problem.tasks for v in (5, 10, 10)], 2) == native_engine.PYTHON
    result = run_test("gedf-gfb", problem)
    assert not isinstance(result, DeferredResult)
    assert result.schedulable and result == gedf_gfb(problem)


def test_qpa_leaves_full_utilization_to_python():
    ts = (AnalysisTask("a", 5, 10, 10), AnalysisTask("b", 10, 20, 20))  # U = 1 exactly
    assert native_engine.qpa_kernel([5, 10], [10, 20], [10, 20]) == native_engine.PYTHON
    problem = AnalysisProblem(ts, scheduler="EDF")
    result = run_test("edf-qpa", problem)
    assert not isinstance(result, DeferredResult) and result.schedulable


def _deferred() -> tuple[AnalysisProblem, AnalysisResult]:
    problem = AnalysisProblem((AnalysisTask("a", 1, 4, 4, priority=2), AnalysisTask("b", 2, 6, 6, priority=1)))
    result = run_test("fp-rta", problem)
    assert isinstance(result, DeferredResult)
    return problem, result


def test_a_deferred_result_is_an_analysis_result():
    problem, result = _deferred()
    plain = fp_rta(problem)
    assert isinstance(result, AnalysisResult) and result == plain and plain == result
    assert repr(result) == repr(plain)
    assert result.bounds() == {"a": 1, "b": 3}
    back = pickle.loads(pickle.dumps(result))
    assert type(back) is AnalysisResult and back == plain
    assert copy.deepcopy(result) == plain
    changed = replace(result, reason="x")
    assert changed.reason == "x" and changed.tasks == plain.tasks


def test_a_kernel_that_disagrees_is_an_error_not_a_result():
    problem, _ = _deferred()
    wrong = DeferredResult.of("fp-rta", "schedulable", lambda: fp_rta(problem), lambda: [1, 4])
    assert wrong.schedulable  # the verdict alone is read without completing
    with pytest.raises(KernelMismatch, match="bounds"):
        _ = wrong.tasks


def test_the_python_engine_builds_plain_results():
    problem, _ = _deferred()
    before = native_engine.set_engine("python")
    try:
        assert type(run_test("fp-rta", problem)) is AnalysisResult
    finally:
        native_engine.set_engine(before)
    with pytest.raises(ValueError, match="engine must be"):
        native_engine.set_engine("fortran")


@pytest.mark.parametrize("value, error", [("fortran", "use native or python"), ("Python", "use native or python")])
def test_an_unknown_engine_in_the_environment_is_an_error(monkeypatch, value, error):
    monkeypatch.setenv("RTSCHED_ANALYSIS_ENGINE", value)
    with pytest.raises(ValueError, match=error):
        native_engine._chosen()


def test_the_environment_chooses_the_engine(monkeypatch):
    monkeypatch.setenv("RTSCHED_ANALYSIS_ENGINE", "python")
    assert native_engine._chosen() is None
    monkeypatch.setenv("RTSCHED_ANALYSIS_ENGINE", "native")
    assert native_engine._chosen() is not None


def _gedf_set(rows: list[tuple[int, int, int]], m: int) -> AnalysisProblem:
    """A G-EDF set of rows (C, D, T)."""
    return AnalysisProblem(tuple(AnalysisTask(f"t{i}", c, t, d) for i, (c, d, t) in enumerate(rows)),
                           scheduler="G-EDF", cpus=m)


@pytest.mark.parametrize("test, python", [("gedf-baker", gedf_baker), ("gedf-baruah", gedf_baruah),
                                          ("gedf-ffdbf", gedf_ffdbf)])
@pytest.mark.parametrize("rows, m, verdicts", [
    ([(2, 5, 10), (3, 10, 12), (6, 15, 20), (5, 30, 30)], 2, ("schedulable",) * 3),
    ([(2, 5, 10), (3, 10, 12), (6, 15, 20), (5, 30, 30), (9, 20, 25)], 3,
     ("not schedulable", "schedulable", "schedulable")),
    ([(6, 10, 10)] * 3, 2, ("not schedulable",) * 3),  # Baruah's range end 12/0.2 = 60 exactly
    ([(3, 5, 5), (4, 10, 10), (7, 10, 10), (1, 2, 2)], 2, ("not schedulable",) * 3),  # U = m exactly
    ([(999_999, 1_000_000, 1_000_000)] * 2, 2, ("not schedulable", "unknown", "not schedulable")),
    # times near 2^52: FF-DBF skips every σ (its range past the 64-bit guard), its reason says so
    ([(2**50, 2**52, 2**52), (2**49, 2**51, 2**52), (1, 2**52, 2**52)], 4,
     ("schedulable", "schedulable", "not schedulable")),
])
def test_known_answers_of_the_demand_kernels(test, python, rows, m, verdicts):
    """Hand-made sets (exact boundaries among them, decided over the periods' LCM, not handed to
    Python), and Baruah's "unknown" (U just below m: more values of A than its budget)."""
    problem = _gedf_set(rows, m)
    result = run_test(test, problem)
    assert isinstance(result, DeferredResult)
    assert result.verdict == verdicts[[gedf_baker, gedf_baruah, gedf_ffdbf].index(python)]
    assert result == python(problem)


def test_baker_leaves_its_boundary_to_python():
    problem = _gedf_set([(5, 10, 10)] * 3, 2)  # Σ min(1, β) = 1.5 = m(1 − λ) + λ exactly
    assert native_engine.baker_kernel([v for x in problem.tasks for v in (5, 10, 10)], 2)[0] == native_engine.PYTHON
    result = run_test("gedf-baker", problem)
    assert not isinstance(result, DeferredResult) and result.schedulable and result == gedf_baker(problem)


def test_ffdbf_on_one_processor_is_the_python_answer():
    result = run_test("gedf-ffdbf", _gedf_set([(1, 10, 10)], 1))
    assert not isinstance(result, DeferredResult) and result.verdict == "unsupported"


@pytest.mark.parametrize("test, module, name", [("gedf-rta", "rtsched.analysis.gedf", "gedf_rta"),
                                                ("fp-rta", "rtsched.analysis.fp_uni", "fp_rta"),
                                                ("gedf-ffdbf", "rtsched.analysis.gedf_demand", "gedf_ffdbf"),
                                                ("gedf-baruah", "rtsched.analysis.gedf_demand", "gedf_baruah")])
def test_the_rtas_bounds_are_the_kernels_not_the_python_tests(monkeypatch, test, module, name):
    """Reading every bound of a gedf-rta, fp-rta, gedf-ffdbf or gedf-baruah result the kernel decided
    builds it from the kernel's outputs (issue 35: reading them had cost the whole Python test again)."""
    import importlib

    problem = (_gedf_set([(2, 5, 10), (3, 10, 12), (6, 15, 20)], 2) if test.startswith("gedf") else
               AnalysisProblem((AnalysisTask("a", 1, 4, 4, priority=2), AnalysisTask("b", 2, 6, 6, priority=1))))
    expected = getattr(importlib.import_module(module), name)(problem)

    def not_again(*args: object, **kwargs: object) -> AnalysisResult:
        raise AssertionError(f"{name} ran again")

    monkeypatch.setattr(importlib.import_module(module), name, not_again)
    result = run_test(test, problem)
    assert isinstance(result, DeferredResult)
    assert [t.bound_ns for t in result.tasks] == [t.bound_ns for t in expected.tasks]
    assert result.to_dict() == expected.to_dict()


def test_demand_kernels_on_small_integer_sets():
    """Periods of 2-30 ticks, where one tick decides: Baruah's and FF-DBF's boundaries (the
    FF-DBF partial term one tick off was caught here, not on the larger sets above)."""
    rng = random.Random("small integers")
    for _ in range(1000):
        m = rng.randint(2, 4)
        rows = []
        for _ in range(rng.randint(m + 1, 3 * m)):
            t = rng.randint(2, 30)
            c = rng.randint(1, max(1, t * 2 // 3))
            rows.append((c, rng.randint(c, t), t))
        problem = _gedf_set(rows, m)
        cdt = [v for row in rows for v in row]
        for kernel, python in ((native_engine.baker_kernel, gedf_baker), (native_engine.baruah_kernel, gedf_baruah)):
            verdict, ok = kernel(cdt, m)
            slow = python(problem)
            assert verdict == native_engine.PYTHON or ok == [{"ok": 1, "miss": 0, "unknown": 2}[t.verdict]
                                                             for t in slow.tasks], (python.__name__, rows, m)
        verdict, sigma, _ = native_engine.ffdbf_kernel(cdt, m)
        slow = gedf_ffdbf(problem)
        assert verdict == native_engine.PYTHON or verdict == slow.schedulable, (rows, m)
        assert sigma is None or sigma == slow.details["sigma"] * 1000, (rows, m)
        for test, python in (("gedf-baruah", gedf_baruah), ("gedf-ffdbf", gedf_ffdbf)):  # reasons built from them
            assert run_test(test, problem).to_dict() == python(problem).to_dict(), (test, rows, m)

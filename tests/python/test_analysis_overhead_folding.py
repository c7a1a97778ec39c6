"""A machine's overhead profile folded into the analysis (issue 13 item 3), checked exactly by hand."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest

from rtsched.analysis import AnalysisProblem, AnalysisTask, CriticalSection, Rpc, from_taskset, run_test
from rtsched.analysis.overheads import (
    OS_INTERFERENCE,
    OverheadsError,
    apply_overheads,
    overheads_from_json,
)
from rtsched.model import load_taskset

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
US = 1_000
MS = 1_000_000

PROFILE = {
    "format": "rtsched-overheads/1",
    "context_switch_ns": 10 * US,
    "release_latency_ns": 50 * US,
    "trace_event_ns": 1 * US,
    "rpc_call_ns": 30 * US,
    "os_interference": {"window_ns": 10 * MS, "max_lost_ns": 100 * US},
    "p99": {"context_switch_ns": 5 * US, "release_latency_ns": 20 * US, "trace_event_ns": 500,
            "rpc_call_ns": 10 * US, "os_interference": {"window_ns": 10 * MS, "max_lost_ns": 40 * US}},
}


def test_fp_rta_with_the_profile():
    problem = AnalysisProblem(tasks=(
        AnalysisTask("t1", wcet_ns=2 * MS, period_ns=10 * MS, deadline_ns=10 * MS, priority=2),
        AnalysisTask("t2", wcet_ns=3 * MS, period_ns=20 * MS, deadline_ns=20 * MS, priority=1),
    ))
    result = run_test("fp-rta", problem, overheads=overheads_from_json(PROFILE))
    # C' = C + 2 switches (20 us) + 3 trace events (3 us); J = 50 us; above both
    # an OS task of 100 us every 10 ms.
    # t1: w = 2.023 + 0.1 = 2.123 ms; R = w + J = 2.173 ms.
    # t2: w = 3.023 + 2.023 + 0.1 = 5.146 ms (one job of each above); R = 5.196 ms.
    assert result.bounds() == {"t1": 2_173_000, "t2": 5_196_000}
    assert OS_INTERFERENCE not in result.bounds()


def test_picv_rpc_with_the_profile():
    problem = from_taskset(load_taskset(EXAMPLES / "picv-rpc.yaml"))
    result = run_test("picv-rpc", problem, overheads=overheads_from_json(PROFILE))
    # Clients: C' = 10 ms + 20 us + 5 trace events; call 4.5 ms + 30 us: E = 14.555 ms; J = 50 us.
    # Client1: E + Client2's call 4.53 + 2 OS jobs = 19.285 ms, + J = 19.335 ms.
    # Client2: 2 × 14.555 + 3 OS jobs = 29.41 ms, + J = 29.46 ms.
    # Annoyer: 10.023 + 2 × 14.555 + 4 OS jobs = 39.533 ms, + J = 39.583 ms.
    assert result.bounds() == {"Client1": 19_335_000, "Client2": 29_460_000, "Annoyer": 39_583_000}


def test_p99_figures_are_chosen_by_stat():
    ov = overheads_from_json(PROFILE, stat="p99")
    assert (ov.context_switch_ns, ov.release_latency_ns, ov.rpc_call_ns) == (5 * US, 20 * US, 10 * US)
    # The interference keeps its worst window: the interrupts the p99s leave out are counted there.
    assert (ov.interference_window_ns, ov.interference_max_lost_ns) == (10 * MS, 100 * US)
    with pytest.raises(OverheadsError, match="p99"):
        overheads_from_json({k: v for k, v in PROFILE.items() if k != "p99"}, stat="p99")


def test_interference_per_partition_under_p_fp():
    problem = AnalysisProblem(scheduler="P-FP", cpus=2, tasks=(
        AnalysisTask("a", wcet_ns=1 * MS, period_ns=10 * MS, deadline_ns=10 * MS, priority=5, partition="cpu0"),
        AnalysisTask("b", wcet_ns=1 * MS, period_ns=10 * MS, deadline_ns=10 * MS, priority=9, partition="cpu1"),
    ))
    folded = apply_overheads(problem, overheads_from_json(PROFILE))
    extra = {t.name: (t.partition, t.priority) for t in folded.tasks if t.name.startswith(OS_INTERFERENCE)}
    assert extra == {f"{OS_INTERFERENCE} cpu0": ("cpu0", 6), f"{OS_INTERFERENCE} cpu1": ("cpu1", 10)}
    result = run_test("fp-rta", problem, overheads=overheads_from_json(PROFILE))
    assert set(result.bounds()) == {"a", "b"}


def test_interference_stretches_every_job_where_no_task_stands_above():
    problem = AnalysisProblem(scheduler="EDF", tasks=(
        AnalysisTask("a", wcet_ns=1 * MS, period_ns=10 * MS, deadline_ns=10 * MS),
        AnalysisTask("b", wcet_ns=1 * MS, period_ns=30 * MS, deadline_ns=25 * MS),))
    folded = apply_overheads(problem, overheads_from_json(PROFILE))
    # no task above every job under EDF: each job loses at most ⌈D/W⌉ × 100 us on its one CPU,
    # besides its 2 switches and 3 trace events (23 us)
    assert {t.name: t.wcet_ns for t in folded.tasks} == {"a": 1 * MS + 1 * 100 * US + 23 * US,
                                                         "b": 1 * MS + 3 * 100 * US + 23 * US}
    assert any("OS interference counted in every job's WCET" in n for n in folded.notes)
    # on two CPUs (G-EDF) a job may migrate, and lose L on each CPU it runs on
    two = apply_overheads(AnalysisProblem(scheduler="G-EDF", cpus=2, tasks=problem.tasks), overheads_from_json(PROFILE))
    assert two.task("a").wcet_ns == 1 * MS + 2 * 100 * US + 23 * US


def test_missing_figures_are_named_in_notes():
    problem = AnalysisProblem(tasks=(
        AnalysisTask("c", wcet_ns=1 * MS, period_ns=10 * MS, deadline_ns=10 * MS, priority=1,
                     rpcs=(Rpc("S", 1 * MS),)),))
    folded = apply_overheads(problem, overheads_from_json({"format": "rtsched-overheads/1"}))
    notes = "\n".join(folded.notes)
    for key in ("rpc_call_ns", "trace_event_ns", "os_interference", "context_switch_ns"):
        assert key in notes


@pytest.mark.parametrize("bad, where", [
    ({"os_interference": 5}, "os_interference"),
    ({"os_interference": {"window_ns": 0, "max_lost_ns": 1}}, "window_ns"),
    ({"rpc_call_ns": -1}, "not a duration"),
    ({"lock_ns": {"pip": None}}, "not a duration in ns: None"),  # a per-protocol entry cannot be left out
])
def test_bad_profiles_are_refused(bad, where):
    with pytest.raises(OverheadsError, match=where):
        overheads_from_json({"format": "rtsched-overheads/1", **bad}, source="p.json")


def test_edf_with_the_profile_counts_release_latency_as_a_shorter_deadline():
    problem = AnalysisProblem(scheduler="EDF", tasks=(
        AnalysisTask("a", wcet_ns=5 * MS, period_ns=10 * MS, deadline_ns=10 * MS),
        AnalysisTask("b", wcet_ns=4_930 * US, period_ns=10 * MS, deadline_ns=10 * MS),
    ))
    assert run_test("edf-qpa", problem).schedulable  # U = 0.993
    quiet = {k: v for k, v in PROFILE.items() if k != "os_interference"}  # no stretch: the demand below
    result = run_test("edf-qpa", problem, overheads=overheads_from_json(quiet))
    # C' = C + 23 us each; a job released up to 50 us late must finish by its deadline: demand
    # by 9.95 ms is 5.023 + 4.953 = 9.976 ms.
    assert result.verdict == "not schedulable"
    assert "demand 9976000 ns > 9950000 ns" in result.reason
    assert not result.exact


def test_edf_jitter_that_cannot_be_met_or_with_resources_is_refused():
    late = AnalysisProblem(scheduler="EDF", tasks=(
        AnalysisTask("a", wcet_ns=1 * MS, period_ns=10 * MS, deadline_ns=2 * MS, jitter_ns=2 * MS),))
    assert "not below its deadline" in run_test("edf-qpa", late).reason
    shared = AnalysisProblem(scheduler="EDF", tasks=(
        AnalysisTask("a", wcet_ns=1 * MS, period_ns=10 * MS, deadline_ns=10 * MS, jitter_ns=1 * MS,
                     critical_sections=(CriticalSection("r", 1 * MS),)),))
    assert run_test("edf-qpa", shared).verdict == "unsupported"


# --- release jitter for the tests that take none (rtsched.analysis.jitter_fold) ---

def _gedf(jitters: tuple[int, ...], wakeup: bool, scheduler: str = "G-EDF") -> AnalysisProblem:
    shapes = ((1 * MS, 5 * MS, 4 * MS), (2 * MS, 10 * MS, 10 * MS), (6 * MS, 20 * MS, 18 * MS),
              (3 * MS, 15 * MS, 15 * MS))
    return AnalysisProblem(scheduler=scheduler, cpus=2, deadline_at_wakeup=wakeup, tasks=tuple(
        AnalysisTask(f"t{k}", wcet_ns=c, period_ns=t, deadline_ns=d, priority=10 - k, jitter_ns=j)
        for k, ((c, t, d), j) in enumerate(zip(shapes, jitters))))


@pytest.mark.parametrize("test, scheduler", [("gedf-rta", "G-EDF"), ("gedf-bcl-iterative", "G-EDF"),
                                             ("gfp-rta", "G-FP"), ("gfp-guan", "G-FP")])
def test_a_uniform_jitter_at_wakeup_is_the_shifted_task_plus_j(test, scheduler):
    j = 100 * US
    result = run_test(test, _gedf((j,) * 4, wakeup=True, scheduler=scheduler))
    shifted = _gedf((0,) * 4, wakeup=True, scheduler=scheduler)
    shifted = replace(shifted, tasks=tuple(replace(t, period_ns=t.period_ns - j, deadline_ns=t.deadline_ns - j)
                                           for t in shifted.tasks))
    model = run_test(test, shifted)
    assert model.schedulable and result.schedulable
    assert result.bounds() == {n: b + j for n, b in model.bounds().items()}
    assert all("(C, T − J, D − J) from its ready time, + J" in b.reason for b in result.tasks)
    assert not result.exact


def test_fp_shifts_any_jitter_but_edf_at_wakeup_only_a_uniform_one():
    jitters = (100 * US, 0, 300 * US, 0)
    assert run_test("gfp-rta", _gedf(jitters, wakeup=True, scheduler="G-FP")).schedulable
    refused = run_test("gedf-rta", _gedf(jitters, wakeup=True))
    assert refused.verdict == "unsupported"
    assert {b.name for b in refused.tasks} == {"t0", "t1", "t2", "t3"}
    assert all("release jitter differs between tasks (0 ns, 100000 ns, 300000 ns)" in b.reason for b in refused.tasks)


def test_jitter_under_edf_with_deadlines_at_arrival_is_execution():
    jitters = (100 * US, 0, 300 * US, 0)
    result = run_test("gedf-rta", _gedf(jitters, wakeup=False))
    inflated = _gedf((0,) * 4, wakeup=False)
    inflated = replace(inflated, tasks=tuple(replace(t, wcet_ns=t.wcet_ns + j)
                                             for t, j in zip(inflated.tasks, jitters)))
    # the bound is from the arrival already: nothing is added
    assert result.bounds() == run_test("gedf-rta", inflated).bounds()
    assert "as execution at the job's start" in result.task("t0").reason
    assert "release jitter" not in result.task("t1").reason


def test_edf_at_wakeup_does_not_use_the_arrival_model():
    # Found by the soundness harness with EDF ordered by ready time + D (SCHED_DEADLINE): U = 0.975,
    # every task released up to 1 tick late. Spuri's arrival model (C, T, D − J) accepts it, but
    # ordered by wake-up + D, t4's job arriving at 48 (ready at 49) completes at 52 > 51.
    tasks = tuple(AnalysisTask(n, wcet_ns=c, period_ns=t, deadline_ns=d, jitter_ns=1)
                  for n, c, t, d in (("t4", 2, 4, 3), ("t2", 1, 4, 4), ("t1", 1, 8, 6), ("t3", 1, 10, 9)))
    assert run_test("edf-qpa", AnalysisProblem(scheduler="EDF", tasks=tasks)).schedulable  # arrival: sound there
    at_wakeup = run_test("edf-qpa", AnalysisProblem(scheduler="EDF", tasks=tasks, deadline_at_wakeup=True))
    assert not at_wakeup.schedulable


def test_the_threads_backend_sets_deadlines_at_wakeup():
    assert from_taskset(load_taskset(EXAMPLES / "gedf.yaml")).deadline_at_wakeup
    assert not from_taskset(load_taskset(EXAMPLES / "ult-cedf.yaml")).deadline_at_wakeup


def test_prem_intervals_get_the_overhead_as_an_interval_of_their_own():
    problem = from_taskset(load_taskset(EXAMPLES / "prem-pfp.yaml"))
    folded = apply_overheads(problem, overheads_from_json(PROFILE))
    # 2 switches + 3 trace events = 23 us per job, first; the intervals keep their lengths
    assert folded.task("hi").np_segments_ns == (23 * US, 2 * MS)
    assert folded.task("lo").np_segments_ns == (23 * US, 3 * MS, 2 * MS)
    result = run_test("fp-lp", problem, overheads=overheads_from_json(PROFILE))
    # hi: blocked by lo's longest interval less 1 ns, its 23 us and one OS job (100 us) before its
    # last interval of 2 ms: 5.122999 ms from its ready time, + J = 50 us.
    assert result.bound("hi") == 5_172_999
    assert result.schedulable


def test_a_bound_beyond_its_deadline_is_stretched_for_its_own_length():
    # soft G-EDF: tardiness bounds exceed the deadlines, so a job's window is its bound, not D
    problem = AnalysisProblem(scheduler="G-EDF", cpus=2, tasks=tuple(
        AnalysisTask(f"t{k}", wcet_ns=c, period_ns=t, deadline_ns=t) for k, (c, t) in
        enumerate(((7 * MS, 10 * MS), (12 * MS, 20 * MS), (8 * MS, 20 * MS)))))
    ov = overheads_from_json(PROFILE)
    result = run_test("gedf-tardiness", problem, overheads=ov)
    windows = {b.name: b.bound_ns for b in result.tasks if b.bound_ns > problem.task(b.name).deadline_ns}
    assert windows, result.bounds()
    # the bounds shown hold for jobs stretched over windows as long as themselves
    again = run_test("gedf-tardiness", apply_overheads(problem, ov, windows))
    assert all(again.bound(n) <= windows.get(n, problem.task(n).deadline_ns) for n in problem.names())
    assert again.bounds() == result.bounds()


def _uniformly_jittered(make, rng):
    model = make(rng)
    jitter = rng.choice((1, 2))
    return replace(model, tasks=tuple(replace(t, jitter=jitter) for t in model.tasks))


@pytest.mark.parametrize("test, scheduler", [("gedf-rta", "G-EDF"), ("gedf-bcl-iterative", "G-EDF"),
                                             ("gfp-rta", "G-FP"), ("gfp-guan", "G-FP")])
def test_the_soundness_harness_finds_no_schedule_beyond_a_folded_bound(test, scheduler):
    # the harness orders EDF jobs by arrival + D (as ult and rtsched sim): G-EDF gets J as execution
    from rtsched.analysis.soundness.families import global_multi
    from rtsched.analysis.soundness.harness import search
    from rtsched.analysis.soundness.subjects import Subject

    # lighter sets under G-EDF, where J as execution weighs on ticks of 2–12
    family = partial(global_multi, scheduler=scheduler, u_range=(0.2, 0.8) if scheduler == "G-EDF" else (0.4, 1.3))
    subject = Subject(test, "uniform-jitter", partial(_uniformly_jittered, family))
    report = search(subject, seed=1, sets=8, scenarios_per_set=40, offsets_limit=64)
    assert report.accepted > 0  # before the fold every one of these sets was refused
    assert report.counterexample is None, report.counterexample


def test_the_reason_does_not_count_the_interference_rows():
    # locks.yaml: four tasks without a bound; with a profile, two OS interference rows (one per CPU)
    # are in the test's own count, not in the result
    result = run_test("fp-rta", from_taskset(load_taskset(EXAMPLES / "locks.yaml")),
                      overheads=overheads_from_json(PROFILE))
    assert len(result.tasks) == 4
    assert result.reason.endswith("(and 3 more)")


def test_a_cluster_stretched_beyond_its_cpus_is_not_called_infeasible():
    # a noisy machine (this VM's calibration: 4.3 ms lost in one 10 ms window): the stretch is a
    # bound on what interference may take, not demand, so U > m of the folded set proves nothing
    noisy = {**PROFILE, "os_interference": {"window_ns": 10 * MS, "max_lost_ns": 4_344_258}}
    result = run_test("c-edf", from_taskset(load_taskset(EXAMPLES / "ult-cedf.yaml")),
                      overheads=overheads_from_json(noisy))
    assert result.verdict == "not schedulable"
    assert all("infeasible" not in b.reason for b in result.tasks)
    assert "infeasible" in run_test("c-edf", AnalysisProblem(scheduler="P-EDF", partition_cpus={"p": 2}, tasks=tuple(
        AnalysisTask(f"t{k}", wcet_ns=9 * MS, period_ns=10 * MS, deadline_ns=10 * MS, partition="p")
        for k in range(3)))).reason

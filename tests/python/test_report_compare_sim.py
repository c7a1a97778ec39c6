"""A run's report beside its simulation's, job by job (rtsched.report.compare_sim), on traces
written by hand: exact joins, divergences and their explanations."""

from __future__ import annotations

import csv

import pytest

from rtsched.analysis import bounds_for
from rtsched.model import taskset_from_dict
from rtsched.model.placement import place
from rtsched.report import build_report
from rtsched.report.compare_sim import FASTER, compare_with_sim, write_comparison_csv
from rtsched.report.excess import DISTURBED, UNEXPLAINED
from rtsched.trace import read_trace
from rtsched.trace.kernel_sched import parse_sched_text

from test_report_excess import _kernel
from test_report_from_trace import TASKSET
from test_run_offline import MS, job, write_trace

US = 1000


def _report(path, kernel=None):
    taskset = taskset_from_dict(TASKSET)
    return build_report(read_trace(path), taskset, bounds_for(taskset), place(taskset, cpus_online=(0, 1)),
                        kernel=kernel)


def _pair(tmp_path, kernel_text=None):
    # a (CPU 0): run 2, 2.05, 2 ms; simulated 2 ms each and a 4th job the run did not complete.
    # b (CPU 1): run 12 ms (9 ms slower than simulated) then 4 ms (1 ms faster than simulated).
    run_a = job(0, 0, 1, 0, 2 * MS) + job(10 * MS, 1, 2, 0, 2 * MS + 50 * US) + job(20 * MS, 2, 3, 0, 2 * MS)
    run_b = job(0, 0, 1, 1, 12 * MS) + job(20 * MS, 1, 2, 1, 4 * MS)
    sim_a = sum((job(k * 10 * MS, k, k + 1, 0, 2 * MS) for k in range(4)), [])
    sim_b = job(0, 0, 1, 1, 3 * MS) + job(20 * MS, 1, 2, 1, 5 * MS)
    run = write_trace(tmp_path / "run.rtst", [("a", 10 * MS, 10 * MS, run_a), ("b", 20 * MS, 10 * MS, run_b)])
    sim = write_trace(tmp_path / "sim.rtst", [("a", 10 * MS, 10 * MS, sim_a), ("b", 20 * MS, 10 * MS, sim_b)])
    kernel = parse_sched_text(kernel_text) if kernel_text else None
    return _report(run, kernel), _report(sim), kernel


def test_every_job_in_both_is_paired_with_its_bound(tmp_path):
    observed, simulated, _ = _pair(tmp_path)
    got = compare_with_sim(observed, simulated)
    assert [(p.task, p.job, p.observed_ns, p.simulated_ns) for p in got.pairs] == [
        ("a", 1, 2 * MS, 2 * MS), ("a", 2, 2 * MS + 50 * US, 2 * MS), ("a", 3, 2 * MS, 2 * MS),
        ("b", 1, 12 * MS, 3 * MS), ("b", 2, 4 * MS, 5 * MS)]
    bounds = {s.task: s.bound_ns for s in observed.stats}
    assert all(p.bound_ns == bounds[p.task] for p in got.pairs) and bounds["b"] == 3 * MS
    assert [p.release_ns for p in got.pairs] == [0, 10 * MS, 20 * MS, 0, 20 * MS]  # since the run's t0


def test_divergence_beyond_the_tolerance_only(tmp_path):
    observed, simulated, _ = _pair(tmp_path)
    got = compare_with_sim(observed, simulated)  # 100 us or 5 % of the simulated response
    assert [(p.task, p.job, p.diff_ns) for p in got.diverging] == [("b", 1, 9 * MS), ("b", 2, -1 * MS)]
    # a's 50 us is within the tolerance; with none, it diverges too
    strict = compare_with_sim(observed, simulated, tolerance_ns=0, tolerance_share=0)
    assert [(p.task, p.job) for p in strict.diverging] == [("b", 1), ("b", 2), ("a", 2)]
    # 1 ms within 25 % of 5 ms
    loose = compare_with_sim(observed, simulated, tolerance_share=0.25)
    assert [(p.task, p.job) for p in loose.diverging] == [("b", 1)]
    with pytest.raises(ValueError, match="tolerance"):
        compare_with_sim(observed, simulated, tolerance_ns=-1)


def test_a_slower_job_is_explained_from_the_kernels_schedule_of_its_window(tmp_path):
    text = _kernel(("b", 101, 89, 0), ("stress-ng", 500, 120, 1 * MS), ("b", 101, 89, 10 * MS))
    observed, simulated, kernel = _pair(tmp_path, text)
    slower, faster = compare_with_sim(observed, simulated, kernel=kernel).diverging
    assert slower.verdict == DISTURBED
    assert "SCHED_OTHER threads ran 9.000 ms" in slower.cause
    assert faster.verdict == FASTER and "took 1.000 ms less than the simulation" in faster.cause
    # without the kernel's schedule the window is not explained, and says why
    alone = compare_with_sim(observed, simulated).diverging[0]
    assert alone.verdict == UNEXPLAINED and "no kernel schedule" in alone.cause


def test_per_task_means_over_the_paired_jobs(tmp_path):
    observed, simulated, _ = _pair(tmp_path)
    a, b = compare_with_sim(observed, simulated).tasks
    assert (a.task, a.jobs, a.diverging, a.observed_only, a.simulated_only) == ("a", 3, 0, 0, 1)
    assert a.observed_mean_ns == pytest.approx((6 * MS + 50 * US) / 3)
    assert a.simulated_mean_ns == 2 * MS
    assert a.error_share == pytest.approx((2 * MS - (6 * MS + 50 * US) / 3) / ((6 * MS + 50 * US) / 3))
    assert (b.jobs, b.diverging, b.observed_mean_ns, b.simulated_mean_ns) == (2, 2, 8 * MS, 4 * MS)
    assert b.error_share == pytest.approx(-0.5)


def test_csv_has_every_paired_job_and_the_summary_every_diverging_one(tmp_path):
    observed, simulated, _ = _pair(tmp_path)
    got = compare_with_sim(observed, simulated)
    assert write_comparison_csv(got, tmp_path / "c.csv") == 5
    rows = list(csv.DictReader(open(tmp_path / "c.csv")))
    assert [(r["task"], r["job"], r["diff_ns"], r["diverges"]) for r in rows] == [
        ("a", "1", "0", "0"), ("a", "2", "50000", "0"), ("a", "3", "0", "0"), ("b", "1", "9000000", "1"),
        ("b", "2", "-1000000", "1")]
    summary = got.as_dict()
    assert summary["jobs"] == 5 and [d["job"] for d in summary["diverging"]] == [1, 2]
    assert summary["diverging"][0]["diff_ns"] == 9 * MS and summary["tolerance_ns"] == 100 * US


def test_bad_tolerance_options_are_refused_before_running(tmp_path):
    from test_run_offline import rtsched

    spec = tmp_path / "ok.yaml"
    spec.write_text("name: ok\nplatform: {scheduler: P-FP, cpus: [0]}\n"
                    "tasks:\n  - {name: t, period: 10ms, priority: 10, partition: cpu0, body: [{compute: 1ms}]}\n")
    bad = rtsched("run", str(spec), "--compare-sim", "--sim-tolerance", "ten", "--out", str(tmp_path / "o"))
    assert bad.returncode == 1 and "--sim-tolerance" in bad.stderr
    negative = rtsched("run", str(spec), "--compare-sim", "--sim-tolerance-share", "-0.1", "--out", str(tmp_path / "o"))
    assert negative.returncode == 1 and "must be >= 0" in negative.stderr
    assert not (tmp_path / "o" / "trace.rtst").exists()

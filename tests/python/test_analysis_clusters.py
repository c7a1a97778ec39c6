"""Issue 13 item 6a: a partition of several CPUs is a cluster, analysed by the global tests.

Under P-EDF / P-FP the runner schedules the tasks of a multi-CPU partition
globally inside it (C-EDF, C-FP). The uniprocessor tests used to analyse such
a partition as one processor and label the verdict exact: 6/10, 6/10, 4/20 ms
in one two-CPU partition was "not schedulable (exact test): U = 1.4 > 1".
"""

from __future__ import annotations

import pytest

from rtsched.analysis import TESTS, AnalysisProblem, AnalysisTask, bounds_for, default_test, from_taskset, run_test
from rtsched.model import loads_taskset

MS = 1_000_000


def _issue_13_set(scheduler: str) -> str:
    prio = scheduler == "P-FP"
    return f"""
name: cluster
platform:
  scheduler: {scheduler}
  cpus: [0, 1]
  partitions: [{{name: pair, cpus: [0, 1]}}]
tasks:
  - {{name: a, wcet: 6ms, period: 10ms, partition: pair{', priority: 30' if prio else ''}, body: [{{compute: 6ms}}]}}
  - {{name: b, wcet: 6ms, period: 10ms, partition: pair{', priority: 20' if prio else ''}, body: [{{compute: 6ms}}]}}
  - {{name: c, wcet: 4ms, period: 20ms, partition: pair{', priority: 10' if prio else ''}, body: [{{compute: 4ms}}]}}
"""


@pytest.mark.parametrize("scheduler, test, global_test", [("P-EDF", "c-edf", "gedf-"), ("P-FP", "c-fp", "gfp-rta")])
def test_issue_13_two_cpu_partition_is_analysed_globally(scheduler, test, global_test):
    problem = from_taskset(loads_taskset(_issue_13_set(scheduler)))
    assert problem.clusters() == {"pair": 2}
    assert default_test(problem) == test
    result = bounds_for(loads_taskset(_issue_13_set(scheduler)))
    assert result.test == test
    assert result.verdict == "schedulable"  # U = 1.4 on two CPUs
    assert result.label == "sufficient" and not result.exact
    assert global_test in result.reason and "2 CPUs" in result.reason
    assert all(f"at m = 2" in b.reason for b in result.tasks)


@pytest.mark.parametrize("test", ["p-edf", "edf-qpa", "edf-dbf", "edf-util"])
def test_uniprocessor_edf_tests_refuse_a_cluster(test):
    result = run_test(test, from_taskset(loads_taskset(_issue_13_set("P-EDF"))))
    assert result.verdict == "unsupported"
    assert "partition pair has 2 CPUs" in result.reason and "c-edf" in result.reason


@pytest.mark.parametrize("test", ["fp-rta", "fp-rta-pip", "fp-ll", "fp-hyperbolic", "fp-lp", "p-fp-mpcp",
                                  "p-fp-fmlp+", "picv-rpc"])
def test_uniprocessor_fp_tests_refuse_a_cluster(test):
    result = run_test(test, from_taskset(loads_taskset(_issue_13_set("P-FP"))))
    assert result.verdict == "unsupported"
    assert "partition pair has 2 CPUs" in result.reason


def test_clusters_and_single_cpus_mixed():
    """One-CPU partitions keep the exact uniprocessor test; the cluster the global one."""
    def task(name, c, t, part, prio):
        return AnalysisTask(name, c * MS, t * MS, t * MS, priority=prio, partition=part)

    tasks = (task("a", 6, 10, "pair", 30), task("b", 6, 10, "pair", 20), task("c", 4, 20, "pair", 10),
             task("x", 5, 10, "solo", 20), task("y", 5, 10, "solo", 10))
    fp = AnalysisProblem(tasks, scheduler="P-FP", partition_cpus={"pair": 2, "solo": 1})
    result = run_test("c-fp", fp)
    assert result.schedulable and result.label == "sufficient"
    assert result.bound("x") == 5 * MS and result.bound("y") == 10 * MS  # fp-rta on the one CPU
    edf = AnalysisProblem(tasks, scheduler="P-EDF", partition_cpus={"pair": 2, "solo": 1})
    assert run_test("c-edf", edf).schedulable
    # without clusters, c-* are the uniprocessor tests per partition, and exact
    single = AnalysisProblem(tasks[3:], scheduler="P-FP", partition_cpus={"solo": 1})
    assert run_test("c-fp", single).label == "exact"
    assert run_test("c-fp", single).bounds() == run_test("fp-rta", single).bounds()


def test_an_overloaded_cluster_is_not_shown_schedulable():
    tasks = tuple(AnalysisTask(f"t{i}", 7 * MS, 10 * MS, 10 * MS, priority=10 + i, partition="pair") for i in range(3))
    for scheduler, test in (("P-EDF", "c-edf"), ("P-FP", "c-fp")):
        result = run_test(test, AnalysisProblem(tasks, scheduler=scheduler, partition_cpus={"pair": 2}))
        assert result.verdict == "not schedulable" and result.label == "sufficient"
        assert "U = 2.1000 > m = 2: infeasible" in result.reason  # certain, though the test is sufficient


# What each registered test's verdict guarantees, on a set it fully applies to (independent tasks of
# distinct priorities, no sleeps; one CPU, or the global tests' m). "exact" where the test is exact
# for that model; "sufficient" where "not schedulable" only means "not shown".
LABELS = {
    "fp-rta": "exact", "fp-rta-pip": "exact", "fp-rta-pcp": "exact", "fp-rta-srp": "exact",
    "fp-rta-ipcp": "exact", "fp-rta-np": "exact",
    "fp-ll": "sufficient", "fp-hyperbolic": "sufficient", "fp-lp": "sufficient",
    "edf-util": "exact", "edf-dbf": "exact", "edf-qpa": "exact", "p-edf": "exact",
    "p-fp-mpcp": "sufficient", "p-fp-fmlp+": "sufficient", "p-fp-fmlp+-lp": "sufficient",
    "p-fp-mpcp-lp": "sufficient", "p-fp-msrp": "exact",  # no resources: fp-rta
    "p-fp-dpcp-lp": "sufficient", "p-fp-dflp-lp": "sufficient",
    "c-fp": "exact", "c-edf": "exact",  # one CPU per partition: the uniprocessor tests
    "gedf-gfb": "sufficient", "gedf-bcl": "sufficient", "gedf-rta": "sufficient", "gedf-tardiness": "sufficient",
    "gedf-tardiness-lambda": "sufficient",
    "gedf-np-tardiness": "sufficient",
    "gfp-rta": "sufficient",
    "gedf-baker": "sufficient", "gedf-baruah": "sufficient", "gedf-ffdbf": "sufficient", "gedf-bcl-iterative": "sufficient",
    "gfp-guan": "sufficient",
    "prm-fp": "exact", "prm-edf": "exact",  # exact supply bound function: exact for the resource model
    "picv-rpc": "sufficient",
}
# ... and where the set makes an exact test only sufficient
LABELS_WITH_RESOURCES = {"fp-rta": "sufficient", "edf-dbf": "sufficient", "edf-qpa": "sufficient"}


def _label_problem(test: str) -> AnalysisProblem:
    tasks = (AnalysisTask("a", 1 * MS, 10 * MS, 10 * MS, priority=30, partition="cpu0"),
             AnalysisTask("b", 2 * MS, 20 * MS, 20 * MS, priority=20, partition="cpu0"),
             AnalysisTask("c", 3 * MS, 40 * MS, 40 * MS, priority=10, partition="cpu0"))
    if test.startswith(("gedf", "gfp")):
        return AnalysisProblem(tuple(t.__class__(t.name, t.wcet_ns, t.period_ns, t.deadline_ns, priority=t.priority)
                                     for t in tasks), scheduler="G-FP" if test.startswith("gfp") else "G-EDF", cpus=2)
    edf = test.startswith(("edf", "p-edf", "c-edf", "prm-edf"))
    return AnalysisProblem(tasks, scheduler="P-EDF" if edf else "P-FP", partition_cpus={"cpu0": 1})


def test_every_registered_test_has_a_label_in_the_table():
    assert set(TESTS) == set(LABELS)


@pytest.mark.parametrize("test", sorted(LABELS))
def test_registered_test_labels(test):
    options = {"period_ns": 5 * MS} if test.startswith("prm") else {}
    result = run_test(test, _label_problem(test), **options)
    assert result.verdict != "unsupported", result.reason
    assert result.label == LABELS[test], result.reason
    assert result.exact == (result.label == "exact")
    assert result.to_dict()["label"] == result.label


@pytest.mark.parametrize("test, label", sorted(LABELS_WITH_RESOURCES.items()))
def test_resources_make_exact_tests_sufficient(test, label):
    from dataclasses import replace

    from rtsched.analysis import CriticalSection

    problem = _label_problem(test)
    cs = (CriticalSection("r", 1000),)
    problem = problem.with_tasks(replace(t, critical_sections=cs) if t.name in ("a", "c") else t for t in problem.tasks)
    problem = replace(problem, protocols={"r": "srp"})
    assert run_test(test, problem).label == label


def test_equal_priorities_and_sleeps_make_fp_rta_sufficient():
    from dataclasses import replace

    problem = _label_problem("fp-rta")
    same = problem.with_tasks(replace(t, priority=10) for t in problem.tasks)
    assert run_test("fp-rta", same).label == "sufficient"
    sleepy = problem.with_tasks(replace(t, suspension_ns=MS) if t.name == "a" else t for t in problem.tasks)
    assert run_test("fp-rta", sleepy).label == "sufficient"
    assert run_test("edf-qpa", replace(sleepy, scheduler="P-EDF")).label == "sufficient"


@pytest.mark.parametrize("named, runs_as, test", [("C-EDF", "P-EDF", "c-edf"), ("C-FP", "P-FP", "c-fp")])
def test_the_format_names_clustered_scheduling(named, runs_as, test):
    """``scheduler: C-EDF`` / ``C-FP``: the same run as P-EDF / P-FP, the name kept through a dump."""
    import yaml

    from rtsched.model import taskset_to_dict

    def dumps_taskset(ts):
        return yaml.safe_dump(taskset_to_dict(ts), sort_keys=False)

    taskset = loads_taskset(_issue_13_set(runs_as).replace(f"scheduler: {runs_as}", f"scheduler: {named}"))
    assert taskset.scheduler == runs_as and taskset.platform.clustered and taskset.platform.policy == named
    assert f"scheduler: {named}" in dumps_taskset(taskset)
    assert loads_taskset(dumps_taskset(taskset)).platform == taskset.platform
    assert bounds_for(taskset).test == test

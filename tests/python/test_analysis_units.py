"""The analysis's pieces: adapter, matching, overheads, generators, partitioning, registry, CLI."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from rtsched.analysis import (
    TESTS,
    AnalysisProblem,
    AnalysisTask,
    CriticalSection,
    bounds_for,
    default_test,
    from_taskset,
    run_test,
)
from rtsched.analysis.generators import (
    DISTRIBUTIONS,
    draw_utilizations,
    generate_problem,
    log_uniform_periods,
    utilizations_by_distribution,
    uunifast,
    uunifast_discard,
)
from rtsched.analysis.matching import max_weight_assignment
from rtsched.analysis.overheads import OverheadsError, apply_overheads, load_overheads, overheads_from_json
from rtsched.analysis.partitioned import partition_tasks
from rtsched.cli.main import main
from rtsched.model import loads_taskset

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MS = 1_000_000


def test_matching_is_exact_against_brute_force():
    rng = random.Random(7)
    for _ in range(200):
        r, c = rng.randint(1, 5), rng.randint(1, 5)
        w = [[rng.choice([0, rng.randint(1, 40)]) for _ in range(c)] for _ in range(r)]
        best = 0
        for perm in itertools.permutations(range(max(r, c)), min(r, c)):
            pairs = zip(range(r), perm) if r <= c else zip(perm, range(c))
            best = max(best, sum(w[i][j] for i, j in pairs))
        assert max_weight_assignment(w)[0] == best


LOCKS = """
name: t
platform: {scheduler: P-FP, cpus: [0]}
resources: [{name: a, protocol: pip}, {name: b, protocol: pip}]
condvars: [{name: cv, mutex: a}]
tasks:
  - name: hi
    period: 10ms
    priority: 20
    partition: cpu0
    body: [{compute: 1ms}, {lock: a}, {compute: 200us}, {lock: b}, {compute: 100us}, {unlock: b},
           {unlock: a}, {sleep: 300us}]
  - name: lo
    period: 20ms
    priority: 10
    partition: cpu0
    body: [{lock: a}, {compute: 400us}, {wait: cv}, {compute: 100us}, {unlock: a}]
  - name: bg
    period: 20ms
    policy: other
    body: [{compute: 1ms}]
"""


def test_adapter_reads_sections_nesting_sleeps_and_waits():
    p = from_taskset(loads_taskset(LOCKS, "yaml"))
    assert p.names() == ("hi", "lo") and p.scheduler == "P-FP"
    hi = p.task("hi")
    outer = [cs for cs in hi.critical_sections if cs.resource == "a"][0]
    inner = [cs for cs in hi.critical_sections if cs.resource == "b"][0]
    assert outer.length_ns == 300_000 and outer.nested == ("b",) and outer.outermost
    assert inner.length_ns == 100_000 and not inner.outermost
    assert hi.suspension_ns == 300_000 and hi.priority == 20
    lo = p.task("lo")
    # the wait releases a: two sections of 400us and 100us
    assert sorted(cs.length_ns for cs in lo.critical_sections) == [100_000, 400_000]
    assert "lo" in p.unanalysable
    r = bounds_for(loads_taskset(LOCKS, "yaml"))
    assert r.task("lo").bound_ns is None and "condition variable" in r.task("lo").reason
    assert r.task("hi").bound_ns is not None and r.task("hi").blocking_ns == 400_000


def test_bounds_for_examples_never_raise():
    for path in sorted(EXAMPLES.glob("*.yaml")):
        from rtsched.model import load_taskset

        r = bounds_for(load_taskset(path))
        assert r.test and len(r.tasks) >= 1
    assert bounds_for(object()).verdict == "unsupported"


def test_bounds_for_shared_pip_across_partitions_says_why():
    from rtsched.model import load_taskset

    r = bounds_for(load_taskset(EXAMPLES / "locks.yaml"))
    assert r.verdict == "unsupported" and all(b.bound_ns is None for b in r.tasks)
    assert "multiprocessor protocol" in r.reason


def test_default_tests():
    t = (AnalysisTask("a", 1, 10, 10),)
    assert default_test(AnalysisProblem(t, "P-FP")) == "fp-rta"
    assert default_test(AnalysisProblem(t, "G-EDF")) == "gedf-rta"
    assert default_test(AnalysisProblem(t, "P-EDF")) == "p-edf"
    assert default_test(AnalysisProblem(t, "G-FP")) == "gfp-rta"
    assert set(TESTS) >= {"fp-rta", "edf-qpa", "gedf-bcl", "prm-fp", "picv-rpc", "p-fp-mpcp", "p-fp-fmlp+"}
    with pytest.raises(KeyError):
        run_test("nope", AnalysisProblem(t))


def test_every_test_answers_every_scheduler():
    for sched in ("FP", "EDF", "P-FP", "P-EDF", "G-FP", "G-EDF"):
        p = generate_problem(4, 0.5, 1, scheduler=sched, cpus=2)
        for name, test in TESTS.items():
            if name.startswith("prm"):
                r = test(p, period_ns=10 * MS)
            else:
                r = test(p)
            assert r.verdict in ("schedulable", "not schedulable", "unsupported"), name
            assert len(r.tasks) == 4


def _two_cpu_problem(protocol):
    cs = CriticalSection
    tasks = (
        AnalysisTask("a1", 2 * MS, 10 * MS, 10 * MS, 20, critical_sections=(cs("g", MS),), partition="p0"),
        AnalysisTask("a2", 3 * MS, 20 * MS, 20 * MS, 10, partition="p0"),
        AnalysisTask("b1", 2 * MS, 15 * MS, 15 * MS, 20, critical_sections=(cs("g", 2 * MS),), partition="p1"),
        AnalysisTask("b2", 4 * MS, 30 * MS, 30 * MS, 10, critical_sections=(cs("g", MS),), partition="p1"),
    )
    return AnalysisProblem(tasks, "P-FP", cpus=2, protocols={"g": protocol})


def test_mpcp_and_fmlp_plus_bound_remote_waiting():
    for name, proto in (("p-fp-mpcp", "mpcp"), ("p-fp-fmlp+", "fmlp+")):
        p = _two_cpu_problem(proto)
        assert default_test(p) == name
        r = run_test(name, p)
        assert r.schedulable, (name, r.reason)
        a1 = r.task("a1")
        # a1 waits at least for one of b1's or b2's sections
        assert a1.bound_ns >= 2 * MS + 2 * MS
        # a2 suffers a1's remote wait as jitter: bound ≥ own + a1
        assert r.bound("a2") >= 5 * MS
    # FIFO: a1 waits for both b1 and b2 (2 + 1 ms): bound ≥ 2 + 3
    assert run_test("p-fp-fmlp+", _two_cpu_problem("fmlp+")).task("a1").blocking_ns >= 3 * MS


def test_partitioning_heuristics():
    p = AnalysisProblem(tuple(AnalysisTask(f"t{i}", c * MS, 10 * MS, 10 * MS, priority=10 - i)
                              for i, c in enumerate([6, 5, 4, 3])))
    ff = partition_tasks(p, ["c0", "c1"], "first-fit")
    assert ff.ok and ff.assignment == {"t0": "c0", "t1": "c1", "t2": "c0", "t3": "c1"}  # 6+4 fit: R = 10
    wf = partition_tasks(p, ["c0", "c1"], "worst-fit")
    assert wf.ok and wf.assignment["t2"] == "c1" and wf.assignment["t3"] == "c0"
    applied = ff.apply(p)
    assert applied.scheduler == "P-FP" and run_test("fp-rta", applied).schedulable
    assert not partition_tasks(p, ["c0"], "first-fit").ok


def test_limited_preemption_prem():
    # one-ns intervals = fully preemptive: same bounds as RTA
    tasks = (AnalysisTask("a", 3, 7, 7, 3), AnalysisTask("b", 3, 12, 12, 2), AnalysisTask("c", 5, 20, 20, 1))
    p = AnalysisProblem(tasks)
    assert run_test("fp-lp", p).bounds() == run_test("fp-rta", p).bounds()
    fine = p.with_tasks(AnalysisTask(t.name, t.wcet_ns, t.period_ns, t.deadline_ns, t.priority,
                                     np_segments_ns=(1,) * t.wcet_ns) for t in tasks)
    assert run_test("fp-lp", fine).bounds() == {"a": 3, "b": 6, "c": 20}
    # c as one non-preemptive interval of 5: a, released 1 ns after c starts, waits 4
    np_c = p.with_tasks(list(tasks[:2]) + [AnalysisTask("c", 5, 20, 20, 1, np_segments_ns=(5,))])
    r = run_test("fp-lp", np_c)
    assert r.task("a").blocking_ns == 4 and r.bound("a") == 7
    assert default_test(np_c) == "fp-lp"


def test_generators_are_reproducible_and_sum_right():
    rng = random.Random(1)
    us = uunifast(10, 0.8, rng)
    assert abs(sum(us) - 0.8) < 1e-9 and all(u >= 0 for u in us)
    assert all(u <= 1 for u in uunifast_discard(4, 3.5, random.Random(2)))
    assert generate_problem(20, 0.7, 42, resources=3) == generate_problem(20, 0.7, 42, resources=3)
    for name in DISTRIBUTIONS:
        us = utilizations_by_distribution(name, 1.0, random.Random(3))
        assert us and sum(us) <= 1.0
    ps = log_uniform_periods(100, 10 * MS, 1000 * MS, random.Random(4))
    assert all(10 * MS <= x <= 1000 * MS and x % 1000 == 0 for x in ps)
    p = generate_problem(20, 0.7, 5, resources=3, p_access=0.5)
    assert all(sum(cs.length_ns for cs in t.critical_sections) <= t.wcet_ns for t in p.tasks)


def test_generate_problem_draws_utilizations_by_name():
    """randfixedsum draws where UUniFast-discard stalls (6 tasks at U = 5.7 on 6 CPUs); every task
    stays at or below one processor; an unknown name is refused, naming the choices."""
    with pytest.raises(ValueError):
        generate_problem(6, 5.7, 7, scheduler="G-EDF", cpus=6, utilizations="uunifast-discard")
    p = generate_problem(6, 5.7, 7, scheduler="G-EDF", cpus=6, utilizations="randfixedsum")
    assert all(t.wcet_ns <= t.period_ns for t in p.tasks)
    assert abs(float(p.utilization()) - 5.7) < 1e-3
    assert p == generate_problem(6, 5.7, 7, scheduler="G-EDF", cpus=6, utilizations="randfixedsum")
    assert draw_utilizations(3, 0.5, random.Random(1)) == uunifast(3, 0.5, random.Random(1))
    with pytest.raises(ValueError, match="not one of uunifast, uunifast-discard, randfixedsum"):
        draw_utilizations(3, 0.5, random.Random(1), "dirichlet")


LOCKBENCH = {
    "tool": "rtsched-lockbench",
    "uncontended": {"rts-pip": {"lock": {"max_ns": 80.2, "p99_ns": 30}, "unlock": {"max_ns": 50, "p99_ns": 20}},
                    "glibc-none": {"lock": {"max_ns": 10}, "unlock": {"max_ns": 10}}},
    "contended": {"rts-pip": {"lock": {"max_ns": 3000, "p99_ns": 2000}, "unlock": {"max_ns": 1500}}},
}


def test_overheads_from_lockbench_and_latency(tmp_path):
    ov = overheads_from_json(LOCKBENCH, "lb.json")
    assert ov.lock_ns == {"pip": 81} and ov.contended_unlock_ns == {"pip": 1500}
    p99 = overheads_from_json(LOCKBENCH, "lb.json", stat="p99")
    assert p99.lock_ns == {"pip": 30} and any("contended.rts-pip.unlock.p99_ns" in m for m in p99.missing)
    lat = tmp_path / "lat.json"
    lat.write_text(json.dumps({"format": "rtsched-latency/1", "threads": [{"max_ns": 900}, {"max_ns": 1200}]}))
    lb = tmp_path / "lb.json"
    lb.write_text(json.dumps(LOCKBENCH))
    both = load_overheads(lb, lat)
    assert both.release_latency_ns == 1200
    p = AnalysisProblem((AnalysisTask("a", MS, 10 * MS, 10 * MS, 2, critical_sections=(CriticalSection("r", 100),)),
                         AnalysisTask("b", MS, 20 * MS, 20 * MS, 1, critical_sections=(CriticalSection("r", 200),))),
                        protocols={"r": "pip"})
    folded = apply_overheads(p, both)
    assert folded.task("a").wcet_ns == MS + 3000 + 1500 and folded.task("a").jitter_ns == 1200
    assert folded.task("b").critical_sections[0].length_ns == 200 + 1500
    assert any("context-switch" in n for n in folded.notes)
    r = run_test("fp-rta", p, overheads=both)
    assert r.bound("a") == 1200 + MS + 4500 + 1700 and "notes" in r.details
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(OverheadsError, match="not a known benchmark"):
        load_overheads(bad)


def test_cli_analyze(tmp_path, capsys):
    assert main(["analyze", str(EXAMPLES / "pfp-two-cpus.yaml")]) == 0
    assert main(["analyze", str(EXAMPLES / "overload.yaml")]) == 1
    capsys.readouterr()
    assert main(["analyze", str(EXAMPLES / "gedf.yaml"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["test"] == "gedf-rta" and all(t["bound_ns"] for t in out["tasks"])
    assert main(["analyze", str(EXAMPLES / "gedf.yaml"), "--test", "nope"]) == 2
    assert main(["analyze", str(EXAMPLES / "gedf.yaml"), "--test", "gedf-gfb"]) in (0, 1)
    assert main(["analyze", "--list"]) == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\n")
    assert main(["analyze", str(bad)]) == 2  # an invalid input
    assert main(["analyze", str(EXAMPLES / "pfp-two-cpus.yaml"), "--test", "prm-fp",
                 "--option", "period_ns=5000000"]) in (0, 1)
    assert main(["analyze", str(EXAMPLES / "pfp-two-cpus.yaml"), "--option", "oops"]) == 2

"""Sensitivity: how far each bound is from a cliff (issue 13 item 4).

Checked three ways: the main job's known cliff (the Annoyer of seed 004
Table I), hand-computed figures for a set with ample slack, and the binary
searches against a linear scan over every δ on small generated sets.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.analysis import AnalysisProblem, AnalysisTask, from_taskset, run_test
from rtsched.analysis.sensitivity import sensitivity
from rtsched.cli.main import main
from rtsched.model import load_taskset

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MS = 1_000_000


def test_main_job_annoyer_sits_on_a_cliff():
    problem = from_taskset(load_taskset(EXAMPLES / "picv-rpc.yaml"))
    s = sensitivity("picv-rpc", problem)
    annoyer = s.task("Annoyer")
    # R = 10 + 14.5 + 14.5 = 39 ms; Client1's second job comes at 40 ms.
    assert annoyer.bound_ns == 39 * MS
    assert annoyer.cliff_ns == 1 * MS < 1.1 * MS
    # Past the cliff the bound becomes 54.5 ms, then 69 ms > 60 ms: a miss.
    assert annoyer.deadline_slack_ns == 1 * MS
    # The same per job of all three tasks: 39 + 3δ ≤ 40.
    assert annoyer.overhead_slack_ns == MS // 3
    assert s.overhead_headroom_ns == MS // 3
    # Client1 (highest): 19 ms bound, 40 ms deadline, nothing above it.
    client1 = s.task("Client1")
    assert client1.cliff_ns == client1.deadline_slack_ns == 21 * MS
    # Every execution time × 41/40 puts the Annoyer at 39.975 ms; × 1.026 past 40.
    assert s.critical_scaling_factor == Fraction(41, 40)


def test_ample_slack_is_reported():
    problem = AnalysisProblem(tasks=(
        AnalysisTask("fast", wcet_ns=1 * MS, period_ns=10 * MS, deadline_ns=10 * MS, priority=2),
        AnalysisTask("slow", wcet_ns=2 * MS, period_ns=100 * MS, deadline_ns=100 * MS, priority=1),
    ))
    s = sensitivity("fp-rta", problem)
    fast, slow = s.task("fast"), s.task("slow")
    assert (fast.bound_ns, fast.cliff_ns, fast.deadline_slack_ns) == (1 * MS, 9 * MS, 9 * MS)
    # slow: R = 3 ms; the next job of fast comes at 10 ms, so 7 ms more fit without a jump.
    assert (slow.bound_ns, slow.cliff_ns) == (3 * MS, 7 * MS)
    # slow may grow until R = 100 ms: C + ⌈C/10⌉·1 ≤ 100 → C = 90 ms, δ = 88 ms.
    assert slow.deadline_slack_ns == 88 * MS
    # δ on every job: fast's own 1 + δ ≤ 10; slow's R with both grown stays under 100 longer.
    assert fast.overhead_slack_ns == 9 * MS
    assert s.overhead_headroom_ns == min(fast.overhead_slack_ns, slow.overhead_slack_ns)
    # U = 0.12: scaled by 5 the set has U = 0.6 and R_slow = 10 + 5 = 15; it fails only near α = 8.3.
    assert s.critical_scaling_factor is not None and s.critical_scaling_factor > 5


def test_unschedulable_task_has_no_slack():
    problem = AnalysisProblem(tasks=(
        AnalysisTask("a", wcet_ns=6, period_ns=10, deadline_ns=10, priority=2),
        AnalysisTask("b", wcet_ns=6, period_ns=10, deadline_ns=10, priority=1),
    ))
    s = sensitivity("fp-rta", problem)
    assert s.task("a").cliff_ns == 4
    assert s.task("b").cliff_ns is None and s.task("b").deadline_slack_ns is None
    assert s.overhead_headroom_ns is None and s.critical_scaling_factor is None


def _scan(test: str, problem: AnalysisProblem, name: str, every: bool) -> tuple[int, int]:
    """(cliff, deadline slack) by trying every δ in turn."""
    r0 = run_test(test, problem).task(name).bound_ns
    assert r0 is not None
    cliff = slack = None
    for delta in range(0, problem.task(name).deadline_ns + 1):
        grown = replace(problem, tasks=tuple(
            replace(t, wcet_ns=t.wcet_ns + delta) if every or t.name == name else t for t in problem.tasks))
        b = run_test(test, grown).task(name)
        if cliff is None and not (b.verdict == "ok" and b.bound_ns == r0 + delta):
            cliff = delta - 1
        if b.verdict != "ok":
            slack = delta - 1
            break
    assert slack is not None
    return (slack if cliff is None else cliff), slack


small_sets = st.lists(
    st.tuples(st.integers(1, 4), st.integers(4, 24)), min_size=1, max_size=4,
).map(lambda specs: AnalysisProblem(tasks=tuple(
    AnalysisTask(f"t{i}", wcet_ns=c, period_ns=p, deadline_ns=p, priority=len(specs) - i)
    for i, (c, p) in enumerate(sorted(specs, key=lambda s: s[1])))))


@settings(max_examples=60, deadline=None)
@given(small_sets)
def test_binary_searches_match_a_linear_scan(problem):
    s = sensitivity("fp-rta", problem)
    for slack in s.tasks:
        if slack.bound_ns is None:
            continue
        cliff, deadline_slack = _scan("fp-rta", problem, slack.name, every=False)
        assert (slack.cliff_ns, slack.deadline_slack_ns) == (cliff, deadline_slack)
        _, overhead_slack = _scan("fp-rta", problem, slack.name, every=True)
        assert slack.overhead_slack_ns == overhead_slack


def test_cli_prints_slack(capsys):
    assert main(["analyze", str(EXAMPLES / "picv-rpc.yaml"), "--sensitivity"]) == 0
    out = capsys.readouterr().out
    assert "cliff" in out and "Annoyer" in out
    assert "overhead headroom per job: 333.333us" in out.replace(" µs", "us").replace("µs", "us")
    assert "critical scaling factor: 1.025" in out


def test_cli_json_carries_sensitivity(capsys):
    import json

    assert main(["analyze", str(EXAMPLES / "picv-rpc.yaml"), "--sensitivity", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    annoyer = next(t for t in out["sensitivity"]["tasks"] if t["name"] == "Annoyer")
    assert annoyer["cliff_ns"] == 1 * MS
    assert out["sensitivity"]["critical_scaling_factor"] == 1.025

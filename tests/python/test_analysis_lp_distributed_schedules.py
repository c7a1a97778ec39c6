"""p-fp-dpcp-lp and p-fp-dflp-lp against legal schedules of the soundness explorer's agents.

The explorer (``rtsched.analysis.soundness.explorer``) runs a request under
dpcp / dflp as an agent on the resource's synchronization partition; its
schedules of two small sets are checked here by hand (who runs where, each
response), then every offset vector of the first set against the bounds.
The random search over ``partitioned_distributed`` sets runs with the other
subjects in test_soundness_search.py.
"""

from __future__ import annotations

import pytest

from rtsched.analysis import run_test
from rtsched.analysis.soundness.explorer import Semantics, explore
from rtsched.analysis.soundness.harness import judge
from rtsched.analysis.soundness.model import EXEC, LOCK, UNLOCK, Job, Scenario, SystemModel, TaskModel
from rtsched.analysis.soundness.scenarios import horizon_of, offset_scenarios, synchronous


def _section(pre: int, length: int, resource: str = "q", post: int = 0):
    return ((EXEC, pre), (LOCK, resource), (EXEC, length), (UNLOCK, resource)) + (((EXEC, post),) if post else ())


def _worked(protocol: str) -> SystemModel:
    """test_analysis_lp_distributed's worked set in ticks (τ3 locks q first, then runs 1)."""
    return SystemModel((TaskModel("t1", 10, 10, _section(1, 1), 3, partition="cpu0"),
                        TaskModel("t2", 10, 10, _section(1, 1), 2, partition="cpu1"),
                        TaskModel("t3", 20, 20, _section(0, 2, post=1), 1, partition="cpu0")),
                       "P-FP", 2, {"q": protocol}, {"q": "cpu1"})


def _rows(run, ticks: int) -> dict[str, str]:
    return {cpu: "".join((name or ".")[-1] for name in slots[:ticks]) for cpu, slots in run.slots.items()}


@pytest.mark.parametrize("protocol", ["dpcp", "dflp"])
def test_agents_run_on_the_synchronization_partition(protocol):
    """Synchronous release. cpu0: τ1 runs 1, then issues q (its agent goes to cpu1); τ3 issues q at 1
    from the idle cpu0. cpu1: τ2 runs 1; at 1 τ1's agent (first by priority, and by request time)
    runs; then τ3's agent (issued at 1, while τ2, not running, had issued nothing): 2–4; τ2 issues
    only when it runs again, at 4, and its agent runs 4–5. τ3 comes back to cpu0 at 4 for its
    last tick. Responses: τ1 2, τ2 5, τ3 5 (bounds: 4/5, 8, 9/6)."""
    model = _worked(protocol)
    scenario = synchronous(model, horizon_of(model))
    run = explore(model, scenario, 40, Semantics(protocol))
    assert _rows(run, 6) == {"cpu0": "1...3.", "cpu1": "21332."}
    first = {job.task: run.response(scenario, k) for k, job in reversed(list(enumerate(scenario.jobs)))}
    assert first == {"t1": 2, "t2": 5, "t3": 5}


@pytest.mark.parametrize("protocol", ["dpcp", "dflp"])
def test_every_offset_vector_within_the_bounds(protocol):
    model = _worked(protocol)
    result = run_test(f"p-fp-{protocol}-lp", model.problem())
    assert result.schedulable
    checked = 0
    for scenario in offset_scenarios(model, horizon_of(model), 10_000):
        _, violation = judge(model, scenario, result, Semantics(protocol))
        assert violation is None, (scenario, violation)
        checked += 1
    assert checked == 10 * 10 * 20  # every offset of each task within its period


@pytest.mark.parametrize("protocol, bound", [("dpcp", 15), ("dflp", 12)])
def test_a_local_lower_priority_task_preempts_once_per_arrival(protocol, bound):
    """C3 in a schedule. cpu0: τ2 (prio 1, T 5) is all a section on q, whose agents run on cpu0;
    τ1 (prio 2) runs 1, requests r (agents on cpu1), runs 1. τ2's agent runs 0–3: τ1, arriving at
    1, waits for it (first arrival); τ1 runs 3–4 and requests r, which τ3's agent holds 2–5 on cpu1;
    meanwhile τ2's next job issues at 5 and its agent runs 5–8 on cpu0; τ1's agent runs 5–6 and τ1,
    back at 6 (second arrival), waits for τ2's agent again until 8: response 8. The bound: LP 12
    (DPCP: τ2 twice, 2·3, τ3 on r twice, 2·3) or 9 (DFLP: τ3 once per request), + own 1, + e 2."""
    t1 = TaskModel("t1", 20, 20, _section(1, 1, "r", post=1), 2, partition="cpu0")
    t2 = TaskModel("t2", 5, 5, _section(0, 3), 1, partition="cpu0")
    t3 = TaskModel("t3", 20, 20, _section(0, 3, "r"), 3, partition="cpu1")
    model = SystemModel((t1, t2, t3), "P-FP", 2, {"q": protocol, "r": protocol}, {"q": "cpu0", "r": "cpu1"})
    result = run_test(f"p-fp-{protocol}-lp", model.problem())
    assert result.schedulable and result.bound("t1") == bound
    scenario = Scenario((Job("t1", 1, 0, t1.body), Job("t3", 2, 0, t3.body),
                         *(Job("t2", a, 0, t2.body) for a in (0, 5, 10, 15))))
    run, violation = judge(model, scenario, result, Semantics(protocol))
    assert violation is None
    assert _rows(run, 10) == {"cpu0": "2221.2221.", "cpu1": "..3331...."}
    assert run.response(scenario, 0) == 8

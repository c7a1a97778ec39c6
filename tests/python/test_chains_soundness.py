"""Soundness of the chain bounds (docs/chains.md) on generated chains: every generated set with a
bounded chain of 3..8 tasks (P-FP and P-EDF, one CPU and two, register and event links; chain_sets.py)
is simulated, and no observed reaction time or data age may exceed its bound."""

from __future__ import annotations

from functools import cache
from pathlib import Path
import tempfile

import pytest

from chain_sets import Outcome, simulate_chain_set

#: Seeds of the generated sets (about 80 % get a bound; 13 s on the project's VM, nice 10).
SEEDS = range(240)


@cache
def _outcomes() -> tuple[Outcome, ...]:
    with tempfile.TemporaryDirectory() as scratch:
        return tuple(simulate_chain_set(seed, Path(scratch)) for seed in SEEDS)


def _simulated() -> list[Outcome]:
    return [o for o in _outcomes() if o.observed is not None]


def test_no_observed_chain_latency_exceeds_its_bound():
    above = [f"seed {o.seed}: reaction {o.observed.reaction_max_ns} > {o.bound.reaction_ns}"
             for o in _simulated() if o.observed.reaction_exceeded]
    above += [f"seed {o.seed}: data age {o.observed.data_age_max_ns} > {o.bound.data_age_ns}"
              for o in _simulated() if o.observed.data_age_exceeded]
    assert above == []


def test_no_task_of_them_exceeds_its_own_bound():
    # The chain bounds rest on the per-task bounds: a task above its own would be the analysis's defect.
    assert [(o.seed, o.responses_above) for o in _simulated() if o.responses_above] == []


def test_the_generated_chains_cover_what_the_bounds_distinguish():
    simulated = _simulated()
    assert len(simulated) >= 0.7 * len(SEEDS)
    kinds = {(o.taskset.scheduler, len(o.taskset.platform.cpus or ())) for o in simulated}
    assert kinds == {("P-FP", 1), ("P-FP", 2), ("P-EDF", 1), ("P-EDF", 2)}
    assert {len(o.taskset.chains[0].tasks) for o in simulated} == set(range(3, 9))
    with_events = [o for o in simulated if "event" in o.bound.links and o.bound.reaction_ns is not None]
    assert len(with_events) >= 0.3 * len(simulated)
    assert all(o.observed.reactions > 0 and o.observed.ages > 0 for o in simulated)


@pytest.mark.parametrize("what", ["reaction", "data_age"])
def test_the_observations_reach_into_the_bounds(what):
    # Not a vacuous check: on some chains the worst observed latency is within 5 % of its bound, and
    # the bound less the first task's period (a sampling delay every register chain may suffer) is
    # exceeded on some register chain.
    simulated = [o for o in _simulated() if getattr(o.bound, f"{what}_ns") is not None]
    ratios = [getattr(o.observed, f"{what}_max_ns") / getattr(o.bound, f"{what}_ns") for o in simulated]
    assert max(ratios) > 0.95
    first_period = [o for o in simulated if o.bound.links[0] == "register"
                    and getattr(o.observed, f"{what}_max_ns") > getattr(o.bound, f"{what}_ns")
                    - o.taskset.task(o.taskset.chains[0].tasks[0]).period_ns]
    assert first_period

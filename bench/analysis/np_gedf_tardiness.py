"""How close legal non-preemptive G-EDF schedules come to ``gedf-np-tardiness``'s bound.

For each subject ``gedf-np-tardiness/np-{2,3}cpus`` and each seed, draws sets
from the family (``families_np_gedf``), keeps those the test accepts, runs
the harness's scenarios on each (synchronous, every offset vector up to 64,
then random sporadic ones) through the explorer and records, per job, the
observed tardiness max(0, response − D) against the test's tardiness bound
(bound − D). Then, with ``--climb N``, it searches further from the
``--top`` sets that came closest: N steps of a hill climb over scenarios
(move one arrival by 1–2 ticks, drop or add a job, shorten or restore one
amount, swap the tie-break order; a legal change is kept when the largest
ratio does not fall). Prints sets, scenarios, jobs, violations (must be 0)
and the largest observed/bound ratio with the set and job that reached it.

    PYTHONPATH=python python3 bench/analysis/np_gedf_tardiness.py --seeds 0-99 --sets 8 --scenarios 60
    PYTHONPATH=python python3 bench/analysis/np_gedf_tardiness.py --seeds 0-19 --climb 400 --top 10
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, field
from fractions import Fraction

from rtsched.analysis.results import AnalysisResult
from rtsched.analysis.soundness.explorer import explore
from rtsched.analysis.soundness.harness import _until, analyse, scenarios_for
from rtsched.analysis.soundness.model import TIMED, Job, Scenario, SystemModel, check_legal
from rtsched.analysis.soundness.subjects import subject


@dataclass
class Tally:
    sets: int = 0
    scenarios: int = 0
    jobs: int = 0
    late: int = 0
    violations: int = 0
    best: tuple[Fraction, str] = (Fraction(-1), "")
    #: (ratio, model, result, scenario) of the sets that came closest, for the climb
    closest: list[tuple[Fraction, SystemModel, AnalysisResult, Scenario]] = field(default_factory=list)


def _worst(model: SystemModel, result: AnalysisResult, scenario: Scenario, tally: Tally) -> Fraction:
    """Run one scenario; count its jobs into ``tally``; the largest observed/bound tardiness ratio."""
    tally.scenarios += 1
    run = explore(model, scenario, _until(model, scenario, result))
    worst = Fraction(0)
    for k, job in enumerate(scenario.jobs):
        task = model.task(job.task)
        bound = result.bound(job.task)
        assert bound is not None
        finish = run.finish[k]
        if finish is None:
            tally.violations += run.end - job.arrival >= bound  # unfinished beyond its bound
            continue
        tally.jobs += 1
        tardiness = max(0, finish - job.arrival - task.deadline)
        allowed = bound - task.deadline
        tally.late += tardiness > 0
        tally.violations += tardiness > allowed
        ratio = Fraction(tardiness, allowed)
        worst = max(worst, ratio)
        if ratio > tally.best[0]:
            tally.best = (ratio, f"{[(t.name, t.period, t.body) for t in model.tasks]}: {job.task}@{job.arrival} "
                                 f"tardiness {tardiness} of {allowed}")
    return worst


def _mutate(model: SystemModel, scenario: Scenario, rng: random.Random) -> Scenario:
    jobs = list(scenario.jobs)
    order = list(scenario.order) or [t.name for t in model.tasks]
    move = rng.random()
    if move < 0.45 and jobs:
        k = rng.randrange(len(jobs))
        jobs[k] = Job(jobs[k].task, max(0, jobs[k].arrival + rng.choice((-2, -1, 1, 2))), 0, jobs[k].body)
    elif move < 0.55 and jobs:
        jobs.pop(rng.randrange(len(jobs)))
    elif move < 0.65:
        task = rng.choice(model.tasks)
        latest = max((j.arrival for j in jobs), default=0)
        jobs.append(Job(task.name, rng.randint(0, latest + task.period), 0, task.body))
    elif move < 0.9 and jobs:
        k = rng.randrange(len(jobs))
        body = list(jobs[k].body)
        full = model.task(jobs[k].task).body
        spots = [i for i, (kind, _) in enumerate(body) if kind in TIMED]
        if spots:
            i = rng.choice(spots)
            body[i] = (body[i][0], rng.randint(0, full[i][1]) if rng.random() < 0.6 else full[i][1])
        jobs[k] = Job(jobs[k].task, jobs[k].arrival, 0, tuple(body))
    else:
        rng.shuffle(order)
    return Scenario(tuple(jobs), tuple(order))


def _climb(tally: Tally, steps: int, rng: random.Random) -> None:
    for ratio, model, result, scenario in tally.closest:
        current = ratio
        for _ in range(steps):
            candidate = _mutate(model, scenario, rng)
            if check_legal(model, candidate) is not None:
                continue
            got = _worst(model, result, candidate, tally)
            if got >= current:
                current, scenario = got, candidate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-19", help="seed range a-b (default 0-19)")
    parser.add_argument("--sets", type=int, default=8, help="accepted sets per subject and seed")
    parser.add_argument("--scenarios", type=int, default=60, help="scenarios per set")
    parser.add_argument("--climb", type=int, default=0, help="hill-climb steps from each of the closest sets")
    parser.add_argument("--top", type=int, default=10, help="how many of the closest sets to climb from")
    args = parser.parse_args()
    first, last = (int(v) for v in args.seeds.split("-"))
    for ident in ("gedf-np-tardiness/np-2cpus", "gedf-np-tardiness/np-3cpus"):
        subj = subject(ident)
        tally = Tally()
        for seed in range(first, last + 1):
            rng = random.Random(f"{ident}:np-ratio:{seed}")
            accepted = draws = 0
            while accepted < args.sets and draws < 20 * args.sets:
                draws += 1
                model = subj.make(rng)
                result = analyse(subj.test, model, {})
                if not result.schedulable:
                    continue
                accepted += 1
                tally.sets += 1
                closest = (Fraction(-1), Scenario(()))
                for scenario in scenarios_for(model, rng, args.scenarios, 64):
                    ratio = _worst(model, result, scenario, tally)
                    if ratio > closest[0]:
                        closest = (ratio, scenario)
                tally.closest.append((closest[0], model, result, closest[1]))
                tally.closest = sorted(tally.closest, key=lambda c: -c[0])[: args.top]
        sampled = tally.scenarios
        if args.climb:
            _climb(tally, args.climb, random.Random(f"{ident}:climb"))
        print(f"{ident}: {tally.sets} sets, {sampled} scenarios (+{tally.scenarios - sampled} climbing), "
              f"{tally.jobs} jobs ({tally.late} late), {tally.violations} above the bound; "
              f"max observed/bound tardiness = {float(tally.best[0]):.3f}")
        print(f"  reached by {tally.best[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

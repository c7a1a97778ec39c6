"""How close legal non-preemptive G-EDF schedules come to ``gedf-np-tardiness``'s bound.

For each subject ``gedf-np-tardiness/np-{2,3}cpus`` and each seed, draws sets
from the family (``families_np_gedf``), keeps those the test accepts, runs
the harness's scenarios on each (synchronous, every offset vector up to 64,
then random sporadic ones) through the explorer and records, per job, the
observed tardiness max(0, response − D) against the test's tardiness bound
(bound − D). Prints sets, scenarios, jobs, violations (must be 0) and the
largest observed/bound ratio with the set and job that reached it.

    PYTHONPATH=python python3 bench/analysis/np_gedf_tardiness.py --seeds 0-49 --sets 8 --scenarios 60
"""

from __future__ import annotations

import argparse
import random
from fractions import Fraction

from rtsched.analysis.soundness.explorer import explore
from rtsched.analysis.soundness.harness import _until, analyse, scenarios_for
from rtsched.analysis.soundness.subjects import subject


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-19", help="seed range a-b (default 0-19)")
    parser.add_argument("--sets", type=int, default=8, help="accepted sets per subject and seed")
    parser.add_argument("--scenarios", type=int, default=60, help="scenarios per set")
    args = parser.parse_args()
    first, last = (int(v) for v in args.seeds.split("-"))
    for ident in ("gedf-np-tardiness/np-2cpus", "gedf-np-tardiness/np-3cpus"):
        subj = subject(ident)
        sets = scenarios = jobs = violations = late_jobs = 0
        best = (Fraction(-1), "")
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
                sets += 1
                for scenario in scenarios_for(model, rng, args.scenarios, 64):
                    scenarios += 1
                    run = explore(model, scenario, _until(model, scenario, result))
                    for k, job in enumerate(scenario.jobs):
                        task = model.task(job.task)
                        finish = run.finish[k]
                        bound = result.bound(job.task)
                        assert bound is not None
                        if finish is None:
                            if run.end - job.arrival >= bound:
                                violations += 1  # unfinished beyond its bound
                            continue
                        jobs += 1
                        tardiness = max(0, finish - job.arrival - task.deadline)
                        allowed = bound - task.deadline
                        late_jobs += tardiness > 0
                        violations += tardiness > allowed
                        ratio = Fraction(tardiness, allowed)
                        if ratio > best[0]:
                            best = (ratio, f"{[(t.name, t.period, t.body) for t in model.tasks]}: {job.task}@"
                                           f"{job.arrival} tardiness {tardiness} of {allowed}")
        print(f"{ident}: {sets} sets, {scenarios} scenarios, {jobs} jobs ({late_jobs} late), "
              f"{violations} above the bound; max observed/bound tardiness = {float(best[0]):.3f}")
        print(f"  reached by {best[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""The closed forms p-fp-fmlp+ / p-fp-mpcp against their LP bounds (-lp) on one generated corpus.

``--sets`` seeded sets: 12 tasks, total utilization 0.45·m on m = 4
processors (worst-fit by utilization: task k on cpu k mod m, heaviest first),
UUniFast-discard, log-uniform periods 10 ms – 1 s, constrained deadlines,
3 global resources (under FMLP+, then the same sets under MPCP) each used by
a task with probability 0.4, sections 10–500 µs. Prints how many sets each
test accepts and how many tasks get a strictly lower (or higher) blocking
from the LP; exit status 1 if an LP ever charges more blocking than its
closed form, or rejects a set it accepts (for MPCP since its closed form
charges local lower-priority sections N_i + 1 times, not min(N_i + 1, N_y);
docs/analysis.md).

    python3 bench/analysis/accept_lp_blocking.py [--sets N]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from rtsched.analysis import run_test  # noqa: E402
from rtsched.analysis.generators import generate_problem  # noqa: E402

CPUS = 4


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=400)
    args = ap.parse_args(argv)
    broken = 0
    for protocol in ("fmlp+", "mpcp"):
        closed_ok = lp_ok = lower = higher = lost = 0
        for seed in range(args.sets):
            problem = generate_problem(12, 0.45 * CPUS, seed, scheduler="P-FP", resources=3, p_access=0.4,
                                       cs_range_ns=(10_000, 500_000), protocol=protocol, deadlines="constrained",
                                       utilizations="uunifast-discard")
            heavy_first = sorted(problem.tasks, key=lambda t: (-t.utilization, t.name))
            problem = problem.with_tasks(replace(t, partition=f"cpu{k % CPUS}") for k, t in enumerate(heavy_first))
            closed, lp = run_test(f"p-fp-{protocol}", problem), run_test(f"p-fp-{protocol}-lp", problem)
            closed_ok += closed.schedulable
            lp_ok += lp.schedulable
            lost += closed.schedulable and not lp.schedulable
            for a, b in zip(closed.tasks, lp.tasks):
                if a.blocking_ns is not None and b.blocking_ns is not None:
                    lower += b.blocking_ns < a.blocking_ns
                    higher += b.blocking_ns > a.blocking_ns
        print(f"{protocol}: {args.sets} sets on {CPUS} CPUs: closed form accepts {closed_ok} "
              f"({closed_ok / args.sets:.3f}), LP accepts {lp_ok} ({lp_ok / args.sets:.3f}), {lost} accepted "
              f"by the closed form only; tasks with a lower LP blocking {lower}, higher {higher}")
        broken += higher + lost
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())

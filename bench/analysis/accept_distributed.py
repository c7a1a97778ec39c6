#!/usr/bin/env python3
"""The four LP-based P-FP locking tests on one generated corpus: FMLP+, MPCP, DPCP, DFLP.

The corpus of accept_lp_blocking.py (``--sets`` seeded sets: 12 tasks, total
utilization 0.45·m on m = 4 processors, worst-fit by utilization,
UUniFast-discard, log-uniform periods 10 ms – 1 s, constrained deadlines, 3
global resources each used by a task with probability 0.4, sections
10–500 µs), analysed with every resource under each protocol in turn; the
distributed protocols' agents run on cpu k mod m for resource r_k (SchedCAT's
round-robin default). Prints how many sets each test accepts and its time.

    python3 bench/analysis/accept_distributed.py [--sets N]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from rtsched.analysis import run_test  # noqa: E402
from rtsched.analysis.generators import generate_problem  # noqa: E402

CPUS = 4
RESOURCES = 3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=400)
    args = ap.parse_args(argv)
    for protocol in ("fmlp+", "mpcp", "dpcp", "dflp"):
        accepted = 0
        start = time.perf_counter()
        for seed in range(args.sets):
            problem = generate_problem(12, 0.45 * CPUS, seed, scheduler="P-FP", resources=RESOURCES, p_access=0.4,
                                       cs_range_ns=(10_000, 500_000), protocol=protocol, deadlines="constrained",
                                       utilizations="uunifast-discard")
            heavy_first = sorted(problem.tasks, key=lambda t: (-t.utilization, t.name))
            problem = problem.with_tasks(replace(t, partition=f"cpu{k % CPUS}") for k, t in enumerate(heavy_first))
            problem = replace(problem, sync_partitions={f"r{k}": f"cpu{k % CPUS}" for k in range(RESOURCES)})
            accepted += run_test(f"p-fp-{protocol}-lp", problem).schedulable
        seconds = time.perf_counter() - start
        print(f"p-fp-{protocol}-lp: {args.sets} sets on {CPUS} CPUs: accepts {accepted} ({accepted / args.sets:.3f}); "
              f"{1000 * seconds / args.sets:.1f} ms per set")
    return 0


if __name__ == "__main__":
    sys.exit(main())

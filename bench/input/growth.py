"""How `rtsched validate` and `rtsched analyze` grow with the number of tasks (issue 29).

Generates partitioned FP sets of 1,000, 10,000 and 100,000 tasks on 64 CPUs
(a PIP resource per partition, every task locking its partition's; periods
10-1000 ms) and times each command end to end, as a user waits for it
(process start to exit), beside the time of `rtsched --version` (the start-up
alone) measured in the same run. A line per size; the last columns are the
time each task added since the size before (the marginal cost): the same
figure from size to size means linear.

    python3 bench/input/growth.py                 # 1k, 10k, 100k
    python3 bench/input/growth.py --sizes 1000,10000
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CPUS = 64


def generated_set(tasks: int, seed: int = 29) -> dict:
    rng = random.Random(seed)
    partitions = [{"name": f"p{c}", "cpus": [c]} for c in range(CPUS)]
    body_of = []
    for i in range(tasks):
        p = i % CPUS
        period_us = rng.randrange(10_000, 1_000_000)
        wcet_us = max(2, period_us * 8 // (10 * max(1, tasks // CPUS) * 10))
        body_of.append({
            "name": f"t{i}", "period": f"{period_us}us", "priority": 1 + 97 * (1_000_000 - period_us) // 990_000,  # rate monotonic
            "partition": f"p{p}", "wcet": f"{wcet_us}us",
            "body": [{"compute": f"{wcet_us // 2}us"}, {"lock": f"r{p}"}, {"compute": "1us"}, {"unlock": f"r{p}"}],
        })
    return {"name": f"growth-{tasks}", "platform": {"scheduler": "P-FP", "cpus": list(range(CPUS)),
                                                    "partitions": partitions},
            "resources": [{"name": f"r{c}", "protocol": "pip"} for c in range(CPUS)], "tasks": body_of}


def timed(argv: list[str]) -> tuple[float, int]:
    """(seconds, exit code) of a command, start to exit."""
    start = time.perf_counter()
    code = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return time.perf_counter() - start, code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rtsched = [sys.executable, "-c", "import sys; from rtsched.cli.main import main; sys.exit(main())"]
    start_s, _ = timed([*rtsched, "--version"])
    print(f"start-up (rtsched --version): {start_s:.2f} s")
    print(f"{'tasks':>8} {'validate s':>11} {'analyze s':>10} {'validate µs/task added':>23} {'analyze µs/task added':>22}")
    before: tuple[int, float, float] | None = None
    with tempfile.TemporaryDirectory() as scratch:
        for n in sizes:
            path = Path(scratch) / f"growth-{n}.json"
            path.write_text(json.dumps(generated_set(n)))
            validate_s, code = timed([*rtsched, "validate", str(path)])
            if code != 0:
                print(f"{n}: validate exited {code}", file=sys.stderr)
                return 1
            analyze_s, code = timed([*rtsched, "analyze", str(path)])
            if before is None:
                marginal = "", ""
            else:
                added = n - before[0]
                marginal = (f"{(validate_s - before[1]) / added * 1e6:.1f}", f"{(analyze_s - before[2]) / added * 1e6:.1f}")
            print(f"{n:>8,} {validate_s:>11.2f} {analyze_s:>10.2f} {marginal[0]:>23} {marginal[1]:>22}"
                  f"  analyze exit {code}")
            before = (n, validate_s, analyze_s)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak memory of a command: {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

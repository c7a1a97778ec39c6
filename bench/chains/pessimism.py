#!/usr/bin/env python3
"""Pessimism of the chain bounds (docs/chains.md): bound ÷ worst observed, over many generated chains.

Each seed is one generated set with a chain of 3..8 tasks (tests/python/chain_sets.py: P-FP or
P-EDF, one CPU or two, register and event links), bounded by rtsched.analysis.chains and simulated
(``--duration`` each, WCET for even seeds and [0.3, 1] × WCET for odd ones). For the reaction time
and the data age, prints the distribution of bound ÷ worst observed (min, p10, p25, median, p75,
p90, max) over the chains with a bound, by link kind (register only, with event links) and
scheduler, and for register-only chains Davare et al.'s sum ÷ worst observed reaction beside ours.
A ratio below 1 would be an unsound bound: exit status 1, naming the seed.

    python3 bench/chains/pessimism.py [--sets 1000] [--first-seed 0] [--duration 4s] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "python"))  # the generator the soundness test uses

from chain_sets import Outcome, simulate_chain_set  # noqa: E402
from rtsched.model import parse_duration  # noqa: E402

QUANTILES = ("min", "p10", "p25", "median", "p75", "p90", "max")
#: The groups of chains the table shows, in order.
GROUPS = ("all", "register only", "with event links", "P-FP", "P-EDF")


def _summary(ratios: list[float]) -> dict[str, float | int]:
    if not ratios:
        return {"chains": 0}
    cuts = statistics.quantiles(ratios, n=20, method="inclusive") if len(ratios) > 1 else [ratios[0]] * 19
    values = (min(ratios), cuts[1], cuts[4], statistics.median(ratios), cuts[14], cuts[17], max(ratios))
    return {"chains": len(ratios), **{q: round(v, 3) for q, v in zip(QUANTILES, values)}}


def _ratio(bound: int | None, observed: int | None) -> float | None:
    return bound / observed if bound is not None and observed else None


def _groups(outcomes: list[Outcome]) -> dict[str, dict[str, list[float]]]:
    groups: dict[str, dict[str, list[float]]] = {
        group: {"reaction": [], "data age": [], "Davare reaction": []} for group in GROUPS}
    for o in outcomes:
        c, b = o.observed, o.bound
        assert c is not None
        links = "with event links" if "event" in b.links else "register only"
        for group in ("all", links, o.taskset.scheduler):
            row = groups[group]
            for key, ratio in (("reaction", _ratio(b.reaction_ns, c.reaction_max_ns)),
                               ("data age", _ratio(b.data_age_ns, c.data_age_max_ns)),
                               ("Davare reaction", _ratio(b.davare_ns, c.reaction_max_ns))):
                if ratio is not None:
                    row[key].append(ratio)
    return groups


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=1000, help="generated sets (seeds) to try (default 1000)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--duration", default="4s", help="simulated length of each set (default 4s)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    duration_ns = parse_duration(args.duration)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        outcomes = [simulate_chain_set(seed, Path(scratch), duration_ns=duration_ns)
                    for seed in range(args.first_seed, args.first_seed + args.sets)]
    seconds = time.monotonic() - started
    bounded = [o for o in outcomes if o.observed is not None]
    unsound = [o.seed for o in bounded if o.observed.reaction_exceeded or o.observed.data_age_exceeded]
    result = {
        "sets": args.sets, "bounded": len(bounded), "seconds": round(seconds, 1), "unsound_seeds": unsound,
        "pessimism": {group: {key: _summary(ratios) for key, ratios in rows.items()}
                      for group, rows in _groups(bounded).items()},
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{args.sets} generated sets, {len(bounded)} with a bounded chain, simulated {args.duration} each "
              f"in {seconds:.0f} s; bound / worst observed:")
        print(f"{'group':<18} {'latency':<16} {'chains':>6} " + " ".join(f"{q:>7}" for q in QUANTILES))
        for group, rows in result["pessimism"].items():
            for key, row in rows.items():
                if row["chains"]:
                    print(f"{group:<18} {key:<16} {row['chains']:>6} " + " ".join(f"{row[q]:>7.3f}" for q in QUANTILES))
        if unsound:
            print(f"UNSOUND: a bound below the observed latency for seeds {unsound}")
    return 1 if unsound else 0


if __name__ == "__main__":
    sys.exit(main())

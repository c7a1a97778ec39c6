"""Each task set of a sweep, a pure function of (experiment seed, grid point, sample index).

:func:`set_seed` hashes the experiment's seed, the point's resolved parameters
(canonical JSON) and the sample index into a 63-bit seed; :func:`generate_set`
builds the set from the point and that seed with the generators of
``rtsched.analysis.generators`` (RandFixedSum among them). Nothing else enters: neither the chunk a set
is computed in, nor the process, nor the machine, so a set can be regenerated
alone (:func:`regenerate`) and a sweep gives the same sets wherever it runs.
Keying on the point's values (not its index) keeps a set the same when the
grid gains other points.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from typing import Any, Mapping

from rtsched.analysis.generators import (add_critical_sections, draw_utilizations, log_uniform_periods, make_tasks,
                                         uniform_periods)
from rtsched.analysis.partitioned import partition_tasks
from rtsched.analysis.tasks import AnalysisProblem

__all__ = ["GeneratedSet", "GenerationError", "set_seed", "generate_set", "regenerate"]

NS_PER_MS = 1_000_000
NS_PER_US = 1_000


def set_seed(experiment_seed: int, point: Mapping[str, Any], sample: int) -> int:
    """The seed of one set: SHA-256 of (seed, point, sample), its first 63 bits."""
    key = json.dumps([experiment_seed, dict(sorted(point.items())), sample], sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1


@dataclass(frozen=True, slots=True)
class GeneratedSet:
    """A generated set; ``unplaced`` says why a partitioned set could not be partitioned (no test runs then)."""

    problem: AnalysisProblem
    unplaced: str = ""


class GenerationError(ValueError):
    """A set that cannot be drawn (UUniFast-discard found no vector under the cap)."""


def generate_set(point: Mapping[str, Any], seed: int) -> GeneratedSet:
    """The set of ``point`` for ``seed``: utilizations, periods, deadlines and priorities, resources (in
    that order, from one ``random.Random(seed)``, with the analysis's generators), and for P-FP / P-EDF
    a partitioning by ``point["partitioning"]`` decreasing utilization."""
    rng = random.Random(seed)
    try:
        utilizations = draw_utilizations(point["tasks"], point["utilization"], rng, point["utilizations"])
    except ValueError as error:
        raise GenerationError(f"{error}; utilizations: randfixedsum draws such sets directly") from None
    draw_periods = log_uniform_periods if point["periods"] == "log-uniform" else uniform_periods
    periods = draw_periods(point["tasks"], round(point["period_min_ms"] * NS_PER_MS),
                           round(point["period_max_ms"] * NS_PER_MS), rng)
    implicit = point["deadlines"] == "implicit"
    tasks = make_tasks(utilizations, periods, "rm" if implicit else "dm", point["deadlines"], rng)
    resources = point["resources"]
    if resources:
        tasks = add_critical_sections(tasks, resources, point["p_access"], round(point["cs_min_us"] * NS_PER_US),
                                      round(point["cs_max_us"] * NS_PER_US), rng)
    scheduler = point["scheduler"]
    partitioned = scheduler.startswith("P-")
    problem = AnalysisProblem(tuple(tasks), scheduler=scheduler.removeprefix("P-") if partitioned else scheduler,
                              cpus=point["cpus"], protocols={f"r{r}": point["protocol"] for r in range(resources)},
                              name=f"set-{seed}")
    if not partitioned:
        return GeneratedSet(problem)
    cpus = [f"cpu{i}" for i in range(point["cpus"])]
    placed = partition_tasks(problem, cpus, point["partitioning"])
    if not placed.ok:
        return GeneratedSet(problem, f"not partitioned: {placed.reason}")
    return GeneratedSet(placed.apply(problem))


def regenerate(experiment_seed: int, point: Mapping[str, Any], sample: int) -> GeneratedSet:
    """The set of row (point, sample) of a sweep, alone (to look at why a test said what it said)."""
    return generate_set(point, set_seed(experiment_seed, point, sample))

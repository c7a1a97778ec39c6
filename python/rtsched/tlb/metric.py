"""The paper's metric (its Eq. 1): time in TLB-miss handlers over the best-case execution time.

    metric = E_H / (E_T − E_H)

with E_T a job's execution time and E_H the part spent in miss handlers, so
E_T − E_H is the execution time without any miss (the best case). In the model
E_H = misses × handler cost and E_T − E_H is the job's best-case execution
time, so the metric of a job is misses × miss_ns / bcet_ns. A locking method's
own cost is not a miss handler: it is not in E_H (the paper's metric is 0 %
under every locking method) but it is in the locked WCET (``study``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

__all__ = ["MetricSummary", "summarize_metric"]


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """The metric over a task's jobs: ``average`` and ``maximum`` as exact fractions (0.0291 is 2.91 %)."""

    jobs: int
    mean_misses: Fraction
    max_misses: int
    average: Fraction
    maximum: Fraction


def summarize_metric(misses_per_job: Sequence[int], miss_ns: int, bcet_ns: int) -> MetricSummary:
    """The metric's average and maximum over jobs with these miss counts."""
    if bcet_ns <= 0:
        raise ValueError(f"best-case execution time {bcet_ns} ns: must be positive")
    if not misses_per_job:
        raise ValueError("no job to summarize")
    mean = Fraction(sum(misses_per_job), len(misses_per_job))
    worst = max(misses_per_job)
    return MetricSummary(len(misses_per_job), mean, worst, mean * miss_ns / bcet_ns, Fraction(worst * miss_ns, bcet_ns))

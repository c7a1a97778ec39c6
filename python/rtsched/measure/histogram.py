"""Latency histograms with 1 us buckets, and the statistics read from them.

A histogram has ``buckets[i]`` samples with i us <= latency < i+1 us and
``overflows`` samples beyond the last bucket. Percentiles interpolate
linearly inside the bucket that holds the rank (samples taken as spread
evenly over the bucket), so two histograms of the same distribution give
close percentiles even when the median sits in the same 1 us bucket. A
percentile that falls among the overflows is reported as None ("beyond the
histogram"), never as a made-up number.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Histogram:
    buckets: list[int]
    overflows: int = 0
    bucket_us: float = 1.0
    # Exact extremes and sum when the producer knows them (rtsched-latency does,
    # in ns); otherwise derived from the buckets.
    min_us: float | None = None
    max_us: float | None = None
    sum_us: float | None = None
    label: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def samples(self) -> int:
        return sum(self.buckets) + self.overflows

    @property
    def limit_us(self) -> float:
        return len(self.buckets) * self.bucket_us

    def percentile(self, p: float) -> float | None:
        """The p-th percentile (0 < p <= 100) in us, interpolated in its bucket."""
        if not 0 < p <= 100:
            raise ValueError(f"percentile {p} is not in (0, 100]")
        total = self.samples
        if total == 0:
            return None
        rank = p / 100.0 * total  # samples at or below the answer
        seen = 0
        for index, count in enumerate(self.buckets):
            if count and seen + count >= rank:
                fraction = (rank - seen) / count
                return (index + fraction) * self.bucket_us
            seen += count
        return None  # among the overflows

    @property
    def median_us(self) -> float | None:
        return self.percentile(50)

    @property
    def avg_us(self) -> float | None:
        if self.sum_us is not None and self.samples:
            return self.sum_us / self.samples
        if not self.samples or self.overflows:
            return None
        # Midpoints of the buckets.
        total = sum((i + 0.5) * self.bucket_us * c for i, c in enumerate(self.buckets))
        return total / self.samples

    @property
    def observed_min_us(self) -> float | None:
        if self.min_us is not None:
            return self.min_us
        for index, count in enumerate(self.buckets):
            if count:
                return index * self.bucket_us
        return None if not self.overflows else self.limit_us

    @property
    def observed_max_us(self) -> float | None:
        if self.max_us is not None:
            return self.max_us
        if self.overflows:
            return None
        for index in range(len(self.buckets) - 1, -1, -1):
            if self.buckets[index]:
                return (index + 1) * self.bucket_us
        return None

    def merged(self, other: Histogram, label: str = "") -> Histogram:
        """Sum of two histograms of the same bucket size."""
        if self.bucket_us != other.bucket_us:
            raise ValueError("histograms with different bucket sizes")
        n = max(len(self.buckets), len(other.buckets))
        a = self.buckets + [0] * (n - len(self.buckets))
        b = other.buckets + [0] * (n - len(other.buckets))

        def pick(f, x, y):
            return None if x is None or y is None else f(x, y)

        return Histogram(
            buckets=[x + y for x, y in zip(a, b)],
            overflows=self.overflows + other.overflows,
            bucket_us=self.bucket_us,
            min_us=pick(min, self.min_us, other.min_us),
            max_us=pick(max, self.max_us, other.max_us),
            sum_us=pick(lambda x, y: x + y, self.sum_us, other.sum_us),
            label=label or self.label,
        )

    def summary(self) -> dict:
        """The statistics, as the JSON reports carry them (us, None where unknown)."""
        return {
            "samples": self.samples,
            "overflows": self.overflows,
            "min_us": self.observed_min_us,
            "avg_us": self.avg_us,
            "p50_us": self.percentile(50) if self.samples else None,
            "p90_us": self.percentile(90) if self.samples else None,
            "p99_us": self.percentile(99) if self.samples else None,
            "p99_9_us": self.percentile(99.9) if self.samples else None,
            "max_us": self.observed_max_us,
        }


def ratio(a: float | None, b: float | None) -> float | None:
    """a / b, or None when either is unknown or b is 0."""
    if a is None or b is None or b == 0:
        return None
    return a / b

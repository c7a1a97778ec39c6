"""The micro-benchmark flow built from traces of real programs (lackey, ``lackey``).

- each real-time task replays its whole trace every period (constant input,
  as the paper's RT_TASK1); its best-case time is its accesses × ``access_ns``
  (an assumed cost per access on the modelled platform: the trace has no times);
- the non-real-time task continues through its trace, ``nr_accesses_per_gap``
  accesses per period, from where the previous gap stopped (wrapping at the
  end), so its gaps are consecutive stretches of one program run;
- the locked pages are the covered tasks' pages, the most accessed first, at
  most ``max_locked`` (the paper assumes all fit; when they do not it leaves
  the choice open, and locking the hottest pages is the simplest answer);
- the period is the chain's best-case time plus the non-real-time gap's.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from typing import Iterable, Sequence

from rtsched.tlb.pages import PageTrace
from rtsched.tlb.schedule import Flow, RtJob

__all__ = ["NrSlices", "TraceFlow", "trace_flow"]


class NrSlices:
    """Gap k of a trace: its accesses [k·g, (k+1)·g) modulo its length, runs cut at the edges."""

    def __init__(self, trace: PageTrace, accesses_per_gap: int) -> None:
        if accesses_per_gap < 1:
            raise ValueError(f"{accesses_per_gap} accesses per gap: at least 1")
        if trace.accesses == 0:
            raise ValueError(f"{trace.source or 'the non-real-time trace'} has no access")
        self._pages = list(trace.pages)
        self._counts = list(trace.counts)
        self._ends = list(accumulate(self._counts))
        self._total = trace.accesses
        self._gap = accesses_per_gap

    def __call__(self, period: int) -> Iterable[tuple[int, int]]:
        position = period * self._gap % self._total
        left = self._gap
        runs: list[tuple[int, int]] = []
        index = bisect_right(self._ends, position)
        while left:
            if index == len(self._pages):
                index, position = 0, 0
            run_start = self._ends[index] - self._counts[index]
            take = min(left, self._ends[index] - max(position, run_start))
            runs.append((self._pages[index], take))
            left -= take
            position += take
            index += 1
        return runs


@dataclass(frozen=True, slots=True)
class TraceFlow:
    """A flow from traces, with the timing ``study.run_study`` needs."""

    flow: Flow
    period_ns: int
    nr_work_ns_per_period: int
    pages_wanted: int


def trace_flow(rt: Sequence[tuple[str, PageTrace]], nr: PageTrace, *, covered: int, periods: int,
               nr_accesses_per_gap: int, max_locked: int, access_ns: int) -> TraceFlow:
    """The flow of real-time traces ``rt`` (chain order) and the non-real-time trace ``nr``."""
    if access_ns < 1:
        raise ValueError(f"{access_ns} ns per access: at least 1")
    if max_locked < 0:
        raise ValueError(f"at most {max_locked} locked entries: not negative")
    chain = tuple(RtJob(name, trace, trace.accesses * access_ns) for name, trace in rt)
    per_page: Counter[int] = Counter()
    for _, trace in rt[:covered]:
        per_page.update(trace.accesses_per_page())
    hottest = sorted(per_page, key=lambda p: (-per_page[p], p))
    flow = Flow(chain, tuple(hottest[:max_locked]), covered, periods, NrSlices(nr, nr_accesses_per_gap))
    nr_work_ns = nr_accesses_per_gap * access_ns
    return TraceFlow(flow, sum(job.bcet_ns for job in chain) + nr_work_ns, nr_work_ns, len(hottest))

"""The paper's micro-benchmark flow (its Fig. 1) on a TLB, under one locking policy.

Each period the chain of real-time jobs runs in priority order (RT_TASK1
activates RT_TASK2 when it ends, and so on), without preemption; then the
non-real-time task runs until the next period (its gap of the period). A job
replays its page trace; the non-real-time task replays ``nr_gap(k)`` in period k.

Policies (``POLICIES``), after Section IV:

- ``none``: nothing is locked;
- ``static``: at initialisation the whole TLB is invalidated and the locked
  pages are locked for good; the non-real-time task keeps only the rest;
- ``dynamic-1`` (method 1): when the first covered job is activated, each
  locked page's existing entry is invalidated and the page is locked (from a
  prepared table, no miss); when the last covered job ends the locks are
  released and the entries stay as normal entries;
- ``dynamic-2`` (method 2): at activation the whole TLB is saved, invalidated
  and the pages locked; when the last covered job ends the locks are released
  and the saved TLB is restored, so the non-real-time task finds its entries.

The covered jobs are the first ``covered`` of the chain (the paper: RT_TASK1
alone, or all five). Counts only; ``costs`` and ``study`` turn them into time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from rtsched.tlb.pages import PageTrace
from rtsched.tlb.tlb import Tlb, TlbGeometry, TlbSnapshot

__all__ = ["POLICIES", "Flow", "FlowResult", "RtJob", "run_flow"]

POLICIES = ("none", "static", "dynamic-1", "dynamic-2")

#: The non-real-time task's runs (page, accesses) in the gap of period k.
NrGap = Callable[[int], Iterable[tuple[int, int]]]


@dataclass(frozen=True, slots=True)
class RtJob:
    """A real-time task of the chain: the trace each of its jobs replays and its best-case time."""

    name: str
    trace: PageTrace
    bcet_ns: int


@dataclass(frozen=True)
class Flow:
    """The workload: the chain, the pages the policies lock, how many jobs they cover, the gaps."""

    chain: tuple[RtJob, ...]
    locked_pages: tuple[int, ...]
    covered: int
    periods: int
    nr_gap: NrGap

    def __post_init__(self) -> None:
        if not self.chain:
            raise ValueError("a flow needs at least one real-time task")
        if not 1 <= self.covered <= len(self.chain):
            raise ValueError(f"covered = {self.covered}: between 1 and the chain's {len(self.chain)} tasks")
        if self.periods < 1:
            raise ValueError(f"{self.periods} periods: at least 1")
        if len(set(self.locked_pages)) != len(self.locked_pages):
            raise ValueError("a locked page is listed twice")


@dataclass(frozen=True, slots=True)
class FlowResult:
    """Miss counts of one policy: per real-time task one count per job, and the non-real-time task's totals."""

    policy: str
    entries_locked: int
    misses: dict[str, tuple[int, ...]]
    nr_misses: int
    nr_accesses: int


def _replay(tlb: Tlb, runs: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """(misses, accesses) of replaying ``runs``."""
    misses = accesses = 0
    access = tlb.access
    for page, count in runs:
        if not access(page, count):
            misses += 1
        accesses += count
    return misses, accesses


def run_flow(flow: Flow, geometry: TlbGeometry, policy: str) -> FlowResult:
    """Replay ``flow.periods`` periods on a fresh TLB under ``policy``."""
    if policy not in POLICIES:
        raise ValueError(f"locking policy '{policy}': expected one of {', '.join(POLICIES)}")
    locking = policy != "none"
    if locking and len(flow.locked_pages) >= geometry.entries:
        raise ValueError(f"{len(flow.locked_pages)} pages to lock in a TLB of {geometry.entries} entries: "
                         "at least one entry must stay unlocked")
    tlb = Tlb(geometry)
    if policy == "static":
        tlb.flush()
        for page in flow.locked_pages:
            tlb.lock(page)
    misses: dict[str, list[int]] = {job.name: [] for job in flow.chain}
    nr_misses = nr_accesses = 0
    last_covered = flow.covered - 1
    for period in range(flow.periods):
        saved: TlbSnapshot | None = None
        for index, job in enumerate(flow.chain):
            if index == 0 and policy == "dynamic-1":
                for page in flow.locked_pages:
                    tlb.invalidate(page)
                    tlb.lock(page)
            elif index == 0 and policy == "dynamic-2":
                saved = tlb.save()
                tlb.flush()
                for page in flow.locked_pages:
                    tlb.lock(page)
            job_misses, _ = _replay(tlb, job.trace.runs())
            misses[job.name].append(job_misses)
            if index == last_covered and policy in ("dynamic-1", "dynamic-2"):
                for page in flow.locked_pages:
                    tlb.unlock(page)
                if saved is not None:
                    tlb.restore(saved)
        gap_misses, gap_accesses = _replay(tlb, flow.nr_gap(period))
        nr_misses += gap_misses
        nr_accesses += gap_accesses
    return FlowResult(policy, len(flow.locked_pages) if locking else 0,
                      {name: tuple(counts) for name, counts in misses.items()}, nr_misses, nr_accesses)

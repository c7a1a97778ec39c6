"""Deadline misses a virtual machine's host caused, told apart from the code's.

On a VM the hypervisor can stop the vCPUs whatever their priority ("steal",
which `rtsched run` records per CPU in summary.json). A live test that finds
misses after a run during which the host took a noticeable share of a CPU
cannot blame the code under test: it skips with the figure instead of
failing. Misses with no steal still fail.
"""

from __future__ import annotations

import pytest

#: Share of one CPU's time the host may take before misses are put down to it.
STEAL_SHARE_LIMIT = 0.01


def stolen_share(summary: dict, duration_ns: int) -> float:
    """Highest share of the run's duration the host took from one of its CPUs."""
    steal = summary.get("steal_ns") or {}
    return max(steal.values(), default=0) / duration_ns


def skip_if_misses_were_stolen(summary: dict, duration_ns: int) -> None:
    if summary["deadline_misses"] == 0:
        return
    share = stolen_share(summary, duration_ns)
    if share > STEAL_SHARE_LIMIT:
        pytest.skip(f"{summary['deadline_misses']} deadline misses while the host stole "
                    f"{share:.1%} of a CPU (steal in /proc/stat): not the code's")


def skip_if_stolen(summary: dict, duration_ns: int, why: str) -> None:
    """For behaviour that holds only while each thread gets its CPU time, e.g.
    SCHED_DEADLINE runtimes, which the host's steal exhausts (the kernel then
    throttles a job mid-way and lets another run)."""
    share = stolen_share(summary, duration_ns)
    if share > STEAL_SHARE_LIMIT:
        pytest.skip(f"the host stole {share:.1%} of a CPU (steal in /proc/stat): {why}")

"""The bounds a set's trace is reported against, computed once per experiment.

    bounds = bounds_of(taskset, overheads, picv=True, noun="run")
    bounds.analysis, bounds.ideal, bounds.slack

``analysis`` counts ``overheads`` (the machine's, or none); ``ideal`` is the same analysis
without them, kept only when overheads are counted. A set with servers whose callers do
not lend them their priority (PI-CV off) has no bound: the RPC bounds assume PI-CV.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtsched.analysis.chains import chain_bounds
from rtsched.analysis.overheads import Overheads
from rtsched.analysis.results import AnalysisResult, ChainBound
from rtsched.analysis.sensitivity import Sensitivity
from rtsched.analysis.set_bounds import set_bounds
from rtsched.model import TaskSet

__all__ = ["Bounds", "bounds_of"]


@dataclass(frozen=True)
class Bounds:
    analysis: AnalysisResult
    ideal: AnalysisResult | None       # without overheads, when ``analysis`` counts some
    slack: Sensitivity | None          # how far each bound of ``analysis`` is from a cliff (None: no cliffs)
    overheads: Overheads | None = None
    chains: tuple[ChainBound, ...] = ()  # the set's chains' bounds from ``analysis`` (rtsched.analysis.chains)

    @property
    def release_latency_ns(self) -> int:
        """The release latency the bounds count (an overhead profile's), else 0."""
        return (self.overheads.release_latency_ns or 0) if self.overheads is not None else 0

    def summary(self) -> dict[str, Any] | None:
        """summary.json's ``overheads``: what the bounds count and the bounds without it."""
        if self.overheads is None or self.ideal is None:
            return None
        return {"sources": list(self.overheads.sources),
                "ideal_bounds_ns": {b.name: b.bound_ns for b in self.ideal.tasks}}


def bounds_of(taskset: TaskSet, overheads: Overheads | None, *, picv: bool = True, noun: str = "run") -> Bounds:
    """The bounds of ``taskset`` with ``overheads`` counted; ``noun`` names the experiment
    (``run``, ``simulation``) in the reason a set without PI-CV has none."""
    refused = None
    if taskset.servers and not picv:
        refused = f"the RPC bounds assume PI-CV (callers lend the server their priority); this {noun} has it off"
    found = set_bounds(taskset, overheads, refused=refused)
    jitter_ns = (overheads.release_latency_ns or 0) if overheads is not None else 0
    chains = chain_bounds(taskset, found.analysis, release_jitter_ns=jitter_ns)
    return Bounds(found.analysis, found.ideal if overheads else None, found.slack, overheads, chains)

"""What a producer of traces is: the one interface the pipeline runs (docs/architecture.md).

A producer turns a task set, placed once by the pipeline, into a trace in an
output folder: the C runner on a backend (``rtsched.run.RunnerProducer``) or
the simulator (``rtsched.sim.SimProducer``). It knows nothing of bounds or
reports; the pipeline (``rtsched.pipeline``) computes those once and reports
every producer's trace the same way.

    production = producer.produce(taskset, producer.place(taskset), out_dir, say)
    production.trace_path, production.summary_head   # what only this producer knows
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from rtsched.model import TaskSet
from rtsched.model.placement import Placement
from rtsched.trace.kernel_sched import KernelSchedule

__all__ = ["Producer", "Production", "StealSample"]

#: (CLOCK_MONOTONIC ns, per CPU cumulative steal ns), as a producer sampled /proc/stat.
StealSample = tuple[int, dict[int, int]]


@dataclass(frozen=True)
class Production:
    """What a producer made: its trace (None when it stopped before the trace was opened), the
    other files it wrote (by name), and what only it knows for summary.json: ``summary_head``
    goes before the bounds' overheads, ``summary_tail`` after them (each in its order)."""

    trace_path: Path | None
    files: dict[str, Path] = field(default_factory=dict)
    summary_head: dict[str, Any] = field(default_factory=dict)
    summary_tail: dict[str, Any] = field(default_factory=dict)
    simulated: bool = False        # a simulation's trace (no kernel schedule to look for)
    interrupted: bool = False      # stopped early by a signal; the partial trace, if any, is reported
    messages: tuple[str, ...] = ()  # what the producer said on the way (the runner's stderr lines)
    kernel: KernelSchedule | None = None  # the kernel's schedule of the run's CPUs, when recorded
    steal_samples: tuple[StealSample, ...] = ()  # host steal sampled during the run
    explain_note: str | None = None  # why jobs above their bounds could not be fully explained


class Producer(Protocol):
    """One producer of traces. ``place`` gives the set's placement on the producer's machine
    (the pipeline calls it once; raises TaskSetError for a partition the machine lacks);
    ``produce`` writes the trace of ``taskset`` so placed into ``out_dir`` (existing),
    announcing its steps to ``say``."""

    def place(self, taskset: TaskSet) -> Placement: ...

    def produce(self, taskset: TaskSet, placement: Placement, out_dir: Path,
                say: Callable[[str], None]) -> Production: ...

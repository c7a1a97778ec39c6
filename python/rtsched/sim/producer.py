"""The simulator as a producer of traces (``rtsched.producer.Producer``): simulate the placed
set into the output folder's trace.rtst, in the runner's format, for the pipeline to report
(``rtsched.pipeline``) as it reports a run.

    producer = SimProducer(SimOptions(duration_ns=10**9))
    production = producer.produce(taskset, producer.place(taskset), out_dir, say)

Bounds and the report are the pipeline's, never the simulator's; the production carries
what only it knows for summary.json: ``simulated`` (the seed, the draws, the jobs completed,
the loop that ran).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rtsched.model import TaskSet
from rtsched.model.placement import Placement
from rtsched.producer import Production
from rtsched.sim.options import SimOptions
from rtsched.sim.simulate import sim_placement, simulate

__all__ = ["SimProducer"]


@dataclass(frozen=True)
class SimProducer:
    options: SimOptions = field(default_factory=SimOptions)

    def place(self, taskset: TaskSet) -> Placement:
        """The set on its own CPUs, else ``options.cpus``, else the CPUs this process may use.
        Raises TaskSetError for a partition those CPUs do not have."""
        return sim_placement(taskset, self.options)

    def produce(self, taskset: TaskSet, placement: Placement, out_dir: Path,
                say: Callable[[str], None]) -> Production:
        """Simulate into ``out_dir``/trace.rtst. Raises what ``simulate`` raises."""
        say("simulating")
        run = simulate(taskset, self.options, out_dir / "trace.rtst", placement=placement)
        assert run.trace_path is not None
        options = self.options
        return Production(
            run.trace_path,
            {"trace.rtst": run.trace_path},
            summary_head={"simulated": {
                "seed": options.seed,
                "exec_low_ppm": options.exec_low_ppm,
                "release_jitter_ns": options.release_jitter_ns,
                "jobs_completed": run.jobs_completed,
                "engine": run.engine,
            }},
            simulated=True,
        )

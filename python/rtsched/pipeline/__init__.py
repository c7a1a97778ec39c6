"""The one experiment pipeline (docs/architecture.md): task set → placement (once) → bounds
(once) → a producer (``rtsched.producer.Producer``: the C runner on a backend,
``rtsched.run.RunnerProducer``, or the simulator, ``rtsched.sim.SimProducer``) → trace → report
→ output folder → one ``Result``, summary.json written once.

- ``bounds``: the bounds of a set, once per experiment (with the overheads they count);
- ``experiment``: the pipeline itself (``run_experiment``; ``report_production`` and
  ``write_summary`` for a caller that adds to the summary first), its ``Result``;
- ``run_set``: ``rtsched run``'s use of it (``run_taskset``, ``RunOptions``);
- ``compare``: one set run twice, side by side (PI-CV on and off, the two backends), over results;
- ``compare_sim``: a run beside its simulation, job by job;
- ``sim_overheads``: what the simulator charges for an overhead profile.

Only this part joins producers, analysis and report; the producers import neither.
"""

from rtsched.pipeline.bounds import Bounds, bounds_of
from rtsched.pipeline.experiment import (REPORT_STEPS, ReportSettings, Result, report_production, run_experiment,
                                         write_summary)
from rtsched.pipeline.run_set import RunOptions, default_out_dir, report_run, run_taskset

__all__ = [
    "REPORT_STEPS",
    "Bounds",
    "ReportSettings",
    "Result",
    "RunOptions",
    "bounds_of",
    "default_out_dir",
    "report_production",
    "report_run",
    "run_experiment",
    "run_taskset",
    "write_summary",
]

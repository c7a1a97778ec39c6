"""The one experiment pipeline (docs/architecture.md): task set → placement (once) → bounds
(once) → a producer (``rtsched.producer.Producer``: the C runner on a backend,
``rtsched.run.RunnerProducer``, or the simulator, ``rtsched.sim.SimProducer``) → trace → report
→ output folder → one ``Result``, summary.json written once.

- ``bounds``: the bounds of a set, once per experiment (with the overheads they count);
- ``experiment``: the pipeline itself (``run_experiment``; ``report_production`` for a caller
  that adds to the summary first);
- ``result``: its one ``Result``; ``summary``: summary.json's one writer (``write_summary``);
- ``run_set``: ``rtsched run``'s use of it (``run_taskset``, ``RunOptions``; imported from there,
  so that ``rtsched sim`` loads nothing of the runner's);
- ``compare``: the one comparison, over labelled results (side by side per task; job by job);
- ``comparisons``: ``rtsched run``'s (PI-CV on and off, the two backends, a run beside its
  simulation, an rt-app file beside real rt-app): results produced in turn, compared, their files
  written; ``compare_rtapp``: rt-app's logs beside a run, per rt-app thread;
- ``sim_overheads``: what the simulator charges for an overhead profile.

Only this part joins producers, analysis and report; the producers import neither.
"""

from rtsched.pipeline.bounds import Bounds, bounds_of
from rtsched.pipeline.experiment import REPORT_STEPS, ReportSettings, report_production, run_experiment
from rtsched.pipeline.result import Result
from rtsched.pipeline.summary import write_summary

__all__ = [
    "REPORT_STEPS",
    "Bounds",
    "ReportSettings",
    "Result",
    "bounds_of",
    "report_production",
    "run_experiment",
    "write_summary",
]

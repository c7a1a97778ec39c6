"""The C runner as a producer of traces (docs/run.md); ``rtsched.pipeline`` reports its trace.

- ``producer``: ``RunnerProducer``, the runner behind ``rtsched.producer.Producer``
  (resolves the placed set, writes runner.json, runs, observes steal and the kernel);
- ``runner``: the C runner ``rtsched-run`` as a subprocess (progress, signals, cleanup,
  its figures as JSON);
- ``reservation_overhead``: the reservation scheduler's overhead from the runner's figures;
- ``backends``: the two backends ``--compare-backends`` runs a set under, and their refusals.
"""

from rtsched.run.producer import DEFAULT_DURATION_NS, RunnerProducer, RunnerSettings, RunSetupError, ShieldRefused

__all__ = [
    "DEFAULT_DURATION_NS",
    "RunnerProducer",
    "RunnerSettings",
    "RunSetupError",
    "ShieldRefused",
]

"""A deterministic discrete-event simulator of task sets (issue 16; docs/sim.md).

It reads the same ``TaskSet`` as ``rtsched run`` and writes the same trace
format, so ``rtsched.report.build_report`` reports a simulated schedule as it
reports a real one:

    from rtsched.sim import SimOptions, simulate
    run = simulate(taskset, SimOptions(duration_ns=10**9), trace_path="trace.rtst")

Parts, one concern each: ``eventq`` (the event queue), ``dispatch``
(domains and the scheduling policy), ``protocols`` (lock protocols),
``condvars`` (condition variables), ``rpc`` (servers and calls),
``body`` (the job-body interpreter), ``engine`` (time, releases, blocking),
``fair`` (best-effort threads: CFS weights and slices below the real-time ones),
``trace_writer``, ``draws`` (seeded draws), ``options``, ``support`` (what is
refused), ``simulate`` (one run), ``producer`` (the simulator as a producer of traces,
``SimProducer``: the pipeline, ``rtsched.pipeline``, reports it); and EDF
under a DVFS policy (docs/dvfs.md): ``dvfs_policies``, ``dvfs_engine``,
``dvfs_run``.
"""

from rtsched.sim.options import DEFAULT_DURATION_NS, SimOptions, SimOverheads
from rtsched.sim.producer import SimProducer
from rtsched.sim.simulate import SimRun, sim_placement, simulate
from rtsched.sim.support import SimUnsupported, check_supported, unsupported_features

__all__ = [
    "DEFAULT_DURATION_NS",
    "SimOptions",
    "SimOverheads",
    "SimProducer",
    "SimRun",
    "SimUnsupported",
    "check_supported",
    "sim_placement",
    "simulate",
    "unsupported_features",
]

"""What a simulation is asked to do, and the overheads it charges.

Integer nanoseconds everywhere. ``rtsched.pipeline.sim_overheads`` makes them from
the analysis' ``Overheads`` (a machine's profile from ``rtsched calibrate``, or a
benchmark's JSON) so that the simulator charges what the bounds count:

- ``context_switch_ns``: CPU time charged to a thread each time a CPU switches
  to it from another thread (or from idle);
- ``release_latency_ns``: a released job becomes runnable this long after its
  nominal release (its RELEASE event keeps the nominal time);
- ``lock_ns`` / ``unlock_ns`` per protocol, uncontended and contended: CPU
  time of the lock and unlock calls, charged to the caller;
- ``rpc_call_ns``: the round trip of an RPC beyond its service (request,
  switches, reply), served by the server with the request, as the bounds
  lengthen the service by it;
- ``trace_event_ns``: CPU time of recording one trace event; each job is
  charged, at its start, for the events its body records on every path
  (``threads.events_per_job``), and a server for its two per request;
- ``interference_ns``: the most CPU time the calibration saw the system take
  in one window (``os_interference.max_lost_ns``, at most its window): every
  CPU is busy that long from t0, the critical instant (docs/sim.md says why
  once and not in every window).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SimOptions", "SimOverheads", "DEFAULT_DURATION_NS"]

#: The simulated length when neither the options nor the set give one (as `rtsched run`).
DEFAULT_DURATION_NS = 5_000_000_000


@dataclass(frozen=True)
class SimOverheads:
    context_switch_ns: int = 0
    release_latency_ns: int = 0
    lock_ns: dict[str, int] = field(default_factory=dict)
    unlock_ns: dict[str, int] = field(default_factory=dict)
    contended_lock_ns: dict[str, int] = field(default_factory=dict)
    contended_unlock_ns: dict[str, int] = field(default_factory=dict)
    rpc_call_ns: int = 0
    trace_event_ns: int = 0
    interference_ns: int = 0

    def lock_cost_ns(self, protocol: str, contended: bool) -> int:
        table = self.contended_lock_ns if contended else self.lock_ns
        return table.get(protocol, self.lock_ns.get(protocol, 0))

    def unlock_cost_ns(self, protocol: str, contended: bool) -> int:
        table = self.contended_unlock_ns if contended else self.unlock_ns
        return table.get(protocol, self.unlock_ns.get(protocol, 0))


@dataclass(frozen=True)
class SimOptions:
    """``duration_ns``: None for the set's duration, else DEFAULT_DURATION_NS.
    ``seed``: of the execution-time draws (sporadic gaps use each task's own seed, as the runner).
    ``exec_low_ppm``: None runs every ``compute`` for its full length (the WCET); a value draws
    each uniformly in [low, full] with low = exec_low_ppm millionths of it. A compute with a varying
    demand ignores it: it takes its own per-job values (``draws.ExecutionTimes``).
    ``release_jitter_ns``: each job becomes runnable a uniform [0, jitter] after its release
    (on top of the release latency), drawn from ``seed``.
    ``cpus``: the CPUs when the set names none (default: this machine's online CPUs, as the runner).
    ``picv``: RPC callers lend the server their key while they wait (False: they do not, to compare).
    ``native``: a set that fits the compute-only loop runs in its compiled form (``rtsched-sim-loop``)
    when that is installed (False: always the Python loops; the trace is the same).
    """

    duration_ns: int | None = None
    seed: int = 1
    exec_low_ppm: int | None = None
    release_jitter_ns: int = 0
    overheads: SimOverheads = field(default_factory=SimOverheads)
    cpus: tuple[int, ...] | None = None
    picv: bool = True
    native: bool = True

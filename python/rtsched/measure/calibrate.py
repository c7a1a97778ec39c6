"""The machine's overhead profile: what the schedulability analysis must add, measured here.

``calibrate()`` runs rtsched's own benchmarks one after the other on one CPU
(the real-time CPU: by default the highest-numbered online one), every
measuring thread pinned there under SCHED_FIFO, and gathers the maximum and
the 99th percentile of each overhead over a stated number of samples:

``release_latency_ns``
    timer expiry to the first instruction of a periodic SCHED_FIFO job
    (rtsched-latency: absolute clock_nanosleep on CLOCK_MONOTONIC, 1 ms period).
``context_switch_ns``
    one thread-to-thread switch caused by a futex wake + wait (rtsched-calibrate:
    ping-pong of two equal-priority threads, half a round trip).
``lock_ns``, ``unlock_ns``, ``contended_lock_ns``, ``contended_unlock_ns``
    per rts_mutex protocol (rtsched-lockbench, without its task workload);
    keyed by the protocol names of the task model (``none``, ``pip``, ``pcp``,
    ``srp``, ``ipcp``, ``mpcp``, ``fmlp+``) and ``<protocol>-eager`` for the
    eager variants.
``rpc_call_ns``, ``rpc_call_client_ns``
    a PI-CV rts_rpc_call to a server one priority lower on the same CPU that
    replies at once: the round trip less the service, and the client's own CPU
    time in the call (rtsched-calibrate).
``trace_event_ns``
    one rts_trace event (rtsched-calibrate).
``os_interference``
    ``{"window_ns", "max_lost_ns"}``: the most CPU time interrupts, softirqs
    and anything else took from a SCHED_FIFO loop in one window
    (rtsched-overhead, seed 002 §2.5.2: a loop calibrated to the window, run
    N times; lost = T_x - min T_x). What took that time, by cause (interrupts,
    other threads, host steal, the measuring command), is under
    ``provenance.os_interference_causes`` (``rtsched.measure.interference_causes``).

The profile (format ``rtsched-overheads/1``) holds the maxima at the top
level (``"stat": "max"``), the 99th percentiles under ``"p99"`` (same keys),
the sample counts under ``"samples"`` and the machine, load and steal under
``"provenance"``. It lives at :func:`default_profile_path`; the analysis reads
it with :func:`load_profile` (both in ``rtsched.measure.profile``, re-exported
here).
"""

from __future__ import annotations

import json
import os
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rtsched import __version__
from rtsched.measure import provenance
from rtsched.measure.interference_causes import interference_causes
from rtsched.measure.irqs import LocalTimerWindow
from rtsched.measure.kernel_facts import read_kernel_facts
from rtsched.measure.kernel_recorder import KernelSchedError, KernelSchedRecorder
from rtsched.cpus import allowed_cpus, format_cpu_list, online_cpus
from rtsched.measure.latency import LatencyConfig, LatencyError, run_latency
from rtsched.measure.overhead import OverheadError, run_loop
from rtsched.measure.profile import PROFILE_FORMAT, ProfileError, default_profile_path, load_profile, write_profile
from rtsched.measure.steal import StealSampler
from rtsched.native import NativeToolFailed, run_native_tool

# The lockbench subjects measured, and the protocol name each is filed under.
LOCK_SUBJECTS = {
    "rts-none": "none", "rts-pip": "pip", "rts-pcp": "pcp",
    "rts-srp": "srp", "rts-srp-eager": "srp-eager",
    "rts-ipcp": "ipcp", "rts-ipcp-eager": "ipcp-eager",
    "rts-mpcp": "mpcp", "rts-mpcp-eager": "mpcp-eager",
    "rts-fmlp": "fmlp+", "rts-fmlp-eager": "fmlp+-eager",
}
LOCK_KEYS = ("lock_ns", "unlock_ns", "contended_lock_ns", "contended_unlock_ns")
SCALAR_KEYS = ("release_latency_ns", "context_switch_ns", "rpc_call_ns", "rpc_call_client_ns", "trace_event_ns")

__all__ = ["CalibrationConfig", "CalibrationError", "ProfileError", "calibrate", "default_profile_path",
           "default_rt_cpu", "load_profile", "steal_warning", "write_profile"]

STEAL_WARNING_RATIO = 0.01  # above this, the figures include the host's interference


class CalibrationError(RuntimeError):
    """A benchmark could not measure (no SCHED_FIFO, a tool failed); the message says what."""


@dataclass(frozen=True)
class CalibrationConfig:
    """What to measure and how much. Sample counts are per overhead (per protocol for locks)."""

    cpu: int
    priority: int = 90
    latency_samples: int = 10000     # jobs of a 1 ms periodic task: 10 s
    lock_iterations: int = 100000    # uncontended; contended rounds are a tenth
    native_samples: int = 100000     # context switches, RPC calls, trace events
    window_ms: float = 10.0          # os_interference window
    windows: int = 1000              # os_interference loops
    window_gap_ms: float = 2.0       # sleep between loops: 83% busy, under RT throttling (95%)

    @classmethod
    def quick(cls, cpu: int, priority: int = 90) -> "CalibrationConfig":
        """About 10 s: enough to check the machinery, too few samples for a trustworthy maximum."""
        return cls(cpu=cpu, priority=priority, latency_samples=2000, lock_iterations=2000,
                   native_samples=10000, windows=200)

    def expected_seconds(self) -> float:
        return (self.latency_samples * 1e-3 + self.windows * (self.window_ms + self.window_gap_ms) * 1e-3
                + self.lock_iterations * 5e-5 + self.native_samples * 2.5e-5 + 2)


Progress = Callable[[str], None]


def default_rt_cpu() -> int:
    """The real-time CPU by default: the highest-numbered CPU this process may use."""
    return max(allowed_cpus())


def check_realtime_allowed(priority: int) -> None:
    """Raise CalibrationError saying what is missing if this process may not use SCHED_FIFO at ``priority``."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except PermissionError:
        pass
    else:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        return
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_RTPRIO)
    limit = "unlimited" if soft == resource.RLIM_INFINITY else str(soft)
    if _has_cap_sys_nice():
        raise CalibrationError(
            f"SCHED_FIFO priority {priority} refused although the process has CAP_SYS_NICE: its cgroup "
            "probably has no real-time runtime (cpu.rt_runtime_us is 0); run it from a cgroup with one")
    raise CalibrationError(
        f"SCHED_FIFO priority {priority} refused: calibration needs CAP_SYS_NICE (this process lacks it) "
        f"or RLIMIT_RTPRIO >= {priority} (it is {limit}); run as root, or raise the limit "
        f"(`ulimit -r {priority}`, or rtprio in /etc/security/limits.conf)")


def _has_cap_sys_nice() -> bool:
    cap_sys_nice = 23
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> cap_sys_nice & 1)
    except OSError:
        pass
    return False


def _p99(sorted_values: list[int]) -> int:
    """Nearest rank, as rtsched-calibrate: the smallest value with 99% of the values at or below it."""
    rank = -(-len(sorted_values) * 99 // 100)
    return sorted_values[max(rank, 1) - 1]


# ---- the benchmarks ------------------------------------------------------------------------------


def _release_latency(config: CalibrationConfig) -> dict:
    run = run_latency(LatencyConfig(cpus=[config.cpu], interval_us=1000, policy="fifo",
                                    priority=config.priority, loops=config.latency_samples,
                                    dma_latency_us=-1))
    thread = run.raw["threads"][0]
    if thread.get("error"):
        raise CalibrationError(f"rtsched-latency: {thread['error']}")
    hist = run.histograms[0]
    p99_us = hist.percentile(99)
    max_ns = int(thread["max_ns"])
    p99_ns = max_ns if p99_us is None else min(max_ns, int(round(p99_us * 1000)))
    return {"max": max_ns, "p99": p99_ns, "samples": int(thread["samples"])}


def _run_json(name: str, args: list[str], timeout_s: float) -> dict:
    try:
        out = run_native_tool(name, args, timeout_s=timeout_s)
    except NativeToolFailed as error:
        raise CalibrationError(f"{name}: {error}") from error
    try:
        return json.loads(out)
    except json.JSONDecodeError as error:
        raise CalibrationError(f"{name}: output is not JSON ({error})") from error


def _locks(config: CalibrationConfig) -> dict:
    args = ["--json", "--workload-ms", "0", "--iterations", str(config.lock_iterations), "--cpu", str(config.cpu),
            "--priority", str(config.priority), "--only", ",".join(LOCK_SUBJECTS)]
    data = _run_json("rtsched-lockbench", args, 60 + config.lock_iterations * 1e-3)
    if data.get("config", {}).get("policy") != "SCHED_FIFO":
        note = data.get("config", {}).get("policy_note") or "it ran under SCHED_OTHER"
        raise CalibrationError(f"rtsched-lockbench could not use SCHED_FIFO: {note}")
    out: dict = {stat: {key: {} for key in LOCK_KEYS} for stat in ("max", "p99", "samples")}
    for part, prefix in (("uncontended", ""), ("contended", "contended_")):
        for subject, result in (data.get(part) or {}).items():
            protocol = LOCK_SUBJECTS.get(subject)
            if protocol is None:
                continue
            for operation in ("lock", "unlock"):
                dist = result.get(operation)
                if not dist:
                    continue
                key = f"{prefix}{operation}_ns"
                out["max"][key][protocol] = int(round(dist["max_ns"]))
                out["p99"][key][protocol] = int(round(dist["p99_ns"]))
                out["samples"][key][protocol] = int(dist["samples"])
    return out


def _native(config: CalibrationConfig) -> dict:
    args = ["--cpu", str(config.cpu), "--priority", str(config.priority), "--samples", str(config.native_samples)]
    data = _run_json("rtsched-calibrate", args, 60 + config.native_samples * 1e-3)
    if data.get("format") != "rtsched-calibrate/1":
        raise CalibrationError("rtsched-calibrate: unexpected output format")
    if data.get("trace_lost_events"):
        raise CalibrationError(f"rtsched-calibrate: the trace measurement lost {data['trace_lost_events']} events")
    names = {"context_switch": "context_switch_ns", "rpc_call": "rpc_call_ns",
             "rpc_call_client": "rpc_call_client_ns", "trace_event": "trace_event_ns"}
    return {key: {"max": data["measurements"][name]["max_ns"], "p99": data["measurements"][name]["p99_ns"],
                  "samples": data["measurements"][name]["samples"]}
            for name, key in names.items()}


def _own_tids() -> set[int]:
    """This process's threads: the measuring command's own, told apart from the machine's."""
    try:
        return {int(t) for t in os.listdir("/proc/self/task")}
    except OSError:
        return {os.getpid()}


def _interference(config: CalibrationConfig) -> dict:
    """The loop's windows, and what took the CPU from it in each (the kernel's schedule of the CPU
    recorded meanwhile where tracefs allows, and the host's steal: measure.interference_causes)."""
    recorder = KernelSchedRecorder([config.cpu])
    why_unrecorded = None
    try:
        with ExitStack() as observing:
            try:
                observing.enter_context(recorder)
            except KernelSchedError as error:
                why_unrecorded = str(error)
            sampler = observing.enter_context(StealSampler([config.cpu], interval_ns=10_000_000))
            measuring = _own_tids()
            raw = run_loop(config.cpu, "fifo", config.priority, config.window_ms, config.windows,
                           config.window_gap_ms)
    except OverheadError as error:
        raise CalibrationError(f"rtsched-overhead: {error}") from error
    samples = [int(s) for s in raw["samples_ns"]]
    lengths = sorted(samples)
    if not lengths:
        raise CalibrationError("rtsched-overhead measured no window")
    base = lengths[0]
    window_ns = int(round(config.window_ms * 1e6))
    causes = interference_causes([int(s) for s in raw["starts_ns"]], samples, config.cpu, int(raw["tid"]),
                                 recorder.schedule, sampler.samples, measuring)
    if why_unrecorded is not None:
        causes["why_no_kernel_schedule"] = why_unrecorded
    return {"max": {"window_ns": window_ns, "max_lost_ns": lengths[-1] - base},
            "p99": {"window_ns": window_ns, "max_lost_ns": _p99(lengths) - base},
            "samples": len(lengths), "loop_ns": base, "causes": causes}


# ---- the whole calibration -----------------------------------------------------------------------


def calibrate(config: CalibrationConfig, command: str, progress: Progress | None = None) -> dict:
    """Measure every overhead on ``config.cpu`` and return the profile (see the module doc).

    ``command`` is recorded in the provenance (the command line that made it).
    Raises CalibrationError when SCHED_FIFO is not allowed or a benchmark fails.
    """
    say = progress or (lambda _text: None)
    check_realtime_allowed(config.priority)
    started = provenance.utc_now_iso()
    started_s = time.monotonic()
    load_start = provenance.load_average()
    times_start = provenance.cpu_times()

    facts = read_kernel_facts()
    with LocalTimerWindow([config.cpu]) as ticks:
        say(f"release latency: {config.latency_samples} jobs of a 1 ms periodic task")
        try:
            release = _release_latency(config)
        except LatencyError as error:
            raise CalibrationError(f"rtsched-latency: {error}") from error
        say(f"lock and unlock: {config.lock_iterations} uncontended iterations per protocol")
        locks = _locks(config)
        say(f"context switch, PI-CV RPC call, trace event: {config.native_samples} samples each")
        native = _native(config)
        say(f"OS interference: {config.windows} windows of {config.window_ms:g} ms")
        interference = _interference(config)

    steal = provenance.steal_ratios(times_start, provenance.cpu_times())
    load_end = provenance.load_average()
    scalars = {"release_latency_ns": release, **native}
    profile: dict = {"format": PROFILE_FORMAT, "stat": "max"}
    profile.update({key: scalars[key]["max"] for key in SCALAR_KEYS})
    profile.update(locks["max"])
    profile["os_interference"] = interference["max"]
    profile["p99"] = {**{key: scalars[key]["p99"] for key in SCALAR_KEYS}, **locks["p99"],
                      "os_interference": interference["p99"]}
    profile["samples"] = {**{key: scalars[key]["samples"] for key in SCALAR_KEYS}, **locks["samples"],
                          "os_interference": interference["samples"]}
    profile["provenance"] = {
        **provenance.machine_identity(),
        "online_cpus": format_cpu_list(online_cpus()),
        "date": started,
        "duration_s": round(time.monotonic() - started_s, 1),
        "cpu": config.cpu,
        "priority": config.priority,
        "load": {"start": load_start, "end": load_end},
        "steal_ratio": {str(cpu): round(ratio, 6) for cpu, ratio in sorted(steal.items())},
        "rtsched_version": __version__,
        "command": command,
        "interference_loop_ns": interference["loop_ns"],
        "os_interference_causes": interference["causes"],
        "kernel_facts": facts.as_dict(),
        "local_timer_interrupts": ticks.as_json(),
    }
    return profile


def steal_warning(profile: dict) -> str | None:
    """A warning when the host stole more than 1% of the measured CPU (or any CPU) during calibration."""
    ratios = profile.get("provenance", {}).get("steal_ratio", {})
    high = {cpu: r for cpu, r in ratios.items() if r > STEAL_WARNING_RATIO}
    if not high:
        return None
    measured = str(profile["provenance"].get("cpu"))
    listed = ", ".join(f"CPU {cpu} {r:.1%}" for cpu, r in sorted(high.items()))
    where = "the measured CPU" if measured in high else "another CPU"
    return (f"the host stole more than {STEAL_WARNING_RATIO:.0%} of {where} during calibration ({listed}): "
            "the figures include the host's interference; calibrate again on a quieter host for a profile "
            "of this machine alone")

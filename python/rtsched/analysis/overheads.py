"""Measured overheads folded into the analysis (overhead-aware variants of every test).

Sources, read from the ``--json`` output of rtsched's own benchmarks (keys
consumed are listed; anything else is ignored; a missing key is reported in
``Overheads.missing`` and the corresponding overhead is not folded):

``rtsched lockbench --json`` (``"tool": "rtsched-lockbench"``)
    ``uncontended.<subject>.lock.<stat>_ns``, ``uncontended.<subject>.unlock.<stat>_ns``,
    ``contended.<subject>.lock.<stat>_ns``, ``contended.<subject>.unlock.<stat>_ns``
    where <subject> is ``rts-<protocol>`` (``rts-pip``, ``rts-none``; future
    protocols by the same rule) and <stat> is ``max`` (default) or ``p99``.
``rtsched latency`` JSON (``"format": "rtsched-latency/1"``)
    ``threads[].max_ns`` (or ``p99_ns``): release latency, the largest over threads.
A machine's profile (``"format": "rtsched-overheads/1"``, written by
``rtsched calibrate``, or by hand)
    ``context_switch_ns``, ``release_latency_ns``, ``lock_ns.<protocol>``,
    ``unlock_ns.<protocol>``, ``contended_lock_ns.<protocol>``,
    ``contended_unlock_ns.<protocol>``, ``rpc_call_ns``, ``trace_event_ns``,
    ``os_interference.window_ns`` and ``.max_lost_ns`` (integers or floats of
    nanoseconds); with stat ``p99``, the same keys under ``"p99"`` except
    ``os_interference``, which stays at its maximum.

How they are folded (:func:`apply_overheads`), each rounded up to whole ns:

- every job: WCET += 2 × context switch (the switch to it and the one
  after it, charged to the job that causes them);
- every critical section in the body: WCET += lock + unlock, each the
  larger of its contended and uncontended figure for the resource's protocol;
- every critical section's length (what it makes others wait) += the
  contended unlock (the holder's release path that wakes the waiter);
- every task: release jitter += release latency;
- a task in a SCHED_DEADLINE reservation of its own (``dl_reservations``):
  its server keeps its runtime (the kernel holds the thread to it, the
  thread's own overheads included), and its jobs' WCET takes what the rules
  above add to a job, release latency included (analysis/dl_reservations.py);
- every RPC's service += the call's overhead (the round trip beyond the
  service: the request, the switches to the server and back, the reply; all
  of it runs at the caller's priority or blocks the caller);
- every job: WCET += trace event × the events it writes (release, start and
  completion; request, acquisition and release per critical section; call
  and reply per RPC), since every rtsched task is traced;
- the OS interference (the interrupts, soft interrupts and kernel threads
  that the calibration saw take the CPU: at most L = ``max_lost_ns`` in any
  window W = ``window_ns``): under FP on one processor and under P-FP on a
  one-CPU partition, a task above every other, ``OS_INTERFERENCE`` (C = L,
  T = D = W); tests report no row for it. Anywhere else (EDF, global and
  clustered scheduling) no task can stand above every job, so each job is
  *stretched* instead (:func:`interference_stretch_ns`): WCET += ⌈D/W⌉ × L
  × the CPUs it may run on. Interference does not wake the scheduler: it
  stalls whichever job holds the CPU, which to the scheduler is that job
  running longer. A job that meets its deadline runs within an interval of
  length D, which ⌈D/W⌉ consecutive windows of length W cover, each losing
  at most L on each CPU it runs on (the reading of the calibration's figure
  that the FP task above, with its ⌈t/W⌉ · L in any interval t, makes too).
  Consider the first deadline miss: every job until then ran as if its
  execution were its real one plus what it lost, at most the stretched
  WCET, so a test that holds for the stretched WCETs holds for the real
  schedule up to that instant, and there is no miss. A bound R
  above D (a tardiness bound, a task that misses) needs the window R, not D:
  :func:`fold_and_run` stretches again with the bounds as windows until
  every bound is within the window it was stretched for (the same argument
  with "the first job above its bound"), or says per task that it is not.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from rtsched.analysis.results import AnalysisResult, TaskBound
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, CriticalSection

__all__ = ["Overheads", "OverheadsError", "OS_INTERFERENCE", "is_interference", "load_overheads", "overheads_from_json",
           "apply_overheads", "fold_and_run", "interference_stretch_ns"]

OS_INTERFERENCE = "(os interference)"
#: The note that starts every folded problem's notes about its overheads (``is_folded``).
FOLDED_NOTE = "overheads folded in from"
TRACE_EVENTS_PER_JOB = 3  # release, start, completion
TRACE_EVENTS_PER_SECTION = 3  # request, acquisition, release
TRACE_EVENTS_PER_RPC = 2  # call, reply


class OverheadsError(ValueError):
    """A file that is not the output of a known benchmark."""


@dataclass(frozen=True)
class Overheads:
    """Overheads in integer ns. Per-protocol dicts are keyed by protocol name (``pip``, ``none``...)."""

    context_switch_ns: int | None = None
    release_latency_ns: int | None = None
    lock_ns: dict[str, int] = field(default_factory=dict)
    unlock_ns: dict[str, int] = field(default_factory=dict)
    contended_lock_ns: dict[str, int] = field(default_factory=dict)
    contended_unlock_ns: dict[str, int] = field(default_factory=dict)
    rpc_call_ns: int | None = None
    trace_event_ns: int | None = None
    interference_window_ns: int | None = None
    interference_max_lost_ns: int | None = None
    sources: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()

    def merged(self, other: "Overheads") -> "Overheads":
        return Overheads(
            context_switch_ns=_later(self.context_switch_ns, other.context_switch_ns),
            release_latency_ns=_later(self.release_latency_ns, other.release_latency_ns),
            lock_ns={**self.lock_ns, **other.lock_ns},
            unlock_ns={**self.unlock_ns, **other.unlock_ns},
            contended_lock_ns={**self.contended_lock_ns, **other.contended_lock_ns},
            contended_unlock_ns={**self.contended_unlock_ns, **other.contended_unlock_ns},
            rpc_call_ns=_later(self.rpc_call_ns, other.rpc_call_ns),
            trace_event_ns=_later(self.trace_event_ns, other.trace_event_ns),
            interference_window_ns=_later(self.interference_window_ns, other.interference_window_ns),
            interference_max_lost_ns=_later(self.interference_max_lost_ns, other.interference_max_lost_ns),
            sources=self.sources + other.sources,
            missing=self.missing + other.missing,
        )


def _later(earlier: int | None, later: int | None) -> int | None:
    """``later`` where it is known, else ``earlier`` (how ``Overheads.merged`` combines single figures)."""
    return later if later is not None else earlier


def _ns(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and value >= 0 and math.isfinite(value):
        return math.ceil(value)
    raise OverheadsError(f"not a duration in ns: {value!r}")


def _ns_required(value: Any) -> int:
    """``_ns`` for a figure that must be there (a per-protocol entry): None is an error too."""
    ns = _ns(value)
    if ns is None:
        raise OverheadsError(f"not a duration in ns: {value!r}")
    return ns


def _dig(data: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(data, dict) or k not in data:
            return None
        data = data[k]
    return data


def overheads_from_json(data: dict[str, Any], source: str = "<json>", stat: str = "max") -> Overheads:
    """Overheads from one parsed benchmark output (see the module doc for the keys)."""
    if stat not in ("max", "p99"):
        raise ValueError("stat must be 'max' or 'p99'")
    key = f"{stat}_ns"
    missing: list[str] = []
    if data.get("tool") == "rtsched-lockbench":
        ov: dict[str, dict[str, int]] = {"lock": {}, "unlock": {}, "clock": {}, "cunlock": {}}
        subjects = set((data.get("uncontended") or {}).keys()) | set((data.get("contended") or {}).keys())
        for subject in sorted(subjects):
            if not subject.startswith("rts-"):
                continue  # glibc baselines are not what rtsched tasks run
            proto = subject[4:]
            for part, kind, store in (("uncontended", "lock", "lock"), ("uncontended", "unlock", "unlock"),
                                      ("contended", "lock", "clock"), ("contended", "unlock", "cunlock")):
                v = _dig(data, part, subject, kind, key)
                if v is None:
                    missing.append(f"{source}: {part}.{subject}.{kind}.{key} missing")
                else:
                    ov[store][proto] = _ns_required(v)
        if not subjects:
            missing.append(f"{source}: no uncontended/contended measurements")
        return Overheads(lock_ns=ov["lock"], unlock_ns=ov["unlock"], contended_lock_ns=ov["clock"],
                         contended_unlock_ns=ov["cunlock"], sources=(source,), missing=tuple(missing))
    if data.get("format") == "rtsched-latency/1":
        values = [t.get(key) for t in data.get("threads") or [] if t.get(key) is not None]
        if not values:
            return Overheads(sources=(source,), missing=(f"{source}: threads[].{key} missing",))
        return Overheads(release_latency_ns=_ns(max(values)), sources=(source,))
    if data.get("format") == "rtsched-overheads/1":
        if stat == "p99":
            if not isinstance(data.get("p99"), dict):
                raise OverheadsError(f"{source}: no \"p99\" figures in this profile")
            # The OS interference stays at its maximum: a per-operation p99 leaves out the samples
            # an interrupt landed in, and the interference's worst window counts those once.
            data = {**data["p99"], "format": data["format"], "os_interference": data.get("os_interference")}

        def per(k: str) -> dict[str, int]:
            return {p: _ns_required(v) for p, v in (data.get(k) or {}).items()}

        interference = data.get("os_interference")
        if interference is not None and not isinstance(interference, dict):
            raise OverheadsError(f"{source}: os_interference: expected {{\"window_ns\", \"max_lost_ns\"}}")
        interference = interference or {}
        window = _ns(interference.get("window_ns"))
        if window == 0:
            raise OverheadsError(f"{source}: os_interference.window_ns must be positive")
        return Overheads(
            context_switch_ns=_ns(data.get("context_switch_ns")),
            release_latency_ns=_ns(data.get("release_latency_ns")),
            lock_ns=per("lock_ns"), unlock_ns=per("unlock_ns"),
            contended_lock_ns=per("contended_lock_ns"), contended_unlock_ns=per("contended_unlock_ns"),
            rpc_call_ns=_ns(data.get("rpc_call_ns")),
            trace_event_ns=_ns(data.get("trace_event_ns")),
            interference_window_ns=window,
            interference_max_lost_ns=_ns(interference.get("max_lost_ns")),
            sources=(source,),
        )
    raise OverheadsError(
        f"{source}: not a known benchmark output (expected \"tool\": \"rtsched-lockbench\", "
        f"\"format\": \"rtsched-latency/1\" or \"rtsched-overheads/1\")")


def load_overheads(*paths: str | Path, stat: str = "max") -> Overheads:
    """Read and merge benchmark outputs (later files override earlier ones)."""
    total = Overheads()
    for p in paths:
        try:
            data = json.loads(Path(p).read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise OverheadsError(f"{p}: {error}") from error
        if not isinstance(data, dict):
            raise OverheadsError(f"{p}: expected a JSON object")
        total = total.merged(overheads_from_json(data, str(p), stat))
    return total


#: How many times ``fold_and_run`` stretches again for bounds beyond their windows.
STRETCH_ROUNDS = 8


def fold_and_run(test: Callable[..., AnalysisResult], problem: AnalysisProblem, ov: Overheads,
                 **options: object) -> AnalysisResult:
    """``test`` on ``problem`` with ``ov`` folded in, stretched for windows as long as its bounds (the
    module doc); a task whose bound keeps outgrowing its window gets none, and the reason. The
    OS_INTERFERENCE tasks are left out of the result; the folded problem's notes are in its details."""
    windows: dict[str, int] = {}
    for _ in range(STRETCH_ROUNDS):
        folded = apply_overheads(problem, ov, windows)
        result = test(folded, **options)
        longer = {b.name: b.bound_ns for b in result.tasks if b.bound_ns is not None and not is_interference(b.name)
                  and _stretch_in(folded, folded.task(b.name), ov)
                  and b.bound_ns > windows.get(b.name, folded.task(b.name).deadline_ns)}
        if not longer:
            break
        windows.update(longer)
    else:
        why = (f"no bound: stretched for the OS interference over a window as long as its bound, the bound "
               f"outgrew the window {STRETCH_ROUNDS} times")
        result = replace(result, tasks=tuple(TaskBound(b.name, None, "unknown", f"{b.reason}; {why}")
                                             if b.name in longer else b for b in result.tasks))
    model_rows = [b for b in result.tasks if is_interference(b.name)]
    result = replace(result, tasks=tuple(b for b in result.tasks if not is_interference(b.name)),
                     reason=_uncounted(result.reason, sum(b.verdict != "ok" for b in model_rows)))
    return replace(result, details={**result.details, "notes": list(folded.notes)})


def _uncounted(reason: str, model_rows: int) -> str:
    """``reason`` with a tests' closing "(and K more)" no longer counting ``model_rows`` OS interference
    rows (which the result does not show)."""
    match = re.search(r" \(and (\d+) more\)$", reason)
    if not model_rows or match is None:
        return reason
    left = int(match.group(1)) - model_rows
    return reason[:match.start()] + (f" (and {left} more)" if left > 0 else "")


def apply_overheads(problem: AnalysisProblem, ov: Overheads, windows_ns: Mapping[str, int] | None = None
                    ) -> AnalysisProblem:
    """The problem with the overheads folded in (see the module doc); notes say what was missing.
    ``windows_ns``: task → the window its jobs are stretched for, when longer than its deadline."""
    notes = list(problem.notes)
    missing = set(ov.missing)
    tasks = []
    reserved = dict(problem.dl_reservations)
    for t in problem.tasks:
        wcet = t.wcet_ns + _stretch_in(problem, t, ov, (windows_ns or {}).get(t.name, t.deadline_ns))
        if ov.context_switch_ns is not None:
            wcet += 2 * ov.context_switch_ns
        if ov.trace_event_ns is not None:
            events = (TRACE_EVENTS_PER_JOB + TRACE_EVENTS_PER_SECTION * len(t.critical_sections)
                      + TRACE_EVENTS_PER_RPC * len(t.rpcs))
            wcet += events * ov.trace_event_ns
        sections = []
        for cs in t.critical_sections:
            proto = problem.protocol(cs.resource)
            lock = max(ov.lock_ns.get(proto, 0), ov.contended_lock_ns.get(proto, 0))
            unlock = max(ov.unlock_ns.get(proto, 0), ov.contended_unlock_ns.get(proto, 0))
            if proto not in ov.lock_ns and proto not in ov.contended_lock_ns:
                missing.add(f"no lock overhead measured for protocol {proto}")
            wcet += lock + unlock
            sections.append(replace(cs, length_ns=cs.length_ns + ov.contended_unlock_ns.get(proto, 0)))
        jitter = t.jitter_ns + (ov.release_latency_ns or 0)
        rpcs = tuple(replace(c, length_ns=c.length_ns + (ov.rpc_call_ns or 0)) for c in t.rpcs)
        jobs = problem.dl_reservations.get(t.name)
        if jobs is not None:  # the kernel holds the thread to its runtime: its jobs take the overheads
            reserved[t.name] = replace(jobs, wcet_ns=jobs.wcet_ns + (wcet - t.wcet_ns) + (jitter - t.jitter_ns))
            wcet = t.wcet_ns
        tasks.append(replace(t, wcet_ns=wcet, jitter_ns=jitter, critical_sections=tuple(sections), rpcs=rpcs,
                             np_segments_ns=_padded_intervals(t.np_segments_ns, wcet - t.wcet_ns)))
    if any(t.rpcs for t in problem.tasks) and ov.rpc_call_ns is None:
        missing.add("no RPC call overhead given (rpc_call_ns)")
    if ov.trace_event_ns is None:
        missing.add("no trace event cost given (trace_event_ns)")
    stretched = sorted({problem.scheduler for t in problem.tasks if _stretch_in(problem, t, ov)})
    if stretched:
        notes.append("OS interference counted in every job's WCET, "
                     f"⌈D/W⌉ × {ov.interference_max_lost_ns} ns "
                     f"× the CPUs it may run on: under {stretched[0]} no task stands above every job")
    tasks.extend(_interference_tasks(problem, ov, missing))
    if ov.context_switch_ns is None:
        missing.add("no context-switch overhead given (context_switch_ns)")
    if ov.release_latency_ns is None:
        missing.add("no release latency given")
    folded = ", ".join(ov.sources) or "nothing"
    notes.append(f"{FOLDED_NOTE} {folded}")
    notes.extend(f"overheads: {m} (not folded)" for m in sorted(missing))
    return replace(problem, tasks=tuple(tasks), notes=tuple(notes), dl_reservations=reserved)


def _padded_intervals(intervals_ns: tuple[int, ...], added_ns: int) -> tuple[int, ...]:
    """A PREM task's intervals with the job's overhead ``added_ns`` as one more interval, first.

    The intervals must still sum to the WCET (``fp-lp``). A PREM interval is padded to its length
    in wall-clock time (docs/prem.md), so no overhead lengthens it; the job's overheads (the switch
    to it, the trace events, the switch after it) run outside the intervals, preemptibly. As an
    interval of its own before the others they are (1) counted as execution before the last
    interval, which is where ``fp-lp`` counts a job's preemptible work (only the last interval's
    non-preemption shortens the job's own bound; the completion's share, which in fact runs after
    the last interval but after the completion is stamped, is only counted early), and (2) a
    non-preemptive stretch that higher tasks may wait for, which is pessimistic (they are
    preemptible) and never shortens a real interval. Appending it to an existing interval instead
    would be unsound: added to the last, it would claim preemptible work as non-preemptive.
    """
    if not intervals_ns or not added_ns:
        return intervals_ns
    return (added_ns, *intervals_ns)


def interference_stretch_ns(ov: Overheads, span_ns: int, cpus: int) -> int:
    """What the OS interference may take from one job that runs within ``span_ns`` of its arrival (its
    deadline, or its bound when longer) on up to ``cpus`` CPUs: ⌈span/W⌉ × L per CPU (the module
    doc argues it); 0 when none was measured."""
    if not ov.interference_max_lost_ns or ov.interference_window_ns is None:
        return 0
    window = ov.interference_window_ns
    return -(-span_ns // window) * min(ov.interference_max_lost_ns, window) * cpus


def _on_one_fp_cpu(problem: AnalysisProblem, t: AnalysisTask) -> bool:
    """Whether ``t`` runs on one CPU under FP, where an OS_INTERFERENCE task above it is counted."""
    if problem.scheduler == "FP":
        return True
    return problem.scheduler == "P-FP" and problem.partition_cpus.get(t.partition or "", 1) == 1


def _cpus_of(problem: AnalysisProblem, t: AnalysisTask) -> int:
    if problem.is_global:
        return problem.cpus
    return problem.partition_cpus.get(t.partition or "", 1) if problem.scheduler in ("P-FP", "P-EDF") else 1


def _stretch_in(problem: AnalysisProblem, t: AnalysisTask, ov: Overheads, window_ns: int | None = None) -> int:
    """The stretch of ``t``'s jobs by OS interference in ``problem`` over ``window_ns`` (default: its
    deadline); 0 where a task above counts it."""
    if _on_one_fp_cpu(problem, t):
        return 0
    return interference_stretch_ns(ov, t.deadline_ns if window_ns is None else window_ns, _cpus_of(problem, t))


def _interference_tasks(problem: AnalysisProblem, ov: Overheads, missing: set[str]) -> list[AnalysisTask]:
    """One OS_INTERFERENCE task above every task of each one-CPU FP processor (the others' jobs are
    stretched: ``_stretch_in``)."""
    if ov.interference_window_ns is None or ov.interference_max_lost_ns is None:
        missing.add("no OS interference measured (os_interference)")
        return []
    if ov.interference_max_lost_ns == 0:
        return []
    window = ov.interference_window_ns
    lost = min(ov.interference_max_lost_ns, window)
    groups = {p: tasks for p, tasks in problem.partitions().items() if _on_one_fp_cpu(problem, tasks[0])}
    out = []
    for partition, tasks in groups.items():
        name = OS_INTERFERENCE if len(groups) == 1 else f"{OS_INTERFERENCE} {partition}"
        top = max(t.priority for t in tasks) + 1
        out.append(AnalysisTask(name, wcet_ns=lost, period_ns=window, deadline_ns=window, priority=top,
                                partition=partition))
    return out


def is_folded(problem: AnalysisProblem) -> bool:
    """Whether ``problem`` has overheads folded in: its WCETs are then upper bounds with the
    overheads (an OS interference stretch among them), not demands the set really places."""
    return any(n.startswith(FOLDED_NOTE) for n in problem.notes)


def is_interference(name: str) -> bool:
    """Whether a task of a folded problem is one of the OS_INTERFERENCE tasks."""
    return name.startswith(OS_INTERFERENCE)

"""Chrome / Perfetto trace JSON of a run (opens in ui.perfetto.dev and chrome://tracing).

Layout (the JSON "Trace Event Format"):

- process 1 "tasks": one track (tid = task index + 1) per task, named after it;
- process 2 "CPUs": one track (tid = CPU + 1) per CPU, named ``CPU n``;
- ``X`` slices: each **execution segment** of a job, named ``<task> #<job>``, on
  its task's track and on the CPU it ran on. A job's segment runs from START
  (or the end of a suspension) to COMPLETE (or the start of the next
  suspension); suspensions are a ``sleep`` (from the SLEEP event for its
  duration), a condition-variable wait (COND_WAIT to COND_WAKE), a call to a
  server (RPC_CALL to RPC_REPLY) and a lock wait longer than
  ``LOCK_WAIT_MIN_NS`` (LOCK_REQUEST to LOCK_ACQUIRE). A job
  that never suspends has exactly one slice. Under the threads backend
  preemption is not traced (no kernel events), so a slice includes the time
  the job was preempted; on a CPU track the preempting job's slice nests
  inside it. Under the ult backend, which traces every switch, a PREEMPT
  ends a segment and the RESUME after it begins the next, on the CPUs the
  events name: the slices are then the job's exact execution intervals, and
  a job that migrated has one slice per CPU. A segment whose two
  ends were recorded on different CPUs (it migrated) or that would overlap
  another without nesting is left off the CPU tracks (counted in the
  metadata), never off its task track;
- one track per server (tid = number of tasks + server position + 1) with an
  ``X`` slice per service, ``<server> for <client> #<job>`` (RPC_SERVE_START
  to RPC_SERVE_END), also on its CPU track when both ends were recorded there;
- PREM (docs/prem.md): on a PREM task's track, an ``X`` slice per memory phase
  and per execution phase of each interval, nested in its job's; on a
  peripheral's track, one per run span (GATE_RUN to GATE_HOLD);
- instant events on the task tracks: release (at the nominal release),
  deadline miss and budget overrun (at completion), lock acquire / release,
  condition wait / wake / signal / broadcast, markers.

Timestamps are microseconds since the synchronous release t0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from rtsched.outputs import write_text
from rtsched.report.jobs import JobTable
from rtsched.report.prem import gate_spans, prem_intervals
from rtsched.trace import EventType as EV
from rtsched.trace import Trace

__all__ = ["INSTANT_NAMES", "LOCK_WAIT_MIN_NS", "job_segments", "service_segments", "perfetto_trace", "write_perfetto"]

LOCK_WAIT_MIN_NS = 2000
MAX_CPU = 4096  # above: "CPU unknown" (the reader's CPU_UNKNOWN, 0xffff)
TASKS_PID = 1
CPUS_PID = 2

#: The events drawn as instants, by name (trace.pftrace draws these and a job's release, miss, overrun).
INSTANT_NAMES: dict[int, str] = {
    EV.LOCK_ACQUIRE: "lock acquire",
    EV.LOCK_RELEASE: "lock release",
    EV.COND_WAIT: "cond wait",
    EV.COND_WAKE: "cond wake",
    EV.COND_SIGNAL: "cond signal",
    EV.COND_BROADCAST: "cond broadcast",
    EV.MARKER: "marker",
}


def job_segments(events: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Execution segments (begin_ns, end_ns, begin_cpu, end_cpu) of one job's events, recording order."""
    segments = []
    begin: tuple[int, int] | None = None
    resume_at: int | None = None  # a sleep ends here; the segment's CPU is the next event's
    pending_request: tuple[int, int] | None = None
    for ev in events:
        kind, t, cpu = int(ev["type"]), int(ev["time_ns"]), int(ev["cpu"])
        if kind == EV.RELEASE:
            continue
        if resume_at is not None:
            begin, resume_at = (resume_at, cpu), None
        if kind == EV.START:
            begin = (t, cpu)
        elif kind == EV.SLEEP and begin is not None:
            segments.append((begin[0], t, begin[1], cpu))
            begin, resume_at = None, t + int(ev["arg1"])
        elif kind in (EV.COND_WAIT, EV.RPC_CALL) and begin is not None:
            segments.append((begin[0], t, begin[1], cpu))
            begin = None
        elif kind in (EV.COND_WAKE, EV.RPC_REPLY) and begin is None:
            begin = (t, cpu)
        elif kind == EV.LOCK_REQUEST:
            pending_request = (t, cpu)
        elif kind == EV.LOCK_ACQUIRE and pending_request is not None:
            if begin is not None and t - pending_request[0] > LOCK_WAIT_MIN_NS:
                segments.append((begin[0], pending_request[0], begin[1], pending_request[1]))
                begin = (t, cpu)
            pending_request = None
        elif kind == EV.PREEMPT and begin is not None:
            segments.append((begin[0], t, begin[1], int(ev["arg0"])))
            begin = None
        elif kind == EV.RESUME and begin is None:
            begin = (t, int(ev["arg0"]))
        elif kind == EV.COMPLETE:
            if begin is not None:
                segments.append((begin[0], t, begin[1], cpu))
            begin = None
    return [s for s in segments if s[1] >= s[0]]


def service_segments(trace: Trace) -> list[tuple[str, int, int, int, int, int, int]]:
    """Every service of every server stream (task_id -1 with RPC events), in order:
    (server, begin_ns, end_ns, begin_cpu, end_cpu, client task index, client job)."""
    out = []
    for stream in trace.streams:
        if stream["task_id"] >= 0:
            continue
        events = trace.events_of(int(stream["stream_id"]))
        begin = None
        for ev in events[(events["type"] == EV.RPC_SERVE_START) | (events["type"] == EV.RPC_SERVE_END)]:
            if int(ev["type"]) == EV.RPC_SERVE_START:
                begin = ev
            elif begin is not None:
                out.append((str(stream["name"]), int(begin["time_ns"]), int(ev["time_ns"]), int(begin["cpu"]),
                            int(ev["cpu"]), int(ev["arg0"]), int(ev["job"])))
                begin = None
    return out


def _us(t_ns: int, t0: int) -> float:
    return round((t_ns - t0) / 1000.0, 3)


def _slice(name: str, cat: str, tid: int, begin: int, end: int, t0: int, args: dict[str, Any]) -> dict[str, Any]:
    return {"ph": "X", "name": name, "cat": cat, "pid": TASKS_PID, "tid": tid, "ts": _us(begin, t0),
            "dur": round((end - begin) / 1000.0, 3), "args": args}


def _prem_slices(trace: Trace, task: str, tid: int, t0: int) -> list[dict[str, Any]]:
    """PREM slices on a task's track, nested in its job's: each interval's memory phase (from the
    interval's start: its gate wait included) and execution phase (to the end of its padding), and a
    peripheral's run spans."""
    out = []
    for row in prem_intervals(trace, task):
        args = {"interval": int(row["index"]), "padding_us": int(row["padding"]) / 1000.0,
                "involuntary_switches": int(row["switches"])}
        out.append(_slice("memory phase", "prem", tid, int(row["start"]), int(row["execution"]), t0, args))
        out.append(_slice("execution phase", "prem", tid, int(row["execution"]), int(row["end"]), t0, args))
    for begin, end in gate_spans(trace, task).tolist():
        out.append(_slice("run (gate open)", "gate", tid, begin, end, t0, {}))
    return out


def perfetto_trace(table: JobTable, trace: Trace) -> dict[str, Any]:
    t0 = table.t0_ns
    out: list[dict[str, Any]] = [
        {"ph": "M", "name": "process_name", "pid": TASKS_PID, "tid": 0, "args": {"name": "tasks"}},
        {"ph": "M", "name": "process_sort_index", "pid": TASKS_PID, "tid": 0, "args": {"sort_index": 1}},
        {"ph": "M", "name": "process_name", "pid": CPUS_PID, "tid": 0, "args": {"name": "CPUs"}},
        {"ph": "M", "name": "process_sort_index", "pid": CPUS_PID, "tid": 0, "args": {"sort_index": 2}},
    ]
    completed = {(int(j["task"]), int(j["job"])): j for j in table.jobs}
    cpu_slices: dict[int, list[tuple[int, int, str, dict[str, Any]]]] = {}
    cpus_seen: set[int] = set()
    for info in table.tasks:
        tid = info.index + 1
        out.append({"ph": "M", "name": "thread_name", "pid": TASKS_PID, "tid": tid, "args": {"name": info.name}})
        out.append(
            {"ph": "M", "name": "thread_sort_index", "pid": TASKS_PID, "tid": tid, "args": {"sort_index": info.index}}
        )
        events = trace.events_of(info.stream)
        cpus_seen.update(int(c) for c in np.unique(events["cpu"]) if c < MAX_CPU)
        for ev in events:
            kind = int(ev["type"])
            name = None
            ts = int(ev["time_ns"])
            args: dict[str, Any] = {"job": int(ev["job"])}
            if kind == EV.RELEASE:
                name = "release"
                args["deadline_us"] = _us(int(ev["arg1"]), t0)
            elif kind == EV.DEADLINE_MISS:
                name = "deadline miss"
                args["tardiness_us"] = int(ev["arg1"]) / 1000.0
            elif kind == EV.BUDGET_OVERRUN:
                name = "budget overrun"
                args["budget_us"] = int(ev["arg1"]) / 1000.0
            elif kind in INSTANT_NAMES:
                name = INSTANT_NAMES[kind]
                if kind == EV.MARKER:
                    args.update(code=int(ev["arg0"]), value=int(ev["arg1"]))
                else:
                    args["object"] = int(ev["arg0"])
            if name is not None:
                out.append({"ph": "i", "s": "t", "name": name, "cat": "event", "pid": TASKS_PID, "tid": tid,
                            "ts": _us(ts, t0), "args": args})
        jobs_of_task = events[events["job"] > 0]
        order = np.argsort(jobs_of_task["job"], kind="stable")
        numbers, starts = np.unique(jobs_of_task["job"][order], return_index=True)
        bounds = list(starts) + [len(order)]
        for k, number in enumerate(numbers.tolist()):
            job = completed.get((info.index, number))
            if job is None:
                continue
            label = f"{info.name} #{number}"
            job_args = {
                "job": number,
                "release_us": _us(int(job["release"]), t0),
                "deadline_us": _us(int(job["deadline"]), t0),
                "response_us": int(job["response"]) / 1000.0,
                "missed": bool(job["missed"]),
            }
            for begin, end, begin_cpu, end_cpu in job_segments(jobs_of_task[order[bounds[k] : bounds[k + 1]]]):
                out.append({"ph": "X", "name": label, "cat": "job", "pid": TASKS_PID, "tid": tid,
                            "ts": _us(begin, t0), "dur": round((end - begin) / 1000.0, 3), "args": job_args})
                if begin_cpu == end_cpu and begin_cpu < MAX_CPU:
                    cpu_slices.setdefault(begin_cpu, []).append((begin, end, label, job_args))
                else:
                    cpu_slices.setdefault(-1, []).append((begin, end, label, job_args))
    for info in table.tasks:
        out += _prem_slices(trace, info.name, info.index + 1, t0)
    names = {info.index: info.name for info in table.tasks}
    services = service_segments(trace)
    servers = sorted({s[0] for s in services})
    for k, server in enumerate(servers):
        tid = len(table.tasks) + k + 1
        out.append({"ph": "M", "name": "thread_name", "pid": TASKS_PID, "tid": tid, "args": {"name": server}})
        out.append({"ph": "M", "name": "thread_sort_index", "pid": TASKS_PID, "tid": tid,
                    "args": {"sort_index": len(table.tasks) + k}})
    for server, begin, end, begin_cpu, end_cpu, client, job in services:
        label = f"{server} for {names.get(client, client)} #{job}"
        args = {"client": names.get(client, client), "job": job}
        out.append({"ph": "X", "name": label, "cat": "service", "pid": TASKS_PID,
                    "tid": len(table.tasks) + servers.index(server) + 1,
                    "ts": _us(begin, t0), "dur": round((end - begin) / 1000.0, 3), "args": args})
        cpus_seen.update(c for c in (begin_cpu, end_cpu) if c < MAX_CPU)
        cpu = begin_cpu if begin_cpu == end_cpu and begin_cpu < MAX_CPU else -1
        cpu_slices.setdefault(cpu, []).append((begin, end, label, args))
    left_off = len(cpu_slices.pop(-1, []))
    for cpu in sorted(set(cpu_slices) | cpus_seen):
        out.append({"ph": "M", "name": "thread_name", "pid": CPUS_PID, "tid": cpu + 1, "args": {"name": f"CPU {cpu}"}})
        out.append({"ph": "M", "name": "thread_sort_index", "pid": CPUS_PID, "tid": cpu + 1, "args": {"sort_index": cpu}})
        stack: list[int] = []  # end times of the open slices
        for begin, end, label, job_args in sorted(cpu_slices.get(cpu, []), key=lambda s: (s[0], -s[1])):
            while stack and stack[-1] <= begin:
                stack.pop()
            if stack and end > stack[-1]:
                left_off += 1  # would overlap without nesting
                continue
            stack.append(end)
            out.append({"ph": "X", "name": label, "cat": "job", "pid": CPUS_PID, "tid": cpu + 1,
                        "ts": _us(begin, t0), "dur": round((end - begin) / 1000.0, 3), "args": job_args})
    return {
        "traceEvents": out,
        "displayTimeUnit": "ns",
        "otherData": {
            "taskset": table.name,
            "t0_ns": t0,
            "duration_ns": table.duration_ns,
            "lost_events": table.lost_total,
            "cpu_track_slices_left_off": left_off,
        },
    }


def write_perfetto(table: JobTable, trace: Trace, path: str | Path) -> dict[str, Any]:
    doc = perfetto_trace(table, trace)
    write_text(Path(path), json.dumps(doc, separators=(",", ":")))
    return doc

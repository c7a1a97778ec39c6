"""An rt-app file run by rtsched beside the same file run by real rt-app: per rt-app thread, jobs,
period, run time and response side by side (``rtsched run FILE --compare-rtapp PATH``).

    comparison = compare_rtapp_runs(result, rtapp_run, origins)
    comparison.rows[0].rtsched.response_mean_ns, comparison.rows[0].ratio("response")

One row per thread rt-app ran (each instance and fork its own, named as rt-app names it:
``thread0-0``), beside the rtsched tasks imported from it (``origins``: task -> (thread,
instance), ``rtsched.model.rtapp.importer.rtapp_task_threads``). A *job* is one loop of the
thread's events: one rt-app log row, or, for a thread whose phases have no timer (one rtsched
task runs them all as one loop), as many rows as the phases' loops add up to. The figures, the
same way on both sides:

- jobs: the loops that ended by half a period before the end of the run. rt-app logs a loop
  when it ends, after the timer (or the trailing sleeps) that follows the body, and cancels
  its threads at the end, so a loop whose timer fires at the very end is a toss-up (its
  wake-up races the end): both sides count the loops that ended by the end less half the
  thread's period P (its tasks' longest), so that the toss-up is never counted. rtsched's end
  of a loop is its job's release plus P, from its t0; rt-app's, the logged end of the loop's
  last row, from rt-app's t0 (``rtapp_t0_us``). The figures below are over these jobs;
- period: the mean time between the starts of consecutive jobs (rtsched: the jobs' first
  instructions; rt-app: the logged loop starts);
- run: rtsched, the job's CPU time; rt-app, the wall-clock time of its ``run``/``runtime``
  events (its ``run`` column): equal while nothing preempts the thread. Beside it, *asked*: the
  runs the file asks per job (rt-app's ``c_duration``; the rtsched task's compute). rt-app's
  ``run`` is a count of loops calibrated once at its start (``pLoad``, whole ns per loop): it
  lasts longer or shorter than asked as the CPU runs slower or faster than at calibration
  (``--rtapp-runtime`` runs it as a ``runtime`` event instead, a time);
- response: from the job's nominal release to the end of its body. rtsched's own; for
  rt-app, a loop ending with a timer: ``c_period - slack`` (the timer's expiry is the next
  release, and ``slack`` is how long before it the body ended), but for a thread's first loop,
  from the loop's start (rt-app's first timer counts from the start of the whole run, which a
  forked thread started after: its first loop finds that timer expired long ago, and rtsched
  releases its first job at the fork); a loop without a timer:
  the loop's length less its leading and trailing sleeps (the rtsched task's period less its
  body's runs and sleeps), so its release is where its leading sleep should have ended.
  A loop that starts on its timer: not compared (rt-app logs no time at which its body starts).

Beside them, rt-app's *late loops*: those whose body ended after their timer had expired
(negative ``slack``). In rt-app's default ``relative`` timer mode each one moves the thread's
later releases that late, off the grid that rtsched keeps (and off the other threads'): a
thread whose first loop starts late (rt-app starts its threads one by one, each locking its
pages first) runs shifted from then on, which explains most responses that differ.

Target (issue 32): job counts equal, mean period and run time within 5 %, mean response within
10 % (``ThreadRow.meets``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rtsched.model import TaskSet
from rtsched.model.model import Compute, Sleep
from rtsched.model.rtapp import event_kind
from rtsched.outputs import write_text
from rtsched.pipeline.result import Result
from rtsched.report import JobTable
from rtsched.run.rtapp import RtAppRun
from rtsched.trace.rtapp_log import RtAppRow

__all__ = ["FIGURES", "TARGET_SHARE", "Figures", "RtAppComparison", "ThreadRow", "compare_rtapp_runs",
           "rows_per_job", "rtapp_figures", "rtapp_t0_us", "rtsched_figures", "write_rtapp_comparison"]

#: The figures compared, and how far rtsched's may be from rt-app's (a share of rt-app's).
TARGET_SHARE: dict[str, float] = {"period": 0.05, "run": 0.05, "response": 0.10}
FIGURES: tuple[str, ...] = ("period", "run", "response")
US = 1000


@dataclass(frozen=True)
class Figures:
    """One side's figures for one thread (ns; None: fewer than two jobs for a period, or not
    measured); ``asked_run_mean_ns``: the runs the file asks per job."""

    jobs: int
    period_mean_ns: float | None
    run_mean_ns: float | None
    response_mean_ns: float | None
    asked_run_mean_ns: float | None = None
    late_loops: int = 0          # rt-app: loops whose body ended after their timer's expiry (slack < 0)
    late_total_ns: int = 0       # how late, in all: in rt-app's relative mode, how far the releases moved
    run_min_ns: float | None = None  # the shortest run: near asked when calibration (rt-app) is right

    def mean_ns(self, figure: str) -> float | None:
        value: float | None = getattr(self, f"{figure}_mean_ns")
        return value

    def as_dict(self) -> dict[str, Any]:
        return {"jobs": self.jobs, **{f"{f}_mean_ns": _round(self.mean_ns(f)) for f in FIGURES},
                "asked_run_mean_ns": _round(self.asked_run_mean_ns), "run_min_ns": _round(self.run_min_ns),
                "late_loops": self.late_loops,
                "late_total_ns": self.late_total_ns}


@dataclass(frozen=True)
class ThreadRow:
    """One thread rt-app ran, beside the rtsched tasks imported from it."""

    thread: str                 # rt-app's name of it (thread-index[-fork])
    tasks: tuple[str, ...]      # rtsched's tasks of it, in set order
    rtapp: Figures
    rtsched: Figures

    def ratio(self, figure: str) -> float | None:
        """rtsched's mean over rt-app's (None when either is missing or rt-app's is 0)."""
        ours, theirs = self.rtsched.mean_ns(figure), self.rtapp.mean_ns(figure)
        return None if ours is None or not theirs else ours / theirs

    def within(self, figure: str) -> bool | None:
        """Whether rtsched's mean is within the target share of rt-app's (None: not compared)."""
        ratio = self.ratio(figure)
        return None if ratio is None else abs(ratio - 1) <= TARGET_SHARE[figure]

    @property
    def meets(self) -> bool:
        """Equal job counts, and every figure compared within its target share."""
        return self.rtapp.jobs == self.rtsched.jobs and all(self.within(f) is not False for f in FIGURES)

    def as_dict(self) -> dict[str, Any]:
        return {"thread": self.thread, "tasks": list(self.tasks), "rtapp": self.rtapp.as_dict(),
                "rtsched": self.rtsched.as_dict(),
                "ratio": {f: None if (r := self.ratio(f)) is None else round(r, 4) for f in FIGURES},
                "meets_target": self.meets}


@dataclass(frozen=True)
class RtAppComparison:
    """rtsched's run (``run``) beside rt-app's (``rtapp``) of one file, per rt-app thread;
    ``unmatched``: threads rt-app logged with no rtsched task (a launcher of forks), and
    rtsched tasks with no rt-app log; ``files``: the comparison's own (compare-rtapp.json)."""

    taskset: TaskSet
    run: Result
    rtapp: RtAppRun
    rows: tuple[ThreadRow, ...]
    unmatched: tuple[str, ...]
    out_dir: Path
    files: dict[str, Path]

    def as_dict(self) -> dict[str, Any]:
        return {"format": "rtsched-rtapp-compare/1", "name": self.taskset.name,
                "duration_s": self.rtapp.duration_s, "rtapp": self.rtapp.version,
                "rtapp_ns_per_loop": self.rtapp.ns_per_loop, "rtapp_steal_ns": self.rtapp.steal_ns,
                "rtapp_runs_as_runtime": self.rtapp.runs_as_runtime,
                "target_share": TARGET_SHARE, "rows": [r.as_dict() for r in self.rows],
                "unmatched": list(self.unmatched),
                "runs": {"rtsched": str(self.run.out_dir), "rtapp": str(self.rtapp.out_dir)}}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _mean(values: Any) -> float | None:
    return float(np.mean(values)) if len(values) else None


def rows_per_job(thread: Mapping[str, Any]) -> int:
    """How many rt-app log rows one rtsched job of ``thread`` (plain JSON) covers: the phases'
    loops added up for phases without a timer, or whose only timer starts the first (rtsched
    runs them as one loop, docs/from-rtapp.md); otherwise one."""
    phases = thread.get("phases")
    if not isinstance(phases, dict) or len(phases) < 2:
        return 1
    events = [[k for k in p if event_kind(k)] if isinstance(p, dict) else [] for p in phases.values()]
    timers = [k for keys in events for k in keys if event_kind(k) == "timer"]
    first = events[0]
    starts_on_timer = len(timers) == 1 and bool(first) and event_kind(first[0]) == "timer"
    if timers and not starts_on_timer:
        return 1
    return sum(p.get("loop", 1) if isinstance(p, dict) and isinstance(p.get("loop", 1), int) else 1
               for p in phases.values())


def _sleeps_around_ns(taskset: TaskSet, tasks: tuple[str, ...]) -> int | None:
    """A self-paced task's leading and trailing sleeps: its period less its body's runs and sleeps."""
    if len(tasks) != 1 or taskset.task(tasks[0]).kind != "self-paced":
        return None
    task = taskset.task(tasks[0])
    return task.period_ns - sum(a.ns for a in task.body if isinstance(a, (Compute, Sleep)))


def rtapp_figures(rows: tuple[RtAppRow, ...], per_job: int, sleeps_around_ns: int | None,
                  until_us: int | None = None) -> Figures:
    """rt-app's figures of one thread's log (see the module doc): the jobs that ended by
    ``until_us`` (CLOCK_MONOTONIC, µs; None: all), each of ``per_job`` rows (a last job cut by the
    end of the run is left out). A thread with timers: its rows without one are pauses (a phase of
    sleeps only, which rtsched imports as no task), left out."""
    if per_job == 1 and any(r.c_period_us for r in rows):
        rows = tuple(r for r in rows if r.c_period_us)
    jobs = [rows[i:i + per_job] for i in range(0, len(rows) - len(rows) % per_job, per_job)]
    jobs = [job for job in jobs if until_us is None or job[-1].end_us <= until_us]
    rows = tuple(r for job in jobs for r in job)
    starts = np.array([job[0].start_us for job in jobs], dtype=np.int64) * US
    responses: list[int] | None
    if per_job == 1 and jobs and all(job[0].c_period_us for job in jobs):
        first = jobs[0][0]  # its body ended where it went to sleep (end less the sleep and the wake-up's lateness)
        responses = [(first.end_us - max(first.slack_us, 0) - first.wakeup_latency_us - first.start_us) * US]
        responses += [(job[0].c_period_us - job[0].slack_us) * US for job in jobs[1:]]
    elif sleeps_around_ns is not None and not any(r.c_period_us for r in rows):
        responses = [(job[-1].end_us - job[0].start_us) * US - sleeps_around_ns for job in jobs]
    else:
        responses = None
    return Figures(len(jobs), _mean(np.diff(starts)),
                   _mean([sum(r.run_us for r in job) * US for job in jobs]),
                   None if responses is None else _mean(responses),
                   _mean([sum(r.c_duration_us for r in job) * US for job in jobs]),
                   sum(1 for r in rows if r.c_period_us and r.slack_us < 0),
                   -sum(r.slack_us for r in rows if r.c_period_us and r.slack_us < 0) * US,
                   min((float(sum(r.run_us for r in job) * US) for job in jobs), default=None))


def _loop_ns(taskset: TaskSet, tasks: tuple[str, ...]) -> int:
    """P: the longest period of an rt-app thread's tasks (a job's loop, release to next release)."""
    return max(taskset.task(name).period_ns for name in tasks)


def rtsched_figures(table: JobTable, taskset: TaskSet, tasks: tuple[str, ...]) -> Figures:
    """rtsched's figures of the jobs of ``tasks`` (the tasks of one rt-app thread) whose loop ended
    by half a period before the end of the run (see the module doc), in start order."""
    index = {t.name: t.index for t in table.tasks}
    loop_ns = _loop_ns(taskset, tasks)
    until_ns = table.t0_ns + table.duration_ns - loop_ns // 2
    parts, asked = [], []
    for name in tasks:
        if name not in index:
            continue
        task = taskset.task(name)
        rows = table.of_task(index[name])
        rows = rows[rows["release"] + loop_ns <= until_ns]
        parts.append(rows)
        asked += [task.compute_ns] * len(rows)
    jobs = np.concatenate(parts) if parts else table.jobs[:0]
    jobs = jobs[np.argsort(jobs["start"], kind="stable")]
    return Figures(len(jobs), _mean(np.diff(jobs["start"])), _mean(jobs["cpu_time"]), _mean(jobs["response"]),
                   _mean(asked), run_min_ns=float(jobs["cpu_time"].min()) if len(jobs) else None)


def _first_timer_us(row: RtAppRow) -> int:
    """When a loop's timer started counting: its expiry (the end less the wake-up's lateness, or, when
    it had expired, the body's end plus the negative slack) less its period."""
    expiry_us = row.end_us - row.wakeup_latency_us if row.slack_us > 0 else row.end_us + row.slack_us
    return expiry_us - row.c_period_us


def rtapp_t0_us(rtapp: RtAppRun) -> int:
    """rt-app's start of the threads' time (its t_zero, which it does not log): where the first
    timer of a thread whose first loop ends with one started counting, less the thread's ``delay``
    (every thread's first timer counts from t_zero plus its delay, a forked one's too); without
    such a thread, the earliest start of a first loop (rt-app starts its threads' first loops a few
    milliseconds after t_zero: they lock their pages first)."""
    origins, firsts = [], []
    for thread, logs in rtapp.logs.items():
        spec = rtapp.document["tasks"].get(thread)
        delay = spec.get("delay", 0) if isinstance(spec, dict) else 0
        for log in logs:
            if log.rows:
                firsts.append(log.rows[0].start_us)
                if log.rows[0].c_period_us and isinstance(delay, int):
                    origins.append(_first_timer_us(log.rows[0]) - delay)
    return min(origins or firsts, default=0)


def compare_rtapp_runs(run: Result, rtapp: RtAppRun, origins: Mapping[str, tuple[str, int]],
                       out_dir: Path | None = None) -> RtAppComparison:
    """rtsched's ``run`` beside ``rtapp``'s of the same file, per rt-app thread (``origins``:
    each task's rt-app thread and instance); no rows when ``run`` was interrupted before its trace."""
    taskset = run.taskset
    rows: list[ThreadRow] = []
    unmatched: list[str] = []
    matched: set[str] = set()
    table = run.table
    t0_us = rtapp_t0_us(rtapp)
    for thread, logs in rtapp.logs.items():
        if table is None:
            break
        spec = rtapp.document["tasks"][thread]
        per_job = rows_per_job(spec if isinstance(spec, dict) else {})
        for instance, log in enumerate(logs):
            tasks = tuple(t.name for t in taskset.tasks if origins.get(t.name) == (thread, instance))
            if not tasks:
                unmatched.append(f"rt-app's {log.name}: no rtsched task")
                continue
            matched.update(tasks)
            until_us = t0_us + rtapp.duration_s * 1_000_000 - _loop_ns(taskset, tasks) // 2 // US
            rows.append(ThreadRow(log.name, tasks,
                                  rtapp_figures(log.rows, per_job, _sleeps_around_ns(taskset, tasks), until_us),
                                  rtsched_figures(table, taskset, tasks)))
    unmatched += [f"rtsched's {t.name}: no rt-app log" for t in taskset.tasks
                  if t.name in origins and t.name not in matched]
    return RtAppComparison(taskset, run, rtapp, tuple(rows), tuple(unmatched),
                           out_dir if out_dir is not None else run.out_dir, {})


def write_rtapp_comparison(comparison: RtAppComparison) -> RtAppComparison:
    """``comparison`` with OUT/compare-rtapp.json written."""
    path = comparison.out_dir / "compare-rtapp.json"
    write_text(path, json.dumps(comparison.as_dict(), indent=2) + "\n")
    comparison.files["compare-rtapp.json"] = path
    return comparison

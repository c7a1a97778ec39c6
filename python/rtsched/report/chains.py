"""Observed end-to-end latencies of a set's cause-effect chains (docs/chains.md), from a trace's
jobs (RELEASE, START, COMPLETE) and, for event links, what released each job (RELEASE's cause).

Job chains follow Dürr et al. 2019. A register link takes a job's input at its start and gives
its output at its completion; an event link's job is the one its predecessor's activation
released. **Reaction time**: for each job j of the first task but its first, a cause just after
job j-1 read its input is first read by job j; the immediate forward job chain then takes, per
link, the first job of the next task that starts at or after this one completes (register), or
the job released by this one's first kept activation, or by the next kept one of a later job
(event); its length is the last job's completion minus job j-1's start. Only causes after every
task of the chain released its first job count (before, a chain task had not begun).
**Data age**: for each job of the last task, the immediate backward job chain takes, per link,
the last job of the previous task that completed at or before this one started (register), or
the job whose activation released this one (event); its length is the last job's completion
minus the first job's start. A chain with a job missing (cut by the end of the trace, an event
job released by another task) is left out.

Vectorised per link with numpy (``searchsorted`` on a task's start or completion times, which
rise with its job number): a few passes over each chain task's jobs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rtsched.analysis.results import ChainBound
from rtsched.model import TaskSet
from rtsched.model.chains import Chain
from rtsched.report.jobs import JobTable
from rtsched.trace import Trace
from rtsched.trace import EventType as EV
from rtsched.trace.events import RELEASE_BY_SHIFT, RELEASE_CAUSE_MASK, ReleaseCause

__all__ = ["ChainLatency", "chain_latencies"]


@dataclass(frozen=True, slots=True)
class ChainLatency:
    """One chain's observed reaction times and data ages (ns) beside its bounds (None: no bound given)."""

    name: str
    links: tuple[str, ...]
    reactions: int
    reaction_max_ns: int | None
    reaction_mean_ns: float | None
    ages: int
    data_age_max_ns: int | None
    data_age_mean_ns: float | None
    bound: ChainBound | None = None

    @property
    def reaction_exceeded(self) -> bool:
        return _above(self.reaction_max_ns, self.bound.reaction_ns if self.bound else None)

    @property
    def data_age_exceeded(self) -> bool:
        return _above(self.data_age_max_ns, self.bound.data_age_ns if self.bound else None)

    def as_dict(self) -> dict[str, Any]:
        bound = self.bound.to_dict() if self.bound is not None else {}
        return {**bound, "name": self.name, "links": list(self.links),
                "reactions": self.reactions, "reaction_max_ns": self.reaction_max_ns,
                "reaction_mean_ns": self.reaction_mean_ns, "reaction_exceeded": self.reaction_exceeded,
                "ages": self.ages, "data_age_max_ns": self.data_age_max_ns, "data_age_mean_ns": self.data_age_mean_ns,
                "data_age_exceeded": self.data_age_exceeded}


def _above(observed: int | None, bound: int | None) -> bool:
    return observed is not None and bound is not None and observed > bound


def chain_latencies(table: JobTable, trace: Trace, taskset: TaskSet,
                    bounds: tuple[ChainBound, ...] = ()) -> tuple[ChainLatency, ...]:
    """Every chain of ``taskset`` observed in ``table`` (its trace ``trace``), beside its bound in ``bounds``."""
    by_name = {b.name: b for b in bounds}
    index = {t.name: i for i, t in enumerate(taskset.tasks)}
    out = []
    for chain in taskset.chains:
        links = taskset.chain_links(chain)
        jobs = [_Jobs.of(table, trace, index[n]) for n in chain.tasks]
        reaction = _reactions(jobs, links, [index[n] for n in chain.tasks])
        age = _data_ages(jobs, links, [index[n] for n in chain.tasks])
        out.append(ChainLatency(chain.name, links, len(reaction), _max(reaction), _mean(reaction),
                                len(age), _max(age), _mean(age), by_name.get(chain.name)))
    return tuple(out)


def _max(values: np.ndarray) -> int | None:
    return int(values.max()) if len(values) else None


def _mean(values: np.ndarray) -> float | None:
    return float(values.mean()) if len(values) else None


@dataclass(frozen=True)
class _Jobs:
    """One task's completed jobs, by job number: job, release, start, completion, and for each
    the task index of what activated it (-1: not an activation)."""

    job: np.ndarray
    release: np.ndarray
    start: np.ndarray
    completion: np.ndarray
    activated_by: np.ndarray

    @classmethod
    def of(cls, table: JobTable, trace: Trace, task: int) -> _Jobs:
        rows = table.of_task(task)
        rows = rows[np.argsort(rows["job"], kind="stable")]
        return cls(rows["job"].astype(np.int64), rows["release"], rows["start"], rows["completion"],
                   _activators(trace, task, rows["job"]))

    def activator_rows(self, before: _Jobs, by_task: int) -> np.ndarray:
        """For each of these jobs, the row in ``before`` (task ``by_task``) of the job whose activation
        released it: the one running at the release (started at or before it, completed at or after); -1: none."""
        rows = np.searchsorted(before.start, self.release, side="right") - 1
        ok = (self.activated_by == by_task) & (rows >= 0)
        ok &= before.completion[np.clip(rows, 0, None)] >= self.release if len(before.start) else False
        return np.where(ok, rows, -1)


def _activators(trace: Trace, task: int, jobs: np.ndarray) -> np.ndarray:
    """The activating task's index of each of ``jobs`` (-1: released otherwise, or not recorded)."""
    out = np.full(len(jobs), -1, dtype=np.int64)
    try:
        stream = int(trace.stream_of_task(task)["stream_id"])
    except KeyError:
        return out
    events = trace.events_of(stream)
    releases = events[events["type"] == EV.RELEASE]
    cause = releases["arg0"].astype(np.int64)
    activated = (cause & RELEASE_CAUSE_MASK) == ReleaseCause.ACTIVATION
    by = np.where(activated, (cause >> RELEASE_BY_SHIFT) - 1, -1)
    order = np.argsort(releases["job"], kind="stable")
    numbers, by = releases["job"][order].astype(np.int64), by[order]
    at = np.searchsorted(numbers, jobs)
    found = (at < len(numbers)) & (numbers[np.clip(at, 0, max(len(numbers) - 1, 0))] == jobs) if len(numbers) else \
        np.zeros(len(jobs), dtype=bool)
    out[found] = by[at[found]]
    return out


def _reactions(jobs: list[_Jobs], links: tuple[str, ...], tasks: list[int]) -> np.ndarray:
    first = jobs[0]
    if any(len(j.job) == 0 for j in jobs) or len(first.job) < 2:
        return np.zeros(0, dtype=np.int64)
    steady = max(int(j.release.min()) for j in jobs)
    cause = first.start[:-1]
    rows = np.arange(1, len(first.job))
    ok = (first.job[1:] - first.job[:-1] == 1) & (cause >= steady)
    for i, link in enumerate(links):
        before, after = jobs[i], jobs[i + 1]
        if link == "event":
            activators = after.activator_rows(before, tasks[i])
            kept = np.flatnonzero(activators >= 0)
            at = np.searchsorted(activators[kept], rows, side="left")
            ok &= at < len(kept)
            rows = kept[np.clip(at, 0, max(len(kept) - 1, 0))] if len(kept) else np.zeros_like(rows)
        else:
            at = np.searchsorted(after.start, before.completion[rows], side="left")
            ok &= at < len(after.start)
            rows = np.clip(at, 0, len(after.start) - 1)
    reactions: np.ndarray = (jobs[-1].completion[rows] - cause)[ok]
    return reactions


def _data_ages(jobs: list[_Jobs], links: tuple[str, ...], tasks: list[int]) -> np.ndarray:
    last = jobs[-1]
    if any(len(j.job) == 0 for j in jobs):
        return np.zeros(0, dtype=np.int64)
    rows = np.arange(len(last.job))
    ok = np.ones(len(rows), dtype=bool)
    for i in range(len(links) - 1, -1, -1):
        before, after = jobs[i], jobs[i + 1]
        if links[i] == "event":
            rows = after.activator_rows(before, tasks[i])[rows]
        else:
            rows = np.searchsorted(before.completion, after.start[rows], side="right") - 1
        ok &= rows >= 0
        rows = np.clip(rows, 0, None)
    ages: np.ndarray = (last.completion - jobs[0].start[rows])[ok]
    return ages

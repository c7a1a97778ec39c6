"""End-to-end bounds of cause-effect chains (docs/chains.md): the maximum reaction time and the
maximum data age of each chain of a set, from the per-task response-time bounds an analysis
already computed (an ``AnalysisResult``: never recomputed here).

    from rtsched.analysis import bounds_for
    from rtsched.analysis.chains import chain_bounds
    for c in chain_bounds(taskset, bounds_for(taskset)):
        c.name, c.reaction_ns, c.data_age_ns, c.davare_ns

Notation, per task i of a chain 1..n: R_i its response-time bound (release to completion),
M_i the longest gap between two of its releases (periodic: its period; sporadic: the period plus
the largest extra; self-paced: max(period, R_i), as its next job comes at its completion or its
least gap; event: M_a + R_a of its one activator a, whose every activation it keeps), J the release jitter the bounds count (a run's release latency; 0 in a
simulation). Jobs of a task run in release order. Both bounds are sums over the chain, anchored
on the releases of the jobs of a job chain (Dürr et al. 2019's immediate forward / backward job
chains; docs/chains.md gives each step's proof):

    reaction ≤ M_1 + Σ_{i<n} forward_i + R_n        data age ≤ Σ_{i<n} backward_i + R_n

    link i → i+1          forward_i                          backward_i
    register, general     R_i + M_{i+1}                      M_i + R_i            (Davare et al. 2007)
    register, i ahead     min(R_i, lead_i) + M_{i+1}         M_i + min(R_i, lag_i)
    event                 R_i                                R_i

"i ahead" is the case where a job of task i, once released, keeps every later job of i+1 from
starting until it completes: both on one CPU (a one-CPU partition, or a one-CPU platform), task
i ready from its release until its completion (a body of compute, memwrite and activate only; no
reservation; no PREM task or peripheral in the set) and, under FP, a strictly higher priority (lead = lag = J: Dürr et al. 2019's
same-ECU case, with their max(R_i, M_{i+1}) tightened to M_{i+1}); under EDF, lead = max(J,
D_i - D_{i+1}) and lag = max(J, R_{i+1} - D_{i+1} + D_i), the release offsets past which i's job
has the earlier deadline. An event link needs every activation of i+1 kept (floor(R_{i+1} / T_{i+1}) earlier jobs may be
unfinished, none started: fewer than its activation_queue, or none) and i+1's activations at
least its period apart (its bound assumes it): i+1 activated by i alone, once per job, and
T_i - R_i ≥ T_{i+1}. Where anything is missing the chain's bound is None with the reason.
"""

from __future__ import annotations

from rtsched.analysis.results import AnalysisResult, ChainBound
from rtsched.model import TaskSet
from rtsched.model.chains import Chain
from rtsched.model.model import Activate, Compute, MemWrite, Task

__all__ = ["chain_bounds", "chain_bound"]

#: Body actions during which a released job stays ready: it never waits for anything but the CPU.
_READY_ACTIONS = (Compute, MemWrite, Activate)


class _NoBound(Exception):
    """A figure a bound needs is missing; the message says which and why."""


def chain_bounds(taskset: TaskSet, analysis: AnalysisResult, *, release_jitter_ns: int = 0) -> tuple[ChainBound, ...]:
    """The bounds of every chain of ``taskset``, from ``analysis``'s per-task bounds (the same set's);
    ``release_jitter_ns``: how late a released job may become ready (the release latency the
    bounds count; 0 in a simulation)."""
    return tuple(chain_bound(taskset, c, analysis, release_jitter_ns=release_jitter_ns) for c in taskset.chains)


def chain_bound(taskset: TaskSet, chain: Chain, analysis: AnalysisResult, *,
                release_jitter_ns: int = 0) -> ChainBound:
    tasks = [taskset.task(n) for n in chain.tasks]
    links = taskset.chain_links(chain)
    figures = _Figures(taskset, analysis, release_jitter_ns)
    reaction, reaction_reason = _attempt(lambda: _reaction(figures, tasks, links))
    age, age_reason = _attempt(lambda: _data_age(figures, tasks, links))
    davare, _ = _attempt(lambda: _davare(figures, tasks, links))
    return ChainBound(chain.name, links, reaction, age, reaction_reason, age_reason, davare)


def _attempt(compute) -> tuple[int | None, str]:  # type: ignore[no-untyped-def]
    try:
        return compute(), ""
    except _NoBound as why:
        return None, str(why)


class _Figures:
    """R, M and the link conditions of one set's tasks, each read from the analysis or the model."""

    def __init__(self, taskset: TaskSet, analysis: AnalysisResult, jitter_ns: int) -> None:
        self.taskset = taskset
        self.analysis = analysis
        self.jitter_ns = jitter_ns
        self._visiting: set[str] = set()  # event tasks whose activator is being checked (a cycle guard)

    def response(self, task: Task) -> int:
        """R: ``task``'s bound; an event task's only where its activations keep to its period."""
        try:
            bound = self.analysis.task(task.name)
        except KeyError:
            raise _NoBound(f"{task.name} is not analysed ({'SCHED_OTHER' if task.is_background else 'left out'} "
                           f"by {self.analysis.test})") from None
        if bound.bound_ns is None:
            raise _NoBound(f"{task.name} has no response-time bound ({self.analysis.test}: {bound.reason or bound.verdict})")
        if task.kind == "event":
            self._spaced(task)
        return bound.bound_ns

    def longest_gap(self, task: Task) -> int:
        """M: the longest time between two consecutive releases of ``task``."""
        if task.kind == "event":  # every activation kept: the next comes within its activator's gap and response
            activator = self._activator(task)
            self._kept(task)
            return self.longest_gap(activator) + self.response(activator)
        if task.kind == "self-paced":
            return max(task.period_ns, self.response(task))
        return task.period_ns + (task.sporadic.max_extra_ns if task.sporadic is not None else 0)

    def _activator(self, b: Task) -> Task:
        """The one task that activates event task ``b``, once per job."""
        activators = [t for t in self.taskset.tasks if t.activates(b.name)]
        if len(activators) != 1:
            raise _NoBound(f"{b.name} is an event task activated by {', '.join(t.name for t in activators) or 'no task'}"
                           ": only one activator tells how far apart its activations come")
        a = activators[0]
        ops = sum(isinstance(x, Activate) and x.task == b.name for x in a.body)
        if ops != 1:
            raise _NoBound(f"{a.name} activates {b.name} {ops} times a job: its activations' least gap is not known")
        return a

    def _spaced(self, b: Task) -> None:
        """Event task ``b``'s activations come at least its period apart (its bound assumes it)."""
        if b.name in self._visiting:
            raise _NoBound(f"{b.name} is activated in a cycle of event tasks: no timer paces it")
        self._visiting.add(b.name)
        try:
            a = self._activator(b)
            r_a = self.response(a)
        finally:
            self._visiting.discard(b.name)
        if a.period_ns - r_a < b.period_ns:
            raise _NoBound(f"{a.name}'s activations of {b.name} may come {_ms(a.period_ns - r_a)} ms apart "
                           f"(its period minus its bound), less than {b.name}'s period {_ms(b.period_ns)} ms, "
                           "which its bound assumes")

    def _kept(self, b: Task) -> None:
        """No activation of event task ``b`` is lost. One that comes finds at most floor(R_b / T_b) earlier
        jobs unfinished (any of them perhaps not started); it is kept when none is (queue 0: the task
        waits), or when fewer than ``activation_queue`` have not started (the library's and the
        simulator's rule), so floor(R_b / T_b) must stay below the queue, or be 0."""
        r_b = self.response(b)
        unfinished = r_b // b.period_ns
        if unfinished > max(b.activation_queue - 1, 0):
            raise _NoBound(f"{b.name} may have {unfinished} activations not started when one comes (bound "
                           f"{_ms(r_b)} ms, period {_ms(b.period_ns)} ms) and keeps {b.activation_queue}: "
                           "an activation may be lost")

    def one_cpu(self, a: Task, b: Task) -> bool:
        """Whether ``a`` and ``b`` share one CPU and nothing else runs them."""
        platform = self.taskset.platform
        if platform.partitions == ():  # global
            return platform.cpus is not None and len(platform.cpus) == 1
        if a.partition is None or a.partition != b.partition:
            return False
        if platform.partitions is None:  # one partition per CPU
            return True
        return any(p.name == a.partition and len(p.cpus) == 1 for p in platform.partitions)

    def ahead(self, a: Task, b: Task) -> bool:
        """Whether a released job of ``a`` keeps later jobs of ``b`` from starting (before the EDF offsets)."""
        if not self.one_cpu(a, b) or a.reservation is not None or b.reservation is not None:
            return False
        if a.is_background or b.is_background or not all(isinstance(x, _READY_ACTIONS) for x in a.body):
            return False
        if any(t.prem_intervals or t.peripheral_buffer_bytes is not None for t in self.taskset.tasks):
            return False  # PREM's start gate and peripherals' memory-phase holds are not ordered by priority
        if self.taskset.platform.is_fp:
            return a.priority is not None and b.priority is not None and a.priority > b.priority
        return self.taskset.platform.is_edf

    def lead(self, a: Task, b: Task) -> int:
        """How long after a job of ``a`` is released a job of ``b`` released later cannot start before it completes."""
        if self.taskset.platform.is_fp:
            return self.jitter_ns
        return max(self.jitter_ns, a.deadline_ns - b.deadline_ns)

    def lag(self, a: Task, b: Task) -> int:
        """How long before a job of ``b`` starts every job of ``a`` released earlier has completed."""
        if self.taskset.platform.is_fp:
            return self.jitter_ns
        return max(self.jitter_ns, self.response(b) - b.deadline_ns + a.deadline_ns)

    def event_latency(self, a: Task, b: Task) -> int:
        """An event link a -> b: R_a, once every activation of ``b`` is shown kept."""
        self._kept(b)
        return self.response(a)


def _reaction(f: _Figures, tasks: list[Task], links: tuple[str, ...]) -> int:
    total = f.longest_gap(tasks[0]) + f.response(tasks[-1])
    for a, b, link in zip(tasks, tasks[1:], links):
        if link == "event":
            total += f.event_latency(a, b)
        else:
            wait = min(f.response(a), f.lead(a, b)) if f.ahead(a, b) else f.response(a)
            total += wait + f.longest_gap(b)
    return total


def _data_age(f: _Figures, tasks: list[Task], links: tuple[str, ...]) -> int:
    total = f.response(tasks[-1])
    for a, b, link in zip(tasks, tasks[1:], links):
        if link == "event":
            total += f.event_latency(a, b)
        else:
            back = min(f.response(a), f.lag(a, b)) if f.ahead(a, b) else f.response(a)
            total += f.longest_gap(a) + back
    return total


def _davare(f: _Figures, tasks: list[Task], links: tuple[str, ...]) -> int:
    if "event" in links:
        raise _NoBound("Davare et al.'s sum is for register links")
    return sum(f.longest_gap(t) + f.response(t) for t in tasks)


def _ms(ns: int) -> str:
    return f"{ns / 1e6:g}"

"""``simulate_dvfs``: one simulated run of an EDF set under a DVFS policy, its trace and energy.

    from rtsched.sim import SimOptions
    from rtsched.sim.dvfs_run import simulate_dvfs, compare_policies
    run = simulate_dvfs(taskset, SimOptions(exec_low_ppm=500_000), "cc-edf", trace_path="t.rtst")
    run.energy_pj, run.misses, run.choices
    runs = compare_policies(taskset, options)   # every policy, the baseline first, the same draws

Uniprocessor EDF (G-EDF on one CPU) or P-EDF with one CPU per partition: each
CPU is simulated on its own (``dvfs_engine.run_cpu``), with its own policy and
frequency. The execution-time draws are the main engine's (the same seed gives
every policy, and ``rtsched sim`` without ``--dvfs``, the same actual times).
The trace has a stream per task, then ``cpufreq`` (FREQ_CHANGE events) and,
with τ0, ``tau0``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from rtsched.model import Compute, Task, TaskSet
from rtsched.model.power import PowerModel
from rtsched.sim.draws import ExecutionTimes, demand_streams
from rtsched.sim.dvfs_engine import Choice, CpuResult, DvfsTaskStream, JobWork, run_cpu
from rtsched.sim.dvfs_policies import POLICIES, PolicyTask, make_policy
from rtsched.sim.options import DEFAULT_DURATION_NS, SimOptions
from rtsched.sim.simulate import sim_placement
from rtsched.sim.support import SimUnsupported
from rtsched.sim.threads import TID_BASE
from rtsched.sim.trace_writer import write_sim_trace

__all__ = ["DvfsRun", "dvfs_problems", "simulate_dvfs", "compare_policies"]


@dataclass(frozen=True)
class DvfsRun:
    """One policy's run: energy (pJ, exact), deadline misses, the policy's every choice."""

    policy: str
    tau0: bool
    segments: bool
    duration_ns: int
    cpus: tuple[CpuResult, ...]
    trace_path: Path | None

    @property
    def energy_pj(self) -> Fraction:
        return sum((c.energy_pj for c in self.cpus), Fraction(0))

    @property
    def misses(self) -> int:
        return sum(c.misses for c in self.cpus)

    @property
    def jobs_completed(self) -> int:
        return sum(c.jobs_completed for c in self.cpus)

    @property
    def tau0_work_ns(self) -> Fraction:
        return sum((c.tau0_work_ns for c in self.cpus), Fraction(0))

    @property
    def choices(self) -> tuple[Choice, ...]:
        return tuple(ch for c in self.cpus for ch in c.choices)

    def mean_frequency_mhz(self) -> Fraction:
        """Time-weighted over every CPU and the whole run."""
        total = sum((t for c in self.cpus for t in c.residency_ns.values()), Fraction(0))
        weighted = sum((mhz * t for c in self.cpus for mhz, t in c.residency_ns.items()), Fraction(0))
        return weighted / total if total else Fraction(0)


def dvfs_problems(taskset: TaskSet, policy: str) -> list[str]:
    """Why the set cannot run under a DVFS policy, each with its path (empty: it can)."""
    problems: list[str] = []
    platform = taskset.platform
    if platform.dvfs is None:
        problems.append("platform.dvfs: missing: a DVFS policy needs the CPUs' operating points and power "
                        "model (docs/taskset.md)")
    if not platform.is_edf:
        problems.append(f"platform.scheduler: DVFS policies run EDF (P-EDF, or G-EDF on one CPU), "
                        f"not {platform.policy}")
    if platform.is_partitioned and platform.partitions:
        for i, p in enumerate(platform.partitions):
            if len(p.cpus) != 1:
                problems.append(f"platform.partitions[{i}].cpus: DVFS policies schedule one CPU per "
                                f"partition, {p.name} has {len(p.cpus)}")
    for where, what in (("resources", taskset.resources), ("condvars", taskset.condvars),
                        ("servers", taskset.servers)):
        if what:
            problems.append(f"{where}: not simulated with a DVFS policy (compute-only tasks)")
    for i, task in enumerate(taskset.tasks):
        for j, action in enumerate(task.body):
            if not isinstance(action, Compute):
                problems.append(f"tasks[{i}].body[{j}]: {action.op} is not simulated with a DVFS policy "
                                "(compute-only tasks)")
        if task.kind in ("self-paced", "event"):
            problems.append(f'tasks[{i}].kind: task "{task.name}" is {task.kind}: DVFS policies release jobs '
                            "from timers only (periodic, sporadic)")
        if task.is_background:
            problems.append(f'tasks[{i}]: task "{task.name}" has policy other; the background load of a '
                            "DVFS run is τ0 (--tau0)")
        if policy != "none" and task.deadline_ns != task.period_ns:
            problems.append(f"tasks[{i}].deadline: {policy} needs deadline = period (implicit deadlines), "
                            f'"{task.name}" has {task.deadline_ns} ns for a {task.period_ns} ns period')
    return problems


def _segments(task: Task, actual: Sequence[int], segments: bool) -> list[tuple[int, int]]:
    """A job whose computes did ``actual``: with ``segments`` each compute is a segment whose WCET
    is its length (the last one also gets what the task's WCET adds to the body's computes), else
    the job is one segment of the task's WCET."""
    if not segments:
        return [(task.wcet_ns, sum(actual))]
    lengths = [a.ns for a in task.body if isinstance(a, Compute)]
    margin = task.wcet_ns - sum(lengths)
    return [(ns + (margin if k == len(lengths) - 1 else 0), a) for k, (ns, a) in enumerate(zip(lengths, actual))]


def _drawn_work(task: Task, draws: ExecutionTimes, segments: bool) -> JobWork:
    """Each job's work: every compute drawn as the main engine draws it (``--exec-low``)."""
    return lambda: _segments(task, [draws.draw(a.ns) for a in task.body if isinstance(a, Compute)], segments)


def _scripted_work(task: Task, script: Sequence[Sequence[int]], segments: bool) -> JobWork:
    """Each job's computes' work from ``script`` in order, then the body's full lengths."""
    left = list(reversed(script))
    full = [a.ns for a in task.body if isinstance(a, Compute)]
    return lambda: _segments(task, left.pop() if left else full, segments)


def simulate_dvfs(taskset: TaskSet, options: SimOptions, policy: str, *, tau0: bool = False,
                  segments: bool = False, trace_path: str | Path | None = None,
                  actual_ns: Mapping[str, Sequence[Sequence[int]]] | None = None) -> DvfsRun:
    """Simulate ``taskset`` under ``policy`` (one of POLICIES). ``segments``: each compute of a
    body is a segment whose end tells the policy its unused WCET. ``actual_ns``: per task name, the
    actual work of each compute of its first jobs (each at most its length), as a hand-computed
    example gives them; its later jobs run their full lengths. Raises SimUnsupported naming each problem with its
    path, ValueError for an unknown policy, a duration that is not positive or a bad script."""
    if policy not in POLICIES:
        raise ValueError(f"DVFS policy: expected one of {', '.join(POLICIES)}, got {policy!r}")
    problems = dvfs_problems(taskset, policy)
    if problems:
        raise SimUnsupported(problems)
    model = taskset.platform.dvfs
    assert isinstance(model, PowerModel)
    duration = options.duration_ns or taskset.duration_ns or DEFAULT_DURATION_NS
    if duration <= 0:
        raise ValueError(f"duration: must be > 0, got {duration}ns")
    scripts = dict(actual_ns or {})
    for name, script in scripts.items():
        task = next((t for t in taskset.tasks if t.name == name), None)
        if task is None:
            raise ValueError(f"actual_ns: no task named {name!r}")
        lengths = [a.ns for a in task.body if isinstance(a, Compute)]
        for k, job in enumerate(script):
            if len(job) != len(lengths) or any(not 0 < ns <= full for ns, full in zip(job, lengths)):
                raise ValueError(f"actual_ns[{name!r}][{k}]: one work per compute, each in (0, its length], "
                                 f"for computes of {lengths} ns; got {list(job)}")
    placement = sim_placement(taskset, options)
    streams = [DvfsTaskStream(i, TID_BASE + i, t.name, t.period_ns, t.deadline_ns)
               for i, t in enumerate(taskset.tasks)]
    by_cpu: dict[int, list[int]] = {}
    for i, task in enumerate(taskset.tasks):
        cpus = placement.cpus_of(task.name)
        if len(cpus) != 1:
            raise SimUnsupported([f"tasks[{i}]: \"{task.name}\" may run on CPUs {list(cpus)}: DVFS policies "
                                  "schedule one CPU (G-EDF on one CPU, or P-EDF)"])
        by_cpu.setdefault(cpus[0], []).append(i)
    results = []
    for cpu in sorted(by_cpu):
        indices = by_cpu[cpu]
        tasks = [taskset.tasks[i] for i in indices]
        chosen = make_policy(policy, model, [PolicyTask(t.wcet_ns, t.period_ns) for t in tasks],
                             [t.offset_ns for t in tasks])
        entries = [(taskset.tasks[i], streams[i],
                    _scripted_work(taskset.tasks[i], scripts[taskset.tasks[i].name], segments)
                    if taskset.tasks[i].name in scripts
                    else _drawn_work(taskset.tasks[i], ExecutionTimes(options.seed, i, options.exec_low_ppm,
                                                                      demand_streams(taskset.tasks[i])), segments))
                   for i in indices]
        results.append(run_cpu(cpu, entries, model, chosen, duration, tau0))
    written = None
    if trace_path is not None:
        freq = DvfsTaskStream(-1, TID_BASE + len(streams), "cpufreq", 0, 0,
                              sorted(e for r in results for e in r.freq_events))
        extra = [freq]
        if tau0:
            extra.append(DvfsTaskStream(-1, TID_BASE + len(streams) + 1, "tau0", 0, 0,
                                        sorted(e for r in results for e in r.tau0_events)))
        written = write_sim_trace(trace_path, taskset.name, duration, streams + extra)
    return DvfsRun(policy, tau0, segments, duration, tuple(results), written)


def compare_policies(taskset: TaskSet, options: SimOptions, *, tau0: bool = False, segments: bool = False,
                     policies: tuple[str, ...] = POLICIES) -> tuple[DvfsRun, ...]:
    """Every policy on the same draws, in ``policies``' order (the baseline, ``none``, first)."""
    return tuple(simulate_dvfs(taskset, options, p, tau0=tau0, segments=segments) for p in policies)

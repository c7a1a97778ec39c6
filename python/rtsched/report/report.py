"""The whole report of a trace, in one call: per-job table, per-task statistics beside
the analysis' bounds, observed blocking, servers' calls, and the files (CSV, Perfetto,
plots, summary).

Anything that produces a trace (the C runner, a simulator) gets the same report:

    from rtsched.report import build_report, write_report
    report = build_report(read_trace("out/trace.rtst"), taskset, bounds_for(taskset), placement)
    report.stats[0].response_max_ns, report.summary()["deadline_misses"]
    files = write_report(report, Path("out"))      # jobs.csv, trace.pftrace, *.png

Every result is immutable; nothing is filled in after it is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rtsched.analysis.results import AnalysisResult, ChainBound
from rtsched.model import TaskSet
from rtsched.model.model import START_GATE_PROTOCOLS
from rtsched.model.placement import Placement
from rtsched.report.blocking import blocking_by_task
from rtsched.report.chains import ChainLatency, chain_latencies
from rtsched.report.excess import ExcessJob, StealSample, explain_excess
from rtsched.outputs import partial
from rtsched.report.export_csv import JobCsv
from rtsched.report.export_pftrace import PftraceWriter, write_pftrace_to
from rtsched.report.forked_writer import can_fork_a_writer, written_in_child
from rtsched.report.job_pass import PassConsumer, run_pass
from rtsched.report.activations import TaskActivations, activations_by_task
from rtsched.report.cpu_overuse import CpuOveruse, jobs_over_wcet, overuse_by_job
from rtsched.report.jobs import JobTable, ReleasePace, build_job_table
from rtsched.report.priorities import PriorityTime, priority_time
from rtsched.report.reservation_demand import ReservationDemand, reservation_demand
from rtsched.report.reservations import ReservationBudget, reservation_budgets
from rtsched.report.notable import NotableRows
from rtsched.report.stats import TaskFigures, TaskStats, bound_ns, figures_stats
from rtsched.report.prem import PeripheralSpans, PremTask, prem_summary
from rtsched.report.threads import ServerCalls, events_off_cpus, server_calls
from rtsched.trace import Trace
from rtsched.trace.kernel_sched import KernelSchedule

__all__ = ["DEFAULT_WINDOW_NS", "SUMMARY_FORMAT", "WRITE_STEPS", "Report", "build_report", "summary_dict",
           "table_writers", "write_report"]

SUMMARY_FORMAT = "rtsched-run-summary/1"
#: How many steps write_report announces to its ``progress`` at most (jobs.csv with trace.pftrace,
#: the Perfetto JSON, plots).
WRITE_STEPS = 3
#: Window of the schedule chart, ns since the release t0.
DEFAULT_WINDOW_NS = (0, 200_000_000)
#: Task events from which table_writers has trace.pftrace written by a child process beside the
#: pass (report.forked_writer; given two CPUs, from the main thread): its writer is the pass's costliest
#: consumer, a fork costs milliseconds. Measured on this 2-CPU VM (`rtsched sim` of bench_cli.py's
#: 10-task set, whole command, best of 3): 35,000 events 0.96 -> 0.85 s, 168,000 events 1.04 -> 0.96 s.
PFTRACE_CHILD_EVENTS = 1 << 15


@dataclass(frozen=True)
class Report:
    """What one trace of ``taskset`` shows, beside what ``analysis`` predicted."""

    trace: Trace
    taskset: TaskSet
    analysis: AnalysisResult
    placement: Placement
    table: JobTable
    stats: tuple[TaskStats, ...]
    servers: tuple[ServerCalls, ...]
    events_off_cpus: int
    excess: tuple[ExcessJob, ...] = ()  # every job above its bound, with what its window shows
    priorities: tuple[PriorityTime, ...] = ()  # time at each priority, where the trace records changes
    prem: tuple[PremTask, ...] = ()  # PREM tasks' intervals (docs/prem.md)
    peripherals: tuple[PeripheralSpans, ...] = ()  # peripherals' run spans against the memory phases
    reservations: tuple[ReservationBudget, ...] = ()  # budget used per period, where the trace has reservations
    demand: tuple[ReservationDemand, ...] = ()  # its tasks' CPU demand per window, per reservation
    over_wcet: tuple[CpuOveruse, ...] = ()  # jobs that used more CPU time than their WCET
    activations: tuple[TaskActivations, ...] = ()  # event tasks' activations, kept and lost
    chains: tuple[ChainLatency, ...] = ()  # cause-effect chains' observed latencies beside their bounds

    @property
    def deadline_misses(self) -> int:
        return sum(s.deadline_misses for s in self.stats)

    @property
    def bounds_exceeded(self) -> list[str]:
        return [s.task for s in self.stats if s.bound_exceeded]

    def summary(self, **producer: Any) -> dict[str, Any]:
        """The summary (summary.json): ``producer`` adds what the trace's producer knows
        (the runner: PI-CV, steal time, exit status, files). A set with PREM tasks or
        peripherals also gets ``prem`` and ``peripherals``."""
        if self.prem or self.peripherals:
            producer = {**producer, "prem": [p.as_dict() for p in self.prem],
                        "peripherals": [p.as_dict() for p in self.peripherals]}
        return summary_dict(
            self.table,
            self.stats,
            scheduler=self.taskset.platform.scheduler,
            backend=self.taskset.platform.backend,
            **producer,
            servers=[s.as_dict() for s in self.servers],
            events_off_cpus=self.events_off_cpus,
            analysis={"test": self.analysis.test, "verdict": self.analysis.verdict, "reason": self.analysis.reason},
            jobs_above_bound=[e.as_dict() for e in self.excess],
            jobs_over_wcet=[o.as_dict() for o in self.over_wcet],
            activations=[a.as_dict() for a in self.activations],
            chains=[c.as_dict() for c in self.chains],
            time_at_priority=[p.as_dict() for p in self.priorities],
            reservations=[r.as_dict() for r in self.reservations],
            reservation_demand=[d.as_dict() for d in self.demand],
        )


def summary_dict(table: JobTable, stats: list[TaskStats] | tuple[TaskStats, ...], **extra: Any) -> dict[str, Any]:
    """The summary of a job table and its statistics; ``extra`` goes in after the name and times."""
    return {
        "format": SUMMARY_FORMAT,
        "name": table.name,
        "t0_ns": table.t0_ns,
        "duration_ns": table.duration_ns,
        **extra,
        "jobs": table.completed,
        "deadline_misses": int(sum(s.deadline_misses for s in stats)),
        "budget_overruns": int(sum(s.budget_overruns for s in stats)),
        "censored_jobs": table.censored,
        "unfinished_missed_jobs": table.unfinished_missed,
        "incomplete_jobs": table.incomplete,
        "lost_events": table.lost_total,
        "bounds_exceeded": [s.task for s in stats if s.bound_exceeded],
        "tasks": [asdict(s) for s in stats],
    }




def start_waits(taskset: TaskSet) -> frozenset[str]:
    """The tasks the model itself may hold back between a job's release and its start: those in
    a reservation (out of budget), every task of a set with a job-start gate (a deferred ceiling
    protocol, or PREM's gate, which peripheral tasks wait at too). For the others only the
    platform delays a start, and the report puts an idle CPU before it down to the wake-up."""
    gated = any(r.protocol in START_GATE_PROTOCOLS and r.variant != "eager" for r in taskset.resources) or any(
        t.prem_intervals or t.peripheral_buffer_bytes is not None for t in taskset.tasks)
    return frozenset(t.name for t in taskset.tasks if gated or t.reservation is not None)


def release_paces(taskset: TaskSet) -> dict[int, ReleasePace]:
    """Task index -> its ReleasePace (build_job_table infers the releases a starved task could
    not record): the period, plus a sporadic task's largest extra gap. Left out for a self-paced or
    event task: nothing bounds the time to its next release (a completion, an activation)."""
    return {i: ReleasePace(t.period_ns + (t.sporadic.max_extra_ns if t.sporadic else 0), t.deadline_ns,
                           t.offset_ns, t.max_jobs)
            for i, t in enumerate(taskset.tasks) if t.period_ns > 0 and t.kind in ("periodic", "sporadic")}


def build_report(
    trace: Trace,
    taskset: TaskSet,
    analysis: AnalysisResult,
    placement: Placement,
    *,
    kernel: KernelSchedule | None = None,
    steal: tuple[StealSample, ...] = (),
    release_latency_in_bounds_ns: int = 0,
    simulated: bool = False,
    chain_bounds: tuple[ChainBound, ...] = (),
    writers: Sequence[PassConsumer] = (),
) -> Report:
    """The report of ``trace``, a run (or simulation) of ``taskset`` placed by ``placement``.
    The trace's task ids are indices in ``taskset.tasks``. ``kernel`` (the kernel's schedule
    of the run's CPUs) and ``steal`` (samples of host steal) explain jobs above their bounds;
    ``release_latency_in_bounds_ns``: the release latency the bounds already count (an
    overhead profile's), which a job's wait for its start is not blamed for. ``simulated``: the
    trace is a simulation's (no kernel schedule to look for). ``chain_bounds``: the set's chains'
    bounds (``rtsched.analysis.chains``), shown beside their observed latencies. ``writers``: more
    consumers of the one pass over the trace the report makes (``table_writers``: jobs.csv and
    trace.pftrace written in it)."""
    figures = TaskFigures()
    bounds = {i: b for i, t in enumerate(taskset.tasks) if (b := bound_ns(t.name, analysis)) is not None}
    notable = NotableRows(bounds, {i: t.wcet_ns for i, t in enumerate(taskset.tasks)})
    table = build_job_table(trace, release_paces(taskset), consumers=[figures, notable, *writers])
    stats = tuple(figures_stats(table.tasks, figures.by_task, analysis, blocking_by_task(trace)))
    prem, peripherals = prem_summary(trace, taskset)
    over_wcet = jobs_over_wcet(notable.table(table), [t.wcet_ns for t in taskset.tasks])
    return Report(
        trace=trace,
        taskset=taskset,
        analysis=analysis,
        placement=placement,
        table=table,
        stats=stats,
        servers=server_calls(trace, taskset),
        events_off_cpus=events_off_cpus(trace, placement),
        excess=explain_excess(notable.table(table), stats, trace, placement, kernel, steal, start_waits(taskset),
                              release_latency_in_bounds_ns, simulated, overuse_by_job(over_wcet)),
        priorities=priority_time(trace, taskset),
        prem=prem,
        peripherals=peripherals,
        reservations=reservation_budgets(trace, taskset),
        demand=reservation_demand(trace, taskset),
        over_wcet=over_wcet,
        activations=activations_by_task(trace),
        chains=chain_latencies(table, trace, taskset, chain_bounds),
    )


@contextmanager
def table_writers(trace: Trace, taskset: TaskSet, placement: Placement,
                  out_dir: Path) -> Iterator[tuple[list[PassConsumer], dict[str, Path]]]:
    """The writers of jobs.csv and trace.pftrace into ``out_dir`` for one pass over ``trace``
    (``job_pass.run_pass``: write_report's own, or build_report's given ``writers``), and the
    files by name; each file is whole, or not there, when the block ends (rtsched.outputs)."""
    tasks = taskset.tasks
    files = {"jobs.csv": out_dir / "jobs.csv", "trace.pftrace": out_dir / "trace.pftrace"}
    streams = [s for s in trace.streams if s["task_id"] >= 0]
    with partial(files["trace.pftrace"]) as tmp:
        csv = JobCsv(files["jobs.csv"], {int(s["task_id"]): int(s["tid"]) for s in streams},
                     {int(s["task_id"]): int(s["period_ns"]) for s in streams}, wcet_ns=[t.wcet_ns for t in tasks],
                     task_cpus=[placement.cpus_of(t.name) for t in tasks])
        events = sum(trace.events_in(int(s["stream_id"])) for s in streams)
        if events >= PFTRACE_CHILD_EVENTS and can_fork_a_writer():
            # the longest output, from a pass of its own, on the other CPU
            with written_in_child(lambda: _write_pftrace_file(trace, tmp)):
                yield [csv], files
        else:
            with open(tmp, "wb") as pftrace:
                yield [csv, PftraceWriter(trace, pftrace)], files


def _write_pftrace_file(trace: Trace, path: Path) -> None:
    with open(path, "wb") as out:
        write_pftrace_to(trace, out)


def write_report(
    report: Report,
    out_dir: Path,
    *,
    plots: bool = True,
    plot_window_ns: tuple[int, int] = DEFAULT_WINDOW_NS,
    progress: Callable[[str], None] | None = None,
    perfetto_json: bool = False,
    tables: bool = True,
) -> dict[str, Path]:
    """Write jobs.csv, trace.pftrace (Perfetto's protobuf format; unless ``tables`` is False:
    ``build_report`` wrote them in its pass, given ``table_writers``), with ``perfetto_json`` also
    trace.perfetto.json (its JSON format, about four times larger and slower to write), and
    (``plots``) response-cdf.png, schedule.png and,
    when the trace records priority changes, priority-time.png, when it has reservations,
    budget.png and demand.png into ``out_dir``; returns them by file name. ``progress`` hears
    the name of each file as it begins (WRITE_STEPS of them at most)."""
    say = progress or (lambda _file: None)
    files: dict[str, Path] = {}
    if tables:
        say("jobs.csv, trace.pftrace")
        with table_writers(report.trace, report.taskset, report.placement, out_dir) as (writers, files):
            run_pass(report.trace, None, writers)
    if perfetto_json:
        from rtsched.report.export_perfetto import write_perfetto

        files["trace.perfetto.json"] = out_dir / "trace.perfetto.json"
        write_perfetto(report.table, report.trace, files["trace.perfetto.json"])
    if plots:
        from rtsched.report.plots import plot_response_cdf, plot_schedule

        say("plots")
        files["response-cdf.png"] = out_dir / "response-cdf.png"
        plot_response_cdf(report.table, files["response-cdf.png"])
        files["schedule.png"] = out_dir / "schedule.png"
        plot_schedule(report.table, report.trace, files["schedule.png"], plot_window_ns)
        if report.priorities:
            from rtsched.report.plots import plot_priority_time

            files["priority-time.png"] = out_dir / "priority-time.png"
            plot_priority_time(report.priorities, report.table.name, files["priority-time.png"])
        if report.reservations:
            from rtsched.report.reservations import plot_reservation_budgets

            files["budget.png"] = out_dir / "budget.png"
            plot_reservation_budgets(report.reservations, files["budget.png"], report.table.name)
        if report.demand:
            from rtsched.report.reservation_demand import plot_reservation_demand

            files["demand.png"] = out_dir / "demand.png"
            plot_reservation_demand(report.demand, files["demand.png"], report.table.name)
    return files

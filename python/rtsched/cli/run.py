"""``rtsched run FILE``: run a task set on this machine and report each task's jobs.

Exit codes: 0 the run completed (deadline misses are reported, not errors,
unless ``--fail-on-miss``); 1 invalid input, a set-up failure (the runner's
explanation is printed) or, with ``--fail-on-miss``, a missed deadline;
3 the native runner is missing; 130 interrupted (after cleanup).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rtsched.cli.chain_table import print_chain_table
from rtsched.cli.exit_codes import Exit
from rtsched.cli.invalid_input import print_invalid
from rtsched.cli.overhead_profile import add_overhead_options, overheads_from_args
from rtsched.cli.tables import figures_table, print_fitting, report_console
from rtsched.cli.tables import ms as _ms

if TYPE_CHECKING:
    from rich.console import Console

    from rtsched.pipeline import Result


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "run",
        help="run a task set on this machine and report each task's jobs",
        description="Validates FILE, resolves it for this machine, runs it with rtsched-run "
        "(tracing every job), and reports per task: jobs, deadline misses, response times, "
        "tardiness, release latency. Writes DIR/: runner.json, trace.rtst, jobs.csv "
        "(st-job-stats columns), trace.pftrace (ui.perfetto.dev), summary.json, and with --plots "
        "response-cdf.png, schedule.png. See docs/run.md.",
    )
    parser.add_argument("file", metavar="FILE", help="task-set file (.yaml, .yml or .json)")
    parser.add_argument("--duration", metavar="TIME", help="run length (e.g. 5s; default: the set's, else 5s)")
    parser.add_argument("--out", metavar="DIR", type=Path, help="output folder (default: out/<task-set name>/)")
    parser.add_argument("--json", action="store_true", help="print the summary JSON to stdout instead of the table")
    parser.add_argument(
        "--plot-window", metavar="FROM:TO", default="0ms:200ms",
        help="window of the schedule chart, times since the release (default 0ms:200ms)",
    )
    plots = parser.add_mutually_exclusive_group()
    plots.add_argument("--plots", action="store_true",
                       help="draw the PNG plots (response-cdf.png, schedule.png; matplotlib takes seconds)")
    plots.add_argument("--no-plots", action="store_true", help="do not draw the PNG plots (the default; also no --compare-picv figure)")
    parser.add_argument("--perfetto-json", action="store_true",
                        help="also write trace.perfetto.json (Perfetto's JSON format, beside trace.pftrace)")
    parser.add_argument("--trace-markers", action="store_true", help="mirror trace events to ftrace trace_marker")
    parser.add_argument(
        "--trace-buffer", metavar="EVENTS", type=int, default=65536,
        help="per-task trace ring size in events (default 65536; too small loses events, reported)",
    )
    parser.add_argument(
        "--shield", metavar="CPUS",
        help="run inside a CPU shield of CPUS (e.g. 1): other tasks, IRQs and workqueues moved off them "
        "for the run, restored after (rtsched shield); P-FP / G-FP sets whose CPUs are all shielded",
    )
    parser.add_argument("--fail-on-miss", action="store_true", help="exit 1 when any deadline was missed")
    add_overhead_options(parser)
    parser.add_argument("--no-explain", action="store_true",
                        help="do not record the kernel's schedule of the run's CPUs (tracefs), which explains "
                        "jobs above their bounds")
    picv = parser.add_mutually_exclusive_group()
    picv.add_argument(
        "--no-picv", action="store_true",
        help="sets with servers: callers do not lend the server their priority while they wait "
        "(plain condition variables; recorded in runner.json and summary.json)",
    )
    picv.add_argument(
        "--compare-picv", action="store_true",
        help="sets with servers: run twice, with and without PI-CV (into DIR/picv, DIR/no-picv) and "
        "print per task mean / p90 / max side by side with the bounds (and seed 004's Table II for "
        "examples/picv-rpc.yaml); with --plots draws DIR/response-cdf-picv.png",
    )
    picv.add_argument(
        "--compare-backends", action="store_true",
        help="run twice, under the threads backend then the ult backend (into DIR/threads, DIR/ult; "
        "docs/ult.md), and print per task misses, response mean / p99 / max and release latency "
        "p99 side by side",
    )
    picv.add_argument(
        "--compare-rtapp", metavar="RT_APP",
        help="an rt-app JSON file: run it first under real rt-app (RT_APP: the path of its binary; "
        "bench/rtapp/build-rtapp builds one) into DIR/rtapp/, then under rtsched, both for the file's "
        "duration (whole seconds), and print per rt-app thread jobs, period, run time and response side "
        "by side (DIR/compare-rtapp.json; docs/from-rtapp.md)",
    )
    parser.add_argument(
        "--rtapp-runtime", action="store_true",
        help="--compare-rtapp: rt-app runs each run event as a runtime event of the same length (a time, "
        "not a loop count calibrated at its start, whose length follows the CPU's speed)",
    )
    parser.add_argument(
        "--compare-sim", action="store_true",
        help="after the run, simulate the same set (same duration, CPUs and overheads as the bounds; into "
        "DIR/sim) and compare job by job: per task the mean responses, the jobs whose observed and simulated "
        "responses diverge beyond the tolerance, explained (DIR/compare-sim.csv, summary.json compare_sim)",
    )
    parser.add_argument("--sim-tolerance", metavar="TIME", default="100us",
                        help="--compare-sim: a job diverges when |observed - simulated| is above both this "
                        "and --sim-tolerance-share of its simulated response (default 100us)")
    parser.add_argument("--sim-tolerance-share", metavar="F", type=float, default=0.05,
                        help="--compare-sim: see --sim-tolerance (default 0.05)")
    parser.set_defaults(handler=run)


def _parse_window(text: str) -> tuple[int, int]:
    from rtsched.model import parse_duration

    lo, sep, hi = text.partition(":")
    if not sep:
        raise ValueError(f'--plot-window: expected FROM:TO (e.g. 0ms:200ms), got "{text}"')
    start, end = parse_duration(lo.strip()), parse_duration(hi.strip())
    if end <= start:
        raise ValueError(f"--plot-window: TO must be after FROM, got {text}")
    return start, end


def print_blocking_table(result: Result, console: Console) -> None:
    """Per task: lock requests, how many were blocked by each cause, the longest waits, and the
    analysis' blocking term beside the largest blocking of one job (only when the set locks)."""
    if not any(s.lock_requests or s.blocked_gate for s in result.stats):
        return
    table = figures_table(
        "blocking",
        ("task", "requests", "owner", "ceiling", "gate", "lock wait max", "gate wait max", "job max", "B"),
        "times in ms; blocked: requests that waited because the lock was held (owner) or for the system "
        "ceiling (ceiling), job starts held back (gate); job max: the largest lock + gate waiting of one job "
        "(includes preemptions while waiting); B: the analysis' blocking term",
    )
    for s in result.stats:
        table.add_row(s.task, str(s.lock_requests), str(s.blocked_owner), str(s.blocked_ceiling),
                      str(s.blocked_gate), _ms(s.lock_wait_max_ns), _ms(s.gate_wait_max_ns),
                      _ms(s.job_blocking_max_ns), _ms(s.blocking_term_ns))
    print_fitting(console, table)


#: Steal above this share of the run's length is reported (a VM's host took the CPU).
STEAL_WARN_SHARE = 0.01


def steal_note(summary) -> str | None:
    """A warning when the hypervisor took a noticeable share of a CPU during the run."""
    steal = summary.get("steal_ns") or {}
    length = summary.get("duration_ns") or 0
    worst = [(cpu, ns) for cpu, ns in steal.items() if length and ns > STEAL_WARN_SHARE * length]
    if not worst:
        return None
    parts = ", ".join(f"CPU {cpu}: {ns / 1e6:.0f} ms ({100 * ns / length:.1f}%)" for cpu, ns in worst)
    return (
        f"[bold yellow]the hypervisor took CPU time from this VM during the run (steal: {parts})[/]: "
        "the threads stood still meanwhile, so response times include delays no priority can prevent"
    )


def _bound_of(analysis, task: str) -> int | None:
    return next((b.bound_ns for b in analysis.tasks if b.name == task), None)


def _cliff_of(result: Result, task: str) -> str:
    if result.slack is None:
        return "—"
    try:
        cliff = result.slack.task(task).cliff_ns
    except KeyError:
        return "—"
    if cliff is None:
        return "—"
    return f"[bold yellow]{_ms(cliff)}[/]" if cliff < CLIFF_WARN_SHARE * (_bound_of(result.analysis, task) or 0) \
        else _ms(cliff)


#: A cliff closer than this share of the bound is highlighted.
CLIFF_WARN_SHARE = 0.05
#: Jobs above their bound explained one by one in the table's notes (all are in summary.json).
EXCESS_SHOWN = 5


def excess_notes(result: Result) -> list[str]:
    """Jobs above their bound: how many, by verdict, and the largest ones explained."""
    report = result.report
    assert report is not None
    jobs = report.excess
    by_task: dict[str, int] = {}
    by_verdict: dict[str, int] = {}
    for e in jobs:
        by_task[e.task] = by_task.get(e.task, 0) + 1
        by_verdict[e.verdict] = by_verdict.get(e.verdict, 0) + 1
    notes = [
        f"[bold red]{len(jobs)} job(s) above their bound[/] ("
        + ", ".join(f"{t}: {n}" for t, n in by_task.items()) + "); "
        + ", ".join(f"{n} {v}" for v, n in sorted(by_verdict.items(), key=lambda kv: -kv[1]))
        + " (disturbed: what came from outside the set covers the excess; bound broken: the set's own "
        "threads needed more than the model gives them)"
    ]
    for e in sorted(jobs, key=lambda e: -e.excess_ns)[:EXCESS_SHOWN]:
        notes.append(f"  {e.task} job {e.job} at {_ms(e.release_ns)}: {_ms(e.response_ns)} > {_ms(e.bound_ns)}, "
                     f"{e.verdict}: {e.cause}")
    if len(jobs) > EXCESS_SHOWN:
        notes.append("  (every one in summary.json, jobs_above_bound)")
    if result.explain_note:
        notes.append(f"  {result.explain_note}")
    return notes


def print_table(result: Result, console: Console) -> None:
    """The run's report: a row per task, the blocking table, then notes. Everything but the
    steal time (the run's, from its summary) comes from the typed report."""
    from rtsched.report.reservation_demand import demand_line
    from rtsched.report.reservations import reservation_line
    from rtsched.run.reservation_overhead import overhead_line

    report = result.report
    assert report is not None, "print_table needs a run that wrote its trace"
    jobs = report.table
    picv = ", PI-CV off" if result.taskset.servers and not result.picv else ""
    platform = result.taskset.platform
    scheduler = platform.policy + (f", {platform.backend} backend" if platform.backend != "threads" else "")
    analysis = result.analysis
    ideal = result.ideal_analysis
    counted = "with this machine's overheads" if ideal is not None else "no overheads counted"
    headers = ["task", "CPUs", "jobs", "misses", "resp min", "resp mean", "resp p90", "resp p99", "resp max",
               "bound"] + (["ideal"] if ideal is not None else []) + ["cliff", "tard max", "rel lat p99",
                                                                      "overruns", "lost ev"]
    table = figures_table(
        f"{jobs.name} ({scheduler}, {jobs.duration_ns / 1e9:g} s{picv})",
        headers,
        f"times in ms; bound: analytical response-time bound ({analysis.test}: {analysis.verdict}; {counted})"
        + ("; ideal: the same without overheads" if ideal is not None else "")
        + "; cliff: extra execution time a job absorbs before its bound jumps"
        "; ! marks an observed maximum above its bound",
    )
    for s in report.stats:
        cpus = ",".join(map(str, result.placement.cpus_visited(s.task) or ())) or "?"
        extra = [_ms(_bound_of(ideal, s.task))] if ideal is not None else []
        cliff = _cliff_of(result, s.task)
        table.add_row(
            s.task,
            cpus,
            str(s.jobs),
            f"[bold red]{s.deadline_misses}[/]" if s.deadline_misses else "0",
            _ms(s.response_min_ns),
            _ms(s.response_mean_ns),
            _ms(s.response_p90_ns),
            _ms(s.response_p99_ns),
            f"[bold red]{_ms(s.response_max_ns)} ![/]" if s.bound_exceeded else _ms(s.response_max_ns),
            _ms(s.bound_ns),
            *extra,
            cliff,
            _ms(s.tardiness_max_ns) if s.deadline_misses else "0",
            _ms(s.release_latency_p99_ns),
            str(s.budget_overruns),
            str(s.lost_events),
        )
    print_fitting(console, table)
    print_blocking_table(result, console)
    print_chain_table(report.chains, console)
    notes = [f"server {s.name} (priority {s.priority}): {s.calls_served} calls served" for s in report.servers]
    notes += [f"{p.thread} (priority {p.base_priority}) was lent "
              + ", ".join(f"priority {level} for {ns / 1e6:.3f} ms" for level, ns in p.ns_at_priority
                          if level != p.base_priority)
              for p in report.priorities if len(p.ns_at_priority) > 1]
    notes += [f"PREM {p.name}: {p.intervals} intervals, memory phase up to {_ms(p.longest_memory_phase_ns)}, "
              f"padding at least {_ms(p.least_padding_ns)}, {p.overruns} overran, length spread "
              f"{p.length_spread_ns} ns, {p.involuntary_switches} involuntary switches, {p.forced} forced the gate"
              for p in report.prem]
    notes += [f"peripheral {p.name}: {p.spans} run spans, {p.held} ended by a memory phase, "
              f"{p.overlapping} overlap one" for p in report.peripherals]
    if jobs.unfinished_missed:
        late = [f"{t.name} {t.unfinished_missed}" for t in jobs.tasks if t.unfinished_missed]
        notes.append(f"[bold red]{jobs.unfinished_missed} job(s) missed their deadline without completing[/] "
                     f"(never started, or not done by the end; counted in misses): {', '.join(late)}")
    notes += [f"{a.task}: {a.kept + a.lost} activations, {a.lost} lost (it was not waiting and its "
              "activation_queue was full)" for a in report.activations if a.lost]
    if report.over_wcet:
        named = ", ".join(f"{o.task} job {o.job} {_ms(o.cpu_ns)} of {_ms(o.wcet_ns)} ms" for o in report.over_wcet[:4])
        notes.append(f"[bold yellow]{len(report.over_wcet)} job(s) used more CPU time than their WCET[/]: {named}"
                     + (", ..." if len(report.over_wcet) > 4 else "")
                     + " (the model's execution time is short, or the kernel charged them time they did not run: "
                       "summary.json jobs_over_wcet; docs/run.md)")
    if jobs.censored:
        notes.append(f"{jobs.censored} job(s) not completed when the run ended, their deadline still ahead "
                     "(left out)")
    if jobs.incomplete:
        notes.append(f"{jobs.incomplete} job(s) left out: their release or start event was lost")
    if (stolen := steal_note(result.summary)) is not None:
        notes.append(stolen)
    if report.events_off_cpus:
        notes.append(
            f"[bold yellow]{report.events_off_cpus} trace event(s) recorded outside the tasks' CPUs[/]: "
            "something outside the run moved its threads (a CPU shield, a cpuset change); its times are not the set's alone"
        )
    if jobs.lost_total:
        notes.append(f"[bold yellow]{jobs.lost_total} trace event(s) lost[/] (rings full): raise --trace-buffer")
    if ideal is None and result.slack is not None:
        notes.append("overheads are not counted in the bounds: `rtsched calibrate` measures this machine's "
                     "(docs/calibrate.md)")
    elif ideal is not None:
        notes.append("bounds count " + ", ".join(result.summary.get("overheads", {}).get("sources", [])))
    if report.bounds_exceeded:
        notes.extend(excess_notes(result))
    elif result.explain_note:  # why jobs above their bound could not be explained, said even when none was
        notes.append(result.explain_note)
    if not analysis.schedulable and analysis.reason:
        notes.append(f"analysis ({analysis.test}): {analysis.verdict}: {analysis.reason}")
    if report.deadline_misses:
        notes.append(f"[bold red]{report.deadline_misses} deadline miss(es)[/]")
    notes.extend(reservation_line(r) for r in report.reservations)
    notes.extend(demand_line(d) for d in report.demand)
    notes.extend(overhead_line(o) for o in result.summary.get("reservation_overhead", ()))  # rtsched run's only
    for note in notes:
        console.print(note)
    console.print(f"outputs in {result.out_dir}/: " + ", ".join(sorted(k for k in result.files)))


#: How each kind of comparison names its variants in the table and the notes.
_VARIANT_LABELS = {"picv": ("PI-CV", "on", "with PI-CV"), "no-picv": ("PI-CV", "off", "without PI-CV"),
                   "threads": ("backend", "threads", "threads"), "ult": ("backend", "ult", "ult")}


def _comparison_columns(comparison) -> list[tuple[str, Callable[[dict], str]]]:
    """The figure columns of a comparison, each with how a row fills it: PI-CV shows the p90
    (seed 004's Table II does), backends the p99 and the release latency (where they differ)."""
    picv = comparison.labels == ("picv", "no-picv")
    columns: list[tuple[str, Callable[[dict], str]]] = [
        ("jobs", lambda r: str(r["jobs"])),
        ("misses", lambda r: f"[bold red]{r['deadline_misses']}[/]" if r["deadline_misses"] else "0"),
        ("mean", lambda r: _ms(r["mean_ns"])),
        ("p90", lambda r: _ms(r["p90_ns"])) if picv else ("p99", lambda r: _ms(r["p99_ns"])),
        ("max", lambda r: f"[bold red]{_ms(r['max_ns'])} ![/]" if r["bound_exceeded"] else _ms(r["max_ns"])),
        ("bound", lambda r: _ms(r["bound_ns"])),
    ]
    if not picv:
        columns += [("rel lat median", lambda r: _ms(r["release_latency_median_ns"])),
                    ("rel lat p99", lambda r: _ms(r["release_latency_p99_ns"])),
                    ("rel lat max", lambda r: _ms(r["release_latency_max_ns"]))]
    if comparison.paper():
        def paper_figure(k: int) -> Callable[[dict], str]:
            return lambda r: f"{r['paper_ms'][k]:.3f}" if r["paper_ms"] else "–"

        columns += [(f"paper {what}", paper_figure(k)) for k, what in enumerate(("mean", "p90", "max"))]
    return columns


def print_comparison(comparison, console) -> None:
    """Per task and variant: jobs, misses, response mean, p90 (PI-CV) or p99 and the release
    latency (backends), max, beside the bound (PI-CV: the first variant's) and, for picv-rpc, the paper's figures;
    then each run's notes."""
    picv = comparison.labels == ("picv", "no-picv")
    some = next(iter(comparison.runs.values())).summary
    what = "with and without PI-CV" if picv else "under the threads and the ult backend"
    assumed = "with PI-CV (picv-rpc, seed 004 Eq. 1-5)" if picv else "the same for both backends (one policy)"
    variant_header = _VARIANT_LABELS[comparison.labels[0]][0]
    columns = _comparison_columns(comparison)
    table = figures_table(
        f"{comparison.taskset.name}: {what} ({some['duration_ns'] / 1e9:g} s each)",
        ("task", variant_header, *(header for header, _ in columns)),
        f"times in ms; bound: analytical, {assumed}; ! marks a maximum above it"
        + ("; paper: seed 004 Table II" if comparison.paper() else "")
        + ("" if picv else "; rel lat: release latency, from the nominal release to the job's first instruction"),
        labels=("task", variant_header),
    )
    for row in comparison.rows():
        table.add_row(
            row["task"] if row["variant"] == comparison.labels[0] else "",
            _VARIANT_LABELS[row["variant"]][1],
            *(fill(row) for _, fill in columns),
            end_section=row["variant"] == comparison.labels[-1],
        )
    print_fitting(console, table)
    for variant, run in comparison.runs.items():
        s = run.summary
        label = _VARIANT_LABELS[variant][2]
        if s.get("deadline_misses"):
            console.print(f"[bold red]{s['deadline_misses']} deadline miss(es)[/] {label}")
        if s.get("lost_events"):
            console.print(f"[bold yellow]{s['lost_events']} trace event(s) lost[/] ({variant}): raise --trace-buffer")
        if (stolen := steal_note(s)) is not None:
            console.print(f"{label}: " + stolen)
        if s.get("events_off_cpus"):
            console.print(
                f"[bold yellow]{s['events_off_cpus']} trace event(s) outside the tasks' CPUs[/] ({variant}): something "
                "outside the run moved its threads (a CPU shield, a cpuset change); these figures are not the set's alone"
            )
        above = s.get("jobs_above_bound") or []
        if above:
            verdicts: dict[str, int] = {}
            for e in above:
                verdicts[e["verdict"]] = verdicts.get(e["verdict"], 0) + 1
            worst = max(above, key=lambda e: e["excess_ns"])
            console.print(
                f"{label}: [bold red]{len(above)} job(s) above their bound[/] ("
                + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items(), key=lambda kv: -kv[1]))
                + f"); the largest, {worst['task']} job {worst['job']}: {worst['cause']} "
                f"(every one in {variant}/summary.json, jobs_above_bound)")
    first = next(iter(comparison.runs.values())).summary
    if first and first.get("overheads") is None:
        console.print("overheads are not counted in the bounds: `rtsched calibrate` measures this machine's "
                      "(docs/calibrate.md)")
    outputs = ", ".join(sorted(comparison.files)) or "none"
    folders = " and ".join(f"{v}/" for v in comparison.labels)
    console.print(f"outputs in {comparison.out_dir}/: {outputs}; each run's in {folders}")


def _report_comparison(comparison, args, err) -> int:
    from rich.console import Console

    if comparison.interrupted and not all(r.summary for r in comparison.runs.values()):
        print("rtsched run: interrupted before both runs were done; cleaned up", file=sys.stderr)
        return Exit.INTERRUPTED
    if args.json:
        print(json.dumps(comparison.as_dict(), indent=2))
    else:
        console = report_console()
        print_comparison(comparison, console)
    if comparison.interrupted:
        return Exit.INTERRUPTED
    misses = sum(r.summary.get("deadline_misses", 0) for r in comparison.runs.values())
    if args.fail_on_miss and misses:
        err.print(f"rtsched run: {misses} deadline miss(es) (--fail-on-miss)")
        return Exit.FAILED
    return Exit.OK


def _run_compare_rtapp(taskset, options, args, err) -> int:
    """``--compare-rtapp``: the file under rt-app, then rtsched; the run's table, then both side by side."""
    from rtsched.cli.run_compare_rtapp import print_rtapp_comparison
    from rtsched.model import TaskSetError
    from rtsched.model.rtapp import is_rtapp_text
    from rtsched.model.rtapp.importer import rtapp_task_threads
    from rtsched.model.rtapp.reader import read_rtapp
    from rtsched.native import NativeToolMissing
    from rtsched.pipeline.comparisons import compare_rtapp
    from rtsched.run import RunSetupError
    from rtsched.run.rtapp import RtAppFailed, RtAppMissing
    from rtsched.trace.rtapp_log import RtAppLogError

    source = Path(args.file)
    text = source.read_text(encoding="utf-8", errors="replace")
    if not is_rtapp_text(text):
        print(f"rtsched run: --compare-rtapp: {args.file} is not an rt-app file (an rt-app JSON file has a "
              '"tasks" object; this is an rtsched task set, which rt-app cannot run)', file=sys.stderr)
        return Exit.FAILED
    try:
        origins = rtapp_task_threads(read_rtapp(text))
        comparison = compare_rtapp(taskset, source, Path(args.compare_rtapp), origins, options,
                                   runtime=args.rtapp_runtime)
    except RtAppMissing as e:
        print(f"rtsched run: --compare-rtapp: {e}", file=sys.stderr)
        return Exit.FAILED
    except (RtAppFailed, RtAppLogError, ValueError) as e:
        print(f"rtsched run: --compare-rtapp: {args.file}: {e}", file=sys.stderr)
        return Exit.FAILED
    except TaskSetError as e:
        for error in e.errors:
            print(f"{args.file}: {error}", file=sys.stderr)
        return Exit.INVALID_INPUT
    except NativeToolMissing as e:
        print(f"rtsched: {e}", file=sys.stderr)
        return Exit.NATIVE_MISSING
    except RunSetupError as e:
        print(f"rtsched run: the run could not be set up:\n{e}", file=sys.stderr)
        return Exit.FAILED
    result = comparison.run
    if result.interrupted and result.report is None:
        print("rtsched run: interrupted before the trace was written; cleaned up", file=sys.stderr)
        return Exit.INTERRUPTED
    if args.json:
        print(json.dumps(comparison.as_dict(), indent=2))
    else:
        console = report_console()
        print_table(result, console)
        print_rtapp_comparison(comparison, console)
    if result.interrupted:
        return Exit.INTERRUPTED
    if args.fail_on_miss and result.summary["deadline_misses"]:
        err.print(f"rtsched run: {result.summary['deadline_misses']} deadline miss(es) (--fail-on-miss)")
        return Exit.FAILED
    return Exit.OK


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from rtsched.model import DurationError, TaskSetError, load_taskset, parse_duration
    from rtsched.native import NativeToolMissing
    from rtsched.pipeline.run_set import RunOptions, run_taskset
    from rtsched.sim import SimUnsupported
    from rtsched.run import RunSetupError, ShieldRefused
    from rtsched.run.runner import RunnerExit
    from rtsched.cpus import CpuListError
    from rtsched.measure.shield import ShieldError

    err = Console(stderr=True, highlight=False)
    try:
        taskset = load_taskset(args.file)
    except TaskSetError as e:
        print_invalid(args.file, e.errors)
        return Exit.INVALID_INPUT
    except OSError as e:
        print(f"{args.file}: {e.strerror or e}", file=sys.stderr)
        return Exit.FAILED
    try:
        duration = parse_duration(args.duration) if args.duration is not None else None
        if duration is not None and duration <= 0:
            raise DurationError(f"must be > 0, got {args.duration}")
        window = _parse_window(args.plot_window)
    except (DurationError, ValueError) as e:
        print(f"rtsched run: {e}" if "--plot-window" in str(e) else f"rtsched run: --duration: {e}", file=sys.stderr)
        return Exit.FAILED
    shield_cpus = None
    if args.shield is not None:
        from rtsched.cpus import CpuListError, parse_cpu_list

        try:
            shield_cpus = list(parse_cpu_list(args.shield))
        except (CpuListError, ValueError) as e:
            print(f"rtsched run: --shield: {e}", file=sys.stderr)
            return Exit.FAILED
    if (args.no_picv or args.compare_picv) and not taskset.servers:
        flag = "--no-picv" if args.no_picv else "--compare-picv"
        print(f"rtsched run: {flag}: {args.file} has no servers, so PI-CV changes nothing", file=sys.stderr)
        return Exit.FAILED
    if args.compare_sim and (args.compare_picv or args.compare_rtapp):
        other = "--compare-picv" if args.compare_picv else "--compare-rtapp"
        print(f"rtsched run: --compare-sim and {other}: one comparison at a time", file=sys.stderr)
        return Exit.FAILED
    try:
        sim_tolerance_ns = parse_duration(args.sim_tolerance)
    except DurationError as e:
        print(f"rtsched run: --sim-tolerance: {e}", file=sys.stderr)
        return Exit.FAILED
    if sim_tolerance_ns < 0 or not args.sim_tolerance_share >= 0:
        print("rtsched run: --sim-tolerance, --sim-tolerance-share: must be >= 0", file=sys.stderr)
        return Exit.FAILED
    if args.trace_buffer < 1:
        print("rtsched run: --trace-buffer: must be >= 1", file=sys.stderr)
        return Exit.FAILED
    try:
        counted = overheads_from_args(args, measure_on=err)
    except ValueError as e:
        print(f"rtsched run: {e}", file=sys.stderr)
        return Exit.FAILED
    if counted.measured_now:
        err.print(f"rtsched run: {counted.description}")
    options = RunOptions(
        duration_ns=duration,
        out_dir=args.out,
        plots=args.plots,
        perfetto_json=args.perfetto_json,
        plot_window_ns=window,
        trace_markers=args.trace_markers,
        trace_buffer_events=args.trace_buffer,
        progress=not args.json,
        shield_cpus=shield_cpus,
        picv=not args.no_picv,
        overheads=counted.overheads,
        explain=not args.no_explain,
    )
    if args.rtapp_runtime and args.compare_rtapp is None:
        print("rtsched run: --rtapp-runtime: only with --compare-rtapp", file=sys.stderr)
        return Exit.FAILED
    if args.compare_rtapp is not None:
        return _run_compare_rtapp(taskset, options, args, err)
    try:
        if args.compare_picv or args.compare_backends:
            from rtsched.pipeline.comparisons import compare_backends, compare_picv

            comparison = (compare_picv(taskset, options, figure=not args.no_plots)  # Fig. 9 unless --no-plots
                          if args.compare_picv else compare_backends(taskset, options))
            return _report_comparison(comparison, args, err)
        beside = None
        if args.compare_sim:
            from rtsched.pipeline.compare import JobTolerance
            from rtsched.pipeline.comparisons import compare_sim

            beside = compare_sim(taskset, options, JobTolerance(sim_tolerance_ns, args.sim_tolerance_share))
            result = beside.runs["run"]
        else:
            result = run_taskset(taskset, options)
    except SimUnsupported as e:  # --compare-sim's simulation (the run's summary.json is written)
        for problem in e.problems:
            print(f"rtsched run: --compare-sim: {args.file}: {problem}", file=sys.stderr)
        return Exit.FAILED
    except TaskSetError as e:
        for error in e.errors:
            print(f"{args.file}: {error}", file=sys.stderr)
        return Exit.INVALID_INPUT
    except ShieldRefused as e:
        print(f"rtsched run: {e}", file=sys.stderr)
        return Exit.FAILED
    except NativeToolMissing as e:
        print(f"rtsched: {e}", file=sys.stderr)
        return Exit.NATIVE_MISSING
    except RunSetupError as e:
        if e.outcome.returncode == RunnerExit.TRACE_FAILED:
            print(f"rtsched run: {e}", file=sys.stderr)
        else:
            print(f"rtsched run: the run could not be set up:\n{e}", file=sys.stderr)
        return Exit.FAILED
    except (ShieldError, CpuListError) as e:  # the shield's own refusals
        print(f"rtsched run: --shield: {e}", file=sys.stderr)
        return Exit.FAILED
    if result.interrupted and result.report is None:
        print("rtsched run: interrupted before the trace was written; cleaned up", file=sys.stderr)
        return Exit.INTERRUPTED
    if args.json:
        print(json.dumps(result.summary, indent=2))
    else:
        console = report_console()
        print_table(result, console)
        if beside is not None and beside.jobs is not None:
            from rtsched.cli.run_compare_sim import print_sim_comparison

            print_sim_comparison(beside, console)
    if not args.json:
        for line in result.production.messages:
            err.print(line, markup=False)
    if result.interrupted:
        err.print("rtsched run: interrupted; the tasks were stopped, the partial run is reported, cleanup done")
        return Exit.INTERRUPTED
    if args.fail_on_miss and result.summary["deadline_misses"]:
        err.print(f"rtsched run: {result.summary['deadline_misses']} deadline miss(es) (--fail-on-miss)")
        return Exit.FAILED
    return Exit.OK

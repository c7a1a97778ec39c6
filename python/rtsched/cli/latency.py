"""``rtsched latency``: scheduling latency by the cyclictest method (seed 000).

Runs rtsched-latency (one pinned thread per CPU, absolute one-shot timers,
1 us histograms) under a background load it starts and stops itself,
optionally on shielded CPUs, beside cyclictest, or in the timer-slack view.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from rtsched.cli.exit_codes import Exit
from rtsched.cpus import CpuListError, allowed_cpus, checked_cpu_list, format_cpu_list, online_cpus
from rtsched.measure.cyclictest import CyclictestError, run_cyclictest
from rtsched.measure.histogram import Histogram, ratio
from rtsched.measure.irqs import LocalTimerWindow
from rtsched.measure.kernel_facts import read_kernel_facts
from rtsched.measure.latency import POLICIES, LatencyConfig, LatencyError, run_latency
from rtsched.measure.loads import LATENCY_LOADS, LoadError, Loads
from rtsched.measure.report import latency_table, plot_histograms, ratio_table
from rtsched.measure.shield import ShieldError, shield_cpuset_dir, shielded
from rtsched.native import NativeToolMissing
from rtsched.outputs import partial



def cpu_list_arg(text: str) -> list[int]:
    try:
        return list(checked_cpu_list(text))
    except CpuListError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be greater than 0")
    return value


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must not be negative")
    return value


def duration_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value > 0 or value > 86400:
        raise argparse.ArgumentTypeError(f"'{text}' must be a number of seconds in (0, 86400]")
    return value


def priority_arg(text: str) -> int:
    value = positive_int(text)
    if value > 99:
        raise argparse.ArgumentTypeError(f"'{text}' is not a SCHED_FIFO priority in 1..99")
    return value


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "latency",
        help="scheduling latency, the cyclictest method (seed 000), with loads and shielding",
        description="Scheduling latency: one pinned thread per CPU wakes at absolute "
        "CLOCK_MONOTONIC deadlines; latency = wake-up time - deadline, in 1 us histograms.",
    )
    parser.add_argument("--cpus", type=cpu_list_arg, help="CPUs to measure, e.g. 0-1 (default: all online)")
    parser.add_argument("--interval-us", type=positive_int, default=1000, help="interval of the first thread (1000)")
    parser.add_argument("--distance-us", type=non_negative_int, default=500,
                        help="added to the interval of each further thread (500)")
    parser.add_argument("--policy", choices=POLICIES, default="fifo", help="scheduling policy (fifo)")
    parser.add_argument("--priority", type=priority_arg, default=99, help="SCHED_FIFO priority (99)")
    parser.add_argument("--duration", type=duration_arg, default=10.0, help="seconds per run (10)")
    parser.add_argument("--histogram-us", type=positive_int, default=20000,
                        help="histogram range; longer latencies count as overflows (20000)")
    parser.add_argument("--load", choices=LATENCY_LOADS, default="none",
                        help="background load started and stopped by this command (none)")
    parser.add_argument("--timerslack-view", action="store_true",
                        help="three runs side by side: SCHED_OTHER, SCHED_OTHER with timer slack 1 ns, SCHED_FIFO")
    parser.add_argument("--compare-cyclictest", action="store_true",
                        help="also run cyclictest with the same parameters and print the ratios "
                        "of median and p99 (both with distance 0: cyclictest -h forces it)")
    parser.add_argument("--rounds", type=positive_int, default=None,
                        help="with --compare-cyclictest: split the duration into N rounds per tool, "
                        "alternating rtsched/cyclictest (ABBA...) so drift hits both alike (default 6)")
    parser.add_argument("--shield", nargs="?", const="measured", default=None, metavar="CPUS",
                        help="shield CPUS (default: the measured CPUs) for the run, undone after")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON ('-': stdout)")
    parser.add_argument("--png", metavar="FILE", help="plot the histograms into a PNG")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run, parser=parser)


def _shield_cpus(args: argparse.Namespace, cpus: list[int]) -> list[int] | None:
    if args.shield is None:
        return None
    if args.shield == "measured":
        return cpus
    try:
        return list(checked_cpu_list(args.shield))
    except CpuListError as error:
        args.parser.error(f"argument --shield: {error}")
    return None


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    cpus: list[int] = args.cpus or list(allowed_cpus())
    if args.policy == "deadline" and set(allowed_cpus()) != set(online_cpus()):
        parser.error(
            f"--policy deadline: this process may run only on CPU {format_cpu_list(allowed_cpus())} of the "
            f"online {format_cpu_list(online_cpus())} (taskset, a cpuset or a shield), and the kernel admits "
            "a SCHED_DEADLINE thread only when its affinity spans its whole root domain; run without the "
            "restriction, or use --policy fifo")
    shield_cpus = _shield_cpus(args, cpus)
    if shield_cpus is not None and set(shield_cpus) >= set(online_cpus()):
        parser.error(
            f"argument --shield: cannot shield every CPU ({format_cpu_list(online_cpus())}); "
            "measure fewer CPUs or name the ones to shield (--shield 1)"
        )
    if args.policy != "fifo" and args.priority != 99:
        parser.error("argument --priority: only with --policy fifo")
    if args.compare_cyclictest and args.policy == "deadline":
        parser.error("argument --compare-cyclictest: cyclictest has no SCHED_DEADLINE mode; use other or fifo")
    if args.rounds and not args.compare_cyclictest:
        parser.error("argument --rounds: only with --compare-cyclictest")
    if args.compare_cyclictest and args.timerslack_view:
        parser.error("argument --compare-cyclictest: not with --timerslack-view")

    human = Console(stderr=args.json == "-")
    facts = read_kernel_facts()
    runs: list[dict] = []
    histograms: list[Histogram] = []
    comparison: list[dict] = []
    base = LatencyConfig(
        cpus=cpus,
        interval_us=args.interval_us,
        distance_us=0 if args.compare_cyclictest else args.distance_us,
        policy=args.policy,
        priority=args.priority,
        duration_s=args.duration,
        histogram_us=args.histogram_us,
    )
    if args.compare_cyclictest and args.distance_us:
        human.print("[dim]note: --compare-cyclictest runs both tools with distance 0 (cyclictest -h forces it)[/dim]")
    variants: list[tuple[str, LatencyConfig]] = []
    if args.timerslack_view:
        for label, policy, slack in (("OTHER", "other", None), ("OTHER slack=1ns", "other", 1), ("FIFO", "fifo", None)):
            cfg = LatencyConfig(**{**base.__dict__, "policy": policy, "timerslack_ns": slack, "cpusets": []})
            variants.append((label, cfg))
    else:
        variants.append((args.policy.upper() if args.policy != "deadline" else "DEADLINE", base))

    total_seconds = args.duration * (len(variants) + (1 if args.compare_cyclictest else 0))
    try:
        with ExitStack() as stack:
            shield_report = None
            if shield_cpus is not None:
                shield_report = stack.enter_context(shielded(shield_cpus))
                for _, cfg in variants:
                    cfg.cpusets = [str(shield_cpuset_dir())]
                human.print(f"shielded CPU {format_cpu_list(shield_cpus)} "
                            f"({shield_report.moved_tasks} tasks moved, "
                            f"{len(shield_report.refused_tasks)} refused; IRQs refusing: "
                            f"{', '.join(r['irq'] for r in shield_report.refused_irqs) or 'none'})")
            loads = stack.enter_context(Loads(args.load, max_seconds=total_seconds + 30))
            if args.load != "none":
                human.print(f"load {args.load}: {loads.describe()}")
            if not args.compare_cyclictest:
                for label, cfg in variants:
                    with LocalTimerWindow(cpus) as ticks:
                        result = _run_one(cfg, label, human, args.no_progress)
                    runs.append({"label": label, "tool": "rtsched-latency", "command": result.command,
                                 "result": result.raw, "local_timer_interrupts": ticks.as_json()})
                    histograms.extend(result.histograms)
            else:
                label, cfg = variants[0]
                rounds = args.rounds or 6
                cfg.loops = max(1, cfg.expected_samples(0) // rounds)
                ours_rounds: list[list[Histogram]] = []
                ct_rounds: list[list[Histogram]] = []
                for r in range(rounds):
                    order = ("rtsched", "cyclictest") if r % 4 in (0, 3) else ("cyclictest", "rtsched")
                    for tool in order:
                        if tool == "rtsched":
                            with LocalTimerWindow(cpus) as ticks:
                                result = _run_one(cfg, f"{label} round {r + 1}/{rounds}", human, args.no_progress)
                            runs.append({"label": f"{label} round {r + 1}", "tool": "rtsched-latency",
                                         "command": result.command, "result": result.raw,
                                         "local_timer_interrupts": ticks.as_json()})
                            ours_rounds.append(result.histograms)
                        else:
                            with human.status(f"cyclictest round {r + 1}/{rounds} ..."), \
                                    LocalTimerWindow(cpus) as ticks:
                                command, ct_one = run_cyclictest(
                                    cpus, cfg.interval_us, cfg.loops, cfg.policy, cfg.priority,
                                    cfg.histogram_us, timeout_s=args.duration * 3 + 30,
                                )
                            runs.append({"label": f"cyclictest round {r + 1}", "tool": "cyclictest",
                                         "command": command, "histograms": [_hist_json(h) for h in ct_one],
                                         "local_timer_interrupts": ticks.as_json()})
                            ct_rounds.append(ct_one)
                ours = [_merged([rnd[i] for rnd in ours_rounds]) for i in range(len(cpus))]
                ct = [_merged([rnd[i] for rnd in ct_rounds]) for i in range(len(cpus))]
                for cpu, a, b in zip(cpus, ours, ct):
                    a.label = f"rtsched CPU {cpu}"
                    b.label = f"cyclictest CPU {cpu}"
                histograms.extend(ours)
                for cpu, a, b in zip(cpus, ours, ct):
                    comparison.append({
                        "label": f"CPU {cpu}",
                        "p50_a": a.median_us, "p50_b": b.median_us, "p50_ratio": ratio(a.median_us, b.median_us),
                        "p99_a": a.percentile(99), "p99_b": b.percentile(99),
                        "p99_ratio": ratio(a.percentile(99), b.percentile(99)),
                    })
                allsum_a = _merged(ours)
                allsum_b = _merged(ct)
                comparison.append({
                    "label": "all",
                    "p50_a": allsum_a.median_us, "p50_b": allsum_b.median_us,
                    "p50_ratio": ratio(allsum_a.median_us, allsum_b.median_us),
                    "p99_a": allsum_a.percentile(99), "p99_b": allsum_b.percentile(99),
                    "p99_ratio": ratio(allsum_a.percentile(99), allsum_b.percentile(99)),
                })
                histograms.extend(ct)
    except CpuListError as error:
        parser.error(f"argument --shield: {error}")
    except NativeToolMissing as error:
        print(f"rtsched latency: {error}", file=sys.stderr)
        return Exit.NATIVE_MISSING
    except (LatencyError, CyclictestError, ShieldError, LoadError) as error:
        print(f"rtsched latency: {error}", file=sys.stderr)
        return Exit.FAILED

    title = f"scheduling latency (us), load {args.load}" + (
        f", shielded CPU {format_cpu_list(shield_cpus)}" if shield_cpus is not None else "")
    human.print(latency_table(title, histograms))
    if comparison:
        human.print(ratio_table("rtsched-latency / cyclictest, same parameters, same invocation", comparison))
    if args.png:
        plot_histograms(args.png, histograms, title)
        human.print(f"histogram plot: {args.png}")
    if args.json:
        document = {
            "format": "rtsched-latency-report/1",
            "load": args.load,
            "shielded_cpus": shield_cpus,
            "kernel_facts": facts.as_dict(),
            "runs": runs,
            "summary": [{"label": h.label, **h.summary()} for h in histograms],
            "comparison": comparison,
        }
        text = json.dumps(document, indent=1)
        if args.json == "-":
            print(text)
        else:
            with partial(args.json) as tmp, open(tmp, "w") as f:
                f.write(text + "\n")
    return Exit.OK


def _hist_json(h: Histogram) -> dict:
    return {"label": h.label, "buckets": h.buckets, "overflows": h.overflows, "min_us": h.min_us,
            "max_us": h.max_us, "sum_us": h.sum_us}


def _merged(hs: list[Histogram]) -> Histogram:
    out = hs[0]
    for h in hs[1:]:
        out = out.merged(h)
    return out


def _run_one(cfg: LatencyConfig, label: str, human: Console, quiet: bool):
    if quiet:
        return run_latency(cfg, label=label)
    expected = sum(cfg.expected_samples(i) for i in range(len(cfg.cpus)))
    with Progress(
        TextColumn(f"[bold]{label}[/bold]"),
        BarColumn(),
        TextColumn("{task.completed:>7.0f}/{task.total:.0f} samples"),
        TextColumn("max {task.fields[max_us]:>8.1f} us"),
        TimeRemainingColumn(),
        console=human,
        transient=True,
        refresh_per_second=2,
    ) as progress:
        task = progress.add_task(label, total=expected, max_us=0.0)

        def on_progress(elapsed: float, samples: int, max_us: float) -> None:
            progress.update(task, completed=samples, max_us=max_us)

        return run_latency(cfg, on_progress=on_progress, label=label)

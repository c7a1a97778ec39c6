"""``rtsched overhead``: OS overhead by the calibrated-loop test (seed 002 §2.5.2)."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack

from rich.console import Console

from rtsched.cli.exit_codes import Exit
from rtsched.cli.latency import duration_arg, positive_int, priority_arg
from rtsched.cpus import CpuListError, checked_cpu_list, format_cpu_list, online_cpus
from rtsched.measure.loads import OVERHEAD_LOADS, LoadError, Loads
from rtsched.measure.overhead import VARIANTS, OverheadError, OverheadRun, calibrate, irq_cpus, run_loop
from rtsched.measure.report import overhead_table, plot_overhead
from rtsched.measure.shield import ShieldError, shield_cpuset_dir, shielded
from rtsched.native import NativeToolMissing


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "overhead",
        help="OS overhead: a calibrated loop run N times, epsilon = T_x - min (seed 002)",
        description="OS overhead (seed 002 §2.5.2): an integer loop calibrated to --target-ms runs "
        "--iterations times; epsilon = T_x - min T_x. Variants: other (SCHED_OTHER), fifo-irq "
        "(SCHED_FIFO on the CPU taking the most device interrupts), fifo-quiet (on the CPU taking "
        "the fewest), fifo-shielded (on a CPU shielded for the run).",
    )
    parser.add_argument("--load", choices=OVERHEAD_LOADS, default="idle", help="background load (idle)")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated, of {', '.join(VARIANTS)} (all)")
    parser.add_argument("--target-ms", type=duration_arg, default=100.0, help="length of one loop (100)")
    parser.add_argument("--iterations", type=positive_int, default=30, help="loops per variant (30)")
    parser.add_argument("--gap-ms", type=float, default=20.0,
                        help="sleep between loops; keeps SCHED_FIFO under RT throttling (20)")
    parser.add_argument("--priority", type=priority_arg, default=90, help="SCHED_FIFO priority (90)")
    parser.add_argument("--shield-cpu", type=int, default=None,
                        help="CPU to shield for fifo-shielded (default: the CPU with the fewest device IRQs)")
    parser.add_argument("--load-per-cpu", type=positive_int, default=2,
                        help="load processes per CPU (seed 002 used 16; 2 keeps a shared machine usable)")
    parser.add_argument("--json", metavar="FILE", help="results as JSON ('-': stdout)")
    parser.add_argument("--png", metavar="FILE", help="inverse CDFs of epsilon into a PNG")
    parser.set_defaults(handler=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown or not variants:
        parser.error(f"argument --variants: unknown {', '.join(unknown) or '(empty)'}; choose from {', '.join(VARIANTS)}")
    online = online_cpus()
    if args.shield_cpu is not None:
        try:
            checked_cpu_list(str(args.shield_cpu))
        except CpuListError as error:
            parser.error(f"argument --shield-cpu: {error}")
    if args.gap_ms < 0:
        parser.error("argument --gap-ms: must not be negative")
    if len(online) < 2 and any(v.startswith("fifo") for v in variants):
        parser.error("argument --variants: the SCHED_FIFO variants need two CPUs (one stays free)")

    human = Console(stderr=args.json == "-")
    results: list[OverheadRun] = []
    per_loop_s = (args.target_ms + args.gap_ms) / 1000
    budget = per_loop_s * args.iterations * len(variants) * 3 + 60
    try:
        with Loads(args.load, max_seconds=budget, purpose="overhead", per_cpu=args.load_per_cpu) as loads:
            human.print(f"load {args.load}: {loads.describe()}")
            busiest, quietest, rates = irq_cpus(list(online))
            human.print(f"device interrupts in 0.5 s per CPU: {rates}; fifo-irq on CPU {busiest}, "
                        f"fifo-quiet on CPU {quietest}")
            steps = calibrate(quietest, args.priority, args.target_ms)
            human.print(f"loop calibrated on CPU {quietest} under SCHED_FIFO: {steps} steps for {args.target_ms:g} ms")
            for variant in variants:
                cpuset = None
                with ExitStack() as stack:
                    if variant == "other":
                        cpu, policy = quietest, "other"
                    elif variant == "fifo-irq":
                        cpu, policy = busiest, "fifo"
                    elif variant == "fifo-quiet":
                        cpu, policy = quietest, "fifo"
                    else:
                        cpu = args.shield_cpu if args.shield_cpu is not None else quietest
                        policy = "fifo"
                        report = stack.enter_context(shielded([cpu]))
                        cpuset = str(shield_cpuset_dir())
                        human.print(f"shielded CPU {cpu}: {report.moved_tasks} tasks moved, IRQs refusing: "
                                    f"{', '.join(r['irq'] for r in report.refused_irqs) or 'none'}")
                    with human.status(f"{variant} on CPU {cpu}: {args.iterations} x {args.target_ms:g} ms ..."):
                        raw = run_loop(cpu, policy, args.priority, args.target_ms, args.iterations,
                                       args.gap_ms, cpuset, steps)
                results.append(OverheadRun(variant=variant, cpu=cpu, raw=raw))
    except CpuListError as error:
        parser.error(str(error))
    except NativeToolMissing as error:
        print(f"rtsched overhead: {error}", file=sys.stderr)
        return Exit.NATIVE_MISSING
    except (OverheadError, ShieldError, LoadError) as error:
        print(f"rtsched overhead: {error}", file=sys.stderr)
        return Exit.FAILED

    # One base for every variant: the fastest loop of the whole invocation (the thesis's T).
    base = min(min(r.samples_ns) for r in results if r.samples_ns)
    summaries = [r.summary(base) for r in results]
    human.print(overhead_table(f"OS overhead epsilon (ms), load {args.load}, base T = {base / 1e6:.3f} ms",
                               summaries))
    if args.png:
        plot_overhead(args.png, [(f"{r.variant} (CPU {r.cpu})", r.epsilons_ms(base)) for r in results],
                      f"OS overhead, load {args.load}")
        human.print(f"plot: {args.png}")
    if args.json:
        document = {
            "format": "rtsched-overhead-report/1",
            "load": args.load,
            "base_ns": base,
            "online_cpus": format_cpu_list(online),
            "variants": [{"summary": s, "result": r.raw} for s, r in zip(summaries, results)],
        }
        text = json.dumps(document, indent=1)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")
    return Exit.OK

"""``rtsched overhead``: OS overhead by the calibrated-loop test (seed 002 §2.5.2)."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack

from rich.console import Console

from rtsched.cli.exit_codes import Exit
from rtsched.cli.latency import duration_arg, positive_int, priority_arg
from rtsched.cpus import CpuListError, allowed_cpus, checked_cpu_list, format_cpu_list, online_cpus
from rtsched.measure.loads import OVERHEAD_LOADS, LoadError, Loads
from rtsched.measure.irqs import LocalTimerWindow
from rtsched.measure.kernel_facts import read_kernel_facts
from rtsched.measure.overhead import (
    VARIANTS,
    OverheadError,
    OverheadRun,
    calibrate,
    irq_cpus,
    plan_variant,
    run_loop,
)
from rtsched.measure.report import overhead_table, plot_overhead
from rtsched.measure.shield import ShieldError, shield_cpuset_dir, shielded
from rtsched.native import NativeToolMissing
from rtsched.outputs import partial


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "overhead",
        help="OS overhead: a calibrated loop run N times, epsilon = T_x - min (seed 002)",
        description="OS overhead (seed 002 §2.5.2): an integer loop calibrated to --target-ms runs "
        "--iterations times; epsilon = T_x - min T_x. Variants (the thesis's N, R_w, R_b, A_on, A_off): "
        "other (SCHED_OTHER), fifo-irq (SCHED_FIFO on the CPU taking the most device interrupts), "
        "fifo-quiet (on the CPU taking the fewest), fifo-shielded (on a CPU shielded for the run), "
        "fifo-tickless (on a shielded nohz_full CPU, local timer off; skipped, saying why, where no "
        "CPU is nohz_full). Each variant's local timer interrupts are counted.",
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
                        help="CPU to shield for fifo-shielded and fifo-tickless (default: the CPU with the "
                        "fewest device IRQs; for fifo-tickless a nohz_full one)")
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
    online = allowed_cpus()  # the CPUs this process may use (its affinity, within its cpuset)
    if args.shield_cpu is not None:
        try:
            checked_cpu_list(str(args.shield_cpu))
        except CpuListError as error:
            parser.error(f"argument --shield-cpu: {error}")
    if args.gap_ms < 0:
        parser.error("argument --gap-ms: must not be negative")
    if len(online) < 2 and any(v.startswith("fifo") for v in variants):
        parser.error("argument --variants: the SCHED_FIFO variants need two CPUs (one stays free); this process "
                     f"may use only CPU {format_cpu_list(online)}")

    human = Console(stderr=args.json == "-")
    results: list[OverheadRun] = []
    skipped: list[dict] = []
    facts = read_kernel_facts()
    # Only fifo-tickless can be skipped, and where it is, it is whatever CPU the load makes quietest.
    unplannable = [plan_variant(v, online[0], online[0], args.shield_cpu, list(online), facts.nohz_full).skipped
                   for v in variants]
    if all(unplannable):
        print(f"rtsched overhead: nothing to measure: {'; '.join(r for r in unplannable if r)}", file=sys.stderr)
        return Exit.FAILED
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
                plan = plan_variant(variant, busiest, quietest, args.shield_cpu, list(online), facts.nohz_full)
                if plan.skipped is not None or plan.cpu is None:
                    human.print(f"[yellow]skipped {variant}[/yellow]: {plan.skipped}", highlight=False)
                    skipped.append({"variant": variant, "reason": plan.skipped})
                    continue
                cpuset = None
                with ExitStack() as stack:
                    if plan.shielded:
                        report = stack.enter_context(shielded([plan.cpu]))
                        cpuset = str(shield_cpuset_dir())
                        human.print(f"shielded CPU {plan.cpu}: {report.moved_tasks} tasks moved, IRQs refusing: "
                                    f"{', '.join(r['irq'] for r in report.refused_irqs) or 'none'}")
                    with human.status(f"{variant} on CPU {plan.cpu}: {args.iterations} x {args.target_ms:g} ms ..."):
                        with LocalTimerWindow([plan.cpu]) as ticks:
                            raw = run_loop(plan.cpu, plan.policy, args.priority, args.target_ms, args.iterations,
                                           args.gap_ms, cpuset, steps)
                results.append(OverheadRun(variant=variant, cpu=plan.cpu, raw=raw,
                                           local_timer_interrupts=(ticks.counts or {}).get(plan.cpu)))
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
            "online_cpus": format_cpu_list(online_cpus()),
            "allowed_cpus": format_cpu_list(online),
            "kernel_facts": facts.as_dict(),
            "variants": [{"summary": s, "result": r.raw} for s, r in zip(summaries, results)],
            "skipped": skipped,
        }
        text = json.dumps(document, indent=1)
        if args.json == "-":
            print(text)
        else:
            with partial(args.json) as tmp, open(tmp, "w") as f:
                f.write(text + "\n")
    return Exit.OK

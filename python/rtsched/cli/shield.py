"""``rtsched shield``: make and unmake a real-time partition at run time."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from rtsched.cli.exit_codes import Exit
from rtsched.cpus import CpuListError, format_cpu_list, parse_cpu_list
from rtsched.measure import shield as shielding
from rtsched.measure.irqs import local_timer_counts
from rtsched.measure.kernel_facts import read_kernel_facts



def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "shield",
        help="shield CPUs: exclusive cpuset, tasks, IRQs and unbound workqueues moved off; --undo, --status",
        description="Shield CPUS: an exclusive cpuset without load balancing, every movable task "
        "and device IRQ moved to the other CPUs, the unbound workqueue cpumask narrowed. The prior "
        f"state goes to {shielding.state_file()} first; --undo restores it exactly (also after an "
        "interrupted shield).",
    )
    parser.add_argument("cpus", nargs="?", help="CPUs to shield, e.g. 1 or 2-3")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--undo", action="store_true", help="restore the state saved by the last shield")
    mode.add_argument("--status", action="store_true",
                      help="per CPU: tasks, IRQs, local timer, shielded or not; the kernel's preemption model, "
                      "nohz_full, isolcpus, rcu_nocbs")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    human = Console()
    if args.undo or args.status:
        if args.cpus:
            parser.error("argument cpus: not with --undo or --status")
        return _undo(args, human) if args.undo else _status(args, human)
    if not args.cpus:
        parser.error("argument cpus: name the CPUs to shield (or --undo, --status)")
    try:
        cpus = shielding.validate_cpus(list(parse_cpu_list(args.cpus)))
    except CpuListError as error:
        parser.error(f"argument cpus: {error}")
    try:
        report = shielding.shield(cpus)
    except KeyboardInterrupt:
        print("rtsched shield: interrupted; everything changed so far was undone", file=sys.stderr)
        return Exit.INTERRUPTED
    except (shielding.ShieldError, OSError) as error:
        print(f"rtsched shield: {error} (nothing is left changed)", file=sys.stderr)
        return Exit.FAILED
    if args.json:
        print(json.dumps(report.as_dict(), indent=1))
        return Exit.OK
    human.print(f"shielded CPU {format_cpu_list(report.cpus)} ({report.backend}, cpuset {report.shield_cpuset})")
    human.print(f"  tasks moved: {report.moved_tasks}; refused: {len(report.refused_tasks)}"
                + (f" ({', '.join(sorted({t['comm'] for t in report.refused_tasks})[:8])} ...)"
                   if report.refused_tasks else ""))
    human.print(f"  IRQs moved: {', '.join(report.moved_irqs) or 'none'}")
    for irq in report.refused_irqs:
        human.print(f"  IRQ {irq['irq']} refused ({irq['reason']}), effective on CPU {irq['effective']}")
    if report.pending_irqs:
        human.print(f"  IRQs moved but not yet re-targeted (they move at their next interrupt): "
                    f"{', '.join(report.pending_irqs)}")
    if report.workqueue_mask:
        human.print(f"  unbound workqueue cpumask: {report.workqueue_mask}")
    for note in report.notes:
        human.print(f"  note: {note}")
    human.print(f"  run work there: echo $PID > {report.shield_cpuset}/cgroup.procs; "
                "undo with `rtsched shield --undo`")
    return Exit.OK


def _undo(args: argparse.Namespace, human: Console) -> int:
    try:
        report = shielding.undo()
    except shielding.ShieldError as error:
        print(f"rtsched shield: {error}", file=sys.stderr)
        return Exit.FAILED
    if args.json:
        print(json.dumps(report.as_dict(), indent=1))
    elif not report.undone:
        human.print("no shield to undo")
    else:
        human.print(f"unshielded CPU {format_cpu_list(report.cpus)}; {report.restored_tasks} task affinities checked")
        for problem in report.problems:
            human.print(f"  problem: {problem}")
    return Exit.FAILED if report.problems else Exit.OK


def _status(args: argparse.Namespace, human: Console) -> int:
    rows = shielding.status()
    facts = read_kernel_facts()
    ticks = local_timer_counts()
    if args.json:
        print(json.dumps({
            "cpus": [r.as_dict() for r in rows],
            "kernel_facts": facts.as_dict(),
            "local_timer_interrupts": None if ticks is None else {str(c): n for c, n in ticks.items()},
        }, indent=1))
        return Exit.OK
    table = Table(title="CPUs", title_justify="left")
    for name in ("CPU", "shielded", "tasks here", "tasks allowed", "names", "device IRQs", "local timer IRQs since boot"):
        table.add_column(name)
    for r in rows:
        table.add_row(str(r.cpu), "yes" if r.shielded else "no", str(r.running_tasks), str(r.allowed_tasks),
                      ", ".join(r.task_names), " ".join(r.irqs) or "-",
                      "-" if ticks is None else str(ticks.get(r.cpu, "-")))
    human.print(table)
    for line in facts.describe():
        human.print(line, highlight=False)
    return Exit.OK

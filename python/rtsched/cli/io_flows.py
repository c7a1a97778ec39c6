"""``rtsched io FILE``: run an I/O file's flows on the unscheduled COTS bus and
under the reservation controller, and print per flow the worst observed
transfer and response times, the misses, and the analysis's bounds. See docs/io.md.

Exit codes: 0 simulated (misses are reported, not errors, unless
``--fail-on-miss``); 1 invalid input, or with ``--fail-on-miss`` a miss under
the controller.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtsched.cli.exit_codes import Exit
from rtsched.cli.invalid_input import print_invalid
from rtsched.cli.tables import print_fitting
from rtsched.outputs import write_text

if TYPE_CHECKING:
    from rtsched.analysis.io_flows import IoFlowBound
    from rtsched.model.io_system import IoSystem
    from rtsched.sim.io import IoRun


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "io",
        help="simulate I/O flows on a shared bus, without and with the reservation controller",
        description="Validates the I/O file FILE, simulates its flows on the unscheduled COTS bus (concurrent "
        "transfers share the bandwidth max-min fairly) and, when it declares servers, under the reservation "
        "controller (sporadic servers, rate monotonic), from a synchronous release over one hyperperiod, and "
        "prints per flow the worst transfer and response, the misses, the largest backlog at the peripheral and "
        "the analysis's bounds. Writes DIR/bus-unscheduled.png, DIR/bus-scheduled.png and DIR/summary.json. "
        "See docs/io.md.",
    )
    parser.add_argument("file", metavar="FILE", help="I/O file (.yaml, .yml or .json)")
    parser.add_argument("--out", metavar="DIR", type=Path, help="output folder (default: out/<name>-io/)")
    parser.add_argument("--json", action="store_true", help="print the summary JSON instead of the table")
    parser.add_argument("--no-plots", action="store_true", help="do not draw the bus-access traces")
    parser.add_argument("--fail-on-miss", action="store_true",
                        help="exit 1 when a chunk misses its deadline under the controller")
    parser.set_defaults(handler=io_command)


def _ns(value: Any) -> float | None:
    return None if value is None else float(value)


def _outcome(run: IoRun, flow: str, transfer_ns: int) -> dict[str, Any]:
    o = run.outcome(flow)
    return {"chunks": o.chunks, "misses": o.misses, "worst_transfer_ns": _ns(o.worst_transfer_ns),
            "worst_response_ns": _ns(o.worst_response_ns),
            "stretch": None if o.worst_transfer_ns is None else float(o.worst_transfer_ns / transfer_ns),
            "max_backlog_bytes": float(o.max_backlog_bytes)}


def flow_rows(system: IoSystem, unscheduled: IoRun, scheduled: IoRun | None,
              bounds: tuple[IoFlowBound, ...]) -> list[dict[str, Any]]:
    """One row per flow: its parameters, each run's outcome (ns, bytes) and the bounds."""
    rows = []
    for flow, bound in zip(system.flows, bounds):
        row: dict[str, Any] = {
            "flow": flow.name, "peripheral": flow.peripheral, "server": flow.server,
            "size_bytes": flow.size_bytes, "transfer_ns": flow.transfer_ns,
            "period_ns": flow.period_ns, "deadline_ns": flow.deadline_ns,
            "unscheduled": _outcome(unscheduled, flow.name, flow.transfer_ns),
            "scheduled": None if scheduled is None else _outcome(scheduled, flow.name, flow.transfer_ns),
            "bound": {"response_ns": bound.response_ns, "buffer_bytes": bound.buffer_bytes,
                      "delay_ns": bound.delay_ns, "reason": bound.reason or None},
        }
        rows.append(row)
    return rows


def _ms(ns: float | None) -> str:
    return "-" if ns is None else f"{ns / 1e6:.3f}"


def _print_table(system: IoSystem, rows: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    from rtsched.model.io_units import format_size

    table = Table(title=f"{system.name}: I/O flows (times in ms)")
    for column in ("flow", "size", "alone", "period", "deadline", "COTS worst", "stretch", "COTS miss",
                   "ctrl worst R", "ctrl miss", "R bound", "backlog", "buffer bound"):
        table.add_column(column, justify="left" if column == "flow" else "right")
    for row in rows:
        free, held, bound = row["unscheduled"], row["scheduled"], row["bound"]
        table.add_row(
            row["flow"], format_size(row["size_bytes"]), _ms(row["transfer_ns"]), _ms(row["period_ns"]),
            _ms(row["deadline_ns"]), _ms(free["worst_transfer_ns"]),
            "-" if free["stretch"] is None else f"+{(free['stretch'] - 1) * 100:.1f}%",
            f"{free['misses']}/{free['chunks']}",
            "-" if held is None else _ms(held["worst_response_ns"]),
            "-" if held is None else f"{held['misses']}/{held['chunks']}",
            _ms(bound["response_ns"]),
            "-" if held is None else format_size(held["max_backlog_bytes"]),
            "-" if bound["buffer_bytes"] is None else format_size(bound["buffer_bytes"]),
        )
    console = Console(width=max(Console().width, 150))
    print_fitting(console, table)
    for row in rows:
        if row["bound"]["reason"] and row["scheduled"] is not None:
            console.print(f"  {row['flow']}: no bound: {row['bound']['reason']}")
    console.print("COTS: every transfer starts when its data is ready and shares the bandwidth; "
                  "ctrl: the reservation controller. Times from a synchronous release over one hyperperiod.")


def io_command(args: argparse.Namespace) -> int:
    from rtsched.analysis.io_flows import io_flow_bounds
    from rtsched.model.io_load import load_io_system
    from rtsched.model.validate import TaskSetError
    from rtsched.sim.io import simulate_controller, simulate_unscheduled
    from rtsched.sim.io.plot import plot_bus_trace

    try:
        system = load_io_system(args.file)
    except TaskSetError as e:
        print_invalid(args.file, e.errors)
        return Exit.INVALID_INPUT
    unscheduled = simulate_unscheduled(system.without_controller())
    scheduled = simulate_controller(system) if system.scheduled else None
    bounds = io_flow_bounds(system)
    rows = flow_rows(system, unscheduled, scheduled, bounds)
    out = args.out if args.out is not None else Path("out") / f"{system.name}-io"
    out.mkdir(parents=True, exist_ok=True)
    summary = {"name": system.name, "simulated_ns": system.simulated_ns(), "flows": rows}
    write_text((out / "summary.json"), json.dumps(summary, indent=2) + "\n")
    if not args.no_plots:
        plot_bus_trace(system, unscheduled, out / "bus-unscheduled.png")
        if scheduled is not None:
            plot_bus_trace(system, scheduled, out / "bus-scheduled.png",
                           {b.flow: b.response_ns for b in bounds})
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_table(system, rows)
        print(f"wrote {out}/")
    if args.fail_on_miss and scheduled is not None and scheduled.misses:
        return Exit.FAILED
    return Exit.OK

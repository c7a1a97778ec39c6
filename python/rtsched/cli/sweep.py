"""``rtsched sweep FILE``: run a schedulability experiment; ``rtsched sweep plot DIR``: its curves.

    rtsched sweep experiment.yaml [-o DIR] [-j N] [--chunk-sets N] [--dask ADDRESS|local] [--quiet]
    rtsched sweep plot DIR [-x PARAM] [--weighted] [-o FIGURE.png|.svg] [--json]

A run resumes what the folder already holds (docs/sweep.md). Exit status: 0
done, 1 a bad experiment file or results folder, 2 usage, 130 interrupted
(the parts written so far are kept; run the same command again to resume).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from rtsched.cli.exit_codes import Exit

__all__ = ["register"]

DEFAULT_CHUNK_SETS = 1000  # rtsched.sweep.DEFAULT_CHUNK_SETS: that package needs pyarrow, imported only when run


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "sweep",
        help="schedulability experiments: generate sets over a grid, run tests, write Parquet; 'sweep plot' draws",
        description="rtsched sweep FILE runs an experiment file; rtsched sweep plot DIR draws its curves. "
        "See `rtsched sweep FILE --help`, `rtsched sweep plot --help` and docs/sweep.md.",
        add_help=False,
    )
    parser.set_defaults(handler=run, passes_arguments_on=True)


def _run_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="rtsched sweep",
        description="Runs an experiment file: every set of every grid point through every test, one row per "
        "set x test in Parquet parts under DIR, with the experiment's provenance. An interrupted run resumes "
        "where it stopped when run again. `rtsched sweep plot DIR` draws the curves.")
    ap.add_argument("file", metavar="FILE", help="experiment file (YAML; docs/sweep.md)")
    ap.add_argument("-o", "--output", metavar="DIR", type=Path,
                    help="results folder (default: FILE's name without suffix + .sweep, in the current folder)")
    ap.add_argument("-j", "--jobs", type=int, metavar="N", help="worker processes (default: every CPU)")
    ap.add_argument("--chunk-sets", type=int, default=DEFAULT_CHUNK_SETS, metavar="N",
                    help=f"sets per unit of work and per Parquet part (default {DEFAULT_CHUNK_SETS})")
    ap.add_argument("--dask", metavar="ADDRESS", help="run on the Dask scheduler at ADDRESS (tcp://host:8786), "
                    "or 'local' for a local dask.distributed cluster of --jobs workers (pip install .[dask])")
    ap.add_argument("--check", action="store_true", help="only check the file and print the grid's size")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return ap


def _plot_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="rtsched sweep plot",
        description="The fraction of sets each test deems schedulable against a swept parameter (one line per "
        "test and value of the other grid parameters, 95 % Wilson intervals), drawn and printed as a table.")
    ap.add_argument("dir", metavar="DIR", type=Path, help="a results folder of rtsched sweep")
    ap.add_argument("-x", metavar="PARAM", help="the parameter on the x axis (default: the grid's first)")
    ap.add_argument("-o", "--output", metavar="FIGURE", type=Path,
                    help="figure file, .png, .svg or .pdf (default: DIR/curves.png)")
    ap.add_argument("--weighted", action="store_true",
                    help="weighted schedulability (sum of U x schedulable / sum of U) instead of the fraction")
    ap.add_argument("--json", action="store_true", help="print the table as JSON")
    return ap


def run(args: argparse.Namespace, rest: list[str]) -> int:
    try:  # here, not at the top: every other subcommand works without pyarrow
        import pyarrow  # noqa: F401
    except ImportError:
        print("rtsched sweep: needs pyarrow, a dependency of rtsched (pip install pyarrow, or scripts/setup)",
              file=sys.stderr)
        return Exit.FAILED
    if rest[:1] == ["plot"]:
        return _plot(_plot_parser().parse_args(rest[1:]))
    return _sweep(_run_parser().parse_args(rest))


def _sweep(args: argparse.Namespace) -> int:
    from rtsched.sweep import AnalysisFailed, ExperimentError, GenerationError, SweepError, load_experiment, run_sweep

    err = Console(stderr=True)
    if args.jobs is not None and args.jobs < 1 or args.chunk_sets < 1:
        err.print("rtsched sweep: --jobs and --chunk-sets must be at least 1")
        return Exit.USAGE
    try:
        experiment = load_experiment(args.file)
    except ExperimentError as error:
        print(error, file=sys.stderr)
        return Exit.FAILED
    points = len(experiment.points())
    print(f"{experiment.source}: {points} grid point(s) x {experiment.samples} sets x {len(experiment.tests)} "
          f"test(s) = {experiment.total_sets * len(experiment.tests):,} rows")
    if args.check:
        return Exit.OK
    output = args.output or Path(Path(args.file).stem + ".sweep")
    try:
        summary = run_sweep(experiment, output, workers=args.jobs, chunk_sets=args.chunk_sets,
                            dask_address=args.dask, progress=not args.quiet, console=err)
    except (SweepError, GenerationError, AnalysisFailed) as error:
        print(f"rtsched sweep: {error}", file=sys.stderr)
        return Exit.FAILED
    except KeyboardInterrupt:
        print(f"rtsched sweep: interrupted; the parts written are kept in {output}: run again to resume",
              file=sys.stderr)
        return Exit.INTERRUPTED
    print(f"{output}: {summary.sets_computed:,} set(s) computed in {summary.wall_s:.1f} s "
          f"({summary.sets_per_s:,.0f} sets/s, {summary.executor}, {summary.workers} worker(s)); "
          f"{summary.sets_found:,} were already there")
    return Exit.OK


def _plot(args: argparse.Namespace) -> int:
    from rtsched.sweep import ExperimentError, SweepError, loads_experiment, read_results
    from rtsched.sweep.curves import curve_table, plot_curves

    try:
        experiment = loads_experiment((args.dir / "experiment.yaml").read_text(), str(args.dir / "experiment.yaml"),
                                      args.dir)
        rows = read_results(args.dir)
    except (OSError, ExperimentError, SweepError) as error:
        print(f"rtsched sweep plot: {args.dir}: not a complete results folder: {error}", file=sys.stderr)
        return Exit.FAILED
    grid = experiment.grid_keys
    x = args.x or (grid[0] if grid else "utilization")
    if x not in rows.schema.names or x not in grid:
        print(f"rtsched sweep plot: -x {x}: not a swept parameter (the grid's: {', '.join(grid) or 'none'})",
              file=sys.stderr)
        return Exit.USAGE
    by = [k for k in grid if k != x]
    points = curve_table(rows, x, by, [t.label for t in experiment.tests], weighted=args.weighted)
    figure = args.output or args.dir / "curves.png"
    plot_curves(points, x, figure, title=experiment.name, weighted=args.weighted)
    if args.json:
        print(json.dumps([{"test": p.test, **dict(p.by), x: p.x, "sets": p.sets, "schedulable": p.schedulable,
                           "value": p.value, "low": p.low, "high": p.high} for p in points], indent=1))
        return Exit.OK
    table = Table(title=f"{experiment.name}: {'weighted schedulability' if args.weighted else 'fraction schedulable'}"
                        f" -> {figure}")
    for column in ("test", *by, x, "sets", "schedulable", "value", "95 % interval"):
        table.add_column(column, justify="left" if column == "test" else "right")
    for p in points:
        interval = "" if p.low is None else f"[{p.low:.3f}, {p.high:.3f}]"
        table.add_row(p.test, *(str(v) for _, v in p.by), str(p.x), str(p.sets), str(p.schedulable),
                      f"{p.value:.3f}", interval)
    Console().print(table)
    return Exit.OK

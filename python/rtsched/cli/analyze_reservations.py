"""``rtsched analyze FILE`` for a set with reservations: each reservation's PRM verdict and least budgets.

One row per reservation (its Γ(Π, Θ), the least budget with the exact and
with the linear supply bound, whether the budget given is that least one,
the verdict), then the top level of each partition and one row per task
(its bound from its leaf's PRM test). docs/reservations.md explains the
analysis. Exit status as ``rtsched analyze``: 0 when every hard reservation,
the top level and their tasks are schedulable.
"""

from __future__ import annotations

import json
import sys

from rich.console import Console
from rich.table import Table

from rtsched.cli.exit_codes import Exit
from rtsched.cli.tables import print_fitting
from rtsched.model import TaskSet, format_duration


def _fmt(ns: int | None) -> str:
    return "—" if ns is None else format_duration(ns)


def show_reservations(path: str, taskset: TaskSet, as_json: bool) -> int:
    from rtsched.analysis.reservations import analyze_reservations
    from rtsched.analysis.tasks import varying_demand_notes

    result = analyze_reservations(taskset)
    analysed = result.tasks.details["analysed_budget_ns"]  # an adapted reservation: its max_budget
    status = Exit.OK if result.schedulable else Exit.FAILED
    if as_json:
        out = {"file": path, "taskset": taskset.name, "scheduler": taskset.platform.policy,
               **result.tasks.to_dict(),
               "reservations": [{"name": o.name, "criticality": o.reservation.criticality,
                                 "period_ns": o.reservation.period_ns, "budget_ns": o.reservation.budget_ns,
                                 "min_budget_ns": o.min_budget_ns, "min_budget_linear_ns": o.min_budget_linear_ns,
                                 "is_minimum": o.is_minimum,
                                 "analysed_budget_ns": analysed[o.name],
                                 "verdict": None if o.result is None else o.result.verdict}
                                for o in result.reservations],
               "top": [{"partition": part, **res.to_dict()} for part, res in result.top],
               "notes": varying_demand_notes(taskset)}
        json.dump(out, sys.stdout, indent=1)
        print()
        return status
    console = Console()
    table = Table(title=f"{taskset.name}: reservations ({taskset.platform.policy} at the top)")
    for col in ("reservation", "parent", "kind", "scheduler", "period", "budget", "least (sbf)", "least (lsbf)",
                "verdict"):
        table.add_column(col, justify="right" if col in ("period", "budget", "least (sbf)", "least (lsbf)")
                         else "left")
    for o in result.reservations:
        r = o.reservation
        if o.result is None:
            verdict = "[yellow]soft: adapted[/]"
        elif o.result.verdict == "unsupported":
            verdict = "[yellow]no bound[/]"
        else:
            verdict = "[green]ok[/]" if o.schedulable else "[red]miss[/]"
        budget = _fmt(r.budget_ns) + (" (least)" if o.is_minimum else "")
        if analysed[r.name] != r.budget_ns:
            budget += f", counted as {_fmt(analysed[r.name])} (max_budget)"
        table.add_row(r.name, r.parent or "—", f"{r.criticality} {r.kind}", r.scheduler, _fmt(r.period_ns),
                      budget, _fmt(o.min_budget_ns), _fmt(o.min_budget_linear_ns), verdict)
    print_fitting(console, table)
    for part, res in result.top:
        console.print(f"top level of {part}: {res.verdict} ({res.test}): {res.reason}", highlight=False)
    tasks = Table(title="tasks")
    for col in ("task", "reservation", "period", "WCET", "bound", "verdict"):
        tasks.add_column(col, justify="right" if col in ("period", "WCET", "bound") else "left")
    style = {"ok": "green", "miss": "red", "unknown": "yellow"}
    for b in result.tasks.tasks:
        t = taskset.task(b.name)
        tasks.add_row(b.name, t.reservation or "—", _fmt(t.period_ns), _fmt(t.wcet_ns), _fmt(b.bound_ns),
                      f"[{style[b.verdict]}]{b.verdict}[/]")
    console.print(tasks)
    for b in result.tasks.tasks:
        console.print(f"  {b.name}: {b.reason}", highlight=False)
    for note in varying_demand_notes(taskset):
        console.print(f"note: {note}", highlight=False)
    colour = "green" if result.schedulable else "red"
    console.print(f"[{colour}]{result.tasks.verdict}[/]: {result.tasks.reason}")
    return status

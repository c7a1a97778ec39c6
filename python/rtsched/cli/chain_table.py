"""The chains tables (docs/chains.md): ``rtsched run`` and ``rtsched sim`` print, under the tasks',
per chain the observed reaction time and data age (mean, max) beside their bounds; ``rtsched
analyze`` the bounds alone; both say why a chain has none."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtsched.cli.tables import figures_table, ms, print_fitting

if TYPE_CHECKING:
    from rich.console import Console

    from rtsched.analysis.results import ChainBound
    from rtsched.report.chains import ChainLatency

__all__ = ["print_chain_bounds", "print_chain_table"]


def print_chain_table(chains: tuple[ChainLatency, ...], console: Console) -> None:
    """The table of ``chains`` (nothing when the set has none), then a note per bound left out."""
    if not chains:
        return
    table = figures_table(
        "cause-effect chains",
        ["chain", "links", "reactions", "react mean", "react max", "react bound", "ages", "age mean", "age max",
         "age bound", "Davare"],
        "times in ms; react: a cause to the last task's first output reflecting it; age: the first task's read to "
        "an output derived from it; Davare: the classic sum (period + bound per task); ! marks a maximum above its bound",
        labels=("chain", "links"),
    )
    for c in chains:
        bound = c.bound
        table.add_row(
            c.name,
            ",".join("ev" if link == "event" else "reg" for link in c.links),
            str(c.reactions), ms(c.reaction_mean_ns), _max(c.reaction_max_ns, c.reaction_exceeded),
            ms(bound.reaction_ns if bound else None),
            str(c.ages), ms(c.data_age_mean_ns), _max(c.data_age_max_ns, c.data_age_exceeded),
            ms(bound.data_age_ns if bound else None),
            ms(bound.davare_ns if bound else None),
        )
    print_fitting(console, table, labels=2)
    _print_reasons([c.bound for c in chains if c.bound is not None], console)


def print_chain_bounds(bounds: tuple[ChainBound, ...], console: Console) -> None:
    """``rtsched analyze``'s table of the chains' bounds (nothing when the set has none), then a
    note per bound left out."""
    if not bounds:
        return
    table = figures_table(
        "cause-effect chains",
        ["chain", "links", "reaction bound", "data-age bound", "Davare"],
        "times in ms; reaction: a cause to the last task's first output reflecting it; data age: the first "
        "task's read to an output derived from it; Davare: the classic sum (period + bound per task); "
        "`rtsched sim` and `rtsched run` measure both beside these",
        labels=("chain", "links"),
    )
    for b in bounds:
        table.add_row(b.name, ",".join("ev" if link == "event" else "reg" for link in b.links), ms(b.reaction_ns),
                      ms(b.data_age_ns), ms(b.davare_ns))
    print_fitting(console, table, labels=2)
    _print_reasons(bounds, console)


def _print_reasons(bounds: list[ChainBound] | tuple[ChainBound, ...], console: Console) -> None:
    for bound in bounds:
        if bound.reaction_reason:
            console.print(f"chain {bound.name}: no reaction-time bound: {bound.reaction_reason}", highlight=False)
        if bound.data_age_reason and bound.data_age_reason != bound.reaction_reason:
            console.print(f"chain {bound.name}: no data-age bound: {bound.data_age_reason}", highlight=False)
        elif bound.data_age_reason:
            console.print(f"chain {bound.name}: no data-age bound either", highlight=False)


def _max(ns: int | None, exceeded: bool) -> str:
    return f"[bold red]{ms(ns)} ![/]" if exceeded else ms(ns)

"""The tables ``rtsched run`` prints: its report, and each run beside another
(``--compare-picv``, ``--compare-backends``, ``--compare-sim``).

One shape for all of them: times in ms with µs resolution ("–" for none), the
label columns (the task, the variant) left-aligned and every figure
right-aligned, no cell wrapped; printed on a console 160 columns wide when
the output is not a terminal (a file, a pipe), so that no column is cut.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

__all__ = ["ms", "figures_table", "report_console"]

#: The width of a console that is no terminal.
UNBOUNDED_WIDTH = 160


def ms(ns: float | int | None) -> str:
    """Milliseconds with µs resolution; "–" for no value."""
    return "–" if ns is None else f"{ns / 1e6:.3f}"


def figures_table(title: str, headers: Iterable[str], caption: str | None = None,
                  labels: Iterable[str] = ("task",)) -> Table:
    """An empty table with ``headers`` as columns: those in ``labels`` left-aligned, the others right."""
    from rich.table import Table

    left = set(labels)
    table = Table(title=title)
    table.caption = caption
    for header in headers:
        table.add_column(header, justify="left" if header in left else "right", no_wrap=True)
    return table


def report_console() -> Console:
    """The console the tables go to: standard output, UNBOUNDED_WIDTH wide when it is no terminal."""
    from rich.console import Console

    console = Console(highlight=False)
    return console if console.is_terminal else Console(highlight=False, width=UNBOUNDED_WIDTH)

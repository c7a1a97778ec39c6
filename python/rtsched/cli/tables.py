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

__all__ = ["ms", "figures_table", "print_fitting", "report_console"]

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


def _cell_width(cell: object) -> int:
    from rich.text import Text

    if isinstance(cell, Text):
        return cell.cell_len
    return Text.from_markup(str(cell)).cell_len if isinstance(cell, str) else len(str(cell))


def print_fitting(console: Console, table: Table, labels: int = 1) -> None:
    """Print ``table`` whole when it fits the console; else as several tables one under the other,
    each with the first ``labels`` columns (the task's name) and as many of the others as fit,
    so that no cell is cut short (an 80-column terminal would show "con…" for "control")."""
    from rich.table import Table as RichTable

    columns = table.columns
    # a column's width: its widest cell or header, plus padding (2) and a border (1)
    widths = [max([_cell_width(c.header)] + [_cell_width(cell) for cell in c._cells]) + 3 for c in columns]
    fixed = sum(widths[:labels]) + 1
    if sum(widths) + 1 <= console.width or len(columns) <= labels + 1:
        console.print(table)
        return
    groups: list[list[int]] = [[]]
    used = fixed
    for i in range(labels, len(columns)):
        if groups[-1] and used + widths[i] > console.width:
            groups.append([])
            used = fixed
        groups[-1].append(i)
        used += widths[i]
    for n, group in enumerate(groups):
        part = RichTable(title=(table.title if n == 0 else None))
        for i in [*range(labels), *group]:
            c = columns[i]
            part.add_column(c.header, justify=c.justify, no_wrap=True, style=c.style)
        for row in range(table.row_count):
            part.add_row(*(columns[i]._cells[row] for i in [*range(labels), *group]))
        console.print(part)
    if table.caption:  # under the last part, at the console's width rather than the part's
        console.print(table.caption, style="dim italic")

"""The tables of ``rtsched tlb``: one row per policy, and the paper's findings beside the model's."""

from __future__ import annotations

from typing import Sequence

from rich.table import Table

from rtsched.tlb.paper import Comparison
from rtsched.tlb.study import StudyResult

__all__ = ["comparison_table", "study_table"]


def _us(ns: int | None) -> str:
    return "no bound" if ns is None else f"{ns / 1000:,.1f}"


def study_table(result: StudyResult, title: str) -> Table:
    first = result.rows[0]
    rt1 = next(iter(first.wcet_ns))
    last = list(first.wcet_ns)[-1]
    g = result.geometry
    table = Table(title=f"{title}: {g.entries}-entry TLB ({g.rule}), {result.periods} periods of "
                  f"{result.period_ns / 1e6:g} ms; miss {result.costs.miss_ns / 1000:g} µs; method 2 cheaper than "
                  f"method 1 from {result.costs.crossover_entries()} entries")
    chain_end = [f"{last} R µs"] if last != rt1 else []
    table.add_column("policy", no_wrap=True)
    for column in ("locked", "metric avg", "metric max", "misses max", "locking µs", f"{rt1} WCET µs",
                   f"{rt1} R µs", *chain_end, "NR misses ×", "NR exec ×", "NR resp ×"):
        table.add_column(column, justify="right")
    for row in result.rows:
        misses, exec_ratio, response_ratio = result.nr_ratios(row.policy)
        end = [_us(row.response_ns[last])] if chain_end else []
        table.add_row(row.policy, str(row.entries_locked), f"{float(row.metric.average):.2%}",
                      f"{float(row.metric.maximum):.2%}", str(row.metric.max_misses), _us(row.locking_ns_per_job),
                      _us(row.wcet_ns[rt1]), _us(row.response_ns[rt1]), *end,
                      f"{float(misses):.3f}", f"{float(exec_ratio):.4f}", f"{float(response_ratio):.4f}")
    return table


def comparison_table(comparisons: Sequence[Comparison]) -> Table:
    table = Table(title="The paper's findings and the model's (fitted: the one number chosen to match)")
    for column in ("finding", "paper", "model", "difference"):
        table.add_column(column, justify="left" if column == "finding" else "right")
    for c in comparisons:
        table.add_row(c.quantity + (" [fitted]" if c.fitted else ""), f"{float(c.paper):.4g}",
                      f"{float(c.model):.4g}", f"{float(c.relative_difference):+.1%}")
    return table

"""Schedulability curves from a sweep's rows: the table, and its figure.

:func:`curve_table` groups the rows by the swept parameter ``x``, the other
grid parameters (``by``) and the test, and gives per group the sets, the sets
deemed schedulable, the fraction and its 95 % Wilson score interval (which
stays inside [0, 1] and is sound at fractions of 0 and 1, unlike the normal
approximation). With ``weighted=True`` the value is the weighted
schedulability of Bastoni, Brandenburg and Anderson: Σ U·S / Σ U over the
group's sets, U the set's utilization and S 1 when schedulable (no interval:
it is not a proportion of independent trials).

:func:`plot_curves` draws one line per (test, by-values) with the interval
as a band, to PNG, SVG or PDF (by the file's suffix).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa
import pyarrow.compute as pc
from rtsched.outputs import partial

__all__ = ["CurvePoint", "curve_table", "plot_curves", "wilson_interval"]

Z_95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (0, 1 when there is no trial)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """One point of one curve."""

    test: str
    by: tuple[tuple[str, Any], ...]
    x: Any
    sets: int
    schedulable: int
    value: float
    low: float | None
    high: float | None

    @property
    def curve(self) -> str:
        return self.test + "".join(f", {k}={v}" for k, v in self.by)


def curve_table(rows: pa.Table, x: str, by: Sequence[str], tests: Sequence[str],
                weighted: bool = False) -> list[CurvePoint]:
    """The points of every curve: ordered by ``tests`` (the experiment's order), then by-values, then x."""
    keys = [x, *by, "test"]
    grouped = rows.group_by(keys).aggregate([("schedulable", "sum"), ("schedulable", "count")])
    weights: dict[tuple[Any, ...], tuple[float, float]] = {}
    if weighted:
        scored = rows.append_column("u_ok", pc.if_else(rows["schedulable"], rows["set_utilization"], 0.0))
        for g in scored.group_by(keys).aggregate([("u_ok", "sum"), ("set_utilization", "sum")]).to_pylist():
            weights[tuple(g[k] for k in keys)] = (g["u_ok_sum"], g["set_utilization_sum"])
    order = {t: i for i, t in enumerate(tests)}
    out = []
    for g in grouped.to_pylist():
        sets, ok = g["schedulable_count"], g["schedulable_sum"]
        if weighted:
            u_ok, u_all = weights[tuple(g[k] for k in keys)]
            value, low, high = (u_ok / u_all if u_all else 0.0), None, None
        else:
            value = ok / sets
            low, high = wilson_interval(ok, sets)
        out.append(CurvePoint(g["test"], tuple((k, g[k]) for k in by), g[x], sets, ok, value, low, high))
    out.sort(key=lambda p: (order.get(p.test, len(order)), p.test, p.by, p.x))
    return out


def plot_curves(points: Sequence[CurvePoint], x: str, path: str | Path, title: str = "",
                weighted: bool = False) -> None:
    """One line per curve, with its 95 % interval as a band; the format from the suffix of ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    curves: dict[str, list[CurvePoint]] = {}
    for p in points:
        curves.setdefault(p.curve, []).append(p)
    for name, pts in curves.items():
        xs = [p.x for p in pts]
        line, = ax.plot(xs, [p.value for p in pts], marker="o", markersize=3, label=name)
        if not weighted:
            ax.fill_between(xs, [p.low or 0.0 for p in pts], [1.0 if p.high is None else p.high for p in pts], color=line.get_color(), alpha=0.2,
                            linewidth=0)
    ax.set_xlabel(x)
    ax.set_ylabel("weighted schedulability" if weighted else "fraction schedulable (95 % Wilson interval)")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)

"""The AdHierSched case study (seed 000 §V, Table IV) in `rtsched sim`, through
examples/adhiersched/compare_table_iv.py: the adaptive budgets keep the soft servers within the
paper's adaptive miss ratios, the fixed ones do far worse, and the hard server S1 is untouched.

The whole minute of the paper (and of the demand traces, which cycle after it) is simulated: it
takes well under a second per file, so no shorter, less representative window is needed. The
simulation is deterministic, so the ratios are exact; docs/reservations.md shows them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from rtsched.model import load_taskset

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "adhiersched"
SECONDS = 60


def _script():
    spec = importlib.util.spec_from_file_location("compare_table_iv", EXAMPLE / "compare_table_iv.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


table = _script()


@pytest.fixture(scope="module")
def fixed():
    return table.simulate(table.STATIC, SECONDS)


@pytest.fixture(scope="module")
def adaptive():
    return table.simulate(table.ADAPTIVE, SECONDS)


def test_the_two_files_are_one_system_but_for_the_controller():
    static, adapted = load_taskset(table.STATIC), load_taskset(table.ADAPTIVE)
    assert static.tasks == adapted.tasks
    for a, b in zip(static.reservations, adapted.reservations, strict=True):
        assert (a.name, a.parent, a.period_ns, a.budget_ns, a.importance) == \
            (b.name, b.parent, b.period_ns, b.budget_ns, b.importance)
    assert all(r.controller is not None and r.controller.policy == "fixed"
               for r in static.reservations if r.name in table.SOFT)
    assert all(r.controller is None or r.controller.policy != "fixed" for r in adapted.reservations)


def test_adaptive_budgets_miss_no_more_than_the_papers_adaptive_run(adaptive):
    ratios = table.miss_percent(adaptive)
    assert ratios["total"] <= sum(table.PAPER["adaptive"])  # 12.29 %, the sum of the three rows


def test_the_most_important_soft_server_misses_least_of_all(adaptive):
    reservations = load_taskset(table.ADAPTIVE).reservations
    top = max((r for r in reservations if r.name in table.SOFT), key=lambda r: r.importance)
    assert top.name == "S3"
    assert table.miss_percent(adaptive)["S3"] <= table.PAPER["adaptive"][0]  # 1.11 %


def test_fixed_budgets_miss_far_more(fixed, adaptive):
    assert table.miss_percent(fixed)["total"] >= 2 * table.miss_percent(adaptive)["total"]
    assert table.miss_percent(fixed)["pooled"] >= 2 * table.miss_percent(adaptive)["pooled"]


@pytest.mark.parametrize("which", ["fixed", "adaptive"])
def test_the_hard_server_never_misses_and_stays_within_its_prm_bound(request, which):
    summary = request.getfixturevalue(which)
    rows = table.hard_tasks(summary, table.analyze(table.ADAPTIVE if which == "adaptive" else table.STATIC))
    assert [name for name, *_ in rows] == ["t1_1", "t1_2"]
    periods_ms = {"t1_1": 200, "t1_2": 400}
    for name, jobs, misses, response, bound in rows:
        assert jobs == SECONDS * 1000 // periods_ms[name] and misses == 0
        assert response <= bound


def test_the_figures_in_the_docs(fixed, adaptive):
    """docs/reservations.md, "Case study (seed 000, Table IV)": 60 s, seed 1."""
    def rounded(summary):
        return {k: round(v, 2) for k, v in table.miss_percent(summary).items()}
    assert rounded(fixed) == {"S3": 92.85, "S4": 74.5, "S5": 90.33, "total": 257.68, "pooled": 89.4}
    assert rounded(adaptive) == {"S3": 1.0, "S4": 4.46, "S5": 1.22, "total": 6.68, "pooled": 1.62}


def test_the_demand_plot_shows_table_iii(tmp_path, monkeypatch):
    """examples/adhiersched/plot_demand.py (seed 000 Fig. 5): per server period, Table III's average
    and maximum, and the PNG written."""
    monkeypatch.syspath_prepend(str(EXAMPLE))  # the script imports generate_demand beside it
    spec = importlib.util.spec_from_file_location("plot_demand", EXAMPLE / "plot_demand.py")
    assert spec is not None and spec.loader is not None
    plot_demand = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot_demand)
    demand = plot_demand.demand_percent()
    for server, (average, maximum) in {"S3": (13.35, 60.0), "S4": (12.36, 54.0), "S5": (11.98, 44.0)}.items():
        assert demand[server].mean() == pytest.approx(average, abs=0.001)
        assert demand[server].max() == pytest.approx(maximum)
    plot_demand.plot(tmp_path / "demand.png", 5.0)
    assert (tmp_path / "demand.png").stat().st_size > 0

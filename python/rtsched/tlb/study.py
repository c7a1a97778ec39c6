"""The study of one flow under every policy: the metric, the locked WCETs and their response times.

For each policy (``schedule.POLICIES``) the flow is replayed on a fresh TLB and:

- the metric (``metric``) of the measured task (the chain's first, RT_TASK1);
- each real-time task's locked WCET: its best-case time + its most misses in
  any job × the handler cost, + for the first task the dynamic method's cost
  of locking and releasing (the paper charges it to the activated job);
- the response times of the chain by the fixed-priority response-time
  analysis (``rtsched.analysis.fp_uni.fp_rta``): the tasks are released
  together each period, in the chain's priority order, deadline = period —
  for a chain whose tasks activate one another this is the end-to-end time;
- the non-real-time task: its misses, its execution time (its own work per
  period, ``nr_work_ns_per_period``, plus its misses × the handler cost) and
  its response time — the whole run, as it ends after the last period — each
  also as a ratio to no locking (the paper's Figs. 7 and 8).

Everything is in integer nanoseconds and exact fractions.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rtsched.analysis.fp_uni import fp_rta
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask
from rtsched.tlb.costs import LockingCosts
from rtsched.tlb.metric import MetricSummary, summarize_metric
from rtsched.tlb.schedule import POLICIES, Flow, FlowResult, run_flow
from rtsched.tlb.tlb import TlbGeometry

__all__ = ["PolicyRow", "StudyResult", "run_study", "study_to_dict"]


@dataclass(frozen=True, slots=True)
class PolicyRow:
    """One policy's outcome (see the module doc); ``response_ns`` None: no bound within the deadline.

    ``first_misses``: the first task's misses in each job (its execution time
    is its best case + misses × the handler + ``locking_ns_per_job``).
    """

    policy: str
    entries_locked: int
    metric: MetricSummary
    first_misses: tuple[int, ...]
    locking_ns_per_job: int
    wcet_ns: dict[str, int]
    response_ns: dict[str, int | None]
    nr_misses: int
    nr_exec_ns: int
    nr_response_ns: int


@dataclass(frozen=True, slots=True)
class StudyResult:
    """Every policy's row, in ``POLICIES`` order, and what the study ran on."""

    rows: tuple[PolicyRow, ...]
    first_task: str
    first_bcet_ns: int
    covered: int
    periods: int
    period_ns: int
    geometry: TlbGeometry
    costs: LockingCosts

    def row(self, policy: str) -> PolicyRow:
        return next(r for r in self.rows if r.policy == policy)

    def first_exec_ns(self, policy: str) -> list[int]:
        """The first task's execution time in each job under ``policy``."""
        row = self.row(policy)
        return [self.first_bcet_ns + m * self.costs.miss_ns + row.locking_ns_per_job for m in row.first_misses]

    def nr_ratios(self, policy: str) -> tuple[Fraction, Fraction, Fraction]:
        """(misses, execution time, response time) of the non-real-time task under ``policy`` over no locking."""
        base, row = self.row("none"), self.row(policy)
        misses = Fraction(row.nr_misses, base.nr_misses) if base.nr_misses else Fraction(1)
        return misses, Fraction(row.nr_exec_ns, base.nr_exec_ns), Fraction(row.nr_response_ns, base.nr_response_ns)


def _row(flow: Flow, result: FlowResult, costs: LockingCosts, period_ns: int,
         nr_work_ns_per_period: int) -> PolicyRow:
    first = flow.chain[0]
    locking_ns = costs.locking_ns(result.policy, result.entries_locked)
    wcet = {job.name: job.bcet_ns + max(result.misses[job.name]) * costs.miss_ns for job in flow.chain}
    wcet[first.name] += locking_ns
    tasks = tuple(AnalysisTask(job.name, wcet[job.name], period_ns, period_ns, priority=len(flow.chain) - i)
                  for i, job in enumerate(flow.chain))
    bounds = fp_rta(AnalysisProblem(tasks, scheduler="FP", name=f"tlb {result.policy}")).bounds()
    rt_busy_ns = sum(job.bcet_ns * flow.periods + sum(result.misses[job.name]) * costs.miss_ns
                     for job in flow.chain) + locking_ns * flow.periods
    nr_exec_ns = nr_work_ns_per_period * flow.periods + result.nr_misses * costs.miss_ns
    return PolicyRow(result.policy, result.entries_locked,
                     summarize_metric(result.misses[first.name], costs.miss_ns, first.bcet_ns),
                     result.misses[first.name], locking_ns, wcet, {job.name: bounds[job.name] for job in flow.chain},
                     result.nr_misses, nr_exec_ns, rt_busy_ns + nr_exec_ns)


def run_study(flow: Flow, geometry: TlbGeometry, costs: LockingCosts, period_ns: int,
              nr_work_ns_per_period: int, policies: tuple[str, ...] = POLICIES) -> StudyResult:
    """Replay ``flow`` under each policy (``none`` is always included: the ratios need it)."""
    if period_ns <= 0 or nr_work_ns_per_period < 0:
        raise ValueError("the period must be positive and the non-real-time work not negative")
    wanted = tuple(p for p in POLICIES if p == "none" or p in policies)
    rows = tuple(_row(flow, run_flow(flow, geometry, p), costs, period_ns, nr_work_ns_per_period) for p in wanted)
    first = flow.chain[0]
    return StudyResult(rows, first.name, first.bcet_ns, flow.covered, flow.periods, period_ns, geometry, costs)


def study_to_dict(result: StudyResult) -> dict[str, Any]:
    """The study as JSON-ready data (ratios as floats, times in ns)."""
    g = result.geometry
    rows = []
    for r in result.rows:
        misses, exec_ratio, response_ratio = result.nr_ratios(r.policy)
        rows.append({
            "policy": r.policy, "entries_locked": r.entries_locked,
            "metric_average": float(r.metric.average), "metric_maximum": float(r.metric.maximum),
            "mean_misses": float(r.metric.mean_misses), "max_misses": r.metric.max_misses,
            "locking_ns_per_job": r.locking_ns_per_job, "wcet_ns": r.wcet_ns, "response_ns": r.response_ns,
            "nr_misses": r.nr_misses, "nr_exec_ns": r.nr_exec_ns, "nr_response_ns": r.nr_response_ns,
            "nr_miss_ratio": float(misses), "nr_exec_ratio": float(exec_ratio),
            "nr_response_ratio": float(response_ratio),
        })
    c = result.costs
    return {
        "tlb": {"entries": g.entries, "ways": g.ways or g.entries, "rule": g.rule, "page_bytes": g.page_bytes,
                "seed": g.seed},
        "costs_ns": {"miss": c.miss_ns, "method1_fixed": c.method1_fixed_ns,
                     "method1_per_entry": c.method1_per_entry_ns, "method2_fixed": c.method2_fixed_ns,
                     "method2_per_entry": c.method2_per_entry_ns},
        "crossover_entries": c.crossover_entries(), "method1_break_even_entries": c.method1_break_even_entries(),
        "covered": result.covered, "periods": result.periods, "period_ns": result.period_ns, "policies": rows,
    }

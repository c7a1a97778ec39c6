"""The few job rows the report looks at one by one, kept from a pass over the trace
(``job_pass.run_pass``) instead of the whole table: those above their task's bound
(``excess``) and those over their WCET (``cpu_overuse``). The jobs above their bound are
few where a set is analysed right; the memory is theirs.

    notable = NotableRows({0: 2_000_000}, {0: 1_000_000})
    table = build_job_table(trace, paces, consumers=[notable])
    explain_excess(notable.table(table), ...); jobs_over_wcet(notable.table(table), wcets)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rtsched.report.cpu_overuse import overuse_tolerance_ns
from rtsched.report.job_pass import StreamBlock
from rtsched.report.jobs import JOB_DTYPE, JobTable, TaskInfo

__all__ = ["NotableRows"]


class NotableRows:
    """Rows whose response is above ``bounds_ns`` or whose CPU time is over ``wcet_ns`` (each
    by task index; a task without one is not looked at), beyond cpu_overuse's tolerance."""

    def __init__(self, bounds_ns: Mapping[int, int], wcet_ns: Mapping[int, int]) -> None:
        self._bounds = bounds_ns
        self._cpu_limits = {i: w + overuse_tolerance_ns(w) for i, w in wcet_ns.items() if w > 0}
        self._rows: list[np.ndarray] = []

    def window(self, blocks: Sequence[StreamBlock], watermark_ns: int) -> None:
        for block in blocks:
            rows = block.rows
            keep = np.zeros(len(rows), bool)
            if block.index in self._bounds:
                keep |= rows["response"] > self._bounds[block.index]
            if block.index in self._cpu_limits:
                keep |= rows["cpu_time"] > self._cpu_limits[block.index]
            if keep.any():
                self._rows.append(rows[keep])

    def finish(self, tasks: tuple[TaskInfo, ...]) -> None:
        pass

    def table(self, whole: JobTable) -> JobTable:
        """``whole`` with these rows only (by task then job)."""
        jobs = np.concatenate(self._rows) if self._rows else np.zeros(0, JOB_DTYPE)
        jobs = jobs[np.lexsort((jobs["job"], jobs["task"]))]
        return JobTable.of(jobs, whole.tasks, whole.t0_ns, whole.duration_ns, whole.lost_total, whole.name)

"""The report of a trace (docs/architecture.md): whatever produced it, the C runner or a simulator.

- ``report``: ``build_report`` (one call: trace + task set + analysis + placement ->
  an immutable ``Report``), ``write_report`` (the files), ``summary_dict``;
- ``jobs``: the per-job table; ``stats``: per-task statistics beside the bounds;
- ``blocking``: blocking observed per task; ``threads``: servers' calls, events off CPUs;
- ``export_csv`` (LITMUS ``st-job-stats`` columns), ``export_perfetto``, ``plots``;
- ``compare_sim``: a run's report beside its simulation's, job by job.

It imports the model, the trace reader and the analysis' result types, never the runner.
"""

from rtsched.report.blocking import TaskBlocking, blocking_by_task
from rtsched.report.jobs import JOB_DTYPE, JobTable, TaskInfo, build_job_table
from rtsched.report.report import (DEFAULT_WINDOW_NS, WRITE_STEPS, Report, build_report, summary_dict,
                                   table_writers, write_report)
from rtsched.report.stats import TaskStats, task_stats
from rtsched.report.threads import ServerCalls, events_off_cpus, server_calls

__all__ = [
    "DEFAULT_WINDOW_NS",
    "JOB_DTYPE",
    "JobTable",
    "Report",
    "ServerCalls",
    "TaskBlocking",
    "TaskInfo",
    "TaskStats",
    "WRITE_STEPS",
    "blocking_by_task",
    "build_job_table",
    "build_report",
    "events_off_cpus",
    "server_calls",
    "summary_dict",
    "table_writers",
    "task_stats",
    "write_report",
]

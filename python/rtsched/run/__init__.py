"""``rtsched run``: run a task set on this machine and report each task's jobs (DESIGN §1, §5).

- ``session``: the whole run (``run_taskset``), writing the output folder;
- ``runner``: the C runner ``rtsched-run`` as a subprocess (progress, signals, cleanup);
- ``jobs``: the per-job table; ``stats``: per-task statistics and the summary;
- ``export_csv`` (LITMUS ``st-job-stats`` columns), ``export_perfetto``, ``plots``.
"""

from rtsched.run.jobs import JOB_DTYPE, JobTable, build_job_table
from rtsched.run.session import RunOptions, RunResult, RunSetupError, default_out_dir, run_taskset
from rtsched.run.stats import TaskStats, apply_bounds, summary_dict, task_stats
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace as load_trace

__all__ = [
    "EV",
    "JOB_DTYPE",
    "JobTable",
    "RunOptions",
    "RunResult",
    "RunSetupError",
    "TaskStats",
    "apply_bounds",
    "build_job_table",
    "default_out_dir",
    "load_trace",
    "run_taskset",
    "summary_dict",
    "task_stats",
]

"""``rtsched run``: run a task set on this machine (docs/run.md); its report is ``rtsched.report``'s.

- ``session``: the whole run (``run_taskset``), writing the output folder;
- ``runner``: the C runner ``rtsched-run`` as a subprocess (progress, signals, cleanup);
- ``steal``: CPU time the hypervisor took during the run;
- ``compare``: one set run with and without PI-CV, side by side.
"""

from rtsched.run.session import RunOptions, RunResult, RunSetupError, default_out_dir, run_taskset

__all__ = [
    "RunOptions",
    "RunResult",
    "RunSetupError",
    "default_out_dir",
    "run_taskset",
]

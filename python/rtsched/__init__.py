"""rtsched: real-time scheduling and locking on a stock Linux kernel.

The C library (librtsched) does the locking and scheduling; this package
holds the task model, its analysis, the runner and the report of a run, the
measurement tools and the ``rtsched`` command (docs/architecture.md):

- ``model``: task sets (load, validate, placement, resolve for the C runner);
- ``analysis``: schedulability tests, their bounds and blocking terms;
- ``run``: ``rtsched run``, the C runner ``rtsched-run`` as a subprocess;
- ``trace``: the trace reader (the runner's files; a simulator's to come);
- ``report``: the report of any trace, in one call (tables, statistics, files);
- ``measure``: scheduling latency, OS overhead, background loads, CPU shielding;
- ``cli``: the command, one module per subcommand;
- ``cpus``: CPU lists and masks; ``native``: finding and running the native programs.
"""

__version__ = "0.1.0"

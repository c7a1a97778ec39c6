"""rtsched: real-time scheduling and locking on a stock Linux kernel.

The C library (librtsched) does the locking and scheduling; this package
holds the command line and, as later issues land, the task model, analysis,
simulation and trace tools.
"""

__version__ = "0.1.0"

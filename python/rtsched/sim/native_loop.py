"""The compute-only loop, compiled: ``rtsched-sim-loop`` (tools/sim/) run on a set that fits.

``compute_only.run_compute_only`` in C, step for step, writing the trace file
itself: for the same set, options and seed its trace file is byte for byte
the Python loop's (tests/python/test_sim_native.py compares the files on
generated sets). ``simulate`` runs it when the set fits the compute-only loop,
``fits_native`` says yes, the program is installed and ``SimOptions.native``
is on (docs/sim.md, "Speed").

It is a program, not a library loaded with ctypes: the native code Python
drives is found and run one way (``rtsched.native``), the library stays the
runtime's, and one start (about 0.6 ms here) is small beside the loop's
saving on the sets where speed matters.

The input (tools/sim/spec.h) carries the set as the engine has resolved it
(domains, keys, releases, bodies), so placement, validation and keys stay
Python's. Two things are re-derived here, each checked by the byte-for-byte
test: the seed of a task's execution-time draws (``draws.ExecutionTimes``:
``random.Random(seed * 1_000_003 + task index)``) and the sporadic gaps'
seed (``draws.SporadicGaps``: the task's ``sporadic.seed`` on 64 bits).
"""

from __future__ import annotations

from pathlib import Path

from rtsched.model import Compute
from rtsched.native import NativeToolFailed, NativeToolMissing, native_tool, run_native_tool
from rtsched.sim.draws import ExecutionTimes
from rtsched.sim.engine import Engine
from rtsched.sim.options import SimOptions

__all__ = ["PROGRAM", "fits_native", "native_loop_program", "run_native_loop", "spec_text"]

PROGRAM = "rtsched-sim-loop"
_SPEC_VERSION = 1
_MASK64 = (1 << 64) - 1
_PPM = 1_000_000


def native_loop_program() -> Path | None:
    """The installed program (rtsched.native looks in RTSCHED_NATIVE_BIN, then the package), None
    when there is none."""
    try:
        return native_tool(PROGRAM)
    except NativeToolMissing:
        return None


def fits_native(engine: Engine, options: SimOptions) -> bool:
    """Whether the compiled loop reproduces ``run_compute_only`` on ``engine``'s set, which
    ``compute_only.fits``: every compute at its length or drawn by ``draws.ExecutionTimes`` from
    the seed (``--exec-low``); a compute of varying demand (its own per-job values, docs/taskset.md)
    or times from any other source take the Python loop, and so does a draw whose range is empty
    (the Python loop raises there, and keeps raising)."""
    low = options.exec_low_ppm
    if low is not None and not 0 <= low <= _PPM:
        return False
    for task, t in zip(engine.taskset.tasks, engine.threads):
        if any(isinstance(a, Compute) and a.demand is not None for a in task.body):
            return False
        if type(t.exec_times) is not ExecutionTimes or t.exec_times.fixed != (low is None):
            return False
        if low is not None and any(ns < 1 for _op, ns in t.ops):
            return False
    return True


def _hex(text: str) -> str:
    return text.encode("utf-8").hex() or "-"


def _seed_words(seed: int) -> list[int]:
    """|seed| in 32-bit words, least significant first (as random.Random seeds its generator)."""
    n = abs(seed)
    words = []
    while True:
        words.append(n & 0xFFFF_FFFF)
        n >>= 32
        if not n:
            return words


def spec_text(engine: Engine, options: SimOptions, name: str, duration_ns: int) -> str:
    """The program's input for ``engine``'s set (tools/sim/spec.h)."""
    domains = list(engine.domains.values())
    index = {id(d): i for i, d in enumerate(domains)}
    lines = [f"{PROGRAM} {_SPEC_VERSION}",
             f"run {engine.end_ns} {duration_ns} {len(domains)} {len(engine.threads)} {_hex(name)}"]
    lines += [f"domain {len(d.cpus)} {' '.join(map(str, d.cpus))}" for d in domains]
    for i, t in enumerate(engine.threads):
        task = engine.taskset.tasks[i]
        gap_max, gap_seed = -1, 0
        if t.gaps is not None:
            assert task.sporadic is not None
            gap_max, gap_seed = task.sporadic.max_extra_ns, task.sporadic.seed & _MASK64
        low, words = -1, []
        if options.exec_low_ppm is not None:
            low, words = options.exec_low_ppm, _seed_words(options.seed * 1_000_003 + i)
        computes = [ns for _op, ns in t.ops]
        lines.append(" ".join(map(str, (
            "task", index[id(t.domain)], int(t.is_edf), 0 if t.is_edf else -t.base_key, t.period_ns,
            t.deadline_ns, task.offset_ns, t.max_jobs, gap_max, gap_seed, low, len(words), *words,
            len(computes), *computes, t.tid, _hex(t.name)))))
    return "\n".join(lines) + "\n"


def run_native_loop(engine: Engine, options: SimOptions, name: str, duration_ns: int,
                    trace_path: Path | None) -> int:
    """Simulate ``engine``'s set (which ``fits_native``) with the program, writing its trace to
    ``trace_path`` (None: no trace); return the jobs completed. Raises NativeToolMissing, and
    NativeToolFailed with the program's message."""
    args = ["--trace", str(trace_path)] if trace_path is not None else []
    # no time bound: as the Python loops, it runs as long as the simulation takes
    out = run_native_tool(PROGRAM, args, timeout_s=None, input_text=spec_text(engine, options, name, duration_ns))
    words = out.split()
    if len(words) != 2 or words[0] != "jobs_completed":
        raise NativeToolFailed(PROGRAM, f"{PROGRAM}: unexpected output {out!r}", 0)
    return int(words[1])

"""The registry's fast path: GFB, BCL, the G-EDF RTA, Baker, Baruah, FF-DBF, QPA and uniprocessor FP RTA
by native kernels.

``librtsched_analysis.so`` (tools/analysis/, built by CMake, found like the
native programs: ``rtsched.native.native_library``) holds the numeric
kernels over integer arrays. Each function here has the signature of the
pure-Python test it stands for (``gedf.gedf_gfb``, ``gedf.gedf_bcl``,
``gedf.gedf_rta``, ``gedf_baker.gedf_baker``, ``gedf_demand.gedf_baruah``,
``gedf_demand.gedf_ffdbf``, ``edf_uni.edf_qpa``, ``fp_uni.fp_rta``) and:

- runs the Python test when the library is not built, when the set does not
  qualify (anything the kernel does not model: resources, jitter under
  G-EDF, clusters, tasks the adapter marked unanalysable, times above
  2^52 ns, more than 100,000 tasks, more than 1,024 processors), or when the kernel cannot decide
  exactly what Python decides (``RTSA_PYTHON``: a GFB, Baker or EDF
  utilization comparison too close to call in floating point; U against m or
  a range end of Baruah's or FF-DBF's too close to call there and past 127
  bits over the periods' LCM);
- else returns a :class:`~rtsched.analysis.results.DeferredResult`: the
  kernel's verdict, and every other field (per-task bounds and reasons,
  reason, details) computed on first read, and checked then against the
  kernel's verdict and per-task bounds. For GFB, BCL, Baker and QPA the
  fields are the Python test's; for the G-EDF RTA, FP RTA, FF-DBF and
  Baruah, whose kernels return all their result depends on (every per-task
  bound; FF-DBF's witness σ and skips; Baruah's per-task points checked or
  least failing A), they are built from the kernel's outputs by the Python
  test's own result builder (``gedf.rta_result``, ``fp_uni.rta_bound`` and
  ``fp_uni.fp_rta_result``, ``gedf_demand.ffdbf_result``,
  ``gedf_demand.baruah_result``), so a caller that reads the bounds does
  not pay the Python test.

So every answer is the Python test's (tests/python/test_analysis_native_engine.py
compares them field by field on generated sets); what the kernels save is the
time of a caller that reads the verdict, and for the two RTAs, FF-DBF and Baruah, of one
that reads the bounds too.
``set_engine("python")`` (or
``RTSCHED_ANALYSIS_ENGINE=python`` in the environment; ``native`` there
makes a missing library an error) turns the kernels off; ``engine()`` says
which is in use. tests/python/test_analysis_native_engine.py
compares both paths on generated sets.
"""

from __future__ import annotations

import ctypes
import os
from array import array
from functools import partial
from typing import Any, Callable, Sequence

from rtsched.analysis import edf_uni, fp_uni, gedf, gedf_demand
from rtsched.analysis import gedf_baker as baker_test  # the module; gedf_baker here is the registry's entry
from rtsched.analysis.blocking import no_shared_resources
from rtsched.analysis.results import (NOT_SCHEDULABLE, SCHEDULABLE, STOPPED, UNDECIDED, AnalysisResult, DeferredResult,
                                      TaskBound)
from rtsched.analysis.tasks import AnalysisProblem
from rtsched.native import native_library

__all__ = ["LIBRARY", "engine", "set_engine", "gedf_gfb", "gedf_bcl", "gedf_rta", "gedf_baker", "gedf_baruah",
           "gedf_ffdbf", "edf_qpa", "fp_rta", "bcl_kernel", "bcl_verdict", "gedf_rta_kernel", "baker_kernel",
           "baruah_kernel", "baruah_detail", "ffdbf_kernel", "fp_rta_kernel", "gfb_kernel", "qpa_kernel"]

LIBRARY = "librtsched_analysis.so"
#: kernels.h: RTSA_PYTHON, RTSA_UNKNOWN, RTSA_MAX_NS, RTSA_MAX_TASKS
PYTHON = -1
UNKNOWN = 2
MAX_NS = 1 << 52
MAX_TASKS = 100_000
MAX_CPUS = 1024

_I64 = ctypes.c_int64
_P64 = ctypes.POINTER(ctypes.c_int64)
_IN = ctypes.c_void_p  # an input array: the address of an array("q") (filled 4x faster than a ctypes array)


def _load() -> Any:
    path = native_library(LIBRARY)
    if path is None:
        return None
    lib = ctypes.CDLL(str(path))
    lib.rtsa_gfb.argtypes = [ctypes.c_int, _IN, ctypes.c_int]
    lib.rtsa_bcl.argtypes = [ctypes.c_int, _IN, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_uint8)]
    lib.rtsa_gedf_rta.argtypes = [ctypes.c_int, _IN, ctypes.c_int, ctypes.c_int, _P64, ctypes.POINTER(ctypes.c_int)]
    lib.rtsa_baker.argtypes = [ctypes.c_int, _IN, ctypes.c_int, ctypes.POINTER(ctypes.c_uint8)]
    lib.rtsa_baruah.argtypes = [ctypes.c_int, _IN, ctypes.c_int, ctypes.POINTER(ctypes.c_uint8), _P64]
    lib.rtsa_ffdbf.argtypes = [ctypes.c_int, _IN, ctypes.c_int, _P64, ctypes.POINTER(ctypes.c_int)]
    lib.rtsa_qpa.argtypes = [ctypes.c_int, _IN, _IN, _IN]
    lib.rtsa_fp_rta.argtypes = [ctypes.c_int, _IN, _IN, _IN, _IN, _IN, _IN, ctypes.c_int, _P64, _P64]
    for fn in (lib.rtsa_gfb, lib.rtsa_bcl, lib.rtsa_gedf_rta, lib.rtsa_baker, lib.rtsa_baruah, lib.rtsa_ffdbf,
               lib.rtsa_qpa, lib.rtsa_fp_rta):
        fn.restype = ctypes.c_int
    return lib


def _chosen() -> Any:
    """The library, or None: as RTSCHED_ANALYSIS_ENGINE says (unset or empty: the library when built)."""
    wanted = os.environ.get("RTSCHED_ANALYSIS_ENGINE", "")
    if wanted == "python":
        return None
    if wanted not in ("", "native"):
        raise ValueError(f"RTSCHED_ANALYSIS_ENGINE={wanted!r}: use native or python (or leave it unset)")
    lib = _load()
    if lib is None and wanted == "native":
        raise RuntimeError(f"RTSCHED_ANALYSIS_ENGINE=native but {LIBRARY} is not built "
                           "(tools/analysis; RTSCHED_NATIVE_BIN: a build tree's tools folder)")
    return lib


_LIB: Any = _chosen()


def engine() -> str:
    """``native`` when the kernels are in use, else ``python``."""
    return "native" if _LIB is not None else "python"


def set_engine(name: str) -> str:
    """Use the kernels (``native``, when the library is built) or not (``python``); returns the
    engine in use before. ValueError for another name; RuntimeError when ``native`` is asked for
    and the library is not built."""
    global _LIB
    before = engine()
    if name == "python":
        _LIB = None
    elif name == "native":
        _LIB = _LIB or _load()
        if _LIB is None:
            raise RuntimeError(f"{LIBRARY} is not built (tools/analysis; RTSCHED_NATIVE_BIN: a build tree's tools)")
    else:
        raise ValueError(f"engine must be native or python, not {name!r}")
    return before


def _ints(values: Sequence[int]) -> array[int]:
    """``values`` as C int64s; the caller keeps the array alive while the kernel reads it
    (``_at(buf)`` is its address)."""
    return array("q", values)


def _at(buf: array[int]) -> int:
    return buf.buffer_info()[0]


# --- the kernels over columns (also what the tests compare with the Python tests) ---

def gfb_kernel(cdt: Sequence[int], m: int) -> int:
    """1 / 0 / PYTHON: Σ C/min(D, T) ≤ m − (m − 1)·δmax, or too close to decide in floating point.
    ``cdt``: the tasks' (C, D, T), one after another."""
    buf = _ints(cdt)
    return int(_LIB.rtsa_gfb(len(cdt) // 3, _at(buf), m))


def bcl_kernel(cdt: Sequence[int], m: int, verdict_only: bool = False) -> tuple[int, list[int]]:
    """(1 when every task passes, per task 1 pass / 0 fail / 2 left out under verdict_only).
    ``cdt``: the tasks' (C, D, T), one after another."""
    buf, ok = _ints(cdt), (ctypes.c_uint8 * (len(cdt) // 3))()
    return int(_LIB.rtsa_bcl(len(cdt) // 3, _at(buf), m, int(verdict_only), ok)), list(ok)


def bcl_verdict(cdt: Sequence[int], m: int) -> int:
    """bcl_kernel's verdict alone (the kernel stops at the first task that fails)."""
    buf = _ints(cdt)
    return int(_LIB.rtsa_bcl(len(cdt) // 3, _at(buf), m, 0, None))


def gedf_rta_kernel(cdt: Sequence[int], m: int, verdict_only: bool = False) -> tuple[int, list[int], int]:
    """(1 / 0 / PYTHON, per-task bound, or -1 (no bound) / -2 (depends on one) when not shown, rounds run).
    ``cdt``: the tasks' (C, D, T), one after another."""
    buf, bounds, rounds = _ints(cdt), (_I64 * (len(cdt) // 3))(), ctypes.c_int()
    verdict = _LIB.rtsa_gedf_rta(len(cdt) // 3, _at(buf), m, int(verdict_only), bounds, ctypes.byref(rounds))
    return int(verdict), list(bounds), rounds.value


def baker_kernel(cdt: Sequence[int], m: int, per_task: bool = True) -> tuple[int, list[int]]:
    """(1 / 0 / PYTHON, per task 1 pass / 0 fail; without per_task none, the kernel stopping at the
    first failure). ``cdt``: the tasks' (C, D, T), one after another."""
    buf, ok = _ints(cdt), (ctypes.c_uint8 * (len(cdt) // 3))() if per_task else None
    return int(_LIB.rtsa_baker(len(cdt) // 3, _at(buf), m, ok)), list(ok or ())


def baruah_kernel(cdt: Sequence[int], m: int, per_task: bool = True) -> tuple[int, list[int]]:
    """(1 / 0 / UNKNOWN / PYTHON, per task 1 pass / 0 fail / 2 given up; without per_task none, the
    kernel stopping at the first failure). ``cdt``: the tasks' (C, D, T), one after another."""
    buf, ok = _ints(cdt), (ctypes.c_uint8 * (len(cdt) // 3))() if per_task else None
    return int(_LIB.rtsa_baruah(len(cdt) // 3, _at(buf), m, ok, None)), list(ok or ())


def baruah_detail(cdt: Sequence[int], m: int) -> tuple[int, list[int], list[int]]:
    """baruah_kernel's verdict and per-task answers, and per task the number of distinct points
    checked (a pass) or the least A where (*) fails (a miss at a point), else -1."""
    n = len(cdt) // 3
    buf, ok, detail = _ints(cdt), (ctypes.c_uint8 * n)(), (_I64 * n)()
    return int(_LIB.rtsa_baruah(n, _at(buf), m, ok, detail)), list(ok), list(detail)


def ffdbf_kernel(cdt: Sequence[int], m: int) -> tuple[int, int | None, int]:
    """(1 / 0 / PYTHON, the witness σ's numerator over gedf_demand.SIGMA_DENOMINATOR when 1, the σ
    skipped before it or of all). m ≥ 2."""
    buf, sigma, skipped = _ints(cdt), _I64(-1), ctypes.c_int()
    verdict = int(_LIB.rtsa_ffdbf(len(cdt) // 3, _at(buf), m, ctypes.byref(sigma), ctypes.byref(skipped)))
    return verdict, sigma.value if verdict == 1 else None, skipped.value


def qpa_kernel(c: Sequence[int], d: Sequence[int], t: Sequence[int]) -> int:
    """1 / 0 / PYTHON: QPA on one processor (U within 1e-6 of 1: PYTHON)."""
    bufs = _ints(c), _ints(d), _ints(t)
    return int(_LIB.rtsa_qpa(len(c), *map(_at, bufs)))


def fp_rta_kernel(c: Sequence[int], t: Sequence[int], d: Sequence[int], j: Sequence[int], b: Sequence[int],
                  prio: Sequence[int], verdict_only: bool = False) -> tuple[int, list[int], list[int]]:
    """(1 when every task is bounded, per-task bound or -1 (miss) or -2 (left out), per-task job
    of the busy period where a miss was found)."""
    n = len(c)
    bufs = _ints(c), _ints(t), _ints(d), _ints(j), _ints(b), _ints(prio)
    r, jobs = (_I64 * n)(), (_I64 * n)()
    verdict = _LIB.rtsa_fp_rta(n, *map(_at, bufs), int(verdict_only), r, jobs)
    return int(verdict), list(r), list(jobs)


# --- the tests, as the registry calls them ---

def _gedf_rows(problem: AnalysisProblem) -> list[int] | None:
    """The tasks' (C, D, T), one after another, of a set gedf._check accepts and the kernels
    take, else None."""
    if problem.scheduler != "G-EDF" or not 1 <= problem.cpus <= MAX_CPUS or problem.unanalysable:
        return None
    cdt: list[int] = []
    for x in problem.tasks:
        if x.jitter_ns or x.critical_sections or x.deadline_ns > x.period_ns:
            return None
        cdt += (x.wcet_ns + x.suspension_ns, x.deadline_ns, x.period_ns)
    if not cdt or len(cdt) > 3 * MAX_TASKS or max(cdt) > MAX_NS:
        return None
    return cdt


def gedf_gfb(problem: AnalysisProblem) -> AnalysisResult:
    cdt = None if _LIB is None else _gedf_rows(problem)
    if cdt is not None:
        verdict = gfb_kernel(cdt, problem.cpus)
        if verdict != PYTHON:
            return DeferredResult.of("gedf-gfb", SCHEDULABLE if verdict else NOT_SCHEDULABLE,
                                     partial(gedf.gedf_gfb, problem), partial(_every_deadline, verdict == 1, cdt))
    return gedf.gedf_gfb(problem)


def _bcl_bounds(cdt: list[int], m: int, verdict_only: bool) -> list[int | None]:
    _, ok = bcl_kernel(cdt, m, verdict_only)  # per task: run again, now that someone asks
    return [d if o == 1 else None for o, d in zip(ok, cdt[1::3])]


def gedf_bcl(problem: AnalysisProblem, verdict_only: bool = False) -> AnalysisResult:
    cdt = None if _LIB is None else _gedf_rows(problem)
    if cdt is None:
        return gedf.gedf_bcl(problem, verdict_only=verdict_only)
    verdict = bcl_verdict(cdt, problem.cpus)  # the verdict is verdict_only's too
    return DeferredResult.of("gedf-bcl", SCHEDULABLE if verdict else NOT_SCHEDULABLE,
                             partial(gedf.gedf_bcl, problem, verdict_only=verdict_only),
                             partial(_bcl_bounds, cdt, problem.cpus, verdict_only))


def _rta_bounds(bounds: list[int]) -> list[int | None]:
    return [b if b >= 0 else None for b in bounds]


def _rta_result(problem: AnalysisProblem, bounds: list[int], rounds: int) -> AnalysisResult:
    """gedf_rta's result from the kernel's outputs (-1: no bound within the deadline)."""
    return gedf.rta_result(problem, {k for k, b in enumerate(bounds) if b == -1}, bounds, rounds)


def gedf_rta(problem: AnalysisProblem, verdict_only: bool = False) -> AnalysisResult:
    cdt = None if _LIB is None else _gedf_rows(problem)
    if cdt is not None:
        verdict, bounds, rounds = gedf_rta_kernel(cdt, problem.cpus, verdict_only)
        if verdict != PYTHON:
            return DeferredResult.of("gedf-rta", SCHEDULABLE if verdict else NOT_SCHEDULABLE,
                                     partial(_rta_result, problem, bounds, rounds), partial(_rta_bounds, bounds))
    return gedf.gedf_rta(problem, verdict_only=verdict_only)


def _passed_bounds(kernel: Callable[[list[int], int], tuple[int, list[int]]], cdt: list[int],
                   m: int) -> list[int | None]:
    """The deadline of each task ``kernel`` (baker_kernel, baruah_kernel) passes, else None: run
    again with every task's answer, now that someone asks."""
    _, ok = kernel(cdt, m)
    return [d if o == 1 else None for o, d in zip(ok, cdt[1::3])]


def gedf_baker(problem: AnalysisProblem) -> AnalysisResult:
    cdt = None if _LIB is None else _gedf_rows(problem)
    if cdt is not None:
        verdict, _ = baker_kernel(cdt, problem.cpus, per_task=False)
        if verdict != PYTHON:
            return DeferredResult.of("gedf-baker", SCHEDULABLE if verdict else NOT_SCHEDULABLE,
                                     partial(baker_test.gedf_baker, problem),
                                     partial(_passed_bounds, baker_kernel, cdt, problem.cpus))
    return baker_test.gedf_baker(problem)


def _baruah_result(problem: AnalysisProblem, cdt: list[int]) -> AnalysisResult:
    """gedf_baruah's result from the kernel's per-task answers and details (its checks of the
    ranges of A; the ranges themselves, a few Fractions, from Python's builder)."""
    verdict, ok, detail = baruah_detail(cdt, problem.cpus)
    if verdict == PYTHON:  # out of memory for the points
        return gedf_demand.gedf_baruah(problem)

    def check(k: int, t_max: int) -> tuple[int, int | None] | None:
        return None if ok[k] == 2 else (detail[k], None) if ok[k] == 1 else (0, detail[k])

    return gedf_demand.baruah_result(problem, check)


def gedf_baruah(problem: AnalysisProblem) -> AnalysisResult:
    cdt = None if _LIB is None else _gedf_rows(problem)
    if cdt is not None:
        verdict, _ = baruah_kernel(cdt, problem.cpus, per_task=False)
        if verdict != PYTHON:
            # gedf_baruah: unknown when a task is given up and none fails
            said = {1: SCHEDULABLE, 0: NOT_SCHEDULABLE, UNKNOWN: UNDECIDED}[verdict]
            return DeferredResult.of("gedf-baruah", said, partial(_baruah_result, problem, cdt),
                                     partial(_passed_bounds, baruah_kernel, cdt, problem.cpus))
    return gedf_demand.gedf_baruah(problem)


def _every_deadline(ok: bool, cdt: list[int]) -> list[int | None]:
    return list[int | None](cdt[1::3]) if ok else [None] * (len(cdt) // 3)


def _ffdbf_result(problem: AnalysisProblem, witness: int | None, skipped: int) -> AnalysisResult:
    """gedf_ffdbf's result from the kernel's witness and skips (the grid, a few Fractions, from Python)."""
    return gedf_demand.ffdbf_result(problem, gedf_demand.ffdbf_grid(problem.tasks, problem.cpus), witness, skipped)


def gedf_ffdbf(problem: AnalysisProblem) -> AnalysisResult:
    cdt = None if _LIB is None or problem.cpus < 2 else _gedf_rows(problem)  # m = 1: Python's "unsupported"
    if cdt is not None:
        verdict, witness, skipped = ffdbf_kernel(cdt, problem.cpus)
        if verdict != PYTHON:
            return DeferredResult.of("gedf-ffdbf", SCHEDULABLE if verdict else NOT_SCHEDULABLE,
                                     partial(_ffdbf_result, problem, witness, skipped),
                                     partial(_every_deadline, verdict == 1, cdt))
    return gedf_demand.gedf_ffdbf(problem)


def _independent_groups(problem: AnalysisProblem, schedulers: tuple[str, ...]) -> list[list[Any]] | None:
    """The tasks per processor of a set without resources, clusters or unanalysable tasks,
    within the kernels' ranges, else None."""
    if problem.scheduler not in schedulers or problem.unanalysable or problem.clusters():
        return None
    groups: dict[str | None, list[Any]] = {}
    for x in problem.tasks:
        if x.critical_sections or x.jitter_ns > MAX_NS or x.period_ns > MAX_NS or x.deadline_ns > MAX_NS \
                or x.wcet_ns + x.suspension_ns > MAX_NS or x.extra_blocking_ns > MAX_NS or abs(x.priority) > MAX_NS:
            return None
        groups.setdefault(x.partition, []).append(x)
    if not groups or any(len(g) > MAX_TASKS for g in groups.values()):
        return None
    return list(groups.values())


def _by_task(problem: AnalysisProblem, found: dict[str, int | None]) -> list[int | None]:
    return [found.get(x.name) for x in problem.tasks]


def edf_qpa(problem: AnalysisProblem, verdict_only: bool = False) -> AnalysisResult:
    groups = None if _LIB is None else _independent_groups(problem, ("EDF", "P-EDF"))
    # jitter J below D: the demand of deadline D − J (edf_uni.without_jitter); J ≥ D: unsupported there
    if groups is None or any(x.jitter_ns >= x.deadline_ns for g in groups for x in g):
        return edf_uni.edf_qpa(problem, verdict_only=verdict_only)
    found: dict[str, int | None] = {}
    every = True
    for g in groups:
        if verdict_only and not every:
            break  # edf_qpa: the partitions after a miss are left out (bounds None)
        verdict = qpa_kernel([x.wcet_ns + x.suspension_ns for x in g], [x.deadline_ns - x.jitter_ns for x in g],
                             [x.period_ns for x in g])
        if verdict == PYTHON:
            return edf_uni.edf_qpa(problem, verdict_only=verdict_only)
        every = every and verdict == 1
        found.update((x.name, x.deadline_ns if verdict == 1 else None) for x in g)
    return DeferredResult.of("edf-qpa", SCHEDULABLE if every else NOT_SCHEDULABLE,
                             partial(edf_uni.edf_qpa, problem, verdict_only=verdict_only),
                             partial(_by_task, problem, found))


#: One processor's kernel outputs: its tasks, their bounds (-1 miss, -2 left out) and busy-period jobs.
_FpRun = tuple[list[Any], list[int], list[int]]


def _fp_result(problem: AnalysisProblem, groups: list[list[Any]], runs: list[_FpRun]) -> AnalysisResult:
    """fp_rta's result from the kernel's outputs, per processor (``runs``; the processors after
    them were left out by verdict_only), each task's blocking as fp_uni.rta_tasks takes it on a
    processor without resources."""
    bounds: dict[str, TaskBound] = {}
    for tasks, r, jobs in runs:
        for x, rx, jx in zip(tasks, r, jobs):
            blk = no_shared_resources(x.extra_blocking_ns)
            bounds[x.name] = (TaskBound(x.name, None, "unknown", STOPPED) if rx == -2 else
                              fp_uni.rta_bound(x, blk, rx if rx >= 0 else None, jx))
    for g in groups[len(runs):]:
        bounds.update((x.name, TaskBound(x.name, None, "unknown", STOPPED)) for x in g)
    return fp_uni.fp_rta_result(problem, "fp-rta", groups, bounds)


def _fp_bounds(problem: AnalysisProblem, runs: list[_FpRun]) -> list[int | None]:
    found = {x.name: rx if rx >= 0 else None for tasks, r, _ in runs for x, rx in zip(tasks, r)}
    return _by_task(problem, found)


def fp_rta(problem: AnalysisProblem, verdict_only: bool = False) -> AnalysisResult:
    groups = None if _LIB is None else _independent_groups(problem, ("FP", "P-FP"))
    if groups is None:
        return fp_uni.fp_rta(problem, verdict_only=verdict_only)
    runs: list[_FpRun] = []
    every = True
    for g in groups:
        if verdict_only and not every:
            break  # fp_rta: the processors after a miss are left out
        verdict, r, jobs = fp_rta_kernel([x.wcet_ns + x.suspension_ns for x in g], [x.period_ns for x in g],
                                         [x.deadline_ns for x in g], [x.jitter_ns for x in g],
                                         [x.extra_blocking_ns for x in g], [x.priority for x in g], verdict_only)
        every = every and verdict == 1
        runs.append((g, r, jobs))
    return DeferredResult.of("fp-rta", SCHEDULABLE if every else NOT_SCHEDULABLE,
                             partial(_fp_result, problem, groups, runs), partial(_fp_bounds, problem, runs))


for _fast, _python in ((gedf_gfb, gedf.gedf_gfb), (gedf_bcl, gedf.gedf_bcl), (gedf_rta, gedf.gedf_rta),
                       (gedf_baker, baker_test.gedf_baker), (gedf_baruah, gedf_demand.gedf_baruah),
                       (gedf_ffdbf, gedf_demand.gedf_ffdbf), (edf_qpa, edf_uni.edf_qpa),
                       (fp_rta, fp_uni.fp_rta)):
    _fast.__doc__ = _python.__doc__

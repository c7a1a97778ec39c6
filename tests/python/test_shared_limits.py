"""Limits shared by the Python model and the C library and runner are one (issue 36, item 4):
each Python limit equals the C macro it mirrors, read here from the headers, and every bound
the runner reads its input with (tools/run/spec.c ``get_int``) admits what the validator
passes. A limit changed on one side only fails here, by name."""

from __future__ import annotations

import ast
import operator
import re
from pathlib import Path

import pytest

from rtsched.model import ceilings, demand, durations, prem, resolve, stacks, writes
from rtsched.model.validation import fields

ROOT = Path(__file__).resolve().parents[2]
HEADERS = [ROOT / p for p in ("include/rtsched/trace.h", "include/rtsched/rpc.h", "include/rtsched/mutex.h",
                              "include/rtsched/task.h", "src/internal/task.h", "tools/run/spec.h")]
SPEC = ROOT / "tools" / "run" / "spec.c"
if not SPEC.exists():
    pytest.skip(f"{SPEC} not found (not run from a source checkout)", allow_module_level=True)

#: <stdint.h>'s, as the runner's bounds use them.
STDINT = {"INT32_MAX": 2**31 - 1, "UINT32_MAX": 2**32 - 1, "INT64_MAX": 2**63 - 1}
_OPS = {ast.LShift: operator.lshift, ast.Mult: operator.mul, ast.Add: operator.add, ast.Sub: operator.sub,
        ast.Div: operator.floordiv}


def c_value(expression: str, known: dict[str, int]) -> int:
    """A C integer constant expression of macros, literals, casts, << * / + -."""
    text = re.sub(r"\((?:size_t|int64_t|uint64_t|uint32_t|int)\)", "", expression)
    text = re.sub(r"\b(0x[0-9a-fA-F]+|[0-9]+)(?:[uU]?[lL]{0,2}|[lL]{1,2}[uU])\b", r"\1", text)

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            return known[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](value(node.left), value(node.right))
        raise ValueError(f"not a constant expression: {expression}")

    return value(ast.parse(text.strip(), mode="eval").body)


def c_defines() -> dict[str, int]:
    """The integer macros of the headers the limits live in."""
    known = dict(STDINT)
    for header in HEADERS:
        for name, expression in re.findall(r"^#define (\w+)[ \t]+([^\n/]+)", header.read_text(), re.M):
            try:
                known[name] = c_value(expression, known)
            except (ValueError, KeyError, SyntaxError):
                pass  # not an integer (a string, a function-like macro)
    return known


C = c_defines()

#: Python limit -> the C macro that must be equal to it (with what joins them).
SAME = [
    ("task, resource, partition name (model)", fields.MAX_NAME, "RTS_TRACE_STREAM_NAME_MAX"),
    ("task name with its NUL (library)", fields.MAX_NAME + 1, "RTS_TASK_NAME_MAX"),
    ("task-set name (model)", fields.MAX_SET_NAME, "RTS_TRACE_NAME_MAX"),
    ("server queue (model)", fields.MAX_QUEUE, "RTS_RPC_CAPACITY_MAX"),
    ("ceiling / preemption level (model)", ceilings.LEVEL_MAX, "RTS_LOCK_MAX_LEVEL"),
    ("least stack (model)", stacks.STACK_MIN_BYTES, "RTS_TASK_STACK_MIN_BYTES"),
    ("largest stack (model)", stacks.STACK_MAX_BYTES, "RTS_TASK_STACK_MAX_BYTES"),
    ("PREM buffer (model)", prem.BUFFER_MAX_BYTES, "RUN_BUFFER_MAX_BYTES"),
    ("write buffer (model)", writes.WRITE_BUFFER_MAX_BYTES, "RUN_BUFFER_MAX_BYTES"),
    ("PREM buffers per interval (model)", prem.BUFFERS_MAX, "RUN_PREM_BUFFERS_MAX"),
    ("PREM stride (model)", prem.CACHE_LINE_BYTES, "RUN_LINE_BYTES"),
    ("per-job durations of a compute (model)", demand.MAX_JOB_DURATIONS, "RUN_PER_JOB_MAX"),
    ("device path with its NUL (model)", writes.DEVICE_MAX_BYTES + 1, "RUN_PATH_MAX"),
    ("trace ring (resolver)", resolve.TRACE_BUFFER_EVENTS_MAX, "RTS_TRACE_MAX_BUFFER_EVENTS"),
]


@pytest.mark.parametrize(("what", "python", "macro"), SAME, ids=[s[0] for s in SAME])
def test_each_python_limit_is_its_c_macro(what, python, macro):
    assert macro in C, f"{macro} not found in {[str(h.relative_to(ROOT)) for h in HEADERS]}"
    assert python == C[macro], f"{what}: Python says {python}, C's {macro} is {C[macro]}"


def test_a_valid_name_fits_the_runners_name_field():
    assert fields.MAX_NAME < C["RUN_NAME_MAX"]


def runner_bounds() -> dict[str, list[tuple[int, int]]]:
    """key -> the (min, max) spec.c reads it with (a key read in several places: each), where
    both bounds are constants."""
    text = SPEC.read_text()
    known = dict(C)
    known["max_ns"] = c_value(re.search(r"const int64_t max_ns = ([^;]+);", text).group(1), known)
    bounds: dict[str, list[tuple[int, int]]] = {}
    for key, lo, hi in re.findall(r'get_int\(r, \w+, [^,]+, "(\w+)",\s*([^,]+),\s*(.+?),\s*&', text):
        try:
            bounds.setdefault(key, []).append((c_value(lo, known), c_value(hi, known)))
        except (ValueError, KeyError, SyntaxError):
            pass  # a bound that depends on another value (a reservation's period)
    return bounds


BOUNDS = runner_bounds()

#: Runner input key -> the range the model lets through (0 where the runner reads 0 as "none").
RANGES = {
    "max_jobs": (0, fields.MAX_JOBS),
    "seed": (0, fields.MAX_SEED),
    "queue_capacity": (1, fields.MAX_QUEUE),
    "ceiling": (0, ceilings.LEVEL_MAX),
    "lock_level": (0, ceilings.LEVEL_MAX),
    "stack_bytes": (0, stacks.STACK_MAX_BYTES),
    "peripheral_buffer_bytes": (0, prem.BUFFER_MAX_BYTES),
    "buffer_bytes": (1, writes.WRITE_BUFFER_MAX_BYTES),
    "buffer_events": (0, resolve.TRACE_BUFFER_EVENTS_MAX),
}


@pytest.mark.parametrize("key", RANGES)
def test_the_runner_reads_each_limited_key_with_the_models_range(key):
    assert BOUNDS.get(key), f'spec.c reads no "{key}" with constant bounds'
    assert set(BOUNDS[key]) == {RANGES[key]}


def test_the_runner_reads_priorities_as_sched_fifo_ones():
    lo, hi = fields.FIFO_PRIORITY
    assert set(BOUNDS["priority"]) <= {(lo, hi), (0, hi)}  # 0: none (a SCHED_DEADLINE or background task)
    assert set(BOUNDS["prem_priority"]) == {(0, hi)}


def test_every_duration_the_validator_passes_fits_the_runner():
    durations_read = {key: b for key, b in BOUNDS.items() if key == "ns" or key.endswith("_ns")}
    assert {"period_ns", "deadline_ns", "wcet_ns", "offset_ns", "duration_ns", "ns"} <= set(durations_read)
    too_small = {key: b for key, b in durations_read.items() if any(hi < durations.MAX_DURATION_NS for _, hi in b)}
    assert too_small == {}


def test_the_c_reader_of_this_test_evaluates_what_the_headers_write():
    assert c_value("(256ll << 20)", {}) == 256 << 20
    assert c_value("((size_t)16 * 1024)", {}) == 16384
    assert c_value("INT64_MAX / 4", STDINT) == (2**63 - 1) // 4
    assert c_value("4096u", {}) == 4096

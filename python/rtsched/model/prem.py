"""PREM in the task-set file: the ``prem`` action, the ``peripheral`` task key and their rules.

A ``prem`` action is one predictable interval (seed 002, chapter 5): a memory
phase touching its buffers, then ``compute`` of work over them, the whole
non-preemptive and padded to ``length``. A task with ``peripheral`` stands
for a memory-heavy or I/O load that the runner gates out of every memory
phase. docs/prem.md explains the run-time mechanism; this module only reads
and checks the file.

The parsers return the value (or None) with the problems found, each a
(path, message) pair, as ``ceiling_problems`` does; validate.py reports them.
"""

from __future__ import annotations

import re
from typing import Any

from rtsched.model.ceilings import partition_cpus
from rtsched.model.durations import DurationError, parse_duration
from rtsched.model.model import PREM_ACCESS, Compute, Prem, Sleep, Task, TaskSet
from rtsched.model.values import describe

__all__ = [
    "BUFFER_MAX_BYTES",
    "BUFFERS_MAX",
    "CACHE_LINE_BYTES",
    "PERIPHERAL_KEYS",
    "PREM_KEYS",
    "parse_peripheral",
    "parse_prem",
    "parse_size",
    "prem_problems",
]

PREM_KEYS = frozenset({"buffers", "compute", "length", "access"})
PERIPHERAL_KEYS = frozenset({"buffer"})
#: The stride of the memory phase, and the smallest buffer.
CACHE_LINE_BYTES = 64
#: One buffer at most (a predictable interval's data must fit in the cache to gain anything;
#: a peripheral's buffer is larger than any cache to reach memory).
BUFFER_MAX_BYTES = 256 << 20
BUFFERS_MAX = 8

_SIZE = re.compile(r"^\s*([0-9]+)\s*(B|KiB|MiB|GiB)\s*$")
_UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
_DECIMAL_UNITS = {"kb": "KiB", "k": "KiB", "mb": "MiB", "m": "MiB", "gb": "GiB", "g": "GiB"}

Problems = list[tuple[str, str]]


def parse_size(value: Any, path: str) -> tuple[int | None, Problems]:
    """A buffer size: an integer of bytes or a string such as ``256KiB`` (units B, KiB, MiB, GiB),
    from 64 B to 256 MiB."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None, [(path, f"expected a size such as 256KiB or 4MiB, got {describe(value)}")]
    if isinstance(value, int):
        size = value
    else:
        match = _SIZE.match(value)
        if match is None:
            unit = re.sub(r"^\s*[0-9]+\s*", "", value).lower()
            hint = f' (write {_DECIMAL_UNITS[unit]}: sizes are binary)' if unit in _DECIMAL_UNITS else ""
            return None, [(path, f'expected a size such as 256KiB or 4MiB, got {describe(value)}{hint}')]
        size = int(match.group(1)) * _UNITS[match.group(2)]
    if not CACHE_LINE_BYTES <= size <= BUFFER_MAX_BYTES:
        return None, [(path, f"a buffer is {CACHE_LINE_BYTES} B to {BUFFER_MAX_BYTES >> 20} MiB, got {size} B")]
    if size % CACHE_LINE_BYTES:
        return None, [(path, f"a buffer is whole cache lines ({CACHE_LINE_BYTES} B), got {size} B")]
    return size, []


def _duration(value: Any, path: str) -> tuple[int | None, Problems]:
    try:
        ns = parse_duration(value)
    except DurationError as err:
        return None, [(path, str(err))]
    if ns <= 0:
        return None, [(path, f"must be > 0, got {describe(value)}")]
    return ns, []


def _unknown_keys(data: dict[str, Any], allowed: frozenset[str], path: str) -> Problems:
    return [(f"{path}.{k}", f"unknown key (keys: {', '.join(sorted(allowed))})") for k in data if k not in allowed]


def parse_prem(value: Any, path: str) -> tuple[Prem | None, Problems]:
    """``{buffers: [256KiB], compute: 400us, length: 1ms, access: linear}`` at ``path``."""
    if not isinstance(value, dict):
        return None, [(path, "expected a mapping {buffers: [sizes], compute: duration, length: duration}, "
                             f"got {describe(value)}")]
    problems = _unknown_keys(value, PREM_KEYS, path)
    problems += [(path, f'missing required key "{k}"') for k in ("buffers", "compute", "length") if k not in value]
    sizes: list[int] = []
    buffers = value.get("buffers")
    if "buffers" in value:
        if not isinstance(buffers, list) or not 1 <= len(buffers) <= BUFFERS_MAX:
            problems.append((f"{path}.buffers", f"expected a list of 1 to {BUFFERS_MAX} sizes, got {describe(buffers)}"))
        else:
            for i, item in enumerate(buffers):
                size, errs = parse_size(item, f"{path}.buffers[{i}]")
                problems += errs
                if size is not None:
                    sizes.append(size)
    compute, errs = _duration(value["compute"], f"{path}.compute") if "compute" in value else (None, [])
    problems += errs
    length, errs = _duration(value["length"], f"{path}.length") if "length" in value else (None, [])
    problems += errs
    access = value.get("access", "linear")
    if access not in PREM_ACCESS:
        problems.append((f"{path}.access", f"expected one of {', '.join(PREM_ACCESS)}, got {describe(access)}"))
    if compute is not None and length is not None and compute >= length:
        problems.append((f"{path}.length", f"the interval ({length} ns) must be longer than its execution "
                                           f"phase's compute ({compute} ns): the rest is the memory phase's budget"))
    if problems or compute is None or length is None:
        return None, problems
    return Prem(buffers_bytes=tuple(sizes), compute_ns=compute, length_ns=length, access=access), []


def parse_peripheral(value: Any, path: str) -> tuple[int | None, Problems]:
    """``{buffer: 16MiB}``: the peripheral task's buffer size in bytes."""
    if not isinstance(value, dict):
        return None, [(path, f"expected a mapping {{buffer: size}}, got {describe(value)}")]
    problems = _unknown_keys(value, PERIPHERAL_KEYS, path)
    if "buffer" not in value:
        return None, problems + [(path, 'missing required key "buffer"')]
    size, errs = parse_size(value["buffer"], f"{path}.buffer")
    return (size if not problems + errs else None), problems + errs


def _task_cpus(taskset: TaskSet, task: Task) -> tuple[int, ...] | None:
    return partition_cpus(taskset, task.partition) if task.partition is not None else None


def prem_problems(taskset: TaskSet) -> Problems:
    """What the set's PREM tasks and peripherals break of the rules in docs/taskset.md ("PREM")."""
    problems: Problems = []
    prem_cpus: set[int] = set()
    uses = [(i, t) for i, t in enumerate(taskset.tasks) if t.prem_intervals or t.peripheral_buffer_bytes]
    for i, task in uses:
        path = f"tasks[{i}]"
        if taskset.platform.scheduler != "P-FP" or taskset.platform.backend != "threads":
            problems.append((path, f"PREM (prem actions, peripheral tasks) needs scheduler P-FP with the threads "
                                   f"backend, got {taskset.platform.policy} with {taskset.platform.backend}: "
                                   "an interval is made non-preemptive by raising its SCHED_FIFO priority"))
            continue
        if task.prem_intervals and task.peripheral_buffer_bytes:
            problems.append((f"{path}.peripheral", "a task with prem actions cannot be a peripheral"))
            continue
        if task.prem_intervals:
            if task.policy != "fifo":
                problems.append((f"{path}.policy", "a PREM task is a SCHED_FIFO task: remove policy"))
            others = [(j, a) for j, a in enumerate(task.body) if not isinstance(a, Prem)]
            for j, action in others:
                problems.append((f"{path}.body[{j}]", f"a body with prem actions is made of predictable "
                                                      f"intervals only, got {action.op}: put the work in a prem "
                                                      "action's compute"))
            total = sum(p.length_ns for p in task.prem_intervals)
            if not others and task.wcet_ns != total:
                problems.append((f"{path}.wcet", f"a PREM job lasts the sum of its intervals' lengths ({total} ns), "
                                                 f"got wcet {task.wcet_ns} ns: leave wcet out"))
            cpus = _task_cpus(taskset, task)
            if cpus is not None:
                prem_cpus.update(cpus)
        else:
            for j, step in enumerate(task.body):
                if not isinstance(step, (Compute, Sleep)):
                    problems.append((f"{path}.body[{j}]", f"a peripheral's body has compute and sleep only, got "
                                                          f"{step.op}: a gated task must hold nothing a PREM task "
                                                          "may wait for"))
            if task.partition is None:
                problems.append((path, 'a peripheral needs a partition: it must run on CPUs without PREM tasks'))
    for i, task in uses:
        cpus = _task_cpus(taskset, task)
        if task.peripheral_buffer_bytes and cpus is not None and set(cpus) & prem_cpus:
            problems.append((f"tasks[{i}].partition",
                             f"a peripheral runs on CPUs without PREM tasks, but partition {task.partition} has "
                             f"CPU {', '.join(map(str, sorted(set(cpus) & prem_cpus)))} with one: a memory phase "
                             "would wait for a gated task that cannot run"))
    return problems

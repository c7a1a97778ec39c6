"""A task's stack size: ``stack: 64KiB`` (docs/taskset.md "Tasks").

One key, one meaning under both backends: the size of the stack the task's
job bodies run on, with a guard page below it, so that an overflow faults
instead of writing over a neighbour. Under ``backend: ult`` it is the
user-level thread's own ``mmap``'d stack (default 256 KiB); under
``backend: threads`` the kernel thread's (``pthread_attr_setstacksize``;
default glibc's, the ``ulimit -s`` size). The library rounds it up to
pages when the task is made (``rts_task_params.stack_bytes``,
<rtsched/task.h>), and refuses what lies outside the bounds below, which
are its ``RTS_TASK_STACK_MIN_BYTES`` and ``RTS_TASK_STACK_MAX_BYTES``.
"""

from __future__ import annotations

from typing import Any

from rtsched.model.writes import WRITE_MAX_BYTES, Problems, parse_bytes
from rtsched.model.values import describe

__all__ = ["STACK_MAX_BYTES", "STACK_MIN_BYTES", "parse_stack"]

#: Room for a job body's frames and one signal frame (a ULT is preempted by a signal on its stack).
STACK_MIN_BYTES = 16 << 10
STACK_MAX_BYTES = 256 << 20


def parse_stack(value: Any, path: str) -> tuple[int | None, Problems]:
    """A stack size in STACK_MIN_BYTES..STACK_MAX_BYTES: bytes, or a size such as ``64KiB``."""
    size, problems = parse_bytes(value, path, WRITE_MAX_BYTES)
    if size is None:
        return None, problems
    if not STACK_MIN_BYTES <= size <= STACK_MAX_BYTES:
        return None, [(path, f"a stack of 16KiB ({STACK_MIN_BYTES}) to 256MiB ({STACK_MAX_BYTES}) bytes, "
                             f"got {describe(size)}")]
    return size, []

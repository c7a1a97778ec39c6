"""Validation of a task set given as plain data (what YAML or JSON parsing gives).

One pass checks everything and builds the model. Every error is collected
with its path (``tasks[2].period: expected a duration, got "ten"``) and all
of them are raised together in a TaskSetError, never only the first one.
Unknown keys are errors, with a suggestion when a known key is close.

The format is described once, in ``rtsched.model.validation.fields``; the steps
that read it are in ``rtsched.model.validation``; docs/taskset.schema.json
describes the same format and tests/python/test_taskset_schema.py keeps the two
in agreement.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rtsched.model.model import TaskSet, VARIANTS
from rtsched.model.reservations import RESERVATION_KEYS
from rtsched.model.validation import fields
from rtsched.model.validation.checker import NAME_PATTERN, Checker, TaskSetError, suggest
from rtsched.model.validation.fields import (
    ACTION_NAMES,
    FUTURE_ACTIONS,
    FUTURE_PROTOCOLS,
    FUTURE_SCHEDULERS,
    KINDS,
    MAX_JOBS,
    MAX_NAME,
    MAX_QUEUE,
    MAX_SET_NAME,
    POLICIES,
)
from rtsched.model.validation.task import DL_MIN_RUNTIME_NS
from rtsched.model.validation.taskset import read_taskset, whole_set_problems

__all__ = [
    "TaskSetError",
    "taskset_from_dict",
    "validate_dict",
    "whole_set_problems",
    "suggest",
    "NAME_PATTERN",
    "MAX_NAME",
    "MAX_SET_NAME",
    "MAX_QUEUE",
    "MAX_JOBS",
    "DL_MIN_RUNTIME_NS",
    "TOP_KEYS",
    "PLATFORM_KEYS",
    "PARTITION_KEYS",
    "RESOURCE_KEYS",
    "CONDVAR_KEYS",
    "SERVER_KEYS",
    "RESERVATION_KEYS",
    "CALL_KEYS",
    "TASK_KEYS",
    "SPORADIC_KEYS",
    "ACTION_NAMES",
    "KINDS",
    "POLICIES",
    "FUTURE_SCHEDULERS",
    "FUTURE_PROTOCOLS",
    "FUTURE_ACTIONS",
    "VARIANTS",
]

TOP_KEYS = fields.TOP.keys
PLATFORM_KEYS = fields.PLATFORM.keys
PARTITION_KEYS = fields.PARTITION.keys
RESOURCE_KEYS = fields.RESOURCE.keys
CONDVAR_KEYS = fields.CONDVAR.keys
SERVER_KEYS = fields.SERVER.keys
CALL_KEYS = fields.CALL.keys
TASK_KEYS = fields.TASK.keys
SPORADIC_KEYS = fields.SPORADIC.keys


def validate_dict(data: Any, *, base_dir: Path | None = None) -> list[str]:
    """Every error in a task set given as plain data; empty when it is valid. ``base_dir``: where
    relative paths in it start (the set's file's directory; None: the current directory)."""
    checker = Checker(base_dir)
    read_taskset(checker, data)
    return checker.errors


def taskset_from_dict(data: Any, *, source: str | None = None, base_dir: Path | None = None) -> TaskSet:
    """Validate plain data and build the TaskSet; raise TaskSetError listing every error.
    ``base_dir``: where relative paths in it start (the set's file's directory; None: the current one)."""
    checker = Checker(base_dir)
    taskset = read_taskset(checker, data)
    if checker.errors or taskset is None:
        raise TaskSetError(checker.errors or ["not a task set"], source)
    return taskset

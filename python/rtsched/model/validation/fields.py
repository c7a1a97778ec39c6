"""The task-set format, described once: every mapping's keys, which are required, and what
each value is (a duration, an integer in a range, a name, one of some words, or a shape of
its own read by its own step).

The validator reads its key sets and simple values from these tables, and
tests/python/test_taskset_schema.py walks docs/taskset.schema.json against them: a key, a
required key, a range or an enumeration that differs between the two fails there. The
mappings other modules read (reservations, DVFS, PREM, writes, varying demands) keep their
key sets at home; the same test checks those keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from rtsched.model.ceilings import LEVEL_MAX
from rtsched.model.model import ACTIONS, BACKENDS, BEST_EFFORT, CLUSTERED_SCHEDULERS, PROTOCOLS, SCHEDULERS, VARIANTS

if TYPE_CHECKING:
    from collections.abc import Collection


class Checker(Protocol):
    """What a value of the format reads itself with: checker.Checker's readers (named here, not
    imported: the checker reads the format's mappings, so the format may not import it)."""

    def error(self, path: str, message: str) -> None: ...
    def list_of(self, value: Any, path: str, *, nonempty: bool = False) -> list[Any] | None: ...
    def name(self, value: Any, path: str, *, limit: int = ...) -> str | None: ...
    def duration(self, value: Any, path: str, *, positive: bool = True) -> int | None: ...
    def integer(self, value: Any, path: str, lo: int | None = None, hi: int | None = None) -> int | None: ...
    def cpu_list(self, value: Any, path: str) -> tuple[int, ...] | None: ...
    def enum(self, value: Any, path: str, choices: Collection[str],
             future: dict[str, str] | None = None) -> str | None: ...

__all__ = [
    "Value", "Duration", "Integer", "Name", "Choice", "Ref", "Items", "CpuList", "Refused", "Shape", "Mapping",
    "MAX_NAME", "MAX_SET_NAME", "MAX_QUEUE", "MAX_JOBS", "MAX_SEED", "FIFO_PRIORITY",
    "KINDS", "POLICIES", "ACTION_NAMES", "FUTURE_SCHEDULERS", "FUTURE_PROTOCOLS", "FUTURE_ACTIONS",
    "RESOURCES", "CONDVARS", "SERVERS", "TASKS", "PARTITIONS", "BODY",
    "TOP", "PLATFORM", "PARTITION", "RESOURCE", "CONDVAR", "SERVER", "CALL", "TASK", "SPORADIC", "CHAIN", "MAPPINGS",
]

#: Task, resource, condvar and partition names fit the trace's 32-byte name field.
MAX_NAME = 31
#: The task-set name fits the trace header's 64-byte field.
MAX_SET_NAME = 63
#: A server's queue capacity at most (<rtsched/rpc.h> RTS_RPC_CAPACITY_MAX).
MAX_QUEUE = 4096
#: A task's max_jobs at most (the runner's and the library's uint32_t job count).
MAX_JOBS = 2**32 - 1
#: A sporadic task's seed at most (the runner's int64_t).
MAX_SEED = 2**63 - 1
#: SCHED_FIFO priorities (higher is more urgent).
FIFO_PRIORITY = (1, 99)

KINDS = ("periodic", "sporadic", "self-paced", "event")
#: How many activations an event task may keep waiting at most (the library's RTS_TASK_ACTIVATION_QUEUE_MAX).
MAX_ACTIVATION_QUEUE = 4096
#: The real-time policies, then SCHED_OTHER, SCHED_BATCH, SCHED_IDLE: best-effort (background) tasks, never analysed.
POLICIES = ("fifo", "deadline", *BEST_EFFORT)
#: The kernel's nice range (other and batch).
NICE = (-20, 19)
ACTION_NAMES: tuple[str, ...] = tuple(ACTIONS)

#: Recognised names that are refused, with what to say (later issues implement some).
FUTURE_SCHEDULERS: dict[str, str] = {}
FUTURE_PROTOCOLS = {
    "ceiling": 'write "ipcp" (immediate ceiling, the semantics of PTHREAD_PRIO_PROTECT)',
}
FUTURE_ACTIONS: dict[str, str] = {}


class Value:
    """What one key's value is. ``read`` checks a value of this kind (reporting, None when
    wrong); a value whose reading needs more than itself is read by its step (``Shape``)."""

    def read(self, checker: Checker, value: Any, path: str) -> Any:
        raise NotImplementedError(f"{type(self).__name__} is read by its own step")


@dataclass(frozen=True)
class Duration(Value):
    """A duration in the file's units (``10ms``), read in ns; > 0 unless not ``positive``."""

    positive: bool = True

    def read(self, checker: Checker, value: Any, path: str) -> int | None:
        return checker.duration(value, path, positive=self.positive)


@dataclass(frozen=True)
class Integer(Value):
    """An integer in ``lo..hi`` (no upper bound when ``hi`` is None)."""

    lo: int
    hi: int | None = None

    def read(self, checker: Checker, value: Any, path: str) -> int | None:
        return checker.integer(value, path, self.lo, self.hi)


@dataclass(frozen=True)
class Flag(Value):
    """true or false."""

    def read(self, checker: Checker, value: Any, path: str) -> bool | None:
        if isinstance(value, bool):
            return value
        checker.error(path, f"expected true or false, got {value!r}")
        return None


@dataclass(frozen=True)
class Name(Value):
    """A name this mapping declares: letters, digits, ``_ . -``, at most ``limit`` characters."""

    limit: int = MAX_NAME

    def read(self, checker: Checker, value: Any, path: str) -> str | None:
        return checker.name(value, path, limit=self.limit)


@dataclass(frozen=True)
class Choice(Value):
    """One of ``choices``; a ``future`` word is recognised and refused with its message."""

    choices: tuple[str, ...]
    future: dict[str, str] = field(default_factory=dict)

    def read(self, checker: Checker, value: Any, path: str) -> str | None:
        return checker.enum(value, path, self.choices, self.future)


@dataclass(frozen=True)
class Ref(Value):
    """The name of something declared elsewhere in the set (a ``what``), read against what is declared."""

    what: str


@dataclass(frozen=True)
class Items(Value):
    """A list of ``of`` (a definition in the JSON schema), each read by its step; ``nonempty``: at least one."""

    of: str
    nonempty: bool = False

    def read(self, checker: Checker, value: Any, path: str) -> list[Any] | None:
        return checker.list_of(value, path, nonempty=self.nonempty)


@dataclass(frozen=True)
class CpuList(Value):
    """CPU numbers (>= 0), at least one, none twice."""

    def read(self, checker: Checker, value: Any, path: str) -> tuple[int, ...] | None:
        return checker.cpu_list(value, path)


@dataclass(frozen=True)
class Refused(Value):
    """A key that is recognised and refused, with what to write instead."""

    why: str

    def read(self, checker: Checker, value: Any, path: str) -> None:
        checker.error(path, self.why)


@dataclass(frozen=True)
class Shape(Value):
    """A value of its own shape, read by its own step; ``schema``: its definition in the JSON schema."""

    schema: str


@dataclass(frozen=True)
class Mapping:
    """A mapping of the format: its place in the JSON schema, its keys' values, the required keys."""

    schema: str
    fields: dict[str, Value]
    required: tuple[str, ...] = ()

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(self.fields)


_PRIORITY = Integer(*FIFO_PRIORITY)
RESOURCES = Items("resource")
CONDVARS = Items("condvar")
SERVERS = Items("server")
TASKS = Items("task", nonempty=True)
PARTITIONS = Items("partition", nonempty=True)
BODY = Items("action", nonempty=True)

TOP = Mapping("", {
    "name": Name(MAX_SET_NAME),
    "duration": Duration(),
    "platform": Shape("platform"),
    "resources": RESOURCES,
    "condvars": CONDVARS,
    "servers": SERVERS,
    "reservations": Items("reservation"),  # read by rtsched.model.reservations
    "tasks": TASKS,
    "chains": Items("chain"),  # read by rtsched.model.validation.chains
}, required=("name", "platform", "tasks"))

PLATFORM = Mapping("platform", {
    "scheduler": Choice(SCHEDULERS + tuple(CLUSTERED_SCHEDULERS), FUTURE_SCHEDULERS),
    "backend": Choice(BACKENDS),
    "cpus": CpuList(),
    "partitions": PARTITIONS,
    "clusters": Refused("write the clusters as partitions: a partition of several CPUs is a cluster "
                        "(scheduler C-EDF or C-FP, the same run as P-EDF or P-FP)"),
    "dvfs": Shape("dvfs"),
}, required=("scheduler",))

PARTITION = Mapping("partition", {"name": Name(), "cpus": CpuList()}, required=("name", "cpus"))

RESOURCE = Mapping("resource", {
    "name": Name(),
    "protocol": Choice(PROTOCOLS, FUTURE_PROTOCOLS),
    "variant": Choice(VARIANTS),
    "ceiling": Integer(1, LEVEL_MAX),
    "sync_partition": Ref("partition"),
}, required=("name",))

CONDVAR = Mapping("condvar", {"name": Name(), "mutex": Ref("resource")}, required=("name", "mutex"))

SERVER = Mapping("server", {
    "name": Name(),
    "priority": _PRIORITY,
    "partition": Ref("partition"),
    "duration": Duration(),
    "queue": Integer(1, MAX_QUEUE),
}, required=("name", "priority"))

CALL = Mapping("call", {"server": Ref("server"), "duration": Duration()}, required=("server",))

TASK = Mapping("task", {
    "name": Name(),
    "kind": Choice(KINDS),
    "period": Duration(),
    "deadline": Duration(),
    "offset": Duration(positive=False),
    "wcet": Duration(),
    "priority": _PRIORITY,
    "policy": Choice(POLICIES),
    "nice": Integer(*NICE),
    "slice": Duration(),
    "taskgroup": Shape("taskgroup"),
    "partition": Ref("partition"),
    "budget": Duration(),
    "dl_deadline": Duration(),
    "dl_period": Duration(),
    "max_jobs": Integer(1, MAX_JOBS),
    "sporadic": Shape("task.sporadic"),
    "body": BODY,
    "reservation": Name(),
    "peripheral": Shape("peripheral"),
    "stack": Shape("stack"),
    "activation_queue": Integer(0, MAX_ACTIVATION_QUEUE),
    "activated_at_start": Flag(),
    "started_by_activation": Flag(),
}, required=("name", "period", "body"))

#: A cause-effect chain (docs/chains.md): its name and at least two task names, cause first.
CHAIN = Mapping("chain", {"name": Name(), "tasks": Shape("chainTasks")}, required=("name", "tasks"))

SPORADIC = Mapping("task.sporadic", {
    "max_extra": Duration(positive=False),
    "seed": Integer(0, MAX_SEED),
})

#: Every mapping described here, by its place in the JSON schema.
MAPPINGS: dict[str, Mapping] = {m.schema: m for m in (TOP, PLATFORM, PARTITION, RESOURCE, CONDVAR, SERVER, CALL,
                                                      TASK, SPORADIC, CHAIN)}

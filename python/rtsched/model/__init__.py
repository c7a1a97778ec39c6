"""The task model (docs/architecture.md; the file format: docs/taskset.md): load, validate, resolve.

    from rtsched.model import load_taskset, place, to_runner_input
    ts = load_taskset("examples/pfp-two-cpus.yaml")   # TaskSetError lists every problem
    ts.total_utilization()                            # Fraction
    place(ts, cpus_online=(0, 1)).cpus_of("control")  # a thread's CPUs on a machine
    runner_input = to_runner_input(ts, "out/trace.rtst")

The file format is documented in docs/taskset.md (JSON Schema:
docs/taskset.schema.json); the runner's input in docs/runner-input.md.
"""

from rtsched.model.dump import taskset_to_dict
from rtsched.model.durations import DurationError, format_duration, parse_duration
from rtsched.model.load import load_taskset, loads_taskset, read_document
from rtsched.model.model import (
    Action,
    Affinity,
    SetSched,
    SetTaskgroup,
    Broadcast,
    Call,
    Compute,
    CondVar,
    IoWrite,
    Lock,
    MemWrite,
    Partition,
    Platform,
    Reservation,
    Prem,
    Resource,
    RpcServer,
    Signal,
    Sleep,
    Sporadic,
    Task,
    TaskSet,
    Unlock,
    Wait,
)
from rtsched.cpus import online_cpus  # where the resolver reads them
from rtsched.model.placement import Placement, place
from rtsched.model.resolve import to_runner_input
from rtsched.model.validate import TaskSetError, taskset_from_dict, validate_dict

__all__ = [
    "Action",
    "Affinity",
    "SetSched",
    "SetTaskgroup",
    "Broadcast",
    "Call",
    "Compute",
    "CondVar",
    "DurationError",
    "IoWrite",
    "Lock",
    "MemWrite",
    "Partition",
    "Placement",
    "Platform",
    "Reservation",
    "Prem",
    "Resource",
    "RpcServer",
    "Signal",
    "Sleep",
    "Sporadic",
    "Task",
    "TaskSet",
    "TaskSetError",
    "Unlock",
    "Wait",
    "format_duration",
    "load_taskset",
    "loads_taskset",
    "online_cpus",
    "parse_duration",
    "place",
    "read_document",
    "taskset_from_dict",
    "taskset_to_dict",
    "to_runner_input",
    "validate_dict",
]

"""What the simulator does not simulate yet, refused by name before anything runs."""

from __future__ import annotations

from rtsched.model import TaskSet

__all__ = ["SimUnsupported", "unsupported_features", "check_supported"]

#: Protocols the simulator models: every protocol of the model but the distributed ones
#: (dpcp, dflp: analysed only, their agents are not simulated).
SIMULATED_PROTOCOLS = frozenset({"none", "pip", "fifo", "pcp", "srp", "ipcp", "mpcp", "fmlp+"})


class SimUnsupported(ValueError):
    """The set uses something the simulator does not model; the message lists each use with its path."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


def unsupported_features(taskset: TaskSet) -> list[str]:
    """Each use of a feature that is not simulated, with its path in the task-set file."""
    problems: list[str] = []
    for i, r in enumerate(taskset.resources):
        if r.protocol not in SIMULATED_PROTOCOLS:
            problems.append(f'resources[{i}]: protocol "{r.protocol}" of "{r.name}" is not simulated yet '
                            f"(simulated: {', '.join(sorted(SIMULATED_PROTOCOLS))})")
    for i, s in enumerate(taskset.servers):
        callers = len(taskset.callers_of(s.name))
        if s.queue_capacity is not None and s.queue_capacity < callers:
            problems.append(f'servers[{i}].queue: {s.queue_capacity} is below the {callers} tasks that call '
                            f'"{s.name}": waiting for room in a full queue is not simulated yet')
    for i, reservation in enumerate(taskset.reservations):
        if reservation.enforcement == "kernel":
            problems.append(f'reservations[{i}].enforcement: "{reservation.name}" is enforced by the kernel\'s SCHED_DEADLINE, '
                            "which is not simulated yet (remove the key to simulate it as a user-level periodic "
                            "reservation of the same budget and period)")
    if taskset.reservations and (taskset.resources or taskset.condvars or taskset.servers):
        problems.append("reservations: with resources, condition variables or RPC servers in the same set "
                        "not simulated yet (inheritance across reservation levels is not modelled)")
    for i, t in enumerate(taskset.tasks):
        if t.is_background:
            problems.append(f'tasks[{i}]: task "{t.name}" has policy other (background load), '
                            "which is not simulated")
    return problems


def check_supported(taskset: TaskSet) -> None:
    """Raise SimUnsupported when the set uses a feature the simulator does not model."""
    problems = unsupported_features(taskset)
    if problems:
        raise SimUnsupported(problems)

"""What the simulator does not simulate yet, refused by name before anything runs."""

from __future__ import annotations

from rtsched.model import Affinity, SetSched, SetTaskgroup, Task, TaskSet
from rtsched.model.model import LOCAL_PROTOCOLS, RUNTIME_PROTOCOLS
from rtsched.model.reservation_locks import lock_homes

__all__ = ["SimUnsupported", "unsupported_features", "check_supported"]

#: Protocols the simulator models: those the runtime runs (every protocol of the model but the
#: distributed ones, dpcp and dflp: analysed only, their agents are not simulated).
SIMULATED_PROTOCOLS = frozenset(RUNTIME_PROTOCOLS)


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
    if taskset.reservations:
        problems += _reservation_problems(taskset)
    for i, t in enumerate(taskset.tasks):
        j = next((j for j, a in enumerate(t.body) if isinstance(a, Affinity)), None)
        if j is not None and not t.is_background:
            problems.append(f'tasks[{i}].body[{j}].affinity: real-time task "{t.name}" changes its CPUs, which is not '
                            "simulated yet (only a best-effort task moves: a global domain would need per-thread "
                            "CPU masks, a partitioned one moving a thread between ready queues)")
    for i, t in enumerate(taskset.tasks):
        j = next((j for j, a in enumerate(t.body) if isinstance(a, SetSched)), None)
        if j is not None:
            problems.append(f'tasks[{i}].body[{j}].sched: "{t.name}" changes its policy or priority, which is not '
                            "simulated yet (a thread's class and key are fixed for the run)")
        if t.has_own_dl_reservation:
            key = "dl_deadline" if t.dl_deadline_ns is not None else "dl_period"
            problems.append(f'tasks[{i}].{key}: "{t.name}" has a SCHED_DEADLINE reservation apart from its jobs, '
                            "which is not simulated yet (the simulator gives an EDF task its jobs' deadlines and "
                            "no runtime of its own; rtsched analyze bounds it from the reservation)")
    problems += _taskgroup_problems(taskset)
    background = [(i, t) for i, t in enumerate(taskset.tasks) if t.is_background]
    if background and taskset.reservations:
        i, t = background[0]
        problems.append(f'tasks[{i}]: best-effort task "{t.name}" (policy {t.policy}) in a set with reservations '
                        "is not simulated yet (a partition of reservations gives its idle time to no best-effort "
                        "thread)")
    return problems


def _taskgroups_of(task: Task) -> list[str]:
    """The cpu cgroups a task's thread is ever in ("/": the root's, where it starts without one)."""
    return [task.taskgroup or "/"] + [a.path for a in task.body if isinstance(a, SetTaskgroup)]


def _taskgroup_problems(taskset: TaskSet) -> list[str]:
    """Taskgroups are simulated where they change no share: the fair class is flat, and a group of the
    cpu controller weighs as one nice-0 thread among its siblings, so it is exact while each group
    below the root ever holds one thread, of nice 0 (not idle), and no task's group holds another's."""
    grouped = [(i, t) for i, t in enumerate(taskset.tasks)
               if any(path != "/" for path in _taskgroups_of(t))]
    for i, t in grouped:
        if t.nice != 0 or t.policy == "idle" or any(isinstance(a, SetSched) for a in t.body):
            return [f'tasks[{i}]: "{t.name}" is in a taskgroup with policy {t.policy}, nice {t.nice} (or changes '
                    "them): the simulator's fair class is flat, and a group weighs as one nice-0 thread: not "
                    "simulated yet"]
    for a, (i, t) in enumerate(grouped):
        for j, u in grouped[a + 1:]:
            shared = [(p, q) for p in _taskgroups_of(t) if p != "/" for q in _taskgroups_of(u) if q != "/"
                      if p == q or p.startswith(q + "/") or q.startswith(p + "/")]
            if shared:
                p, q = shared[0]
                return [f'tasks[{i}] and tasks[{j}]: "{t.name}" ({p}) and "{u.name}" ({q}) share a taskgroup: CPU '
                        "shares among groups (the cgroup hierarchy) are not simulated yet"]
    return []


def _reservation_problems(taskset: TaskSet) -> list[str]:
    """Locks beside reservations are simulated (docs/reservations.md, "Locks inside reservations"):
    any lock without a ceiling wherever its users are, a ceiling protocol's only among the tasks of
    one reservation (or of the top level), where its levels are that scheduler's."""
    problems: list[str] = []
    if taskset.condvars or taskset.servers:
        problems.append("reservations: with condition variables or RPC servers in the same set not simulated "
                        "yet (a waiter woken or a call served across reservation levels is not modelled)")
    homes = lock_homes(taskset)
    for i, r in enumerate(taskset.resources):
        where = homes.get(r.name, ())
        if not r.is_ceiling or all(h is None for h in where):
            continue
        path = f"resources[{i}]"
        if r.protocol not in LOCAL_PROTOCOLS:
            problems.append(f'{path}: "{r.name}" ({r.protocol}) is used inside a reservation: the global '
                            "protocols are not simulated with reservations")
        elif len(where) > 1:
            named = ", ".join("the top level" if h is None else f'reservation "{h}"' for h in where)
            problems.append(f'{path}: "{r.name}" ({r.protocol}) is used in {named}: a ceiling protocol inside a '
                            "reservation orders by that reservation's levels, so its users must all be there "
                            "(use pip across reservations)")
        elif r.ceiling is not None:
            problems.append(f'{path}.ceiling: "{r.name}" is used inside reservation "{where[0]}": its ceiling '
                            "is computed from the reservation's levels; remove the key")
        elif r.protocol in ("pcp", "ipcp") and taskset.reservation(str(where[0])).scheduler != "FP":
            problems.append(f'{path}: "{r.name}" ({r.protocol}) is used in EDF reservation "{where[0]}": '
                            "pcp and ipcp order by priority (FP reservations); use srp under EDF")
    return problems


def check_supported(taskset: TaskSet) -> None:
    """Raise SimUnsupported when the set uses a feature the simulator does not model."""
    problems = unsupported_features(taskset)
    if problems:
        raise SimUnsupported(problems)

"""One rt-app thread object -> rtsched task documents (before the set is assembled).

A thread is a list of phases (or its own events as one phase), each run
``loop`` times, the whole repeated by the thread's ``loop``. An rtsched task
repeats one job body at one period, so (docs/from-rtapp.md):

- one phase whose last event is a timer becomes one periodic task: the
  events before the timer are the job, the timer's period the task's
  period, ``phase loop x thread loop`` its ``max_jobs``;
- several phases run once (thread ``loop`` 1), each ending with a timer and
  (but the last) with a finite ``loop``, become one task per phase, each
  released when the phases before it have used their periods (the offsets
  add up);
- several phases repeated, on one timer, become one task per phase
  iteration at the cycle's period (``_repeat_cycle``);
- among phases run once in sequence, a phase of sleeps only is a pause: the
  phases after it start that much later;
- a thread with no timer at all (a self-paced loop) becomes one task whose
  period is the length of its loop (``selfpaced``); its phases, if any, are
  one loop (``_one_cycle``);
- anything else (a timer before other events, timers in some phases only, a
  self-paced loop that waits for another thread) is an error that says why.

Scheduling properties (``policy``, ``priority``, ``dl-*``, ``cpus``) come
from the thread, overridden by the phase, as in rt-app.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rtsched.model.durations import format_duration, parse_duration
from rtsched.model.model import BEST_EFFORT
from rtsched.model.rtapp.events import Names, Problems, event_kind, translate_event
from rtsched.model.rtapp.reader import JObject, Member
from rtsched.model.rtapp.selfpaced import self_paced
from rtsched.model.rtapp.woken import WAKE_UPS, Woken, woken
from rtsched.model.rtapp.writes import WRITE_EVENTS, WriteSettings, read_wcets, write_action
from rtsched.model.validation.body import TASKGROUP_PATTERN
from rtsched.model.values import describe

__all__ = ["POLICIES", "ThreadTask", "thread_tasks"]

#: rt-app policy -> (rtsched policy, note when the mapping adapts it)
POLICIES = {
    "SCHED_FIFO": ("fifo", None),
    "SCHED_RR": ("fifo", "SCHED_RR runs as SCHED_FIFO (they differ only between threads of equal priority, "
                         "which is checked)"),
    "SCHED_DEADLINE": ("deadline", None),
    "SCHED_OTHER": ("other", None),
    "SCHED_BATCH": ("batch", None),
    "SCHED_IDLE": ("idle", None),
}
DEFAULT_RT_PRIORITY = 10  # rt-app's priority for SCHED_FIFO / SCHED_RR threads that give none

_SCHED_KEYS = ("policy", "priority", "dl-runtime", "dl-period", "dl-deadline", "cpus")
_LEGACY_DL = {"period": "dl-period", "deadline": "dl-deadline"}  # rt-app still reads these on a thread
_IGNORED = {
    "util_min": "a utilization clamp steers CPU frequency and placement; rtsched's compute is CPU time",
    "util_max": "a utilization clamp steers CPU frequency and placement; rtsched's compute is CPU time",
    "nodes_membind": "NUMA memory binding; rtsched's actions do not touch memory",
}
_THREAD_ONLY = {"instance", "delay", "phases", "loop"}


@dataclass
class ThreadTask:
    """A task document being built, with where it came from and what the assembler needs."""

    doc: dict[str, Any]
    where: Member  # the thread's (or, for phases run in sequence, the phase's) key
    thread: str  # the rt-app thread it comes from
    policy: str  # rtsched's: fifo, deadline, or a best-effort one (other, idle)
    period_us: int
    instance: int = 0
    rr: bool = False  # SCHED_RR in the file
    cpus: tuple[list[int], str] | None = None  # (CPUs, where they were given)
    timer_ref: str | None = None
    woken_by: str | None = None  # an event task's: the condition whose resume, signal or broad activates it
    fork: int | None = None  # a copy started by the fork of this number (fork.py), from a thread that runs


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _loop(member: Member, path: str, problems: Problems) -> int | None | bool:
    """A loop count, None for -1 (for ever), False after an error."""
    value = member.value
    if not _int(value) or value == 0 or value < -1:
        problems.error(member, path, f"expected a loop count (> 0, or -1 for ever), got {describe(value)}")
        return False
    return None if value == -1 else value


class _Phase:
    def __init__(self, name: str, obj: JObject, path: str, where: Member):
        self.name = name
        self.where = where
        self.obj = obj
        self.path = path
        self.events: list[tuple[str, Member, str]] = []  # (kind, member, path)
        self.sched: dict[str, tuple[Any, Member, str]] = {}
        self.loop_member: Member | None = None
        self.taskgroup: Member | None = None
        self.wcet: Member | None = None  # the WCETs of its mem and iorun events (rtapp/writes.py)


def _classify(obj: JObject, path: str, phase: _Phase, problems: Problems, *, thread_level: bool,
              has_phases: bool) -> dict[str, Member]:
    """Sort the members of a thread or phase object into events, properties and the ignored."""
    thread_props: dict[str, Member] = {}
    for m in obj:
        mpath = f"{path}.{m.key}"
        kind = event_kind(m.key)
        if kind is not None:
            if has_phases and thread_level:
                problems.warn(m, mpath, "event beside phases: ignored, as rt-app does (move it into a phase)")
            else:
                phase.events.append((kind, m, mpath))
        elif m.key in _SCHED_KEYS or (thread_level and m.key in _LEGACY_DL):
            key = _LEGACY_DL.get(m.key, m.key) if thread_level else m.key
            if key in phase.sched and key != m.key:
                continue  # dl-period given: the legacy key is not read
            phase.sched[key] = (m.value, m, mpath)
        elif m.key == "loop" and not thread_level:
            phase.loop_member = m
        elif thread_level and m.key in _THREAD_ONLY:
            thread_props[m.key] = m
        elif m.key == "wcet":
            phase.wcet = m
        elif m.key == "taskgroup":
            if m.value not in ("", None):
                phase.taskgroup = m
        elif m.key == "dl-reclaim":  # a key of rt-app forks, not of rt-app master (rt-app/src/rt-app_parse_config.c)
            if m.value is True:
                problems.warn(m, mpath, "ignored, as rt-app master ignores it (dl-reclaim is a key of rt-app "
                              "forks): the thread runs without bandwidth reclaiming (SCHED_FLAG_RECLAIM), and an "
                              "rtsched job never runs beyond its runtime")
        elif m.key in _IGNORED:
            if m.value not in ("", None):
                problems.warn(m, mpath, f"ignored: {_IGNORED[m.key]}")
        else:
            problems.warn(m, mpath, f'unknown key "{m.key}" ignored, as rt-app ignores it')
    return thread_props


def thread_tasks(member: Member, *, default_policy: str, names: Names, problems: Problems,
                 writes: WriteSettings = WriteSettings(), forks_us: tuple[int, ...] = (),
                 started_forks: tuple[int, ...] = (),
                 fork_marks: dict[int, tuple[str, int]] | None = None) -> list[ThreadTask]:
    """The tasks of one thread object (empty after an error, which is reported); ``forks_us``: when a
    launcher forks it (fork.py), each fork adding a copy of its tasks released that much later;
    ``started_forks``: the numbers of the forks of it by threads that run, each a copy of its task started
    by that fork's activation; ``fork_marks``: this thread's own forks (fork.py's ``ForkPlan.marks``)."""
    tname = member.key
    path = f"tasks.{tname}"
    if not isinstance(member.value, JObject):
        problems.error(member, path, f"expected an object, got {describe(member.value)}")
        return []
    n_errors = len(problems.errors)
    top = _Phase(tname, member.value, path, member)
    has_phases = member.value.get("phases") is not None
    props = _classify(member.value, path, top, problems, thread_level=True, has_phases=has_phases)

    phases: list[_Phase] = []
    thread_loop: int | None = None
    if has_phases:
        pm = props["phases"]
        if not isinstance(pm.value, JObject) or not len(pm.value):
            problems.error(pm, f"{path}.phases", f"expected an object of phases, got {describe(pm.value)}")
            return []
        for phm in pm.value:
            phpath = f"{path}.phases.{phm.key}"
            if not isinstance(phm.value, JObject):
                problems.error(phm, phpath, f"expected an object, got {describe(phm.value)}")
                continue
            phase = _Phase(phm.key, phm.value, phpath, phm)
            _classify(phm.value, phpath, phase, problems, thread_level=False, has_phases=False)
            phases.append(phase)
        if "loop" in props:
            loop = _loop(props["loop"], f"{path}.loop", problems)
            thread_loop = None if loop is False else loop
    else:
        phases = [top]
        # rt-app: a thread without phases runs its loop once per loop count, then stops
        if "loop" in props:
            top.loop_member = props["loop"]
            thread_loop = 1

    instances = 1
    if "instance" in props:
        im = props["instance"]
        if not _int(im.value) or im.value < 0:
            problems.error(im, f"{path}.instance", f"expected a thread count >= 0, got {describe(im.value)}")
        else:
            instances = im.value
            if instances == 0 and not forks_us and not started_forks:
                problems.warn(im, f"{path}.instance", "0 instances: rt-app creates no thread, no task imported")
    delay_us = 0
    if "delay" in props:
        dm = props["delay"]
        if not _int(dm.value) or dm.value < 0:
            problems.error(dm, f"{path}.delay", f"expected microseconds >= 0, got {describe(dm.value)}")
        else:
            delay_us = dm.value

    thread_wcets: dict[str, int] = {}  # a thread's wcet beside its phases: for every phase's writes
    if has_phases:
        keys = {m.key for phase in phases for kind, m, _ in phase.events if kind in WRITE_EVENTS}
        thread_wcets = read_wcets(top.wcet, f"{path}.wcet", keys, problems)
    paced_by_itself = not any(kind == "timer" for phase in phases for kind, _, _ in phase.events)
    if len(phases) > 1 and (paced_by_itself or _starts_on_its_only_timer(phases)):
        cycle = _one_cycle(phases, top, f"{path}.phases", problems,
                           "without a timer" if paced_by_itself else "that start on their only timer", default_policy)
        if cycle is None:
            return []
        phases = [cycle]
    repeated = len(phases) > 1 and thread_loop != 1

    tasks: list[ThreadTask] = []
    offset_us = delay_us
    # rt-app: a phase's policy, priority, dl-* and taskgroup stay in force for the phases after it;
    # its cpus fall back to the thread's
    sched = dict(top.sched)
    taskgroup = (top.taskgroup, f"{path}.taskgroup") if top.taskgroup is not None else None
    for phase in phases:
        if not paced_by_itself and not repeated and _sleeps_only(phase):
            pause_us = _pause_us(phase, problems)
            if pause_us is None:
                return []
            offset_us += pause_us
            continue
        if phase is not top:
            if phase.taskgroup is not None:
                taskgroup = (phase.taskgroup, f"{phase.path}.taskgroup")
            sched = {**sched, **{k: v for k, v in phase.sched.items() if k != "cpus"}}
            sched.pop("cpus", None)
            cpus = phase.sched.get("cpus") or top.sched.get("cpus")
            if cpus is not None:
                sched["cpus"] = cpus
        task = _phase_task(phase, top, dict(sched), tname if len(phases) == 1 else f"{tname}-{phase.name}",
                           1 if repeated else thread_loop, offset_us, default_policy, names, problems,
                           several=len(phases) > 1, paced_by_itself=paced_by_itself, writes=writes,
                           inherited_wcets=thread_wcets, fork_marks=fork_marks or {}, taskgroup=taskgroup)
        if task is None:
            continue
        tasks.append(task)
        period_us = task.period_us
        jobs = task.doc.get("max_jobs")
        if phase is not phases[-1]:
            if jobs is None:
                problems.error(phase.loop_member or phase.where, f"{phase.path}.loop",
                               "a phase followed by others must have a finite loop")
                return []
            offset_us += jobs * period_us
    if len(problems.errors) > n_errors:
        return []
    if repeated:
        tasks = _repeat_cycle(tasks, thread_loop, delay_us, props["phases"], f"{path}.phases", problems)
    elif len(phases) > 1:
        problems.warn(props["phases"], f"{path}.phases",
                      f"phases become {len(tasks)} tasks released one after the other ("
                      + ", ".join(t.doc["name"] for t in tasks)
                      + "); they do not overlap while every job ends within its period")
    started = _started(tasks, started_forks, instances + len(forks_us), member, path, problems)
    if instances == 1:
        return tasks + _forked(tasks, forks_us, instances) + started
    copies = [replace(task, doc={**task.doc, "name": f"{task.doc['name']}-{i}",
                                 "body": [dict(a) for a in task.doc["body"]]}, instance=i)
              for task in tasks for i in range(instances)]
    return copies + _forked(tasks, forks_us, instances) + started


def _started(tasks: list[ThreadTask], numbers: tuple[int, ...], first_instance: int, where: Member, path: str,
             problems: Problems) -> list[ThreadTask]:
    """The copies of a thread's task that forks from running threads start (fork.py): the k-th fork's copy,
    ``<task>-f<k>``, is ``started_by_activation`` (the fork's activate). Only a thread of one task that starts
    with its thread (no offset) and is not an event task maps so."""
    if not numbers:
        return []
    if len(tasks) != 1 or tasks[0].doc.get("kind") == "event" or "offset" in tasks[0].doc:
        why = (f"it becomes {len(tasks)} tasks" if len(tasks) != 1 else "its loop waits for a wake-up"
               if tasks[0].doc.get("kind") == "event" else "it starts after a delay or sleep")
        problems.error(where, path, f"forked by a thread that runs, so started when that thread gets to the fork, "
                       f"which maps for a thread of one task starting with its thread: {why}")
        return []
    (task,) = tasks
    return [replace(task, doc={**task.doc, "name": f"{task.doc['name']}-f{k}", "started_by_activation": True,
                               "body": [dict(a) for a in task.doc["body"]]}, instance=first_instance + i, fork=k)
            for i, k in enumerate(numbers)]


def _forked(tasks: list[ThreadTask], forks_us: tuple[int, ...], instances: int) -> list[ThreadTask]:
    """The copies of a thread's tasks that a launcher's forks start (fork.py): the k-th fork's copies are
    named ``<task>-f<k>`` and released ``forks_us[k]`` later (added to their offsets)."""
    copies = []
    for k, at_us in enumerate(forks_us):
        for task in tasks:
            doc = {**task.doc, "name": f"{task.doc['name']}-f{k}", "body": [dict(a) for a in task.doc["body"]]}
            offset_ns = parse_duration(doc.get("offset", "0ns")) + at_us * 1000
            doc.pop("offset", None)
            if offset_ns:
                doc = _with_offset(doc, format_duration(offset_ns))
            copies.append(replace(task, doc=doc, instance=instances + k))
    return copies


def _with_offset(doc: dict[str, Any], offset: str) -> dict[str, Any]:
    """``doc`` with its offset right after its period (the documented key order)."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        out[key] = value
        if key == "period":
            out["offset"] = offset
    return out


MAX_CYCLE_TASKS = 64  # phase iterations a repeated cycle may become (one task each)
MAX_CYCLE_EVENTS = 256  # events a self-paced thread's phases may become, each repeated its loop count


def _sleeps_only(phase: _Phase) -> bool:
    return bool(phase.events) and all(kind == "sleep" for kind, _, _ in phase.events)


def _finite_loop(phase: _Phase, problems: Problems, if_endless: str) -> int | None:
    """The phase's loop count (1 without ``loop``), or None after an error: a bad value, or an
    endless loop (-1), refused with ``if_endless``."""
    loop: int | None | bool = 1
    if phase.loop_member is not None:
        loop = _loop(phase.loop_member, f"{phase.path}.loop", problems)
    if loop is False:
        return None
    if loop is None:
        problems.error(phase.loop_member or phase.where, f"{phase.path}.loop", if_endless)
        return None
    return int(loop)


def _pause_us(phase: _Phase, problems: Problems) -> int | None:
    """A phase of sleeps only, among phases run once in sequence: the time it holds the phases after
    it back (its sleeps times its loop), or None after an error."""
    loop = _finite_loop(phase, problems, "a phase of sleeps only that loops for ever: the phases after it "
                        "never run")
    if loop is None:
        return None
    total = 0
    for _, m, mpath in phase.events:
        if not _int(m.value) or m.value < 0:
            problems.error(m, mpath, f"expected microseconds >= 0, got {describe(m.value)}")
            return None
        total += m.value
    problems.warn(phase.where, phase.path, f"a phase of sleeps only: no task; the phases after it start "
                  f"{format_duration(total * loop * 1000)} later")
    return total * loop


def _starts_on_its_only_timer(phases: list[_Phase]) -> bool:
    """One timer in all the phases, the first event of the first phase, which runs once per cycle: the
    phases are one loop that waits for its timer first (rt-app's cpufreq_governor_efficiency/dvfs.json)."""
    timers = [m for phase in phases for kind, m, _ in phase.events if kind == "timer"]
    first = phases[0]
    return (len(timers) == 1 and bool(first.events) and first.events[0][0] == "timer"
            and (first.loop_member is None or first.loop_member.value == 1))


def _phase_moves(phases: list[_Phase], top: _Phase, problems: Problems) -> dict[int, list[tuple[str, Member, str]]] | None:
    """rt-app sets a thread's affinity at the start of each phase (``set_thread_affinity``: the phase's
    cpus, else the thread's, else those it started with), so phases of their own ``cpus`` in one loop
    become an ``affinity`` action at the start of each phase: id(phase) -> its ("cpus", member, path)
    pseudo-event, translated by ``_phase_task``. Empty when no phase gives cpus; None after an error."""
    if not any("cpus" in phase.sched for phase in phases):
        return {}
    moves: dict[int, list[tuple[str, Member, str]]] = {}
    for phase in phases:
        given = phase.sched.get("cpus") or top.sched.get("cpus")
        if given is None:
            problems.error(phase.where, phase.path, "no cpus, after a phase that gives its own, in a thread without "
                           "cpus: rt-app moves the thread back to the CPUs it started on, which an rtsched "
                           "affinity names; give the thread cpus")
            return None
        value, m, mpath = given
        if not isinstance(value, list) or not value or not all(_int(c) and c >= 0 for c in value):
            problems.error(m, mpath, f"expected a list of CPU numbers, got {describe(value)}")
            return None
        moves[id(phase)] = [("cpus", m, mpath)]
    return moves


_DL_KEYS = ("dl-runtime", "dl-period", "dl-deadline")


def _phase_sched_changes(phases: list[_Phase], top: _Phase, default_policy: str, which: str,
                         problems: Problems) -> dict[int, list[tuple[str, Member, str]]] | None:
    """rt-app sets a phase's own policy and priority at the phase's start (``set_thread_param``; a phase
    without them keeps what the last one set, in the next cycle too), so in one loop each phase that
    gives them starts with a ``sched`` action: id(phase) -> its ("sched", member, path) pseudo-event,
    the member's value the action. A phase's policy defaults to the current one and its priority to
    rt-app's default for the policy it gives (10 for SCHED_FIFO/SCHED_RR, nice 0), or stays when it
    gives none. SCHED_DEADLINE cannot come or go (a task keeps the reservation it starts with). None
    after an error."""
    changes: dict[int, list[tuple[str, Member, str]]] = {}
    given = top.sched.get("policy")
    current = given[0] if given is not None and isinstance(given[0], str) else default_policy
    if current not in POLICIES:
        return {}  # the thread's own policy is refused by _sched, with its reason
    ok = True
    for phase in phases:
        for key in _DL_KEYS:
            if key in phase.sched:
                _, m, mpath = phase.sched[key]
                problems.error(m, mpath, f"the phases of a thread {which} become one task (one loop): a phase "
                               f"cannot set its own {key} (a task keeps the SCHED_DEADLINE reservation it starts "
                               "with); set it on the thread")
                ok = False
        own = {k: phase.sched[k] for k in ("policy", "priority") if k in phase.sched}
        if not own:
            continue
        _, m, mpath = next(iter(own.values()))
        policy_name = own["policy"][0] if "policy" in own else current
        if not isinstance(policy_name, str) or policy_name not in POLICIES or current not in POLICIES:
            problems.error(m, mpath, f"unknown policy {describe(policy_name)} (rt-app takes "
                           f"{', '.join(POLICIES)})")
            ok = False
            continue
        policy = POLICIES[policy_name][0]
        if policy == "deadline" or POLICIES[current][0] == "deadline":
            problems.error(m, mpath, f"the phases of a thread {which} become one task (one loop): a phase cannot "
                           "switch to or from SCHED_DEADLINE (a task keeps the reservation it starts with)")
            ok = False
            continue
        value = own["priority"][0] if "priority" in own else (DEFAULT_RT_PRIORITY if policy == "fifo" else 0)
        if policy == "fifo" and not (_int(value) and 1 <= value <= 99):
            problems.error(m, mpath, f"a SCHED_FIFO priority is an integer in 1..99, got {describe(value)}")
            ok = False
            continue
        if policy in ("other", "batch") and not (_int(value) and -20 <= value <= 19):
            problems.error(m, mpath, f"rt-app's priority of a SCHED_OTHER or SCHED_BATCH thread is its nice, "
                           f"-20..19, as rt-app requires; got {describe(value)}")
            ok = False
            continue
        action: dict[str, Any] = {"policy": policy}
        if policy == "fifo":
            action["priority"] = value
        elif policy in ("other", "batch") and value:
            action["nice"] = value
        changes[id(phase)] = [("sched", Member("sched", action, m.line, m.column), mpath)]
        current = policy_name
    return changes if ok else None


def _one_cycle(phases: list[_Phase], top: _Phase, path: str, problems: Problems, which: str,
               default_policy: str) -> _Phase | None:
    """The phases of a thread ``which`` is without a timer, or whose only timer starts them -> one loop:
    each phase's events repeated its loop count, in order (rt-app runs them so, and the thread's loop
    repeats the whole). A phase that gives its own cpus, policy or priority starts with an ``affinity``
    (``_phase_moves``) or a ``sched`` action (``_phase_sched_changes``), as rt-app sets them at each
    phase's start."""
    changes = _phase_sched_changes(phases, top, default_policy, which, problems)
    moves = _phase_moves(phases, top, problems)
    if changes is None or moves is None:
        return None
    cycle = _Phase(top.name, top.obj, top.path, top.where)
    cycle.taskgroup = top.taskgroup
    for phase in phases:
        loop = _finite_loop(phase, problems, f"a phase of a thread {which} needs a finite loop (the phases "
                            "become one loop)")
        if loop is None:
            return None
        # rt-app's set_thread_taskgroup at the phase's start: a phase without one keeps the current
        joins = [("taskgroup", phase.taskgroup, f"{phase.path}.taskgroup")] if phase.taskgroup is not None else []
        cycle.events.extend(moves.get(id(phase), []) + changes.get(id(phase), []) + joins + phase.events * loop)
    if len(cycle.events) > MAX_CYCLE_EVENTS:
        problems.error(top.where, path, f"the phases, each repeated its loop count, are {len(cycle.events)} "
                       f"events in one loop (at most {MAX_CYCLE_EVENTS})")
        return None
    return cycle


def _repeat_cycle(phase_tasks: list[ThreadTask], thread_loop: int | None, delay_us: int, where: Member, path: str,
                  problems: Problems) -> list[ThreadTask]:
    """Phases repeated by the thread's loop -> one task per phase iteration, each at the cycle's period.

    With one timer for all phases, rt-app releases iteration l of phase i at delay + c*C + P_i + l*T_i
    in cycle c, where T_i is the phase's period, C = sum(L_i * T_i) the cycle and P_i the length of the
    phases before it: exactly an rtsched task of period C, that offset and deadline T_i (its next
    release). Under SCHED_FIFO the period of a thread does not change how it is scheduled, so the
    split only costs the analysis some pessimism (it sees the iterations as concurrent tasks).
    Phases that differ only in their runs (the same events, period and scheduling) are instead one
    task whose jobs cycle through them (``_cycling_task``), exactly the thread's jobs.
    """
    loops = [t.doc.get("max_jobs") for t in phase_tasks]
    refs = {t.timer_ref for t in phase_tasks}
    loop_text = "for ever" if thread_loop is None else f"{thread_loop} times"
    why = f"{len(phase_tasks)} phases repeated {loop_text}"
    if len(refs) == 1 and None not in loops:
        cycling = _cycling_task(phase_tasks, [n for n in loops if n is not None], thread_loop, delay_us)
        if cycling is not None:
            steps = ", ".join(f"{n} x {t.doc['name']}" for t, n in zip(phase_tasks, loops))
            problems.warn(where, path, f"{why}, the same but for their runs, become one task "
                          f"\"{cycling.doc['name']}\" whose jobs cycle through them ({steps}): each run that "
                          "differs is a compute of per-job sequence")
            return [cycling]
    if any(t.policy == "deadline" for t in phase_tasks):
        problems.error(where, path, f"{why} under SCHED_DEADLINE: each phase iteration would need a reservation "
                       "of its own at the cycle's period; only a single phase, or phases run once in sequence "
                       "(thread loop 1), can be imported")
        return []
    if len(refs) != 1:
        problems.error(where, path, f"{why} with different timers ({', '.join(sorted(map(str, refs)))}): rt-app "
                       "restarts each timer in every cycle; give every phase the same timer ref")
        return []
    if None in loops:
        problems.error(where, path, f"{why}: every phase needs a finite loop")
        return []
    counts = [n for n in loops if n is not None]  # every phase's loop is finite here (checked above)
    count = sum(counts)
    if count > MAX_CYCLE_TASKS:
        problems.error(where, path, f"{why}: their {count} iterations would become {count} tasks (at most "
                       f"{MAX_CYCLE_TASKS})")
        return []
    cycle_us = sum(t.period_us * n for t, n in zip(phase_tasks, counts))
    tasks = []
    start_us = delay_us
    for task, n in zip(phase_tasks, loops):
        for i in range(n if task.doc["body"] else 0):  # type: ignore[arg-type]  # a timer alone: a pause
            doc = {**task.doc, "name": task.doc["name"] if n == 1 else f"{task.doc['name']}-{i}",
                   "period": format_duration(cycle_us * 1000),
                   "deadline": format_duration(task.period_us * 1000),
                   "body": [dict(a) for a in task.doc["body"]]}
            doc.pop("offset", None)
            if start_us + i * task.period_us:
                doc["offset"] = format_duration((start_us + i * task.period_us) * 1000)
            doc.pop("max_jobs", None)
            if thread_loop is not None:
                doc["max_jobs"] = thread_loop
            tasks.append(replace(task, doc=doc, period_us=cycle_us))
        start_us += n * task.period_us  # type: ignore[operator]
    pauses = [t.doc["name"] for t in phase_tasks if not t.doc["body"]]
    problems.warn(where, path, f"{why} become {len(tasks)} tasks, one per phase iteration, each of period "
                  f"{format_duration(cycle_us * 1000)} (the cycle) with its place in the cycle as offset and "
                  "its phase's period as deadline" + (f"; {', '.join(pauses)}: a timer alone, no task (a pause "
                                                      "in the cycle)" if pauses else ""))
    return tasks


def _cycling_task(phase_tasks: list[ThreadTask], counts: list[int], thread_loop: int | None,
                  delay_us: int) -> ThreadTask | None:
    """The phases as one task whose job k runs phase i's body for its count of jobs, in turn, or None when
    the phases differ in more than the length of their runs (their events, period or scheduling)."""
    first = phase_tasks[0]
    same = ("name", "body", "max_jobs", "offset")
    shape = {k: v for k, v in first.doc.items() if k not in same}
    if any({k: v for k, v in t.doc.items() if k not in same} != shape or t.cpus != first.cpus
           or len(t.doc["body"]) != len(first.doc["body"]) or not t.doc["body"] for t in phase_tasks):
        return None
    body: list[dict[str, Any]] = []
    for actions in zip(*(t.doc["body"] for t in phase_tasks)):
        if all(a == actions[0] for a in actions):
            body.append(dict(actions[0]))
        elif all(set(a) == {"compute"} and isinstance(a["compute"], str) for a in actions):
            body.append({"compute": {"sequence": [[n, a["compute"]] for n, a in zip(counts, actions)]}})
        else:
            return None
    doc = {k: v for k, v in first.doc.items() if k not in ("body", "max_jobs", "offset")}
    doc["name"] = first.thread
    if delay_us:
        doc = _with_offset(doc, format_duration(delay_us * 1000))
    if thread_loop is not None:
        doc["max_jobs"] = thread_loop * sum(counts)
    doc["body"] = body
    return replace(first, doc=doc)


def _phase_task(phase: _Phase, top: _Phase, sched: dict[str, tuple[Any, Member, str]], name: str,
                thread_loop: int | None, offset_us: int, default_policy: str, names: Names, problems: Problems,
                *, several: bool, paced_by_itself: bool, writes: WriteSettings,
                inherited_wcets: dict[str, int], fork_marks: dict[int, tuple[str, int]],
                taskgroup: tuple[Member, str] | None = None) -> ThreadTask | None:
    where = phase.where
    policy_name = default_policy
    if "policy" in sched:
        value, pm, ppath = sched["policy"]
        if not isinstance(value, str) or value not in POLICIES:
            problems.error(pm, ppath, f"unknown policy {describe(value)} (rt-app takes {', '.join(POLICIES)})")
            return None
        policy_name = value
    policy, note = POLICIES[policy_name]
    if note and "policy" in sched:
        problems.warn(sched["policy"][1], sched["policy"][2], note)
    joins = [(m, mpath) for kind, m, mpath in phase.events if kind == "taskgroup"]
    for m, tgpath in ([taskgroup] if taskgroup is not None else []) + joins:
        if policy not in BEST_EFFORT:
            problems.error(m, tgpath, f"a taskgroup with {policy_name}: rt-app refuses it too (\"No taskgroup "
                           "support for policy\": taskgroups are for SCHED_OTHER, SCHED_BATCH and SCHED_IDLE threads)")
            return None
        if not isinstance(m.value, str) or not TASKGROUP_PATTERN.fullmatch(m.value):
            problems.error(m, tgpath, f'expected a cpu cgroup such as "/tg1" or "/tg1/tg11", got {describe(m.value)}')
            return None

    events = phase.events
    if not events:
        problems.error(where, phase.path, "no events (rt-app refuses a thread or phase without events too)")
        return None
    wcets = _wcets(phase, inherited_wcets, problems)
    woken_loop = paced_by_itself and any(kind in WAKE_UPS for kind, _, _ in events)
    pieces = []  # (kind, member, path, actions): every event is translated first, so every refused one is reported
    for kind, m, mpath in events:
        if kind in WRITE_EVENTS:
            pieces.append((kind, m, mpath, write_action(kind, m, mpath, writes, wcets.get(m.key), problems,
                                                        best_effort=policy in BEST_EFFORT) or []))
        elif kind == "cpus":  # a phase's own cpus in one loop (_phase_moves): rt-app's set_thread_affinity
            pieces.append((kind, m, mpath, [{"affinity": sorted(set(m.value))}]))
        elif kind == "sched":  # a phase's own policy in one loop (_phase_sched_changes): set_thread_param
            pieces.append((kind, m, mpath, [{"sched": dict(m.value)}]))
        elif kind == "taskgroup":  # a phase's own taskgroup in one loop (_one_cycle): set_thread_taskgroup
            pieces.append((kind, m, mpath, [{"taskgroup": m.value}]))
        elif kind == "fork":  # a thread that runs and forks (fork.py): the copy's activation, named later
            mark = fork_marks.get(id(m))  # none: fork.py refused it, with the reason
            if mark is not None:
                pieces.append((kind, m, mpath, [{"_fork": mark[0], "_k": mark[1], "_fork_at": (m, mpath)}]))
        elif kind != "timer":
            actions = translate_event(kind, m, mpath, thread=top.name, policy=policy, names=names,
                                      problems=problems)
            pieces.append((kind, m, mpath, actions or []))
    body: list[dict[str, Any]] = [a for *_, actions in pieces for a in actions]
    timers = [e for e in events if e[0] == "timer"]
    period_from = "timer period"
    if not timers and not paced_by_itself:
        problems.error(where, phase.path,
                       "no timer, while other phases of the thread have one: rtsched releases every task "
                       'periodically, so each phase must end with a timer event {"ref": ..., "period": ...} '
                       "(a thread with no timer at all is imported as a self-paced loop)")
        return None
    wake: Woken | None = None
    if woken_loop:
        wake = woken(pieces, delay_us=offset_us, names=names, problems=problems)
    if wake is not None:
        period_us: int | None = wake.period_us
        ref, body = None, wake.body
        period_from = "job's runs and sleeps (it has no timer)"
    elif not timers:
        pace = self_paced(events, body, where if several else top.where, phase.path, problems)
        if pace is None:
            return None
        period_us = pace.period_us
        ref, body = None, pace.body
        offset_us += pace.lead_us
        period_from = "loop's length (its runs and sleeps: it has no timer)"
    else:
        starts_on_timer = len(timers) == 1 and len(events) > 1 and events[0][0] == "timer"
        if starts_on_timer:  # rt-app: the timer fires first at delay + period, each job is what follows it
            events = events[1:] + events[:1]
        kind, timer_member, timer_path = events[-1]
        if kind != "timer":
            problems.error(timers[-1][1], timers[-1][2], "the timer must be the last event of the job (it "
                           "ends the job; events after it would start the next one)")
            return None
        for _, tm, tpath in timers[:-1]:
            problems.error(tm, tpath, "only one timer per job, as its last event (it ends the job)")
        period_us, ref = _timer(timer_member, timer_path, problems)
        if starts_on_timer and period_us:
            offset_us += period_us
            problems.warn(timer_member, timer_path, "the loop starts on its timer: each job is the events after "
                          f"it, the first released one period ({format_duration(period_us * 1000)}) after the "
                          "thread starts, as rt-app's first timer fires")

    loop: int | None = 1
    if phase.loop_member is not None:
        got = _loop(phase.loop_member, f"{phase.path}.loop" if phase is not top else f"{top.path}.loop", problems)
        loop = None if got is False else got
    if thread_loop is None or loop is None:
        max_jobs = None
    else:
        max_jobs = thread_loop * loop

    doc: dict[str, Any] = {"name": name}
    if wake is not None:
        doc["kind"] = "event"
    elif not timers:
        doc["kind"] = "self-paced"
    if policy in BEST_EFFORT:
        doc["policy"] = policy
    if taskgroup is not None and taskgroup[0].value != "/":  # "/": the root, where a thread starts anyway
        doc["taskgroup"] = taskgroup[0].value
    doc["period"] = format_duration(period_us * 1000) if period_us else None
    if offset_us and (wake is None or wake.activated_at_start):
        doc["offset"] = format_duration(offset_us * 1000)
    if wake is not None and wake.activated_at_start:
        doc["activated_at_start"] = True
    task = ThreadTask(doc=doc, where=where if several else top.where, thread=top.name, policy=policy,
                      period_us=period_us or 0, rr=policy_name == "SCHED_RR", timer_ref=ref,
                      woken_by=wake.condition if wake is not None else None)
    _sched(task, sched, period_us, problems, period_from)
    if max_jobs is not None:
        doc["max_jobs"] = max_jobs
    doc["body"] = body
    return task


def _wcets(phase: _Phase, inherited: dict[str, int], problems: Problems) -> dict[str, int]:
    """Event key -> WCET (µs) of the phase's mem and iorun events: its own ``wcet``, else the thread's."""
    own = {m.key for kind, m, _ in phase.events if kind in WRITE_EVENTS}
    table = read_wcets(phase.wcet, f"{phase.path}.wcet", own, problems)
    return {**{k: v for k, v in inherited.items() if k in own}, **table}


def _timer(member: Member, path: str, problems: Problems) -> tuple[int | None, str | None]:
    value = member.value
    if not isinstance(value, JObject):
        problems.error(member, path, f'expected {{"ref": ..., "period": ...}}, got {describe(value)}')
        return None, None
    for m in value:
        if m.key not in ("ref", "period", "mode"):
            problems.warn(m, f"{path}.{m.key}", f'unknown timer key "{m.key}" ignored, as rt-app ignores it')
    pm = value.get("period")
    if pm is None or not _int(pm.value) or pm.value <= 0:
        got = "none" if pm is None else describe(pm.value)
        problems.error(pm or member, f"{path}.period", f"expected a period > 0 microseconds, got {got}")
        return None, None
    ref_member = value.get("ref")
    ref = ref_member.value if ref_member is not None and isinstance(ref_member.value, str) else "unknown"
    mode = value.get("mode")
    if mode is not None and mode.value not in ("relative", "absolute"):
        problems.error(mode, f"{path}.mode", f'expected "relative" or "absolute", got {describe(mode.value)}')
    if mode is None or mode.value == "relative":  # rtsched releases as rt-app's absolute mode
        problems.warn(mode or member, f"{path}.mode" if mode else path, 'rt-app\'s "relative" timer (its default '
                      "mode): a job that ends after its next release starts the next job at once and moves "
                      "every later release that late; rtsched keeps them on the grid, as rt-app's \"absolute\" "
                      "mode does (they agree while every job ends before its next release)")
    return pm.value, ref


def _dl_reservation(doc: dict[str, Any], values: dict[str, int], period_us: int | None, period_from: str,
                    dl: dict[str, tuple[Any, Member, str]], problems: Problems) -> None:
    """A SCHED_DEADLINE thread's runtime, deadline and period as rt-app sets them: dl-period defaults
    to dl-runtime, dl-deadline to dl-period. The task's own when its period is the timer's; else
    a reservation of its own (``dl_deadline``, ``dl_period``) beside its jobs' deadline and period."""
    runtime = values["dl-runtime"]
    period = values.get("dl-period", runtime)
    deadline = values.get("dl-deadline", period)
    doc["budget"] = format_duration(runtime * 1000)
    if period_us is not None and period == period_us:
        if deadline != period:
            doc["deadline"] = format_duration(deadline * 1000)
        return
    doc["dl_deadline"] = format_duration(deadline * 1000)
    doc["dl_period"] = format_duration(period * 1000)
    if "dl-period" not in values:
        _, m, mpath = dl["dl-runtime"]
        problems.warn(m, mpath, f"no dl-period: the reservation's period is the runtime, as rt-app makes it (a "
                      f"full CPU while the thread runs), apart from the {period_from}")


#: The fair scheduler's slice range: the kernel clamps sched_runtime to it (Linux 6.12+).
_SLICE_US = (100, 100_000)


def _best_effort(task: ThreadTask, sched: dict[str, tuple[Any, Member, str]],
                 dl: dict[str, tuple[Any, Member, str]], problems: Problems) -> None:
    """A SCHED_OTHER/SCHED_BATCH thread's priority is its nice and its dl-runtime its slice, as rt-app
    sets them (sched_attr.sched_nice, .sched_runtime); SCHED_IDLE has neither."""
    doc = task.doc
    fair = task.policy in ("other", "batch")
    if "priority" in sched:
        value, m, mpath = sched["priority"]
        if not fair:
            if value not in (0, None):
                problems.warn(m, mpath, "ignored: SCHED_IDLE has no nice, as rt-app ignores it")
        elif not _int(value) or not -20 <= value <= 19:
            problems.error(m, mpath, f"rt-app's priority of a SCHED_OTHER or SCHED_BATCH thread is its nice, "
                           f"-20..19, as rt-app requires; got {describe(value)}")
        elif value:
            doc["nice"] = value
    for key, (value, m, mpath) in dl.items():
        if key != "dl-runtime" or not fair:
            problems.warn(m, mpath, "ignored: only for SCHED_DEADLINE" + ("" if fair else " and the fair policies' slice"))
        elif not _int(value) or value < 0:
            problems.error(m, mpath, f"expected microseconds >= 0, got {describe(value)}")
        elif value:
            slice_us = min(max(value, _SLICE_US[0]), _SLICE_US[1])
            if slice_us != value:
                problems.warn(m, mpath, f"a slice of {value}us: the kernel clamps it to {slice_us}us (0.1..100 ms)")
            doc["slice"] = format_duration(slice_us * 1000)


def _sched(task: ThreadTask, sched: dict[str, tuple[Any, Member, str]], period_us: int | None,
           problems: Problems, period_from: str) -> None:
    doc = task.doc
    dl: dict[str, tuple[Any, Member, str]] = {k: sched[k] for k in ("dl-runtime", "dl-period", "dl-deadline")
                                              if k in sched}
    if task.policy == "fifo":
        priority = DEFAULT_RT_PRIORITY
        if "priority" in sched:
            value, m, mpath = sched["priority"]
            if not _int(value) or not 1 <= value <= 99:
                problems.error(m, mpath, f"a SCHED_FIFO priority is an integer in 1..99, got {describe(value)}")
            else:
                priority = value
        doc["priority"] = priority
        for _, m, mpath in dl.values():
            problems.warn(m, mpath, "ignored: only for SCHED_DEADLINE")
    elif task.policy == "deadline":
        if "priority" in sched and sched["priority"][0] not in (0, None):
            problems.warn(sched["priority"][1], sched["priority"][2], "ignored: SCHED_DEADLINE has no priority")
        values: dict[str, int] = {}
        for key, (value, m, mpath) in dl.items():
            if not _int(value) or value < 0:
                problems.error(m, mpath, f"expected microseconds >= 0, got {describe(value)}")
            elif value:
                values[key] = value
        if "dl-runtime" in values:
            _dl_reservation(doc, values, period_us, period_from, dl, problems)
        elif "dl-deadline" in values:
            doc["deadline"] = format_duration(values["dl-deadline"] * 1000)
    else:
        _best_effort(task, sched, dl, problems)
    if "cpus" in sched:
        value, m, mpath = sched["cpus"]
        if not isinstance(value, list) or not value or not all(_int(c) and c >= 0 for c in value):
            problems.error(m, mpath, f"expected a list of CPU numbers, got {describe(value)}")
        else:
            task.cpus = (sorted(set(value)), f"{m.where}: {mpath}")

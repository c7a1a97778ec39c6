"""An rt-app document (as read by reader.py) -> an rtsched task-set document.

The steps: the ``global`` settings (``mem_buffer_size`` and ``io_device`` for
the writes, writes.py); the launchers of forks (fork.py); every thread into tasks (threads.py,
events.py); then what needs all threads at once: timers shared between
tasks, barriers (expanded into per-thread conditions), the deadlines of
loops paced by others (deadlines.py), signals sent without their mutex (wrapped), the platform (partitioned or global, from
the threads' ``cpus``) and the resource and condvar lists. The result is
validated as an rtsched task set; its errors are given back with the
position of the thread they are about. The mapping, key by key, is in
docs/from-rtapp.md.
"""

from __future__ import annotations

import re
from typing import Any

from rtsched.model.durations import format_duration
from rtsched.model.model import BEST_EFFORT
from rtsched.model.rtapp.deadlines import set_deadlines
from rtsched.model.rtapp.events import SIGNAL_KEPT, SYNC_TO_ITSELF, Names, Problems
from rtsched.model.rtapp.fork import fork_plan
from rtsched.model.rtapp.dropped import warn_dropped
from rtsched.model.rtapp.reader import JObject, Member, RtAppText
from rtsched.model.rtapp.threads import POLICIES, ThreadTask, thread_tasks
from rtsched.model.rtapp.writes import WriteSettings, read_global_write_key
from rtsched.model.validate import MAX_NAME, NAME_PATTERN, TaskSetError, taskset_from_dict
from rtsched.model.values import describe

__all__ = ["RtAppImportError", "rtapp_document", "rtapp_task_threads"]

#: global keys that only shape rt-app's own logging, calibration or buffers: ignored, in one warning
_GLOBAL_IGNORED = (
    "calibration", "logdir", "log_basename", "log_size", "ftrace", "gnuplot", "lock_pages", "cumulative_slack",
)
_GLOBAL_IGNORED_WHY = (
    "rt-app's own settings (calibration: rtsched's compute is measured CPU time, so run and runtime both "
    "become compute; logs, ftrace and gnuplot: rtsched writes its own trace; lock_pages: the runner decides)"
)
_TOP_KEYS = ("tasks", "global", "resources")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Assembler:
    def __init__(self, forced_policy: str | None = None) -> None:
        self.forced_policy = forced_policy
        self.problems = Problems()
        self.names = Names()
        self.writes = WriteSettings()  # global mem_buffer_size and io_device

    # -- global ---------------------------------------------------------------------------------
    def global_settings(self, root: JObject) -> tuple[int | None, str, bool]:
        duration_ns: int | None = None
        default_policy = "SCHED_OTHER"
        pi = False
        gm = root.get("global")
        if gm is None:
            return duration_ns, default_policy, pi
        if not isinstance(gm.value, JObject):
            self.problems.error(gm, "global", f"expected an object, got {describe(gm.value)}")
            return duration_ns, default_policy, pi
        ignored: list[Member] = []
        for m in gm.value:
            path = f"global.{m.key}"
            if m.key == "duration":
                if not _int(m.value) or (m.value <= 0 and m.value != -1):
                    self.problems.error(m, path, f"expected seconds (an integer > 0, or -1), got {describe(m.value)}")
                elif m.value > 0:
                    duration_ns = m.value * 1_000_000_000
            elif m.key == "default_policy":
                if not isinstance(m.value, str) or m.value not in POLICIES:
                    self.problems.error(m, path, f"unknown policy {describe(m.value)} (rt-app takes "
                                        f"{', '.join(POLICIES)})")
                else:
                    default_policy = m.value
            elif m.key == "pi_enabled":
                if not isinstance(m.value, bool):
                    self.problems.error(m, path, f"expected true or false, got {describe(m.value)}")
                else:
                    pi = m.value
            elif m.key in ("mem_buffer_size", "io_device"):
                self.writes = read_global_write_key(m, self.writes, self.problems)
            elif m.key in _GLOBAL_IGNORED:
                ignored.append(m)
            else:
                self.problems.warn(m, path, f'unknown key "{m.key}" ignored, as rt-app ignores it')
        if ignored:
            keys = ", ".join(m.key for m in ignored)
            self.problems.warn(ignored[0], "global", f"ignored {keys}: {_GLOBAL_IGNORED_WHY}")
        return duration_ns, default_policy, pi

    def legacy_resources(self, root: JObject) -> None:
        rm = root.get("resources")
        if rm is not None:
            self.problems.warn(rm, "resources", "ignored: rt-app creates resources where events name them")

    # -- whole set ------------------------------------------------------------------------------
    def document(self, root: Any, name: str) -> tuple[dict[str, Any] | None, list[ThreadTask]]:
        if not isinstance(root, JObject):
            self.problems.errors.append(f"1:1: (top level): expected a JSON object, got {describe(root)}")
            return None, []
        for m in root:
            if m.key not in _TOP_KEYS:
                self.problems.warn(m, m.key, f'unknown key "{m.key}" ignored, as rt-app ignores it')
        duration_ns, default_policy, pi = self.global_settings(root)
        if self.forced_policy is not None:
            default_policy = self.forced_policy
        self.legacy_resources(root)
        tm = root.get("tasks")
        if tm is None:
            self.problems.errors.append(f'{root.line}:{root.column}: (top level): no "tasks" object: rt-app '
                                        'refuses the file too ("Error while parsing config"); a fragment such as '
                                        "rt-app's doc/examples/merge/ files is for rt-app's doc/merge.py, which "
                                        "joins fragments into one file")
            return None, []
        if not isinstance(tm.value, JObject) or not len(tm.value):
            self.problems.errors.append(f"{tm.line}:{tm.column}: tasks: expected an "
                                        "object with at least one thread")
            return None, []
        plan = fork_plan(tm.value, self.problems)
        tasks: list[ThreadTask] = []
        for member in tm.value:
            if member.key in plan.launchers:
                self.problems.warn(member, f"tasks.{member.key}", "a launcher of sleeps and forks: no task of its "
                                   "own; each fork is a copy of the forked thread's tasks, released at the fork's time")
                continue
            tasks += thread_tasks(member, default_policy=default_policy, names=self.names, problems=self.problems,
                                  writes=self.writes, forks_us=tuple(plan.forks_us.get(member.key, ())),
                                  started_forks=tuple(plan.started.get(member.key, ())), fork_marks=plan.marks)
        if self.problems.errors:
            return None, tasks
        self.rename(tasks)
        self.check_timers(tasks)
        self.link_activations(tasks)
        self.link_forks(tasks)
        self.expand_barriers(tasks)
        for cond, where in self.names.signalled.items():
            if cond not in self.names.cond_mutex:
                self.problems.errors.append(f"{where}: tasks: condition \"{cond}\" is signalled but never waited "
                                            "on, so its mutex is unknown (an rtsched condvar belongs to one mutex)")
        if self.problems.errors:
            return None, tasks
        set_deadlines(tasks, self.problems)
        for task in tasks:
            task.doc["body"] = self.wrap_with_mutex(task)
        return self.assemble(name, duration_ns, pi, tasks), tasks

    def rename(self, tasks: list[ThreadTask]) -> None:
        for task in tasks:
            original = task.doc["name"]
            clean = re.sub(r"[^A-Za-z0-9_.-]", "_", original)
            if not re.match(r"[A-Za-z_]", clean):
                clean = "_" + clean
            clean = clean[:MAX_NAME]
            if clean != original:
                self.problems.warn(task.where, f"tasks.{original}", f'renamed "{clean}" (rtsched names: letters, '
                                   f"digits, _ . -, at most {MAX_NAME})")
                task.doc["name"] = clean

    def check_timers(self, tasks: list[ThreadTask]) -> None:
        owners: dict[str, ThreadTask] = {}
        for task in tasks:
            ref = task.timer_ref
            if ref is None or ref.startswith("unique"):
                continue  # rt-app gives each thread (and instance) its own "unique..." timer
            owner = owners.setdefault(ref, task)
            same_thread = (owner.thread, owner.instance) == (task.thread, task.instance)
            if not same_thread:  # phases of one thread share their timers, as in rt-app
                self.problems.error(task.where, f"tasks.{task.doc['name']}", f'timer "{ref}" is shared with task '
                                    f'"{owner.doc["name"]}": rtsched gives each task its own period; give each '
                                    'thread its own timer ref (or one starting with "unique")')

    def link_activations(self, tasks: list[ThreadTask]) -> None:
        """Wake-ups of the event tasks (woken.py) -> their ``activate`` actions.

        A ``resume`` or ``broad`` of a condition (a broadcast) activates every other event task woken by it,
        and still broadcasts the condition when another thread waits on it inside a job. A ``signal`` wakes
        one waiter: the event task, when it is the only other thread that waits on the condition; only
        condition waiters: it stays a signal, kept by rtsched where rt-app's is lost (warning); several
        threads, one of them an event task: error, since which one rt-app wakes depends on who waits first.
        """
        woken: dict[str, list[ThreadTask]] = {}
        for task in tasks:
            if task.woken_by is not None:
                woken.setdefault(task.woken_by, []).append(task)
        waiters: dict[str, list[ThreadTask]] = {}
        for task in tasks:
            for cond in dict.fromkeys(a["wait"] for a in task.doc["body"] if "wait" in a):
                waiters.setdefault(cond, []).append(task)
        for task in tasks:
            body: list[dict[str, Any]] = []
            for action in task.doc["body"]:
                op = "signal" if "_at" in action else "broadcast" if "broadcast" in action else None
                if op is None:  # a sem_post's signal (exact: a semaphore counts) is none of these
                    body.append(action)
                    continue
                cond = action[op]
                events = [t for t in woken.get(cond, ()) if t is not task]
                others = [t for t in waiters.get(cond, ()) if t is not task]
                activations = [{"activate": t.doc["name"]} for t in events]
                if op == "broadcast":
                    body += activations + ([{"broadcast": cond}] if others or not events else [])
                    continue
                member, path = action["_at"]
                if events and len(events) + len(others) > 1:
                    names = ", ".join(t.doc["name"] for t in events + others)
                    self.problems.error(member, path, f'signal of "{cond}" wakes one of the threads that wait on '
                                        f"it ({names}), the first to wait in rt-app; rtsched cannot tell which: "
                                        'use "broad" to wake all, or one condition per waiter')
                elif events:
                    body += activations
                elif action.get("_sync"):
                    self.problems.error(member, path, f'rt-app event "sync" is not supported: {SYNC_TO_ITSELF}')
                else:
                    self.problems.warn(member, path, SIGNAL_KEPT)
                    body.append({"signal": cond})
            task.doc["body"] = body

    def link_forks(self, tasks: list[ThreadTask]) -> None:
        """A fork in a thread that runs (fork.py) -> the ``activate`` of the copy it starts."""
        for task in tasks:
            body: list[dict[str, Any]] = []
            seen: set[tuple[str, int]] = set()
            for action in task.doc["body"]:
                if "_fork" not in action:
                    body.append(action)
                    continue
                member, path = action["_fork_at"]
                mark = (action["_fork"], action["_k"])
                jobs = task.doc.get("max_jobs")
                if mark in seen or jobs != 1:
                    again = "repeated in the job (its phase's loop)" if mark in seen else \
                        f"reached in each of the thread's {jobs or 'endless'} jobs (its phase's loop)"
                    self.problems.error(member, path, f"this fork is {again}: each would start a thread of its own, "
                                        "while the job starts one copy once")
                seen.add(mark)
                body += [{"activate": t.doc["name"]} for t in tasks if (t.thread, t.fork) == mark]
            task.doc["body"] = body

    def expand_barriers(self, tasks: list[ThreadTask]) -> None:
        """rt-app's barrier, from counted signals: each thread signals every other user's condition, then
        takes as many signals on its own as there are other users.

        Why it is exact: a thread passes its r-th barrier when it has taken r(n-1) signals. A user that has
        not reached round r has sent at most r-1, and no other user can have passed round r without it, so
        each of them has sent at most r: at most (n-2)r + r-1 < r(n-1) signals, and the thread waits.
        """
        users: dict[str, list[ThreadTask]] = {}
        for task in tasks:
            seen: set[str] = set()
            for action in task.doc["body"]:
                if "_barrier" in action:
                    barrier = action["_barrier"]
                    if barrier in seen:
                        self.problems.errors.append(f"{action['_where']}: tasks.{task.doc['name']}: barrier "
                                                    f'"{barrier}" used twice in one job')
                    seen.add(barrier)
                    users.setdefault(barrier, []).append(task)
        for barrier, members in users.items():
            if len(members) < 2:
                where = next(a["_where"] for a in members[0].doc["body"] if a.get("_barrier") == barrier)
                self.problems.errors.append(f"{where}: tasks.{members[0].doc['name']}: barrier \"{barrier}\" has "
                                            "one user: rt-app needs at least two threads at a barrier")
                continue
            conds = [f"{barrier}.{i}" for i in range(len(members))]
            if any(not NAME_PATTERN.match(c) or len(c) > MAX_NAME for c in conds):
                self.problems.errors.append(f"tasks: barrier \"{barrier}\": its name must be a valid rtsched name "
                                            f"short enough for \"{conds[-1]}\" (at most {MAX_NAME} characters)")
                continue
            for cond in conds:
                self.names.bind(cond, cond, "barrier")
                self.names.signalled.setdefault(cond, "barrier")
            for i, task in enumerate(members):
                body: list[dict[str, Any]] = []
                for action in task.doc["body"]:
                    if action.get("_barrier") != barrier:
                        body.append(action)
                        continue
                    for j, cond in enumerate(conds):
                        if j != i:
                            body += [{"lock": cond}, {"signal": cond}, {"unlock": cond}]
                    body.append({"lock": conds[i]})
                    body += [{"wait": conds[i]}] * (len(members) - 1)
                    body.append({"unlock": conds[i]})
                task.doc["body"] = body

    def wrap_with_mutex(self, task: ThreadTask) -> list[dict[str, Any]]:
        """rt-app lets a thread signal, and wait, without holding the mutex; rtsched does not: wrap them."""
        held: list[str] = []
        result: list[dict[str, Any]] = []
        wrapped = set()
        for action in task.doc["body"]:
            ((op, arg),) = action.items()
            if op == "lock":
                held.append(arg)
            elif op == "unlock" and arg in held:
                held.remove(arg)
            elif op in ("signal", "broadcast", "wait"):
                mutex = self.names.cond_mutex[arg][0]
                needs = mutex not in held if op != "wait" else (not held or held[-1] != mutex)
                if needs and mutex not in held:
                    result += [{"lock": mutex}, action, {"unlock": mutex}]
                    wrapped.add(f'{op} "{arg}"')
                    continue
            result.append(action)
        if wrapped:
            self.problems.warn(task.where, f"tasks.{task.doc['name']}", f"{', '.join(sorted(wrapped))} done "
                               "with the condition's mutex held (lock, ..., unlock), as rtsched requires")
        return result

    def assemble(self, name: str, duration_ns: int | None, pi: bool, tasks: list[ThreadTask]) -> dict[str, Any] | None:
        rt = [t for t in tasks if t.policy not in BEST_EFFORT]  # none: a set of best-effort tasks, on P-FP
        policies = {t.policy for t in rt}
        if len(policies) > 1:
            fifo = ", ".join(t.doc["name"] for t in rt if t.policy == "fifo")
            dl = ", ".join(t.doc["name"] for t in rt if t.policy == "deadline")
            self.problems.errors.append(f"1:1: tasks: SCHED_FIFO/SCHED_RR threads ({fifo}) and SCHED_DEADLINE "
                                        f"threads ({dl}) together: rtsched runs one scheduler per task set")
            return None
        family = "EDF" if policies == {"deadline"} else "FP"
        affinities = [t.cpus for t in rt]
        platform: dict[str, Any]
        if all(a is not None and len(a[0]) == 1 for a in affinities):
            platform, partitioned = {"scheduler": f"P-{family}"}, True
        elif all(a is None for a in affinities):
            platform, partitioned = {"scheduler": f"G-{family}"}, False
        elif None not in affinities and len({tuple(a[0]) for a in affinities if a is not None}) == 1:
            platform, partitioned = {"scheduler": f"G-{family}", "cpus": affinities[0][0]}, False  # type: ignore[index]
        else:
            where = ", ".join(a[1] for a in affinities if a is not None)
            self.problems.errors.append(f"1:1: tasks: the threads' cpus ({where}) fit neither partitioned "
                                        "scheduling (every real-time thread on one CPU) nor global scheduling "
                                        "(all on the same CPUs, or none giving cpus)")
            return None
        self.check_round_robin(rt, partitioned)
        out_tasks = []
        for t in tasks:
            if partitioned and t.cpus is not None and len(t.cpus[0]) == 1:
                t.doc["partition"] = f"cpu{t.cpus[0][0]}"
            elif t.cpus is not None and t.policy in BEST_EFFORT and platform.get("cpus") != t.cpus[0]:
                self.problems.warn(t.where, f"tasks.{t.doc['name']}.cpus",
                                   "ignored: a SCHED_OTHER task runs on the platform's CPUs")
            if not any(op in action for action in t.doc["body"] for op in ("compute", "memwrite", "iowrite")):
                t.doc["wcet"] = "2us"
                self.problems.warn(t.where, f"tasks.{t.doc['name']}", "no run or runtime: wcet 2us given for "
                                   "the analysis (the job only synchronises)")
            order = ("name", "kind", "policy", "nice", "slice", "taskgroup", "period", "deadline", "offset",
                     "activated_at_start", "started_by_activation", "wcet", "priority", "partition", "budget",
                     "dl_deadline", "dl_period", "max_jobs", "body")
            unordered = set(t.doc) - set(order)
            assert not unordered, f"importer: no place for task keys {sorted(unordered)}"
            out_tasks.append({k: t.doc[k] for k in order if k in t.doc})
        doc: dict[str, Any] = {"name": name}
        if duration_ns is not None:
            doc["duration"] = format_duration(duration_ns)
        doc["platform"] = platform
        protocol = "pip" if pi else "none"
        if self.names.mutexes:
            doc["resources"] = [{"name": r, "protocol": protocol} for r in self.names.mutexes]
        if self.names.cond_mutex:
            doc["condvars"] = [{"name": c, "mutex": m} for c, (m, _) in self.names.cond_mutex.items()]
        doc["tasks"] = out_tasks
        return doc

    def check_round_robin(self, rt: list[ThreadTask], partitioned: bool) -> None:
        for task in rt:
            if not task.rr:
                continue
            for other in rt:
                same_cpu = not partitioned or other.cpus == task.cpus
                if other is not task and same_cpu and other.doc.get("priority") == task.doc.get("priority"):
                    self.problems.errors.append(
                        f"{task.where.where}: tasks.{task.doc['name']}: SCHED_RR at priority "
                        f"{task.doc['priority']} beside \"{other.doc['name']}\" of the same priority: rt-app "
                        "time-slices them, rtsched's SCHED_FIFO does not; give them distinct priorities")
                    break


def _set_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "rtapp"
    if not NAME_PATTERN.match(cleaned):
        cleaned = "rtapp-" + cleaned
    return cleaned[:63]


class RtAppImportError(TaskSetError):
    """The errors of an rt-app file, with the warnings found before them (what rt-app reads differently
    explains some errors: a repeated phase's dropped value, say), each with its position."""

    def __init__(self, errors: list[str], source: str | None, warnings: list[str]):
        super().__init__(errors, source)
        self.warnings = list(warnings)


def rtapp_document(read: RtAppText, *, name: str = "rtapp", source: str | None = None,
                   default_policy: str | None = None) -> tuple[dict[str, Any], list[str]]:
    """The rtsched document for a read rt-app document, and the warnings (each with its position).

    Raises RtAppImportError listing every error, each starting with ``line:column``. The document is
    validated as an rtsched task set before it is returned.
    """
    assembler = _Assembler(default_policy)
    warn_dropped(read, assembler.problems)
    doc, tasks = assembler.document(read.root, _set_name(name))
    if assembler.problems.errors or doc is None:
        raise RtAppImportError(assembler.problems.errors or ["nothing to import"], source,
                               assembler.problems.warnings)
    try:
        taskset_from_dict(doc)
    except TaskSetError as e:
        raise RtAppImportError([_locate(err, tasks) for err in e.errors], source,
                               assembler.problems.warnings) from None
    return doc, assembler.problems.warnings


def _locate(error: str, tasks: list[ThreadTask]) -> str:
    """An rtsched validation error about ``tasks[i]`` -> the same, at the thread it came from."""
    match = re.match(r"tasks\[(\d+)\]", error)
    if match and int(match.group(1)) < len(tasks):
        task = tasks[int(match.group(1))]
        return f"{task.where.where}: tasks.{task.doc['name']}: the imported task is invalid: {error}"
    return f"the imported set is invalid: {error}"


def rtapp_task_threads(read: RtAppText, *, default_policy: str | None = None) -> dict[str, tuple[str, int]]:
    """Each imported task's rt-app thread and instance, by task name: instances 0 to N-1, then the
    thread's forks (instance N + k for its k-th fork), as rt-app numbers their threads and logs
    (``rtsched run --compare-rtapp``). Raises RtAppImportError as rtapp_document does."""
    assembler = _Assembler(default_policy)
    _, tasks = assembler.document(read.root, "origins")
    if assembler.problems.errors:
        raise RtAppImportError(assembler.problems.errors, None, assembler.problems.warnings)
    return {task.doc["name"]: (task.thread, task.instance) for task in tasks}

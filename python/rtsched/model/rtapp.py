"""Import rt-app JSON (scheduler-tools/rt-app, doc/tutorial.txt) into the rtsched format.

The subset that maps onto periodic and sporadic tasks with a job script:

- ``global``: ``duration`` (seconds, -1: none), ``default_policy``,
  ``pi_enabled`` (resources become ``pip`` mutexes, else ``none``). Settings
  that only shape rt-app's own logging or calibration (``calibration``,
  ``logdir``, ``log_basename``, ``log_size``, ``ftrace``, ``gnuplot``,
  ``lock_pages``, ``io_device``, ``mem_buffer_size``, ``cumulative_slack``)
  are ignored with a note.
- ``tasks.<name>``: ``policy`` (SCHED_FIFO, SCHED_DEADLINE, SCHED_OTHER),
  ``priority``, ``dl-runtime`` / ``dl-period`` / ``dl-deadline`` (µs),
  ``cpus``, ``loop``, ``delay`` (µs, becomes the offset), ``instance`` (1
  only), ``phases`` with a single phase.
- events, matched by prefix as rt-app does (``run0``, ``sleep1``, ``lockA``
  ...): ``run`` and ``runtime`` (µs) → ``compute``; ``sleep`` (µs) →
  ``sleep``; ``lock`` / ``unlock``; ``wait`` ``{"ref", "mutex"}``; ``signal``;
  ``broad`` → ``broadcast``; ``timer`` ``{"ref", "period"}`` → the task's
  period. The timer must be the task's last event: it ends the job.

Everything else is an error naming its path. Duplicate keys in an object
are renamed with an index, as rt-app's workgen does, so a list of ``run`` /
``sleep`` pairs keeps its order.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rtsched.model.durations import format_duration
from rtsched.model.model import TaskSet
from rtsched.model.validate import MAX_NAME, NAME_PATTERN, TaskSetError, describe, taskset_from_dict

__all__ = ["RT_APP_EVENTS", "rtapp_to_dict", "import_rtapp", "loads_rtapp"]

#: rt-app's event names, in the order rt-app tests them as key prefixes.
RT_APP_EVENTS = (
    "lock", "unlock", "wait", "signal", "broad", "sync", "sleep", "runtime", "run",
    "timer", "suspend", "resume", "mem", "iorun", "yield", "barrier", "fork",
)
_SUPPORTED_EVENTS = {"lock", "unlock", "wait", "signal", "broad", "sleep", "runtime", "run", "timer"}
_THREAD_KEYS = {
    "policy", "priority", "dl-runtime", "dl-period", "dl-deadline", "cpus", "loop",
    "delay", "instance", "phases",
}
_PHASE_KEYS = {"policy", "priority", "dl-runtime", "dl-period", "dl-deadline", "cpus", "loop"}
_GLOBAL_KEYS = {"duration", "default_policy", "pi_enabled"}
_GLOBAL_IGNORED = {
    "calibration", "logdir", "log_basename", "log_size", "ftrace", "gnuplot",
    "lock_pages", "io_device", "mem_buffer_size", "cumulative_slack",
}
_POLICIES = {"SCHED_FIFO": "fifo", "SCHED_DEADLINE": "deadline", "SCHED_OTHER": "other"}
_DEFAULT_FIFO_PRIORITY = 10  # rt-app's DEFAULT_THREAD_PRIORITY for RT classes


def event_kind(key: str) -> str | None:
    """The rt-app event a key names (``run0`` -> ``run``, ``runtime2`` -> ``runtime``), or None."""
    for event in RT_APP_EVENTS:
        if key.startswith(event):
            if event == "run" and key.startswith("runtime"):
                return "runtime"
            return event
    return None


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """object_pairs_hook: rename repeated keys ``run``, ``run`` -> ``run``, ``run1`` (workgen)."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        new = key
        n = 1
        while new in result:
            new = f"{key}{n}"
            n += 1
        result[new] = value
    return result


class _Importer:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.notes: list[str] = []
        self.resources: dict[str, None] = {}
        self.cond_mutex: dict[str, tuple[str, str]] = {}  # cond -> (mutex, path of first wait)
        self.conds: dict[str, None] = {}
        self.timers: dict[str, str] = {}  # timer ref -> task

    def error(self, path: str, message: str) -> None:
        self.errors.append(f"{path}: {message}")

    def usec(self, value: Any, path: str, *, zero: bool = False) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(path, f"expected an integer of microseconds, got {describe(value)}")
            return None
        if value < 0 or (value == 0 and not zero):
            self.error(path, f"must be {'>= 0' if zero else '> 0'} microseconds, got {value}")
            return None
        return value

    def string(self, value: Any, path: str) -> str | None:
        if not isinstance(value, str) or not value:
            self.error(path, f"expected a name, got {describe(value)}")
            return None
        return value

    def document(self, data: Any, name: str) -> dict[str, Any] | None:
        if not isinstance(data, dict):
            self.error("(top level)", f"expected a JSON object, got {describe(data)}")
            return None
        for key in data:
            if key not in ("tasks", "global", "resources"):
                self.error(key, f'unsupported rt-app key "{key}"')
        glob = data.get("global", {})
        duration = None
        default_policy = "SCHED_OTHER"
        pi = False
        if not isinstance(glob, dict):
            self.error("global", f"expected an object, got {describe(glob)}")
            glob = {}
        for key, value in glob.items():
            path = f"global.{key}"
            if key == "duration":
                if isinstance(value, bool) or not isinstance(value, int) or (value <= 0 and value != -1):
                    self.error(path, f"expected seconds (an integer > 0, or -1), got {describe(value)}")
                elif value > 0:
                    duration = value * 1_000_000_000
            elif key == "default_policy":
                if value not in _POLICIES:
                    self.error(path, f"unsupported policy {describe(value)} (rtsched imports "
                               f"{', '.join(_POLICIES)})")
                else:
                    default_policy = value
            elif key == "pi_enabled":
                if not isinstance(value, bool):
                    self.error(path, f"expected true or false, got {describe(value)}")
                else:
                    pi = value
            elif key in _GLOBAL_IGNORED:
                self.notes.append(f"{path}: ignored (rt-app logging/calibration setting)")
            else:
                self.error(path, f'unsupported rt-app key "{key}"')
        self.legacy_resources(data.get("resources"))

        tasks_obj = data.get("tasks")
        if not isinstance(tasks_obj, dict) or not tasks_obj:
            self.error("tasks", "expected an object with at least one thread")
            return None
        tasks = []
        for tname, tdata in tasks_obj.items():
            task = self.thread(str(tname), tdata, default_policy)
            if task is not None:
                tasks.append(task)

        # the mutex of each condvar, then signals outside their mutex get wrapped
        for cond in self.conds:
            if cond not in self.cond_mutex:
                self.error(
                    "tasks",
                    f'condition "{cond}" is signalled but never waited on, so its mutex is unknown '
                    "(an rtsched condvar belongs to one mutex)",
                )
        if self.errors:
            return None
        for task in tasks:
            task["body"] = self.wrap_signals(task["name"], task["body"])

        return self.assemble(name, duration, pi, tasks)

    def legacy_resources(self, value: Any) -> None:
        if value is None:
            return
        if not isinstance(value, dict):
            self.error("resources", f"expected an object, got {describe(value)}")
            return
        for rname, rdata in value.items():
            rtype = rdata.get("type", "mutex") if isinstance(rdata, dict) else None
            if rtype == "mutex":
                self.resources.setdefault(rname, None)
            elif rtype in ("wait", "timer"):
                continue  # declared again by the events that use them
            else:
                self.error(f"resources.{rname}", f"unsupported rt-app resource type {describe(rtype)}")

    def thread(self, tname: str, tdata: Any, default_policy: str) -> dict[str, Any] | None:
        path = f"tasks.{tname}"
        if not isinstance(tdata, dict):
            self.error(path, f"expected an object, got {describe(tdata)}")
            return None
        n_errors = len(self.errors)
        props: dict[str, Any] = {}
        events: list[tuple[str, str, Any]] = []  # (kind, path, value)
        loop_jobs: int | None = None
        for key, value in tdata.items():
            kpath = f"{path}.{key}"
            kind = event_kind(key)
            if key in _THREAD_KEYS:
                props[key] = (value, kpath)
            elif kind is None:
                self.error(kpath, f'unsupported rt-app key "{key}"')
            elif kind not in _SUPPORTED_EVENTS:
                self.error(kpath, f'unsupported rt-app event "{kind}"')
            else:
                events.append((kind, kpath, value))

        if "instance" in props:
            value, ipath = props.pop("instance")
            if value != 1:
                self.error(ipath, f"only instance 1 is supported (each rtsched task is one thread), got {describe(value)}")
        if "phases" in props:
            phases, ppath = props.pop("phases")
            if events:
                self.error(path, "events beside phases (rt-app ignores them there): move them into the phase")
            if not isinstance(phases, dict) or len(phases) != 1:
                count = len(phases) if isinstance(phases, dict) else describe(phases)
                self.error(ppath, f"only a single phase is supported (an rtsched job is one script), got {count}")
                return None
            ((phname, phase),) = phases.items()
            phpath = f"{ppath}.{phname}"
            if not isinstance(phase, dict):
                self.error(phpath, f"expected an object, got {describe(phase)}")
                return None
            phase_loop: int | None = 1
            thread_loop = None
            if "loop" in props:
                value, lpath = props.pop("loop")
                thread_loop = self.loop(value, lpath)
            for key, value in phase.items():
                kpath = f"{phpath}.{key}"
                kind = event_kind(key)
                if key == "loop":
                    phase_loop = self.loop(value, kpath)
                elif key in _PHASE_KEYS:
                    if key in props and props[key][0] != value:
                        self.error(kpath, f"differs from {path}.{key}: give it once")
                    props[key] = (value, kpath)
                elif kind is None:
                    self.error(kpath, f'unsupported rt-app key "{key}"')
                elif kind not in _SUPPORTED_EVENTS:
                    self.error(kpath, f'unsupported rt-app event "{kind}"')
                else:
                    events.append((kind, kpath, value))
            if phase_loop is not None and thread_loop is not None:
                loop_jobs = phase_loop * thread_loop
        elif "loop" in props:
            value, lpath = props.pop("loop")
            loop_jobs = self.loop(value, lpath)

        policy_name = default_policy
        if "policy" in props:
            value, ppath = props["policy"]
            if value not in _POLICIES:
                self.error(ppath, f"unsupported policy {describe(value)} (rtsched imports "
                           f"{', '.join(_POLICIES)})")
                return None
            policy_name = value
        policy = _POLICIES[policy_name]

        if not events:
            self.error(path, "no events")
            return None
        kind, last_path, timer = events[-1]
        if kind != "timer":
            self.error(path, "rtsched tasks are periodic or sporadic: add a timer event with a "
                       "period as the task's last event (it ends each job)")
            return None
        for kind, epath, _ in events[:-1]:
            if kind == "timer":
                self.error(epath, "only one timer per task, as its last event (it ends the job)")
        period_us = self.timer(timer, last_path, tname)

        body = []
        for kind, epath, value in events[:-1]:
            if kind == "timer":
                continue  # reported above
            action = self.event(kind, epath, value)
            if action is not None:
                body.append(action)

        task: dict[str, Any] = {"name": self.task_name(tname, path)}
        if policy == "other":
            task["policy"] = "other"
        task["period"] = format_duration(period_us * 1000) if period_us else None

        if "delay" in props:
            value, dpath = props["delay"]
            delay = self.usec(value, dpath, zero=True)
            if delay:
                task["offset"] = format_duration(delay * 1000)

        dl = {k: props[k] for k in ("dl-runtime", "dl-period", "dl-deadline") if k in props}
        if policy == "fifo":
            priority = _DEFAULT_FIFO_PRIORITY
            if "priority" in props:
                value, prpath = props["priority"]
                if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 99:
                    self.error(prpath, f"SCHED_FIFO priority must be an integer in 1..99, got {describe(value)}")
                else:
                    priority = value
            task["priority"] = priority
            for key, (_, kpath) in dl.items():
                self.notes.append(f"{kpath}: ignored (only for SCHED_DEADLINE)")
        elif policy == "deadline":
            if "priority" in props and props["priority"][0] not in (0, None):
                self.notes.append(f"{props['priority'][1]}: ignored (SCHED_DEADLINE has no priority)")
            if "dl-period" in dl:
                value, dpath = dl["dl-period"]
                dl_period = self.usec(value, dpath)
                if dl_period is not None and period_us is not None and dl_period != period_us:
                    self.error(
                        dpath,
                        f"dl-period {dl_period}us differs from the timer period {period_us}us: an rtsched "
                        "task's SCHED_DEADLINE period is its period",
                    )
            if "dl-deadline" in dl:
                value, dpath = dl["dl-deadline"]
                dl_deadline = self.usec(value, dpath)
                if dl_deadline is not None:
                    task["deadline"] = format_duration(dl_deadline * 1000)
            if "dl-runtime" in dl:
                value, dpath = dl["dl-runtime"]
                runtime = self.usec(value, dpath)
                if runtime is not None:
                    task["budget"] = format_duration(runtime * 1000)
        else:
            for key in ("priority", *dl):
                if key in props:
                    self.notes.append(f"{props[key][1]}: ignored (SCHED_OTHER task)")

        if "cpus" in props:
            value, cpath = props["cpus"]
            if (not isinstance(value, list) or not value
                    or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in value)):
                self.error(cpath, f"expected a list of CPU numbers, got {describe(value)}")
            else:
                task["_cpus"] = (sorted(set(value)), cpath)
        if loop_jobs is not None:
            task["max_jobs"] = loop_jobs
        task["body"] = body
        task["_policy"] = policy
        if len(self.errors) > n_errors:
            return None
        return task

    def loop(self, value: Any, path: str) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int) or value == 0 or value < -1:
            self.error(path, f"expected a loop count (> 0, or -1 for ever), got {describe(value)}")
            return None
        return None if value == -1 else value

    def task_name(self, tname: str, path: str) -> str:
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", tname)
        if not re.match(r"[A-Za-z_]", name):
            name = "_" + name
        name = name[:MAX_NAME]
        if name != tname:
            self.notes.append(f'{path}: renamed "{name}" (rtsched names: letters, digits, _ . -, at most {MAX_NAME})')
        return name

    def timer(self, value: Any, path: str, tname: str) -> int | None:
        if not isinstance(value, dict):
            self.error(path, f'expected {{"ref": ..., "period": ...}}, got {describe(value)}')
            return None
        for key in value:
            if key not in ("ref", "period", "mode"):
                self.error(f"{path}.{key}", f'unsupported timer key "{key}"')
        if "period" not in value:
            self.error(path, 'the timer has no "period"')
            return None
        ref = value.get("ref", "unknown")
        if isinstance(ref, str) and not ref.startswith("unique"):
            owner = self.timers.setdefault(ref, tname)
            if owner != tname:
                self.error(
                    f"{path}.ref",
                    f'timer "{ref}" is shared with task "{owner}": rtsched gives each task its own '
                    'period; give each task its own timer ref (or one starting with "unique")',
                )
        mode = value.get("mode", "relative")
        if mode not in ("relative", "absolute"):
            self.error(f"{path}.mode", f'expected "relative" or "absolute", got {describe(mode)}')
        return self.usec(value["period"], f"{path}.period")

    def event(self, kind: str, path: str, value: Any) -> dict[str, Any] | None:
        if kind in ("run", "runtime", "sleep"):
            us = self.usec(value, path)
            if us is None:
                return None
            return {"sleep" if kind == "sleep" else "compute": format_duration(us * 1000)}
        if kind in ("lock", "unlock"):
            name = self.string(value, path)
            if name is None:
                return None
            self.resources.setdefault(name, None)
            return {kind: name}
        if kind in ("signal", "broad"):
            name = self.string(value, path)
            if name is None:
                return None
            self.conds.setdefault(name, None)
            return {"signal" if kind == "signal" else "broadcast": name}
        if kind == "wait":
            if not isinstance(value, dict) or set(value) - {"ref", "mutex"} or "ref" not in value or "mutex" not in value:
                self.error(path, f'expected {{"ref": condition, "mutex": mutex}}, got {describe(value)}')
                return None
            cond = self.string(value["ref"], f"{path}.ref")
            mutex = self.string(value["mutex"], f"{path}.mutex")
            if cond is None or mutex is None:
                return None
            self.conds.setdefault(cond, None)
            self.resources.setdefault(mutex, None)
            known = self.cond_mutex.setdefault(cond, (mutex, path))
            if known[0] != mutex:
                self.error(
                    f"{path}.mutex",
                    f'condition "{cond}" is used with mutex "{known[0]}" at {known[1]}: an rtsched '
                    "condvar belongs to one mutex",
                )
                return None
            return {"wait": cond}
        raise AssertionError(kind)  # pragma: no cover

    def wrap_signals(self, task: str, body: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """rt-app signals without the mutex; rtsched signals with it: wrap such signals."""
        held: list[str] = []
        result = []
        for action in body:
            ((op, arg),) = action.items()
            if op == "lock":
                held.append(arg)
            elif op == "unlock" and arg in held:
                held.remove(arg)
            elif op in ("signal", "broadcast"):
                mutex = self.cond_mutex[arg][0]
                if mutex not in held:
                    self.notes.append(
                        f'tasks.{task}: {op} on "{arg}" done with its mutex "{mutex}" held '
                        "(lock, signal, unlock), as rtsched requires"
                    )
                    result += [{"lock": mutex}, action, {"unlock": mutex}]
                    continue
            result.append(action)
        return result

    def assemble(self, name: str, duration: int | None, pi: bool, tasks: list[dict[str, Any]]) -> dict[str, Any] | None:
        rt = [t for t in tasks if t["_policy"] != "other"]
        if not rt:
            self.error("tasks", "no real-time task (all are SCHED_OTHER): rtsched needs SCHED_FIFO or SCHED_DEADLINE tasks")
            return None
        policies = {t["_policy"] for t in rt}
        if len(policies) > 1:
            fifo = [t["name"] for t in rt if t["_policy"] == "fifo"]
            dl = [t["name"] for t in rt if t["_policy"] == "deadline"]
            self.error("tasks", f"SCHED_FIFO tasks ({', '.join(fifo)}) and SCHED_DEADLINE tasks "
                       f"({', '.join(dl)}) together: rtsched runs one scheduler per task set")
            return None
        family = "FP" if policies == {"fifo"} else "EDF"
        affinities = [t.get("_cpus") for t in rt]
        platform: dict[str, Any]
        if all(a is not None and len(a[0]) == 1 for a in affinities):
            platform = {"scheduler": f"P-{family}"}
            partitioned = True
        elif all(a is None for a in affinities):
            platform = {"scheduler": f"G-{family}"}
            partitioned = False
        elif len({tuple(a[0]) for a in affinities if a is not None}) == 1 and None not in affinities:
            platform = {"scheduler": f"G-{family}", "cpus": next(a[0] for a in affinities if a is not None)}
            partitioned = False
        else:
            paths = ", ".join(a[1] for a in affinities if a is not None)
            self.error(
                "tasks",
                f"the tasks' cpus ({paths}) fit neither partitioned scheduling (every task on one "
                "CPU) nor global scheduling (all tasks on the same CPUs)",
            )
            return None
        out_tasks = []
        for t in tasks:
            cpus = t.pop("_cpus", None)
            policy = t.pop("_policy")
            if partitioned and cpus is not None and len(cpus[0]) == 1:
                t["partition"] = f"cpu{cpus[0][0]}"
            elif cpus is not None and policy == "other" and platform.get("cpus") != cpus[0]:
                self.notes.append(f"{cpus[1]}: ignored (a SCHED_OTHER task runs on the platform's CPUs)")
            if t.get("period") is None:
                continue
            ordered = {k: t[k] for k in ("name", "policy", "period", "deadline", "offset", "priority",
                                         "partition", "budget", "max_jobs", "body") if k in t}
            out_tasks.append(ordered)
        doc: dict[str, Any] = {"name": name}
        if duration is not None:
            doc["duration"] = format_duration(duration)
        doc["platform"] = platform
        protocol = "pip" if pi else "none"
        if self.resources:
            doc["resources"] = [{"name": r, "protocol": protocol} for r in self.resources]
        if self.cond_mutex:
            doc["condvars"] = [{"name": c, "mutex": m} for c, (m, _) in self.cond_mutex.items()]
        doc["tasks"] = out_tasks
        return doc


def _set_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "rtapp"
    if not NAME_PATTERN.match(cleaned):
        cleaned = "rtapp-" + cleaned
    return cleaned[:63]


def rtapp_to_dict(data: Any, *, name: str = "rtapp", source: str | None = None) -> tuple[dict[str, Any], list[str]]:
    """The rtsched document for parsed rt-app JSON, and notes on what was adapted or ignored.

    Raises TaskSetError listing every unsupported key or event with its path.
    The document is also validated as an rtsched task set.
    """
    importer = _Importer()
    doc = importer.document(data, _set_name(name))
    if importer.errors or doc is None:
        raise TaskSetError(importer.errors or ["nothing to import"], source)
    try:
        taskset_from_dict(doc)
    except TaskSetError as e:
        raise TaskSetError([f"the imported set is invalid: {err}" for err in e.errors], source) from None
    return doc, importer.notes


def loads_rtapp(text: str, *, name: str = "rtapp", source: str = "<string>") -> tuple[dict[str, Any], list[str]]:
    """rtapp_to_dict for JSON text; JSON syntax errors give line and column."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_pairs)
    except json.JSONDecodeError as e:
        raise TaskSetError([f"line {e.lineno}, column {e.colno}: invalid JSON: {e.msg}"], source) from None
    return rtapp_to_dict(data, name=name, source=source)


def import_rtapp(path: str | Path) -> tuple[TaskSet, dict[str, Any], list[str]]:
    """Import an rt-app JSON file: (model, rtsched document, notes). Raises TaskSetError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise TaskSetError([f"cannot read: {e.strerror or e}"], str(path)) from None
    doc, notes = loads_rtapp(text, name=path.stem, source=str(path))
    return taskset_from_dict(doc, source=str(path)), doc, notes

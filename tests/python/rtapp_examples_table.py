"""docs/from-rtapp.md's table of rt-app's own files (doc/examples of an rt-app checkout), made from the files.

For each file: what ``rtsched validate`` says now (the task count and scheduler, or the first error's
key and reason, with the number of errors), the same with ``--default-policy SCHED_FIFO``
(``rtsched import-rtapp``) for files whose threads are all SCHED_OTHER, the deadline of each loop paced
by other threads (an event task, or a self-paced task whose job waits; model/rtapp/deadlines.py), and
what rt-app itself does with it, from rt-app's source (``RT_APP_REFUSES``; rt-app is not run here). The table sits between two markers
in the doc; tests/python/test_rtapp_examples_table.py checks it, and

    RTSCHED_RTAPP_DIR=<rt-app checkout> PYTHONPATH=python python3 tests/python/rtapp_examples_table.py --write

writes it (scripts/fetch-rtapp makes a checkout).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

from rtsched.model import TaskSetError, load_taskset
from rtsched.model.rtapp import is_rtapp_text, loads_rtapp

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "from-rtapp.md"
BEGIN = "<!-- rt-app doc/examples table: made by tests/python/rtapp_examples_table.py --write -->"
END = "<!-- end of the rt-app doc/examples table -->"

#: What rt-app master does with the files it refuses (rt-app/src/rt-app_parse_config.c); it runs the others.
RT_APP_REFUSES = {
    "merge/global.json": 'refuses: no "tasks" (get_opts_from_json_object: "Error while parsing config")',
    "merge/resources.json": 'refuses: no "tasks" (get_opts_from_json_object: "Error while parsing config")',
    "video-long.json": "refuses: invalid JSON (json-c), as rtsched",
    "video-short.json": "refuses: invalid JSON (json-c), as rtsched",
    **{f"merge/thread{i}.json": 'refuses: "lock_order" is a lock event whose value is no name '
                                '(parse_task_event_data: "Unknown or mismatch lock_order event type")'
       for i in range(4)},
}
#: Files rt-app runs only on some machines: what it needs, and does elsewhere (rt-app_parse_config.c,
#: parse_cpuset_data: a CPU above sysconf(_SC_NPROCESSORS_CONF) - 1 exits with EXIT_INV_CONFIG).
RT_APP_NEEDS = {
    "tutorial/example8.json": 'runs on 3 CPUs or more (`cpus` [2]); on fewer refuses: "Invalid cpu 2 in cpuset", '
                              "as `rtsched run` refuses CPU 2",
}
_NOT_REAL_TIME = "no real-time thread"


def example_files(checkout: Path) -> list[Path]:
    return sorted((checkout / "doc" / "examples").rglob("*.json"))


def _reason(errors: list[str]) -> str:
    first = re.sub(r"^\d+:\d+: ", "", errors[0])
    if first.startswith("invalid JSON: "):
        return first
    path, sep, message = first.partition(": ")
    if not sep:
        return first
    gist = message.split(": ")[0]
    return f"`{path}`: {gist}"


def validate_outcome(path: Path) -> str:
    """What ``rtsched validate PATH`` says, in short."""
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # the importer's warnings
            taskset = load_taskset(path)
    except TaskSetError as e:
        count = f" ({len(e.errors)} errors)" if len(e.errors) > 1 else ""
        return f"refused{count}: {_reason(e.errors)}"
    return f"valid: {len(taskset.tasks)} task{'s' if len(taskset.tasks) != 1 else ''}, {taskset.scheduler}"


def fifo_outcome(path: Path, validated: str) -> str:
    """``import-rtapp --default-policy SCHED_FIFO``, for a file refused for having no real-time thread."""
    if _NOT_REAL_TIME not in validated:
        return ""
    text = path.read_text()
    if not is_rtapp_text(text):
        return ""
    try:
        data, _ = loads_rtapp(text, name=path.stem, source=str(path), default_policy="SCHED_FIFO")
    except TaskSetError as e:
        count = f" ({len(e.errors)} errors)" if len(e.errors) > 1 else ""
        return f"refused{count}: {_reason(e.errors)}"
    return f"valid: {len(data['tasks'])} task{'s' if len(data['tasks']) != 1 else ''}"


def paced_deadlines(path: Path, validated: str) -> str:
    """Each event task's, and each waiting self-paced task's, deadline: from its wake-ups or its partners'
    loops, or (when the file does not give them) its own runs and sleeps, marked so."""
    if not validated.startswith("valid"):
        return ""
    with contextlib.redirect_stderr(io.StringIO()):
        data, _ = loads_rtapp(path.read_text(), name=path.stem, source=str(path))
    cells = []
    for task in data["tasks"]:
        waits = task.get("kind") == "self-paced" and any("wait" in a for a in task["body"])
        if task.get("kind") == "event" or waits:
            cells.append(f"`{task['name']}` {task['deadline']}" if "deadline" in task
                         else f"`{task['name']}` {task['period']} (its runs and sleeps)")
    return ", ".join(cells)


def rows(checkout: Path) -> list[tuple[str, str, str, str, str]]:
    base = checkout / "doc" / "examples"
    out = []
    for path in example_files(checkout):
        name = path.relative_to(base).as_posix()
        validated = validate_outcome(path)
        out.append((name, validated, fifo_outcome(path, validated), paced_deadlines(path, validated),
                    RT_APP_REFUSES.get(name, RT_APP_NEEDS.get(name, "runs"))))
    return out


def _count(items: list[str]) -> str:
    return ", ".join(f"{n} {what}" for what, n in sorted({i: items.count(i) for i in items}.items(),
                                                         key=lambda kv: (-kv[1], kv[0])))


def table(checkout: Path) -> str:
    made = rows(checkout)
    runs = [r for r in made if r[1].startswith("valid")]
    rt_app_runs = [r for r in made if r[4].startswith("runs")]
    both = [r for r in runs if r[4].startswith("runs")]
    reasons = [re.sub(r"^refused( \(\d+ errors\))?: (`[^`]*`: )?", "", r[1]) for r in made if r not in runs]
    lines = [
        BEGIN,
        f"Of the {len(made)} files, `rtsched validate` takes {len(runs)} and refuses {len(made) - len(runs)}; "
        f"rt-app runs {len(rt_app_runs)}, of which rtsched takes {len(both)}. rtsched's reasons (the first "
        f"error of each file refused): {_count(reasons)}.",
        "",
        "| file | `rtsched validate` | with `--default-policy SCHED_FIFO` | deadlines of the loops paced by "
        "others | rt-app master (from its source) |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| `{name}` | {validated} | {fifo} | {paced} | {rt_app} |"
              for name, validated, fifo, paced, rt_app in made]
    lines.append(END)
    return "\n".join(lines)


def doc_table(text: str) -> str | None:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return None
    return text[start:end + len(END)]


def main(argv: list[str]) -> int:
    import os

    checkout = os.environ.get("RTSCHED_RTAPP_DIR")
    if not checkout:
        print("set RTSCHED_RTAPP_DIR to an rt-app checkout (scripts/fetch-rtapp)", file=sys.stderr)
        return 2
    made = table(Path(checkout))
    if "--write" not in argv:
        print(made)
        return 0
    text = DOC.read_text()
    old = doc_table(text)
    if old is None:
        print(f"{DOC}: the markers {BEGIN!r} ... {END!r} are missing", file=sys.stderr)
        return 1
    DOC.write_text(text.replace(old, made))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

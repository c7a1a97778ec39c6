"""``rtsched import-rtapp FILE``: convert an rt-app workload file into an rtsched task set."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from rtsched.cli.exit_codes import Exit
from rtsched.model import TaskSetError
from rtsched.model.rtapp import RtAppImportError, loads_rtapp, located
from rtsched.model.rtapp.threads import POLICIES
from rtsched.outputs import write_text


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "import-rtapp",
        help="convert an rt-app workload file (JSON as rt-app reads it) into an rtsched task set",
        description="Reads an rt-app file as rt-app does (comments, trailing commas, numbered and "
        "repeated event keys) and converts what maps onto rtsched tasks: periodic threads ending with "
        "a timer, their events, phases, instances, policy, priority, dl-*, cpus and the global keys "
        "(docs/from-rtapp.md). What cannot map is an error naming the key and its line:column; what is "
        "ignored without changing what rtsched measures is a warning. Prints YAML, or writes OUT (.json "
        "for JSON). `rtsched validate/analyze/run FILE.json` read rt-app files directly too.",
    )
    parser.add_argument("file", metavar="FILE", help="rt-app JSON file")
    parser.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")
    parser.add_argument("--name", help="task-set name (default: the file's name without extension)")
    parser.add_argument("--default-policy", choices=sorted(POLICIES), metavar="POLICY",
                        help="replace the file's global default_policy (e.g. SCHED_FIFO to import a file "
                        "written for SCHED_OTHER threads)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else e
        print(f"{path}: cannot read: {reason}", file=sys.stderr)
        return Exit.FAILED
    try:
        doc, warnings = loads_rtapp(text, name=args.name or path.stem, source=str(path),
                                    default_policy=args.default_policy)
    except TaskSetError as e:
        for warning in e.warnings if isinstance(e, RtAppImportError) else ():  # they may explain an error
            print(located(str(path), warning, warning=True), file=sys.stderr)
        for error in e.errors:
            print(located(str(path), error), file=sys.stderr)
        return Exit.INVALID_INPUT
    for warning in warnings:
        print(located(str(path), warning, warning=True), file=sys.stderr)
    if args.output and Path(args.output).suffix.lower() == ".json":
        out = json.dumps(doc, indent=2) + "\n"
    else:
        out = f"# imported from {path.name} by rtsched import-rtapp\n" + yaml.safe_dump(
            doc, sort_keys=False, default_flow_style=False, allow_unicode=True
        )
    if args.output:
        try:
            write_text(Path(args.output), out, encoding="utf-8")
        except OSError as e:  # OutputError: its message names the file
            print(f"rtsched import-rtapp: {e.strerror or e}", file=sys.stderr)
            return Exit.FAILED
    else:
        sys.stdout.write(out)
    return Exit.OK

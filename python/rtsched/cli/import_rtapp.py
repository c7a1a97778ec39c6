"""``rtsched import-rtapp FILE``: convert an rt-app JSON file into an rtsched task set."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from rtsched.cli.exit_codes import Exit
from rtsched.model import TaskSetError
from rtsched.model.rtapp import loads_rtapp


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "import-rtapp",
        help="convert an rt-app JSON file into an rtsched task set (YAML)",
        description="Converts the subset of rt-app JSON that maps onto rtsched tasks (run, runtime, "
        "sleep, timer, lock/unlock, wait/signal/broad, policy, priority, dl-*, cpus, loop, "
        "global.duration). Anything else is an error naming its path. Prints YAML, or writes "
        "OUT (.json for JSON). Notes on what was adapted go to standard error.",
    )
    parser.add_argument("file", metavar="FILE", help="rt-app JSON file")
    parser.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")
    parser.add_argument("--name", help="task-set name (default: the file's name without extension)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        print(f"{path}: cannot read: {e.strerror or e}", file=sys.stderr)
        return Exit.FAILED
    try:
        doc, notes = loads_rtapp(text, name=args.name or path.stem, source=str(path))
    except TaskSetError as e:
        for error in e.errors:
            print(f"{path}: {error}", file=sys.stderr)
        return Exit.FAILED
    for note in notes:
        print(f"{path}: note: {note}", file=sys.stderr)
    if args.output and Path(args.output).suffix.lower() == ".json":
        out = json.dumps(doc, indent=2) + "\n"
    else:
        out = f"# imported from {path.name} by rtsched import-rtapp\n" + yaml.safe_dump(
            doc, sort_keys=False, default_flow_style=False, allow_unicode=True
        )
    if args.output:
        try:
            Path(args.output).write_text(out, encoding="utf-8")
        except OSError as e:
            print(f"{args.output}: cannot write: {e.strerror or e}", file=sys.stderr)
            return Exit.FAILED
    else:
        sys.stdout.write(out)
    return Exit.OK

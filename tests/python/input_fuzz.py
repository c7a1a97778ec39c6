"""A seeded mutator of task-set files, and the one way the fuzz tests run a command on an input.

``corpus(seed, count)`` yields (name, text, suffix) inputs made from the files of
``examples/``: structural mutations of their data (a value replaced by one of
another type, a huge number, a long or non-ASCII string, a deep nesting; a key
removed or misspelt; a list item repeated many times), textual ones (cut,
bytes inserted, characters flipped), and the classes an outside check found
(JSON nested 5,000 deep, a period of 10^23 s, ``max_jobs`` of 10^30, a
partition on a CPU the machine lacks, a 5 MB name).

``run_cli(argv, seconds)`` runs ``rtsched ARGV`` in this process and returns its
exit code, or raises ``CliCrashed`` (an exception escaped: what a user sees as
a traceback) or ``CliHung`` (it ran over ``seconds``).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from rtsched.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.yaml"))


class CliCrashed(AssertionError):
    """A command let an exception escape (a traceback for the user)."""


class CliHung(AssertionError):
    """A command ran over its time limit."""


def _alarm(signum: int, frame: object) -> None:
    raise CliHung("over the time limit")


def run_cli(argv: list[str], seconds: int) -> tuple[int, str]:
    """(exit code, stderr) of ``rtsched ARGV`` run here; CliCrashed / CliHung as above."""
    err = io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as e:  # argparse
        code = int(e.code or 0)
    except CliHung:
        raise
    except BaseException as e:  # noqa: BLE001 - whatever escapes is the finding
        raise CliCrashed(f"rtsched {' '.join(argv)}: {type(e).__name__}: {str(e)[:300]}") from e
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return int(code), err.getvalue()


# -- values of the wrong kind or size ----------------------------------------------------------

def _weird_values(rng: random.Random) -> list[Any]:
    return [
        None, True, -1, 0, 2**63, 10**30, 1e30, float("inf"), -0.5, "", " ", "ten",
        "99999999999999999999999s", "1e400s", "-5ms", "0.5ns", "1" * 400 + "ms", "名前", "x" * 100_000,
        "\x00\x01", [], {}, [[[[[]]]]], {"a": {"b": {"c": 1}}}, [None] * 50, rng.randrange(-10**6, 10**6),
        f"cpu{rng.randrange(64, 10_000)}", "cpu99",
    ]


def _containers(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, data
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _containers(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _containers(v, (*path, i))


def _mutate_data(data: Any, rng: random.Random) -> Any:
    data = copy.deepcopy(data)
    places = [(p, c) for p, c in _containers(data) if isinstance(c, (dict, list)) and c]
    path, container = rng.choice(places)
    key = rng.choice(list(container)) if isinstance(container, dict) else rng.randrange(len(container))
    action = rng.randrange(7)
    if action <= 2:
        container[key] = rng.choice(_weird_values(rng))
    elif action == 3 and isinstance(container, dict):
        del container[key]
    elif action == 4 and isinstance(container, dict):
        container[str(key) + rng.choice(["x", "_", "s"])] = container.pop(key)
    elif action == 5 and isinstance(container, list):
        container.extend([copy.deepcopy(container[key])] * rng.choice([2, 50, 3000]))
    else:
        nested: Any = container[key]
        for _ in range(rng.choice([10, 70, 200])):
            nested = [nested]
        container[key] = nested
    return data


def _mutate_text(text: str, rng: random.Random) -> str:
    action = rng.randrange(3)
    at = rng.randrange(len(text) + 1)
    if action == 0:
        return text[:at]
    if action == 1:
        junk = "".join(chr(rng.choice([0, 7, 9, 10, 34, 39, 58, 91, 93, 123, 125, 0xFFFD, 0x1F600, 45]))
                       for _ in range(rng.randrange(1, 8)))
        return text[:at] + junk + text[at:]
    chars = list(text)
    for _ in range(rng.randrange(1, 10)):
        if chars:
            chars[rng.randrange(len(chars))] = chr(rng.randrange(32, 127))
    return "".join(chars)


def _dump(data: Any, rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.5:
        return json.dumps(data), ".json"
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=10**9), ".yaml"


def found_classes() -> list[tuple[str, str, str]]:
    """The inputs an outside check found tracebacks or stalls with (issue 29), made here."""
    base = yaml.safe_load((ROOT / "examples" / "pfp-two-cpus.yaml").read_text())
    made: list[tuple[str, str, str]] = [("deep-json", '{"a":' * 5000 + "1" + "}" * 5000, ".json"),
                                        ("deep-yaml", "a: " + "[" * 3000 + "]" * 3000 + "\n", ".yaml")]
    for name, key, value in [("huge-period", "period", "99999999999999999999999s"),
                             ("huge-max-jobs", "max_jobs", 10**30), ("float-max-jobs", "max_jobs", 1e30),
                             ("long-name", "name", "x" * 5_000_000)]:
        data = copy.deepcopy(base)
        data["tasks"][3][key] = value
        made.append((name, yaml.safe_dump(data, sort_keys=False, width=10**9), ".yaml"))
    on_cpu99 = {"name": "cpu99", "platform": {"scheduler": "P-FP"},  # partitions from the machine's CPUs
                "tasks": [{"name": "t", "period": "10ms", "priority": 10, "partition": "cpu99",
                           "body": [{"compute": "1ms"}]}]}
    made.append(("cpu99", yaml.safe_dump(on_cpu99, sort_keys=False), ".yaml"))
    return made


def corpus(seed: int, count: int) -> Iterator[tuple[str, str, str]]:
    """``count`` inputs (name, text, suffix) from the examples, the same for the same seed."""
    rng = random.Random(seed)
    sources = [(p.name, yaml.safe_load(p.read_text()), p.read_text()) for p in EXAMPLES]
    for i in range(count):
        name, data, text = rng.choice(sources)
        if rng.random() < 0.75:
            mutated, suffix = _dump(_mutate_data(data, rng), rng)
        else:
            mutated, suffix = _mutate_text(text, rng), ".yaml"
        yield f"{i}-{name}", mutated, suffix


def reordered(data: Any, rng: random.Random) -> Any:
    """The same document with every mapping's keys in another order."""
    if isinstance(data, dict):
        items = list(data.items())
        rng.shuffle(items)
        return {k: reordered(v, rng) for k, v in items}
    if isinstance(data, list):
        return [reordered(v, rng) for v in data]
    return data

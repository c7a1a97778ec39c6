"""Progress bars for jobs that report only their phases, on a terminal (nothing when piped);
each bar's refresh thread ends with its block.

- ``timed_progress``: the job's length is known in advance (``rtsched calibrate``): the bar
  fills with the time elapsed against it, the phase's words beside it, and the time left;
- ``step_progress``: the job is a known number of steps of unknown lengths (``rtsched sim``:
  simulating, the report, each file): the bar advances a step at each, with the time elapsed.

    with timed_progress(console, expected_s=7.0) as say:
        say("release latency: 2000 jobs")
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Task
    from rich.text import Text

__all__ = ["step_progress", "timed_progress"]


@contextmanager
def timed_progress(console: Console, expected_s: float) -> Iterator[Callable[[str], None]]:
    """A ``say(text)`` that names the current phase under a bar filling over ``expected_s``."""
    from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
    from rich.progress_bar import ProgressBar
    from rich.text import Text

    class ByTime(BarColumn):
        def render(self, task: Task) -> ProgressBar:
            task.completed = min(task.elapsed or 0.0, expected_s * 0.99)  # never "done" before it is
            return super().render(task)

    class Left(ProgressColumn):
        def render(self, task: Task) -> Text:
            left = max(0.0, expected_s - (task.elapsed or 0.0))
            return Text(f"about {left:.0f} s left" if left >= 1 else "finishing", style="progress.remaining")

    with Progress(TextColumn("{task.description}"), ByTime(), TimeElapsedColumn(), Left(),
                  console=console, transient=True) as progress:
        task = progress.add_task("starting", total=expected_s)
        yield lambda text: progress.update(task, description=text)


@contextmanager
def step_progress(steps: int) -> Iterator[Callable[[str], None]]:
    """A ``step(name)`` that starts the next of ``steps`` steps, named, under a bar on stderr when it
    is a terminal (else it does nothing, and rich is not even imported: a piped command is faster)."""
    if not sys.stderr.isatty():
        yield lambda _name: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task("starting", total=steps)
        begun = [0]

        def step(name: str) -> None:
            progress.update(task, description=name, completed=begun[0])
            begun[0] += 1
        yield step

"""A progress bar for a job whose length is known in advance but that reports only its phases
(``rtsched calibrate``): the bar fills with the time elapsed against the expected length, the
phase's words beside it, and the time left (ETA). Its refresh thread ends with the block.

    with timed_progress(console, expected_s=7.0) as say:
        say("release latency: 2000 jobs")
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Task
    from rich.text import Text

__all__ = ["timed_progress"]


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

"""A progress bar for a batch, on stderr, only when stderr is a terminal.

Redirected output and CI logs stay clean, and rich (which typer brings) is imported only when a bar is drawn:
importing it costs more than many small batches take.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import IO, TypeVar

from pi_tools.engine import cancel

R = TypeVar("R")


def on_a_terminal(stream: IO[str] | None) -> bool:
    return stream is not None and bool(getattr(stream, "isatty", lambda: False)())


def with_progress(results: Iterator[R], label: str, total: int, stream: IO[str] | None = None) -> Iterator[R]:
    """`results` as they are, advancing a bar of `total` steps labelled `label` on `stream` (default stderr)."""
    stream = stream if stream is not None else sys.stderr
    if total < 1 or not on_a_terminal(stream):
        return results
    return _drawn(results, label, total, stream)  # type: ignore[arg-type]


def _drawn(results: Iterator[R], label: str, total: int, stream: IO[str]) -> Iterator[R]:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   console=Console(file=stream, force_terminal=True), transient=True,
                   redirect_stdout=False, redirect_stderr=True)  # stdout is the output: never touched
    key = cancel.register(bar.stop)  # Ctrl-C: the bar's refresh thread stops with the pools
    try:
        with bar:
            task = bar.add_task(label, total=total)
            for result in results:
                bar.advance(task)
                yield result
    finally:
        cancel.forget(key)

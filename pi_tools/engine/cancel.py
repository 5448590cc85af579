"""Ctrl-C during a batch: pending work cancelled, the pool's processes ended, one line, exit 130.

Python turns Ctrl-C into KeyboardInterrupt wherever the main thread happens to be, and typer turns that into
a silent exit that runs no clean-up of ours. Instead, under `run_interruptible` (the whole command, from the
entry point on) Ctrl-C raises Interrupted (not an Exception, so
no handler of a stage mistakes it for a failed input), and every pool that is running registers how to
abandon it, so that the command's top level can end them all (cancel_all) before it exits. Workers ignore
SIGINT themselves (a terminal sends it to the whole process group): they would otherwise each print a
traceback; the main process ends them.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by the entry point before anything else: nothing it can spare
    from collections.abc import Callable
    from types import FrameType

INTERRUPTED_EXIT = 130
"""128 + SIGINT, what shells report for a command ended by Ctrl-C."""


class Interrupted(BaseException):  # noqa: N818 - it is what happened, not an error
    """The user pressed Ctrl-C while `interruptible` was active."""


_running: dict[int, Callable[[], None]] = {}


def register(abandon: Callable[[], None]) -> int:
    """Remember how to abandon a running pool (cancel what is pending, end its processes); a key to forget it."""
    key = id(abandon)
    _running[key] = abandon
    return key


def forget(key: int) -> None:
    _running.pop(key, None)


def cancel_all() -> int:
    """Abandon every pool still running; how many there were."""
    pending = list(_running.values())
    _running.clear()
    for abandon in pending:
        try:
            abandon()
        except Exception:  # noqa: BLE001, S110 - ending anyway: one pool that fails to stop must not keep the others
            pass
    return len(pending)


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second Ctrl-C, during the clean-up, ends at once
    raise Interrupted


def run_interruptible(command: Callable[[], object]) -> None:
    """Run `command` with Ctrl-C as a clean cancel: every pool and helper still running is ended, one line goes
    to stderr (never a traceback), and the process exits with 130 at once (nothing half-done is worth the
    interpreter's teardown)."""
    try:
        signal.signal(signal.SIGINT, _raise_interrupted)
    except ValueError:  # not the main thread: leave signals alone
        command()
        return
    try:
        command()
    except Interrupted:
        cancel_all()
        try:
            sys.stderr.write("pi-tools: interrupted: pending work cancelled\n")
            sys.stderr.flush()
        except OSError:
            pass
        os._exit(INTERRUPTED_EXIT)


def ignore_interrupts() -> None:
    """A pool worker's first act: SIGINT is the main process's to handle (it ends the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

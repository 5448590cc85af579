"""Ctrl-C and SIGTERM as an abort signal, the way Pi's AbortController ends a run.

An abort must never tear a write in half: the handler only flips a flag and runs registered callbacks that
close sockets or kill tool process groups. The blocked read then fails, the provider decoder settles an
``aborted`` message with what arrived so far, and the loop persists it like any other settled message.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

#: What Pi's adapters write into ``errorMessage`` when the request is aborted (the faux provider and the
#: pi-ai adapters that check the signal themselves all use this text).
ABORT_MESSAGE = "Request was aborted"


class AbortSignal:
    """A one-shot flag with listeners, like the DOM ``AbortSignal`` Pi passes down to providers and tools."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            listeners = list(self._listeners)
            self._listeners.clear()
        for listener in listeners:
            try:
                listener()
            except Exception:  # noqa: BLE001 - a failing listener must not stop the others
                pass

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Run ``listener`` on abort (at once when already aborted); returns a function that removes it."""
        with self._lock:
            if not self._event.is_set():
                self._listeners.append(listener)
                return lambda: self._remove(listener)
        listener()
        return lambda: None

    def _remove(self, listener: Callable[[], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def wait(self, timeout: float) -> bool:
        """Sleep up to ``timeout`` seconds, waking early on abort; True when aborted."""
        return self._event.wait(timeout)


class AbortInterrupt(BaseException):
    """Raised by the signal handler inside an :func:`interruptible` section to break a blocking read."""


_interruptible_depth = 0


@contextmanager
def interruptible() -> Iterator[None]:
    """Mark a blocking read that an abort may break off at once (a socket read waiting for the provider).

    Only code that merely reads belongs here: the handler raises :class:`AbortInterrupt` at whatever bytecode
    the main thread is executing, which is harmless in a read loop and would not be in a file write.
    """
    global _interruptible_depth
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _interruptible_depth += 1
    try:
        yield
    finally:
        _interruptible_depth -= 1


@contextmanager
def abort_on_signals(abort: AbortSignal) -> Iterator[None]:
    """Route SIGINT and SIGTERM to ``abort`` for the duration of a run (main thread only).

    A second Ctrl-C while the run is already winding down falls back to the default behaviour, so a stuck
    process can always be interrupted.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handle(signum: int, frame: FrameType | None) -> None:
        if abort.aborted and signum == signal.SIGINT:
            raise KeyboardInterrupt
        first = not abort.aborted
        abort.abort()
        if first and _interruptible_depth > 0:
            raise AbortInterrupt

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

"""Read a session file on a second thread while a stage is still importing its modules.

A stage spends its first tenth of a second importing; reading a 100 MB file takes about as long, most of it in
the kernel (copying pages, faulting in memory), which runs beside the importing thread. The read happens as if
it were done later: any failure is dropped here and the caller reads the file itself, reporting it as usual.
This module imports nothing heavy, so a command can start the read before anything else.
"""

from __future__ import annotations

import threading

_reads: dict[str, tuple[threading.Thread, list[bytes]]] = {}


def start_reading(path: str) -> None:
    """Begin reading `path` in the background (one file: the first a stage will open)."""
    if path in _reads:
        return
    result: list[bytes] = []

    def read() -> None:
        try:
            with open(path, "rb") as handle:
                result.append(handle.read())
        except Exception:  # noqa: BLE001 - the caller's own read reports it
            pass

    thread = threading.Thread(target=read, name="pi-tools-readahead", daemon=True)
    thread.start()
    _reads[path] = (thread, result)


def take(path: str) -> bytes | None:
    """The bytes read ahead for `path` (once), or None when there are none."""
    started = _reads.pop(path, None)
    if started is None:
        return None
    thread, result = started
    thread.join()
    return result[0] if result else None

"""The `pi-tools` entry point: starts what a command can start before its modules are imported, then runs it.

Importing typer and the stage modules is most of a command's first tenth of a second. For `payload`, the helper
process (pi_tools.worker) and the read of the first session file (pi_tools.readahead) start here instead, from
a light reading of the arguments, and run while those imports happen. The payload command uses the helper only
if typer then parses the same files from the same arguments (take_early_worker); this module imports nothing
heavy.
"""

from __future__ import annotations

import sys
from typing import Any

PAYLOAD_VALUE_OPTIONS = frozenset({"--api", "--model", "--system-prompt", "--tools", "--reasoning", "--session-id",
                                   "--leaf"})
"""The options of `payload` that take a value (tests check this against the command itself)."""

_early: dict[str, Any] = {}


def payload_arguments(args: list[str]) -> tuple[list[str], set[str]] | None:
    """The files and the options named in `payload`'s arguments, or None when they do not read plainly."""
    files: list[str] = []
    options: set[str] = set()
    position = 0
    while position < len(args):
        token = args[position]
        position += 1
        if token == "--":
            files.extend(args[position:])
            break
        if token.startswith("-") and token != "-":
            name, has_value, _ = token.partition("=")
            options.add(name)
            if name in PAYLOAD_VALUE_OPTIONS and not has_value:
                if position >= len(args):
                    return None
                position += 1
            elif name not in PAYLOAD_VALUE_OPTIONS and name not in ("--wire", "--help"):
                return None  # an option this reading does not know: leave everything to typer
            continue
        files.append(token)
    return files, options


def start_early(args: list[str]) -> None:
    """For `payload FILE...`: fork the helper (before any thread exists) and start reading the first file."""
    if not args or args[0] != "payload":
        return
    parsed = payload_arguments(args[1:])
    if parsed is None:
        return
    files, options = parsed
    if not files or "--help" in options:
        return
    worker = None
    if "--wire" not in options:
        from pi_tools.worker import PayloadWorker

        worker = PayloadWorker.start(files)
    _early["payload"] = (files, worker)
    from pi_tools.readahead import start_reading

    start_reading(files[0])


def take_early_worker(files: list[str]) -> tuple[bool, Any]:
    """(whether this process started early, the helper started for exactly these files or None).

    Once anything started early, a thread may be running, so no helper may be forked any more.
    """
    started = _early.pop("payload", None)
    if started is None:
        return False, None
    early_files, worker = started
    if worker is not None and early_files != files:
        worker.close()
        worker = None
    return True, worker


def main() -> None:
    start_early(sys.argv[1:])
    from pi_tools.cli.app import main as run

    run()

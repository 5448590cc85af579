"""What a command starts before its modules are imported: for `payload FILE`, the helper process and the read.

Importing typer and the stage modules is most of a command's first tenth of a second. For `payload` on one
file, the helper process (engine.helper) and the read of the file (sources.readahead) start here, from a light
reading of the arguments, and run while those imports happen. The payload command takes the helper only if
typer then parses the same file from the same arguments (payload_helper). This module imports nothing heavy:
the entry point imports it first, on every command.

Why fork so early: the helper must be forked before any thread exists (forking a threaded process is unsafe)
and before the session is read (so that the two processes share nothing large), and the sooner it starts, the
sooner it has indexed its half of the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

PAYLOAD_VALUE_OPTIONS = frozenset({"--api", "--model", "--system-prompt", "--tools-file", "--tools", "--cwd",
                                   "--pi-install", "--reasoning", "--session-id", "--leaf", "--at"})
"""The options of `payload` that take a value and leave the early start in place (tests check this against the
command itself, with ENGINE_OPTIONS)."""

PREFLIGHT_VALUE_OPTIONS = frozenset({"--model", "--system-prompt", "--tools-file", "--tools", "--cwd", "--pi-install",
                                     "--reasoning", "--leaf", "--format", "--fail-on", "--rules", "--learn",
                                     "--knowledge"})
"""The same for `preflight` (its check of the next request; --replay, --all-branches and --list-rules leave the
helper out: a replay builds many small payloads, never in parts)."""

ENGINE_OPTIONS = frozenset({"--engine", "--scheduler", "--jobs"})
"""Options that say how work runs: with any of them the command decides everything itself."""

VERSION_OPTIONS = frozenset({"--pi"})
"""The option naming the Pi version (pi_tools.pi): with it, or with PI_TOOLS_PI set, the command decides everything
itself too (it refuses a version it builds no requests for before anything starts)."""

_early: dict[str, Any] = {}


def launch(args: list[str], command: Callable[[], object]) -> None:
    """The entry point's one call: start what can start early for these arguments, then run the command with
    Ctrl-C as a clean cancel (engine.cancel)."""
    from pi_tools.engine.cancel import run_interruptible

    run_interruptible(lambda: _started_then(args, command))


def _started_then(args: list[str], command: Callable[[], object]) -> None:
    start_early(args)
    command()


def payload_arguments(args: list[str], value_options: frozenset[str] = PAYLOAD_VALUE_OPTIONS,
                      flags: tuple[str, ...] = ("--wire", "--last", "--help")) -> tuple[list[str], set[str]] | None:
    """The files and the options named in `payload`'s arguments (or another command's, given its options that
    take a value and its flags), or None when they do not read plainly."""
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
            if name in value_options and not has_value:
                if position >= len(args):
                    return None
                position += 1
            elif name not in value_options and name not in flags:
                return None  # an option this reading does not know (or an engine option): leave it all to typer
            continue
        files.append(token)
    return files, options


def start_early(args: list[str]) -> None:
    """For `payload FILE` and `preflight FILE` (one file: several go to the engine's pool): fork the helper
    (before any thread exists) and start reading the file."""
    if not args or args[0] not in ("payload", "preflight"):
        return
    import os

    from pi_tools.pi import ENVIRONMENT

    if os.environ.get(ENVIRONMENT):
        return
    if args[0] == "payload":
        parsed = payload_arguments(args[1:])
    else:
        parsed = payload_arguments(args[1:], PREFLIGHT_VALUE_OPTIONS, ("--help",))
    if parsed is None:
        return
    files, options = parsed
    if len(files) != 1 or "--help" in options:
        return
    worker = None
    if "--wire" not in options:
        from pi_tools.engine.helper import PayloadWorker

        worker = PayloadWorker.start(files, _option_value(args, "--api"))
    _early["payload"] = (files, worker)
    from pi_tools.sources.readahead import start_reading

    start_reading(files[0])


def _option_value(args: list[str], name: str) -> str | None:
    """The value given to option `name` (`--api X` or `--api=X`), if any: a hint, typer parses the real one."""
    for position, token in enumerate(args):
        if token == "--":
            break
        if token == name and position + 1 < len(args):
            return args[position + 1]
        if token.startswith(name + "="):
            return token[len(name) + 1:]
    return None


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


def payload_helper(files: list[str], wire: bool) -> Any:
    """The helper process that builds part of a large payload (engine.helper), when one can be used.

    Usually started by start_early before the imports; otherwise here, before anything else (no thread may
    exist when it forks, and the session read starts next). Not for --wire, whose HTTP request holds the whole
    payload at once. For an API whose payloads are not built in parts it only indexes the second half. The
    caller closes it (PayloadWorker.close) when it ends.
    """
    from pi_tools.engine.helper import PayloadWorker

    started_early, worker = take_early_worker(files)
    if not started_early and not wire:
        worker = PayloadWorker.start(files)
    return worker


def read_ahead(files: list[str] | None) -> None:
    """Start reading the first session file while the stage imports its modules (see sources.readahead); a
    folder is not read (its files go to the engine, which may fork: no thread may be left running then)."""
    import os

    if files and not os.path.isdir(files[0]):
        from pi_tools.sources.readahead import start_reading

        start_reading(files[0])

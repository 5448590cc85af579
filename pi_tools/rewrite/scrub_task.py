"""`pi-tools scrub` over many files: one task per file for the engine, writing each file's output where it runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_tools.rewrite.writer import Change
    from pi_tools.secrets.detectors import Scanner


@dataclass(frozen=True)
class ScrubOptions:
    scanner: Scanner
    out: str | None = None
    in_place: bool = False
    force: bool = False
    dry_run: bool = False
    check: bool = False


@dataclass(frozen=True)
class ScrubOutcome:
    """What `pi-tools scrub` reports for one file: the changes (never the secrets), or why it failed."""

    changes: list[Change]
    backup: str | None = None
    error: str | None = None


def scrub_one(item: tuple[str, ScrubOptions]) -> ScrubOutcome:
    """`pi-tools scrub` for one file (its own output written where the task runs: this machine's files)."""
    from pi_tools.rewrite.scrub import scrub_file
    from pi_tools.rewrite.writer import WriteError, free_backup_name
    from pi_tools.session.reader import SessionReadError, require_session_file

    name, options = item
    backup = free_backup_name(name) if options.in_place else None
    try:
        require_session_file(name)
    except SessionReadError as exc:
        return ScrubOutcome([], None, str(exc))
    try:
        result = scrub_file(name, options.out, options.scanner, in_place=options.in_place, force=options.force,
                            dry_run=options.dry_run, check=options.check)
    except WriteError as exc:
        return ScrubOutcome([], backup, str(exc))
    return ScrubOutcome([found.change(options.check) for found in result.found], backup)

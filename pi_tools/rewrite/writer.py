"""The one session writer: every command that rewrites a session (repair, scrub, slim) writes through it.

A rewrite must never cost the user data, so the writer owns the rules that make that true once, for all
commands: the input is read into a snapshot (bytes, size, mtime, hash) and never opened for writing except by
`--in-place`; output goes to a temporary file in the target's directory, is fsync'ed and renamed, so a crash
or SIGKILL at any moment leaves the old file or the complete new one; `-o OUT` refuses an existing OUT (and
OUT.rejected) without `force`; `--in-place` first keeps the original as a fresh backup (`FILE.bak`, else
`FILE.bak.1`, `FILE.bak.2`, ...: never an existing name) and refuses to rename when the file changed since it
was read (Pi appending to a live session, say). Lines a rewrite removes go to a `.rejected` file written
before the output itself, so a finished output always has its rejected lines beside it.

New or changed entries are serialised as Pi's SessionManager writes them: `JSON.stringify` of the entry (V8's
key order and escaping), with the key order of Pi's append methods for new entries and 8-hex ids that are
unique in the file. Lines a rewrite does not change are copied byte for byte (signatures and other opaque
provider fields must survive exactly).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
import uuid
from dataclasses import dataclass, field
from typing import Any

# The entry shapes live in session/entry_shapes.py (the importers write entries too); the rewrites import them
# from here.
from pi_tools.output.atomic import fsync_directory as _fsync_directory
from pi_tools.output.atomic import temp_beside as _temp_beside
from pi_tools.output.atomic import unlink_quietly as _unlink
from pi_tools.output.atomic import write_atomic as write_atomic
from pi_tools.output.atomic import write_new as _write_new
from pi_tools.session.entry_shapes import ENTRY_KEY_ORDER as ENTRY_KEY_ORDER
from pi_tools.session.entry_shapes import entry_line as entry_line
from pi_tools.session.entry_shapes import new_entry as new_entry


class WriteError(Exception):
    """The rewrite cannot be written (refusing to overwrite, input changed, unwritable target)."""


@dataclass(frozen=True)
class Change:
    """One thing a rewrite changed: the input line it concerns (0 for none), what, and the audit rule cleared."""

    line: int
    message: str
    entry_id: str | None = None
    rule: str | None = None

    def document(self, source: str) -> dict[str, Any]:
        """The `change` document `--format json` prints for this change."""
        return {"kind": "change", "source": source, "line": self.line or None, "entryId": self.entry_id,
                "rule": self.rule, "change": self.message}

    def note_document(self, source: str) -> dict[str, Any]:
        """The `note` document for something asked for but not done (the rule it concerns, and why)."""
        return {"kind": "note", "source": source, "line": self.line or None, "entryId": self.entry_id,
                "rule": self.rule, "note": self.message}


@dataclass
class Rewrite:
    """A rewritten session: its lines, the rejected input lines (number, bytes) and the changes made."""

    lines: list[bytes]
    rejected: list[tuple[int, bytes]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)

    def data(self) -> bytes:
        return b"".join(line + b"\n" for line in self.lines)

    def rejected_data(self) -> bytes:
        return rejected_bytes(self.rejected)


def rejected_bytes(rejected: list[tuple[int, bytes]]) -> bytes:
    """The `.rejected` file: `LINE<TAB>original bytes` per removed line, LINE being its 1-based input line."""
    return b"".join(str(number).encode() + b"\t" + line + b"\n" for number, line in rejected)


def fresh_id(taken: set[Any]) -> str:
    """An 8-hex id (Pi's generateId: the first 8 characters of a random UUID) not in `taken`, then taken."""
    while True:
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            taken.add(candidate)
            return candidate


# --- the input ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """The input as read: its bytes and what identifies that version of the file on disk."""

    path: str
    data: bytes
    size: int
    mtime_ns: int
    digest: str
    mode: int


def read_snapshot(path: str) -> Snapshot:
    """Read `path` once; WriteError (naming the file) when it cannot be read."""
    if os.path.isdir(path):
        raise WriteError(f"{path}: is a directory, not a session file")
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            data = handle.read()
    except FileNotFoundError:
        raise WriteError(f"{path}: no such file") from None
    except OSError as exc:
        raise WriteError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return Snapshot(path, data, info.st_size, info.st_mtime_ns, hashlib.sha256(data).hexdigest(),
                    stat.S_IMODE(info.st_mode))


def changed_since(snapshot: Snapshot) -> str | None:
    """Why the file on disk is no longer the snapshot (size, mtime or content), or None when it is the same."""
    try:
        info = os.stat(snapshot.path)
    except OSError as exc:
        return f"it can no longer be read ({exc.strerror or exc})"
    if info.st_size != snapshot.size:
        return f"its size changed from {snapshot.size} to {info.st_size} bytes"
    if info.st_mtime_ns != snapshot.mtime_ns:
        return "its modification time changed"
    try:
        with open(snapshot.path, "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
    except OSError as exc:
        return f"it can no longer be read ({exc.strerror or exc})"
    return None if digest == snapshot.digest else "its content changed"


# --- the targets ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Targets:
    """Where a rewrite goes: the output, its `.rejected` file, and for --in-place the backup of the input."""

    source: str
    out: str
    rejected: str
    backup: str | None = None
    force: bool = False


def same_file(a: str, b: str) -> bool:
    if os.path.abspath(a) == os.path.abspath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def free_backup_name(source: str) -> str:
    """`FILE.bak`, or the first of `FILE.bak.1`, `FILE.bak.2`, ... that exists neither itself nor as .rejected."""
    candidate = source + ".bak"
    number = 0
    while os.path.lexists(candidate) or os.path.lexists(candidate + ".rejected"):
        number += 1
        candidate = f"{source}.bak.{number}"
    return candidate


def plan_targets(source: str, out: str | None, *, in_place: bool = False, force: bool = False) -> Targets:
    """Check the targets before any work is done; WriteError says what is refused and why."""
    if in_place:
        if out is not None:
            raise WriteError("give either -o OUT or --in-place, not both")
        backup = free_backup_name(source)
        return Targets(source, source, backup + ".rejected", backup)
    if out is None:
        raise WriteError("no output: give -o OUT or --in-place (or --dry-run to only see the changes)")
    rejected = out + ".rejected"
    for target in (out, rejected):
        if same_file(source, target):
            raise WriteError(f"{target}: refusing to write over the input file {source} (use --in-place)")
    if os.path.isdir(out):
        raise WriteError(f"{out}: is a directory")
    if not force:
        for target in (out, rejected):
            if os.path.lexists(target):
                raise WriteError(f"{target}: already exists; pass --force to overwrite it")
    return Targets(source, out, rejected, None, force)


# --- writing --------------------------------------------------------------------------------------------


def _keep_backup(source: str, backup: str) -> None:
    """The input under `backup` (a hard link, or a copy where links are not possible); never overwrites."""
    try:
        os.link(source, backup)
    except FileExistsError:
        raise WriteError(f"{backup}: appeared while rewriting; nothing written") from None
    except OSError:
        directory = os.path.dirname(os.path.abspath(backup))
        handle, temp = tempfile.mkstemp(prefix=f".{os.path.basename(backup)}.", suffix=".tmp", dir=directory)
        os.close(handle)
        try:
            shutil.copy2(source, temp)
            os.link(temp, backup)
        finally:
            _unlink(temp)
    _fsync_directory(os.path.dirname(os.path.abspath(backup)))


def commit(snapshot: Snapshot, targets: Targets, data: bytes, rejected: bytes) -> None:
    """Write the rewrite: `.rejected` first (when lines were removed), then the output, each atomically."""
    try:
        if targets.backup is None:
            if rejected:
                write_atomic(targets.rejected, rejected, snapshot.mode)
            write_atomic(targets.out, data, snapshot.mode)
            if not rejected and targets.force and os.path.lexists(targets.rejected):
                os.unlink(targets.rejected)  # a stale one from an earlier run (only reachable with --force)
            return
        _commit_in_place(snapshot, targets, data, rejected)
    except OSError as exc:
        raise WriteError(f"{targets.out}: cannot write: {exc.strerror or exc}") from None


def _commit_in_place(snapshot: Snapshot, targets: Targets, data: bytes, rejected: bytes) -> None:
    assert targets.backup is not None
    temp = _temp_beside(targets.out, data, snapshot.mode)
    made: list[str] = []
    try:
        reason = changed_since(snapshot)
        if reason is None:
            _keep_backup(targets.source, targets.backup)
            made.append(targets.backup)
            if rejected:
                _write_new(targets.rejected, rejected, snapshot.mode)
                made.append(targets.rejected)
            reason = changed_since(snapshot)  # the last check, right before the rename
        if reason is not None:
            for path in made:
                _unlink(path)
            raise WriteError(f"{targets.source}: changed while it was being rewritten ({reason}); nothing "
                             "written, run again")
        os.replace(temp, targets.out)
    finally:
        _unlink(temp)
    _fsync_directory(os.path.dirname(os.path.abspath(targets.out)))

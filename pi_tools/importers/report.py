"""What one import did, per source file: the counts and the reasons a user needs to trust the result.

An importer never invents silently: everything filled in or left out is a note with the source line it concerns,
so the report is the honest account the issue asks for (and the tests assert it exactly).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ImportReport:
    """The account of one source file's import (all its sessions: a Claude Code sidechain is counted here too)."""

    source: str
    """The source file's path as given."""
    kind: str
    """`claude-code` or `codex`."""
    imported: Counter[str] = field(default_factory=Counter)
    """What became Pi entries as they are: `user`, `assistant`, `toolResult`, ..."""
    mapped: Counter[str] = field(default_factory=Counter)
    """What became a Pi entry of another shape: `compaction`, `model_change`, ..."""
    custom: Counter[str] = field(default_factory=Counter)
    """Kept as custom entries the model never sees: `file-history-snapshot`, ..."""
    dropped: Counter[str] = field(default_factory=Counter)
    """What was left out (each with a note saying why)."""
    notes: list[str] = field(default_factory=list)
    """Each filled-in value or drop, with why: `line 12: no model; used the session's model`."""
    written: list[str] = field(default_factory=list)
    """The Pi session files written for this source (the writer fills it in)."""
    unchanged: list[str] = field(default_factory=list)
    """Its Pi session files that were already there, byte for byte (an earlier import): not written again."""
    error: str | None = None
    """Why the file could not be imported at all (then nothing was written for it)."""

    def note(self, line: int | None, text: str) -> None:
        """Record one note; `line` is the 1-based source line it concerns (None: the file as a whole)."""
        self.notes.append(text if line is None else f"line {line}: {text}")

    def fail(self, text: str) -> None:
        """The file cannot be imported: `text` says why (naming the line where there is one)."""
        self.error = text

    def document(self) -> dict[str, Any]:
        """The JSON document `--format json` prints for this source."""
        return {
            "kind": "import",
            "source": self.source,
            "from": self.kind,
            "written": list(self.written),
            "unchanged": list(self.unchanged),
            "imported": dict(sorted(self.imported.items())),
            "mapped": dict(sorted(self.mapped.items())),
            "custom": dict(sorted(self.custom.items())),
            "dropped": dict(sorted(self.dropped.items())),
            "notes": list(self.notes),
            "error": self.error,
        }

    def text(self) -> str:
        """The plain-text account: one line per non-empty count group, then the notes indented."""
        lines = [f"{self.source} ({self.kind})"]
        if self.error is not None:
            lines.append(f"  error: {self.error}")
        for path in self.written:
            lines.append(f"  wrote {path}")
        for path in self.unchanged:
            lines.append(f"  unchanged {path} (imported before)")
        for title, counts in (("imported", self.imported), ("mapped", self.mapped),
                              ("custom", self.custom), ("dropped", self.dropped)):
            if counts:
                parts = ", ".join(f"{name} {count}" for name, count in sorted(counts.items()))
                lines.append(f"  {title}: {parts}")
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)

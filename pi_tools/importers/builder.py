"""One Pi session built entry by entry, in the shapes and key order Pi's SessionManager writes.

The source mappers (Claude Code, Codex) decide what each source record becomes; the builder owns what every
imported file must get right whatever its source: the header, the tree links (each entry's parent is the
builder's leaf, which `go_to` moves to fork a branch), ids unique in the file, and `JSON.stringify`'s bytes.

Ids are derived from the source, never drawn at random, so importing the same file twice writes the same bytes:
an entry's id is the first 8 hex digits (Pi's own id length) of a hash of the source session and the source
record (`source_id=`), the session's id a UUID-shaped hash of the source session.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from pi_tools.session.entry_shapes import entry_line, new_entry

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

SESSION_VERSION = 3
"""The session format version both reproduced Pi versions write (CURRENT_SESSION_VERSION)."""


def stable_uuid(*parts: str) -> str:
    """A UUID-shaped id (version 8: custom, RFC 9562) that depends only on `parts`."""
    digest = bytearray(hashlib.sha256("\0".join(parts).encode("utf-8")).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x80
    digest[8] = (digest[8] & 0x3F) | 0x80
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


class SessionBuilder:
    """Builds one Pi session (header + entries, as dicts in Pi's JSONL shapes) for a chosen Pi version."""

    def __init__(self, *, pi: PiVersion, cwd: str, timestamp: str, session_id: str | None = None,
                 parent_session: str | None = None) -> None:
        """`session_id` names the source session (its id, else its path): the Pi ids are derived from it.
        `timestamp` is the session's start (ISO 8601, as Pi writes it). `parent_session` is the parent's Pi
        session file (a sidechain's); the writer may set it once the parent's file name is known."""
        self.pi = pi
        self.cwd = cwd
        self.timestamp = timestamp
        self.source_session = session_id if session_id is not None else f"{cwd}\0{timestamp}"
        self.id = stable_uuid("pi-tools import session", self.source_session)
        self.parent_session = parent_session
        self.parent: SessionBuilder | None = None
        """The session this one is a sidechain of (a sub-agent's): the writer writes the parent first and sets
        `parent_session` to the parent's file."""
        self.entries: list[dict[str, Any]] = []
        self._leaf: str | None = None
        self._taken: set[str] = set()
        self._by_source: dict[str, str] = {}
        self._anonymous = 0

    # --- the tree -------------------------------------------------------------------------------------------

    @property
    def leaf(self) -> str | None:
        """The id of the last appended entry (or where `go_to` moved): the next entry's parent."""
        return self._leaf

    def go_to(self, entry_id: str | None) -> None:
        """Make `entry_id` the next entry's parent (None: the next entry is a root). Forks a branch when it is
        an older entry, as Pi's `branch()` does."""
        if entry_id is not None and entry_id not in self._taken:
            raise KeyError(f"no entry {entry_id} in this session")
        self._leaf = entry_id

    def id_of(self, source_id: str) -> str | None:
        """The Pi id of the entry appended with `source_id`, or None."""
        return self._by_source.get(source_id)

    def __len__(self) -> int:
        return len(self.entries)

    def _new_id(self, source_id: str | None) -> str:
        if source_id is None:
            self._anonymous += 1
            seed = f"#{self._anonymous}"
        else:
            seed = source_id
        attempt = 0
        while True:
            material = f"{self.source_session}\0{seed}" + (f"\0{attempt}" if attempt else "")
            candidate = hashlib.sha256(material.encode("utf-8")).hexdigest()[:8]
            if candidate not in self._taken:
                self._taken.add(candidate)
                if source_id is not None and source_id not in self._by_source:
                    self._by_source[source_id] = candidate
                return candidate
            attempt += 1

    def _append(self, entry_type: str, fields: dict[str, Any], source_id: str | None,
                entry_id: str | None = None) -> str:
        entry_id = entry_id if entry_id is not None else self._new_id(source_id)
        self.entries.append(new_entry(entry_type, {"id": entry_id, "parentId": self._leaf, **fields}))
        self._leaf = entry_id
        return entry_id

    # --- the entries, one method per Pi append method -------------------------------------------------------

    def message(self, message: dict[str, Any], *, timestamp: str, source_id: str | None = None) -> str:
        """An AgentMessage (user, assistant, toolResult, ...) as Pi's appendMessage stores it."""
        return self._append("message", {"timestamp": timestamp, "message": message}, source_id)

    def model_change(self, provider: str, model_id: str, *, timestamp: str, source_id: str | None = None) -> str:
        """The model the next turns use (Pi's appendModelChange)."""
        return self._append("model_change", {"timestamp": timestamp, "provider": provider, "modelId": model_id},
                            source_id)

    def thinking_level_change(self, level: str, *, timestamp: str, source_id: str | None = None) -> str:
        """The thinking level the next turns use (Pi's appendThinkingLevelChange)."""
        return self._append("thinking_level_change", {"timestamp": timestamp, "thinkingLevel": level}, source_id)

    def compaction(self, summary: str, *, first_kept_entry_id: str | None, tokens_before: int, timestamp: str,
                   source_id: str | None = None, details: Any = None) -> str:
        """A compaction: the summary replaces everything before `first_kept_entry_id` (None: keeps nothing
        before the compaction itself, as Pi writes `firstKeptEntryId` = its own id)."""
        entry_id = self._new_id(source_id)
        fields: dict[str, Any] = {"timestamp": timestamp, "summary": summary,
                                  "firstKeptEntryId": first_kept_entry_id or entry_id,
                                  "tokensBefore": tokens_before}
        if details is not None:
            fields["details"] = details
        return self._append("compaction", fields, source_id, entry_id)

    def custom(self, custom_type: str, data: object, *, timestamp: str, source_id: str | None = None) -> str:
        """A custom entry the model never sees (Pi's appendCustomEntry): what Pi has no place for."""
        return self._append("custom", {"customType": custom_type, "data": data, "timestamp": timestamp}, source_id)

    def session_info(self, name: str, *, timestamp: str, source_id: str | None = None) -> str:
        """The session's display name (Pi's appendSessionInfo, which folds line breaks and trims)."""
        clean = " ".join(part for part in name.replace("\r", "\n").split("\n") if part).strip()
        return self._append("session_info", {"timestamp": timestamp, "name": clean}, source_id)

    # --- the file -------------------------------------------------------------------------------------------

    def header(self) -> dict[str, Any]:
        """The session header as Pi's newSession writes it (parentSession only when there is one)."""
        fields: dict[str, Any] = {"version": SESSION_VERSION, "id": self.id, "timestamp": self.timestamp,
                                  "cwd": self.cwd}
        if self.parent_session is not None:
            fields["parentSession"] = self.parent_session
        return new_entry("session", fields)

    def lines(self) -> list[bytes]:
        """The JSONL lines Pi writes (header first), without their newlines."""
        return [entry_line(self.header()), *(entry_line(entry) for entry in self.entries)]

    def data(self) -> bytes:
        """The file's bytes: every line followed by a newline, as Pi appends them."""
        return b"".join(line + b"\n" for line in self.lines())

    def file_name(self) -> str:
        """`<timestamp>_<id>.jsonl`, the name Pi gives a new session file (`:` and `.` of the time as `-`)."""
        return f"{self.timestamp.replace(':', '-').replace('.', '-')}_{self.id}.jsonl"

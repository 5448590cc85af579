"""Pi's session writer: append-only JSON Lines that Pi loads and resumes.

Rules kept from Pi's SessionManager: a new file is created (exclusively) only when the conversation starts (the
first assistant message, or with the 1.x agent rules the first user or assistant message: `creates_file_at_prompt`),
and then holds the header plus everything accumulated so far; after that, and for files that already
existed, every entry is appended as one line. Each line is flushed and fsynced before the loop moves on, so a
process killed at any moment leaves only whole, settled entries behind.
"""

from __future__ import annotations

import os
import secrets
import uuid
from pathlib import Path
from typing import Any

from pi_tools.js.json_stringify import js_stringify
from pi_tools.loop import iso_timestamp, now_ms

SESSION_VERSION = 3


class SessionWriteError(Exception):
    """The session file cannot be created, continued or appended to (message names the file)."""


def uuidv7(timestamp_ms: int) -> str:
    """A time-ordered UUIDv7 (48-bit milliseconds, version and variant bits, random rest)."""
    raw = bytearray(secrets.token_bytes(16))
    raw[0:6] = (timestamp_ms & 0xFFFFFFFFFFFF).to_bytes(6, "big")
    raw[6] = 0x70 | (raw[6] & 0x0F)
    raw[8] = 0x80 | (raw[8] & 0x3F)
    return str(uuid.UUID(bytes=bytes(raw)))


def session_file_name(header: dict[str, Any]) -> str:
    """``<ISO timestamp with ':' and '.' as '-'>_<id>.jsonl``, the name Pi gives a new session."""
    stamp = str(header["timestamp"]).replace(":", "-").replace(".", "-")
    return f"{stamp}_{header['id']}.jsonl"


def _line(entry: dict[str, Any]) -> bytes:
    return (js_stringify(entry) + "\n").encode("utf-8", "surrogatepass")


class SessionWriter:
    """Appends entries as children of the current leaf, with Pi's ids, timestamps and persistence rule."""

    def __init__(self, path: Path, *, header: dict[str, Any], entries: list[dict[str, Any]],
                 leaf_id: str | None, known_ids: set[str], existing: bool, model: dict[str, Any] | None,
                 thinking_level: str | None, has_messages: bool, has_thinking_entry: bool,
                 creates_file_at_prompt: bool = False) -> None:
        self.path = path
        self._starting_roles = frozenset({"user", "assistant"} if creates_file_at_prompt else {"assistant"})
        self.header = header
        self.leaf_id = leaf_id
        self._ids = known_ids
        self._pending: list[dict[str, Any]] = [] if existing else [header]
        self._flushed = existing
        self._has_conversation = any(
            isinstance(entry, dict) and entry.get("type") == "message"
            and isinstance(entry.get("message"), dict) and entry["message"].get("role") in self._starting_roles
            for entry in entries
        )
        #: The session's current model ``{provider, modelId}`` and thinking level, as buildSessionContext sees them.
        self.model = model
        self.thinking_level = thinking_level
        self.has_messages = has_messages
        self.has_thinking_entry = has_thinking_entry
        #: The transcript at the leaf (buildSessionContext) for continued files; empty for new ones.
        self.context_messages: list[dict[str, Any]] = []
        self._origins: dict[int, tuple[Any, int | None]] = {}

    @property
    def session_id(self) -> str:
        return str(self.header.get("id"))

    @classmethod
    def new(cls, path: Path | None, session_dir: Path | None, cwd: str, *,
            creates_file_at_prompt: bool = False) -> SessionWriter:
        """A new session; ``path`` wins, else a Pi-style name under ``session_dir``."""
        created = now_ms()
        header = {"type": "session", "version": SESSION_VERSION, "id": uuidv7(created),
                  "timestamp": iso_timestamp(created), "cwd": cwd}
        if path is None:
            if session_dir is None:
                raise SessionWriteError("no session file: pass --session FILE or --session-dir DIR")
            path = session_dir / session_file_name(header)
        return cls(path, header=header, entries=[], leaf_id=None, known_ids=set(), existing=False, model=None,
                   thinking_level=None, has_messages=False, has_thinking_entry=False,
                   creates_file_at_prompt=creates_file_at_prompt)

    @classmethod
    def continue_file(cls, path: Path, rules: Any = None) -> SessionWriter:
        """Continue an existing session at its leaf (Pi's ``--session FILE``); the file is only appended to.
        `rules`: the Pi version's context rules (session/context.py; default 0.85's)."""
        from pi_tools.js.values import UNDEFINED
        from pi_tools.session import SessionReadError, build_session_context, load_session
        from pi_tools.session.context import ContextError

        try:
            tree = load_session(str(path))
        except SessionReadError as exc:
            raise SessionWriteError(str(exc)) from None
        if tree.migrated_from is not None:
            raise SessionWriteError(
                f"{path}: session format version {tree.migrated_from}; Pi rewrites such files when it opens them, "
                "and pi-tools never rewrites a session: open it with Pi once first")
        try:
            context = build_session_context(tree, rules=rules) if rules is not None else build_session_context(tree)
            branch = tree.path()
        except (ContextError, Exception) as exc:  # noqa: BLE001 - any failure here means we cannot continue
            raise SessionWriteError(f"{path}: cannot continue: {exc}") from None
        leaf = None if tree.leaf_id in (None, UNDEFINED) else str(tree.leaf_id)
        ids = {str(key) for key in tree.by_id}
        writer = cls(path, header=dict(tree.header or {}), entries=[e for e in tree.entries if isinstance(e, dict)],
                     leaf_id=leaf, known_ids=ids, existing=True, model=context.model,
                     thinking_level=context.thinking_level, has_messages=bool(context.messages),
                     has_thinking_entry=any(isinstance(e, dict) and e.get("type") == "thinking_level_change"
                                            for e in branch))
        writer.context_messages = list(context.messages)
        writer._entry_of_context(tree)
        writer._repair_final_newline()
        return writer

    def _repair_final_newline(self) -> None:
        # Pi terminates a torn last line before appending, so the next entry starts on its own line.
        try:
            with open(self.path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                if handle.tell() == 0:
                    return
                handle.seek(-1, os.SEEK_END)
                last = handle.read(1)
        except OSError as exc:
            raise SessionWriteError(f"{self.path}: cannot read: {exc.strerror or exc}") from None
        if last != b"\n":
            self._append_bytes(b"\n")

    def _entry_of_context(self, tree: Any) -> None:
        """Remember which entry (id, line) each context message came from, by identity (for preflight's report)."""
        from pi_tools.session.context import context_entries, entry_to_messages

        for entry in context_entries(tree.path()):
            produced = entry_to_messages(entry)
            if len(produced) == 1 and produced[0] is entry.get("message"):
                self._origins[id(produced[0])] = (entry.get("id"), tree.line_of(entry))

    def origin_of(self, message: Any) -> tuple[Any, int | None]:
        """(entry id, line) of a message of this session (None, None when it is not one of its entries')."""
        return self._origins.get(id(message), (None, None))

    def _new_id(self) -> str:
        for _ in range(100):
            candidate = uuid.uuid4().hex[:8]
            if candidate not in self._ids:
                return candidate
        return str(uuid.uuid4())

    def _append_entry(self, entry_type: str, fields: dict[str, Any]) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": entry_type, "id": self._new_id(), "parentId": self.leaf_id,
                                 "timestamp": iso_timestamp(now_ms())}
        entry.update(fields)
        self._ids.add(entry["id"])
        self.leaf_id = entry["id"]
        if entry_type == "message" and entry["message"].get("role") in self._starting_roles:
            self._has_conversation = True
        self._persist(entry)
        return entry

    def append_message(self, message: dict[str, Any]) -> dict[str, Any]:
        """A settled user/assistant/toolResult message as a ``message`` entry."""
        self.has_messages = True
        if message.get("role") == "assistant":
            self.model = {"provider": message.get("provider"), "modelId": message.get("model")}
        entry = self._append_entry("message", {"message": message})
        self._origins[id(message)] = (entry["id"], None)
        return entry

    def append_model_change(self, provider: str, model_id: str) -> dict[str, Any]:
        self.model = {"provider": provider, "modelId": model_id}
        return self._append_entry("model_change", {"provider": provider, "modelId": model_id})

    def append_thinking_level_change(self, level: str) -> dict[str, Any]:
        self.thinking_level = level
        self.has_thinking_entry = True
        return self._append_entry("thinking_level_change", {"thinkingLevel": level})

    def _persist(self, entry: dict[str, Any]) -> None:
        if self._flushed:
            self._append_bytes(_line(entry))
            return
        self._pending.append(entry)
        if not self._has_conversation:
            return
        data = b"".join(_line(item) for item in self._pending)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            raise SessionWriteError(f"{self.path}: already exists; pi-tools never overwrites a session") from None
        except OSError as exc:
            raise SessionWriteError(f"{self.path}: cannot create: {exc.strerror or exc}") from None
        try:
            _write_all(descriptor, data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        self._pending = []
        self._flushed = True

    def _append_bytes(self, data: bytes) -> None:
        try:
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            raise SessionWriteError(f"{self.path}: cannot append: {exc.strerror or exc}") from None
        try:
            _write_all(descriptor, data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]

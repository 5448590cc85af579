"""Fast, validating decode of the one line shape that makes up almost every session: a Pi-written message.

msgspec checks in C, without building the message content, that a line is a `message` entry whose fields have
the types Pi writes (the same checks the tree applies to other entries in Python). Such a line yields a small
head (type, id, parentId, role, and for assistants provider/model: all the tree, leaf and settings logic needs)
and the full entry is parsed later only if it ends up in the context. Any line that does not fit, for any
reason, takes the ordinary path, so the result never depends on which path a line took.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec
from msgspec import Raw, Struct

SPAN = object()
"""Key under which a head dict keeps the (start, end) byte span of its line, for later full parsing."""

Number = int | float


class _User(Struct, tag_field="role", tag="user"):
    content: Raw
    timestamp: Number


class _Assistant(Struct, tag_field="role", tag="assistant"):
    content: Raw
    api: str
    provider: str
    model: str
    stopReason: str
    timestamp: Number


class _ToolResult(Struct, tag_field="role", tag="toolResult"):
    toolCallId: str
    toolName: str
    content: Raw
    isError: bool
    timestamp: Number


class _Bash(Struct, tag_field="role", tag="bashExecution"):
    command: str
    output: str
    timestamp: Number


class _Custom(Struct, tag_field="role", tag="custom"):
    customType: str
    content: Raw
    timestamp: Number


class _MessageEntry(Struct):
    type: Literal["message"]
    id: str
    parentId: str | None
    timestamp: datetime
    message: _User | _Assistant | _ToolResult | _Bash | _Custom


_decode = msgspec.json.Decoder(_MessageEntry).decode
_Errors = (msgspec.ValidationError, msgspec.DecodeError)
# Content must be text or blocks (user, custom) or blocks (assistant, tool result): checked on the raw bytes.
_TEXT_OR_LIST = (b'"'[0], b"["[0])
_LIST = (b"["[0],)


_ROLE_RULES: dict[type, tuple[str, tuple[int, ...] | None]] = {
    _User: ("user", _TEXT_OR_LIST),
    _Assistant: ("assistant", _LIST),
    _ToolResult: ("toolResult", _LIST),
    _Bash: ("bashExecution", None),
    _Custom: ("custom", _TEXT_OR_LIST),
}


_SHARED_HEADS: dict[str, dict[str, Any]] = {role: {"role": role} for role, _ in _ROLE_RULES.values()}


def message_head(line: bytes | memoryview, start: int, end: int) -> dict[Any, Any] | None:
    """A head dict for a well-formed Pi message line, or None when the line needs the ordinary path."""
    try:
        entry = _decode(line)
    except _Errors:
        return None
    message = entry.message
    role, allowed = _ROLE_RULES[type(message)]
    if allowed is not None:
        view = memoryview(message.content)  # type: ignore[union-attr]
        if not len(view) or view[0] not in allowed:
            return None
    if role == "assistant":
        head_message: dict[str, Any] = {"role": role, "provider": message.provider, "model": message.model}  # type: ignore[union-attr]
    else:
        head_message = _SHARED_HEADS[role]  # read-only, shared by every head of that role
    return {"type": "message", "id": entry.id, "parentId": entry.parentId, "message": head_message,
            SPAN: (start, end)}

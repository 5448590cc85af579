"""Fast, validating decode of the one line shape that makes up almost every session: a Pi-written message.

msgspec checks in C, without building the message content, that a line is a `message` entry whose fields have
the types Pi writes (the same checks the tree applies to other entries in Python). Such a line yields a small
head (type, id, parentId, role, and for assistants provider/model: all the tree, leaf and settings logic needs)
and the full entry is parsed later only if it ends up in the context. Any line that does not fit, for any
reason, takes the ordinary path, so the result never depends on which path a line took.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from msgspec import Raw, Struct

SPAN = object()
"""Key under which a head dict keeps the (start, end) byte span of its line, for later full parsing."""

Number = int | float


# Content must be text or blocks (user, custom) or blocks (assistant, tool result). Blocks stay raw: checked to
# be JSON, never built.
TextOrBlocks = str | list[Raw]
Blocks = list[Raw]


class _User(Struct, tag_field="role", tag="user", gc=False):
    content: TextOrBlocks
    timestamp: Number


class _Assistant(Struct, tag_field="role", tag="assistant", gc=False):
    content: Blocks
    api: str
    provider: str
    model: str
    stopReason: str
    timestamp: Number


class _ToolResult(Struct, tag_field="role", tag="toolResult", gc=False):
    toolCallId: str
    toolName: str
    content: Blocks
    isError: bool
    timestamp: Number


class _Bash(Struct, tag_field="role", tag="bashExecution", gc=False):
    command: str
    output: str
    timestamp: Number


class _Custom(Struct, tag_field="role", tag="custom", gc=False):
    customType: str
    content: TextOrBlocks
    timestamp: Number


class MessageEntry(Struct, tag_field="type", tag="message", gc=False):
    """A message line as Pi writes it; any other shape fails to decode (and takes the ordinary path)."""

    id: str
    parentId: str | None
    timestamp: datetime
    message: _User | _Assistant | _ToolResult | _Bash | _Custom


class _NoEntry(Struct, tag_field="type", tag="\x00", gc=False):
    """Never in a file; in a union with MessageEntry it makes msgspec require the `type` tag (a lone tagged
    struct accepts a line without one, which Pi's getSessionContextSettings does not take for a message)."""


_decode = msgspec.json.Decoder(MessageEntry | _NoEntry).decode
# A value nested deeper than msgspec recurses (V8 parses any depth) also takes the ordinary, iterative path.
DECODE_ERRORS = (msgspec.ValidationError, msgspec.DecodeError, RecursionError)

ROLE_OF_TYPE: dict[type, str] = {  # the role of each validated message struct
    role_type: str(role_type.__struct_config__.tag) for role_type in (_User, _Assistant, _ToolResult, _Bash, _Custom)
}
_SHARED_HEADS: dict[type, dict[str, Any]] = {
    role_type: {"role": role} for role_type, role in ROLE_OF_TYPE.items() if role_type is not _Assistant
}


class _MessageOnly(Struct, gc=False):
    message: Raw


_decode_message_only = msgspec.json.Decoder(_MessageOnly).decode


def message_text(line: bytes | memoryview) -> Raw:
    """The exact JSON text of a (validated) message line's `message` value."""
    return _decode_message_only(line).message


def message_head(line: bytes | memoryview, start: int, end: int) -> dict[Any, Any] | None:
    """A head dict for a well-formed Pi message line (ids, role, and an assistant's provider and model: what
    the tree and settings logic read), or None when the line needs the ordinary path."""
    try:
        entry = _decode(line)
    except DECODE_ERRORS:
        return None
    if type(entry) is not MessageEntry:
        return None
    message = entry.message
    if type(message) is _Assistant:
        head_message: dict[str, Any] = {"role": "assistant", "provider": message.provider, "model": message.model}
    else:
        head_message = _SHARED_HEADS[type(message)]  # read-only, shared by every head of that role
    return {"type": "message", "id": entry.id, "parentId": entry.parentId, "message": head_message,
            SPAN: (start, end)}

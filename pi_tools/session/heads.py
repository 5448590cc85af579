"""Fast, validating decode of the one line shape that makes up almost every session: a Pi-written message.

msgspec checks in C, without building the message content, that a line is a `message` entry whose fields have
the types Pi writes (the same checks the tree applies to other entries in Python; the struct is
line_format.HeadMessageLine). Such a line yields a small head (type, id, parentId, role, and for assistants
provider/model: all the tree, leaf and settings logic needs) and the full entry is parsed later only if it ends
up in the context. Any line that does not fit, for any reason, takes the ordinary path, so the result never depends on which path a line took.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Raw

from pi_tools.session.line_format import (
    DECODE_ERRORS,
    Bash,
    HeadAssistant,
    HeadCustom,
    HeadMessageLine,
    HeadToolResult,
    HeadUser,
    MessageOnly,
    NoEntry,
)

SPAN = object()
"""Key under which a head dict keeps the (start, end) byte span of its line, for later full parsing."""

_decode = msgspec.json.Decoder(HeadMessageLine | NoEntry).decode
_SHARED_HEADS: dict[type, dict[str, Any]] = {  # the head message of each role but the assistant's
    HeadUser: {"role": "user"}, HeadToolResult: {"role": "toolResult"}, Bash: {"role": "bashExecution"},
    HeadCustom: {"role": "custom"},
}
_decode_message_only = msgspec.json.Decoder(MessageOnly).decode


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
    if type(entry) is not HeadMessageLine:
        return None
    message = entry.message
    if type(message) is HeadAssistant:
        head_message: dict[str, Any] = {"role": "assistant", "provider": message.provider, "model": message.model}
    else:
        head_message = _SHARED_HEADS[type(message)]  # read-only, shared by every head of that role
    return {"type": "message", "id": entry.id, "parentId": entry.parentId, "message": head_message,
            SPAN: (start, end)}

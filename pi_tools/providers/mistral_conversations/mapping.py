"""How a Mistral payload maps back to messages: a chat-style list (providers.mapping.chat_item_kind); a user
message is sent when it has text or images, an assistant message when anything in it is not blank."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.providers.mapping import blank, blocks


def units(message: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        content = message.get("content")
        if isinstance(content, str):
            return 1
        return int(any(b.get("type") in ("text", "image") for b in blocks(message)))
    for block in blocks(message):
        kind = block.get("type")
        if kind == "text":
            if not blank(block.get("text")):
                return 1
        elif kind == "thinking":
            if not blank(block.get("thinking")):
                return 1
        else:
            return 1
    return 0

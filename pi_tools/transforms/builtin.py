"""The built-in transforms: keep-last, drop-role, block-images, redact.

Each is a factory taking its option value and returning an AgentMessage[] -> AgentMessage[] function. They
never mutate their input (messages they change are copied), so a context document can be transformed
several ways from the same parsed session.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pi_tools.messages.images import replace_blocked_images
from pi_tools.transforms.units import flatten, split_units

Transform = Callable[[list[Any]], list[Any]]

TURN_START_ROLES = ("user", "bashExecution", "custom")  # a tuple: a stored role may be any JSON value
REDACTED = "[REDACTED]"


def keep_last(turns: int) -> Transform:
    """Keep the last N turns; a turn starts at a user-side message (user, bash, custom message).

    Summaries that head the context (compaction or branch summaries before the first kept turn) are kept, since
    they stand in for everything dropped.
    """
    if turns < 0:
        raise ValueError("--keep-last takes a number of turns >= 0")

    def apply(messages: list[Any]) -> list[Any]:
        units = split_units(messages)
        starts = [
            index for index, unit in enumerate(units)
            if isinstance(unit[0], dict) and unit[0].get("role") in TURN_START_ROLES
        ]
        if turns == 0:
            cut = len(units)
        elif len(starts) <= turns:
            return list(messages)
        else:
            cut = starts[-turns]
        heading = [
            unit for unit in units[:cut]
            if isinstance(unit[0], dict) and unit[0].get("role") in ("compactionSummary", "branchSummary")
        ]
        return flatten(heading + units[cut:])

    return apply


def drop_role(role: str) -> Transform:
    """Drop every message of a role; a dropped assistant takes its results along and vice versa."""

    def apply(messages: list[Any]) -> list[Any]:
        kept = [
            unit for unit in split_units(messages)
            if not any(isinstance(m, dict) and m.get("role") == role for m in unit)
        ]
        return flatten(kept)

    return apply


def block_images(_: bool = True) -> Transform:
    """Pi's `images.blockImages` setting: images in user-side content become 'Image reading is disabled.'"""

    def apply(messages: list[Any]) -> list[Any]:
        out = []
        for message in messages:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list) and message.get("role") in ("user", "toolResult", "custom"):
                replaced = replace_blocked_images(content)
                if replaced is not None:
                    message = {**message, "content": replaced}
            out.append(message)
        return out

    return apply


# Text-bearing fields per role, redacted in place of copies; opaque provider fields (signatures) are kept as
# they are because altering them breaks replay and they are not human text.
_MESSAGE_TEXT_FIELDS = ("command", "output", "summary", "errorMessage")
_BLOCK_TEXT_FIELDS = ("text", "thinking")


def redact(pattern: str) -> Transform:
    """Replace every match of a regular expression in message text, tool arguments and tool output."""
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"--redact: invalid regular expression {pattern!r}: {exc}") from None

    def scrub(value: Any) -> Any:
        if isinstance(value, str):
            return regex.sub(REDACTED, value)
        if isinstance(value, list):
            return [scrub(item) for item in value]
        if isinstance(value, dict):
            return {key: scrub(item) for key, item in value.items()}
        return value

    def scrub_block(block: Any) -> Any:
        if not isinstance(block, dict):
            return block
        updated = dict(block)
        for key in _BLOCK_TEXT_FIELDS:
            if isinstance(updated.get(key), str):
                updated[key] = regex.sub(REDACTED, updated[key])
        if block.get("type") == "toolCall" and "arguments" in block:
            updated["arguments"] = scrub(block["arguments"])
        return updated

    def apply(messages: list[Any]) -> list[Any]:
        out = []
        for message in messages:
            if not isinstance(message, dict):
                out.append(message)
                continue
            updated = dict(message)
            content = message.get("content")
            if isinstance(content, str):
                updated["content"] = regex.sub(REDACTED, content)
            elif isinstance(content, list):
                updated["content"] = [scrub_block(block) for block in content]
            for key in _MESSAGE_TEXT_FIELDS:
                if isinstance(updated.get(key), str):
                    updated[key] = regex.sub(REDACTED, updated[key])
            if "details" in message:
                updated["details"] = scrub(message["details"])
            out.append(updated)
        return out

    return apply

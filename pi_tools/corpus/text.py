"""The searchable text of a message, the one definition `index` writes and `search` matches against.

Text is what a person reading the session would search for: what the user wrote, what the assistant answered
(its thinking apart), what a tool returned, the command and output of a `!` bash execution, the content of a
custom message and the summary of a branch or compaction. Images, signatures and tool-call arguments are not
text here (tool calls have their own table, with their arguments as JSON).
"""

from __future__ import annotations

from typing import Any


def blocks_text(content: Any, kind: str = "text", field: str = "text") -> str | None:
    """The `field` strings of a content array's `kind` blocks joined by newlines, a string content as is;
    None when there is no such text at all (so that an assistant turn of tool calls only has no text)."""
    if isinstance(content, str):
        return content if kind == "text" else None
    if not isinstance(content, list):
        return None
    parts = [block[field] for block in content
             if type(block) is dict and block.get("type") == kind and type(block.get(field)) is str]
    return "\n".join(parts) if parts else None


def message_text(message: dict[str, Any]) -> str | None:
    """The text of an AgentMessage (any role), or None when it carries none."""
    role = message.get("role")
    if role == "bashExecution":
        command = message.get("command")
        output = message.get("output")
        pieces = [value for value in (command, output) if type(value) is str and value]
        return "\n".join(pieces) if pieces else None
    if role in ("branchSummary", "compactionSummary"):
        summary = message.get("summary")
        return summary if type(summary) is str else None
    return blocks_text(message.get("content"))


def thinking_text(message: dict[str, Any]) -> str | None:
    """An assistant message's thinking blocks joined by newlines (None when it has none)."""
    return blocks_text(message.get("content"), "thinking", "thinking")

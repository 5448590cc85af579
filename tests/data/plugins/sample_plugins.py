"""Plugins used by the tests: a transform, a transform that strands a tool call, and a custom role."""

from __future__ import annotations

from typing import Any

from pi_tools.messages import RoleSpec


def uppercase_user_text(messages: list[Any]) -> list[Any]:
    """A well-behaved transform: user string content in upper case (copies, never mutates)."""
    out = []
    for message in messages:
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            message = {**message, "content": message["content"].upper()}
        out.append(message)
    return out


def drop_tool_results(messages: list[Any]) -> list[Any]:
    """A broken transform: it separates tool calls from their results."""
    return [m for m in messages if m.get("role") != "toolResult"]


def explode(messages: list[Any]) -> list[Any]:
    raise RuntimeError("plugin bug")


NOTE_ROLE = RoleSpec(
    role="note",
    to_llm=lambda m: {"role": "user", "content": [{"type": "text", "text": f"Note: {m.get('text')}"}],
                      "timestamp": m.get("timestamp")},
    preview=lambda m: f"[note] {m.get('text')}",
    tui_hidden=lambda m: "notes are not shown",
)

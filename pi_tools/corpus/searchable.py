"""What of an entry a search looks at, built on the definition `index` writes (pi_tools.corpus.text).

Both ways `search` reads a corpus (the files themselves, or the Parquet tables of `pi-tools index`) must give the
same hits, so an entry's searchable texts are exactly the columns the index writes for it, in this order:

1. the message text (`messages.text`): text blocks (a string content as it is), a bash execution's command and
   output, a branch or compaction summary;
2. an assistant's thinking (`messages.thinking`);
3. each tool call of an assistant, in order (`tool_calls.arguments`), searched by the string values of its
   arguments (depth-first, joined with "\\n"): keys, numbers and booleans are not text anyone wrote, and a
   value's JSON escapes would hide it from a literal search.

Under Pi 1.6 a system message is searched by its text, its prompt sections and the tools it adds and removes
(`search --index` reads them from the index's `system_sections` and `system_tools` tables, in this order).

An entry is searched when Pi makes a message of it: message entries, and compaction, branch summary and custom
message entries (through Pi's own projection, so their roles are compactionSummary, branchSummary, custom).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pi_tools.corpus.text import message_text, thinking_text
from pi_tools.session.context import entry_to_messages

_PROJECTED = frozenset(("custom_message", "branch_summary", "compaction"))


def entry_message(entry: Any) -> dict[str, Any] | None:
    """The message an entry stands for (None for entries that make none: labels, settings, extension data)."""
    if type(entry) is not dict:
        return None
    entry_type = entry.get("type")
    if entry_type == "message":
        message = entry.get("message")
        return message if type(message) is dict else None
    if type(entry_type) is str and entry_type in _PROJECTED:  # a damaged type may be any JSON value
        projected = entry_to_messages(entry)
        return projected[0] if projected and type(projected[0]) is dict else None
    return None


def message_role(message: dict[str, Any]) -> str | None:
    role = message.get("role")
    return role if type(role) is str else None


def _strings(value: Any) -> Iterator[str]:
    """The strings in a JSON value, depth-first in document order (iterative: arguments may nest deeply)."""
    stack = [value]
    while stack:
        current = stack.pop()
        if type(current) is str:
            yield current
        elif type(current) is dict:
            stack.extend(reversed(list(current.values())))
        elif type(current) is list:
            stack.extend(reversed(current))


def arguments_text(arguments: Any) -> str:
    """The searchable text of a tool call's arguments: their string values joined with "\\n"."""
    return "\n".join(_strings(arguments))


def _calls(message: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
    content = message.get("content")
    if type(content) is not list:
        return
    for block in content:
        if type(block) is dict and block.get("type") == "toolCall":
            name = block.get("name")
            yield (name if type(name) is str else None), block.get("arguments")


def system_texts(message: dict[str, Any]) -> list[str | None]:
    """Pi 1.6's system message: its text, then each prompt section's text, then the name and description of each
    tool it adds, then the names of those it removes."""
    texts: list[str | None] = [message_text(message)]
    sections = message.get("sections")
    if type(sections) is dict:
        texts.extend(text for text in sections.values() if type(text) is str)
    for key in ("toolsAdded", "toolsRemoved"):
        tools = message.get(key)
        for tool in tools if type(tools) is list else []:
            if type(tool) is dict:
                texts.extend(tool.get(field) for field in ("name", "description") if type(tool.get(field)) is str)
            elif type(tool) is str:
                texts.append(tool)
    return texts


def searchable_texts(message: dict[str, Any], tool: str | None = None, roles: frozenset[str] = frozenset()) -> list[str]:
    """The texts of a message a search looks at, in the order a hit's text is taken from (see the module
    docstring). With `tool`, only the calls of that tool and a result of that tool. `roles`: the pi-ai roles the
    Pi version knows beside the registry's (1.6: system, whose prompt sections and tools are searched too)."""
    role = message.get("role")
    texts: list[str | None] = []
    if tool is None and type(role) is str and role in roles:
        texts.extend(system_texts(message))
    elif tool is None:
        texts.append(message_text(message))
        if role == "assistant":
            texts.append(thinking_text(message))
            texts.extend(arguments_text(arguments) for _, arguments in _calls(message))
    elif role == "toolResult":
        if message.get("toolName") == tool:
            texts.append(message_text(message))
    elif role == "assistant":
        texts.extend(arguments_text(arguments) for name, arguments in _calls(message) if name == tool)
    return [text for text in texts if text]

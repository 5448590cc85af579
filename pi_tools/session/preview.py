"""One-line descriptions of entries and messages for trees, listings and previews."""

from __future__ import annotations

from typing import Any

from pi_tools.js.values import js_to_string
from pi_tools.messages.roles import RoleRegistry, default_registry


def message_text(message: Any) -> str:
    """Visible text of an LLM-role message: text blocks joined, tool calls named, images marked."""
    if not isinstance(message, dict):
        return js_to_string(message)
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                parts.append(js_to_string(block.get("text")))
            elif kind == "thinking":
                parts.append("(thinking)")
            elif kind == "toolCall":
                parts.append(f"{js_to_string(block.get('name'))}(…)")
            elif kind == "image":
                parts.append("[image]")
    if message.get("role") == "assistant" and message.get("stopReason") in ("error", "aborted"):
        parts.append(f"[{message.get('stopReason')}: {js_to_string(message.get('errorMessage'))}]")
    return " ".join(p for p in parts if p)


def message_preview(message: Any, registry: RoleRegistry | None = None) -> str:
    """`role: text` for any AgentMessage, custom roles through the role registry."""
    if not isinstance(message, dict):
        return f"(not a message: {js_to_string(message)[:40]})"
    role = message.get("role")
    if role in ("user", "assistant"):
        return f"{role}: {message_text(message)}"
    if role == "system":  # Pi 1.6's SystemMessage: its text, the sections and tools it changes
        text = message.get("content")
        parts = [text if isinstance(text, str) else message_text(message)]
        sections = message.get("sections")
        if isinstance(sections, dict) and sections:
            parts.append("[sections: " + ", ".join(sections) + "]")
        for key, sign in (("toolsAdded", "+"), ("toolsRemoved", "-")):
            tools = message.get(key)
            if isinstance(tools, list) and tools:
                names = [js_to_string(tool.get("name")) if isinstance(tool, dict) else "?" for tool in tools]
                parts.append(f"[tools {sign}{', '.join(names)}]")
        return "system: " + " ".join(part for part in parts if part)
    if role == "toolResult":
        flag = " (error)" if message.get("isError") else ""
        return f"toolResult {js_to_string(message.get('toolName'))}{flag}: {message_text(message)}"
    spec = (registry or default_registry()).get(role)
    if spec is not None:
        return spec.preview(message)
    return f"{js_to_string(role)}: (unknown role)"


def entry_preview(entry: Any, registry: RoleRegistry | None = None) -> str:
    """What an entry is, in one line."""
    if not isinstance(entry, dict):
        return f"(junk value {js_to_string(entry)[:30]})"
    kind = entry.get("type")
    if kind == "message":
        return message_preview(entry.get("message"), registry)
    if kind == "model_change":
        return f"model → {js_to_string(entry.get('provider'))}/{js_to_string(entry.get('modelId'))}"
    if kind == "thinking_level_change":
        return f"thinking level → {js_to_string(entry.get('thinkingLevel'))}"
    if kind == "compaction":
        text = f"[compaction] {js_to_string(entry.get('summary'))}"
        system = entry.get("systemMessage")  # Pi 1.6: the system message that stands for those it summarised
        return f"{text} [with {message_preview(system, registry)}]" if isinstance(system, dict) else text
    if kind == "branch_summary":
        return f"[branch summary] {js_to_string(entry.get('summary'))}"
    if kind == "custom_message":
        return f"[custom message {js_to_string(entry.get('customType'))}] " + message_text(entry)
    if kind == "custom":
        return f"[custom {js_to_string(entry.get('customType'))}]"
    if kind == "label":
        return f"[label {js_to_string(entry.get('label'))!s} → {js_to_string(entry.get('targetId'))}]"
    if kind == "session_info":
        return f"[session name: {js_to_string(entry.get('name'))}]"
    if kind == "usage":  # Pi 1.6
        return f"[usage {js_to_string(entry.get('kind'))} {js_to_string(entry.get('provider'))}/" \
               f"{js_to_string(entry.get('model'))}]"
    if kind == "context_edit":  # Pi 1.6: as its tree view words it
        action = "omit" if entry.get("replacement") is None else "replace"
        return f"[context {action}: {js_to_string(entry.get('targetId'))}]"
    return f"[{js_to_string(kind)}]"


def shorten(text: str, width: int) -> str:
    """Single line, at most `width` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(0, width - 1)] + "…"

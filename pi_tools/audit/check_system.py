"""System messages of a Pi version that stores them (ContextRules.declares_tools): their fields, and the tools they
declare and take away."""

from __future__ import annotations

from typing import Any

from pi_tools.audit.check_blocks import check_blocks
from pi_tools.audit.check_tools import tool_calls
from pi_tools.audit.findings import FindingSink
from pi_tools.js.values import UNDEFINED, js_truthy
from pi_tools.session.diagnostics import describe_value
from pi_tools.session.tree import SessionTree

_TOOL_FIELDS: dict[str, tuple[type, ...]] = {"name": (str,), "description": (str,), "parameters": (dict,)}


def _system_message(entry: Any) -> dict[str, Any] | None:
    if not isinstance(entry, dict) or entry.get("type") != "message":
        return None
    message = entry.get("message")
    return message if isinstance(message, dict) and message.get("role") == "system" else None


def check_system_fields(sink: FindingSink, message: dict[str, Any], entry_id: Any, line: int | None,
                        where: str = "system message") -> None:
    """What the reader does not check of a system message: its text blocks, sections and tool lists (the reader
    checks `content` and `timestamp` of a stored one; of a compaction's snapshot, `where`, they are checked here)."""
    if where != "system message":
        snapshot_fields: dict[str, tuple[type, ...]] = {"content": (str, list, type(None)), "timestamp": (int, float)}
        for name, allowed in snapshot_fields.items():
            value = message.get(name, UNDEFINED)
            if value is UNDEFINED or isinstance(value, bool) or not isinstance(value, allowed):
                sink.add("required-fields", entry_id, line, f"{where}: {name!r} is {describe_value(value)}")
    check_blocks(sink, where, "system", message.get("content"), entry_id, line, allowed=("text",))
    sections = message.get("sections", UNDEFINED)
    if sections is not UNDEFINED:
        if not isinstance(sections, dict):
            sink.add("required-fields", entry_id, line,
                     f"{where}: 'sections' is {describe_value(sections)}, not an object")
        else:
            for name, value in sections.items():
                if value is not None and not isinstance(value, str):
                    sink.add("required-fields", entry_id, line,
                             f"{where}: section {name!r} is {describe_value(value)}, not a string or null")
    for key, fields in (("toolsAdded", _TOOL_FIELDS), ("toolsRemoved", {"name": (str,)})):
        tools = message.get(key, UNDEFINED)
        if tools is UNDEFINED:
            continue
        if not isinstance(tools, list):
            sink.add("required-fields", entry_id, line,
                     f"{where}: {key!r} is {describe_value(tools)}, not an array")
            continue
        for index, tool in enumerate(tools):
            if not isinstance(tool, dict):
                sink.add("required-fields", entry_id, line,
                         f"{where} {key}[{index}] is {describe_value(tool)}, not a tool")
                continue
            for name, types in fields.items():
                value = tool.get(name, UNDEFINED)
                if value is UNDEFINED or isinstance(value, bool) or not isinstance(value, types):
                    sink.add("required-fields", entry_id, line,
                             f"{where} {key}[{index}]: {name!r} is {describe_value(value)}")


def check_compaction_snapshot(sink: FindingSink, entry: dict[str, Any], line: int | None) -> None:
    """A compaction's `systemMessage` (the prompt and tools at the boundary): Pi sends a truthy one as it is, before
    the summary, so it must be a system message; a falsy one is no snapshot."""
    snapshot = entry.get("systemMessage")
    if not js_truthy(snapshot):
        return
    if not isinstance(snapshot, dict) or snapshot.get("role") != "system":
        what = "a message of role " + repr(snapshot.get("role")) if isinstance(snapshot, dict) else \
            describe_value(snapshot)
        sink.add("required-fields", entry.get("id"), line,
                 f"compaction entry: 'systemMessage' is {what}, not a system message; Pi sends it as it is before "
                 "the summary")
        return
    check_system_fields(sink, snapshot, entry.get("id"), line, "compaction systemMessage")


def _names(message: dict[str, Any], key: str) -> list[str]:
    tools = message.get(key)
    if not isinstance(tools, list):
        return []
    return [tool["name"] for tool in tools if isinstance(tool, dict) and type(tool.get("name")) is str]


def check_removed_tools(sink: FindingSink, tree: SessionTree) -> None:
    """removed-tool-called: on every branch, a call to a tool whose latest system message naming it removed it.

    One walk from the roots down, carrying per tool name the system message that removed it (a later one that
    adds it back clears it); the mapping is copied only at system messages."""
    if not any(_system_message(entry) is not None for entry in tree.entries):
        return
    children = tree.children_by_entry()
    reported: set[tuple[int, str]] = set()
    visited: set[int] = set()
    stack: list[tuple[Any, dict[str, Any]]] = [(root, {}) for root in reversed(children.get(None, []))]
    while stack:
        entry, removed = stack.pop()
        if id(entry) in visited:
            continue
        visited.add(id(entry))
        system = _system_message(entry)
        if system is not None:
            removed = dict(removed)
            for name in _names(system, "toolsRemoved"):
                removed[name] = entry
            for name in _names(system, "toolsAdded"):
                removed.pop(name, None)
        elif removed and entry.get("type") == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant":
                for call_id, name in tool_calls(message):
                    remover = removed.get(name) if type(name) is str else None
                    if remover is None or (id(entry), name) in reported:
                        continue
                    reported.add((id(entry), name))
                    sink.add("removed-tool-called", entry.get("id"), tree.line_of(entry),
                             f"tool call {call_id} calls {name!r}, which system message {remover.get('id')} (line "
                             f"{tree.line_of(remover)}) removed; the request no longer declares it")
        stack.extend((kid, removed) for kid in reversed(children.get(id(entry), [])))


__all__ = ["check_compaction_snapshot", "check_removed_tools", "check_system_fields"]

"""Atomic units of a transcript: an assistant message with tool calls travels with the results answering it.

Every transform works on units rather than single messages, which is what guarantees that no transform ever
separates a tool call from its result (the invariant providers enforce: a tool_use without its tool_result is
rejected).
"""

from __future__ import annotations

from typing import Any

AgentMessage = dict[str, Any]


def tool_call_ids(message: Any) -> set[Any]:
    """Ids of the toolCall blocks of an assistant message (empty for anything else)."""
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return set()
    content = message.get("content")
    if not isinstance(content, list):
        return set()
    return {
        block.get("id") for block in content
        if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("id"), (str, int))
    }


def split_units(messages: list[Any]) -> list[list[Any]]:
    """Group messages into units: [assistant-with-calls, its results...] or a single message.

    A result joins the most recent assistant that issued its id even when other messages stand between them
    (a damaged order), so dropping or keeping the unit never strands either side.
    """
    units: list[list[Any]] = []
    owner_of: dict[Any, list[Any]] = {}
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "toolResult":
            unit = owner_of.get(message.get("toolCallId")) if _hashable(message.get("toolCallId")) else None
            if unit is not None:
                unit.append(message)
                continue
        unit = [message]
        units.append(unit)
        for call_id in tool_call_ids(message):
            owner_of[call_id] = unit
    return units


def flatten(units: list[list[Any]]) -> list[Any]:
    """Messages of the units in order; a unit's results follow its assistant as they did in the input."""
    return [message for unit in units for message in unit]


def _hashable(value: Any) -> bool:
    return not isinstance(value, (dict, list))

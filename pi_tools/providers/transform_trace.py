"""transformMessages with its output traced back to its input, for the views that pair them (render's preview,
preflight's provenance): synthetic tool results carry a stamp no stored message can have, and each llm message
is matched with the message transformMessages made of it (or None where it skipped it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

SKIPPED_STOP_REASONS = ("error", "aborted")
"""Assistant turns transformMessages leaves out of every request."""


class _Marker(int):
    """Timestamp handed to transformMessages' synthetic results so they can be told apart from stored ones."""


_SYNTHETIC_STAMP = _Marker(-1)


def transformed_messages(api: str, model: Mapping[str, Any], llm: Sequence[Any]) -> list[Any]:
    """transformMessages as the API's adapter runs it, with synthetic results carrying a recognisable stamp.

    The content items that are neither objects nor null become empty objects first, as the payload builders
    see them (providers.registry.build_payload): JavaScript reads a field of a string item as undefined where
    Python's dict access would fail."""
    from pi_tools.providers.junk_blocks import objects_for_junk_items
    from pi_tools.providers.registry import request_tool_call_id_normalizer
    from pi_tools.providers.transform_messages import transform_messages

    messages = objects_for_junk_items(llm if isinstance(llm, list) else list(llm))
    return transform_messages(messages, dict(model), request_tool_call_id_normalizer(api),
                              now_ms=cast(Callable[[], int], lambda: _SYNTHETIC_STAMP))


def is_synthetic(message: Any) -> bool:
    return isinstance(message, dict) and message.get("timestamp") is _SYNTHETIC_STAMP


def align_transformed(llm: Sequence[Any], transformed: Sequence[Any]) -> tuple[list[Any], list[tuple[int, Any]]]:
    """transformMessages output per llm message (None = skipped) and synthetic results with their position.

    Each input gives at most one output in order; errored/aborted assistants give none; synthetic results are
    recognisable by the marker timestamp. A position is the index of the llm message they precede.
    """
    per_message: list[Any] = [None] * len(llm)
    synthetic: list[tuple[int, Any]] = []
    cursor = 0
    for index, message in enumerate(llm):
        while cursor < len(transformed) and is_synthetic(transformed[cursor]):
            synthetic.append((index, transformed[cursor]))
            cursor += 1
        if isinstance(message, dict) and message.get("role") == "assistant" \
                and message.get("stopReason") in SKIPPED_STOP_REASONS:
            continue
        if cursor < len(transformed):
            per_message[index] = transformed[cursor]
            cursor += 1
    for leftover in transformed[cursor:]:
        synthetic.append((len(llm), leftover))
    return per_message, synthetic

"""transformMessages with its output traced back to its input, for the views that pair them (render's preview,
preflight's provenance): synthetic tool results carry a stamp no stored message can have, and each llm message
is matched with the message transformMessages made of it (or None where it skipped it). An API that sends the
messages as they are stored (`ApiAdapter.sends_messages_as_stored`: no transformMessages) gets them unchanged,
each paired with itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from pi_tools.providers.edition import Edition

SKIPPED_STOP_REASONS = ("error", "aborted")
"""Assistant turns transformMessages leaves out of every request."""


class _Marker(int):
    """Timestamp handed to transformMessages' synthetic results so they can be told apart from stored ones."""


class AsStored(list[Any]):
    """The messages of an API that sends them as stored: what it sends of each message is the message itself."""


_SYNTHETIC_STAMP = _Marker(-1)


def transformed_messages(api: str, model: Mapping[str, Any], llm: Sequence[Any], edition: Edition | None = None,
                         ) -> list[Any]:
    """transformMessages as the API's adapter for `edition` (default: the base edition) runs it, with synthetic
    results carrying a recognisable stamp.

    The content items that are neither objects nor null become empty objects first, as the payload builders
    see them (providers.registry.build_payload): JavaScript reads a field of a string item as undefined where
    Python's dict access would fail. An API sending the messages as stored gets them as they are (`AsStored`)."""
    from pi_tools.providers.edition import BASE
    from pi_tools.providers.junk_blocks import objects_for_junk_items
    from pi_tools.providers.registry import adapter, request_tool_call_id_normalizer
    from pi_tools.providers.transform_messages import transform_messages

    chosen = edition or BASE
    if adapter(api, chosen).sends_messages_as_stored:
        return AsStored(llm)
    messages = objects_for_junk_items(llm if isinstance(llm, list) else list(llm))
    return transform_messages(messages, dict(model), request_tool_call_id_normalizer(api, chosen),
                              now_ms=cast(Callable[[], int], lambda: _SYNTHETIC_STAMP), rules=chosen.transform)


def is_synthetic(message: Any) -> bool:
    return isinstance(message, dict) and message.get("timestamp") is _SYNTHETIC_STAMP


def _is_system(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "system"


def align_positions(llm: Sequence[Any], transformed: Sequence[Any]) -> tuple[list[int | None], list[tuple[int, int]]]:
    """Per llm message, the position in `transformed` of what transformMessages made of it (None = skipped), and
    per synthetic result (llm position it precedes, its position in `transformed`).

    Each input gives at most one output, in order, but for the system messages a version's rules hold between a
    tool call and its results (TransformRules.holds_system_messages): they come after the batch's results and
    synthetic ones, before the next user or assistant message (or at the end). Messages sent as stored
    (`AsStored`) are each their own output."""
    if isinstance(transformed, AsStored):
        return list(range(len(llm))), []
    per_message: list[int | None] = [None] * len(llm)
    synthetic: list[tuple[int, int]] = []
    held: list[int] = []
    cursor = 0
    count = len(transformed)

    def release() -> None:
        nonlocal cursor
        while held and cursor < count and _is_system(transformed[cursor]):
            per_message[held.pop(0)] = cursor
            cursor += 1

    for index, message in enumerate(llm):
        while cursor < count and is_synthetic(transformed[cursor]):
            synthetic.append((index, cursor))
            cursor += 1
        if held:
            release()
        if isinstance(message, dict) and message.get("role") == "assistant" \
                and message.get("stopReason") in SKIPPED_STOP_REASONS:
            continue
        if _is_system(message) and (cursor >= count or not _is_system(transformed[cursor])):
            held.append(index)  # held past the batch's results
            continue
        if cursor < count:
            per_message[index] = cursor
            cursor += 1
    while cursor < count:
        if is_synthetic(transformed[cursor]):
            synthetic.append((len(llm), cursor))
            cursor += 1
        elif held and _is_system(transformed[cursor]):
            release()
        else:
            synthetic.append((len(llm), cursor))
            cursor += 1
    return per_message, synthetic


def align_transformed(llm: Sequence[Any], transformed: Sequence[Any]) -> tuple[list[Any], list[tuple[int, Any]]]:
    """transformMessages output per llm message (None = skipped) and synthetic results with their position (the
    index of the llm message they precede); see align_positions."""
    positions, synthetic = align_positions(llm, transformed)
    return ([transformed[p] if p is not None else None for p in positions],
            [(index, transformed[p]) for index, p in synthetic])

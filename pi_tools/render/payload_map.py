"""Locates, in a built payload, the item(s) that came from each transformed message.

The payload builders do not report provenance, and each API shapes messages differently (Anthropic, Bedrock and
Google put a run of tool results into one user turn; the Responses API spreads one assistant turn over several
input items; adapters silently leave out messages with nothing to send and add items of their own). So the
preview walks the transformed messages and the payload items side by side: every item is classified by the
kind of message it can come from, every message knows how many items it should produce (the adapters' skip
rules, mirrored by each API folder's payload mapping: providers.contract), and a message whose expected item is not where it should be is reported as not located
rather than guessed. Adapter-made items (bridge messages, tool-image turns, effort markers) are attached to the
message they follow; anything left over is listed as unmatched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_tools.providers.contract import ApiAdapter
from pi_tools.providers.mapping import ASSISTANT, EXTRA, RESULT, SYSTEM, USER, Fragment

if TYPE_CHECKING:
    from pi_tools.providers.edition import Edition


@dataclass
class Placement:
    """Where one transformed message went: its fragments, or why there are none."""

    fragments: list[Fragment] = field(default_factory=list)
    status: str = "sent"  # sent | skipped | lost
    group_size: int = 1
    group_label: str = ""
    extras: list[Fragment] = field(default_factory=list)
    system: str = ""
    """For a system message (Pi 1.x transcripts): "prompt" (the leading one: the request's system prompt),
    "update" (items of its own in the list) or "folded" (folded into the prompt by a model that takes no later
    system messages); "" for every other message."""


@dataclass
class PayloadMap:
    placements: list[Placement]
    system: list[Fragment]
    unmatched: list[Fragment]


@dataclass
class _Slot:
    kind: str
    label: str
    value: Any
    parts: list[Fragment]


def kind_of_message(message: Mapping[str, Any]) -> str:
    """The item kind a transformed message gives (EXTRA: one the walk expects nothing of)."""
    role = message.get("role")
    kinds = {"user": USER, "assistant": ASSISTANT, "toolResult": RESULT, "system": SYSTEM}
    return kinds.get(role, EXTRA) if isinstance(role, str) else EXTRA


def _classify(adapter: ApiAdapter, items: list[Any], label: str, has_system: bool) -> list[_Slot]:
    slots: list[_Slot] = []
    previous = ""
    for index, item in enumerate(items):
        here = f"{label}[{index}]"
        kind = adapter.item_kind(item, index, has_system, previous) if isinstance(item, dict) else EXTRA
        parts: list[Fragment] = [(here, item)]
        if kind == RESULT:
            grouped = adapter.result_parts(item, here)
            if grouped is not None:
                parts = grouped
        slots.append(_Slot(kind, here, item, parts))
        previous = kind
    return slots


# --- the walk -------------------------------------------------------------------------------------------------


def _is_system(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "system"


def map_payload(api: str, payload: Mapping[str, Any], transformed: Sequence[Any], model: Mapping[str, Any],
                has_system_prompt: bool, edition: Edition | None = None) -> PayloadMap:
    """Pair every transformed message with the payload fragments built from it (the API's adapter for `edition`,
    default the base edition's, says how its items are shaped: providers.contract's payload mapping).

    The transcript's own system messages (Pi 1.x) are placed as the adapter counts them (`system_units`): the
    leading one on the request's system prompt (its fields outside the list and the system items opening the
    list), a later one on the system items it makes in place (where it stands, or further on before the next
    assistant item, where the API holds updates until then), or, where the model folds it into the prompt, on
    the prompt."""
    from pi_tools.providers.edition import BASE
    from pi_tools.providers.registry import adapter
    from pi_tools.providers.table import items_key, payload_items

    api_adapter = adapter(api, edition or BASE)
    label = items_key(api)
    items = payload_items(api, payload)
    slots = _classify(api_adapter, items if isinstance(items, list) else [], label, has_system_prompt)
    system = api_adapter.system_fragments(payload)
    counts = iter(api_adapter.system_units(transformed, model)
                  if any(_is_system(message) for message in transformed) else ())
    leading = bool(transformed) and _is_system(transformed[0])
    prompt_items = next(counts, None) if leading else None
    position = 0
    while position < len(slots) and slots[position].kind == SYSTEM \
            and (prompt_items is None or position < prompt_items):
        system.append((slots[position].label, slots[position].value))
        position += 1
    part_index = 0  # within a grouped tool-result slot
    placements: list[Placement] = []
    unmatched: list[Fragment] = []
    claimed: set[int] = set()  # system slots taken by an update held past the position of the walk
    last: Placement | None = None

    def take_extras(kinds: tuple[str, ...] = (EXTRA, SYSTEM)) -> None:
        nonlocal position
        while position < len(slots) and part_index == 0 and (position in claimed or slots[position].kind in kinds):
            if position not in claimed:
                fragment = (slots[position].label, slots[position].value)
                if last is not None:
                    last.extras.append(fragment)
                else:
                    unmatched.append(fragment)
            position += 1

    def place_system(placement: Placement, count: int) -> None:
        """A later system message's own items: the first unclaimed system slots from the position of the walk on,
        before the next assistant item."""
        nonlocal position
        if count == 0:
            placement.status = "skipped"
            return
        start = position
        while start < len(slots) and slots[start].kind != ASSISTANT \
                and (start in claimed or slots[start].kind != SYSTEM):
            start += 1
        end = start
        while end < len(slots) and end - start < count and slots[end].kind == SYSTEM and end not in claimed:
            placement.fragments.append((slots[end].label, slots[end].value))
            end += 1
        if end == start:
            placement.status = "lost"
            return
        if start == position:
            position = end
        else:
            claimed.update(range(start, end))

    for index, message in enumerate(transformed):
        placement = Placement()
        placements.append(placement)
        if not isinstance(message, dict):
            placement.status = "skipped"
            continue
        kind = kind_of_message(message)
        if kind == SYSTEM:
            if part_index:
                unmatched.extend(slots[position].parts[part_index:])
                position += 1
                part_index = 0
            take_extras((EXTRA,))
            count = prompt_items if index == 0 else next(counts, None)
            if index == 0 or count is None:
                placement.system = "prompt" if index == 0 else "folded"
                placement.fragments = list(system)
                if not system:
                    placement.status = "skipped"
            else:
                placement.system = "update"
                place_system(placement, count)
            if placement.status == "sent":
                last = placement
            continue
        if kind == RESULT:
            take_extras()
            if position < len(slots) and slots[position].kind == RESULT and part_index < len(slots[position].parts):
                slot = slots[position]
                placement.fragments.append(slot.parts[part_index])
                placement.group_size = len(slot.parts)
                placement.group_label = slot.label
                part_index += 1
                if part_index >= len(slot.parts):
                    position += 1
                    part_index = 0
            else:
                placement.status = "lost"
            last = placement
            continue
        if part_index:
            # A grouped slot holds more results than the transcript has: leave the rest to the unmatched list.
            unmatched.extend(slots[position].parts[part_index:])
            position += 1
            part_index = 0
        take_extras()
        expected = api_adapter.units(message, model) if kind != EXTRA else 0
        if expected == 0:
            placement.status = "skipped"
            continue
        taken = 0
        while taken < expected and position < len(slots) and slots[position].kind == kind:
            placement.fragments.append((slots[position].label, slots[position].value))
            position += 1
            taken += 1
        if taken == 0:
            placement.status = "lost"
        last = placement
    if part_index:
        unmatched.extend(slots[position].parts[part_index:])
        position += 1
    take_extras()
    unmatched.extend((slot.label, slot.value) for index, slot in enumerate(slots[position:], position)
                     if index not in claimed)
    return PayloadMap(placements, system, unmatched)

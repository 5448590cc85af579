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
    return {"user": USER, "assistant": ASSISTANT, "toolResult": RESULT}.get(role, EXTRA)  # type: ignore[arg-type]


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


def map_payload(api: str, payload: Mapping[str, Any], transformed: Sequence[Any], model: Mapping[str, Any],
                has_system_prompt: bool, edition: Edition | None = None) -> PayloadMap:
    """Pair every transformed message with the payload fragments built from it (the API's adapter for `edition`,
    default the base edition's, says how its items are shaped: providers.contract's payload mapping)."""
    from pi_tools.providers.edition import BASE
    from pi_tools.providers.registry import adapter
    from pi_tools.providers.table import items_key

    api_adapter = adapter(api, edition or BASE)
    label = items_key(api)
    items = payload.get(label)
    slots = _classify(api_adapter, items if isinstance(items, list) else [], label, has_system_prompt)
    system = api_adapter.system_fragments(payload)
    position = 0
    if slots and slots[0].kind == SYSTEM:
        system.append((slots[0].label, slots[0].value))
        position = 1
    part_index = 0  # within a grouped tool-result slot
    placements: list[Placement] = []
    unmatched: list[Fragment] = []
    last: Placement | None = None

    def take_extras() -> None:
        nonlocal position
        while position < len(slots) and slots[position].kind in (EXTRA, SYSTEM) and part_index == 0:
            fragment = (slots[position].label, slots[position].value)
            if last is not None:
                last.extras.append(fragment)
            else:
                unmatched.append(fragment)
            position += 1

    for message in transformed:
        placement = Placement()
        placements.append(placement)
        if not isinstance(message, dict):
            placement.status = "skipped"
            continue
        kind = kind_of_message(message)
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
    unmatched.extend((slot.label, slot.value) for slot in slots[position:])
    return PayloadMap(placements, system, unmatched)

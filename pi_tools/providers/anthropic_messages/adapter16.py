"""anthropic-messages as Pi 1.6 builds it: the 0.85 adapter's stream decoder, tool-call ids, payload mapping and
preflight rules, with 1.6's payload (``payload16``) and wire (``wire16``) builders. Large sessions are built in
parts where the transcript has no system message past its leading one (providers.split; stages.build_claimed_parts
refuses the others: where a later system message lands depends on the messages after it). Payload mapping: 0.85's,
with the system messages a model keeps in place as ``system`` items (``mapping.system_units16``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_tools.providers.anthropic_messages import mapping
from pi_tools.providers.anthropic_messages.adapter import AnthropicMessages
from pi_tools.providers.contract import Model


class AnthropicMessages16(AnthropicMessages):
    payload_module = "pi_tools.providers.anthropic_messages.payload16"
    wire_module = "pi_tools.providers.anthropic_messages.wire16"
    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.anthropic_messages.payload16 import build_history

        return build_history(model, context, options)

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        return mapping.item_kind16(item)

    def system_units(self, messages: Sequence[Any], model: Mapping[str, Any]) -> list[int | None]:
        return mapping.system_units16(messages, model)


ADAPTER = AnthropicMessages16()

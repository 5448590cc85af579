"""anthropic-messages behind the API contract (providers.contract): its payload, wire and stream modules, its
payload mapping (``mapping``) and its preflight rules (``preflight_rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from pi_tools.providers.anthropic_messages import mapping
from pi_tools.providers.contract import ApiAdapter, Model, ToolCallIdNormalizer
from pi_tools.providers.mapping import Fragment


class AnthropicMessages(ApiAdapter):
    payload_module = "pi_tools.providers.anthropic_messages.payload"
    wire_module = "pi_tools.providers.anthropic_messages.wire"
    rule_modules = ("pi_tools.providers.anthropic_messages.preflight_rules",)
    request_limit = 32 * 1024 * 1024  # 413 request_too_large

    def stream_decoder(self) -> ModuleType:
        from pi_tools.providers.anthropic_messages import stream

        return stream

    def tool_call_id_normalizer(self) -> ToolCallIdNormalizer:
        from pi_tools.providers.anthropic_messages.payload import normalize_tool_call_id

        return normalize_tool_call_id

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.anthropic_messages.payload import build_history

        return build_history(model, context, options)

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        return mapping.item_kind(item)

    def result_parts(self, item: dict[str, Any], label: str) -> list[Fragment]:
        return mapping.result_parts(item, label)

    def units(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
        return mapping.units(message)

    def system_fragments(self, payload: Mapping[str, Any]) -> list[Fragment]:
        return [("system", payload["system"])] if "system" in payload else []

    def max_tokens_field(self, payload: Mapping[str, Any]) -> tuple[str, Any] | None:
        return "max_tokens", payload.get("max_tokens")


ADAPTER = AnthropicMessages()

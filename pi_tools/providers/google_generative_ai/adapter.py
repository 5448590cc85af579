"""google-generative-ai behind the API contract (providers.contract): its payload, wire and stream modules, its
payload mapping (``mapping``) and the preflight rules of both Gemini APIs (``preflight_rules``). Vertex's adapter
(providers.google_vertex) builds on this one."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from pi_tools.providers.contract import ApiAdapter, Model, ToolCallIdNormalizer
from pi_tools.providers.google_generative_ai import mapping
from pi_tools.providers.mapping import Fragment, Note, blocks, note


class GoogleGenerativeAI(ApiAdapter):
    payload_module = "pi_tools.providers.google_generative_ai.payload"
    wire_module = "pi_tools.providers.google_generative_ai.wire"
    rule_modules: tuple[str, ...] = ("pi_tools.providers.google_generative_ai.preflight_rules",)
    request_limit: int | None = 20 * 1024 * 1024  # inline requests

    def stream_decoder(self) -> ModuleType:
        from pi_tools.providers.google_generative_ai import stream

        return stream

    def tool_call_id_normalizer(self) -> ToolCallIdNormalizer:
        from pi_tools.providers.google_generative_ai.payload import normalize_tool_call_id

        return normalize_tool_call_id

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.google_generative_ai.payload import build_history

        return build_history(model, context, options)

    def build_history_traced(self, model: Model, context: dict[str, Any], options: dict[str, Any],
                             trace: Any) -> Any:
        from pi_tools.providers.google_generative_ai.payload import build_history_traced

        return build_history_traced(model, context, options, trace)

    def starts_by_continuing(self, converted: list[Any]) -> bool:
        from pi_tools.providers.google_generative_ai.payload import starts_by_continuing

        return starts_by_continuing(converted)

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        return mapping.item_kind(item, previous)

    def result_parts(self, item: dict[str, Any], label: str) -> list[Fragment]:
        return mapping.result_parts(item, label)

    def units(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
        return mapping.units(message)

    def system_fragments(self, payload: Mapping[str, Any]) -> list[Fragment]:
        return mapping.system_fragments(payload)

    def max_tokens_field(self, payload: Mapping[str, Any]) -> tuple[str, Any] | None:
        return mapping.max_tokens_field(payload)

    def adapter_notes(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> list[Note]:
        if message.get("role") == "assistant" and any(b.get("type") == "toolCall" for b in blocks(message)):
            from pi_tools.providers.google_generative_ai.payload import requires_tool_call_id

            if not requires_tool_call_id(str(model.get("id"))):
                return [note("ids-not-sent", "call ids not sent",
                             f"{model.get('id')} matches function calls and responses by name: ids are left out")]
        return []


ADAPTER = GoogleGenerativeAI()

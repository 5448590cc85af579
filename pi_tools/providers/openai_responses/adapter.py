"""openai-responses behind the API contract (providers.contract): its payload, wire and stream modules, its
payload mapping (``mapping``) and its preflight rules (``preflight_rules``, then ``image_rules``, OpenAI's image
limits, which Chat Completions and Azure share). Azure's adapter (providers.azure_openai_responses) builds on
this one."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from pi_tools.providers.contract import ApiAdapter, Model, ToolCallIdNormalizer
from pi_tools.providers.mapping import Note, blocks, note
from pi_tools.providers.openai_responses import mapping


class OpenAIResponses(ApiAdapter):
    payload_module = "pi_tools.providers.openai_responses.payload"
    wire_module = "pi_tools.providers.openai_responses.wire"
    rule_modules: tuple[str, ...] = ("pi_tools.providers.openai_responses.preflight_rules",
                                     "pi_tools.providers.openai_responses.image_rules")

    def stream_decoder(self) -> ModuleType | None:
        from pi_tools.providers.openai_responses import stream

        return stream

    def tool_call_id_normalizer(self) -> ToolCallIdNormalizer | None:
        from pi_tools.providers.openai_responses.payload import normalize_tool_call_id

        return normalize_tool_call_id

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.openai_responses.payload import build_history

        return build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.openai_responses.payload import build_tail

        return build_tail(model, context, options)

    def encode_part(self, converted: list[Any], carry: Any) -> tuple[Any, Any]:
        from pi_tools.providers.openai_responses.payload import encode_part

        return encode_part(converted, carry)

    def join_parts(self, parts: list[Any], tail: Any) -> list[Any] | None:
        from pi_tools.providers.openai_responses.payload import join_parts

        return join_parts(parts, tail)

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        return mapping.item_kind(item, index, has_system)

    def units(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
        return mapping.units(message)

    def max_tokens_field(self, payload: Mapping[str, Any]) -> tuple[str, Any] | None:
        return ("max_output_tokens", payload["max_output_tokens"]) if "max_output_tokens" in payload else None

    def adapter_notes(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> list[Note]:
        if message.get("role") == "assistant":
            unsigned = sum(1 for b in blocks(message) if b.get("type") == "thinking" and not b.get("thinkingSignature"))
            if unsigned:
                return [note("thinking-not-sent", "thinking not sent",
                             f"{unsigned} thinking block(s) without a signature: the Responses API replays reasoning "
                             "only as the stored reasoning item")]
        return []


ADAPTER = OpenAIResponses()

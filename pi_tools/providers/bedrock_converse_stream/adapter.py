"""bedrock-converse-stream behind the API contract (providers.contract): its payload, wire and stream modules,
its payload mapping (``mapping``) and its preflight rules (``preflight_rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from pi_tools.providers.bedrock_converse_stream import mapping
from pi_tools.providers.contract import ApiAdapter, Model, ToolCallIdNormalizer
from pi_tools.providers.mapping import Fragment


class BedrockConverseStream(ApiAdapter):
    payload_module = "pi_tools.providers.bedrock_converse_stream.payload"
    wire_module = "pi_tools.providers.bedrock_converse_stream.wire"
    rule_modules = ("pi_tools.providers.bedrock_converse_stream.preflight_rules",)
    user_content_failure = "m.content is not iterable"

    def stream_decoder(self) -> ModuleType:
        from pi_tools.providers.bedrock_converse_stream import stream

        return stream

    def tool_call_id_normalizer(self) -> ToolCallIdNormalizer:
        from pi_tools.providers.bedrock_converse_stream.payload import normalize_tool_call_id

        return normalize_tool_call_id

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.bedrock_converse_stream.payload import build_history

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
        inference = payload.get("inferenceConfig")
        if isinstance(inference, dict) and "maxTokens" in inference:
            return "inferenceConfig.maxTokens", inference["maxTokens"]
        return None


ADAPTER = BedrockConverseStream()

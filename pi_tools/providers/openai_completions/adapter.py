"""openai-completions behind the API contract (providers.contract): its payload, wire and stream modules, its
payload mapping (``mapping``; the chat-style item kinds are the contract's default) and its preflight rules
(``preflight_rules``, with openai-tool-count, which Responses shares)."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from pi_tools.providers.contract import ApiAdapter, Model, ToolCallIdNormalizer
from pi_tools.providers.openai_completions import mapping


class OpenAICompletions(ApiAdapter):
    payload_module = "pi_tools.providers.openai_completions.payload"
    wire_module = "pi_tools.providers.openai_completions.wire"
    rule_modules = ("pi_tools.providers.openai_completions.preflight_rules",)

    def stream_decoder(self) -> ModuleType:
        from pi_tools.providers.openai_completions import stream

        return stream

    def tool_call_id_normalizer(self) -> ToolCallIdNormalizer:
        from pi_tools.providers.openai_completions.payload import normalize_tool_call_id

        return normalize_tool_call_id

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.openai_completions.payload import build_history

        return build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.openai_completions.payload import build_tail

        return build_tail(model, context, options)

    def join_parts(self, parts: list[Any], tail: Any) -> list[Any] | None:
        from pi_tools.providers.openai_completions.payload import join_parts

        return join_parts(parts, tail)

    def units(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
        return mapping.units(message, model)

    def max_tokens_field(self, payload: Mapping[str, Any]) -> tuple[str, Any] | None:
        return mapping.max_tokens_field(payload)


ADAPTER = OpenAICompletions()

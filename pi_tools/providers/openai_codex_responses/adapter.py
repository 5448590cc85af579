"""openai-codex-responses behind the API contract (providers.contract): OpenAI Responses' adapter (its payload
mapping, tool-call id rules, parts' carry and notes) with Codex's body, wire request and parts.

Preflight: the Responses folder's pairing rules name this API too (Codex is the Responses API: the same input
items, validated the same way, see ``openai_responses.preflight_rules``). OpenAI's image limits
(``image_rules``) do not: they are documented for OpenAI's own endpoints, not for ChatGPT's backend."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.providers.contract import Model, ToolCallIdNormalizer
from pi_tools.providers.mapping import Fragment
from pi_tools.providers.openai_responses import mapping
from pi_tools.providers.openai_responses.adapter import OpenAIResponses


class OpenAICodexResponses(OpenAIResponses):
    payload_module = "pi_tools.providers.openai_codex_responses.payload"
    wire_module = "pi_tools.providers.openai_codex_responses.wire"
    rule_modules = ()

    def stream_decoder(self) -> Any:
        return None

    def tool_call_id_normalizer(self) -> ToolCallIdNormalizer | None:
        from pi_tools.providers.openai_codex_responses.payload import normalize_tool_call_id

        return normalize_tool_call_id

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.openai_codex_responses.payload import build_history

        return build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.openai_codex_responses.payload import build_tail

        return build_tail(model, context, options)

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        return mapping.item_kind(item, index, False)  # the system prompt is `instructions`, never an item

    def system_fragments(self, payload: Mapping[str, Any]) -> list[Fragment]:
        return [("instructions", payload["instructions"])] if "instructions" in payload else []

    def max_tokens_field(self, payload: Mapping[str, Any]) -> tuple[str, Any] | None:
        return None  # Codex sends no output-token limit


ADAPTER = OpenAICodexResponses()

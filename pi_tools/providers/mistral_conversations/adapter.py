"""mistral-conversations behind the API contract (providers.contract): its payload, wire and stream modules, its
payload mapping (``mapping``; the chat-style item kinds are the contract's default) and its preflight rules
(``preflight_rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from pi_tools.providers.contract import ApiAdapter, Model, ToolCallIdNormalizer
from pi_tools.providers.mapping import Note, note
from pi_tools.providers.mistral_conversations import mapping


class MistralConversations(ApiAdapter):
    payload_module = "pi_tools.providers.mistral_conversations.payload"
    wire_module = "pi_tools.providers.mistral_conversations.wire"
    rule_modules = ("pi_tools.providers.mistral_conversations.preflight_rules",)
    user_content_failure = "msg.content.some is not a function"

    def stream_decoder(self) -> ModuleType:
        from pi_tools.providers.mistral_conversations import stream

        return stream

    def tool_call_id_normalizer(self) -> ToolCallIdNormalizer:
        from pi_tools.providers.mistral_conversations.payload import normalize_tool_call_id

        return normalize_tool_call_id

    def request_tool_call_id_normalizer(self) -> ToolCallIdNormalizer:
        """A fresh normaliser, as the adapter makes one per request: it avoids collisions with the ids it gave."""
        from pi_tools.providers.mistral_conversations.payload import make_tool_call_id_normalizer

        normalize = make_tool_call_id_normalizer()
        return lambda tool_call_id, _model, _source: normalize(tool_call_id)

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.mistral_conversations.payload import build_history

        return build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.mistral_conversations.payload import build_tail

        return build_tail(model, context, options)

    def join_parts(self, parts: list[Any], tail: Any) -> list[Any] | None:
        from pi_tools.providers.mistral_conversations.payload import join_parts

        return join_parts(parts, tail)

    def units(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
        return mapping.units(message)

    def max_tokens_field(self, payload: Mapping[str, Any]) -> tuple[str, Any] | None:
        return ("maxTokens", payload["maxTokens"]) if "maxTokens" in payload else None

    def adapter_notes(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> list[Note]:
        if message.get("role") == "toolResult" and message.get("isError"):
            return [note("error-prefixed", "[tool error] prefix",
                         "Mistral has no error flag: the result text is prefixed with '[tool error] '")]
        return []


ADAPTER = MistralConversations()

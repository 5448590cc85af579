"""openai-codex-responses as Pi 1.6 builds it (providers.edition): the 1.6 payload and wire modules (``payload16``,
``wire16``) behind the 0.85 adapter's tool-call id rules and preflight. The system prompt is now an input item, so
the payload mapping is OpenAI Responses' 1.6 one (no ``instructions`` outside the items). Conversations are built whole:
the input depends on the transcript's system messages and tool declarations, which no part knows alone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_tools.providers.contract import Model
from pi_tools.providers.mapping import Fragment
from pi_tools.providers.openai_codex_responses.adapter import OpenAICodexResponses
from pi_tools.providers.openai_responses import mapping


class OpenAICodexResponses16(OpenAICodexResponses):
    payload_module = "pi_tools.providers.openai_codex_responses.payload16"
    wire_module = "pi_tools.providers.openai_codex_responses.wire16"
    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        return None

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        return self.build_payload(model, context, options), None, 0

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        return mapping.item_kind16(item)

    def system_units(self, messages: Sequence[Any], model: Mapping[str, Any]) -> list[int | None]:
        from pi_tools.providers.openai_codex_responses.payload16 import _compat

        flags = [_compat(dict(model), name, False)
                 for name in ("supportsMidConvoSystemMessages", "supportsAdditionalTools", "supportsToolSearch")]
        return mapping.system_units16(messages, *flags)

    def system_fragments(self, payload: Mapping[str, Any]) -> list[Fragment]:
        return []

    def max_tokens_field(self, payload: Mapping[str, Any]) -> tuple[str, Any] | None:
        return ("max_output_tokens", payload["max_output_tokens"]) if "max_output_tokens" in payload else None


ADAPTER = OpenAICodexResponses16()

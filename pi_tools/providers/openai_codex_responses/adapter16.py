"""openai-codex-responses as Pi 1.6 builds it (providers.edition): the 1.6 payload and wire modules (``payload16``,
``wire16``) behind the 0.85 adapter's tool-call id rules and preflight. The system prompt is now an input item, so
the payload mapping is OpenAI Responses' 1.6 one (no ``instructions`` outside the items). Large sessions are built
in parts as openai-responses' 1.6 ones are (providers.split; the parts' carry and join are OpenAI Responses': the
ids of assistant texts renumbered), the leading system message opening the last part's input; a transcript with
system messages of its own is built whole (stages.build_claimed_parts)."""

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
        from pi_tools.providers.openai_codex_responses.payload16 import build_history

        return build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.openai_codex_responses.payload16 import build_tail

        return build_tail(model, context, options)

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

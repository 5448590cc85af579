"""azure-openai-responses as Pi 1.6 builds it (providers.edition): this folder's ``payload16`` and ``wire16`` (on
the shared 1.6 Responses conversion, openai_responses.convert16) behind the 0.85 Azure adapter, with OpenAI Responses' 1.6
payload mapping (system messages as items in place). Large sessions are built in parts as openai-responses' 1.6
ones are (the parts' carry and join are OpenAI Responses' 0.85 ones: the ids of assistant texts renumbered), the
leading system message opening the last part's input."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_tools.providers.azure_openai_responses.adapter import AzureOpenAIResponses
from pi_tools.providers.contract import ApiAdapter, Model, ToolCallIdNormalizer
from pi_tools.providers.openai_responses import mapping


class AzureOpenAIResponses16(AzureOpenAIResponses):
    payload_module = "pi_tools.providers.azure_openai_responses.payload16"
    wire_module = "pi_tools.providers.azure_openai_responses.wire16"
    # the 0.85 adapter names Azure's builders in openai_responses with methods of its own: back to the modules
    build_payload = ApiAdapter.build_payload
    build_wire = ApiAdapter.build_wire
    preload = ApiAdapter.preload
    def tool_call_id_normalizer(self) -> ToolCallIdNormalizer | None:
        from pi_tools.providers.azure_openai_responses.payload16 import normalize_tool_call_id

        return normalize_tool_call_id

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.azure_openai_responses.payload16 import build_history

        return build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.azure_openai_responses.payload16 import build_tail

        return build_tail(model, context, options)

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        return mapping.item_kind16(item)

    def system_units(self, messages: Sequence[Any], model: Mapping[str, Any]) -> list[int | None]:
        from pi_tools.providers.azure_openai_responses.payload16 import _flag

        compat = model.get("compat") or {}
        flags = [_flag(compat, name, False)
                 for name in ("supportsMidConvoSystemMessages", "supportsAdditionalTools", "supportsToolSearch")]
        return mapping.system_units16(messages, *flags)


ADAPTER = AzureOpenAIResponses16()

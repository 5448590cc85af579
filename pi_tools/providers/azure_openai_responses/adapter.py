"""azure-openai-responses behind the API contract (providers.contract): OpenAI Responses' adapter with Azure's
params, endpoint, authentication and tool-call ids (``build_azure_*`` of providers.openai_responses, which share
its item conversion), no stream decoder, and OpenAI Responses' payload mapping. Its preflight rules are the
Responses folder's, which name Azure among their APIs."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from pi_tools.providers.contract import Model, ToolCallIdNormalizer
from pi_tools.providers.openai_responses.adapter import OpenAIResponses


class AzureOpenAIResponses(OpenAIResponses):
    rule_modules = ()

    def build_payload(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        from pi_tools.providers.openai_responses.payload import build_azure_payload

        return build_azure_payload(model, context, options)

    def build_wire(self, model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        from pi_tools.providers.openai_responses.wire import build_azure_wire

        return build_azure_wire(model, payload, options)

    def stream_decoder(self) -> ModuleType | None:
        return None

    def tool_call_id_normalizer(self) -> ToolCallIdNormalizer | None:
        from pi_tools.providers.openai_responses.payload import normalize_azure_tool_call_id

        return normalize_azure_tool_call_id

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.openai_responses.payload import build_azure_history

        return build_azure_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.openai_responses.payload import build_azure_tail

        return build_azure_tail(model, context, options)


ADAPTER = AzureOpenAIResponses()

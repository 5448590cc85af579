"""openai-responses as Pi 1.6 builds it (providers.edition): the 1.6 payload and wire modules (``payload16``,
``wire16``) behind the 0.85 adapter's mapping, stream decoder and preflight rules. Large sessions are built in parts as 0.85's
are (providers.split; 0.85's encode_part and join_parts renumber the ids of assistant texts), the leading system
message opening the last part's input; a transcript with later system messages is built whole (its tool
declarations and updates depend on the whole transcript: stages.build_claimed_parts). Payload mapping: system
messages make instruction items and tool declarations (``additional_tools``, a tool search) in place
(``mapping.system_units16``); ``configuration_update`` items are the adapter's own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_tools.providers.contract import Model
from pi_tools.providers.openai_responses import mapping
from pi_tools.providers.openai_responses.adapter import OpenAIResponses


class OpenAIResponses16(OpenAIResponses):
    payload_module = "pi_tools.providers.openai_responses.payload16"
    wire_module = "pi_tools.providers.openai_responses.wire16"
    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.openai_responses.payload16 import build_history

        return build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.openai_responses.payload16 import build_tail

        return build_tail(model, context, options)

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        return mapping.item_kind16(item)

    def system_units(self, messages: Sequence[Any], model: Mapping[str, Any]) -> list[int | None]:
        from pi_tools.providers.openai_responses.payload16 import resolved_compat16

        compat = resolved_compat16(dict(model))
        return mapping.system_units16(messages, compat["supportsMidConvoSystemMessages"],
                                      compat["supportsAdditionalTools"], compat["supportsToolSearch"])


ADAPTER = OpenAIResponses16()

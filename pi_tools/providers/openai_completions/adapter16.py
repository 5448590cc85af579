"""openai-completions as Pi 1.6 builds it: the 0.85 adapter (its stream decoder, tool-call id normaliser, payload
mapping and preflight rules) with 1.6's payload and wire (``payload16``, ``wire16``). Large sessions are built in
parts (providers.split) as 0.85's are, the leading system message opening the last part's list; a transcript
with later system messages is built whole (stages.build_claimed_parts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_tools.providers.contract import Model
from pi_tools.providers.openai_completions.adapter import OpenAICompletions


class OpenAICompletions16(OpenAICompletions):
    payload_module = "pi_tools.providers.openai_completions.payload16"
    wire_module = "pi_tools.providers.openai_completions.wire16"
    # 1.6 filters a user message's parts (`item.type !== "text" || item.text.length > 0`) before it maps them.
    user_content_failure = "msg.content.filter is not a function"
    user_text_by_length = True

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.openai_completions.payload16 import build_history

        return build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.openai_completions.payload16 import build_tail

        return build_tail(model, context, options)

    def units(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
        if message.get("role") == "user":
            from pi_tools.providers.openai_completions.mapping import user_units16

            return user_units16(message)
        return super().units(message, model)

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        from pi_tools.providers.openai_completions.mapping import item_kind16

        return item_kind16(item, index, has_system, previous)

    def system_units(self, messages: Sequence[Any], model: Mapping[str, Any]) -> list[int | None]:
        from pi_tools.providers.openai_completions.mapping import system_units16

        return system_units16(messages, model)


ADAPTER = OpenAICompletions16()

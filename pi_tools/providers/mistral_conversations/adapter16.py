"""mistral-conversations as Pi 1.6 builds it: the 0.85 adapter's mapping, preflight and stream hooks, the 1.6
payload (``payload16``) and wire (``wire16``). Large sessions are built in parts as 0.85's are (the parts'
normaliser tables checked by 0.85's join_parts), the leading system message opening the last part's messages; a
transcript with system messages of its own is built whole (stages.build_claimed_parts)."""

from __future__ import annotations

from typing import Any

from pi_tools.providers.contract import Model
from pi_tools.providers.mistral_conversations.adapter import MistralConversations


class MistralConversations16(MistralConversations):
    payload_module = "pi_tools.providers.mistral_conversations.payload16"
    wire_module = "pi_tools.providers.mistral_conversations.wire16"
    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.mistral_conversations.payload16 import build_history

        return build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.mistral_conversations.payload16 import build_tail

        return build_tail(model, context, options)


ADAPTER = MistralConversations16()

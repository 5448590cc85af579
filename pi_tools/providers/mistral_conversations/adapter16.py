"""mistral-conversations as Pi 1.6 builds it: the 0.85 adapter's mapping, preflight and stream hooks, the 1.6
payload (``payload16``) and wire (``wire16``). Large sessions are built whole (no parts)."""

from __future__ import annotations

from typing import Any

from pi_tools.providers.contract import Model
from pi_tools.providers.mistral_conversations.adapter import MistralConversations


class MistralConversations16(MistralConversations):
    payload_module = "pi_tools.providers.mistral_conversations.payload16"
    wire_module = "pi_tools.providers.mistral_conversations.wire16"
    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        return None

    def build_tail(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        return None  # the whole payload (registry.build_tail builds it when the adapter gives none)


ADAPTER = MistralConversations16()

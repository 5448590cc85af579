"""google-generative-ai as Pi 1.6 builds it: the 0.85 adapter's mapping and preflight hooks, the 1.6 payload
(``payload16``) and wire (``wire16``: @google/genai 2.32). Large sessions are built in parts as 0.85's are
(providers.split; the system instruction and tools come with the last part); a transcript with later system
messages is built whole (they collapse into the system instruction: stages.build_claimed_parts)."""

from __future__ import annotations

from typing import Any

from pi_tools.providers.contract import Model
from pi_tools.providers.google_generative_ai.adapter import GoogleGenerativeAI


class GoogleGenerativeAI16(GoogleGenerativeAI):
    payload_module = "pi_tools.providers.google_generative_ai.payload16"
    wire_module = "pi_tools.providers.google_generative_ai.wire16"
    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.google_generative_ai.payload16 import build_history

        return build_history(model, context, options)

    def build_history_traced(self, model: Model, context: dict[str, Any], options: dict[str, Any],
                             trace: Any) -> Any:
        from pi_tools.providers.google_generative_ai.payload16 import build_history

        return build_history(model, context, options, trace)


ADAPTER = GoogleGenerativeAI16()

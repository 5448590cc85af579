"""bedrock-converse-stream as Pi 1.6 builds it: the 0.85 adapter's mapping, preflight and stream hooks, the 1.6
payload (``payload16``) and wire (``wire16``). Large sessions are built in parts as 0.85's are (providers.split;
the system blocks and tools come with the last part); a transcript with later system messages is built whole
(they collapse into the system blocks: stages.build_claimed_parts)."""

from __future__ import annotations

from typing import Any

from pi_tools.providers.bedrock_converse_stream.adapter import BedrockConverseStream
from pi_tools.providers.contract import Model


class BedrockConverseStream16(BedrockConverseStream):
    payload_module = "pi_tools.providers.bedrock_converse_stream.payload16"
    wire_module = "pi_tools.providers.bedrock_converse_stream.wire16"
    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.bedrock_converse_stream.payload16 import build_history

        return build_history(model, context, options)


ADAPTER = BedrockConverseStream16()

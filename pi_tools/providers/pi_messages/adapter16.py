"""pi-messages behind the API contract (providers.contract), as Pi 1.6 builds it: the payload is Pi's transcript
itself (``payload16``), posted as is (``wire16``), answered by a stream of Pi's own events (``stream16``).

Payload mapping: the conversation is ``payload.context.messages``, one item per transcript message in Pi's own
shape (roles system, user, assistant, toolResult), nothing left out, nothing added; the system prompt is the
leading system message of that list. No preflight rules: Radius documents no request limits pi-tools could check.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from pi_tools.providers.contract import ApiAdapter, Model
from pi_tools.providers.mapping import ASSISTANT, EXTRA, RESULT, SYSTEM, USER

_KINDS = {"user": USER, "assistant": ASSISTANT, "toolResult": RESULT}


class PiMessages16(ApiAdapter):
    sends_messages_as_stored = True

    def build_payload(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        from pi_tools.providers.pi_messages.payload16 import build_payload

        return build_payload(model, context, options)

    def build_wire(self, model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        from pi_tools.providers.pi_messages.wire16 import build_wire

        return build_wire(model, payload, options)

    def stream_decoder(self) -> ModuleType:
        from pi_tools.providers.pi_messages import stream16

        return stream16

    def preload(self) -> None:
        import pi_tools.providers.pi_messages.payload16  # noqa: F401

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        """Pi's own messages: a leading system message made of the context's prompt is the prompt; any other
        system message (a transcript's own, a later update) is EXTRA."""
        if not isinstance(item, dict):
            return EXTRA
        role = item.get("role")
        if role == "system":
            return SYSTEM if index == 0 and has_system else EXTRA
        return _KINDS.get(role, EXTRA) if isinstance(role, str) else EXTRA

    def max_tokens_field(self, payload: Mapping[str, Any]) -> tuple[str, Any] | None:
        options = payload.get("options")
        if isinstance(options, Mapping) and "maxTokens" in options:
            return ("options.maxTokens", options["maxTokens"])
        return None


ADAPTER = PiMessages16()

"""pi-messages behind the API contract (providers.contract), as Pi 1.6 builds it: the payload is Pi's transcript
itself (``payload16``), posted as is (``wire16``), answered by a stream of Pi's own events (``stream16``).

Payload mapping: the conversation is ``payload.context.messages``, one item per transcript message in Pi's own
shape (roles system, user, assistant, toolResult), nothing left out, nothing added; the system prompt is the
leading system message of that list, and every later one an item of its own. Large sessions are built in
parts (providers.split): a part's items are its messages as given, the leading system message opening the last
part's list (a transcript with system messages of its own is built whole: stages.build_claimed_parts). No
preflight rules: Radius documents no request limits pi-tools could check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from pi_tools.providers.contract import ApiAdapter, Model
from pi_tools.providers.mapping import ASSISTANT, EXTRA, RESULT, SYSTEM, USER, system_messages

_KINDS = {"user": USER, "assistant": ASSISTANT, "toolResult": RESULT, "system": SYSTEM}


class PiMessages16(ApiAdapter):
    payload_module = "pi_tools.providers.pi_messages.payload16"
    wire_module = "pi_tools.providers.pi_messages.wire16"
    sends_messages_as_stored = True

    def stream_decoder(self) -> ModuleType:
        from pi_tools.providers.pi_messages import stream16

        return stream16

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        from pi_tools.providers.pi_messages.payload16 import build_history

        return build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
        from pi_tools.providers.pi_messages.payload16 import build_tail

        return build_tail(model, context, options)

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        """Pi's own messages, by role: every system message (the leading prompt, a later update) is a system
        item."""
        if not isinstance(item, dict):
            return EXTRA
        role = item.get("role")
        return _KINDS.get(role, EXTRA) if isinstance(role, str) else EXTRA

    def system_units(self, messages: Sequence[Any], model: Mapping[str, Any]) -> list[int | None]:
        """Every system message is sent as it is, in place: one item each (the leading one the prompt)."""
        return [1 for _ in system_messages(messages)]

    def max_tokens_field(self, payload: Mapping[str, Any]) -> tuple[str, Any] | None:
        options = payload.get("options")
        if isinstance(options, Mapping) and "maxTokens" in options:
            return ("options.maxTokens", options["maxTokens"])
        return None


ADAPTER = PiMessages16()

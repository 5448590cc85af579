"""The live loop's events as the stream events a web chat consumes (`pi-tools run --events --format chat`).

The same mapping as the export (chat.py), applied while a run happens, in the event mapper's vocabulary:

- `{"type": "state", "state": "agent_start"|"turn_start"|"turn_end"|"agent_settled"}`;
- `{"type": "start", "messageId", "role": "assistant"}` when a response begins;
- `{"type": "delta", "messageId", "text"}` for text, `{"type": "thinking", "messageId", "toolCallId", "text"}` for
  thinking (the id of the message's `tool-Thinking` part);
- `{"type": "tool", "messageId", "part"}`: the call's `tool-<Name>` part as it stands, merged by `toolCallId`:
  `input-streaming` while the model writes its arguments, `input-available` once they are complete and while
  it runs (partial results as `output-available` with `preliminary: true`), then `output-available` or
  `output-error`;
- `{"type": "error", "messageId", "stopReason", "errorText"}` when a response ends in an error or an abort;
- `{"type": "done", "runId", "message", "messages"}` at the end: the last assistant ChatMessage and every
  ChatMessage of the run (prompt, responses with their tool results attached), exactly as `export --format chat`
  makes them from the session the run wrote, ids apart.
"""

from __future__ import annotations

import copy
import secrets
from typing import Any

from pi_tools.export.chat import (
    ChatMessage,
    ChatPart,
    ChatProjection,
    settle_tool_part,
    tool_output,
    tool_part_type,
)

StreamEvent = dict[str, Any]


class ChatStreamMapper:
    """Pi agent events in, chat stream events out (a list per event, often empty)."""

    def __init__(self, run_id: str | None = None) -> None:
        self.run_id = run_id or f"run-{secrets.token_hex(4)}"
        self._projection = ChatProjection()
        self._messages: list[ChatMessage] = []
        self._last_assistant: ChatMessage | None = None
        self._current: str | None = None  # id of the assistant message being streamed
        self._parts: dict[str, ChatPart] = {}  # toolCallId -> the live part of a call of this run
        self._counts = {"user": 0, "assistant": 0, "other": 0}

    def _next_id(self, role: str) -> str:
        key = role if role in ("user", "assistant") else "other"
        number = self._counts[key]
        self._counts[key] += 1
        return f"{self.run_id}-{key[0]}{number}"

    def _tool(self, call_id: str, name: Any, **changes: Any) -> StreamEvent:
        part = self._parts.get(call_id)
        if part is None:
            part = {"type": tool_part_type(name), "toolCallId": call_id, "state": "input-streaming"}
            self._parts[call_id] = part
        for key, value in changes.items():
            if key == "input" and part.get("state") not in ("input-streaming", None) and "input" in part:
                continue  # complete arguments are kept once known
            part[key] = value
        return {"type": "tool", "messageId": self._current, "part": copy.deepcopy(part)}

    def map(self, event: dict[str, Any]) -> list[StreamEvent]:
        kind = event.get("type")
        if kind in ("agent_start", "turn_start", "turn_end"):
            return [{"type": "state", "state": kind}]
        if kind == "agent_end":
            return [{"type": "state", "state": "agent_settled"},
                    {"type": "done", "runId": self.run_id, "message": self._last_assistant, "messages": self._messages}]
        message = _object(event.get("message"))
        role = message.get("role")
        if kind == "message_start" and role == "assistant":
            self._current = self._next_id("assistant")
            return [{"type": "start", "messageId": self._current, "role": "assistant"}]
        if kind == "message_update" and role == "assistant":
            return self._update(event.get("assistantMessageEvent") or {}, message)
        if kind == "message_end":
            return self._settled(message)
        if kind in ("tool_execution_start", "tool_execution_update", "tool_execution_end"):
            call_id = str(event.get("toolCallId"))
            name = event.get("toolName")
            if kind == "tool_execution_start":
                return [self._tool(call_id, name, state="input-available", input=event.get("args"))]
            if kind == "tool_execution_update":
                return [self._tool(call_id, name, state="output-available", preliminary=True,
                                   output=event.get("partialResult"))]
            self._tool(call_id, name)
            part = self._parts[call_id]
            result = _object(event.get("result"))
            settle_tool_part(part, event.get("isError") is True, tool_output(result))
            return [{"type": "tool", "messageId": self._current, "part": copy.deepcopy(part)}]
        return []

    def _update(self, update: dict[str, Any], partial: dict[str, Any]) -> list[StreamEvent]:
        kind = update.get("type")
        index = update.get("contentIndex")
        if kind == "text_delta":
            return [{"type": "delta", "messageId": self._current, "text": update.get("delta", "")}]
        if kind == "thinking_delta":
            return [{"type": "thinking", "messageId": self._current, "toolCallId": f"{self._current}-thinking-{index}",
                     "text": update.get("delta", "")}]
        if kind in ("toolcall_start", "toolcall_delta", "toolcall_end"):
            content = partial.get("content")
            block = update.get("toolCall") if kind == "toolcall_end" else (
                content[index] if isinstance(content, list) and isinstance(index, int) and 0 <= index < len(content)
                else None)
            if not isinstance(block, dict):
                return []
            call_id = block.get("id")
            if not isinstance(call_id, str) or not call_id:
                call_id = f"{self._current}-call-{index}"
            arguments = block.get("arguments") if block.get("arguments") is not None else {}
            if kind == "toolcall_end":
                self._parts.pop(call_id, None)  # a fresh part: the complete arguments replace the partial ones
                self._tool(call_id, block.get("name"), input=arguments)
                return [self._tool(call_id, block.get("name"), state="input-available")]
            return [self._tool(call_id, block.get("name"), state="input-streaming", input=copy.deepcopy(arguments))]
        return []

    def _settled(self, message: dict[str, Any]) -> list[StreamEvent]:
        role = message.get("role")
        message_id = self._current if role == "assistant" and self._current else self._next_id(str(role))
        chat = self._projection.add(message, message_id)
        if chat is not None:
            self._messages.append(chat)
        if role != "assistant":
            return []
        self._last_assistant = chat
        if message.get("stopReason") in ("error", "aborted"):
            text = message.get("errorMessage")
            return [{"type": "error", "messageId": message_id, "stopReason": message["stopReason"],
                     "errorText": text if isinstance(text, str) else str(message["stopReason"])}]
        return []


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}

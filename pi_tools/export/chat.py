"""The web ChatMessage projection: a conversation as the AI SDK's UI messages, as the seed's event mapper makes them.

A fourth view of a session beside the model's, the terminal UI's and storage's. Each message becomes one
`{id, role, parts, createdAt}` object whose parts are the AI SDK's UI message parts (`text`, `file`,
`tool-<Name>`, `data-<name>`), so any `useChat` front end can show a Pi session without knowing Pi:

- user content (a string or text blocks) gives `text` parts, images `file` parts (data URLs);
- assistant blocks give one part each: `text`, a `tool-Thinking` part for thinking (`input: {thought}`, `output`
  the thinking), a `tool-<PascalName>` part for each tool call; the matching tool result (by `toolCallId`) fills
  that part's `output` (`output-available`) or `errorText` (`output-error`), so results have no message of
  their own. A message without text shows its thinking as its text, as the mapper does;
- Pi 1.6's system messages (when the version knows them) are `system` messages: their text, and a `data-system`
  part with the prompt sections they set and the tools they add and remove;
- Pi's own roles (bash executions, custom messages, branch and compaction summaries), tool results whose call is
  unknown, and an assistant's error are `data-<name>` parts, the SDK's slot for application data, so a front end
  can give them components of their own; custom messages Pi does not display (`display: false`) are left out.

The AI SDK requires a `toolCallId` on every tool part; a thinking block has none, so it gets one made from its
message's id and its block index, which keeps ids stable across runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

ChatMessage = dict[str, Any]
ChatPart = dict[str, Any]

_WORD_SPLIT = re.compile(r"[_\-\s]+")
_SHORT_LOWER = re.compile(r"[a-z]{1,3}")


def tool_part_type(name: Any) -> str:
    """`tool-<PascalCase>` as the mapper names tool parts: `bash` → `tool-Bash`, `edit_file` → `tool-EditFile`.

    Words of at most three lowercase letters are acronyms (`ls` → `LS`); `ipython` is `IPython`.
    """
    text = name if isinstance(name, str) else str(name)
    if text == "thinking":
        return "tool-Thinking"
    words = []
    for word in _WORD_SPLIT.split(text):
        if not word:
            continue
        if word.lower() == "ipython":
            words.append("IPython")
        elif _SHORT_LOWER.fullmatch(word):
            words.append(word.upper())
        else:
            words.append(word[0].upper() + word[1:])
    return f"tool-{''.join(words)}"


def _timestamp(message: dict[str, Any]) -> int | float | None:
    value = message.get("timestamp")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return value


def _data_url(block: dict[str, Any]) -> ChatPart | None:
    data, mime = block.get("data"), block.get("mimeType")
    if not isinstance(data, str) or not isinstance(mime, str):
        return None
    return {"type": "file", "mediaType": mime, "url": f"data:{mime};base64,{data}"}


def content_parts(content: Any) -> list[ChatPart]:
    """Text and image content (a string or blocks) as `text` and `file` parts; other blocks are not content."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    parts: list[ChatPart] = []
    if not isinstance(content, list):
        return parts
    for block in content:
        if isinstance(block, str):
            parts.append({"type": "text", "text": block})
        elif isinstance(block, dict):
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append({"type": "text", "text": block["text"]})
            elif block.get("type") == "image":
                part = _data_url(block)
                if part is not None:
                    parts.append(part)
    return parts


def result_text(content: Any) -> str:
    """A tool result's text blocks joined by newlines (the errorText of a failed call)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
                     and isinstance(b.get("text"), str))


def tool_output(message: dict[str, Any]) -> dict[str, Any]:
    """What a tool part's `output` holds: the result's content blocks and details, as the live loop reports them."""
    output: dict[str, Any] = {"content": message.get("content") if message.get("content") is not None else []}
    if message.get("details") is not None:
        output["details"] = message["details"]
    return output


def settle_tool_part(part: ChatPart, is_error: bool, output: dict[str, Any]) -> None:
    """A finished call: `output-available` with the output, or `output-error` with its text as errorText."""
    part.pop("output", None)
    part.pop("errorText", None)
    part.pop("preliminary", None)
    if is_error:
        part["state"] = "output-error"
        part["errorText"] = result_text(output.get("content"))
    else:
        part["state"] = "output-available"
        part["output"] = output


def _promote_thinking(parts: list[ChatPart]) -> list[ChatPart]:
    """No visible text: the thinking becomes the message's text and its thinking parts go (the mapper's rule)."""
    if "".join(p["text"] for p in parts if p["type"] == "text").strip():
        return parts
    thought = "".join(p["output"] for p in parts if p["type"] == "tool-Thinking" and isinstance(p.get("output"), str))
    if not thought.strip():
        return parts
    return [{"type": "text", "text": thought}, *(p for p in parts if p["type"] not in ("text", "tool-Thinking"))]


def assistant_parts(message: dict[str, Any], message_id: str, *, thinking: bool = True,
                    tools: bool = True) -> list[ChatPart]:
    """One part per block of an assistant message (tool parts still waiting for their results)."""
    parts: list[ChatPart] = []
    content = message.get("content")
    for index, block in enumerate(content if isinstance(content, list) else []):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append({"type": "text", "text": block["text"]})
        elif kind == "thinking" and thinking:
            thought = block.get("thinking") if isinstance(block.get("thinking"), str) else ""
            parts.append({"type": "tool-Thinking", "toolCallId": f"{message_id}-thinking-{index}",
                          "state": "output-available", "input": {"thought": thought}, "output": thought})
        elif kind == "toolCall" and tools:
            call_id = block.get("id")
            parts.append({
                "type": tool_part_type(block.get("name")),
                "toolCallId": call_id if isinstance(call_id, str) and call_id else f"{message_id}-call-{index}",
                "state": "input-available",
                "input": block["arguments"] if block.get("arguments") is not None else {},
            })
        elif kind == "image":
            part = _data_url(block)
            if part is not None:
                parts.append(part)
    parts = _promote_thinking(parts)
    if message.get("stopReason") in ("error", "aborted"):
        error = {"stopReason": message["stopReason"]}
        if isinstance(message.get("errorMessage"), str):
            error["errorMessage"] = message["errorMessage"]
        parts.append({"type": "data-error", "data": error})
    return parts


def _role_data(message: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    return {key: message[key] for key in keys if key in message}


def runtime_parts(message: dict[str, Any]) -> list[ChatPart] | None:
    """Pi's own roles as data parts (plus a custom message's content); None for a message the UI does not show."""
    role = message.get("role")
    if role == "bashExecution":
        data = _role_data(message, ("command", "output", "exitCode", "cancelled", "truncated", "fullOutputPath",
                                    "excludeFromContext"))
        return [{"type": "data-bashExecution", "data": data}]
    if role == "custom":
        if message.get("display") is False:
            return None
        return [{"type": "data-custom", "data": _role_data(message, ("customType", "details"))},
                *content_parts(message.get("content"))]
    if role == "branchSummary":
        return [{"type": "data-branchSummary", "data": _role_data(message, ("summary", "fromId"))}]
    if role == "compactionSummary":
        return [{"type": "data-compactionSummary", "data": _role_data(message, ("summary", "tokensBefore"))}]
    return [{"type": "data-unknownRole", "data": {"message": message}}]


def system_parts(message: dict[str, Any]) -> list[ChatPart]:
    """Pi 1.6's system message: its text (a string or text blocks), then the prompt sections it sets and the tools
    it adds (as declared) and removes, as one `data-system` part."""
    data = _role_data(message, ("sections", "toolsAdded", "toolsRemoved"))
    parts = [part for part in content_parts(message.get("content")) if part.get("type") != "text" or part["text"]]
    return [*parts, {"type": "data-system", "data": data}] if data else parts


class ChatProjection:
    """Messages in, ChatMessages out, one at a time: tool results settle parts of messages already made.

    Kept incremental so that the export of a large session and the live loop share it.
    """

    def __init__(self, *, thinking: bool = True, tools: bool = True, roles: frozenset[str] = frozenset()) -> None:
        self.thinking = thinking
        self.tools = tools
        self.roles = roles  # pi-ai roles the Pi version knows beside the registry's (1.6: system)
        self._waiting: dict[str, ChatPart] = {}  # toolCallId -> the latest tool part without a result

    def add(self, message: Any, message_id: str) -> ChatMessage | None:
        """The ChatMessage for `message`, or None when it only settles an earlier part (or is not shown)."""
        if not isinstance(message, dict):
            return None
        role = message.get("role")
        chat: ChatMessage
        if role == "user":
            parts = content_parts(message.get("content")) or [{"type": "text", "text": ""}]
            chat = {"id": message_id, "role": "user", "parts": parts}
        elif role == "assistant":
            parts = assistant_parts(message, message_id, thinking=self.thinking, tools=self.tools)
            for part in parts:
                if part["type"].startswith("tool-") and part["type"] != "tool-Thinking":
                    self._waiting[part["toolCallId"]] = part
            chat = {"id": message_id, "role": "assistant", "parts": parts}
        elif role == "toolResult":
            if not self.tools:
                return None
            call_id = message.get("toolCallId")
            waiting = self._waiting.pop(call_id, None) if isinstance(call_id, str) else None
            if waiting is not None:
                settle_tool_part(waiting, message.get("isError") is True, tool_output(message))
                return None
            data = _role_data(message, ("toolCallId", "toolName", "content", "details", "isError"))
            chat = {"id": message_id, "role": "assistant", "parts": [{"type": "data-toolResult", "data": data}]}
        elif type(role) is str and role in self.roles:
            chat = {"id": message_id, "role": "system", "parts": system_parts(message)}
        else:
            runtime = runtime_parts(message)
            if runtime is None:
                return None
            chat = {"id": message_id, "role": "user", "parts": runtime}
        stamp = _timestamp(message)
        if stamp is not None:
            chat["createdAt"] = stamp
        return chat


def to_chat_messages(messages: Iterable[Any], ids: Sequence[str] | None = None, *, thinking: bool = True,
                     tools: bool = True) -> list[ChatMessage]:
    """AgentMessage[] → ChatMessage[] (see the module docstring for the mapping).

    `ids` names each message (the CLI passes the session's entry ids); by default the n-th message is `m<n>`.
    `thinking=False` leaves thinking out, `tools=False` tool calls and their results.
    """
    projection = ChatProjection(thinking=thinking, tools=tools)
    out: list[ChatMessage] = []
    for index, message in enumerate(messages):
        chat = projection.add(message, ids[index] if ids is not None else f"m{index}")
        if chat is not None:
            out.append(chat)
    return out

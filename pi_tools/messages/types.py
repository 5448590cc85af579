"""Typed views of Pi's message unions.

Messages stay the plain dicts orjson returns (the hot path never wraps them in classes); these TypedDicts
only document the shapes for readers and the type checker. `total=False` because stored sessions are
untrusted and fields may be missing.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple, TypedDict

StopReason = Literal["pending", "stop", "length", "toolUse", "error", "aborted", "deferred"]


class TextContent(TypedDict, total=False):
    type: Literal["text"]
    text: str
    textSignature: str


class ThinkingContent(TypedDict, total=False):
    type: Literal["thinking"]
    thinking: str
    thinkingSignature: str
    redacted: bool


class ImageContent(TypedDict, total=False):
    type: Literal["image"]
    data: str
    mimeType: str


class ToolCall(TypedDict, total=False):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, Any]
    thoughtSignature: str
    namespace: str


class Usage(TypedDict, total=False):
    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    cacheWrite1h: int
    reasoning: int
    totalTokens: int
    cost: dict[str, float]


# Every message, LLM-facing or custom, is a JSON object with a "role"; we keep them as dicts.
AgentMessage = dict[str, Any]
Message = dict[str, Any]

LLM_ROLES: frozenset[str] = frozenset({"user", "assistant", "toolResult"})


class RawMessage(NamedTuple):
    """A message kept as the JSON text it was read from, to be written out again without being parsed.

    The writer checks that the text reads back as the value it would write (docs.py); `value()` parses it for
    a stage that needs the object after all.
    """

    role: str
    json: Any  # bytes-like: bytes, memoryview or msgspec.Raw

    def value(self) -> Any:
        from pi_tools.js.json_line import loads_line_lenient

        return loads_line_lenient(self.json)

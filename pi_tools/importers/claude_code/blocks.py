"""Claude Code's content blocks (the Anthropic Messages shapes it stores) as Pi's content blocks.

Claude Code keeps the API's blocks as the API returned them; Pi keeps pi-ai's normalised ones. The mapping is
the one Pi's Anthropic provider applies to a streamed response (text, signed thinking, redacted thinking,
tool_use → toolCall) and, for the user side, pi-ai's ImageContent. A block Pi has no place for (server-side tool
use, documents, URL images) is left out and said: `Dropped` names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

REDACTED_THINKING_TEXT = "[Reasoning redacted]"
"""The text Pi's Anthropic provider gives a redacted thinking block (its data goes to the signature)."""


@dataclass
class Mapped:
    """Blocks mapped to Pi's shapes, and the kinds left out (with why)."""

    blocks: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)


def _image(block: dict[str, Any], mapped: Mapped) -> None:
    source = block.get("source")
    if isinstance(source, dict) and source.get("type") == "base64" and isinstance(source.get("data"), str):
        mapped.blocks.append({"type": "image", "data": source["data"],
                              "mimeType": source.get("media_type") or "image/png"})
        if not source.get("media_type"):
            mapped.dropped.append(("image media type", "an image without its media type was kept as image/png"))
        return
    kind = source.get("type") if isinstance(source, dict) else None
    mapped.dropped.append((f"image ({kind or 'no source'})",
                           "Pi stores images as base64 data; this one has none"))


def _text_and_images(content: list[Any], place: str, holder: str) -> Mapped:
    """Text and image blocks as Pi keeps them; any other block dropped with why (`place` follows the block's kind
    in the drop's label, `holder` names what Pi keeps such blocks in)."""
    mapped = Mapped()
    for block in content:
        if not isinstance(block, dict):
            mapped.dropped.append(("malformed block", "a content block that is not an object"))
            continue
        kind = block.get("type")
        if kind == "text":
            mapped.blocks.append({"type": "text", "text": str(block.get("text") or "")})
        elif kind == "image":
            _image(block, mapped)
        else:
            mapped.dropped.append((f"{kind} block{place}", f"{holder} hold text and images, not {kind}"))
    return mapped


def user_blocks(content: list[Any]) -> Mapped:
    """A user message's non-tool-result blocks: text and images."""
    return _text_and_images(content, "", "Pi's user messages")


def tool_result_content(content: Any) -> Mapped:
    """A tool_result's content (a string or text/image blocks) as Pi's toolResult content."""
    if content is None:
        return Mapped()
    if isinstance(content, str):
        return Mapped([{"type": "text", "text": content}])
    if not isinstance(content, list):
        return Mapped([{"type": "text", "text": str(content)}],
                      [("tool result content", "a tool result whose content is neither text nor blocks was kept "
                                               "as its text")])
    return _text_and_images(content, " in a tool result", "Pi's tool results")


def assistant_blocks(content: Any) -> Mapped:
    """An assistant message's blocks as Pi's Anthropic provider stores them."""
    if isinstance(content, str):
        return Mapped([{"type": "text", "text": content}])
    mapped = Mapped()
    if not isinstance(content, list):
        return mapped
    for block in content:
        if not isinstance(block, dict):
            mapped.dropped.append(("malformed block", "a content block that is not an object"))
            continue
        kind = block.get("type")
        if kind == "text":
            mapped.blocks.append({"type": "text", "text": str(block.get("text") or "")})
        elif kind == "thinking":
            mapped.blocks.append({"type": "thinking", "thinking": str(block.get("thinking") or ""),
                                  "thinkingSignature": str(block.get("signature") or "")})
        elif kind == "redacted_thinking":
            redacted: dict[str, Any] = {"type": "thinking", "thinking": REDACTED_THINKING_TEXT}
            if isinstance(block.get("data"), str):
                redacted["thinkingSignature"] = block["data"]
            redacted["redacted"] = True
            mapped.blocks.append(redacted)
        elif kind == "tool_use":
            arguments = block.get("input")
            mapped.blocks.append({"type": "toolCall", "id": str(block.get("id") or ""),
                                  "name": str(block.get("name") or ""),
                                  "arguments": arguments if isinstance(arguments, dict) else {}})
            if arguments is not None and not isinstance(arguments, dict):
                mapped.dropped.append(("tool call arguments", "arguments that are not an object became {}"))
        else:
            mapped.dropped.append((f"{kind} block", "a server-side block Pi's Anthropic provider does not store"))
    return mapped

"""Content blocks that are not objects, as pi-ai's JavaScript sees them.

Stored sessions are not validated. A content item that is a string, a number, a boolean or an array has no
`type` (nor any other property Pi reads): to every `block.type === ...` test it is a block of no known kind,
like `{}`; a `null` item makes the first `block.type` read throw. In an assistant message an array item is
spread into the content (transformMessages flatMaps it), so `[]` vanishes and `[null]` is a null item. The encoders are written for objects, so
before one runs each such item stands in as an empty object (Pi builds the same request), and where an encoder
then trips over what JavaScript would have thrown on (a null item, an assistant content that is not an array),
the failure is reported with V8's words instead of as a Python error.
"""

from __future__ import annotations

from typing import Any

from pi_tools.js.errors import JsTypeError
from pi_tools.js.values import js_to_number

_ROLES = ("user", "assistant", "toolResult")
AS_STORED = "_messagesAsStored"
"""Context key under which the registry keeps the messages as they were before `objects_for_junk_items`
spread an assistant's array items: pi-ai estimates the context (clampMaxTokensToContext) before
transformMessages flatMaps them, and an array block fails that estimate (`block.name.length`). Only the
estimate reads it; encoders read `messages`."""
NULL_ITEM = "Cannot read properties of null (reading 'type')"
ASSISTANT_CONTENT = "assistantMsg.content.flatMap is not a function"


def objects_for_junk_items(messages: Any) -> Any:
    """`messages` with every non-object, non-null content item of a user, assistant or tool-result message
    replaced by an empty object (copies of the messages concerned only; the list itself if none is)."""
    if not isinstance(messages, list):
        return messages
    out: list[Any] | None = None
    for index, message in enumerate(messages):
        if type(message) is not dict:
            continue
        content = message.get("content")
        if type(content) is not list or message.get("role") not in _ROLES:
            continue
        if all(type(block) is dict or block is None for block in content):
            continue
        if message["role"] == "assistant":
            # transformMessages flatMaps assistant content: an array item is spread into the content.
            content = [item for block in content for item in (block if type(block) is list else (block,))]
        if out is None:
            out = list(messages)
        out[index] = {**message, "content": [
            block if type(block) is dict or block is None else {} for block in content]}
    return messages if out is None else out


USER_CONTENT_DEFAULT = "msg.content.map is not a function"
"""What most APIs' user-message conversion throws first on a `msg.content` that is a number or an object (it
calls `map` on it); an adapter names its own (`ApiAdapter.user_content_failure`)."""


def js_failure(messages: Any, user_content_failure: str = USER_CONTENT_DEFAULT,
               user_text_by_length: bool = False) -> str | None:
    """The TypeError V8 throws for these messages' malformed content, where pi-ai's code meets it whatever the
    API: an assistant content that is neither an array nor missing (transformMessages flatMaps it); then, in
    message order, a user content that is neither text nor an array, a null item, or a user text block whose
    `text` is not a string (sanitizeSurrogates calls `text.replace`). `user_content_failure` is what the API's
    user-message conversion throws on such a user content; `user_text_by_length`: the conversion first keeps
    only the text parts whose `text.length > 0` (Pi 1.6's Chat Completions), so a `text` that is null or missing
    fails on `length`, and one whose length is not above 0 (a number, `[]`, an object without `length`) is
    dropped, never sanitized."""
    if not isinstance(messages, list):
        return None
    for message in messages:
        if type(message) is dict and message.get("role") == "assistant":
            content = message.get("content")
            if content is not None and type(content) is not list:
                return ASSISTANT_CONTENT
    for message in messages:
        if type(message) is not dict or message.get("role") not in _ROLES:
            continue
        role, content = message["role"], message.get("content")
        if role == "user" and content is not None and type(content) is not list and type(content) is not str:
            return user_content_failure
        if type(content) is not list:
            continue
        for block in content:
            if block is None:
                return NULL_ITEM
            if role == "user" and type(block) is dict and block.get("type") == "text":
                text = block.get("text", _MISSING)
                if type(text) is not str and user_text_by_length:
                    if text is None or text is _MISSING:
                        return f"Cannot read properties of {'null' if text is None else 'undefined'} (reading 'length')"
                    try:
                        kept = js_length_above_zero(text)
                    except JsTypeError as exc:
                        return str(exc)
                    if kept:
                        return "text.replace is not a function"
                elif type(text) is not str:
                    if text is None or text is _MISSING:
                        return f"Cannot read properties of {'null' if text is None else 'undefined'} (reading 'replace')"
                    return "text.replace is not a function"
    return None


_MISSING = object()


def js_length_above_zero(value: Any) -> bool:
    """JavaScript's `value.length > 0` for a JSON value other than null: an array's length; an object's own
    `length` member compared as JavaScript compares it with 0; a number's or a boolean's `length` is undefined,
    and `undefined > 0` is false."""
    if isinstance(value, list):
        return len(value) > 0
    if isinstance(value, dict) and "length" in value:
        return js_to_number(value["length"]) > 0  # (NaN > 0 is false)
    return False

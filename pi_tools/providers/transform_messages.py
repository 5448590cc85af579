"""pi-ai's cross-provider normalisation of a transcript, run by every adapter before it converts messages.

Replaying a conversation to a different model is only valid once foreign thinking, signatures and tool-call ids
are made acceptable to the target, failed turns are removed and unanswered tool calls get a result; the exact
shape of that rewrite (including synthetic results and their placement) is visible in every payload.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pi_tools.js.access import array_receiver, block_field, for_of
from pi_tools.js.strings import js_is_blank
from pi_tools.js.values import UNDEFINED, js_map_key, js_to_string, js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import PayloadError

Message = dict[str, Any]
ToolCallIdNormalizer = Callable[[str, Model, Message], str]

USER_IMAGE_PLACEHOLDER = "(image omitted: model does not support images)"
TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: model does not support images)"
MISSING_RESULT_TEXT = "No result provided"


@dataclass(frozen=True)
class TransformRules:
    """What one Pi version's transformMessages does differently (the request edition's choice)."""

    drops_foreign_thinking: bool
    """Pi 1.6 drops thinking from another model; 0.85 sends its text as a text block."""
    holds_system_messages: bool
    """Pi 1.6 passes system messages through, holding one that falls between a tool call and its results until
    after the results (synthetic ones included); 0.85 never sees one (convertToLlm dropped them)."""


TRANSFORM_085 = TransformRules(drops_foreign_thinking=False, holds_system_messages=False)
TRANSFORM_16 = TransformRules(drops_foreign_thinking=True, holds_system_messages=True)


def _current_time_ms() -> int:
    return time.time_ns() // 1_000_000


def _replace_images(content: Any, placeholder: str) -> list[Any]:
    """One placeholder text per run of images; an image right after an identical placeholder adds nothing.

    Tool results stored with string content are walked character by character, as the reference's ``for...of``
    does, so a text-only model receives them as a list of one-character strings.
    """
    if type(content) is list and all(type(block) is dict and block.get("type") != "image" for block in content):
        return list(content)  # no image (nearly every message): the loop below would copy every block
    result: list[Any] = []
    previous_was_placeholder = False
    for block in for_of(content, "content"):
        if block_field(block, "type") == "image":
            if not previous_was_placeholder:
                result.append({"type": "text", "text": placeholder})
            previous_was_placeholder = True
            continue
        result.append(block)
        previous_was_placeholder = block_field(block, "text") == placeholder
    return result


def _prepare(message: Message, text_only: bool) -> Message:
    """Give null content an empty list and, for text-only models, swap images for placeholders."""
    content = message.get("content")
    if content is None:
        message = {**message, "content": []}
        content = message["content"]
    if text_only:
        role = message.get("role")
        if role == "user" and isinstance(content, list):
            return {**message, "content": _replace_images(content, USER_IMAGE_PLACEHOLDER)}
        if role == "toolResult":
            return {**message, "content": _replace_images(content, TOOL_IMAGE_PLACEHOLDER)}
    return message


def _model_identity(model: Model) -> tuple[Any, Any, Any]:
    return model.get("provider"), model.get("api"), model.get("id")


def _is_same_model(message: Mapping[str, Any], identity: tuple[Any, Any, Any]) -> bool:
    return (message.get("provider"), message.get("api"), message.get("model")) == identity


def _rewrite_assistant(
    message: Message,
    model: Model,
    identity: tuple[Any, Any, Any],
    normalize_tool_call_id: ToolCallIdNormalizer | None,
    id_map: dict[str, str],
    calls: list[Any],
    drops_foreign_thinking: bool = False,
) -> Message:
    """The assistant message as the target model may see it; its tool calls (as rewritten) go to `calls`."""
    same_model = _is_same_model(message, identity)
    blocks: list[Any] = []
    for block in message["content"]:
        kind = block.get("type")
        if kind == "thinking":
            if drops_foreign_thinking and not same_model:
                continue
            redacted = block.get("redacted")
            if redacted is not None and js_truthy(redacted):
                if same_model:
                    blocks.append(block)
                continue
            if same_model and js_truthy(block.get("thinkingSignature")):
                blocks.append(block)
                continue
            thinking = block.get("thinking")
            if type(thinking) is not str:
                if not js_truthy(thinking):
                    continue
                raise PayloadError("block.thinking.trim is not a function")
            if js_is_blank(thinking):  # the empty string included
                continue
            blocks.append(block if same_model else {"type": "text", "text": thinking})
        elif kind == "text":
            # A missing text stays missing (undefined): readers then say "undefined", not "null".
            if same_model:
                blocks.append(block)
            else:
                blocks.append({"type": "text", "text": block["text"]} if "text" in block else {"type": "text"})
        elif kind == "toolCall":
            call = block
            if not same_model and block.get("thoughtSignature"):
                call = {key: value for key, value in block.items() if key != "thoughtSignature"}
            if not same_model and normalize_tool_call_id is not None:
                original_id = block.get("id", UNDEFINED)  # a missing id is undefined to the normaliser
                new_id = normalize_tool_call_id(original_id, model, message)
                if new_id != original_id:
                    id_map[_key(original_id)] = new_id
                    call = {**call, "id": new_id}
            blocks.append(call)
            calls.append(call)
        else:
            blocks.append(block)
    return {**message, "content": blocks}


def _synthetic_result(call: Mapping[str, Any], now_ms: Callable[[], int]) -> Message:
    return {
        "role": "toolResult",
        "toolCallId": call.get("id", UNDEFINED),  # a call without an id: undefined, left out of the JSON
        "toolName": call.get("name", UNDEFINED),
        "content": [{"type": "text", "text": MISSING_RESULT_TEXT}],
        "isError": True,
        "timestamp": now_ms(),
    }


def _key(value: Any) -> Any:
    """A tool-call id as pi-ai's Map and Set hold it (SameValueZero: true is not 1, an object only itself);
    string ids, all real ones, are themselves, so id_map stays keyed by them."""
    return value if type(value) is str else js_map_key(value)


def transform_messages(
    messages: Sequence[Message],
    model: Model,
    normalize_tool_call_id: ToolCallIdNormalizer | None = None,
    *,
    now_ms: Callable[[], int] | None = None,
    id_map: dict[str, str] | None = None,
    synthetic: list[int] | None = None,
    rules: TransformRules = TRANSFORM_085,
) -> list[Message]:
    """Rewrite ``messages`` for ``model`` as pi-ai's ``transformMessages`` does; the input is never mutated.

    ``normalize_tool_call_id(id, model, source_assistant)`` is applied to tool calls from other models only;
    ``now_ms`` stamps synthetic tool results (defaults to the wall clock, injectable for reproducible output).
    ``id_map``, when given, receives the renamed tool-call ids (original -> new): a caller that transforms a
    conversation in two parts needs to know which later tool results the first part would have renamed.
    ``synthetic``, when given, receives the positions in the result of the synthetic results (a caller that
    traces each output back to its input, preflight's payload mapping, needs to tell them apart).
    ``rules``: the Pi version's differences (TRANSFORM_085, TRANSFORM_16).
    """
    clock = now_ms or _current_time_ms
    text_only = "image" not in (model.get("input") or ())
    if id_map is None:
        id_map = {}

    # One pass does both of pi-ai's passes: rewriting a message only depends on earlier messages.
    result: list[Message] = []
    pending_calls: list[Mapping[str, Any]] = []
    answered_ids: set[Any] = set()
    held: list[Message] = []
    holds_system = rules.holds_system_messages
    drops_foreign_thinking = rules.drops_foreign_thinking

    def flush() -> None:
        nonlocal pending_calls, answered_ids
        if not pending_calls:
            return
        for call in pending_calls:
            if _key(call.get("id")) not in answered_ids:
                if synthetic is not None:
                    synthetic.append(len(result))
                result.append(_synthetic_result(call, clock))
        pending_calls = []
        answered_ids = set()
        if held:
            result.extend(held)
            held.clear()

    identity = _model_identity(model)
    append = result.append
    if text_only:
        # pi-ai swaps images for placeholders in a pass over every message before it rewrites any: a content it
        # cannot walk there fails the request before an earlier message's tool-call id is read.
        messages = [_prepare(original, True) for original in messages]
    for original in messages:
        # _prepare changes nothing for a message with content when the model takes images (the common case).
        message = original if text_only or original.get("content") is not None else _prepare(original, False)
        role = message.get("role")
        if role == "assistant":
            calls: list[Any] = []
            message = _rewrite_assistant(message, model, identity, normalize_tool_call_id, id_map, calls,
                                         drops_foreign_thinking)
            if pending_calls:
                flush()
            if message.get("stopReason") in ("error", "aborted"):
                continue
            if calls:
                pending_calls = calls
                answered_ids = set()
            append(message)
        elif role == "toolResult":
            call_id = message.get("toolCallId")
            key = call_id if type(call_id) is str else js_map_key(call_id)  # _key, inline: once per result
            if id_map:
                mapped = id_map.get(key)
                if mapped and mapped != call_id:
                    message = {**message, "toolCallId": mapped}
                    key = mapped if type(mapped) is str else js_map_key(mapped)
            answered_ids.add(key)
            append(message)
        elif role == "user":
            if pending_calls:
                flush()
            append(message)
        elif role == "system" and holds_system and pending_calls:
            held.append(message)
        else:
            append(message)
    flush()
    return result


ERROR_TOOL_IMAGE_PLACEHOLDER = "(image attached after the tool results)"


def split_error_tool_result_images(message: Mapping[str, Any]) -> tuple[list[Any], str, list[Any]] | None:
    """Pi 1.6 (splitErrorToolResultImages): for APIs that refuse images in an error tool result (Anthropic,
    Claude on Bedrock), the result's content with each run of images replaced by a note, the caption naming the
    call, and the images to send after every tool result of the turn; None when the result needs no split."""
    if not js_truthy(message.get("isError")):
        return None
    content = array_receiver(message.get("content", UNDEFINED), "msg.content", "filter")
    images = [block for block in content if block_field(block, "type") == "image"]
    if not images:
        return None
    caption = (f"Images from the error result of tool call {_js_text(message.get('toolCallId', UNDEFINED))} "
               f"({_js_text(message.get('toolName', UNDEFINED))}):")
    return _replace_images(content, ERROR_TOOL_IMAGE_PLACEHOLDER), caption, images


def _js_text(value: Any) -> str:
    """A value as a JavaScript template literal writes it."""
    return js_to_string(value)

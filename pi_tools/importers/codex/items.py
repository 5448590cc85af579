"""Codex response items as the content blocks Pi stores: user input, assistant text, reasoning, tool calls and
tool outputs.

Pi keeps an OpenAI reasoning item whole, as the JSON text of the item, in the thinking block's
`thinkingSignature` (and sends it back as an input item when the next request goes to the same provider and API).
Codex records the same item (`summary`, `content`, `encrypted_content`; Codex never writes its `id`), so the
signature is the item as recorded; an item without `encrypted_content` cannot be replayed without the server's
stored copy, so it becomes thinking without a signature (Pi then sends nothing for it, as for any unsigned
thinking).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson

CONTEXT_PREFIXES = ("<environment_context>", "<user_instructions>", "# agents.md instructions for", "<skill>",
                    "<context_update>", "<permissions instructions>", "<collaboration_mode>")
"""User-role texts Codex writes itself to describe the session (environment, AGENTS.md and skill instructions):
the Pi agent gives its model its own, so they are kept as custom entries the model does not see (compared
lowercased, after leading white space, as Codex does)."""


def text_of(content: Any) -> str:
    """The texts of a message's content items, joined with line breaks."""
    if not isinstance(content, list):
        return content if isinstance(content, str) else ""
    return "\n".join(part["text"] for part in content
                     if isinstance(part, dict) and isinstance(part.get("text"), str))


def is_context_message(content: Any) -> bool:
    """Whether a user-role message is Codex's own context rather than something the user typed."""
    text = text_of(content).lstrip().lower()
    return text.startswith(CONTEXT_PREFIXES)


def image_block(url: Any) -> dict[str, Any] | None:
    """A Pi image block from a `data:` URL (Codex inlines every image it sends); None for anything else."""
    if not isinstance(url, str) or not url.startswith("data:"):
        return None
    head, sep, data = url[5:].partition(",")
    mime, _, encoding = head.partition(";")
    if not sep or encoding != "base64" or not mime.startswith("image/"):
        return None
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return {"type": "image", "data": data, "mimeType": mime}


def input_blocks(content: Any) -> tuple[list[dict[str, Any]], int]:
    """Pi text and image blocks of user input (or tool output) items, and how many items could not be kept."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}], 0
    blocks: list[dict[str, Any]] = []
    lost = 0
    for part in content if isinstance(content, list) else []:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
            blocks.append({"type": "text", "text": part["text"]})
        elif kind in ("input_image", "image"):
            image = image_block(part.get("image_url"))
            if image is None:
                lost += 1
            else:
                blocks.append(image)
        else:
            lost += 1
    return blocks, lost


def text_block(item: dict[str, Any]) -> dict[str, Any]:
    """An assistant message item as one Pi text block; an item id (the TypeScript CLI's) becomes Pi's text
    signature, as Pi's Responses providers store it."""
    text = "".join(part.get("text") or part.get("refusal") or "" for part in item.get("content") or []
                   if isinstance(part, dict) and part.get("type") in ("output_text", "refusal"))
    block: dict[str, Any] = {"type": "text", "text": text}
    if isinstance(item.get("id"), str) and item["id"]:
        signature: dict[str, Any] = {"v": 1, "id": item["id"]}
        if item.get("phase") in ("commentary", "final_answer"):
            signature["phase"] = item["phase"]
        block["textSignature"] = orjson.dumps(signature).decode()
    return block


def thinking_block(item: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """A reasoning item as Pi's thinking block, and whether it carries a signature Pi can send back."""
    summary = "\n\n".join(part["text"] for part in item.get("summary") or []
                          if isinstance(part, dict) and isinstance(part.get("text"), str))
    content = "\n\n".join(part["text"] for part in item.get("content") or []
                          if isinstance(part, dict) and isinstance(part.get("text"), str))
    block: dict[str, Any] = {"type": "thinking", "thinking": summary or content}
    encrypted = item.get("encrypted_content")
    signed = isinstance(encrypted, str) and bool(encrypted)
    if signed:
        block["thinkingSignature"] = orjson.dumps(item).decode()
    return block, signed


def tool_call_id(item: dict[str, Any]) -> str | None:
    """Pi's tool call id: the call id, with the item id after a `|` when the rollout kept it (Pi's form)."""
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not call_id:
        call_id = item.get("id") if item.get("type") == "local_shell_call" else None
        if not isinstance(call_id, str) or not call_id:
            return None
    item_id = item.get("id")
    if isinstance(item_id, str) and item_id and item_id != call_id:
        return f"{call_id}|{item_id}"
    return call_id


def tool_call_block(item: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """A function, custom tool or local shell call as Pi's toolCall block, and a note when its arguments were not
    a JSON object (Pi then stores `{}`, as it does for a call whose arguments do not parse)."""
    kind = item["type"]
    problem: str | None = None
    if kind == "function_call":
        name = item.get("name")
        raw = item.get("arguments")
        arguments: Any
        try:
            arguments = orjson.loads(raw) if isinstance(raw, str) else raw
        except orjson.JSONDecodeError:
            arguments = None
        if not isinstance(arguments, dict):
            problem = f"the arguments of call {item.get('call_id')} are not a JSON object ({str(raw)[:80]!r}); stored {{}}"
            arguments = {}
    elif kind == "custom_tool_call":
        # A freeform (grammar) tool such as apply_patch: Pi keeps the raw input under the tool's input property.
        name = item.get("name")
        arguments = {"input": item.get("input") if isinstance(item.get("input"), str) else ""}
    else:  # local_shell_call
        name = "local_shell"
        action = item.get("action")
        arguments = dict(action) if isinstance(action, dict) else {}
    block: dict[str, Any] = {"type": "toolCall", "id": tool_call_id(item) or "", "name": str(name or ""),
                             "arguments": arguments}
    if isinstance(item.get("namespace"), str):
        block["namespace"] = item["namespace"]
    return block, problem


def output_blocks(output: Any) -> tuple[list[dict[str, Any]], bool]:
    """A tool output (a string, content items, or `{content, success}`) as Pi's toolResult content and isError."""
    is_error = False
    if isinstance(output, dict):
        is_error = output.get("success") is False
        output = output.get("content_items") or output.get("content") or ""
    blocks, _lost = input_blocks(output)
    if not blocks:
        blocks = [{"type": "text", "text": ""}]
    return blocks, is_error

"""The offline scripted provider (pi-ai's faux provider): replays assistant messages through the real event
protocol so that runs, tests and demos need no network and no key.

Text is streamed in chunks of 3–5 "tokens" of 4 characters, as Pi's faux provider does; the chunk sizes come
from a seeded generator so that two runs of the same script print the same events. Usage is Pi's estimate
(characters / 4 over a serialisation of the context), with its prompt-cache simulation per session id.
"""

from __future__ import annotations

import math
import random
import secrets
from collections.abc import Callable
from typing import Any

import orjson

from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.strings import js_length
from pi_tools.loop import now_ms
from pi_tools.loop.signals import ABORT_MESSAGE, AbortSignal

FAUX_API = "faux"
FAUX_PROVIDER = "faux"
FAUX_MODEL_ID = "faux-1"

EventSink = Callable[[dict[str, Any]], None]


class FauxScriptError(ValueError):
    """The script file is not a ``{"responses": [...]}`` document of Pi content blocks."""


def faux_model(model_id: str = FAUX_MODEL_ID) -> dict[str, Any]:
    """The model the faux provider registers (cost zero, no reasoning, text and images)."""
    return {
        "id": model_id,
        "name": "Faux Model" if model_id == FAUX_MODEL_ID else model_id,
        "api": FAUX_API,
        "provider": FAUX_PROVIDER,
        "baseUrl": "http://localhost:0",
        "reasoning": False,
        "input": ["text", "image"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 16384,
    }


def _zero_usage() -> dict[str, Any]:
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def _random_id(prefix: str) -> str:
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
    return f"{prefix}:{now_ms()}:{''.join(secrets.choice(alphabet) for _ in range(11))}"


def _check_block(block: Any, where: str) -> dict[str, Any]:
    if not isinstance(block, dict):
        raise FauxScriptError(f"{where}: a content block must be an object")
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return dict(block)
    if kind == "thinking" and isinstance(block.get("thinking"), str):
        return dict(block)
    if kind == "toolCall" and isinstance(block.get("name"), str):
        arguments = block.get("arguments", {})
        if not isinstance(arguments, dict):
            raise FauxScriptError(f"{where}: toolCall arguments must be an object")
        call_id = block.get("id")
        return {
            "type": "toolCall",
            "id": call_id if isinstance(call_id, str) and call_id else _random_id("tool"),
            "name": block["name"],
            "arguments": arguments,
        }
    raise FauxScriptError(f"{where}: expected a text, thinking or toolCall block, got {orjson.dumps(block).decode()}")


def load_faux_script(path: str) -> list[dict[str, Any]]:
    """The scripted steps as assistant messages (before the request model is stamped on them)."""
    try:
        with open(path, "rb") as handle:
            document = orjson.loads(handle.read())
    except OSError as exc:
        raise FauxScriptError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise FauxScriptError(f"{path}: not JSON: {exc}") from None
    responses = document.get("responses") if isinstance(document, dict) else None
    if not isinstance(responses, list):
        raise FauxScriptError(f'{path}: expected {{"responses": [...]}}')
    steps: list[dict[str, Any]] = []
    for number, response in enumerate(responses, 1):
        where = f"{path}: response {number}"
        if not isinstance(response, dict):
            raise FauxScriptError(f"{where}: must be an object")
        content = response.get("content", [])
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        elif isinstance(content, dict):
            content = [content]
        if not isinstance(content, list):
            raise FauxScriptError(f"{where}: content must be a list of blocks")
        blocks = [_check_block(block, where) for block in content]
        stop_reason = response.get("stopReason")
        if stop_reason is None:
            stop_reason = "toolUse" if any(block["type"] == "toolCall" for block in blocks) else "stop"
        if stop_reason not in ("stop", "length", "toolUse", "error", "aborted"):
            raise FauxScriptError(f"{where}: unknown stopReason {stop_reason!r}")
        message: dict[str, Any] = {
            "role": "assistant",
            "content": blocks,
            "api": FAUX_API,
            "provider": FAUX_PROVIDER,
            "model": FAUX_MODEL_ID,
            "usage": _zero_usage(),
            "stopReason": stop_reason,
        }
        if isinstance(response.get("errorMessage"), str):
            message["errorMessage"] = response["errorMessage"]
        if isinstance(response.get("responseId"), str):
            message["responseId"] = response["responseId"]
        timestamp = response.get("timestamp")
        message["timestamp"] = timestamp if isinstance(timestamp, int) else None
        steps.append(message)
    return steps


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        else:
            data = block.get("data")
            parts.append(f"[image:{block.get('mimeType')}:{js_length(data) if isinstance(data, str) else 0}]")
    return "\n".join(parts)


def _assistant_text(content: list[Any]) -> str:
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "thinking":
            parts.append(str(block.get("thinking", "")))
        else:
            parts.append(f"{block.get('name')}:{js_stringify(block.get('arguments'))}")
    return "\n".join(parts)


def _message_text(message: dict[str, Any]) -> str:
    role = message.get("role")
    if role == "system":
        from pi_tools.providers.transcript import system_message_text

        parts = [system_message_text(message)]
        parts.extend(f"tool-:{js_stringify(tool)}" for tool in message.get("toolsRemoved") or [])
        parts.extend(f"tool+:{js_stringify(tool)}" for tool in message.get("toolsAdded") or [])
        return "\n".join(part for part in parts if part)
    if role == "user":
        return _content_text(message.get("content"))
    if role == "assistant":
        return _assistant_text(message.get("content") or [])
    lines = [str(message.get("toolName"))]
    lines.extend(_content_text([block]) for block in message.get("content") or [])
    return "\n".join(lines)


def serialize_context(context: dict[str, Any]) -> str:
    """The text the faux provider estimates prompt tokens from."""
    parts: list[str] = []
    if context.get("systemPrompt"):
        parts.append(f"system:{context['systemPrompt']}")
    for message in context.get("messages") or []:
        parts.append(f"{message.get('role')}:{_message_text(message)}")
    if context.get("tools"):
        parts.append(f"tools:{js_stringify(context['tools'])}")
    return "\n\n".join(parts)


def _tokens(text: str) -> int:
    return math.ceil(js_length(text) / 4)


def transcript_prompt(context: dict[str, Any]) -> list[str]:
    """One text per message of a transcript (the faux provider's prompt joins them with blank lines)."""
    return [f"{message.get('role')}:{_message_text(message)}" for message in context.get("messages") or []]


def _joined_length(texts: list[str], count: int | None = None) -> int:
    count = len(texts) if count is None else count
    return (count - 1) * 2 + sum(js_length(text) for text in texts[:count]) if count > 0 else 0


def _common_prefix(left: str, right: str) -> str:
    limit = min(len(left), len(right))
    shared = 0
    while shared < limit and left[shared] == right[shared]:
        shared += 1
    return left[:shared]


def common_prompt_prefix_length(previous: list[str], current: list[str]) -> int:
    """Length of the common prefix of two joined prompts, equal messages compared whole."""
    index = 0
    while index < len(previous) and index < len(current) and previous[index] == current[index]:
        index += 1

    def rest(texts: list[str]) -> str:
        return "" if index == len(texts) else ("\n\n" if index > 0 else "") + "\n\n".join(texts[index:])

    return _joined_length(previous, index) + js_length(_common_prefix(rest(previous), rest(current)))


class FauxProvider:
    """Plays one scripted response per model call; an empty queue answers with Pi's error message."""

    def __init__(self, steps: list[dict[str, Any]], *, seed: int = 0, per_message_estimate: bool = False) -> None:
        self._steps = list(steps)
        self._random = random.Random(seed)
        self._prompt_cache: dict[str, Any] = {}
        self._per_message = per_message_estimate

    def _usage(self, message: dict[str, Any], context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        if self._per_message:
            return self._transcript_usage(message, context, options)
        prompt = serialize_context(context)
        prompt_tokens = _tokens(prompt)
        output = _tokens(_assistant_text(message.get("content") or []))
        input_tokens, cache_read, cache_write = prompt_tokens, 0, 0
        session_id = options.get("sessionId")
        if session_id and options.get("cacheRetention") != "none":
            previous = self._prompt_cache.get(session_id)
            if previous:
                shared = 0
                limit = min(len(previous), len(prompt))
                while shared < limit and previous[shared] == prompt[shared]:
                    shared += 1
                cache_read = _tokens(previous[:shared])
                cache_write = _tokens(prompt[shared:])
                input_tokens = max(0, prompt_tokens - cache_read)
            else:
                cache_write = prompt_tokens
            self._prompt_cache[session_id] = prompt
        usage = _zero_usage()
        usage.update(
            input=input_tokens,
            output=output,
            cacheRead=cache_read,
            cacheWrite=cache_write,
            totalTokens=input_tokens + output + cache_read + cache_write,
        )
        return usage

    def _transcript_usage(self, message: dict[str, Any], context: dict[str, Any],
                          options: dict[str, Any]) -> dict[str, Any]:
        """The estimate over a transcript: per message, every prompt token read from or written to the cache."""
        prompt = transcript_prompt(context)
        prompt_tokens = math.ceil(_joined_length(prompt) / 4)
        output = _tokens(_assistant_text(message.get("content") or []))
        input_tokens, cache_read, cache_write = prompt_tokens, 0, 0
        session_id = options.get("sessionId")
        if session_id and options.get("cacheRetention") != "none":
            previous = self._prompt_cache.get(session_id)
            if previous is not None:
                cache_read = math.ceil(common_prompt_prefix_length(previous, prompt) / 4)
                cache_write = max(0, prompt_tokens - cache_read)
            else:
                cache_write = prompt_tokens
            input_tokens = 0
            self._prompt_cache[session_id] = prompt
        usage = _zero_usage()
        usage.update(input=input_tokens, output=output, cacheRead=cache_read, cacheWrite=cache_write,
                     totalTokens=input_tokens + output + cache_read + cache_write)
        return usage

    def _chunks(self, text: str) -> list[str]:
        chunks: list[str] = []
        index = 0
        while index < len(text):
            size = 4 * self._random.randint(3, 5)
            chunks.append(text[index : index + size])
            index += size
        return chunks or [""]

    def stream(
        self,
        model: dict[str, Any],
        context: dict[str, Any],
        options: dict[str, Any],
        abort: AbortSignal,
        emit: EventSink,
    ) -> dict[str, Any]:
        """Stream the next scripted message to ``emit`` as pi-ai events; returns the settled message."""
        if not self._steps:
            failed: dict[str, Any] = {
                "role": "assistant",
                "content": [],
                "api": model["api"],
                "provider": model["provider"],
                "model": model["id"],
                "usage": _zero_usage(),
                "stopReason": "error",
                "errorMessage": "No more faux responses queued",
                "timestamp": now_ms(),
            }
            failed["usage"] = self._usage(failed, context, options)
            emit({"type": "error", "reason": "error", "error": failed})
            return failed
        step = orjson.loads(orjson.dumps(self._steps.pop(0)))
        step.update(api=model["api"], provider=model["provider"], model=model["id"])
        if step.get("timestamp") is None:
            step["timestamp"] = now_ms()
        step["usage"] = self._usage(step, context, options)
        return self._play(step, abort, emit)

    def _aborted(self, partial: dict[str, Any], emit: EventSink) -> dict[str, Any]:
        aborted = {**partial, "stopReason": "aborted", "errorMessage": ABORT_MESSAGE, "timestamp": now_ms()}
        emit({"type": "error", "reason": "aborted", "error": aborted})
        return aborted

    def _play(self, message: dict[str, Any], abort: AbortSignal, emit: EventSink) -> dict[str, Any]:
        partial: dict[str, Any] = {**message, "content": [], "stopReason": "pending"}
        if abort.aborted:
            return self._aborted(partial, emit)
        emit({"type": "start", "partial": partial})
        for index, block in enumerate(message["content"]):
            if abort.aborted:
                return self._aborted(partial, emit)
            kind = block["type"]
            if kind in ("thinking", "text"):
                field = "thinking" if kind == "thinking" else "text"
                partial["content"].append({"type": kind, field: ""})
                emit({"type": f"{kind}_start", "contentIndex": index, "partial": partial})
                for chunk in self._chunks(block[field]):
                    if abort.aborted:
                        return self._aborted(partial, emit)
                    partial["content"][index][field] += chunk
                    emit({"type": f"{kind}_delta", "contentIndex": index, "delta": chunk, "partial": partial})
                emit({"type": f"{kind}_end", "contentIndex": index, "content": block[field], "partial": partial})
                continue
            partial["content"].append({"type": "toolCall", "id": block["id"], "name": block["name"], "arguments": {}})
            emit({"type": "toolcall_start", "contentIndex": index, "partial": partial})
            for chunk in self._chunks(js_stringify(block["arguments"])):
                if abort.aborted:
                    return self._aborted(partial, emit)
                emit({"type": "toolcall_delta", "contentIndex": index, "delta": chunk, "partial": partial})
            partial["content"][index]["arguments"] = block["arguments"]
            emit({"type": "toolcall_end", "contentIndex": index, "toolCall": block, "partial": partial})
        if message["stopReason"] in ("error", "aborted"):
            emit({"type": "error", "reason": message["stopReason"], "error": message})
            return message
        emit({"type": "done", "reason": message["stopReason"], "message": message})
        return message

"""The AssistantMessage a decoder builds, the events it pushes, and how a stream settles or fails.

Every adapter starts from the same empty message, pushes events through pi-ai's ``EventStream`` (closed after
``done``/``error``), and fails the same way; what each leaves on content blocks is visible in the goldens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pi_tools.js.json_stringify import clone_json, js_stringify
from pi_tools.js.values import js_truthy
from pi_tools.providers.catalog import Model

#: Keys adapters keep on content blocks while streaming; snapshots never show them.
SCRATCH_KEYS = ("index", "partialJson", "partialArgs", "streamIndex", "customInput", "redactedChunks")

_BLOCK_SNAPSHOT_EVENTS = frozenset({"text_start", "thinking_start", "toolcall_start", "toolcall_delta"})


def new_output(model: Model, now_ms: int, *, after_model: dict[str, Any] | None = None) -> dict[str, Any]:
    """The AssistantMessage every adapter creates before the request: nothing received yet.

    ``after_model`` holds keys some adapters insert right after ``model`` (e.g. Anthropic's
    ``providerThinkingLevel``), kept there because key order shows in serialised sessions.
    """
    output: dict[str, Any] = {
        "role": "assistant",
        "content": [],
        "api": model["api"],
        "provider": model["provider"],
        "model": model["id"],
    }
    if after_model:
        output.update(after_model)
    output["usage"] = zero_usage()
    output["stopReason"] = "pending"
    output["timestamp"] = now_ms
    return output


def zero_usage() -> dict[str, Any]:
    """Usage before any token count arrived."""
    return {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": zero_cost()}


def _without_scratch(block: Any) -> Any:
    if not isinstance(block, dict):
        return clone_json(block)
    return {key: clone_json(item) for key, item in block.items() if key not in SCRATCH_KEYS}


def snapshot_event(event: dict[str, Any]) -> dict[str, Any]:
    """The golden form of an event at the moment it is pushed.

    The live ``partial`` keeps changing after the push, so it is dropped, except that ``start`` keeps it (the
    initial message) and block starts / tool-call deltas keep the affected block as ``partialBlock``.
    """
    kind = event.get("type")
    snapshot: dict[str, Any] = {}
    for key, value in event.items():
        if key == "partial":
            if kind == "start":
                snapshot["partial"] = clone_json(value)
            continue
        snapshot[key] = clone_json(value)
    if kind in _BLOCK_SNAPSHOT_EVENTS:
        partial = event.get("partial")
        index = event.get("contentIndex")
        if isinstance(partial, dict) and isinstance(index, int):
            content = partial.get("content") or []
            if 0 <= index < len(content):
                snapshot["partialBlock"] = _without_scratch(content[index])
    return snapshot


class EventEmitter:
    """Records pushed events as snapshots, with pi-ai ``EventStream`` semantics.

    Once ``done`` or ``error`` has been pushed the stream is closed and later pushes are ignored, just as Pi's
    consumers never see them.
    """

    def __init__(self, on_event: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.events: list[dict[str, Any]] = []
        self.closed = False
        self._on_event = on_event

    def emit(self, event: dict[str, Any]) -> None:
        if self.closed:
            return
        if event.get("type") in ("done", "error"):
            self.closed = True
        self._deliver(event)

    def _deliver(self, event: dict[str, Any]) -> None:
        """What becomes of an event the stream takes: a snapshot recorded (and handed to `on_event`)."""
        snapshot = snapshot_event(event)
        self.events.append(snapshot)
        if self._on_event is not None:
            self._on_event(snapshot)


def fail_output(
    output: dict[str, Any],
    emitter: EventEmitter,
    message: str,
    *,
    aborted: bool = False,
    scratch_keys: Iterable[str] = ("index", "partialJson"),
) -> dict[str, Any]:
    """Pi's common failure path: scratch keys go, ``stopReason`` becomes error/aborted, an error event is pushed.

    ``scratch_keys`` differs per adapter (each deletes only the keys it knows), and what it leaves behind is
    visible in the settled message.
    """
    keys = tuple(scratch_keys)
    for block in output["content"]:
        if isinstance(block, dict):
            for key in keys:
                block.pop(key, None)
    output["stopReason"] = "aborted" if aborted else "error"
    output["errorMessage"] = message
    emitter.emit({"type": "error", "reason": output["stopReason"], "error": output})
    return output


class PiError(Exception):
    """An ``Error`` the adapter throws with its own text (``errorMessage`` is exactly this message)."""


def grammar_input_json_delta(buffer: dict[str, Any], prop: str, next_input: str, close: bool) -> str | None:
    """pi-ai ``appendGrammarToolInputJsonDelta``: free-form tool input re-expressed as JSON argument text.

    ``buffer`` is ``{"input": str, "started": bool, "closed": bool}`` and is updated in place; the returned
    piece (``None`` when there is nothing to emit) is what the ``toolcall_delta`` event carries.
    """
    if buffer["closed"]:
        if close and next_input == buffer["input"]:
            return None
        raise PiError(f'grammar tool input for property "{prop}" changed after it was closed')
    if not next_input.startswith(buffer["input"]):
        raise PiError(f'grammar tool input for property "{prop}" changed non-monotonically')
    addition = next_input[len(buffer["input"]) :]
    if not close and not addition:
        return None
    delta = ""
    if not buffer["started"]:
        delta += "{" + js_stringify(prop) + ':"'
        buffer["started"] = True
    delta += js_stringify(addition)[1:-1]
    buffer["input"] = next_input
    if close:
        delta += '"}'
        buffer["closed"] = True
    return delta


def zero_cost() -> dict[str, Any]:
    """Cost before ``calculate_cost`` prices the usage."""
    return {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}


def counted_usage(
    *, input_tokens: Any, output_tokens: Any, cache_read: Any, cache_write: Any, reasoning: Any, total: Any
) -> dict[str, Any]:
    """A usage record that replaces the running one, in pi-ai's key order (which shows in saved sessions).

    The cost is zero until the caller prices it with ``calculate_cost``; adapters price with different models
    and multipliers.
    """
    return {
        "input": input_tokens,
        "output": output_tokens,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "reasoning": reasoning,
        "totalTokens": total,
        "cost": zero_cost(),
    }


def record_response_id(output: dict[str, Any], chunk: dict[str, Any]) -> None:
    """Chat-completions style ids: each chunk's ``id`` (or its absence) counts until one is truthy."""
    if not js_truthy(output.get("responseId")):
        if "id" in chunk:
            output["responseId"] = chunk["id"]
        else:
            output.pop("responseId", None)


def record_stop_reason(
    output: dict[str, Any], raw: Any, map_reason: Callable[[Any], tuple[str, str | None]]
) -> None:
    """Keep the provider's own reason, then Pi's mapping of it and the error text the mapping implies.

    The raw reason is stored first: when the mapping throws (an unknown reason), the failed message keeps it.
    """
    output["rawStopReason"] = raw
    stop_reason, message = map_reason(raw)
    output["stopReason"] = stop_reason
    if message:
        output["errorMessage"] = message


def raise_unless_settled(output: dict[str, Any], ended_without: str, stopped: str | None = None) -> None:
    """The checks Pi's adapters make when the body is exhausted, before pushing ``done``.

    A stream that never named a stop reason fails with ``ended_without``; one the provider stopped with an
    error (or that was aborted) fails with ``stopped``, by default the ``errorMessage`` already recorded.
    """
    stop_reason = output["stopReason"]
    if stop_reason == "pending":
        raise PiError(ended_without)
    if stop_reason in ("error", "aborted"):
        raise PiError(
            stopped if stopped is not None else output.get("errorMessage") or "An unknown error occurred"
        )


def emit_done(output: dict[str, Any], emitter: EventEmitter) -> None:
    """Push the terminal ``done`` event for a settled message."""
    emitter.emit({"type": "done", "reason": output["stopReason"], "message": output})


class SequentialBlocks:
    """Content where only the newest text or thinking block can still grow (Google's and Mistral's shape).

    Deltas of the open block are buffered and joined only when the block can be observed (its end, a terminal
    event): appending to a growing ``str`` stored in a dict would copy it on every delta.
    """

    def __init__(self, output: dict[str, Any], emitter: EventEmitter) -> None:
        self.output = output
        self.emitter = emitter
        self.current: dict[str, Any] | None = None
        self.pieces: list[str] = []

    def emit(self, event: dict[str, Any]) -> None:
        event["partial"] = self.output
        self.emitter.emit(event)

    def last_index(self) -> int:
        return len(self.output["content"]) - 1

    def flush_text(self) -> None:
        """Write the open block's buffered deltas into it."""
        block = self.current
        if block is not None and self.pieces:
            block[block["type"]] += "".join(self.pieces)
            self.pieces.clear()

    def close_current(self) -> None:
        """Push the end event of the open block (it stays ``current`` until the caller replaces it)."""
        block = self.current
        if block is None:
            return
        self.flush_text()
        if block["type"] == "text":
            self.emit({"type": "text_end", "contentIndex": self.last_index(), "content": block["text"]})
        else:
            self.emit(
                {"type": "thinking_end", "contentIndex": self.last_index(), "content": block["thinking"]}
            )

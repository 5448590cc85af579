"""One import point for the machinery the stream decoders share (the pieces live in focused modules).

Every stream decoder (``pi_tools/providers/<api_module>/stream.py``) is built from these pieces so that the
behaviours Pi's retry and compaction logic depends on (exact error texts, where a stream is cut, which scratch
keys leak) are reproduced the same way for all APIs.

Decoder contract (what ``decode.py`` calls)::

    def decode(model: Model, *, status: int, headers: dict[str, str], chunks: Iterable[bytes],
               options: dict, now_ms: int, emitter: EventEmitter) -> dict   # the settled AssistantMessage

``chunks`` yields the body as the HTTP client would deliver it; when the connection is cut it raises
:class:`TransportError` after the last byte. ``emitter.emit(event)`` records an event the way the goldens
snapshot it (see :func:`snapshot_event`).

Where things live:

- :mod:`~pi_tools.providers.sse`: transport and SSE framing (:class:`TransportError`, :class:`SdkSseDecoder`,
  :class:`LineSseDecoder`, :func:`iter_openai_sdk_stream`, :func:`read_body_text`, :data:`NULL_BODY_STATUSES`).
- :mod:`~pi_tools.js.json_parse`: ``JSON.parse`` with V8's error texts; :mod:`~pi_tools.providers.json_repair`: pi-ai's ``repairJson``.
- :mod:`~pi_tools.providers.partial_json`: ``partial-json`` and pi-ai ``parseStreamingJson``.
- :mod:`~pi_tools.js.access` and :mod:`~pi_tools.js.values`: JS value semantics for untrusted event shapes (:data:`ABSENT` etc.).
- :mod:`~pi_tools.providers.stream_message`: the output message, event snapshots, settling and failing.
- :mod:`~pi_tools.providers.provider_errors`: SDK status errors and pi-ai ``formatProviderError``.
"""

from __future__ import annotations

from pi_tools.js.access import ABSENT, assign_or_drop, js_field, js_member, js_prop
from pi_tools.js.errors import JsJsonError, JsTypeError
from pi_tools.js.json_parse import js_json_parse, v8_json_error_message
from pi_tools.js.values import js_map_key, js_strict_equal, js_to_string, js_truthy
from pi_tools.providers.json_repair import parse_json_with_repair, repair_json
from pi_tools.providers.partial_json import parse_streaming_json, partial_json_parse
from pi_tools.providers.provider_errors import (
    MAX_PROVIDER_ERROR_BODY_CHARS,
    SdkApiError,
    error_text,
    format_provider_error,
    openai_status_error,
    stainless_status_error,
    truncate_error_text,
)
from pi_tools.providers.sse import (
    NULL_BODY_STATUSES,
    LineSseDecoder,
    SdkSseDecoder,
    SseEvent,
    TransportError,
    iter_openai_sdk_stream,
    read_body_text,
)
from pi_tools.providers.stream_message import (
    SCRATCH_KEYS,
    EventEmitter,
    PiError,
    clone_json,
    fail_output,
    grammar_input_json_delta,
    new_output,
    snapshot_event,
    zero_usage,
)

__all__ = [
    "ABSENT",
    "MAX_PROVIDER_ERROR_BODY_CHARS",
    "NULL_BODY_STATUSES",
    "SCRATCH_KEYS",
    "EventEmitter",
    "JsJsonError",
    "JsTypeError",
    "LineSseDecoder",
    "PiError",
    "SdkApiError",
    "SdkSseDecoder",
    "SseEvent",
    "TransportError",
    "assign_or_drop",
    "clone_json",
    "error_text",
    "fail_output",
    "format_provider_error",
    "grammar_input_json_delta",
    "iter_openai_sdk_stream",
    "js_field",
    "js_json_parse",
    "js_map_key",
    "js_member",
    "js_prop",
    "js_strict_equal",
    "js_to_string",
    "js_truthy",
    "new_output",
    "openai_status_error",
    "parse_json_with_repair",
    "parse_streaming_json",
    "partial_json_parse",
    "read_body_text",
    "repair_json",
    "snapshot_event",
    "stainless_status_error",
    "truncate_error_text",
    "v8_json_error_message",
    "zero_usage",
]

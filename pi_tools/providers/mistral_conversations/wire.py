"""The HTTP request pi-ai's Mistral adapter sends itself with ``fetch`` (no SDK involved).

pi-ai keeps the payload in the camelCase shape of Mistral's TypeScript SDK types, then renames fields to the
snake_case wire names just before ``JSON.stringify``; a renamed key moves to the end of its object, which is
visible in the body's key order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from pi_tools.js.values import js_to_string
from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import require_api_key
from pi_tools.providers.mistral_conversations.payload import uses_prompt_caching
from pi_tools.providers.openai_responses.wire import caller_headers, sorted_headers, whatwg_href

PI_USER_AGENT = "pi (<platform> <os-release>; <arch>)"
"""pi-ai's ``getPiUserAgent()`` with the machine-specific parts as the goldens' placeholders."""

DEFAULT_BASE_URL = "https://api.mistral.ai"
CHAT_COMPLETIONS_PATH = "v1/chat/completions"

PAYLOAD_RENAMES = (
    ("topP", "top_p"),
    ("maxTokens", "max_tokens"),
    ("randomSeed", "random_seed"),
    ("responseFormat", "response_format"),
    ("toolChoice", "tool_choice"),
    ("presencePenalty", "presence_penalty"),
    ("frequencyPenalty", "frequency_penalty"),
    ("parallelToolCalls", "parallel_tool_calls"),
    ("reasoningEffort", "reasoning_effort"),
    ("promptMode", "prompt_mode"),
    ("promptCacheKey", "prompt_cache_key"),
    ("safePrompt", "safe_prompt"),
)
"""Top-level renames, in the order pi-ai applies them (which is the order they end up in)."""

MESSAGE_RENAMES = (("toolCalls", "tool_calls"), ("toolCallId", "tool_call_id"))
CHUNK_RENAMES = (
    ("imageUrl", "image_url"),
    ("documentUrl", "document_url"),
    ("documentName", "document_name"),
    ("fileId", "file_id"),
    ("referenceIds", "reference_ids"),
    ("inputAudio", "input_audio"),
)


def _renamed(record: Mapping[str, Any], renames: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """A copy with camelCase keys replaced by wire names; a new wire key lands at the end of the object."""
    result = dict(record)
    for source, target in renames:
        if source in result:
            result[target] = result[source]
            del result[source]
    return result


def _wire_message(message: Any) -> Any:
    if not isinstance(message, dict):
        return message
    wire = _renamed(message, MESSAGE_RENAMES)
    content = message.get("content")
    if isinstance(content, list):
        wire["content"] = [
            _renamed(chunk, CHUNK_RENAMES) if isinstance(chunk, dict) else chunk for chunk in content
        ]
    return wire


def wire_body(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON body pi-ai sends for a (camelCase) payload."""
    body = _renamed(payload, PAYLOAD_RENAMES)
    body["messages"] = [_wire_message(message) for message in payload.get("messages") or []]
    response_format = body.get("response_format")
    if isinstance(response_format, dict):
        wire_format = _renamed(response_format, (("jsonSchema", "json_schema"),))
        json_schema = wire_format.get("json_schema")
        if isinstance(json_schema, dict):
            wire_format["json_schema"] = _renamed(json_schema, (("schemaDefinition", "schema"),))
        body["response_format"] = wire_format
    return body


def request_url(model: Model) -> str:
    """``new URL("v1/chat/completions", base + "/")``: the base path is kept, its query and fragment are not."""
    parts = urlsplit(whatwg_href(str(model.get("baseUrl") or DEFAULT_BASE_URL)))
    path = parts.path.rstrip("/") + "/"
    return whatwg_href(f"{parts.scheme}://{parts.netloc}{path}{CHAT_COMPLETIONS_PATH}")


def _apply_overrides(headers: dict[str, str], overrides: Mapping[str, Any] | None) -> None:
    for name, value in (overrides or {}).items():
        if value is None:
            headers.pop(name.lower(), None)
        else:
            headers[name.lower()] = js_to_string(value)


def _names(overrides: Mapping[str, Any] | None) -> set[str]:
    return {name.lower() for name in overrides or {}}


def build_wire(
    model: Model,
    payload: dict[str, Any],
    options: dict[str, Any],
    context: Mapping[str, Any] | None = None,
    *,
    coding_agent_headers: bool = True,
) -> dict[str, Any]:
    """``{method, url, headers, body}`` of the request; secrets redacted, header names lowercased and sorted.

    ``context`` is accepted for symmetry with the other APIs (Mistral's headers do not depend on it);
    ``coding_agent_headers=False`` leaves out the attribution headers Pi's coding agent adds.
    """
    api_key = require_api_key(model, options)
    headers = {
        "user-agent": PI_USER_AGENT,
        "accept": "text/event-stream",
        "authorization": f"Bearer {api_key}",
        "content-type": "application/json",
    }
    _apply_overrides(headers, model.get("headers"))
    request_headers = caller_headers(model, options, coding_agent_headers)
    _apply_overrides(headers, request_headers)
    explicit_affinity = "x-affinity" in _names(model.get("headers")) | _names(request_headers)
    if uses_prompt_caching(options) and not explicit_affinity:
        headers["x-affinity"] = str(options["sessionId"])
    return {
        "method": "POST",
        "url": request_url(model),
        "headers": sorted_headers(headers),
        "body": wire_body(payload),
    }

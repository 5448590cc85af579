"""The HTTP request pi-ai 1.6's ``pi-messages`` adapter sends with ``fetch`` (no SDK involved).

One POST of the payload as JSON to ``<baseUrl without trailing slashes>/messages`` (``?debug=1`` when the request
asks the backend for debug metadata). Headers, later sources winning by case-insensitive name (a null value
removes one): the client identity's User-Agent and attribution, then the adapter's own three (bearer key, SSE,
JSON), then the request's headers as pi-ai's model registry assembles them (OpenCode's session header, the
model's configured headers, the caller's). The model's headers reach the request only that way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote_plus, urlsplit, urlunsplit

from pi_tools.js.values import UNDEFINED, js_to_string, js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.identity16 import identity_headers, merge_headers, opencode_session_headers
from pi_tools.providers.openai_responses.wire import sorted_headers, whatwg_href
from pi_tools.providers.pi_messages.payload16 import require_key

_TRAILING_SLASHES = re.compile(r"/+$")


def _form_encode(text: str) -> str:
    """application/x-www-form-urlencoded as URLSearchParams writes it (only ``*-._`` and alphanumerics stay)."""
    return quote_plus(text, safe="*").replace("~", "%7E")


def _form_decode_pairs(query: str) -> list[tuple[str, str]]:
    from urllib.parse import unquote_plus

    pairs: list[tuple[str, str]] = []
    for piece in query.split("&"):
        if not piece:
            continue
        name, _, value = piece.partition("=")
        pairs.append((unquote_plus(name), unquote_plus(value)))
    return pairs


def _with_debug(url: str) -> str:
    """``url.searchParams.set("debug", "1")``: the first ``debug`` pair takes the value, later ones go, else the pair
    is appended; the whole query is then written back form-encoded."""
    parts = urlsplit(url)
    pairs = _form_decode_pairs(parts.query)
    updated: list[tuple[str, str]] = []
    seen = False
    for name, value in pairs:
        if name == "debug":
            if not seen:
                updated.append((name, "1"))
                seen = True
            continue
        updated.append((name, value))
    if not seen:
        updated.append(("debug", "1"))
    query = "&".join(f"{_form_encode(name)}={_form_encode(value)}" for name, value in updated)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def request_url(model: Mapping[str, Any], options: Mapping[str, Any]) -> str:
    """``new URL(`${baseUrl.replace(/\\/+$/u, "")}/messages`)``, with ``debug=1`` set when asked."""
    base = _TRAILING_SLASHES.sub("", js_to_string(model.get("baseUrl", UNDEFINED)))
    url = whatwg_href(f"{base}/messages")
    return _with_debug(url) if js_truthy(options.get("debug", UNDEFINED)) else url


def request_headers(model: Mapping[str, Any], options: Mapping[str, Any]) -> list[Mapping[str, Any] | None]:
    """The sources of the request's headers as the model registry layers them for the adapter: OpenCode's session
    header, the model's headers, then the caller's. pi-ai keeps a null value through that layering, so the sources
    are handed on unmerged: a caller's null still removes one of the adapter's own headers."""
    session_id = options.get("sessionId")
    model_headers, caller = model.get("headers"), options.get("headers")
    return [
        opencode_session_headers(model, session_id if isinstance(session_id, str) else None),
        model_headers if isinstance(model_headers, Mapping) else None,
        caller if isinstance(caller, Mapping) else None,
    ]


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``{method, url, headers, body}`` of the request; the key redacted, header names lowercased and sorted."""
    api_key = require_key(model, options)
    merged = merge_headers(
        identity_headers(model, options),
        {"authorization": f"Bearer {api_key}", "accept": "text/event-stream", "content-type": "application/json"},
        *request_headers(model, options),
    ) or {}
    headers = {name.lower(): js_to_string(value) for name, value in merged.items()}
    return {"method": "POST", "url": request_url(model, options), "headers": sorted_headers(headers), "body": payload}

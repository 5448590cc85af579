"""``JSON.parse`` as payload builders meet it: stored session fields Pi parses while building a request.

Pi replays stored reasoning items by parsing their signature strings; a corrupt one fails the request with V8's
``SyntaxError`` text. The parser itself is the one the stream decoders use (:mod:`pi_tools.providers.json_parse`);
this only adds what differs on the payload side: JS converts a non-string argument with ``String()`` first, and
the failure stops the payload as a :class:`PayloadError`.
"""

from __future__ import annotations

from typing import Any

from pi_tools.providers import json_parse
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.jstext import js_string


def js_json_parse(text: Any) -> Any:
    """``JSON.parse(text)``: the value, or ``PayloadError`` with V8's message for text it rejects."""
    source = text if isinstance(text, str) else js_string(text)
    try:
        return json_parse.js_json_parse(source)
    except json_parse.JsJsonError as error:
        raise PayloadError(str(error)) from None

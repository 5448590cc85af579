"""``JSON.parse`` as payload builders meet it: stored session fields Pi parses while building a request.

Pi replays stored reasoning items by parsing their signature strings; a corrupt one fails the request with V8's
``SyntaxError`` text. The parser itself is the one the stream decoders use (:mod:`pi_tools.js.json_parse`);
this only adds what differs on the payload side: JS converts a non-string argument with ``String()`` first, and
the failure stops the payload as a :class:`PayloadError`.
"""

from __future__ import annotations

from typing import Any

from pi_tools.js import json_parse
from pi_tools.js.errors import JsJsonError
from pi_tools.js.values import js_to_string
from pi_tools.providers.errors import PayloadError


def js_json_parse(text: Any) -> Any:
    """``JSON.parse(text)``: the value, or ``PayloadError`` with V8's message for text it rejects."""
    source = text if isinstance(text, str) else js_to_string(text)
    try:
        return json_parse.js_json_parse(source)
    except JsJsonError as error:
        raise PayloadError(str(error)) from None

"""Read one session line the way Pi's loader does: ``JSON.parse`` of its UTF-8 text, fast when it is ordinary.

orjson handles almost every line; the few it refuses (lone surrogate escapes, numbers beyond double range,
nesting deeper than its limit) take :func:`pi_tools.js.json_parse.parse_js_json`, which accepts exactly what
``JSON.parse`` accepts.
"""

from __future__ import annotations

from typing import Any

import orjson

from pi_tools.js.json_parse import parse_js_json


def loads_line(line: bytes | memoryview) -> Any:
    """orjson first; on refusal the JSON.parse-compatible path (raises JsonSyntaxError or UnicodeDecodeError)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        pass
    return parse_js_json(bytes(line).decode("utf-8"))


def loads_line_lenient(line: bytes | memoryview) -> Any:
    """loads_line, with invalid UTF-8 decoded to U+FFFD as Pi's reader does instead of failing."""
    try:
        return loads_line(line)
    except UnicodeDecodeError:
        return parse_js_json(bytes(line).decode("utf-8", "replace"))

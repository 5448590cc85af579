"""pi-ai's repair of tool-call JSON that models emit slightly wrong (raw newlines, Windows paths).

The repaired text is what Pi parses, so the settled arguments, and any ``SyntaxError`` text, are part of what Pi
produces; the parsing itself is :mod:`pi_tools.js.json_parse`.
"""

from __future__ import annotations

import re
from typing import Any

from pi_tools.js.errors import JsJsonError
from pi_tools.js.json_parse import js_json_loads, js_json_parse, v8_json_error_message

# A string literal as repairJson delimits it: a backslash always pairs with the next character (an invalid
# escape character is never a quote), and an unterminated literal runs to the end of the text.
_STRING_LITERAL = re.compile(r'"([^"\\]*+(?:\\[\s\S][^"\\]*+)*+\\?)("|\Z)')
_NEEDS_REPAIR = re.compile(r"[\\\x00-\x1f]")
_CLEAN_BODY = re.compile(r'[^\\\x00-\x1f]*+(?:\\["\\/bfnrtu][^\\\x00-\x1f]*+)*+')
# Valid content, then a backslash that starts no valid escape (or the end): that backslash gets doubled.
_STRAY_BACKSLASH = re.compile(r'([^\\]*+(?:\\["\\/bfnrtu][^\\]*+)*+)(\\|\Z)')
_CONTROL_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x20)} | {
    0x08: "\\b",
    0x0C: "\\f",
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
}


def _repair_body(body: str) -> str:
    if _CLEAN_BODY.fullmatch(body):
        return body
    return _STRAY_BACKSLASH.sub(_double_stray, body).translate(_CONTROL_ESCAPES)


def _double_stray(match: re.Match[str]) -> str:
    # Matches tile the body from its start, so a backslash here never sits inside a valid escape pair.
    return match.group(1) + ("\\\\" if match.group(2) else "")


def repair_json(text: str) -> str:
    """pi-ai ``repairJson``: escape raw control characters inside strings and double stray backslashes.

    Models often emit Windows paths or literal newlines inside tool-call arguments; this is what makes those
    arguments parse in Pi, so the repaired value is part of the settled message. Runs at regex speed because
    Pi re-parses the whole argument text on every streamed delta.
    """
    if _NEEDS_REPAIR.search(text) is None:
        return text
    out: list[str] = []
    position = 0
    for literal in _STRING_LITERAL.finditer(text):
        body = literal.group(1)
        repaired = _repair_body(body)
        if repaired is body:
            continue
        out.append(text[position : literal.start(1)])
        out.append(repaired)
        position = literal.end(1)
    if not out:
        return text
    out.append(text[position:])
    return "".join(out)


def parse_json_with_repair(text: str) -> Any:
    """pi-ai ``parseJsonWithRepair``: ``JSON.parse``, retried once on the repaired text.

    The error raised is the one for whichever text was parsed last, as in Pi (its message can end up in
    ``errorMessage``).
    """
    try:
        return js_json_loads(text)
    except (ValueError, RecursionError):
        repaired = repair_json(text)
        if repaired != text:
            return js_json_parse(repaired)
        raise JsJsonError(v8_json_error_message(text)) from None

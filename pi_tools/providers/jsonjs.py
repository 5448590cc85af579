"""JavaScript string and JSON semantics that leak into Pi's payloads.

Pi measures text in UTF-16 code units and serialises tool arguments with ``JSON.stringify``; both differ from
Python's defaults (code points, ``json.dumps`` number formatting and surrogate handling), and the differences
change ``max_tokens`` values and argument strings sent to providers. These helpers reproduce the JS results.
"""

from __future__ import annotations

import math
import re
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from pi_tools.messages.jsvalues import JS_WHITESPACE, js_number_to_string

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_PAIR = re.compile("([\ud800-\udbff])([\udc00-\udfff])")
_LONE_SURROGATE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_NON_ID_CHAR = re.compile(r"[^a-zA-Z0-9_-]")
_MAX_ARRAY_INDEX = 2**32 - 2
_MAX_SAFE_INTEGER = 2**53
# What String.prototype.trim removes: ECMAScript WhiteSpace and LineTerminator. Python's str.strip() differs
# (it strips U+001C..U+001F and U+0085, but keeps the BOM U+FEFF).


def js_length(s: Any) -> int:
    """``s.length`` in JavaScript: astral characters count twice, lone surrogates once.

    Malformed sessions put other JSON values where text belongs: an array has a length, an object may carry one,
    and anything else reads as ``undefined``, which turns pi-ai's token arithmetic into NaN (returned here as
    ``float("nan")``). ``None`` gets NaN too; where JS would throw on null, the caller has to check first.
    """
    if isinstance(s, str):
        if s.isascii():
            return len(s)
        return len(s.encode("utf-16-le", "surrogatepass")) // 2
    if isinstance(s, list):
        return len(s)
    length = s.get("length") if isinstance(s, dict) else None
    if isinstance(length, int | float) and not isinstance(length, bool):
        return length  # type: ignore[return-value]
    return math.nan  # type: ignore[return-value]


def js_slice(s: str, start: int, end: int | None = None) -> str:
    """``s.slice(start, end)`` with JS indices (UTF-16 code units); a split astral character leaves a surrogate."""
    if s.isascii():
        return s[start:end]
    units = s.encode("utf-16-le", "surrogatepass")
    length = len(units) // 2
    lo = max(0, length + start) if start < 0 else min(start, length)
    hi = length if end is None else (max(0, length + end) if end < 0 else min(end, length))
    if hi <= lo:
        return ""
    return _join_surrogate_pairs(units[2 * lo : 2 * hi].decode("utf-16-le", "surrogatepass"))


def _underscore_per_code_unit(match: re.Match[str]) -> str:
    return "__" if ord(match.group(0)) > 0xFFFF else "_"


def clone_json(value: Any) -> Any:
    """Deep copy of plain JSON data (dicts, lists, scalars); faster than ``copy.deepcopy`` for this shape."""
    if isinstance(value, dict):
        return {key: clone_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clone_json(item) for item in value]
    return value


def sanitize_id_chars(s: str) -> str:
    """``s.replace(/[^a-zA-Z0-9_-]/g, "_")``: a non-unicode JS regex sees an astral character as two code units,
    so it becomes two underscores (Python's ``re`` would write one)."""
    return _NON_ID_CHAR.sub(_underscore_per_code_unit, s)


def js_trim(s: str) -> str:
    """``s.trim()`` in JavaScript."""
    return s.strip(JS_WHITESPACE)


_JS_WHITESPACE_SET = frozenset(JS_WHITESPACE)


def js_is_blank(s: str) -> bool:
    """``s.trim().length === 0``: the emptiness test Pi applies to text, thinking and prompts.

    A text that starts or ends with anything but whitespace is answered without copying it (most are)."""
    return not s or (s[0] in _JS_WHITESPACE_SET and s[-1] in _JS_WHITESPACE_SET and not s.strip(JS_WHITESPACE))


def _join_pair(match: re.Match[str]) -> str:
    high, low = match.group(1), match.group(2)
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def _join_surrogate_pairs(s: str) -> str:
    """Merge adjacent high/low surrogate code points into the character JS would see them as."""
    return _SURROGATE_PAIR.sub(_join_pair, s)


def sanitize_surrogates(s: str) -> str:
    """Drop unpaired UTF-16 surrogates, as pi-ai does before sending any text.

    Python strings decoded from ``\\ud83d``-style escapes can hold such code points; a surrogate pair stored as two
    code points is a valid character in JS, so it is kept (merged into one Python character).
    """
    if s.isascii() or _SURROGATE.search(s) is None:
        return s
    return _LONE_SURROGATE.sub("", _join_surrogate_pairs(s))


def _escape_lone(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def js_quote(s: str) -> str:
    """A JSON string literal as ``JSON.stringify`` writes it (raw non-ASCII, lone surrogates as ``\\udxxx``)."""
    quoted: str = encode_basestring(s)
    if _SURROGATE.search(quoted) is None:
        return quoted
    return _LONE_SURROGATE.sub(_escape_lone, _join_surrogate_pairs(quoted))


def js_number_str(x: float | int) -> str:
    """``String(x)`` for a JS number, but ``"null"`` for NaN/Infinity: what ``JSON.stringify`` writes."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float) and not math.isfinite(x):
        return "null"
    text = js_number_to_string(x)
    return "null" if text.endswith("Infinity") else text


def _is_array_index(key: str) -> bool:
    return _ARRAY_INDEX.fullmatch(key) is not None and int(key) <= _MAX_ARRAY_INDEX


def js_own_keys(obj: dict[str, Any]) -> list[str]:
    """``Object.keys(obj)``: array-index names ascending first, then the rest in insertion order."""
    return [key for key, _ in _js_key_order(obj)]


def _js_key_order(obj: dict[Any, Any]) -> list[tuple[str, Any]]:
    """Own-property order of a JS object: array-index keys ascending, then the rest in insertion order."""
    items = [(k if isinstance(k, str) else str(k), v) for k, v in obj.items()]
    if not any(_is_array_index(k) for k, _ in items):
        return items
    indexed = sorted((item for item in items if _is_array_index(item[0])), key=lambda item: int(item[0]))
    return indexed + [item for item in items if not _is_array_index(item[0])]


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, str):
        out.append(js_quote(value))
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int | float):
        out.append(js_number_str(value))
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key, item in _js_key_order(value):
            if not first:
                out.append(",")
            first = False
            out.append(js_quote(key))
            out.append(":")
            _write(item, out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"js_stringify cannot serialise {type(value).__name__}")


def js_stringify(value: Any) -> str:
    """Exactly what ``JSON.stringify(value)`` returns for a JSON-shaped Python value (compact, no spaces)."""
    if isinstance(value, str):
        return js_quote(value)
    out: list[str] = []
    _write(value, out)
    return "".join(out)

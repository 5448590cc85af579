"""JavaScript string semantics: UTF-16 code units, ``trim``, and surrogate pairs.

JavaScript strings are sequences of 16-bit code units, so ``length``, ``slice`` and regexes without the ``u`` flag
count an astral character twice and can split it; Python counts code points. Pi truncates, measures and compares
text with JavaScript's rules, and those numbers reach payloads (token estimates, truncated previews).
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

from pi_tools.js.values import JS_WHITESPACE

SURROGATE = re.compile("[\ud800-\udfff]")
"""Any surrogate code point (paired or not) in a Python string."""
_SURROGATE_PAIR = re.compile("([\ud800-\udbff])([\udc00-\udfff])")
LONE_SURROGATE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")
"""A surrogate that is not half of a pair: JavaScript keeps it as one code unit."""
# Native byte order, so the 16-bit view below reads code units without swapping.
_UTF16_NATIVE = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"
_JS_WHITESPACE_SET = frozenset(JS_WHITESPACE)


def utf16_code_units(s: str) -> memoryview:
    """The string as JavaScript sees it: a sequence of 16-bit code units (lone surrogates included)."""
    return memoryview(s.encode(_UTF16_NATIVE, "surrogatepass")).cast("H")


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
    return join_surrogate_pairs(units[2 * lo : 2 * hi].decode("utf-16-le", "surrogatepass"))


def js_trim(s: str) -> str:
    """``s.trim()`` in JavaScript."""
    return s.strip(JS_WHITESPACE)


def js_is_blank(s: str) -> bool:
    """``s.trim().length === 0``: the emptiness test Pi applies to text, thinking and prompts.

    A text that starts or ends with anything but whitespace is answered without copying it (most are)."""
    return not s or (s[0] in _JS_WHITESPACE_SET and s[-1] in _JS_WHITESPACE_SET and not s.strip(JS_WHITESPACE))


def _join_pair(match: re.Match[str]) -> str:
    high, low = match.group(1), match.group(2)
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def join_surrogate_pairs(s: str) -> str:
    """Merge adjacent high/low surrogate code points into the character JS would see them as."""
    return _SURROGATE_PAIR.sub(_join_pair, s)

"""``JSON.stringify`` as V8 writes it, and the own-key order of JavaScript objects.

Pi stringifies tool arguments, stored JSON and whole payload parts; its bytes reach requests (Mistral's tool-call
arguments, Bedrock's tool input text, hashes of ids), so key order (array-index keys first), number spelling and
the escaping of lone surrogates must be V8's.
"""

from __future__ import annotations

import math
import re
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

import orjson

from pi_tools.js.errors import STACK_EXCEEDED, JsRangeError
from pi_tools.js.strings import LONE_SURROGATE, SURROGATE, join_surrogate_pairs
from pi_tools.js.values import UNDEFINED, js_number_to_string

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_MAX_ARRAY_INDEX = 2**32 - 2

# How deep V8's JSON.stringify nests before its stack runs out (RangeError: Maximum call stack size exceeded).
# Measured with the reference's Node 22: 4,163 levels from a shallow stack, 4,140 below 50 frames, 4,100 below
# 200; Pi stringifies from a few dozen frames down, so values up to 4,140 levels are written and deeper ones fail.
V8_STRINGIFY_DEPTH = 4140


def clone_json(value: Any) -> Any:
    """Deep copy of plain JSON data (dicts, lists, scalars); faster than ``copy.deepcopy`` for this shape.
    A value nested deeper than Python recurses is copied with an explicit stack."""
    try:
        return _clone(value)
    except RecursionError:
        return _clone_deep(value)


def _clone(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clone(item) for item in value]
    return value


def _clone_deep(value: Any) -> Any:
    if not isinstance(value, (dict, list)):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, (dict, list)):
                copy: Any = {} if isinstance(item, dict) else []
                stack.append((item, copy))
                item = copy
            if isinstance(target, dict):
                target[key] = item
            else:
                target.append(item)
    return root


def _escape_lone(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def js_quote(s: str) -> str:
    """A JSON string literal as ``JSON.stringify`` writes it (raw non-ASCII, lone surrogates as ``\\udxxx``)."""
    quoted: str = encode_basestring(s)
    if SURROGATE.search(quoted) is None:
        return quoted
    return LONE_SURROGATE.sub(_escape_lone, join_surrogate_pairs(quoted))


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
    if value is None or value is UNDEFINED:  # undefined: only array items get here (members are left out)
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
            if item is UNDEFINED:  # JSON.stringify leaves an undefined member out (and keeps a null one)
                continue
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


class _Literal:
    """Text the explicit-stack writer emits as it is; `closes` ends a container (one level up)."""

    __slots__ = ("text", "closes")

    def __init__(self, text: str, closes: bool = False) -> None:
        self.text = text
        self.closes = closes


_CLOSE_OBJECT = _Literal("}", True)
_CLOSE_ARRAY = _Literal("]", True)


def _write_deep(value: Any, out: list[str], limit: float = V8_STRINGIFY_DEPTH) -> None:
    """_write with an explicit stack, for values nested deeper than Python recurses; beyond `limit` (V8's own
    depth) it fails as JSON.stringify does."""
    depth = 0
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if type(item) is _Literal:
            out.append(item.text)
            depth -= item.closes
        elif isinstance(item, dict):
            depth += 1
            if depth > limit:
                raise JsRangeError(STACK_EXCEEDED)
            out.append("{")
            stack.append(_CLOSE_OBJECT)
            pairs = [pair for pair in _js_key_order(item) if pair[1] is not UNDEFINED]
            for index in range(len(pairs) - 1, -1, -1):
                key, member = pairs[index]
                stack.append(member)
                stack.append(_Literal(("," if index else "") + js_quote(key) + ":"))
        elif isinstance(item, list | tuple):
            depth += 1
            if depth > limit:
                raise JsRangeError(STACK_EXCEEDED)
            out.append("[")
            stack.append(_CLOSE_ARRAY)
            for index in range(len(item) - 1, -1, -1):
                stack.append(item[index])
                if index:
                    stack.append(_Literal(","))
        else:
            _write(item, out)


_NOT_AS_ORJSON_WRITES = re.compile(rb'[:,\[]-?[0-9]+[.eE]|[:,\[]-?[0-9]{16}|[{,]"(?:0|[1-9][0-9]*)":')
"""Where orjson's text of an object or array may differ from V8's: a number with a fraction or an exponent
(orjson writes 1.0 and 1e+21 as 1.0 and 1e21), an integer of 16 or more digits (V8 rounds past 2**53), a key
that is an array index (V8 writes those first). Inside strings a quote is escaped, so a key cannot be mistaken
for text; text that merely looks like a number after ':' only costs the slow path."""


_BIGGEST_SHORT_INTEGER = 10**15 - 1
"""The largest magnitude of an integer of at most 15 digits (_NOT_AS_ORJSON_WRITES sends longer ones to V8's way)."""


def _written_alike(value: dict[str, Any] | list[Any]) -> bool:
    """Whether the value holds none of what _NOT_AS_ORJSON_WRITES looks for in orjson's text: no float, no
    integer of 16 digits or more, no key made of digits only (array-index keys among them).

    Then orjson's text is V8's, and the regex need not scan it: tool-call arguments are mostly a few keys with
    long strings (file contents, commands), whose text the regex would walk byte by byte (about a tenth of an
    openai-completions or openai-responses build of the 100 MB session). False where in doubt: the regex then
    decides, as before."""
    stack: list[Any] = [value]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        items = node.values() if type(node) is dict else node
        if type(node) is dict:
            for key in node:
                if type(key) is not str or (key.isdigit() and key.isascii()):
                    return False
        for item in items:
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is int:
                if -_BIGGEST_SHORT_INTEGER <= item <= _BIGGEST_SHORT_INTEGER:
                    continue
                return False
            if kind is dict or kind is list:
                push(item)
                continue
            return False  # floats, and anything else orjson may write its own way
    return True


def js_stringify(value: Any) -> str:
    """Exactly what ``JSON.stringify(value)`` returns for a JSON-shaped Python value (compact, no spaces).

    Objects and arrays go through orjson, which escapes strings exactly as V8 does, unless its text holds what
    V8 may write otherwise (_NOT_AS_ORJSON_WRITES) or orjson refuses the value (lone surrogates, deep nesting,
    other types): tool-call arguments are stringified for every message of a conversation. Values nested
    deeper than Python recurses are written with an explicit stack; from V8's depth limit on, JsRangeError
    (``Maximum call stack size exceeded``), as V8 throws."""
    if isinstance(value, str):
        return js_quote(value)
    if type(value) is dict or type(value) is list:
        try:
            text = orjson.dumps(value)
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            pass
        else:
            if _written_alike(value) or _NOT_AS_ORJSON_WRITES.search(text) is None:
                return text.decode()
    out: list[str] = []
    try:
        _write(value, out)
    except RecursionError:
        out = []
        _write_deep(value, out)
    return "".join(out)



def stringify_any_depth(value: Any) -> str:
    """``JSON.stringify``'s text for a value however deep (no V8 limit): for pi-tools' own documents, which
    must be written whatever Pi could or could not have done with the value."""
    if isinstance(value, str):
        return js_quote(value)
    out: list[str] = []
    _write_deep(value, out, math.inf)
    return "".join(out)


def too_deep_to_stringify(value: Any, limit: int = V8_STRINGIFY_DEPTH) -> bool:
    """Whether ``JSON.stringify(value)`` would overflow V8's stack (objects and arrays nested past `limit`).

    orjson answers for almost every value at C speed (it writes anything up to 255 levels); only values it
    refuses are walked, with an explicit stack that stops at the first path deeper than `limit`."""
    try:
        orjson.dumps(value)
        return False
    except (orjson.JSONEncodeError, TypeError):
        pass
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False

"""JavaScript value semantics, in one place for the whole package.

Pi builds texts such as ``Ran `${command}``` from fields that a damaged or hand-edited file may store with the
wrong type, and pi-ai reads provider events without validating them; JavaScript then stringifies values
(``undefined``, ``null``, ``[object Object]``, ``1,2``, ``1e+21``), treats ``[]`` as true and compares with
``===``. Matching Pi byte for byte needs the same rules everywhere, so they live here, in the lowest layer,
and the session, provider and report code all use these.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any, Final

from pi_tools.js.errors import JsTypeError

_MAX_SAFE_INTEGER = 2**53

JS_WHITESPACE: Final[str] = (
    " \t\n\r\x0b\x0c\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""What JavaScript's trim() and Number() strip (Python's str.strip() differs: it keeps U+FEFF, strips U+001C-F)."""

_DECIMAL_LITERAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_RADIX_LITERAL = re.compile(r"0([xXoObB])([0-9a-fA-F]+)")


class _Undefined:
    """The one JavaScript ``undefined``: a missing key read with ``mapping.get(key, UNDEFINED)``."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final[Any] = _Undefined()
"""Sentinel for a JavaScript ``undefined`` (a missing key), distinct from JSON ``null`` (``None``)."""


def _format_double(x: float) -> str:
    """ECMAScript Number::toString for a finite, non-zero double (shortest round-trip digits)."""
    sign = "-" if x < 0 else ""
    digits_tuple, exponent = Decimal(repr(abs(x))).as_tuple()[1:]
    digits = "".join(map(str, digits_tuple)).lstrip("0")
    assert isinstance(exponent, int)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = k + exponent  # decimal point position: value = 0.digits * 10**n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    exp = n - 1
    exp_str = f"e+{exp}" if exp >= 0 else f"e-{-exp}"
    if k == 1:
        return sign + digits + exp_str
    return sign + digits[0] + "." + digits[1:] + exp_str


def js_number_to_string(value: float | int) -> str:
    """``String(number)``: integral values without ``.0``, JS exponent rules, ``NaN`` / ``Infinity``.

    Python ints beyond 2**53 are rounded to a double first, because that is what ``JSON.parse`` made of them.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if -_MAX_SAFE_INTEGER <= value <= _MAX_SAFE_INTEGER:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            return "Infinity" if value > 0 else "-Infinity"
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) <= _MAX_SAFE_INTEGER:
        return str(int(value))
    return _format_double(value)


def js_to_string(value: Any) -> str:
    """``String(value)`` / template-literal interpolation for a JSON-derived value."""
    if isinstance(value, str):
        return value
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number_to_string(value)
    if isinstance(value, (list, tuple)):
        # Array.prototype.join writes null and undefined elements as empty strings.
        try:
            return _join(value)
        except RecursionError:
            pass
        return _array_to_string_deep(value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _join(array: Any) -> str:
    return ",".join("" if item is None or item is UNDEFINED else _join(item) if isinstance(item, (list, tuple))
                    else js_to_string(item) for item in array)


# How deep V8's Array.prototype.join (String() of an array) recurses before its stack runs out: measured with
# the reference's Node 22, 3,295 levels from a shallow stack, 3,278 below 50 frames, 3,226 below 200.
V8_JOIN_DEPTH = 3278


def _array_to_string_deep(value: Any) -> str:
    """String() of an array nested deeper than Python recurses, with an explicit stack; past V8's own depth
    the RangeError V8 throws."""
    from pi_tools.js.errors import STACK_EXCEEDED, JsRangeError

    out: list[str] = []
    stack: list[tuple[Any, int, int]] = [(value, 0, 1)]  # (array, next index, depth)
    while stack:
        array, index, depth = stack.pop()
        if depth > V8_JOIN_DEPTH:
            raise JsRangeError(STACK_EXCEEDED)
        if index >= len(array):
            continue
        if index:
            out.append(",")
        stack.append((array, index + 1, depth))
        item = array[index]
        if isinstance(item, (list, tuple)):
            stack.append((item, 0, depth + 1))
        elif item is not None and item is not UNDEFINED:
            out.append(js_to_string(item))
    return "".join(out)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value: every object and array is truthy; NaN, 0, "" are not."""
    if value is None or value is False or value is UNDEFINED:
        return False
    if isinstance(value, (int, float)):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True


def js_strict_equal(left: Any, right: Any) -> bool:
    """``left === right`` for JSON values (undefined only equals undefined; objects only themselves)."""
    if left is UNDEFINED or right is UNDEFINED:
        return left is right
    if isinstance(left, (dict, list)) or isinstance(right, (dict, list)):
        return left is right
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, str) != isinstance(right, str):
        return False
    return bool(left == right)


def js_to_number(value: Any) -> float:
    """``Number(value)`` for a JSON value: null is 0, booleans 0/1, strings by JS's numeric-literal grammar."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip(JS_WHITESPACE)
        if not text:
            return 0.0
        if _DECIMAL_LITERAL.fullmatch(text):
            return float(text)
        if text in ("Infinity", "+Infinity", "-Infinity"):
            return -math.inf if text[0] == "-" else math.inf
        radix = _RADIX_LITERAL.fullmatch(text)
        if radix:
            base = {"x": 16, "o": 8, "b": 2}[radix.group(1).lower()]
            try:
                return float(int(radix.group(2), base))
            except ValueError:
                return math.nan
        return math.nan
    _require_primitive(value)
    if isinstance(value, list):  # an array converts through its string form: [] -> "" -> 0, [5] -> "5" -> 5
        return js_to_number(js_to_string(value))
    return math.nan


NOT_PRIMITIVE = "Cannot convert object to primitive value"


def js_add(left: Any, right: Any) -> Any:
    """``left + right`` for JSON values (and undefined): an object or array becomes its string, then either side a
    string concatenates; otherwise the numbers add (null 0, booleans 0 and 1, undefined NaN; two ints stay one)."""
    if isinstance(left, (list, dict)):
        _require_primitive(left)
        left = js_to_string(left)
    if isinstance(right, (list, dict)):
        _require_primitive(right)
        right = js_to_string(right)
    if isinstance(left, str) or isinstance(right, str):
        return js_to_string(left) + js_to_string(right)
    if type(left) is int and type(right) is int:
        return left + right
    return js_to_number(left) + js_to_number(right)


def _require_primitive(value: Any) -> None:
    """V8's TypeError where ToPrimitive finds no callable valueOf/toString: a parsed object with its own
    `toString` member (a string, number, ... shadows Object.prototype.toString, and valueOf gives the object
    back), also as an item of an array, whose conversion joins its items' strings."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "toString" in item:
                raise JsTypeError(NOT_PRIMITIVE)
        elif isinstance(item, list):
            stack.extend(item)


def js_double(value: int) -> int | float:
    """The number V8 holds for a JSON integer: itself up to 2**53, beyond that the nearest double (Python
    parses 9007199254740993 exactly; JSON.parse gives 9007199254740992). Below 1e21 it is returned as the
    int JSON.stringify spells for that double (its shortest digits, then zeros: 2**64 is 18446744073709552000),
    which converts back to the same double; from 1e21 on, the double itself (written 1e+21)."""
    if -_MAX_SAFE_INTEGER <= value <= _MAX_SAFE_INTEGER:
        return value
    try:
        double = float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf
    return int(Decimal(repr(double))) if abs(double) < 1e21 else double


def js_map_key(value: Any) -> Any:
    """A dict key with JS ``Map`` identity (SameValueZero): ``1`` and ``1.0`` match, ``true`` and ``1`` do not,
    and an object or array only matches itself (a fresh key is never found again)."""
    if value is UNDEFINED:
        return ("undefined",)
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if type(value) is int:
        return ("number", js_double(value))
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    return ("object", object())


def js_set_key(value: Any) -> Any:
    """A value as a member of a JS ``Set`` or ``Map`` whose other members are plain Python strings: a string is
    itself (so it meets those), anything else its js_map_key (hashable, and never equal to a string)."""
    return value if type(value) is str else js_map_key(value)

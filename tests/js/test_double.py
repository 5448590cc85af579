"""``JSON.parse`` of an integer: :func:`pi_tools.js.values.js_double`. V8 holds every number as a double, so an
integer past 2**53 that Python parses exactly is the nearest double in Pi, and JSON.stringify writes that
double's digits (Node 22: ``JSON.stringify(JSON.parse("9007199254740993"))`` is ``9007199254740992``)."""

from __future__ import annotations

import pytest

from pi_tools.js.values import js_double
from pi_tools.pipe.documents import dumps_document

CASES = [  # (JSON text, what JSON.stringify(JSON.parse(text)) writes in Node 22)
    ("9007199254740991", "9007199254740991"),
    ("9007199254740993", "9007199254740992"),
    ("-9007199254740993", "-9007199254740992"),
    ("9007199254740995", "9007199254740996"),
    ("18446744073709551615", "18446744073709552000"),
    ("123456789012345678901", "123456789012345680000"),
]


@pytest.mark.parametrize(("text", "written"), CASES)
def test_integer_is_written_as_the_double_v8_holds(text: str, written: str) -> None:
    assert str(js_double(int(text))) == written
    assert dumps_document({"n": int(text)}) == b'{"n":' + written.encode() + b"}\n"


def test_from_1e21_on_it_is_a_double() -> None:
    assert js_double(10**21 + 1) == 1e21 and isinstance(js_double(10**21 + 1), float)
    assert dumps_document([10**21 + 1]) == b"[1e+21]\n"


def test_beyond_double_range_it_is_infinite() -> None:
    assert js_double(10**400) == float("inf") and js_double(-(10**400)) == float("-inf")
    assert dumps_document([10**400]) == b"[null]\n"

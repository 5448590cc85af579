"""``JSON.stringify(value)``: :func:`pi_tools.js.json_stringify.js_stringify` against Node (key order, number
spelling, escapes, lone surrogates written as ``\\udxxx``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_tools.js.json_stringify import js_number_str, js_stringify

from support.nodecases import case_id, node_cases

# (JSON text, JSON.stringify(JSON.parse(text))) from Node.
NODE_STRINGIFY: list[tuple[str, str]] = [
    (
        '{"a":60.0,"b":1e21,"c":1e-7,"d":-0.0,"e":12345678901234567890,"f":"\\ud83d lone",'
        '"g":"héllo \\ud83d\\ude00","h":[1.5e16,0.1,-1e-7,100,1e300,123.456,1e-6,2.5e-7,9007199254740993],'
        '"2":"index","10":true,"01":"not index","":null}',
        '{"2":"index","10":true,"a":60,"b":1e+21,"c":1e-7,"d":0,"e":12345678901234567000,"f":"\\ud83d lone",'
        '"g":"héllo 😀","h":[15000000000000000,0.1,-1e-7,100,1e+300,123.456,0.000001,2.5e-7,9007199254740992],'
        '"01":"not index","":null}',
    ),
    (
        '"\\u0001\\u001f\\b\\f\\n\\r\\t\\"\\\\/\\u2028\\u2029\\u007f\\u0080"',
        '"\\u0001\\u001f\\b\\f\\n\\r\\t\\"\\\\/\u2028\u2029\x7f\x80"',
    ),
    (
        '[[],{},[{}],{"a":[]},-5,0.5,1E+2,4294967294,{"4294967295":1,"4294967294":2,"b":3,"0":4}]',
        '[[],{},[{}],{"a":[]},-5,0.5,100,4294967294,{"0":4,"4294967294":2,"4294967295":1,"b":3}]',
    ),
    (
        '{"path":"src/main.py","offset":1,"limit":200,"nested":{"x":[1,2,{"y":"z"}]}}',
        '{"path":"src/main.py","offset":1,"limit":200,"nested":{"x":[1,2,{"y":"z"}]}}',
    ),
    ('"\\udc00\\ud800"', '"\\udc00\\ud800"'),
    ('"\\ud83d\\ude00\\ud83d"', '"😀\\ud83d"'),
    ("1e400", "null"),
    ("-1e-400", "0"),
    ("5e-324", "5e-324"),
    ("1.7976931348623157e308", "1.7976931348623157e+308"),
    ("0.000001", "0.000001"),
    ("1e-7", "1e-7"),
    ("123e18", "123000000000000000000"),
    ("123e19", "1.23e+21"),
]



@pytest.mark.parametrize(("source", "expected"), NODE_STRINGIFY)
def test_js_stringify_matches_node(source: str, expected: str) -> None:
    # The stdlib parser keeps lone surrogates, as JSON.parse does.
    assert js_stringify(json.loads(source)) == expected


def _slow_stringify(value: Any) -> str:
    from pi_tools.js.json_stringify import _write

    out: list[str] = []
    _write(value, out)
    return "".join(out)


@pytest.mark.parametrize("value", [
    {"path": "a.py", "n": 3, "ok": True, "none": None, "list": [1, -2, "x\n\u2028\u007f\"\\"], "deep": {"a": {}}},
    {"ratio": 1.5}, {"big": 2**60}, {"edge": 10**15}, {"neg": -(10**16)}, [1e21], [0.5, -0.0], {"10": 1, "b": 2, "2": 3},
    {"01": 1, "b": 2}, {"b": {"0": 1}}, {"x": "see :1.5 and {\"1\": 2}"}, {"s": "\ud83d\ude00"}, {"s": "\ud800"},
    [[[[[]]]]], {"k": (1, 2)}, {"emoji": "😀", "cjk": "中文"}, {chr(0x1F): chr(0)}, [],
    # where the value is walked instead of orjson's text scanned: the digit limits, keys deep down, bools
    {"a": [999999999999999, -999999999999999]}, {"a": [1000000000000000]}, {"a": {"b": [{"7": 0}]}},
    {"a": [True, False, None, {"c": "1,2:3.5e4"}]}, {"\u0663": 1}, {"a": 2**53 + 1},
])
def test_js_stringify_fast_path_writes_what_the_slow_one_writes(value: Any) -> None:
    """orjson writes objects and arrays where its text is V8's; what it would write otherwise takes the path
    that reproduces V8 (numbers, index keys) and gives the same text."""
    assert js_stringify(value) == _slow_stringify(value)


def test_js_stringify_orders_index_keys_and_spells_numbers_as_v8() -> None:
    assert js_stringify({"b": 1, "10": 2, "2": 3}) == '{"2":3,"10":2,"b":1}'
    assert js_stringify({"a": 1.0, "b": 2**60, "c": 1e21}) == '{"a":1,"b":1152921504606847000,"c":1e+21}'
    assert js_stringify({"a": [1, {"b": "c"}]}) == '{"a":[1,{"b":"c"}]}'


def test_js_stringify_of_python_values() -> None:
    value: dict[str, Any] = {"t": True, "f": False, "n": None, "tuple": (1, 2.0), "nan": float("nan")}
    assert js_stringify(value) == '{"t":true,"f":false,"n":null,"tuple":[1,2],"nan":null}'
    # Two surrogate code points in a row form one character in JS, so they are written raw.
    assert js_stringify("\ud83d\ude00") == '"😀"'
    with pytest.raises(TypeError):
        js_stringify({"x": object()})


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        (60.0, "60"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (-1.5e-7, "-1.5e-7"),
        (2**60, "1152921504606847000"),
        (2**53, "9007199254740992"),
        (-(2**53) - 2, "-9007199254740994"),
        (float("inf"), "null"),
        (0.1 + 0.2, "0.30000000000000004"),
        (True, "true"),
    ],
)
def test_js_number_str(number: float, expected: str) -> None:
    assert js_number_str(number) == expected


@pytest.mark.parametrize("case", node_cases("json_stringify"), ids=case_id)
def test_stringify_of_parsed_values_matches_node(case: dict[str, Any]) -> None:
    assert js_stringify(case["value"]) == case["result"]


def test_undefined_members_are_left_out_and_undefined_items_are_null() -> None:
    """Node: JSON.stringify({a: undefined, b: null, c: [undefined, 1]}) is {"b":null,"c":[null,1]}; a value
    read with ``get(key, UNDEFINED)`` (a missing property) is written as Pi writes it, however deep."""
    from pi_tools.js.json_stringify import stringify_any_depth
    from pi_tools.js.values import UNDEFINED
    from pi_tools.pipe.documents import dumps_document

    value = {"a": UNDEFINED, "b": None, "c": [UNDEFINED, 1], "d": {"e": UNDEFINED}}
    assert js_stringify(value) == '{"b":null,"c":[null,1],"d":{}}'
    assert stringify_any_depth(value) == '{"b":null,"c":[null,1],"d":{}}'
    assert dumps_document(value) == b'{"b":null,"c":[null,1],"d":{}}\n'
    assert value == {"a": UNDEFINED, "b": None, "c": [UNDEFINED, 1], "d": {"e": UNDEFINED}}  # not changed

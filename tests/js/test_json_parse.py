"""``JSON.parse`` against Node 22.22.0: one V8 port serves stream decoders and payload builders alike.

Each row is a ``JSON.parse`` argument and what Node 22 did with it, recorded once on the reference machine
(``node -e 'try{JSON.parse(arg)}catch(e){console.log(e.message)}'`` and ``JSON.stringify``/``String`` of the
value), so the test needs no Node. ``err`` is the ``SyntaxError`` message; ``json`` and ``str`` are
``JSON.stringify(value)`` and ``String(value)``; for values too deep to print, ``depth`` counts the containers
along the last-member path and ``leaf`` is ``JSON.stringify`` of what ends it (absent when a container does).
"""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.js import json_parse
from pi_tools.js.errors import JsJsonError
from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.values import js_to_string
from pi_tools.providers import streaming, v8json
from pi_tools.providers.errors import PayloadError

NODE_22_JSON_PARSE: list[tuple[Any, dict[str, Any]]] = [
    # Unexpected token (with V8's 10-unit context window) and the special whole-text sources
    ("x", {"err": "Unexpected token 'x', \"x\" is not valid JSON"}),
    ("tru", {"err": "Unexpected end of JSON input"}),
    ("trux", {"err": "Unexpected token 'x', \"trux\" is not valid JSON"}),
    ("nul", {"err": "Unexpected end of JSON input"}),
    ("'a'", {"err": "Unexpected token ''', \"'a'\" is not valid JSON"}),
    ("[1,]", {"err": "Unexpected token ']', \"[1,]\" is not valid JSON"}),
    ("[,1]", {"err": "Unexpected token ',', \"[,1]\" is not valid JSON"}),
    ("{a:1}", {"err": "Expected property name or '}' in JSON at position 1 (line 1 column 2)"}),
    ("NaN", {"err": '"NaN" is not valid JSON'}),
    ("Infinity", {"err": '"Infinity" is not valid JSON'}),
    ("-Infinity", {"err": "No number after minus sign in JSON at position 1 (line 1 column 2)"}),
    ("undefined", {"err": '"undefined" is not valid JSON'}),
    ("[object Object]", {"err": '"[object Object]" is not valid JSON'}),
    (
        '{"key": "value", "other": x123456789012}',
        {"err": 'Unexpected token \'x\', ..." "other": x123456789"... is not valid JSON'},
    ),
    ("xyzzy_and_then_more_text_here", {"err": "Unexpected token 'x', \"xyzzy_and_\"... is not valid JSON"}),
    (
        '{"alpha": 1, "beta": [true, fals]}',
        {"err": "Unexpected token ']', ...\"true, fals]}\" is not valid JSON"},
    ),
    (
        '{"alpha": 1, "beta": [true, false, nulL]',
        {"err": "Unexpected token 'L', ...\"false, nulL]\" is not valid JSON"},
    ),
    # Unexpected end of input
    ("", {"err": "Unexpected end of JSON input"}),
    ("   ", {"err": "Unexpected end of JSON input"}),
    ("[", {"err": "Unexpected end of JSON input"}),
    ('{"a":', {"err": "Unexpected end of JSON input"}),
    ('"abc\\', {"err": "Unexpected end of JSON input"}),
    ("tr", {"err": "Unexpected end of JSON input"}),
    ("[1,", {"err": "Unexpected end of JSON input"}),
    # Bad escapes: Latin-1 characters are 'Bad escaped character', wider ones an unexpected token
    ('"\\x"', {"err": "Bad escaped character in JSON at position 2 (line 1 column 3)"}),
    ('"\\a"', {"err": "Bad escaped character in JSON at position 2 (line 1 column 3)"}),
    ('"\\\u00e9"', {"err": "Bad escaped character in JSON at position 2 (line 1 column 3)"}),
    ('"\\\u00ff"', {"err": "Bad escaped character in JSON at position 2 (line 1 column 3)"}),
    ('"\\\u0100"', {"err": 'Unexpected token \'\u0100\', ""\\\u0100"" is not valid JSON'}),
    ('"\\\u0101"', {"err": 'Unexpected token \'\u0101\', ""\\\u0101"" is not valid JSON'}),
    ('"\\\u4e2d"', {"err": 'Unexpected token \'\u4e2d\', ""\\\u4e2d"" is not valid JSON'}),
    ('"\\\U0001f600"', {"err": 'Unexpected token \'\ud83d\', ""\\\U0001f600"" is not valid JSON'}),
    ('"\\\ud800"', {"err": 'Unexpected token \'\ud800\', ""\\\ud800"" is not valid JSON'}),
    (
        '{"message": "this text has a bad \\\u0101 escape inside it"}',
        {"err": "Unexpected token '\u0101', ...\"as a bad \\\u0101 escape i\"... is not valid JSON"},
    ),
    (
        '{"message": "short", "tail": "\\\u4e2d"}',
        {"err": 'Unexpected token \'\u4e2d\', ...""tail": "\\\u4e2d"}" is not valid JSON'},
    ),
    # Bad Unicode escapes
    ('"\\u12"', {"err": "Bad Unicode escape in JSON at position 5 (line 1 column 6)"}),
    ('"\\u12G4"', {"err": "Bad Unicode escape in JSON at position 5 (line 1 column 6)"}),
    ('"\\u', {"err": "Bad Unicode escape in JSON at position 3 (line 1 column 4)"}),
    ('"\\uZZZZ"', {"err": "Bad Unicode escape in JSON at position 3 (line 1 column 4)"}),
    ('{"a": "\\u00e9\\u12x4"}', {"err": "Bad Unicode escape in JSON at position 17 (line 1 column 18)"}),
    # Control characters in strings, unterminated strings
    ('"a\nb"', {"err": "Bad control character in string literal in JSON at position 2 (line 1 column 3)"}),
    ('"\t"', {"err": "Bad control character in string literal in JSON at position 1 (line 1 column 2)"}),
    ('"\x00"', {"err": "Bad control character in string literal in JSON at position 1 (line 1 column 2)"}),
    ('"\x1f"', {"err": "Bad control character in string literal in JSON at position 1 (line 1 column 2)"}),
    (
        '{\n"a": "b\nc"}',
        {"err": "Bad control character in string literal in JSON at position 9 (line 2 column 8)"},
    ),
    ('"abc', {"err": "Unterminated string in JSON at position 4 (line 1 column 5)"}),
    ('{"a":"b', {"err": "Unterminated string in JSON at position 7 (line 1 column 8)"}),
    # Malformed numbers
    ("-", {"err": "No number after minus sign in JSON at position 1 (line 1 column 2)"}),
    ("-a", {"err": "No number after minus sign in JSON at position 1 (line 1 column 2)"}),
    ("01", {"err": "Unexpected number in JSON at position 1 (line 1 column 2)"}),
    ("-01", {"err": "Unexpected number in JSON at position 2 (line 1 column 3)"}),
    ("1.", {"err": "Unterminated fractional number in JSON at position 2 (line 1 column 3)"}),
    ("1.e5", {"err": "Unterminated fractional number in JSON at position 2 (line 1 column 3)"}),
    ("1e", {"err": "Exponent part is missing a number in JSON at position 2 (line 1 column 3)"}),
    ("1e+", {"err": "Exponent part is missing a number in JSON at position 3 (line 1 column 4)"}),
    (".5", {"err": "Unexpected token '.', \".5\" is not valid JSON"}),
    ("+1", {"err": "Unexpected token '+', \"+1\" is not valid JSON"}),
    # Non-whitespace after JSON (line/column count CRLF once)
    ("1 2", {"err": "Unexpected non-whitespace character after JSON at position 2 (line 1 column 3)"}),
    ("{} x", {"err": "Unexpected non-whitespace character after JSON at position 3 (line 1 column 4)"}),
    ("[]]", {"err": "Unexpected non-whitespace character after JSON at position 2 (line 1 column 3)"}),
    ('"a" "b"', {"err": "Unexpected non-whitespace character after JSON at position 4 (line 1 column 5)"}),
    ("nullx", {"err": "Unexpected non-whitespace character after JSON at position 4 (line 1 column 5)"}),
    ("1\n\n  x", {"err": "Unexpected non-whitespace character after JSON at position 5 (line 3 column 3)"}),
    (
        '{\r\n"a":\r\n 1}\r\n x',
        {"err": "Unexpected non-whitespace character after JSON at position 15 (line 4 column 2)"},
    ),
    # Object and array punctuation
    ('{"a" 1}', {"err": "Expected ':' after property name in JSON at position 5 (line 1 column 6)"}),
    (
        '{"a":1 "b":2}',
        {"err": "Expected ',' or '}' after property value in JSON at position 7 (line 1 column 8)"},
    ),
    ('{"a":1,}', {"err": "Expected double-quoted property name in JSON at position 7 (line 1 column 8)"}),
    ("{,}", {"err": "Expected property name or '}' in JSON at position 1 (line 1 column 2)"}),
    ("[1 2]", {"err": "Expected ',' or ']' after array element in JSON at position 3 (line 1 column 4)"}),
    # Positions and tokens in UTF-16 code units; lone surrogates
    (
        '"\U0001f600\U0001f600" x',
        {"err": "Unexpected non-whitespace character after JSON at position 7 (line 1 column 8)"},
    ),
    ("\U0001f600", {"err": "Unexpected token '\ud83d', \"\U0001f600\" is not valid JSON"}),
    (
        '["\U0001f600\U0001f600\U0001f600\U0001f600\U0001f600\U0001f600", \U0001f600]',
        {
            "err": 'Unexpected token \'\ud83d\', "["\U0001f600\U0001f600\U0001f600\U0001f600\U0001f600\U0001f600", \U0001f600]" is not valid JSON'
        },
    ),
    ('"\\ud83d"', {"json": '"\\ud83d"', "str": "\ud83d"}),
    ('"\\uD83D\\uDE00"', {"json": '"\U0001f600"', "str": "\U0001f600"}),
    ('"\ud83d"', {"json": '"\\ud83d"', "str": "\ud83d"}),
    # Numbers JS rounds or overflows (String() prints Infinity)
    ("1e999", {"json": "null", "str": "Infinity"}),
    ("-1e999", {"json": "null", "str": "-Infinity"}),
    ("[1e999, -1e999, 1e-999]", {"json": "[null,null,0]", "str": "Infinity,-Infinity,0"}),
    ('{"a": 1e999}', {"json": '{"a":null}', "str": "[object Object]"}),
    ("1e-999", {"json": "0", "str": "0"}),
    ("-0", {"json": "0", "str": "0"}),
    ("9007199254740993", {"json": "9007199254740992", "str": "9007199254740992"}),
    ("123456789012345678901234567890", {"json": "1.2345678901234568e+29", "str": "1.2345678901234568e+29"}),
    ("1" * 400, {"json": "null", "str": "Infinity"}),
    ("1" + "0" * 5000, {"json": "null", "str": "Infinity"}),
    # Deep nesting: V8 parses iteratively, so it accepts any depth and reports errors normally
    ("[" * 5000 + "]" * 5000, {"depth": 5000}),
    ("[" * 100000 + "1" + "]" * 100000, {"depth": 100000, "leaf": "1"}),
    ('{"a":' * 3000 + "1" + "}" * 3000, {"depth": 3000, "leaf": "1"}),
    ("[" * 2000 + '"\\u00e9",{"k\\n":[true,null,-1.5e3]}' + "]" * 2000, {"depth": 2002, "leaf": "-1500"}),
    ("[" * 5000, {"err": "Unexpected end of JSON input"}),
    ("[" * 5000 + "x", {"err": "Unexpected token 'x', ...\"[[[[[[[[[[x\" is not valid JSON"}),
    (
        "[" * 3000 + "1" + "]" * 2999 + "}",
        {"err": "Expected ',' or ']' after array element in JSON at position 6000 (line 1 column 6001)"},
    ),
    (
        '{"a":' * 3000 + '"\\q"' + "}" * 3000,
        {"err": "Bad escaped character in JSON at position 15002 (line 1 column 15003)"},
    ),
    (
        "[" * 3000 + "1" + "]" * 3000 + " 2",
        {"err": "Unexpected non-whitespace character after JSON at position 6002 (line 1 column 6003)"},
    ),
    # Non-string arguments (payload side converts with String())
    (12, {"json": "12", "str": "12"}),
    (None, {"json": "null", "str": "null"}),
    (True, {"json": "true", "str": "true"}),
    ({"type": "reasoning"}, {"err": '"[object Object]" is not valid JSON'}),
    ([1, 2], {"err": "Unexpected non-whitespace character after JSON at position 1 (line 1 column 2)"}),
]

TEXT_CASES = [(text, expected) for text, expected in NODE_22_JSON_PARSE if isinstance(text, str)]
ERROR_CASES = [(text, expected["err"]) for text, expected in TEXT_CASES if "err" in expected]
VALUE_CASES = [(text, expected) for text, expected in TEXT_CASES if "err" not in expected]


def _case_id(text: Any) -> str:
    shown = ascii(text)
    return shown if len(shown) <= 40 else f"{shown[:30]}...({len(shown)} chars)"


def _last_member_path(value: Any) -> tuple[int, Any]:
    """Depth and final leaf along the last-member path, walked without recursion (values may be very deep)."""
    depth = 0
    while isinstance(value, (list, dict)):
        depth += 1
        members = value if isinstance(value, list) else list(value.values())
        if not members:
            return depth, None
        value = members[-1]
    return depth, js_stringify(value)


def test_table_covers_every_error_class() -> None:
    messages = [message for _, message in ERROR_CASES]
    for fragment in (
        "Unexpected token",
        "Unexpected end of JSON input",
        "is not valid JSON",
        "Bad escaped character",
        "Bad Unicode escape",
        "Bad control character in string literal",
        "Unterminated string",
        "No number after minus sign",
        "Unterminated fractional number",
        "Exponent part is missing a number",
        "Unexpected number",
        "Unexpected non-whitespace character after JSON",
        "Expected property name or '}'",
        "Expected ':' after property name",
        "Expected ',' or '}' after property value",
        "Expected double-quoted property name",
        "Expected ',' or ']' after array element",
    ):
        assert any(fragment in message for message in messages), fragment
    assert len(NODE_22_JSON_PARSE) >= 40


@pytest.mark.parametrize(("text", "message"), ERROR_CASES, ids=[_case_id(t) for t, _ in ERROR_CASES])
def test_error_message_matches_node(text: str, message: str) -> None:
    assert json_parse.v8_json_error_message(text) == message
    with pytest.raises(JsJsonError) as stream_error:
        streaming.js_json_parse(text)
    assert str(stream_error.value) == message
    with pytest.raises(PayloadError) as payload_error:
        v8json.js_json_parse(text)
    assert str(payload_error.value) == message
    with pytest.raises(ValueError):
        json_parse.js_json_loads(text)
    assert json_parse.js_json_or_none(text) is None


@pytest.mark.parametrize(("text", "expected"), VALUE_CASES, ids=[_case_id(t) for t, _ in VALUE_CASES])
def test_value_matches_node(text: str, expected: dict[str, Any]) -> None:
    value = streaming.js_json_parse(text)
    assert json_parse.v8_json_error_message(text) == ""
    if "json" in expected:
        assert js_stringify(value) == expected["json"]
        assert js_stringify(v8json.js_json_parse(text)) == expected["json"]
        assert js_stringify(json_parse.js_json_loads(text)) == expected["json"]
    else:
        depth, leaf = _last_member_path(value)
        assert depth == expected["depth"]
        assert leaf == expected.get("leaf")
        assert _last_member_path(v8json.js_json_parse(text)) == (depth, leaf)
    if "str" in expected:
        assert streaming.js_to_string(value) == expected["str"]
        assert js_to_string(value) == expected["str"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(value, expected) for value, expected in NODE_22_JSON_PARSE if not isinstance(value, str)],
    ids=_case_id,
)
def test_payload_side_converts_non_strings_like_js(value: Any, expected: dict[str, Any]) -> None:
    if "err" in expected:
        with pytest.raises(PayloadError) as error:
            v8json.js_json_parse(value)
        assert str(error.value) == expected["err"]
    else:
        assert js_stringify(v8json.js_json_parse(value)) == expected["json"]


def test_one_parser_serves_both_sides() -> None:
    assert streaming.js_json_parse is json_parse.js_json_parse
    assert streaming.v8_json_error_message is json_parse.v8_json_error_message

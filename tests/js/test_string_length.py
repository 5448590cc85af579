"""``s.length``: :func:`pi_tools.js.strings.js_length` against Node (UTF-16 code units: astral characters count
twice, lone surrogates once) and for the non-strings malformed sessions store where text belongs."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.js.strings import js_length, utf16_code_units

from support.nodecases import case_id, node_cases


@pytest.mark.parametrize("case", node_cases("string_length"), ids=case_id)
def test_length_matches_node(case: dict[str, Any]) -> None:
    assert js_length(case["value"]) == case["result"]
    assert len(utf16_code_units(case["value"])) == case["result"]


@pytest.mark.parametrize(
    ("value", "expected_length"),
    [(["ab", "c"], 2), ({"length": 9}, 9), ({"size": 9}, None), (5, None), (0, None), (True, None), (None, None)],
)
def test_length_of_non_strings(value: Any, expected_length: int | None) -> None:
    """``.length`` of a stored non-string: arrays and objects with a numeric ``length`` have one, the rest NaN."""
    length = js_length(value)
    if expected_length is None:
        assert length != length  # NaN, which makes pi-ai's token estimate NaN
    else:
        assert length == expected_length

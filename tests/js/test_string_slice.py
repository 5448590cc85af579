"""``s.slice(start, end)``: :func:`pi_tools.js.strings.js_slice` against Node (indices in UTF-16 code units; a
split astral character leaves a lone surrogate)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.js.strings import js_slice

from support.nodecases import node_cases

CASES = node_cases("string_slice")


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['value']!r}[{c['start']}:{c['end']}]")
def test_slice_matches_node(case: dict[str, Any]) -> None:
    end = None if case["end"] == {"$undefined": True} else case["end"]
    assert js_slice(case["value"], case["start"], end) == case["result"]

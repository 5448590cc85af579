"""``s.trim()``: :func:`pi_tools.js.strings.js_trim` and the blank test Pi applies, against Node (ECMAScript
white space: strips U+FEFF and U+3000, keeps U+001C and U+0085, which Python's ``str.strip`` does not)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.js.strings import js_is_blank, js_trim

from support.nodecases import case_id, node_cases


@pytest.mark.parametrize("case", node_cases("string_trim"), ids=case_id)
def test_trim_matches_node(case: dict[str, Any]) -> None:
    assert js_trim(case["value"]) == case["result"]
    assert js_is_blank(case["value"]) is (case["result"] == "")

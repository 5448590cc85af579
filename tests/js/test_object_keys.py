"""``Object.keys(obj)``: :func:`pi_tools.js.json_stringify.js_own_keys` against Node (canonical array-index
names ascending first, up to 2**32 - 2, then the other keys in insertion order)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.js.json_stringify import js_own_keys

from support.nodecases import node_cases


@pytest.mark.parametrize("case", node_cases("object_keys"), ids=lambda c: ",".join(c["result"])[:40])
def test_own_keys_match_node(case: dict[str, Any]) -> None:
    # The file lists the keys in Node's Object.keys order; reversed, the dict puts every key out of place, and
    # the result must still be Node's order with only the non-index keys' (reversed) insertion order differing.
    shuffled = dict(reversed(list(case["value"].items())))
    indexed = [key for key in case["result"] if _is_index(key)]
    named = [key for key in reversed(case["result"]) if not _is_index(key)]
    assert js_own_keys(shuffled) == indexed + named
    assert js_own_keys(case["value"]) == case["result"]


def _is_index(key: str) -> bool:
    """An array index as ECMAScript defines it: a canonical non-negative integer below 2**32 - 1."""
    return key.isascii() and key.isdigit() and key == str(int(key)) and int(key) <= 2**32 - 2

"""Property reads and the V8 ``TypeError`` texts where they fail (:mod:`pi_tools.js.access`), against the
messages Node 22 threw for the same reads (``for...of`` a non-iterable, a read on null or undefined, a string
method called on a number)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pi_tools.js.access import (
    ABSENT,
    assign_or_drop,
    block_type,
    content_array,
    copy_defined,
    for_of,
    js_field_text,
    js_join_piece,
    js_member,
    require_string,
    string_field,
)
from pi_tools.js.errors import JsTypeError
from pi_tools.js.values import UNDEFINED

from support.nodecases import node_cases

# Each Node probe (scripts/js_expectations.mjs) and the same read through pi_tools.js.access.
READS: dict[str, Callable[[], Any]] = {
    "for_of_number": lambda: for_of(5, "content"),
    "for_of_object": lambda: for_of({}, "content"),
    "for_of_null": lambda: for_of(None, "content"),
    "null_type": lambda: block_type(None),
    "undefined_type": lambda: js_member({}, "block", "type"),
    "filter_number": lambda: content_array({"content": 5}, "content.filter"),
    "replace_number": lambda: require_string(5, "text", "replace"),
    "replace_null": lambda: string_field({"text": None}, "text"),
    "trim_undefined": lambda: string_field({}, "text", "trim"),
}


@pytest.mark.parametrize("case", node_cases("property_access"), ids=lambda c: c["case"])
def test_type_error_text_matches_node(case: dict[str, Any]) -> None:
    with pytest.raises(JsTypeError) as caught:
        READS[case["case"]]()
    assert str(caught.value) == case["error"]


def test_reads_that_succeed() -> None:
    assert for_of("ab", "content") == "ab" and block_type("x") is None and block_type({"type": "text"}) == "text"
    assert js_member({"a": 0}, "a", "b") == 0 and require_string("s", "text", "trim") == "s"


def test_undefined_vanishes_and_null_stays() -> None:
    """A missing property is undefined: copied or assigned, it disappears from the JSON; a stored null is kept."""
    assert copy_defined({}, {"a": None}, "a", "b") == {"a": None}
    target = {"a": 1, "b": 2}
    assign_or_drop(target, "a", ABSENT)
    assign_or_drop(target, "b", None)
    assert target == {"b": None}


def test_template_literal_and_join_pieces() -> None:
    """``${record.key}`` prints undefined/null; ``[...].join()`` writes both as empty."""
    assert js_field_text({}, "mimeType") == "undefined" and js_field_text({"mimeType": None}, "mimeType") == "null"
    assert js_join_piece(None) == "" and js_join_piece(ABSENT) == "" and js_join_piece([1, 2]) == "1,2"


@pytest.mark.parametrize(("value", "error"), [
    (None, "Cannot read properties of null (reading 'replace')"),  # Node 22: null.replace(...)
    (UNDEFINED, "Cannot read properties of undefined (reading 'replace')"),
])
def test_a_stored_null_is_not_undefined(value: Any, error: str) -> None:
    with pytest.raises(JsTypeError) as caught:
        require_string(value, "text", "replace")
    assert str(caught.value) == error

"""``Map`` key identity (SameValueZero): :func:`pi_tools.js.values.js_map_key`. pi-ai keys tool-call id tables by
stored values, so ``1`` and ``1.0`` are one key, ``true`` and ``1`` two, and an object only matches itself."""

from __future__ import annotations

from pi_tools.js.values import UNDEFINED, js_map_key


def test_numbers_of_equal_value_share_a_key() -> None:
    assert js_map_key(1) == js_map_key(1.0) and js_map_key(0) == js_map_key(-0.0)


def test_types_never_collide() -> None:
    keys = [js_map_key(value) for value in (True, 1, "1", None, UNDEFINED, "true", "null", "undefined")]
    assert len(set(keys)) == len(keys)


def test_objects_are_fresh_keys() -> None:
    assert js_map_key({}) != js_map_key({}) and js_map_key([1]) != js_map_key([1])


def test_integers_past_2_to_the_53_are_doubles() -> None:
    """JSON.parse makes 9007199254740993 the double 9007199254740992: one Map key with it."""
    assert js_map_key(2**53 + 1) == js_map_key(2**53) == js_map_key(float(2**53))
    assert js_map_key(2**53 - 1) != js_map_key(2**53)

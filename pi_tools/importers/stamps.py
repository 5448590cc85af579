"""Timestamps as Pi stores them: ISO strings on entries (`toISOString`), milliseconds on messages.

Sources write ISO strings of their own precision (Codex: microseconds; Claude Code: milliseconds); Pi reads its
entries' `timestamp` with `new Date()`, so the importers normalise them through the same conversion
(js/date.py) and write them back the way `Date.prototype.toISOString` does.
"""

from __future__ import annotations

from typing import Any

from pi_tools.js.date import js_date_ms, js_iso_string


def stamp_ms(value: Any) -> int | None:
    """Milliseconds since the epoch of an ISO string (None when it is not a date)."""
    if not isinstance(value, str) or not value:
        return None
    return js_date_ms(value)


def iso(ms: int) -> str:
    """`new Date(ms).toISOString()`."""
    text = js_iso_string(ms)
    assert text is not None
    return text

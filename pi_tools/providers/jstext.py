"""How JavaScript turns stored values into text and booleans, for values Pi interpolates without checking.

Sessions are untyped JSON, and pi-ai writes fields into template literals, ``Array.prototype.join`` and ``if``
tests as they come. A malformed session therefore yields ``data:null;base64,...`` or ``Tool "undefined"`` in the
request or error rather than a crash, and these helpers give the same text. ``UNDEFINED`` stands for a missing
property where the difference from ``null`` shows (``undefined`` prints, and joins, differently).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.messages.jsvalues import UNDEFINED, js_to_string, js_truthy

# The package's one JS-value vocabulary (undefined, String(), truthiness) lives in pi_tools.messages.jsvalues.
js_string = js_to_string

__all__ = ["UNDEFINED", "image_data_url", "js_field_text", "js_join_piece", "js_string", "js_truthy"]


def js_join_piece(value: Any) -> str:
    """One element as ``Array.prototype.join`` writes it: null and undefined become empty."""
    return "" if value is None or value is UNDEFINED else js_string(value)


def js_field_text(record: Mapping[str, Any], key: str) -> str:
    """``${record.key}``: a missing property prints as ``undefined``, a null one as ``null``."""
    return js_string(record[key]) if isinstance(record, dict) and key in record else "undefined"


def image_data_url(block: Mapping[str, Any]) -> str:
    """The data URL every OpenAI-style API takes for an inline image, printed as Pi's template literal does."""
    return f"data:{js_field_text(block, 'mimeType')};base64,{js_field_text(block, 'data')}"

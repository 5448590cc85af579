"""The data URL every OpenAI-style API takes for an inline image, printed as pi-ai's template literal does.

A malformed image block yields ``data:undefined;base64,null`` rather than a crash, exactly as in Pi.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.js.access import js_field_text


def image_data_url(block: Mapping[str, Any]) -> str:
    """The data URL every OpenAI-style API takes for an inline image, printed as Pi's template literal does."""
    return f"data:{js_field_text(block, 'mimeType')};base64,{js_field_text(block, 'data')}"

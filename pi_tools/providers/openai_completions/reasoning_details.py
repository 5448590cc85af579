"""OpenRouter `reasoning_details` items: which shapes pi-ai accepts, both when replaying them in a request and
when collecting them from a stream (the same guard in both directions)."""

from __future__ import annotations

from typing import Any


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_reasoning_detail(detail: Any) -> bool:
    """A well-formed reasoning.summary / reasoning.encrypted / reasoning.text item."""
    if not isinstance(detail, dict):
        return False
    if "id" in detail and not (detail["id"] is None or isinstance(detail["id"], str)):
        return False
    if "format" in detail and not isinstance(detail["format"], str):
        return False
    if "index" in detail and not _is_number(detail["index"]):
        return False
    kind = detail.get("type")
    if kind == "reasoning.summary":
        return isinstance(detail.get("summary"), str)
    if kind == "reasoning.encrypted":
        return isinstance(detail.get("data"), str)
    if kind == "reasoning.text":
        signature = detail.get("signature")
        return isinstance(detail.get("text"), str) and (signature is None or isinstance(signature, str))
    return False

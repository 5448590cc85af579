"""Pi's blockImages behaviour: images in user-side content become one placeholder text per run."""

from __future__ import annotations

from typing import Any

BLOCKED_IMAGE_TEXT = "Image reading is disabled."


def replace_blocked_images(content: list[Any]) -> list[Any] | None:
    """Return content with each image replaced by the placeholder (runs deduplicated), or None if no image.

    Pi dedupes against the *mapped* predecessor, so a placeholder text the user typed right before an image also
    swallows the image's placeholder; this keeps that.
    """
    if not any(isinstance(block, dict) and block.get("type") == "image" for block in content):
        return None
    mapped = [
        {"type": "text", "text": BLOCKED_IMAGE_TEXT}
        if isinstance(block, dict) and block.get("type") == "image"
        else block
        for block in content
    ]
    kept: list[Any] = []
    for index, block in enumerate(mapped):
        if index > 0 and _is_placeholder(block) and _is_placeholder(mapped[index - 1]):
            continue
        kept.append(block)
    return kept


def _is_placeholder(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and block.get("text") == BLOCKED_IMAGE_TEXT

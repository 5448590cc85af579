"""Huge texts cut out of the page and kept beside it, so that a transcript stays a page a browser opens.

A session can hold a 60 MB tool output; copied into the page it makes a 60 MB page that no browser renders.
Any text of the transcript (a tool result, a bash output, a message, arguments) longer than CUT_AT characters
is shown by its first KEEP characters, with a note of its full size and a link to a sidecar file that holds
the exact full text: `<page file name>.output-<n>.txt`, in the page's folder, written atomically by the caller
(the page's own writer). A page sent to stdout has no folder: the text is cut all the same and the note says
the full text is in the session file only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CUT_AT = 100_000
"""Characters above which a text leaves the page (a long answer or a big file read stays whole)."""
KEEP = 10_000
"""Characters of a cut text shown in the page."""


def sidecar_name(page: str, number: int) -> str:
    """The file name (no folder) of the page's `number`th cut text."""
    return f"{Path(page).name}.output-{number}.txt"


def cut_texts(view: Any, page: str | None) -> list[tuple[str, str]]:
    """Cut every text body (transcript.text_body's dicts) longer than CUT_AT in the transcript model, in place,
    and return (sidecar path, full text) for each, in page order; no sidecars when `page` is None (stdout).

    A cut body keeps its first KEEP characters and gains `cut`: {chars, lines, file (a name relative to the
    page, or None)} that the templates show."""
    found: list[dict[str, Any]] = []
    _collect(view, found)
    sidecars: list[tuple[str, str]] = []
    for body in found:
        text: str = body["text"]
        file = None
        if page is not None:
            file = sidecar_name(page, len(sidecars) + 1)
            sidecars.append((str(Path(page).with_name(file)), text))
        head = text[:KEEP]
        body.update(text=head, long=True, cut={"chars": len(text), "lines": body["lines"], "file": file},
                    lines=head.count("\n") + 1)
    return sidecars


def _collect(value: Any, found: list[dict[str, Any]]) -> None:
    """The text bodies above CUT_AT, depth first in the order the templates lay them out."""
    if isinstance(value, dict):
        text = value.get("text")
        if isinstance(text, str) and "lines" in value and "long" in value:
            if len(text) > CUT_AT and all(value is not seen for seen in found):  # (a result shown twice)
                found.append(value)
            return
        for item in value.values():
            _collect(item, found)
    elif isinstance(value, list):
        for item in value:
            _collect(item, found)

"""pi-ai's text sanitizers, applied to every text and id it sends.

They are pi-ai functions, not JavaScript built-ins, but their results depend on JavaScript's string model
(UTF-16 code units, regexes without the ``u`` flag), which :mod:`pi_tools.js.strings` provides.
"""

from __future__ import annotations

import re

from pi_tools.js.strings import LONE_SURROGATE, SURROGATE, join_surrogate_pairs

_NON_ID_CHAR = re.compile(r"[^a-zA-Z0-9_-]")


def _underscore_per_code_unit(match: re.Match[str]) -> str:
    return "__" if ord(match.group(0)) > 0xFFFF else "_"


def sanitize_id_chars(s: str) -> str:
    """``s.replace(/[^a-zA-Z0-9_-]/g, "_")``: a non-unicode JS regex sees an astral character as two code units,
    so it becomes two underscores (Python's ``re`` would write one).

    Most ids are letters, digits, ``_`` and ``-`` already: str methods answer that without the regex."""
    if s.isascii() and s.replace("_", "a").replace("-", "a").isalnum():
        return s
    return _NON_ID_CHAR.sub(_underscore_per_code_unit, s)


def sanitize_surrogates(s: str) -> str:
    """Drop unpaired UTF-16 surrogates, as pi-ai does before sending any text.

    Python strings decoded from ``\\ud83d``-style escapes can hold such code points; a surrogate pair stored as two
    code points is a valid character in JS, so it is kept (merged into one Python character).
    """
    if s.isascii() or SURROGATE.search(s) is None:
        return s
    return LONE_SURROGATE.sub("", join_surrogate_pairs(s))

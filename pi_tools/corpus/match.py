"""The pattern of a search: how text is matched, the one-line text a hit shows, and the byte-level prefilter
that lets a literal search skip the JSON parsing of lines that cannot match.

A JSON string may spell any character as a `\\uXXXX` escape (Pi's writer uses them for control characters
and lone surrogates; other writers for anything), and `"`, `\\` and control characters always as escapes, so
the raw bytes of a line need not contain a pattern its text contains. The prefilter is therefore built only
for literal patterns without characters JSON escapes, and a line passes it when its bytes hold the pattern's
UTF-8 (for --ignore-case: in any case Python's re folds to) or a `\\uXXXX` escape of one of its characters
(or `\\/` when it has a slash). Lines that pass are parsed and matched for real; so the prefilter may let
through lines that do not match, never drop one that does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CONTEXT_CHARS = 40
"""Characters of context a hit's text shows on each side of the match."""
MATCH_CHARS = 160
"""Characters of the match itself a hit's text shows at most."""
ELLIPSIS = "…"

# Non-ASCII characters that Python's re (re.IGNORECASE, str patterns) matches with an ASCII letter; the test
# checks this table against every code point.
ASCII_FOLDS: dict[str, tuple[str, ...]] = {"i": ("\u0130", "\u0131"), "k": ("\u212a",), "s": ("\u017f",)}
_CONTROL = re.compile("[\x00-\x1f\x7f\u2028\u2029]")


class PatternError(ValueError):
    """The pattern cannot be used (a regular expression that does not compile, an empty pattern)."""


def _hex_escape(char: str) -> bytes:
    """The hex digits of `char`'s \\u escape (a surrogate pair's past the BMP), after the first \\u."""
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return b"%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))
    return b"%04x" % code


def _json_escaped(char: str) -> bool:
    """Characters whose raw form cannot stand in a JSON string (or that a decoder puts in for bad bytes)."""
    code = ord(char)
    return char in '"\\\ufffd' or code < 0x20 or 0xD800 <= code <= 0xDFFF


@dataclass(frozen=True)
class Prefilter:
    """Finds the lines of a file's bytes that may hold a match (see the module docstring)."""

    literal: bytes | None  # the pattern's UTF-8, found with bytes.find (None: `folded` is used)
    folded: re.Pattern[bytes] | None  # for --ignore-case: matched against the lowered bytes
    escapes: re.Pattern[bytes]  # \uXXXX spellings of the pattern's characters
    slash: bool  # the pattern has a "/", which JSON may also write as \/

    def lines(self, data: bytes) -> list[tuple[int, int]]:
        """(start, end) of each line (without its "\\n") that may match, in file order."""
        starts: set[int] = set()
        if self.literal is not None:
            _collect(data, starts, self.literal)
        else:
            assert self.folded is not None
            _collect_matches(data.lower(), starts, self.folded)  # ASCII lowering keeps every byte's position
        if self.slash:
            _collect(data, starts, b"\\/")
        if b"\\u" in data:  # escapes: a separate scan, which skips ahead to each \u
            _collect_matches(data, starts, self.escapes)
        out = []
        for start in sorted(starts):
            end = data.find(b"\n", start)
            out.append((start, len(data) if end < 0 else end))
        return out


def _collect(data: bytes, starts: set[int], literal: bytes) -> None:
    """Add the start of each line holding `literal`; one find per line at most (the rest of a line is skipped)."""
    find, rfind = data.find, data.rfind
    position = 0
    while True:
        found = find(literal, position)
        if found < 0:
            return
        starts.add(rfind(b"\n", 0, found) + 1)
        end = find(b"\n", found + len(literal))
        if end < 0:
            return
        position = end + 1


def _collect_matches(data: bytes, starts: set[int], pattern: re.Pattern[bytes]) -> None:
    """`_collect` for a pattern: the start of each line `pattern` matches in."""
    search, find, rfind = pattern.search, data.find, data.rfind
    position = 0
    while True:
        found = search(data, position)
        if found is None:
            return
        starts.add(rfind(b"\n", 0, found.start()) + 1)
        end = find(b"\n", found.end())
        if end < 0:
            return
        position = end + 1


@dataclass(frozen=True)
class Matcher:
    """A compiled search pattern (picklable: it travels to worker processes with each task)."""

    pattern: str
    regex: bool = False
    ignore_case: bool = False
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)
    prefilter: Prefilter | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.pattern:
            raise PatternError("PATTERN: an empty pattern matches everything; give some text")
        source = self.pattern if self.regex else re.escape(self.pattern)
        try:
            compiled = re.compile(source, re.IGNORECASE if self.ignore_case else 0)
        except re.error as exc:
            where = f" at position {exc.pos}" if exc.pos is not None else ""
            raise PatternError(f"PATTERN: not a valid regular expression{where}: {exc.msg}") from None
        if compiled.search("") is not None:
            raise PatternError("PATTERN: this regular expression matches empty text (every entry would be a hit)")
        object.__setattr__(self, "compiled", compiled)
        object.__setattr__(self, "prefilter", None if self.regex else _prefilter(self.pattern, self.ignore_case))

    def find(self, text: str) -> tuple[int, int] | None:
        """The first match in `text` as (start, end), or None."""
        found = self.compiled.search(text)
        return None if found is None else found.span()

    def __reduce__(self) -> tuple[type[Matcher], tuple[str, bool, bool]]:
        return (Matcher, (self.pattern, self.regex, self.ignore_case))


def _prefilter(pattern: str, ignore_case: bool) -> Prefilter | None:
    if any(_json_escaped(char) for char in pattern):
        return None
    if ignore_case and not pattern.isascii():
        return None  # non-ASCII case folding has too many spellings to list: every line is parsed
    chars = set(pattern)
    if ignore_case:
        chars |= {variant for char in pattern.lower() for variant in (char, char.upper(), *ASCII_FOLDS.get(char, ()))}
    # One literal prefix (\u) lets re skip ahead quickly; the hex digits may be written in either case.
    escapes = re.compile(b"\\\\u(?i:" + b"|".join(re.escape(_hex_escape(char)) for char in sorted(chars)) + b")")
    slash = "/" in chars
    if not ignore_case:
        return Prefilter(pattern.encode("utf-8"), None, escapes, slash)
    parts = []
    for char in pattern.lower():
        folds = ASCII_FOLDS.get(char)
        if folds is None:
            parts.append(re.escape(char.encode()))
        else:
            # bytes.lower() leaves non-ASCII bytes alone, so the folds are looked for as they are written.
            parts.append(b"(?:" + b"|".join([re.escape(char.encode()), *(fold.encode() for fold in folds)]) + b")")
    return Prefilter(None, re.compile(b"".join(parts)), escapes, slash)


def hit_text(text: str, start: int, end: int) -> str:
    """The match with up to CONTEXT_CHARS characters on each side, on one line: line breaks, tabs and other
    control characters become spaces; a match longer than MATCH_CHARS is cut; "…" marks every cut."""
    before = max(0, start - CONTEXT_CHARS)
    shown_end = min(end, start + MATCH_CHARS)
    after = min(len(text), shown_end + CONTEXT_CHARS) if shown_end == end else shown_end
    piece = text[before:after]
    piece = _CONTROL.sub(" ", piece)
    return (ELLIPSIS if before > 0 else "") + piece + (ELLIPSIS if after < len(text) else "")

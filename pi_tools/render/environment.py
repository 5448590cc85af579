"""The jinja2 environment for previews: autoescaping everywhere, plus the few filters the templates need.

Session content is untrusted (a transcript can hold any text a model or a tool produced), so nothing reaches a
page unescaped: HTML templates rely on autoescaping, and the Markdown template's filters return already-safe
markup (escaped inline text, or fenced code whose fence is longer than any backtick run inside it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from pi_tools.output.templates import template_loader

# Inline Markdown syntax (emphasis, code spans, links and images, table cells, strikethrough); `<` and `&` are
# entity-escaped, which also rules out raw HTML and autolinks.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
# What would open a block (heading, list, quote, setext underline) when a value begins a line's content.
_BLOCK_MARK = re.compile(r"^(\s*)([#>+=-])")
_ORDERED_MARK = re.compile(r"^(\s*\d+)([.)])")
_BACKTICK_RUN = re.compile(r"`+")
_LINE_BREAKS = re.compile(r"\r\n|\r|\n")
_BLANK_RUNS = re.compile(r"\n{3,}")


def md_text(value: Any) -> Markup:
    """Inline Markdown text: HTML metacharacters as entities, Markdown punctuation backslash-escaped.

    Line breaks become spaces so a value can never open a new block (heading, list, fence) of its own.
    """
    text = _LINE_BREAKS.sub(" ", "" if value is None else str(value))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    text = _BLOCK_MARK.sub(r"\1\\\2", text)
    return Markup(_ORDERED_MARK.sub(r"\1\\\2", text))


def md_span(value: Any) -> Markup:
    """An inline code span (for identifiers): delimiters longer than any backtick run inside, one line."""
    text = _LINE_BREAKS.sub(" ", "" if value is None else str(value))
    longest = max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return Markup(f"{ticks}{pad}{text}{pad}{ticks}")


def squeeze_blank_lines(pieces: Iterable[str]) -> Iterator[str]:
    """At most one blank line in a row, across template pieces (Markdown from macros gathers many).

    Only used on Markdown whose code blocks hold indented JSON, which never contains a blank line.
    """
    pending = 0
    for piece in pieces:
        body = piece.lstrip("\n")
        if not body:
            pending += len(piece)
            continue
        lead = pending + len(piece) - len(body)
        body = _BLANK_RUNS.sub("\n\n", body)
        kept = body.rstrip("\n")
        pending = len(body) - len(kept)
        yield "\n" * min(lead, 2) + kept
    yield "\n"


def md_code(value: Any, language: str = "") -> Markup:
    """A fenced code block whose fence outlasts every backtick run inside, so the content cannot close it.

    Code blocks are literal in every CommonMark renderer (never raw HTML), so the text is not entity-escaped.
    """
    text = "" if value is None else str(value)
    longest = max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return Markup(f"{fence}{language}\n{text}\n{fence}")


@cache
def render_environment() -> jinja2.Environment:
    """One shared environment (templates are compiled once per process)."""
    environment = jinja2.Environment(
        loader=template_loader(),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["md_text"] = md_text
    environment.filters["md_code"] = md_code
    environment.filters["md_span"] = md_span
    return environment

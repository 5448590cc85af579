"""The export templates, through the shared jinja2 environment (render/environment.py: autoescape on).

Markdown needs one filter the previews do not: prose. Message text is Markdown already, but a transcript must
not let session text become raw HTML or links, so prose lines are escaped as inline text (entities and Markdown
punctuation) while the text's own fenced code blocks stay literal inside fences no backtick run can close.
"""

from __future__ import annotations

import re
from typing import Any

import jinja2
from markupsafe import Markup, escape

try:
    from markupsafe._speedups import _escape_inner
except ImportError:  # markupsafe without its C extension
    from markupsafe._native import _escape_inner

from pi_tools.render.environment import render_environment

# Markup(text) runs Markup.__new__ in Python (an __html__ test, then str.__new__); the filters' results and
# the escapes are made by str.__new__ directly, tens of thousands of times per transcript.
_new_str = str.__new__


def _safe(text: str) -> Markup:
    """Markup(text) for a str that is already safe."""
    return _new_str(Markup, text)


def fast_escape(value: Any) -> Markup:
    """markupsafe.escape with its two common cases done without a Python-level Markup.__new__ (same results)."""
    kind = type(value)
    if kind is str:
        return _new_str(Markup, _escape_inner(value))
    if kind is Markup:
        return value  # escape() would copy it: Markup(value.__html__()), an equal immutable string
    return escape(value)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# The previews' Markdown escapes (render/environment.py: md_text, md_code, md_span), done with str.replace and
# string tests instead of regex replacement templates: a transcript calls them tens of thousands of times.
# Backslash first, so the backslashes added after it are not doubled.
_INLINE = (("\\", "\\\\"), ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("`", "\\`"), ("*", "\\*"),
           ("_", "\\_"), ("[", "\\["), ("]", "\\]"), ("|", "\\|"), ("~", "\\~"))


def _inline(text: str) -> str:
    """Entities and backslash escapes (str.replace per character: much faster than translate on long text)."""
    for char, escaped in _INLINE:
        if char in text:
            text = text.replace(char, escaped)
    return text
_BLOCK_MARK = re.compile(r"^([^\S\n]*)([#+=-])", re.M)
_ORDERED_MARK = re.compile(r"^([^\S\n]*\d+)([.)])", re.M)
_LINE_BREAKS = re.compile(r"\r\n|\r|\n")
_BACKTICK_RUN = re.compile(r"`+")
_LANGUAGE = re.compile(r"[^A-Za-z0-9_+-]")


def _mark_blocks(text: str) -> str:
    """Backslash a mark that would open a block (heading, list, setext line, ordered item) at a line's start."""
    if "#" in text or "+" in text or "=" in text or "-" in text:
        text = _BLOCK_MARK.sub(_backslash_mark, text)
    if "." in text or ")" in text:
        text = _ORDERED_MARK.sub(_backslash_mark, text)
    return text


def _backslash_mark(match: re.Match[str]) -> str:
    return f"{match.group(1)}\\{match.group(2)}"


def md_line(value: Any) -> Markup:
    """md_text: one line of inline Markdown text, HTML metacharacters as entities, punctuation escaped."""
    text = "" if value is None else str(value)
    if "\n" in text or "\r" in text:
        text = _LINE_BREAKS.sub(" ", text)
    text = _inline(text)
    if text and not _may_open_block(text[0]):
        return _safe(text)  # one line whose first character is none of a block mark's: nothing to mark
    return _safe(_mark_blocks(text))


def _may_open_block(first: str) -> bool:
    """Whether a line starting with `first` can match _BLOCK_MARK or _ORDERED_MARK (\\s and \\d of `re` are
    str.isspace and str.isdecimal)."""
    return first in "#+=-" or first.isspace() or first.isdecimal()


def _longest_backticks(text: str) -> int:
    """The longest run of backticks in `text` (substring tests: a regex scan of long tool output costs more)."""
    if "`" not in text:
        return 0
    longest = 1
    while "`" * (longest + 1) in text:
        longest += 1
    return longest


def md_block(value: Any, language: str = "") -> Markup:
    """md_code: a fenced code block whose fence outlasts every backtick run inside (the text stays literal)."""
    text = "" if value is None else str(value)
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return _safe(f"{fence}{language}\n{text}\n{fence}")


def md_tick(value: Any) -> Markup:
    """md_span: an inline code span on one line, its delimiters longer than any backtick run inside."""
    text = "" if value is None else str(value)
    if "`" not in text and "\n" not in text and "\r" not in text and text.strip():
        return _safe(f"`{text}`")  # an id or a name: the usual case
    if "\n" in text or "\r" in text:
        text = _LINE_BREAKS.sub(" ", text)
    ticks = "`" * (_longest_backticks(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return _safe(f"{ticks}{pad}{text}{pad}{ticks}")


# A code span within one line: a backtick run, then the shortest text up to a run of the same length.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def _inline_keeping_spans(line: str) -> str:
    """One line's inline escapes, its well-formed code spans left as they are.

    CommonMark shows a code span's content literally (no HTML, entity or link inside it is recognised), so a
    span needs no escaping; any backtick outside a matched pair is escaped like the rest.
    """
    pieces = []
    position = 0
    for span in _CODE_SPAN.finditer(line):
        pieces.append(_inline(line[position:span.start()]))
        pieces.append(span.group(0))
        position = span.end()
    pieces.append(_inline(line[position:]))
    return "".join(pieces)


def _escape_lines(text: str) -> str:
    """Lines of prose as inline Markdown text (as md_line escapes one, code spans kept), each ending in a hard
    break."""
    if "`" in text:
        escaped = _mark_blocks("\n".join(_inline_keeping_spans(line) if "`" in line else _inline(line)
                                         for line in text.split("\n")))
    else:
        escaped = _mark_blocks(_inline(text))
    return "\n".join(f"{line}  " if line and not line.isspace() else line for line in escaped.split("\n"))


def md_prose(value: Any) -> Markup:
    """Session prose for Markdown: escaped line by line (hard breaks and code spans kept), fenced code blocks kept
    literal."""
    text = "" if value is None else str(value)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "```" not in text and "~~~" not in text:
        return _safe(_escape_lines(text).rstrip())
    out: list[str] = []
    prose: list[str] = []
    code: list[str] | None = None
    fence = language = ""
    for line in text.split("\n"):
        if code is None:
            opening = _FENCE.match(line)
            if opening:
                out.append(_escape_lines("\n".join(prose)))
                prose, code, fence = [], [], opening.group(1)
                words = opening.group(2).split()
                language = _LANGUAGE.sub("", words[0]) if words else ""
            else:
                prose.append(line)
        elif line.strip().startswith(fence) and not line.strip().strip(fence[0]):
            out.append(str(md_block("\n".join(code), language)))
            code = None
        else:
            code.append(line)
    if code is not None:
        out.append(str(md_block("\n".join(code), language)))
    else:
        out.append(_escape_lines("\n".join(prose)))
    return _safe("\n".join(out).rstrip())


def md_html(value: Any) -> Markup:
    """Markdown rendered as HTML, raw HTML off (export/markdown.py), for the HTML page's assistant text."""
    from pi_tools.export.markdown import render_markdown

    return render_markdown(value)


_FILTERS = {"md_prose": md_prose, "md_line": md_line, "md_block": md_block, "md_tick": md_tick, "md_html": md_html}


def export_template(fmt: str) -> jinja2.Template:
    """`export.<fmt>.j2` from the templates the render environment finds (so packaging them serves both).

    Compiling the page template costs about 0.15 s, as much as reading a 3 MB session, so the compiled code is
    kept in jinja2's own per-user cache folder (checked against the template's source and the Python version;
    written atomically; without a usable folder templates are simply compiled each time).
    """
    environment = render_environment()
    for name, function in _FILTERS.items():
        environment.filters.setdefault(name, function)
    if environment.bytecode_cache is None:
        try:
            environment.bytecode_cache = jinja2.FileSystemBytecodeCache()
        except (OSError, RuntimeError):
            pass
    template = environment.get_template(f"export.{fmt}.j2")
    # The compiled template calls the name `escape` of its own namespace for every {{ }} (jinja2 binds it to
    # markupsafe.escape there); the same escaping with less overhead per call, for this template only.
    namespace = template.root_render_func.__globals__
    if namespace.get("escape") is escape:
        namespace["escape"] = fast_escape
    return template

"""The export templates, through the shared jinja2 environment (render/environment.py: autoescape on).

Markdown needs one filter the previews do not: prose. Message text is Markdown already, but a transcript must
not let session text become raw HTML or links, so prose lines are escaped as inline text (entities and Markdown
punctuation) while the text's own fenced code blocks stay literal inside fences no backtick run can close.
"""

from __future__ import annotations

import re
from typing import Any

import jinja2
from markupsafe import Markup

from pi_tools.render.environment import md_code, md_text, render_environment

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def md_prose(value: Any) -> Markup:
    """Session prose for Markdown: escaped line by line (hard breaks kept), fenced code blocks kept literal."""
    text = "" if value is None else str(value).replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    code: list[str] | None = None
    fence = ""
    language = ""
    for line in text.split("\n"):
        if code is None:
            opening = _FENCE.match(line)
            if opening:
                code, fence = [], opening.group(1)
                language = opening.group(2).strip().split(" ")[0] if opening.group(2).strip() else ""
                continue
            out.append(f"{md_text(line)}  " if line.strip() else "")
        elif line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
            out.append(str(md_code("\n".join(code), re.sub(r"[^A-Za-z0-9_+-]", "", language))))
            code = None
        else:
            code.append(line)
    if code is not None:
        out.append(str(md_code("\n".join(code), re.sub(r"[^A-Za-z0-9_+-]", "", language))))
    return Markup("\n".join(out).rstrip())


def export_template(fmt: str) -> jinja2.Template:
    """`export.<fmt>.j2` from the templates the render environment finds (so packaging them serves both)."""
    environment = render_environment()
    environment.filters.setdefault("md_prose", md_prose)
    return environment.get_template(f"export.{fmt}.j2")

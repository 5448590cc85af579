"""Human-readable payload previews: what Pi stored, what convertToLlm made of it, what each provider receives.

`render_session(tree, request, fmt)` is the whole stage: build the view model (preview.py), then fill the
HTML or Markdown template (environment.py). Every change Pi makes along the way is named (annotate.py) where it
happens.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_tools.render.preview import (
        RenderRequest,
        Target,
        TargetError,
        build_preview,
        pair_targets,
    )
    from pi_tools.session import SessionTree

# The preview machinery (catalog, payload builders) loads on first use, so that the export, which only needs
# the template environment, does not pay for it.
_PREVIEW_NAMES = frozenset({"RenderRequest", "Target", "TargetError", "build_preview", "pair_targets"})


def __getattr__(name: str) -> Any:
    if name in _PREVIEW_NAMES:
        from pi_tools.render import preview

        return getattr(preview, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

FORMATS = ("html", "md")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")

__all__ = [
    "FORMATS", "RenderRequest", "Target", "TargetError", "build_preview", "pair_targets",
    "iter_page", "render_session", "render_view",
]


def iter_page(view: dict[str, Any], fmt: str = "html") -> Iterator[str]:
    """The page in pieces, so a preview of a huge session is written without holding the whole page.

    A fresh nonce per page keeps its CSP meaningful. Lone UTF-16 halves can sit in session text; they cannot be
    written as UTF-8, so they are shown as U+FFFD. The template is loaded before the first piece is asked for,
    so a broken installation (pi_tools.output.templates.MissingTemplateError) shows before any output is opened.
    """
    from pi_tools.render.environment import render_environment

    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    return _pieces(render_environment().get_template(f"render.{fmt}.j2"), view, fmt)


def _pieces(template: Any, view: dict[str, Any], fmt: str) -> Iterator[str]:
    import secrets  # here, not at the top: the export imports this package for its environment only

    from pi_tools.render.environment import squeeze_blank_lines

    pieces = template.generate(view=view, nonce=secrets.token_urlsafe(18))
    if fmt == "md":
        pieces = squeeze_blank_lines(pieces)
    for piece in pieces:
        yield _LONE_SURROGATE.sub("\ufffd", piece)


def render_view(view: dict[str, Any], fmt: str = "html") -> str:
    return "".join(iter_page(view, fmt))


def render_session(tree: SessionTree, request: RenderRequest, fmt: str = "html") -> Iterator[str]:
    """Build the preview of one session and yield its page in pieces."""
    from pi_tools.render.preview import build_preview

    return iter_page(build_preview(tree, request), fmt)

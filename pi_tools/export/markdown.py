"""Assistant text as rendered Markdown in the HTML export, with session text never becoming markup of its own.

Models answer in Markdown; shown raw, a transcript is hard to read. markdown-it-py (CommonMark, the parser
`rich` already brings) renders it with raw HTML off: a `<script>` or `<img onerror>` in the text comes out as
escaped text, not as an element. What CommonMark would still make from session text is limited further:

- link targets go through markdown-it's own check (no `javascript:`, `vbscript:`, `file:` or `data:` URLs)
  and links carry `rel="noopener noreferrer nofollow"`;
- images are off (`![alt](url)` stays text and a link): a transcript never loads anything, and the page's CSP
  refuses every image that is not inline data anyway;
- tables and ~~strikethrough~~ (GitHub's extensions models use) are on; autolinking bare URLs is off.

The parser is built on first use: exports without assistant text never import it.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

LINK_REL = "noopener noreferrer nofollow"


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    parser.enable(["table", "strikethrough"])
    parser.disable("image")

    def link_open(renderer: Any, tokens: Any, index: int, options: Any, env: Any) -> str:
        tokens[index].attrSet("rel", LINK_REL)
        return str(renderer.renderToken(tokens, index, options, env))

    parser.add_render_rule("link_open", link_open)
    return parser


def render_markdown(text: Any) -> Markup:
    """HTML for a Markdown text (anything else: its escaped string form), safe to place in the page."""
    if not isinstance(text, str):
        return Markup.escape(text)
    return Markup(_parser().render(text))

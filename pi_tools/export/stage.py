"""The export stage: one loaded session in, a transcript (md, html) or a ChatMessage conversation (chat) out."""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pi_tools.export.chat import ChatMessage, ChatProjection
from pi_tools.export.cutting import cut_texts
from pi_tools.export.redaction import Rewrite, make_rewrite, rewrite_value
from pi_tools.export.transcript import TranscriptOptions, build_transcript, hidden_by_compaction
from pi_tools.session.context import PI_085_RULES, ContextError
from pi_tools.session.tree import PathCycleError, SessionTree

FORMATS = ("md", "html", "chat")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


class ExportError(ValueError):
    """Options that cannot be honoured for this session or format; the message is meant for the user."""


@dataclass
class ExportOptions(TranscriptOptions):
    """TranscriptOptions plus the rewriting of session text (--redact REGEX..., --scrub)."""

    redact: Sequence[str] = field(default_factory=tuple)
    scrub: bool = False
    page: str | None = None
    """The file the page goes to (None: stdout): texts above cutting.CUT_AT are cut, and kept in full in
    sidecar files named after it (md, html)."""


def rewritten_tree(tree: SessionTree, rewrite: Rewrite) -> SessionTree:
    """A copy of the tree whose session text went through `rewrite` (labels and name included)."""
    fresh = [rewrite_value(entry, rewrite) for entry in tree.entries]
    new_of = {id(old): new for old, new in zip(tree.entries, fresh, strict=True)}
    by_id = {key: new_of.get(id(entry), entry) for key, entry in tree.by_id.items()}
    labels = {key: rewrite(value) if isinstance(value, str) else value for key, value in tree.labels.items()}
    header = rewrite_value(tree.header, rewrite) if tree.header is not None else None
    return replace(tree, header=header, entries=fresh, by_id=by_id, labels=labels,
                   name=rewrite(tree.name) if tree.name else tree.name, _line_by_identity=None)


def _prepared(tree: SessionTree, options: ExportOptions) -> SessionTree:
    rewrite = make_rewrite(options.redact, options.scrub)
    return rewritten_tree(tree, rewrite) if rewrite is not None else tree


def chat_conversation(tree: SessionTree, options: ExportOptions | None = None) -> list[ChatMessage]:
    """The active path (or --leaf's) as ChatMessages, ids from the entries; history a compaction hid from the
    model is kept and carries `metadata: {"inContext": false}`."""
    options = options or ExportOptions()
    if options.branches != "active":
        raise ExportError("--branches all: a chat export is one conversation; pick a branch with --leaf ID "
                          "(md and html show the whole tree)")
    tree = _prepared(tree, options)
    if options.leaf is not None and options.leaf not in tree.by_id:
        raise ContextError(f"Entry {options.leaf} not found")
    try:
        path = tree.path(tree.leaf_id if options.leaf is None else options.leaf)
    except PathCycleError as exc:
        raise ContextError(str(exc)) from None
    rules = options.pi.context if options.pi is not None else PI_085_RULES
    hidden = hidden_by_compaction(path, rules)
    edits = _edits(tree, path, rules)
    projection = ChatProjection(thinking=options.thinking, tools=options.tools, roles=rules.vocabulary.roles)
    entry_messages = rules.entry_messages
    out: list[ChatMessage] = []
    used: set[str] = set()
    for entry, line in zip(path, (tree.line_of(e) for e in path), strict=True):
        entry_id = entry.get("id") if isinstance(entry, dict) else None
        base = entry_id if isinstance(entry_id, str) and entry_id and entry_id not in used else f"line-{line}"
        used.add(base)
        edit = edits.get(id(entry))
        for index, message in enumerate(entry_messages(entry)):
            if not _wanted(message, options.only):
                continue
            chat = projection.add(message, base if index == 0 else f"{base}-{index}")
            if chat is None:
                continue
            if id(entry) in hidden:
                chat["metadata"] = {"inContext": False}
            elif edit is not None:
                chat["metadata"] = edit
            out.append(chat)
    return out


def _edits(tree: SessionTree, path: list[Any], rules: Any) -> dict[int, dict[str, Any]]:
    """Pi 1.6: the entries of the context that its projection changed, each with the ChatMessage metadata that
    says so: removed by a context edit or an older compaction inside the kept range (`inContext: false`), or
    replaced (`contextEdit`: the edit's id and the content the model is sent instead)."""
    if not rules.context_edits:
        return {}
    try:
        selected = rules.context_entries(path)
        projected = rules.projected(selected, tree.materialize)
    except (ContextError, StopIteration, ValueError):
        return {}
    said: dict[int, dict[str, Any]] = {}
    for entry, (edit, messages, drawn) in zip(selected, projected, strict=True):
        if edit is None:
            if drawn and not messages:
                said[id(entry)] = {"inContext": False}
            continue
        by = edit.get("id")
        change: dict[str, Any] = {"by": by if isinstance(by, str) else None}
        if messages:
            change["content"] = messages[0].get("content") if isinstance(messages[0], dict) else None
            said[id(entry)] = {"contextEdit": change}
        else:
            said[id(entry)] = {"inContext": False, "contextEdit": change}
    return said


def _wanted(message: Any, only: str | None) -> bool:
    if only is None or not isinstance(message, dict):
        return only is None
    role = message.get("role")
    return role == only or (only == "assistant" and role == "toolResult")


def export_session(tree: SessionTree, fmt: str, options: ExportOptions | None = None,
                   sidecars: list[tuple[str, str]] | None = None) -> Iterator[str]:
    """The export of one session in pieces (raises ContextError, ExportError before the first piece).

    The texts cut out of an md or html page (cutting.py) are appended to `sidecars` as (path, full text), for
    the caller to write beside the page (they are left out of the page whether or not it asks)."""
    options = options or ExportOptions()
    if fmt not in FORMATS:
        raise ExportError(f"--format: unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    if fmt == "chat":
        return _chat_lines(chat_conversation(tree, options))
    from pi_tools.export.templating import export_template

    template = export_template(fmt)  # a template missing from the installation is said before any output
    view = build_transcript(_prepared(tree, options), options)
    view["session"] = session_totals(tree, options)
    kept = cut_texts(view, options.page)
    if sidecars is not None:
        sidecars.extend(kept)
    return _page(template, view)


def session_totals(tree: SessionTree, options: ExportOptions) -> dict[str, Any] | None:
    """The whole session's message count and cost, by the code `ls`, `index` and `usage` use (session/counts.py,
    usage/totals.py), so that the header and those commands agree; None when the file cannot be read again."""
    from pi_tools.session.counts import message_count
    from pi_tools.session.spending import PI_085_SPENDING
    from pi_tools.usage.totals import file_cost, format_cost

    try:
        cost = file_cost(tree.source, options.pi.spending if options.pi is not None else PI_085_SPENDING)
    except OSError:
        return None
    return {"messages": message_count(tree.entries), "cost": cost, "costText": format_cost(cost)}


def _chat_lines(messages: list[ChatMessage]) -> Iterator[str]:
    from pi_tools.pipe.documents import dumps_document

    for message in messages:
        yield dumps_document(message).decode("utf-8")


def _nonce() -> str:
    """secrets.token_urlsafe(18) without importing secrets (random, hmac, hashlib: a few ms of start-up)."""
    return base64.urlsafe_b64encode(os.urandom(18)).rstrip(b"=").decode("ascii")


_BATCH = 1 << 16


def _page(template: Any, view: dict[str, Any]) -> Iterator[str]:
    """The page in pieces of about 64k characters, lone surrogates made U+FFFD (the file is UTF-8).

    jinja2 yields tens of thousands of small pieces; one search per batch instead of one per piece.
    """
    batch: list[str] = []
    size = 0
    for piece in template.generate(view=view, nonce=_nonce()):
        batch.append(piece)
        size += len(piece)
        if size >= _BATCH:
            yield _without_lone_surrogates("".join(batch))
            batch.clear()
            size = 0
    if batch:
        yield _without_lone_surrogates("".join(batch))


def _without_lone_surrogates(text: str) -> str:
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text

"""The request behind a stored answer (payload --at ENTRY_ID, --last): which context and which model produced an
assistant message the session holds.

Pi sent that request with the context up to the message's parent (buildSessionContext with the parent as leaf,
the thinking level in force there) and with the model that answered: the one the message records (the same
choice as preflight --replay, providers.answered.request_model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_tools.js.values import UNDEFINED
from pi_tools.pipe.documents import DocumentError
from pi_tools.providers.answered import request_model
from pi_tools.session import SessionTree
from pi_tools.session.bulk import BulkSession


@dataclass(frozen=True)
class Answer:
    """A stored assistant message and the request that produced it."""

    entry_id: str
    line: int | None
    """1-based line of the message in the file."""
    parent: str
    """The leaf of the request's context: the message's parent."""
    model: dict[str, Any]
    """The catalog model that answered (or request_model's stand-in)."""


def _entry(tree: SessionTree | BulkSession, entry_id: str) -> tuple[dict[str, Any] | None, int | None]:
    """The full entry with that id and its file line, or (None, None)."""
    if isinstance(tree, BulkSession):
        index = tree.line_of(entry_id)
        return (tree.entry_at(index), index + 1) if index is not None else (None, None)
    head = tree.by_id.get(entry_id)
    if head is None:
        return None, None
    entry = tree.materialize(head)
    return (entry if isinstance(entry, dict) else None), tree.line_of(head)


def _last_assistant_id(tree: SessionTree | BulkSession) -> str | None:
    """The id of the last assistant message on the active path."""
    if isinstance(tree, BulkSession):
        roles = tree.line_roles
        ids = tree.line_ids
        for index in reversed(tree._path_indices(tree.leaf_id)):
            if roles[index] == "assistant" and isinstance(ids[index], str):
                return ids[index]
        return None
    for head in reversed(tree.path(UNDEFINED)):
        entry = tree.materialize(head)
        if isinstance(entry, dict) and entry.get("type") == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant" and isinstance(entry.get("id"), str):
                return str(entry["id"])
    return None


def find_answer(tree: SessionTree | BulkSession, entry_id: str | None, catalog: str | None = None) -> Answer:
    """The request behind the assistant message `entry_id` (None: the active path's last one); a clear
    DocumentError when the entry is missing, is no assistant message, has no parent or names no model."""
    source = tree.source
    where = f"--at {entry_id}" if entry_id is not None else "--last"
    if entry_id is None:
        entry_id = _last_assistant_id(tree)
        if entry_id is None:
            raise DocumentError(f"{source}: --last: the active path holds no assistant message")
    entry, line = _entry(tree, entry_id)
    if entry is None:
        raise DocumentError(f"{source}: {where}: no entry with that id")
    message = entry.get("message") if entry.get("type") == "message" else None
    if not isinstance(message, dict) or message.get("role") != "assistant":
        kind = f"a {message.get('role')!s} message" if isinstance(message, dict) else f"a {entry.get('type')!s} entry"
        raise DocumentError(f"{source}:{line}: {where}: the entry is {kind}, not an assistant message "
                            "(only an answer was produced by a request)")
    parent = entry.get("parentId")
    if not isinstance(parent, str) or not parent:
        raise DocumentError(f"{source}:{line}: {where}: the message has no parent, so no context led to it")
    model, _ = request_model(message, catalog)
    if model is None:
        raise DocumentError(f"{source}:{line}: {where}: the message records no model pi-tools can build for "
                            f"(provider {message.get('provider')!r}, model {message.get('model')!r}, "
                            f"api {message.get('api')!r})")
    return Answer(entry_id, line, parent, model)


def current_model(tree: SessionTree | BulkSession, pi: Any = None) -> dict[str, Any]:
    """The session's current model (of its last answer or model change on the active path, getSessionContext's
    `model`) from the catalog of the Pi version `pi` (default: pi.resolve()); a DocumentError saying what to pass
    when the session records none or the catalog lacks it. For commands that build requests without --api/--model.
    """
    from pi_tools.pi import resolve
    from pi_tools.pipeline.stages import NO_SESSION_MODEL
    from pi_tools.providers.catalog import get_model, session_model_names
    from pi_tools.providers.errors import UnknownModelError
    from pi_tools.session.context import plan_session_context

    version = pi or resolve()
    plan = tree.plan(UNDEFINED, version.context) if isinstance(tree, BulkSession) \
        else plan_session_context(tree, UNDEFINED, version.context)
    names = session_model_names(plan.model)
    if names is None:
        raise DocumentError(f"{tree.source}: {NO_SESSION_MODEL}; pass --api API and --model PROVIDER/ID")
    try:
        return get_model(*names, version.requests.catalog)
    except UnknownModelError as exc:
        raise DocumentError(f"{tree.source}: the session's model is not in the catalog "
                            f"({exc.args[0] if exc.args else exc}); pass --api API and --model PROVIDER/ID") from None

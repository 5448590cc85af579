"""`pi-tools visibility` over many files: one task per file for the engine (see pipeline.tasks for the shape)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from pi_tools.pipe.documents import DocumentWriter
from pi_tools.pipeline.tasks import FileOutput


@dataclass(frozen=True)
class VisibilityOptions:
    leaf: str | None = None
    api: str | None = None
    fmt: str = "table"
    width: int = 120
    pi: str | None = None
    """The Pi version's name (None: PI_TOOLS_PI, else the default), resolved where the task runs."""
    session_api: bool = False
    """Without `api`: take the API of the session's current model (as `payload` does), said on stderr; a session
    that records no model is shown without an API's transformMessages, also said."""


def visibility_file(item: tuple[str, VisibilityOptions]) -> FileOutput:
    """`pi-tools visibility` for one file: the table or the JSON lines, or the one error line."""
    from pi_tools.js.values import UNDEFINED
    from pi_tools.pi import resolve
    from pi_tools.session import ContextError, SessionReadError, load_session
    from pi_tools.session.tree import PathCycleError
    from pi_tools.visibility.rows import render_table, visibility_rows

    name, options = item
    version = resolve(options.pi)
    try:
        tree = load_session(name, rules=version.context)
        if options.leaf is not None and options.leaf not in tree.by_id:
            return FileOutput(b"", (f"{name}: no entry with id {options.leaf!r} (see `pi-tools tree {name}`)",), 2)
        api = options.api
        said: tuple[str, ...] = ()
        if api is None and options.session_api:
            api, said = _session_api(tree, version)
        leaf = UNDEFINED if options.leaf is None else options.leaf
        try:
            rows = list(visibility_rows(tree, leaf, api, version))
        except (PathCycleError, ContextError):
            raise
        except Exception as exc:  # noqa: BLE001 - damaged content transformMessages cannot take (Pi fails too)
            if api is None:
                raise
            failure = f"{api}'s transformMessages cannot run on this session ({type(exc).__name__}: {exc})"
            if options.api is not None:
                return FileOutput(b"", (f"{name}: {failure}",), 2)
            said = (f"{name}: {failure}; the model column applies no API's transformMessages",)
            api = None
            rows = list(visibility_rows(tree, leaf, None, version))
    except (PathCycleError, ContextError) as exc:
        return FileOutput(b"", (f"{name}: {exc}",), 2)
    except (SessionReadError, ValueError) as exc:
        return FileOutput(b"", (str(exc),), 2)
    if options.fmt == "json":
        buffer = io.BytesIO()
        writer = DocumentWriter(buffer)
        for row in rows:
            writer.write(row.document(tree.source, api, version.name))
        writer.flush()
        return FileOutput(buffer.getvalue(), said)
    return FileOutput(render_table(rows, options.width).encode("utf-8", "backslashreplace"), said)


def _session_api(tree: Any, version: Any) -> tuple[str | None, tuple[str, ...]]:
    """The API of the session's current model (pipeline.answer.current_model) and the stderr line naming it; no
    API, and the line saying why, for a session that records no model the catalog has."""
    from pi_tools.pipe.documents import DocumentError
    from pi_tools.pipeline.answer import current_model

    try:
        model = current_model(tree, version)
    except DocumentError as exc:
        return None, (f"{exc}; the model column applies no API's transformMessages (--api API applies one)",)
    reference = f"{model['provider']}/{model['id']}"
    return str(model["api"]), (f"{tree.source}: model column as sent through {model['api']}, the API of "
                               f"{reference}, the session's current model; --api chooses another",)

"""`pi-tools visibility` over many files: one task per file for the engine (see pipeline.tasks for the shape)."""

from __future__ import annotations

import io
from dataclasses import dataclass

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
        rows = list(visibility_rows(tree, UNDEFINED if options.leaf is None else options.leaf, options.api,
                                    version))
    except (PathCycleError, ContextError) as exc:
        return FileOutput(b"", (f"{name}: {exc}",), 2)
    except (SessionReadError, ValueError) as exc:
        return FileOutput(b"", (str(exc),), 2)
    if options.fmt == "json":
        buffer = io.BytesIO()
        writer = DocumentWriter(buffer)
        for row in rows:
            writer.write(row.document(tree.source, options.api, version.name))
        writer.flush()
        return FileOutput(buffer.getvalue())
    return FileOutput(render_table(rows, options.width).encode("utf-8", "backslashreplace"))

"""`pi-tools tree`: a readable tree of a session's branches."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pi_tools.cli.common import fail
from pi_tools.cli.options import Pi


def tree_command(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A session file (.jsonl).")],
    width: Annotated[int, typer.Option("--width", help="Maximum line width.")] = 100,
    pi: Pi = None,
) -> None:
    """Show a session's entry tree: ids, roles, short text, labels, the active path (•) and the leaf (◀ leaf).

    Linear runs stay at one indentation; each branch point indents its branches. Diagnostics follow the tree.

    Example: pi-tools tree ~/.pi/agent/sessions/--home-me-proj--/2025-06-01T12-30-05-123Z_0197a1b2.jsonl
    """
    from pi_tools.pi import resolve
    from pi_tools.session import SessionReadError, load_session
    from pi_tools.session.treeview import render_tree

    try:
        tree = load_session(file, rules=resolve(pi).context)
    except SessionReadError as exc:
        fail(str(exc))
    out = "\n".join(render_tree(tree, width)) + "\n"
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        raise SystemExit(0) from None

"""`pi-tools ls`: the sessions under a directory."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from pi_tools.cli.common import fail


def ls_command(
    directory: Annotated[str, typer.Argument(help="A directory searched recursively for *.jsonl sessions.")],
    output_format: Annotated[str, typer.Option("--format", help="table or json (one object per line).")] = "table",
) -> None:
    """List sessions: id, cwd, name, created, modified, message count and first user message, newest first.

    Files whose first line is not a Pi session header are skipped after reading that line only.

    Example: pi-tools ls ~/.pi/agent/sessions --format json | jq -r .firstMessage
    """
    from pi_tools.session.listing import list_sessions
    from pi_tools.session.preview import shorten
    from pi_tools.texttable import align_columns

    if not os.path.isdir(directory):
        fail(f"{directory}: not a directory")
    if output_format not in ("table", "json"):
        fail(f"--format must be table or json, not {output_format!r}")
    infos = list_sessions(directory)
    if output_format == "json":
        from pi_tools.docs import DocumentWriter

        writer = DocumentWriter()
        for info in infos:
            writer.write(info)
        writer.flush()
        return
    rows = [("MODIFIED", "ID", "MSGS", "NAME", "CWD", "FIRST MESSAGE")]
    for info in infos:
        rows.append((
            str(info["modified"])[:19], str(info["id"])[:36], str(info["messageCount"]),
            shorten(info["name"] or "", 20), shorten(info["cwd"], 30), shorten(info["firstMessage"], 50),
        ))
    sys.stdout.write("\n".join(align_columns(rows)) + "\n")

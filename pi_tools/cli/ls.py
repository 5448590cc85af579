"""`pi-tools ls`: the sessions under a directory."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from pi_tools.cli.common import default_session_folder, fail
from pi_tools.cli.options import REFUSAL_MUST_BE, TableOrJson, format_option


def ls_command(
    directory: Annotated[str | None, typer.Argument(help="A directory searched recursively for *.jsonl sessions (default: Pi's session folder).")] = None,
    output_format: Annotated[TableOrJson, format_option(TableOrJson, "table or json (one object per line).", REFUSAL_MUST_BE)] = "table",
) -> None:
    """List sessions: id, cwd, name, created, modified, message count, cost and first user message, newest first.

    Files whose first line is not a Pi session header are skipped after reading that line only. Without
    DIRECTORY, lists Pi's session folder ($PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions).

    Example: pi-tools ls ~/.pi/agent/sessions --format json | jq -r .firstMessage
    """
    from pi_tools.output.texttable import align_columns
    from pi_tools.session.listing import list_sessions
    from pi_tools.session.preview import shorten

    if directory is None:
        directory = default_session_folder()
    if not os.path.isdir(directory):
        fail(f"{directory}: not a directory")
    infos = list_sessions(directory)
    from pi_tools.pi import resolve
    from pi_tools.usage.totals import file_cost, format_cost

    spending = resolve().spending
    for info in infos:  # the cost `usage` reports for the file (usage/totals.py: one cost in every command)
        info["cost"] = file_cost(info["path"], spending)
    if output_format == "json":
        from pi_tools.pipe.documents import DocumentWriter

        writer = DocumentWriter()
        for info in infos:
            writer.write(info)
        writer.flush()
        return
    rows = [("MODIFIED", "ID", "MSGS", "COST", "NAME", "CWD", "FIRST MESSAGE")]
    for info in infos:
        rows.append((
            (info["modified"] or "(invalid date)")[:19], str(info["id"])[:36], str(info["messageCount"]),
            format_cost(info["cost"]),
            shorten(info["name"] or "", 20), shorten(info["cwd"], 30), shorten(info["firstMessage"], 50),
        ))
    sys.stdout.write("\n".join(align_columns(rows)) + "\n")

"""`pi-tools ls`: the sessions under folders (or named), one line each."""

from __future__ import annotations

import sys
from typing import Annotated

from pi_tools.cli.common import fail, session_files
from pi_tools.cli.options import PATHS_HELP, REFUSAL_MUST_BE, TableOrJson, format_option, paths_argument


def ls_command(
    paths: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP} (default: Pi's session folder).")] = None,
    output_format: Annotated[TableOrJson, format_option(TableOrJson, "table or json (one object per line).", REFUSAL_MUST_BE)] = "table",
) -> None:
    """List sessions: modified, id, messages, cost, name, cwd, first user message and path, newest first.

    MSGS (`messageCount` in JSON) counts what the index and export count (session/counts.py: every entry that
    gives the context a message, summaries included); COST (`cost`) is the figure `usage` reports for the file.
    Files whose first line is not a Pi session header are skipped after reading that line only. Without
    PATH, lists Pi's session folder ($PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions).

    Example: pi-tools ls ~/.pi/agent/sessions --format json | jq -r .firstMessage
    """
    from pi_tools.output.texttable import align_columns
    from pi_tools.session.listing import list_session_files
    from pi_tools.session.preview import shorten

    files = session_files(paths, default_folder=True)
    try:
        infos = list_session_files(files)
    except OSError as exc:
        fail(f"{exc.filename}: {'no such file' if isinstance(exc, FileNotFoundError) else exc.strerror}")
    # A file named on the command line must be a session (exit 2, as in every command); one found in a folder
    # that is not is skipped, as Pi's own list skips it.
    listed = {info["path"] for info in infos}
    for name in paths or ():
        if name not in listed and name in files:
            fail(f"Session file is not a valid pi session: {name}")
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
    rows = [("MODIFIED", "ID", "MSGS", "COST", "NAME", "CWD", "FIRST MESSAGE", "PATH")]
    for info in infos:
        rows.append((
            (info["modified"] or "(invalid date)")[:19], str(info["id"])[:36], str(info["messageCount"]),
            format_cost(info["cost"]),
            shorten(info["name"] or "", 20), shorten(info["cwd"], 30), shorten(info["firstMessage"], 50),
            info["path"],
        ))
    sys.stdout.write("\n".join(align_columns(rows)) + "\n")

"""What every rewriting command (repair, scrub, slim) prints: one line per change, or one JSON document each.

Text: `FILE:LINE: what changed` (`FILE: ...` for changes without a line), then the summary lines the
command gives. JSON (`--format json`): one `change` document per change, then one `rewrite` document that
says where the output went (see docs/rewrite.md).
"""

from __future__ import annotations

import sys
from typing import Any

from pi_tools.cli.common import fail

FORMATS = ("text", "json")


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        fail(f"--format: unknown format {fmt!r} (choose from {', '.join(FORMATS)})")


def check_target_options(out: str | None, in_place: bool, dry_run: bool) -> None:
    """-o and --in-place exclude each other; one of them is needed unless --dry-run."""
    if out is not None and in_place:
        fail("give either -o OUT or --in-place, not both")
    if out is None and not in_place and not dry_run:
        fail("no output: give -o OUT or --in-place (or --dry-run to only see the changes)")


def print_changes(source: str, changes: list[Any], fmt: str, summary: list[str], document: dict[str, Any]) -> None:
    """Print the changes (pi_tools.rewrite.writer.Change) and the closing summary lines or document."""
    from pi_tools.docs import dumps_document

    if fmt == "json":
        lines = [dumps_document(change.document(source)).decode().rstrip("\n") for change in changes]
        lines.append(dumps_document({"kind": "rewrite", "source": source, **document}).decode().rstrip("\n"))
    else:
        lines = [f"{source}:{change.line}: {change.message}" if change.line else f"{source}: {change.message}"
                 for change in changes]
        lines.extend(summary)
    try:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise SystemExit(0) from None

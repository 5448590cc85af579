"""What every rewriting command (repair, scrub, slim) prints: one line per change, or one JSON document each.

Text: `FILE:LINE: what changed` (`FILE: ...` for changes without a line; repair adds ` [RULE]`, the rule the
change clears), then `FILE:LINE: note: ...` for what was asked for but not done, then the summary lines the
command gives. JSON (`--format json`): one `change` document per change, one `note` document per note, then one
`rewrite` document that says where the output went (see docs/rewrite.md).
"""

from __future__ import annotations

import sys
from typing import Any

from pi_tools.cli.common import fail


def check_target_options(out: str | None, in_place: bool, dry_run: bool) -> None:
    """-o and --in-place exclude each other; one of them is needed unless --dry-run."""
    if out is not None and in_place:
        fail("give either -o OUT or --in-place, not both")
    if out is None and not in_place and not dry_run:
        fail("no output: give -o OUT or --in-place (or --dry-run to only see the changes)")


def _text(source: str, change: Any, rules: bool, prefix: str = "") -> str:
    where = f"{source}:{change.line}" if change.line else source
    rule = f" [{change.rule}]" if rules and change.rule else ""
    return f"{where}: {prefix}{change.message}{rule}"


def print_changes(source: str, changes: list[Any], fmt: str, summary: list[str], document: dict[str, Any],
                  notes: list[Any] | None = None, rules: bool = False) -> None:
    """Print the changes (pi_tools.rewrite.writer.Change), the notes, and the closing summary lines or document;
    `rules` puts each change's rule in the text lines too."""
    from pi_tools.pipe.documents import dumps_document

    notes = notes or []
    if fmt == "json":
        lines = [dumps_document(change.document(source)).decode().rstrip("\n") for change in changes]
        lines.extend(dumps_document(note.note_document(source)).decode().rstrip("\n") for note in notes)
        lines.append(dumps_document({"kind": "rewrite", "source": source, **document}).decode().rstrip("\n"))
    else:
        lines = [_text(source, change, rules) for change in changes]
        lines.extend(_text(source, note, rules, "note: ") for note in notes)
        lines.extend(summary)
    try:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise SystemExit(0) from None

"""Plain-text tables for people: columns padded to their widest cell, two spaces apart, no trailing blanks."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def align_columns(rows: Sequence[Sequence[str]], right: Collection[int] = ()) -> list[str]:
    """One line per row; columns in `right` are right-aligned (numbers), the others left-aligned."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
        for row in rows
    ]

"""Item scans: the per-item facts an API's rules read, gathered in one pass that can run part by part.

A rule over a large payload mostly asks the same few questions of every item (its role, its tool calls and
results, its images, its blank text blocks) and then relates the answers across items. A scan answers the
per-item questions once, as rows whose first field is the item's index, and the rules relate the rows. Because a
row depends on its own item only, a payload built in parts (preflight.parts) is scanned part by part, in
whichever process builds the part and while its objects are still at hand (stages.build_claimed_parts' `scan`,
a preflight.scans.PartScanner); the main process then only shifts each part's rows by the part's first index. Its items are never decoded from their JSON
text for the rules: on the 100 MB benchmark session decoding them cost more than all the rules together.

The whole payload (a small session, --replay) is scanned the same way, by the same function: one implementation
of every rule, whatever the path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

Rows = list[tuple[Any, ...]]
"""Rows of one kind; each row's first field is an item index."""

Summary = dict[str, Rows]
"""One scan's rows by kind (every kind present, possibly empty)."""

Scan = Callable[[Sequence[Any]], Summary]

_SCANS: dict[str, tuple[frozenset[str], Scan]] = {}
_FINDS: dict[str, Callable[[Summary], int | None]] = {}
_PRUNES: dict[str, Callable[[Summary, int], Summary]] = {}

TRACE = "~trace"
"""The key of a part's scans under which preflight's PartScanner puts the part's payload mapping, when it made
one."""


def item_scan(name: str, apis: Iterable[str], finds: Callable[[Summary], int | None] | None = None,
              prune: Callable[[Summary, int], Summary] | None = None) -> Callable[[Scan], Scan]:
    """Register the decorated function as the scan `name` for these APIs. `finds` names, from a part's rows,
    the last item of the part that a rule will certainly report (an image of a type the API refuses, say), or
    None: the part's payload is then mapped to its llm messages up to that item as it is built (preflight's
    PartScanner), not traced again afterwards.

    `prune(rows, count)` drops, from the rows of a part of `count` items, those that no rule can act on when
    the part is a slice of a whole request checked once (preflight.parts: `view.end` is the payload's end): a tool
    call answered within the part, a turn start that is not the part's last. It runs where the part is built,
    so the main process merges and the rules read only what may matter (on the 100 MB benchmark session, tens of
    rows instead of 10^5). It must keep every row a rule could read across the part's first or last item."""
    def register(scan: Scan) -> Scan:
        if name in _SCANS:
            raise ValueError(f"item scan {name} registered twice")
        _SCANS[name] = (frozenset(apis), scan)
        if finds is not None:
            _FINDS[name] = finds
        if prune is not None:
            _PRUNES[name] = prune
        return scan
    return register


def scan_names(api: str) -> tuple[str, ...]:
    """The scans registered for an API (the rule modules are loaded first)."""
    from pi_tools.providers.rulebook.rules import _load

    _load()
    return tuple(name for name, (apis, _) in _SCANS.items() if api in apis)


def scan_part(names: Sequence[str], items: Sequence[Any]) -> dict[str, Summary]:
    """The scans `names` of one part's items, each pruned (see item_scan) as the part is a slice of the whole
    request."""
    scans: dict[str, Summary] = {}
    for name in names:
        rows = _SCANS[name][1](items)
        scans[name] = _PRUNES[name](rows, len(items)) if name in _PRUNES else rows
    return scans


def finds_something(names: Sequence[str]) -> bool:
    """Whether one of the scans `names` can name an item a rule will certainly report (item_scan's `finds`)."""
    return any(name in _FINDS for name in names)


def last_found(names: Sequence[str], scans: dict[str, Summary]) -> int | None:
    """The last item of a part that the scans' `finds` name, or None."""
    found = [last for name in names if name in _FINDS and (last := _FINDS[name](scans[name])) is not None]
    return max(found) if found else None


def merge(pieces: Sequence[tuple[int, dict[str, Summary]]]) -> dict[str, Summary]:
    """The scans of a whole item list from those of its consecutive pieces, given each piece's first index."""
    merged: dict[str, Summary] = {}
    for offset, scans in pieces:
        for name, summary in scans.items():
            if name == TRACE:
                continue
            target = merged.setdefault(name, {})
            for kind, rows in summary.items():
                into = target.setdefault(kind, [])
                if offset:
                    into.extend([(row[0] + offset, *row[1:]) for row in rows])
                else:
                    into.extend(rows)
    return merged


def scanned(view: Any, name: str) -> Summary:
    """Scan `name` of the view's items: handed over with the view (scanned part by part), else made once here."""
    given = view.scans
    if given is not None and name in given:
        summary: Summary = given[name]
        return summary
    from pi_tools.providers.rulebook.rules import _load

    _load()
    return view.cached(f"scan:{name}", lambda: _SCANS[name][1](view.items))  # type: ignore[no-any-return]


def firsts(rows: Rows) -> list[int]:
    """The item indices of rows (in order)."""
    return [row[0] for row in rows]

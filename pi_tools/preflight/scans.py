"""Item scans: the per-item facts an API's rules read, gathered in one pass that can run part by part.

A rule over a large payload mostly asks the same few questions of every item (its role, its tool calls and
results, its images, its blank text blocks) and then relates the answers across items. A scan answers the
per-item questions once, as rows whose first field is the item's index, and the rules relate the rows. Because a
row depends on its own item only, a payload built in parts (parts.py) is scanned part by part, in whichever
process builds the part and while its objects are still at hand (stages.build_claimed_parts' `scan`); the main
process then only shifts each part's rows by the part's first index. Its items are never decoded from their JSON
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
"""The key of a part's scans under which PartScanner puts the part's payload mapping, when it made one."""


def item_scan(name: str, apis: Iterable[str], finds: Callable[[Summary], int | None] | None = None,
              prune: Callable[[Summary, int], Summary] | None = None) -> Callable[[Scan], Scan]:
    """Register the decorated function as the scan `name` for these APIs. `finds` names, from a part's rows,
    the last item of the part that a rule will certainly report (an image of a type the API refuses, say), or
    None: the part's payload is then mapped to its llm messages up to that item as it is built (PartScanner),
    not traced again afterwards.

    `prune(rows, count)` drops, from the rows of a part of `count` items, those that no rule can act on when
    the part is a slice of a whole request checked once (parts.py: `view.end` is the payload's end): a tool
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
    from pi_tools.preflight.rules import _load

    _load()
    return tuple(name for name, (apis, _) in _SCANS.items() if api in apis)


class PartScanner:
    """The scans of one API run over one part's items: a small picklable object, so that payload's helper
    process can scan the parts it builds (it imports the rule modules on first use). The rows are pruned (see
    item_scan) before they travel: a PartScanner is for the parts path only, whose request is the whole payload.

    Given the part's llm messages and JSON text too (a part before the last, split.build_part), a part that a
    scan `finds` something in is also mapped to those messages (provenance.map_origins, on its items as decoded
    from the text, exactly as tracing maps it afterwards, and only up to the last item found), under TRACE as
    (llm message count, last item mapped, PayloadOrigins): tracing its findings up to that item then needs
    neither the file's text again nor a second conversion, and the work is done by whichever process built the
    part."""

    def __init__(self, names: tuple[str, ...] | None, api: str | None = None,
                 model: dict[str, Any] | None = None) -> None:
        self.names = names
        """None: the API's scans (scan_names), looked up where the first part is scanned, so that the main
        process imports the rule modules while the helper builds parts, not before it sends the helper its task."""
        self.api = api
        self.model = model

    @property
    def traced(self) -> bool:
        """Whether a part's conversion should record where each message went (providers.split.ContentTrace):
        where a scan `finds` what a rule will certainly report, the part is mapped from that record."""
        if self.names is None:
            self.names = scan_names(str(self.api))
        return self.model is not None and any(name in _FINDS for name in self.names)

    def __call__(self, items: Sequence[Any], messages: Sequence[Any] | None = None,
                 encoded: Any = None, trace: Any = None) -> dict[str, Any]:
        if self.names is None:
            self.names = scan_names(str(self.api))
        scans: dict[str, Any] = {}
        for name in self.names:
            rows = _SCANS[name][1](items)
            scans[name] = _PRUNES[name](rows, len(items)) if name in _PRUNES else rows
        if self.api is None or self.model is None or messages is None or encoded is None:
            return scans
        found = [last for name in self.names if name in _FINDS and (last := _FINDS[name](scans[name])) is not None]
        if found:
            from pi_tools.preflight.provenance import map_origins, traced_origins

            upto = max(found)
            mapping = traced_origins(messages, items, trace) if trace is not None else None
            if mapping is not None:  # the whole part mapped, from what its conversion recorded
                scans[TRACE] = (len(messages), len(items) - 1, mapping)
                return scans
            import orjson

            from pi_tools.preflight.view import ITEM_LISTS

            decoded = orjson.loads(b"[" + encoded.json + b"]") if encoded.count else []
            mapping = map_origins(self.api, self.model, messages, {ITEM_LISTS.get(self.api, "messages"): decoded},
                                  False, upto_item=upto)
            scans[TRACE] = (len(messages), upto, mapping)
        return scans


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
    from pi_tools.preflight.rules import _load

    _load()
    return view.cached(f"scan:{name}", lambda: _SCANS[name][1](view.items))  # type: ignore[no-any-return]


def firsts(rows: Rows) -> list[int]:
    """The item indices of rows (in order)."""
    return [row[0] for row in rows]

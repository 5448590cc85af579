"""The item scans of a payload built in parts, made where each part is built: `PartScanner`.

The scans themselves (what an API's rules read of every item) are registered by the API folders'
rule modules through `pi_tools.providers.rulebook.scans`; this room adds the part of the work that maps a part's
items back to its messages (provenance), which only preflight knows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pi_tools.preflight.rules  # noqa: F401 - registers the rules of every API, so that loading rules loads them
from pi_tools.providers.rulebook.scans import TRACE, finds_something, last_found, scan_names, scan_part


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
        return self.model is not None and finds_something(self.names)

    def __call__(self, items: Sequence[Any], messages: Sequence[Any] | None = None,
                 encoded: Any = None, trace: Any = None) -> dict[str, Any]:
        if self.names is None:
            self.names = scan_names(str(self.api))
        scans: dict[str, Any] = scan_part(self.names, items)
        if self.api is None or self.model is None or messages is None or encoded is None:
            return scans
        upto = last_found(self.names, scans)
        if upto is not None:
            from pi_tools.preflight.provenance import map_origins, traced_origins

            mapping = traced_origins(messages, items, trace) if trace is not None else None
            if mapping is not None:  # the whole part mapped, from what its conversion recorded
                scans[TRACE] = (len(messages), len(items) - 1, mapping)
                return scans
            import orjson

            from pi_tools.providers.table import with_payload_items

            decoded = orjson.loads(b"[" + encoded.json + b"]") if encoded.count else []
            mapping = map_origins(self.api, self.model, messages, with_payload_items(self.api, {}, decoded),
                                  False, upto_item=upto)
            scans[TRACE] = (len(messages), upto, mapping)
        return scans

"""`secret-in-session`: credentials stored in a session, found by the detectors `pi-tools scrub` redacts with.

Every entry is looked at (all branches, summaries, custom entries, tool arguments, outputs, details), skipping
the provider opaque fields and ids scrub never changes, so audit and scrub agree on what is a finding. The
message names kind and JSON path, never the value. Entries are first tested against the detectors' anchors in
their serialised JSON (see pi_tools.secrets.detectors.AnchorSet), so only the few that may hold a secret are
walked string by string.
"""

from __future__ import annotations

from typing import Any

import orjson

from pi_tools.audit.findings import FindingSink
from pi_tools.js.json_line import loads_line_lenient
from pi_tools.session.bulk import BulkSession
from pi_tools.session.tree import SessionTree


def check_secrets(sink: FindingSink, tree: SessionTree) -> None:
    from pi_tools.secrets.detectors import DEFAULT_SCANNER, AnchorSet
    from pi_tools.secrets.values import RULE, find_in_value

    entries = [tree.materialize(entry) for entry in tree.entries]
    dumped = [_dump(entry) for entry in entries]
    anchors = AnchorSet(b"\n".join(d for d in dumped if d is not None))
    for entry, data, line in zip(entries, dumped, tree.line_numbers, strict=False):
        if data is not None and not (anchors and anchors.may_hold(data)):
            continue
        within = anchors.present if data is not None else None
        for kind, path in find_in_value(entry, DEFAULT_SCANNER, within=within):
            entry_id = entry.get("id") if isinstance(entry, dict) else None
            sink.add(RULE, entry_id, line, f"{kind} stored at {path} (value not shown); "
                                           "`pi-tools scrub` redacts it")


def check_secrets_in_clean_session(sink: FindingSink, session: BulkSession) -> None:
    """check_secrets for a clean file audited from its bulk index: a line's own JSON text stands for its
    serialised entry (Pi writes it with JSON.stringify, which escapes as orjson does), and only lines that may
    hold a secret are parsed; a line with a \\u escape is always parsed, since its text may spell an anchor so."""
    from pi_tools.secrets.detectors import DEFAULT_SCANNER, AnchorSet
    from pi_tools.secrets.values import RULE, find_in_value

    data = session.data or b""
    anchors = AnchorSet(data)
    escaped = b"\\u" in data or b"\\/" in data
    if not anchors and not escaped:
        return
    ids = session.line_ids
    for index in range(1, len(ids)):  # line 0 is the header, which is no entry
        text = bytes(session.line_text(index))
        if not ((anchors and anchors.may_hold(text)) or (escaped and (b"\\u" in text or b"\\/" in text))):
            continue
        within = None if b"\\u" in text or b"\\/" in text else anchors.present
        for kind, path in find_in_value(loads_line_lenient(text), DEFAULT_SCANNER, within=within):
            sink.add(RULE, ids[index], index + 1, f"{kind} stored at {path} (value not shown); "
                                                  "`pi-tools scrub` redacts it")


def _dump(entry: Any) -> bytes | None:
    """The entry as JSON bytes (anchors survive orjson's escaping), or None when orjson cannot write it."""
    try:
        return orjson.dumps(entry)
    except (orjson.JSONEncodeError, TypeError):
        return None

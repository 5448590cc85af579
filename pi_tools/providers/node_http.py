"""Node's HTTP reason phrases, which reach error texts where an SDK folds ``statusText`` into a message.

The replay server Pi talks to is Node's ``http`` module; its phrases follow the current RFC names, which differ
from Python's ``http.HTTPStatus`` for a few codes.
"""

from __future__ import annotations

import http

_NODE_REASON_PHRASES = {
    413: "Payload Too Large",
    414: "URI Too Long",
    416: "Range Not Satisfiable",
    509: "Bandwidth Limit Exceeded",
}


def node_status_text(status: int) -> str:
    """The reason phrase a Node HTTP server sends with ``status`` (``unknown`` for codes it has no name for)."""
    if status in _NODE_REASON_PHRASES:
        return _NODE_REASON_PHRASES[status]
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "unknown"

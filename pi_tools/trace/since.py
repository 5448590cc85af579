"""`--since`: a trace of what happened from a day on, for a back end that already holds the earlier history (or
should never get it).

The day comes in the forms `usage --since` takes (usage/dates.py), and starts at midnight in the local time zone
(TZ), as `usage`'s days do. A span is kept when it starts then or later, an event on the session's span when it
happened then or later; the session's span is kept whole as their parent (its id is the same in every run, so a
back end that deduplicates by id keeps one), and a session with nothing since is left out.
"""

from __future__ import annotations

from datetime import datetime, time

from pi_tools.trace.spans import SessionTrace, Span


class SinceError(ValueError):
    """A --since value that names no day (the message says which forms do)."""


def since_moment(value: str) -> int:
    """Unix nanoseconds of the first moment of the day `value` names, in the local time zone."""
    from pi_tools.usage.dates import parse_span, today_in
    from pi_tools.usage.errors import UsageError

    try:
        first, _ = parse_span(value, "--since", today_in(None))
    except UsageError as exc:
        raise SinceError(str(exc)) from None
    return int(datetime.combine(first, time()).astimezone().timestamp()) * 1_000_000_000


def since_then(trace: SessionTrace, since: int) -> SessionTrace:
    """The trace cut to `since` (see the module): no span at all when nothing happened since."""
    root, *children = trace.spans
    kept = [span for span in children if span.start >= since]
    events = [event for event in root.events if event.time >= since]
    if not kept and not events:
        return SessionTrace(trace.source, trace.session_id, trace.trace_id, [])
    root = Span(root.span_id, root.parent_id, root.name, root.kind, root.start, root.end, root.attributes, events,
                root.status, root.status_message)
    return SessionTrace(trace.source, trace.session_id, trace.trace_id, [root, *kept])

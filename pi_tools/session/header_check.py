"""Whether bytes open as a Pi session: the one check, and its words, for the readers that refuse a file before
reading it (usage's scan, the corpus search and index)."""

from __future__ import annotations

import orjson


def header_problem(data: bytes) -> str | None:
    """Why Pi would not open these bytes as a session, naming the line, or None.

    Pi keeps the first line that is not blank, malformed JSON or a falsy value, and requires it to be a
    `session` header with a string id; this reads no further than that line, so a session costs one small
    parse. One rule for every reader that refuses a file up front (usage, search, index), so that they say
    the same words.
    """
    if not data:
        return "empty file, not a session (Pi would start a new session in it)"
    first = data[:data.find(b"\n")] if b"\n" in data else data
    try:  # the usual case, Pi's header on line 1, costs one orjson parse (the JS-exact reader is slower)
        value = orjson.loads(first)
    except orjson.JSONDecodeError:
        value = None
    if type(value) is dict and value.get("type") == "session" and type(value.get("id")) is str:
        return None
    from pi_tools.js.errors import JsonSyntaxError
    from pi_tools.js.json_line import loads_line_lenient

    start, number = 0, 0
    unreadable: int | None = None  # the first line Pi skips as not JSON, if one comes before the header
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        number += 1
        line = data[start:end]
        start = end + 1
        if not line.strip(b" \t\r\n\x0b\x0c"):
            continue
        try:
            value = loads_line_lenient(line)
        except (JsonSyntaxError, UnicodeDecodeError, ValueError, RecursionError):
            unreadable = number if unreadable is None else unreadable
            continue
        if value is None or value is False or value == "" or value == 0:
            continue
        if type(value) is dict and value.get("type") == "session" and type(value.get("id")) is str:
            return None
        skipped = f"line {unreadable} is not JSON (Pi skips it), and " if unreadable is not None else ""
        return (f"not a pi session: {skipped}line {number}, the first value Pi keeps, is not a session header "
                "with a string id")
    return "not a pi session: no line holds a JSON value Pi keeps (no session header)"

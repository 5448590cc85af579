"""Session listing (Pi's SessionInfo): id, cwd, name, created, modified, message count, first message.

The message count is session/counts.py's (message entries, custom messages and summaries), the one `index`
and `export` give, not Pi's (message entries only).

Reads the header line first and gives up on a file that is not a session without reading the rest; other
files are parsed line by line without building the tree.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from pi_tools.js.date import js_date_ms, js_iso_string
from pi_tools.js.errors import JsonSyntaxError
from pi_tools.js.json_line import loads_line, loads_line_lenient
from pi_tools.session.counts import is_message
from pi_tools.session.reader import paused_gc
from pi_tools.sources.files import find_session_files

HEADER_SCAN_LIMIT = 1024 * 1024


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            b["text"] for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""




def session_info(path: str) -> dict[str, Any] | None:
    """SessionInfo for one file, or None when its first parsed line is not a session header."""
    with open(path, "rb") as handle:
        header: Any = None
        scanned = 0
        for line in handle:
            scanned += len(line)
            if line.strip():
                try:
                    header = loads_line(line.rstrip(b"\n"))
                except (JsonSyntaxError, UnicodeDecodeError):
                    header = None
                if header:
                    break
            if scanned > HEADER_SCAN_LIMIT:
                return None
        if not isinstance(header, dict) or header.get("type") != "session":
            return None
        name: str | None = None
        count = 0
        first_message: str | None = None
        last_activity: float = 0
        with paused_gc():
            for line in handle:
                try:
                    entry = orjson.loads(line)
                except orjson.JSONDecodeError:
                    try:
                        entry = loads_line_lenient(line.rstrip(b"\r\n"))  # invalid UTF-8: U+FFFD, as Pi reads it
                    except (JsonSyntaxError, UnicodeDecodeError):
                        continue
                if not isinstance(entry, dict):
                    continue
                kind = entry.get("type")
                if kind == "session_info":
                    raw = entry.get("name")
                    name = (raw.strip() or None) if isinstance(raw, str) else None
                elif is_message(entry):
                    count += 1  # (session/counts.py: the count `index` and `export` give too)
                if kind == "message":
                    message = entry.get("message")
                    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
                        continue
                    stamp = message.get("timestamp")
                    activity = stamp if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) else js_date_ms(entry.get("timestamp"))
                    if activity is not None and activity > last_activity:
                        last_activity = activity
                    if first_message is None and message.get("role") == "user" and "content" in message:
                        text = _text_of(message)
                        if text:
                            first_message = text
    created = js_date_ms(header.get("timestamp"))
    modified: float | int | None = last_activity if last_activity > 0 else created
    if modified is None:
        modified = os.stat(path).st_mtime * 1000
    return {
        "path": path,
        "id": header.get("id"),
        "cwd": header.get("cwd") if isinstance(header.get("cwd"), str) else "",
        "name": name,
        "parentSessionPath": header.get("parentSession"),
        "created": js_iso_string(created),
        "modified": js_iso_string(modified),
        "messageCount": count,
        "firstMessage": first_message or "(no messages)",
        "_modifiedMs": modified,
    }


def list_sessions(root: str) -> list[dict[str, Any]]:
    """SessionInfo for every session under `root`, most recently modified first (as Pi lists them)."""
    return list_session_files(list(find_session_files(root)))


def list_session_files(paths: list[str]) -> list[dict[str, Any]]:
    """SessionInfo for each of `paths` that is a session, most recently modified first (as Pi lists them)."""
    infos = [info for path in paths if (info := session_info(path)) is not None]
    infos.sort(key=lambda info: info["_modifiedMs"], reverse=True)
    for info in infos:
        del info["_modifiedMs"]
    return infos

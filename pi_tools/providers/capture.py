"""Captured HTTP traffic as people capture it: a bare body, a raw HTTP response, or a HAR file.

`decode` replays a provider's response through Pi's stream decoders, which need the status, the headers and the
body as Pi's fetch would hand them over. Captures come in three shapes, told apart by their content:

- a raw response as `curl -i` or `curl -D -` write it: status line, headers, blank line, body. Interim blocks
  (`HTTP/1.1 100 Continue`, a proxy's `200 Connection established`, redirects without a body) come before the
  real response and are skipped. Line ends may be CRLF or LF. A body still in chunked transfer framing is
  de-chunked and a gzip/deflate body is decompressed, but only when the bytes really are framed or compressed:
  curl decodes both itself (`--compressed`) yet still prints the headers that announced them;
- a HAR file (Chrome/Firefox devtools, mitmproxy): every `log.entries[].response`, in file order, with
  `content.text` (base64 when `content.encoding` is "base64");
- anything else is a bare body, whose status and headers the user gives.

Request URLs of HAR entries are kept to say where each response came from, with credentials redacted (query
parameters such as `key=`, user info), since Google's API takes its key in the URL.
"""

from __future__ import annotations

import base64
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

REDACTED = "<redacted>"

_STATUS_LINE = re.compile(rb"HTTP/(?:\d(?:\.\d)?) (\d{3})(?: [^\r\n]*)?\r?\n")
_HAR_START = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*\{\s*\"log\"\s*:")
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n")
_LINE = re.compile(rb"([^\r\n]*)(\r?\n)")
# Query parameters that carry credentials: Google's key=, OAuth and SAS tokens, AWS presigned-URL fields.
_SECRET_PARAMETER = re.compile(
    r"(?i)^(?:key|api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|id[-_]?token|token|auth|authorization"
    r"|password|passwd|secret|client[-_]?secret|sig|signature|code|session[-_]?token|x-amz-signature"
    r"|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)$"
)


class CaptureError(ValueError):
    """The capture cannot be read; the message names the problem (line, HAR entry), the caller the file."""


@dataclass
class CapturedResponse:
    """One response as Pi's fetch would have handed it to the SDK."""

    status: int
    headers: dict[str, str]
    body: bytes
    entry: dict[str, Any] | None = None  # HAR only: {"index": i, "url": redacted request URL}


@dataclass
class UnusableEntry:
    """A HAR entry that cannot be decoded; the entries around it still are."""

    entry: dict[str, Any]  # {"index": i, "url": redacted request URL}
    problem: str


@dataclass
class Capture:
    kind: str  # "body", "http" or "har"
    items: list[CapturedResponse | UnusableEntry] = field(default_factory=list)  # in file order


def read_capture(data: bytes) -> Capture:
    """Tell the capture's shape from its content and read it (raises CaptureError)."""
    if _STATUS_LINE.match(data):
        return Capture("http", [read_http_response(data)])
    if _HAR_START.match(data[:4096]):
        return read_har(data)
    return Capture("body")


# -- raw HTTP responses ------------------------------------------------------------------------------------------


def _header_block(data: bytes, position: int) -> tuple[int, dict[str, str], int]:
    """(status, headers, position after the blank line) of the block starting at `position`."""
    status_line = _STATUS_LINE.match(data, position)
    assert status_line is not None
    status = int(status_line.group(1))
    position = status_line.end()
    headers: dict[str, str] = {}
    last: str | None = None
    while True:
        number = data.count(b"\n", 0, position) + 1
        line = _LINE.match(data, position)
        if line is None:
            raise CaptureError(f"line {number}: the headers of the HTTP {status} response end without the blank "
                               "line before the body")
        position = line.end()
        text = line.group(1)
        if not text:
            return status, headers, position
        if text[:1] in (b" ", b"\t") and last is not None:  # an obsolete folded continuation line
            headers[last] = f"{headers[last]} {_latin1(text).strip()}".strip()
            continue
        name, colon, value = text.partition(b":")
        if not colon or not name.strip() or name != name.strip():
            raise CaptureError(f"line {number}: a header of the HTTP {status} response that is not NAME: VALUE: "
                               f"{_latin1(text)[:80]!r}")
        last = _latin1(name).lower()
        value_text = _latin1(value).strip()
        # Repeated headers read as fetch's Headers.get gives them: joined with ", ".
        headers[last] = f"{headers[last]}, {value_text}" if last in headers else value_text


def _latin1(raw: bytes) -> str:
    """Header bytes as fetch exposes them (each byte one code unit)."""
    return raw.decode("latin-1")


def read_http_response(data: bytes) -> CapturedResponse:
    """A raw response (`curl -i`, `curl -D -`): the last header block's status and headers, then the body."""
    position = 0
    while True:
        status, headers, position = _header_block(data, position)
        if not _STATUS_LINE.match(data, position):
            break  # the real response: what follows is its body
    body = data[position:]
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _dechunked(body)
    return CapturedResponse(status, headers, _decoded(body, headers.get("content-encoding", "")))


def _dechunked(body: bytes) -> bytes:
    """The body without chunked framing, when it is still framed (curl writes it already de-chunked)."""
    if not _CHUNK_SIZE.match(body):
        return body
    pieces: list[bytes] = []
    position = 0
    while True:
        size_line = _CHUNK_SIZE.match(body, position)
        if size_line is None:
            if not pieces:
                return body
            raise CaptureError(f"chunked body: no chunk size at byte {position}")
        size = int(size_line.group(1), 16)
        start = size_line.end()
        if size == 0:
            return b"".join(pieces)  # trailers, if any, are not part of the body
        end = start + size
        if end > len(body):
            raise CaptureError(f"chunked body: the chunk at byte {position} announces {size} bytes, "
                               f"{len(body) - start} are there (a cut capture?)")
        pieces.append(body[start:end])
        if body.startswith(b"\r\n", end):
            position = end + 2
        elif body.startswith(b"\n", end):
            position = end + 1
        elif end == len(body):
            raise CaptureError("chunked body: it ends before the last (zero-size) chunk (a cut capture?)")
        else:
            raise CaptureError(f"chunked body: no line end after the chunk at byte {position}")


def _decoded(body: bytes, content_encoding: str) -> bytes:
    """Undo gzip or deflate when the bytes are compressed (curl --compressed has undone it already)."""
    codings = [coding.strip().lower() for coding in content_encoding.split(",") if coding.strip()]
    for coding in reversed(codings):
        if coding in ("gzip", "x-gzip") and body[:2] == b"\x1f\x8b":
            body = _inflate(body, 31, coding)
        elif coding == "deflate" and len(body) >= 2 and body[0] & 0x0F == 8 and int.from_bytes(body[:2], "big") % 31 == 0:
            body = _inflate(body, 15, coding)
    return body


def _inflate(body: bytes, wbits: int, coding: str) -> bytes:
    decompressor = zlib.decompressobj(wbits)
    try:
        result = decompressor.decompress(body)
    except zlib.error as exc:
        raise CaptureError(f"content-encoding {coding}: the body does not decompress ({exc})") from None
    if not decompressor.eof:
        raise CaptureError(f"content-encoding {coding}: the compressed body is cut short")
    return result


# -- HAR -----------------------------------------------------------------------------------------------------------


def read_har(data: bytes) -> Capture:
    """Every response of a HAR log, in file order; an unusable entry is a problem, the others go on."""
    import json

    import orjson

    data = data.removeprefix(b"\xef\xbb\xbf")  # Windows tools (Fiddler) write a BOM
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        try:  # lone UTF-16 surrogates (escaped in the text of a captured body) only the standard reader takes
            document = json.loads(data)
        except ValueError as exc:
            raise CaptureError(f"a HAR file (it starts with {{\"log\":) that is not valid JSON: {exc}") from None
    log = document.get("log") if isinstance(document, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        raise CaptureError("a HAR file without a log.entries list")
    capture = Capture("har")
    for index, entry in enumerate(entries):
        where = {"index": index, "url": _entry_url(entry)}
        try:
            capture.items.append(_har_response(entry, where))
        except CaptureError as exc:
            capture.items.append(UnusableEntry(where, str(exc)))
    return capture


def _entry_url(entry: Any) -> str | None:
    request = entry.get("request") if isinstance(entry, dict) else None
    url = request.get("url") if isinstance(request, dict) else None
    return redact_url(url) if isinstance(url, str) else None


def _har_response(entry: Any, where: dict[str, Any]) -> CapturedResponse:
    response = entry.get("response") if isinstance(entry, dict) else None
    if not isinstance(response, dict):
        raise CaptureError(f"HAR entry {where['index']}: no response object")
    status = response.get("status")
    if not isinstance(status, int) or isinstance(status, bool):
        raise CaptureError(f"HAR entry {where['index']}: response.status is not a number")
    if status == 0:
        raise CaptureError(f"HAR entry {where['index']}: no response was received (status 0: the request failed, "
                           "was blocked or was cancelled)")
    headers: dict[str, str] = {}
    for header in response.get("headers") or []:
        if not isinstance(header, dict) or not isinstance(header.get("name"), str):
            raise CaptureError(f"HAR entry {where['index']}: a response header without a name")
        name = header["name"].lower()
        if name.startswith(":"):
            continue  # HTTP/2 pseudo-headers (:status) as some exporters list them
        value = str(header.get("value", ""))
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    content = response.get("content")
    content = content if isinstance(content, dict) else {}
    text = content.get("text")
    if text is None:
        size = content.get("size")
        if isinstance(size, int) and size > 0:
            raise CaptureError(f"HAR entry {where['index']}: the response body ({size} bytes) was not saved "
                               "(no response.content.text)")
        body = b""
    elif not isinstance(text, str):
        raise CaptureError(f"HAR entry {where['index']}: response.content.text is not a string")
    elif content.get("encoding") == "base64":
        try:
            body = base64.b64decode(text, validate=True)
        except ValueError:
            raise CaptureError(f"HAR entry {where['index']}: response.content.text is not valid base64") from None
    else:
        body = text.encode("utf-8", "surrogatepass")
    # Exporters store the decoded body; a few keep compressed bytes (base64) with the content-encoding header.
    return CapturedResponse(status, headers, _decoded(body, headers.get("content-encoding", "")), where)


def redact_url(url: str) -> str:
    """The URL with user info and credential-bearing query parameters replaced by <redacted>."""
    scheme, separator, rest = url.partition("://")
    if separator:
        authority_end = len(rest)
        for mark in "/?#":
            found = rest.find(mark)
            if found != -1:
                authority_end = min(authority_end, found)
        authority = rest[:authority_end]
        if "@" in authority:
            rest = f"{REDACTED}@{authority.rpartition('@')[2]}{rest[authority_end:]}"
        url = f"{scheme}{separator}{rest}"
    base, question, tail = url.partition("?")
    if not question:
        return url
    query, hash_mark, fragment = tail.partition("#")
    parameters = []
    for parameter in query.split("&"):
        name, equals, _ = parameter.partition("=")
        if equals and _SECRET_PARAMETER.match(_unquoted(name)):
            parameters.append(f"{name}={REDACTED}")
        else:
            parameters.append(parameter)
    return f"{base}?{'&'.join(parameters)}{hash_mark}{fragment}"


def _unquoted(name: str) -> str:
    from urllib.parse import unquote_plus

    return unquote_plus(name)

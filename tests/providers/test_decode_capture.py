"""`pi-tools decode` on whole captures: raw HTTP responses (curl -i, curl -D -) and HAR files.

The captures are made here from the stream goldens' bodies (fixtures/streams) and their status and headers, in
the shapes capture tools write; each must decode to exactly the documents of the bare body given with --status
and --header.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.cli.decode import decode_documents
from pi_tools.providers.capture import (
    CapturedResponse,
    CaptureError,
    UnusableEntry,
    read_capture,
    redact_url,
)

from support.clihelp import run_cli

STREAMS = Path(__file__).resolve().parents[2] / "fixtures" / "streams"
NOW_MS = 1767225600000
EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def _cases() -> list[tuple[str, str]]:
    found = []
    for sidecar_path in sorted((STREAMS / "cases").glob("*/*.json")):
        sidecar = json.loads(sidecar_path.read_text(encoding="utf-8"))
        if (sidecar.get("transport") or {}).get("cut") != "reset":
            found.append((sidecar_path.parent.name, sidecar_path.stem))
    return found


CASES = _cases()


def _case(api: str, name: str) -> tuple[dict[str, Any], bytes]:
    sidecar = json.loads((STREAMS / "cases" / api / f"{name}.json").read_text(encoding="utf-8"))
    return sidecar, (STREAMS / "cases" / api / sidecar["body"]).read_bytes()


def _reasoning(sidecar: dict[str, Any]) -> str | None:
    return (sidecar.get("options") or {}).get("reasoning")


def _documents(api: str, sidecar: dict[str, Any], status: int, headers: dict[str, str], body: bytes,
               entry: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return decode_documents(body, source="capture", api=api, model_ref=sidecar["model"], status=status,
                            headers=headers, reasoning=_reasoning(sidecar), events=True, now_ms=NOW_MS,
                            entry=entry)


def _chunked(body: bytes, size: int = 7) -> bytes:
    pieces = [b"%x;ext=1\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size]) for i in range(0, len(body), size)]
    return b"".join(pieces) + b"0\r\nx-trailer: t\r\n\r\n"


def raw_response(status: int, headers: dict[str, str], body: bytes, variant: str) -> bytes:
    """A raw capture of one response, written the way `variant` says a tool writes it."""
    end = b"\n" if variant == "lf" else b"\r\n"
    lines = [b"HTTP/1.1 %d Whatever" % status]
    extra: dict[str, str] = {}
    if variant == "chunked":
        extra["Transfer-Encoding"] = "chunked"
        body = _chunked(body)
    elif variant == "gzip":
        extra["Content-Encoding"] = "gzip"
        body = gzip.compress(body, mtime=0)
    elif variant == "curl-decoded":  # curl --compressed: decoded body, headers as the server sent them
        extra["Transfer-Encoding"] = "chunked"
        extra["Content-Encoding"] = "gzip"
    lines += [f"{name}: {value}".encode() for name, value in {**headers, **extra}.items()]
    head = end.join(lines) + end + end
    if variant == "continue":
        head = b"HTTP/1.1 100 Continue\r\n\r\n" + head
    if variant == "http2":
        head = head.replace(b"HTTP/1.1 %d Whatever" % status, b"HTTP/2 %d " % status)
    return head + body


VARIANTS = ("crlf", "lf", "continue", "http2", "chunked", "gzip", "curl-decoded")


def _subset() -> list[tuple[str, str]]:
    """Per API: the first case, and the first with an error status."""
    chosen: list[tuple[str, str]] = []
    for api in sorted({api for api, _ in CASES}):
        names = [name for a, name in CASES if a == api]
        errors = [name for name in names if _case(api, name)[0]["status"] != 200]
        chosen.extend((api, name) for name in dict.fromkeys(names[:1] + errors[:1]))
    return chosen


@pytest.mark.parametrize(("api", "name"), CASES, ids=[f"{a}/{n}" for a, n in CASES])
def test_raw_capture_equals_the_body_with_its_status_and_headers(api: str, name: str) -> None:
    sidecar, body = _case(api, name)
    headers = sidecar.get("headers") or {}
    expected = _documents(api, sidecar, sidecar["status"], headers, body)
    capture = read_capture(raw_response(sidecar["status"], headers, body, "crlf"))
    assert capture.kind == "http"
    (response,) = capture.items
    assert isinstance(response, CapturedResponse)
    assert (response.status, response.headers, response.body) == (sidecar["status"], headers, body)
    assert _documents(api, sidecar, response.status, response.headers, response.body) == expected


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("api", "name"), _subset(), ids=[f"{a}/{n}" for a, n in _subset()])
def test_raw_capture_shapes(api: str, name: str, variant: str) -> None:
    sidecar, body = _case(api, name)
    headers = sidecar.get("headers") or {}
    expected = _documents(api, sidecar, sidecar["status"], headers, body)
    (response,) = read_capture(raw_response(sidecar["status"], headers, body, variant)).items
    assert isinstance(response, CapturedResponse)
    assert response.status == sidecar["status"]
    assert response.body == body
    assert _documents(api, sidecar, response.status, response.headers, response.body) == expected


def test_repeated_and_folded_headers_read_as_fetch_gives_them() -> None:
    raw = (b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nX-Thing: a\r\nx-thing: b\r\n"
           b"X-Long: one\r\n  two\r\n\r\n{}")
    (response,) = read_capture(raw).items
    assert isinstance(response, CapturedResponse)
    assert response.headers == {"retry-after": "3", "x-thing": "a, b", "x-long": "one two"}
    assert response.body == b"{}"


def test_bare_bodies_are_not_captures() -> None:
    for api, name in _subset():
        _, body = _case(api, name)
        assert read_capture(body).kind == "body", (api, name)
    assert read_capture(b'{"error": {"type": "overloaded_error"}}').kind == "body"


@pytest.mark.parametrize(("raw", "message"), [
    (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nnot a header\r\n\r\ndata: {}\n\n",
     "line 3: a header of the HTTP 200 response that is not NAME: VALUE: 'not a header'"),
    (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream",
     "line 2: the headers of the HTTP 200 response end without the blank line before the body"),
    (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n10\r\ndata: {}\n\n",
     "chunked body: the chunk at byte 0 announces 16 bytes, 10 are there (a cut capture?)"),
    (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\ndata\r\n",
     "chunked body: no chunk size at byte 9"),
    (b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\n\r\n" + gzip.compress(b"data: {}\n\n")[:12],
     "content-encoding gzip: the compressed body is cut short"),
])
def test_broken_raw_captures_say_what_is_wrong(raw: bytes, message: str) -> None:
    with pytest.raises(CaptureError) as caught:
        read_capture(raw)
    assert str(caught.value) == message


# -- HAR -----------------------------------------------------------------------------------------------------------

HAR_URL = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent"


def har_entry(url: str, status: int, headers: dict[str, str], body: bytes, binary: bool = False) -> dict[str, Any]:
    content: dict[str, Any] = {"size": len(body), "mimeType": headers.get("content-type", "")}
    if binary:
        content.update(text=base64.b64encode(body).decode(), encoding="base64")
    else:
        content["text"] = body.decode("utf-8")
    return {
        "startedDateTime": "2026-01-01T00:00:00.000Z",
        "request": {"method": "POST", "url": url, "headers": [{"name": "x-goog-api-key", "value": "SECRET-HEADER"}]},
        "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": name, "value": value} for name, value in headers.items()],
                     "content": content},
    }


def har(entries: list[dict[str, Any]]) -> bytes:
    return json.dumps({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"},
                               "entries": entries}}, indent=1).encode()


def _api_cases(api: str, count: int) -> list[tuple[dict[str, Any], bytes]]:
    names = [name for a, name in CASES if a == api]
    errors = [name for name in names if _case(api, name)[0]["status"] != 200]
    picked = list(dict.fromkeys(names[:count - 1] + errors[:1]))
    return [_case(api, name) for name in picked]


@pytest.mark.parametrize("api", sorted({api for api, _ in CASES}))
def test_har_gives_every_response_in_file_order(api: str) -> None:
    cases = _api_cases(api, 3)
    urls = [f"{HAR_URL}?alt=sse&key=SECRET{i}" for i in range(len(cases))]
    data = har([har_entry(url, sidecar["status"], sidecar.get("headers") or {}, body, binary=api.startswith("bedrock"))
                for url, (sidecar, body) in zip(urls, cases, strict=True)])
    capture = read_capture(data)
    assert capture.kind == "har"
    documents = []
    for item in capture.items:
        assert isinstance(item, CapturedResponse)
        documents += _documents(api, cases[0][0], item.status, item.headers, item.body, item.entry)
    expected = []
    for index, (sidecar, body) in enumerate(cases):
        entry = {"index": index, "url": f"{HAR_URL}?alt=sse&key=<redacted>"}
        expected += _documents(api, cases[0][0], sidecar["status"], sidecar.get("headers") or {}, body, entry)
    assert documents == expected
    assert "SECRET" not in json.dumps(documents)


def test_har_entries_that_cannot_be_decoded_are_named() -> None:
    sidecar, body = _case(*_subset()[0])
    good = har_entry("https://api.anthropic.com/v1/messages", 200, {}, body)
    failed = {"request": {"url": "https://api.anthropic.com/v1/messages?key=k"},
              "response": {"status": 0, "headers": [], "content": {"size": 0}, "_error": "net::ERR_FAILED"}}
    unsaved = {"request": {"url": "https://x.test/"}, "response": {"status": 200, "headers": [],
                                                                  "content": {"size": 12, "mimeType": "x"}}}
    items = read_capture(har([failed, good, unsaved])).items
    assert items[0] == UnusableEntry({"index": 0, "url": "https://api.anthropic.com/v1/messages?key=<redacted>"},
                                     "HAR entry 0: no response was received (status 0: the request failed, was "
                                     "blocked or was cancelled)")
    assert isinstance(items[1], CapturedResponse) and items[1].body == body
    assert items[2] == UnusableEntry({"index": 2, "url": "https://x.test/"},
                                     "HAR entry 2: the response body (12 bytes) was not saved "
                                     "(no response.content.text)")


def test_har_with_a_bom_and_lone_surrogates() -> None:
    entry = har_entry("https://x.test/", 200, {}, b"")
    entry["response"]["content"]["text"] = "data: \ud83d\n\n"
    data = b"\xef\xbb\xbf" + json.dumps({"log": {"entries": [entry]}}).encode()
    (response,) = read_capture(data).items
    assert isinstance(response, CapturedResponse)
    assert response.body == b"data: \xed\xa0\xbd\n\n"  # read, not refused: the lone half kept (surrogatepass)


@pytest.mark.parametrize(("data", "message"), [
    (b'{"log": {"entries": [', "a HAR file (it starts with {\"log\":) that is not valid JSON: "),
    (b'{"log": {"pages": []}}', "a HAR file without a log.entries list"),
])
def test_broken_har_files(data: bytes, message: str) -> None:
    with pytest.raises(CaptureError) as caught:
        read_capture(data)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(("url", "expected"), [
    ("https://g.test/v1/m:stream?alt=sse&key=AIza123", "https://g.test/v1/m:stream?alt=sse&key=<redacted>"),
    ("https://g.test/x?api_key=1&access_token=2&X-Amz-Signature=3&keep=4#frag",
     "https://g.test/x?api_key=<redacted>&access_token=<redacted>&X-Amz-Signature=<redacted>&keep=4#frag"),
    ("https://user:pass@h.test/p?q=1", "https://<redacted>@h.test/p?q=1"),
    ("https://h.test/p", "https://h.test/p"),
    ("https://h.test/p?keyword=x&key", "https://h.test/p?keyword=x&key"),
])
def test_redact_url(url: str, expected: str) -> None:
    assert redact_url(url) == expected


# -- the command ---------------------------------------------------------------------------------------------------


def test_cli_raw_capture_prints_what_the_body_with_options_prints(tmp_path: Path) -> None:
    """Same file name in two folders: the outputs must be byte for byte the same."""
    for api, name in _subset():
        sidecar, body = _case(api, name)
        headers = sidecar.get("headers") or {}
        (tmp_path / "body").mkdir(exist_ok=True)
        (tmp_path / "raw").mkdir(exist_ok=True)
        (tmp_path / "body" / "capture").write_bytes(body)
        (tmp_path / "raw" / "capture").write_bytes(raw_response(sidecar["status"], headers, body, "chunked"))
        common = ["decode", "--api", api, "--model", sidecar["model"], "--events"]
        if _reasoning(sidecar):
            common += ["--reasoning", str(_reasoning(sidecar))]
        options = ["--status", str(sidecar["status"])]
        for header, value in headers.items():
            options += ["--header", f"{header}: {value}"]
        plain = run_cli(*common, *options, "capture", cwd=tmp_path / "body", env=EPOCH)
        raw = run_cli(*common, "capture", cwd=tmp_path / "raw", env=EPOCH)
        assert plain.code == raw.code == 0, (api, name, raw.stderr)
        assert raw.stdout == plain.stdout and raw.stderr == plain.stderr == ""


def test_cli_har(tmp_path: Path) -> None:
    cases = _api_cases("anthropic-messages", 3)
    entries = [har_entry(f"https://api.anthropic.com/v1/messages?beta=true&key=SECRET{i}", sidecar["status"],
                         sidecar.get("headers") or {}, body) for i, (sidecar, body) in enumerate(cases)]
    failed = {"request": {"url": "https://api.anthropic.com/v1/messages"}, "response": {"status": 0}}
    path = tmp_path / "traffic.json"
    path.write_bytes(har([entries[0], failed, *entries[1:]]))
    result = run_cli("decode", "--api", "anthropic-messages", str(path), env=EPOCH)
    assert result.code == 2
    assert result.stderr == (f"pi-tools: {path}: HAR entry 1: no response was received (status 0: the request "
                             "failed, was blocked or was cancelled)\n")
    documents = result.documents()
    assert [(d["kind"], d["entry"]["index"]) for d in documents] == [("message", 0), ("error", 1), ("message", 2),
                                                                    ("message", 3)]
    for document, (sidecar, body) in zip([documents[0], *documents[2:]], cases, strict=True):
        (expected,) = [d for d in decode_documents(body, source=str(path), api="anthropic-messages",
                                                   model_ref="anthropic/claude-sonnet-4-5", status=sidecar["status"],
                                                   headers=sidecar.get("headers") or {}, reasoning=None,
                                                   events=False, now_ms=NOW_MS, entry=document["entry"])]
        assert document == json.loads(json.dumps(expected))
    assert documents[2]["entry"]["url"] == "https://api.anthropic.com/v1/messages?beta=true&key=<redacted>"
    assert "SECRET" not in result.stdout


def test_cli_capture_errors(tmp_path: Path) -> None:
    raw = tmp_path / "raw.txt"
    raw.write_bytes(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: {}\n\n")
    both = run_cli("decode", "--api", "anthropic-messages", "--status", "500", str(raw))
    assert both.code == 2
    assert both.stderr == (f"pi-tools: {raw}: --status and --header are for a bare body; this is a raw HTTP "
                           "response, which carries its own\n")
    torn = tmp_path / "torn.har"
    torn.write_bytes(b'{"log": {"entries": [{"response": ')
    result = run_cli("decode", "--api", "anthropic-messages", str(torn))
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"pi-tools: {torn}: a HAR file (it starts with {{\"log\":) that is not valid JSON")
    empty = tmp_path / "empty.har"
    empty.write_bytes(har([]))
    nothing = run_cli("decode", "--api", "anthropic-messages", str(empty))
    assert (nothing.code, nothing.stderr) == (2, f"pi-tools: {empty}: a HAR file with no entries: nothing to decode\n")
    assert "Traceback" not in result.stderr + both.stderr + nothing.stderr


CAPTURES = Path(__file__).resolve().parents[2] / "fixtures" / "captures"


@pytest.mark.parametrize("name", ["curl_i.txt", "curl_D_compressed.txt", "curl_i_raw_gzip.txt"])
def test_real_curl_captures(name: str) -> None:
    """curl's own output (fixtures/captures/README.md): 100 Continue, --compressed, --raw chunked gzip."""
    sidecar, body = _case("anthropic-messages", "rec_vercel_text")
    expected = _documents("anthropic-messages", sidecar, 200, sidecar["headers"], body)
    (response,) = read_capture((CAPTURES / name).read_bytes()).items
    assert isinstance(response, CapturedResponse)
    assert (response.status, response.body) == (200, body)
    assert response.headers["content-type"] == sidecar["headers"]["content-type"]
    assert response.headers["request-id"] == "req_capture"
    assert _documents("anthropic-messages", sidecar, response.status, response.headers, response.body) == expected

"""Replaying the stream goldens (fixtures/streams) and hand-built response bodies through the decoders.

One harness for every API's stream tests, so that each case is served the way the reference harness served it
(sidecar status and headers, the body in one write, per SSE event or in 7-byte writes, an optional cut
connection) and compared the same way; the per-API test files keep only what is specific to their API.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from pi_tools.providers.catalog import find_model
from pi_tools.providers.decode import classify, decode_response
from pi_tools.providers.eventstream import HeaderValue, encode_message
from pi_tools.providers.streaming import TransportError

from support.golden import STREAMS

# What the reference harness fixed for every case: the clock and the stream options beyond the sidecar's.
NOW_MS = 1767225600000
FIXED_OPTIONS = {"apiKey": "replay-dummy-api-key", "sessionId": "replay-session-0001"}

Chunking = int | str | None
Outcome = tuple[list[dict[str, Any]], dict[str, Any]]


def stream_case_names(api: str) -> list[str]:
    """Every case of ``api`` that has a sidecar and an expected document."""
    folder = STREAMS / "cases" / api
    return sorted(
        path.stem for path in folder.glob("*.json") if (STREAMS / "expected" / api / path.name).exists()
    )


def stream_case_params(api: str, known_differences: dict[str, str]) -> list[Any]:
    """The case names, those listed in ``known_differences`` (name -> why) as strict xfails."""
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=known_differences[name]))
        if name in known_differences
        else name
        for name in stream_case_names(api)
    ]


@cache
def load_case(api: str, name: str) -> tuple[dict[str, Any], bytes, dict[str, Any]]:
    """(sidecar, body bytes, expected document); the expected one parsed with the stdlib (lone surrogates)."""
    sidecar = json.loads((STREAMS / "cases" / api / f"{name}.json").read_text(encoding="utf-8"))
    body = (STREAMS / "cases" / api / sidecar["body"]).read_bytes()
    with open(STREAMS / "expected" / api / f"{name}.json", encoding="utf-8") as fh:
        expected = json.load(fh)
    return sidecar, body, expected


def _event_writes(body: bytes) -> list[bytes]:
    """One write per SSE event: cut after every blank line, as the reference harness served the body."""
    writes: list[bytes] = []
    start = 0
    while start < len(body):
        ends = [body.find(sep, start) for sep in (b"\r\n\r\n", b"\n\n")]
        found = [(pos, sep) for pos, sep in zip(ends, (4, 2), strict=True) if pos != -1]
        if not found:
            writes.append(body[start:])
            break
        pos, size = min(found)
        writes.append(body[start : pos + size])
        start = pos + size
    return writes


def body_chunks(body: bytes, chunking: Chunking, *, cut: bool) -> Iterator[bytes]:
    """The body in writes of ``chunking`` bytes, one per event (``"events"``) or all at once (``None``),
    then a cut if asked for."""
    if chunking is None:
        if body:
            yield body
    elif chunking == "events":
        yield from _event_writes(body)
    else:
        assert isinstance(chunking, int)
        for start in range(0, len(body), chunking):
            yield body[start : start + chunking]
    if cut:
        raise TransportError()


def normalized(value: Any) -> Any:
    """Round-trip through JSON so that tuples, int/float spellings and key order do not matter."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def replay(api: str, name: str, chunking: Chunking = None) -> Outcome:
    """Decode one golden case the way the reference harness served it."""
    sidecar, body, _ = load_case(api, name)
    return decode_response(
        api,
        find_model(sidecar["model"]),
        status=sidecar["status"],
        headers=sidecar.get("headers") or {},
        chunks=body_chunks(body, chunking, cut=(sidecar.get("transport") or {}).get("cut") == "reset"),
        options={**(sidecar.get("options") or {}), **FIXED_OPTIONS},
        now_ms=NOW_MS,
    )


def assert_matches_reference(api: str, name: str) -> None:
    """Served in one write: events, message and classification equal the reference's."""
    sidecar, _, expected = load_case(api, name)
    events, message = replay(api, name)
    assert normalized(events) == expected["events"]
    assert normalized(message) == expected["message"]
    assert classify(message, find_model(sidecar["model"])) == expected["classification"]


def assert_chunking_does_not_matter(api: str, name: str) -> None:
    """7-byte writes settle exactly what one write settles."""
    assert normalized(replay(api, name, 7)) == normalized(replay(api, name))


def assert_case(api: str, name: str) -> None:
    """Events, message and classification equal the reference's; chunking does not change anything."""
    assert_matches_reference(api, name)
    sidecar, _, expected = load_case(api, name)
    # The pinned case depends on read boundaries (see its description); the others must not.
    pinned = (sidecar.get("transport") or {}).get("chunking") == "events"
    for chunking in ("events",) if pinned else ("events", 7):
        events, message = replay(api, name, chunking)
        assert normalized(message) == expected["message"]
        assert normalized(events) == expected["events"]


# ------------------------------------------------------------------------------------------------------------
# Hand-built bodies


def decode_body(
    api: str,
    model: str,
    body: bytes,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
    cut: bool = False,
) -> Outcome:
    """Decode a body served in one write (then cut if asked) with the golden harness's fixed options."""
    return decode_response(
        api,
        find_model(model),
        status=status,
        headers=headers if headers is not None else {"content-type": "text/event-stream"},
        chunks=body_chunks(body, None, cut=cut),
        options={**(options or {}), **FIXED_OPTIONS},
        now_ms=NOW_MS,
    )


def assert_outcome(events: list[dict[str, Any]], message: dict[str, Any], expect: dict[str, Any]) -> None:
    """The event types, stop reason, error text and content that a reference run recorded for a body."""
    assert [event["type"] for event in events] == expect["types"]
    assert message["stopReason"] == expect["stopReason"]
    assert message.get("errorMessage") == expect["errorMessage"]
    assert normalized(message["content"]) == expect["content"]


def assert_reference_run(api: str, case: dict[str, Any]) -> None:
    """A hand-built response (``model``, ``status``, ``headers``, ``options``, ``body``, ``cut``) settles as the
    reference's own run on it recorded in ``expect``."""
    events, message = decode_body(
        api,
        case["model"],
        case["body"],
        status=case["status"],
        headers=case["headers"],
        options=case["options"],
        cut=case["cut"],
    )
    assert_outcome(events, message, case["expect"])


def eventstream_message(kind: str, payload: bytes, message_type: str = "event") -> bytes:
    """One AWS event-stream message of JSON ``payload``, as Bedrock frames events (and exceptions)."""
    type_header = ":exception-type" if message_type == "exception" else ":event-type"
    return encode_message(
        {
            type_header: HeaderValue("string", kind),
            ":content-type": HeaderValue("string", "application/json"),
            ":message-type": HeaderValue("string", message_type),
        },
        payload,
    )

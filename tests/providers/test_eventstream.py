"""AWS event-stream framing: exact decoding, chunk independence and clear errors on corrupted input."""

from __future__ import annotations

import struct
import zlib

import pytest

from pi_tools.providers.catalog import find_model
from pi_tools.providers.decode import decode_response
from pi_tools.providers.eventstream import (
    TRUNCATED_MESSAGE,
    EventStreamDecoder,
    EventStreamError,
    EventStreamMessage,
    HeaderValue,
    TruncatedEventStreamError,
    decode_message,
    encode_message,
)

from support.golden import STREAMS
from support.streamcases import eventstream_message

BEDROCK_CASES = STREAMS / "cases" / "bedrock-converse-stream"
BIN_FILES = sorted(BEDROCK_CASES.glob("*.bin"))

# The empty message from the AWS event-stream test suite: no headers, no payload.
EMPTY_MESSAGE = bytes.fromhex("000000100000000005c248eb7d98c8ff")


def _feed_all(data: bytes, size: int) -> list[EventStreamMessage]:
    decoder = EventStreamDecoder()
    messages: list[EventStreamMessage] = []
    for start in range(0, len(data), size):
        messages.extend(decoder.feed(data[start : start + size]))
    return messages


def _event(payload: bytes = b'{"a":1}') -> bytes:
    return eventstream_message("messageStart", payload)


def _raw_message(header_block: bytes) -> bytes:
    """A message with valid checksums around a hand-written (possibly malformed) header block, no payload."""
    total = 16 + len(header_block)
    prelude = struct.pack(">II", total, len(header_block))
    head = prelude + struct.pack(">I", zlib.crc32(prelude)) + header_block
    return head + struct.pack(">I", zlib.crc32(head))


def test_reference_empty_message_vector() -> None:
    message = decode_message(EMPTY_MESSAGE)
    assert message.headers == {} and message.payload == b""
    assert encode_message({}, b"") == EMPTY_MESSAGE


def test_every_header_type_round_trips() -> None:
    headers = {
        "t": HeaderValue("boolean", True),
        "f": HeaderValue("boolean", False),
        "b": HeaderValue("byte", -7),
        "s": HeaderValue("short", -300),
        "i": HeaderValue("integer", 70000),
        "l": HeaderValue("long", -(2**40)),
        "bin": HeaderValue("binary", b"\x00\xff"),
        "str": HeaderValue("string", "héllo"),
        "ts": HeaderValue("timestamp", 1767225600000),
        "id": HeaderValue("uuid", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"),
    }
    raw = encode_message(headers, b"payload")
    message = decode_message(raw)
    assert message.headers == headers
    assert list(message.headers) == list(headers)
    assert message.payload == b"payload"
    assert message.header_str("str") == "héllo" and message.header_str("i") is None


@pytest.mark.parametrize("path", BIN_FILES, ids=[p.stem for p in BIN_FILES])
def test_fixture_bodies_decode_the_same_for_any_chunking(path: object) -> None:
    data = BEDROCK_CASES.joinpath(path.name).read_bytes()  # type: ignore[attr-defined]
    whole = _feed_all(data, len(data) or 1)
    assert whole, "every fixture holds at least one complete message"
    for size in (1, 7, 4096):
        assert _feed_all(data, size) == whole
    # Re-encoding what was decoded reproduces the complete messages byte for byte.
    reencoded = b"".join(encode_message(m.headers, m.payload) for m in whole)
    assert data.startswith(reencoded)


def test_truncated_stream_is_reported_at_finish() -> None:
    data = _event() + _event()[:20]
    decoder = EventStreamDecoder()
    assert len(decoder.feed(data)) == 1
    assert decoder.pending
    with pytest.raises(TruncatedEventStreamError, match=TRUNCATED_MESSAGE):
        decoder.finish()


def test_clean_end_has_nothing_pending() -> None:
    decoder = EventStreamDecoder()
    assert len(decoder.feed(_event() + _event())) == 2
    decoder.finish()


def test_prelude_checksum_corruption_fails_before_buffering() -> None:
    corrupted = bytearray(_event())
    corrupted[3] ^= 0x40  # the total length: its CRC no longer matches
    decoder = EventStreamDecoder()
    with pytest.raises(EventStreamError, match="prelude checksum"):
        decoder.feed(bytes(corrupted[:12]))


def test_message_checksum_corruption_is_detected() -> None:
    corrupted = bytearray(_event())
    corrupted[-6] ^= 0x01  # a payload byte
    with pytest.raises(EventStreamError, match="message checksum"):
        EventStreamDecoder().feed(bytes(corrupted))


def test_impossible_lengths_are_rejected() -> None:
    prelude = struct.pack(">II", 8, 0)
    too_short = prelude + struct.pack(">I", zlib.crc32(prelude))
    with pytest.raises(EventStreamError, match="out of range"):
        EventStreamDecoder().feed(too_short)
    prelude = struct.pack(">II", 20, 10)
    bad_headers = prelude + struct.pack(">I", zlib.crc32(prelude))
    with pytest.raises(EventStreamError, match="headers length"):
        EventStreamDecoder().feed(bad_headers)


def test_unknown_header_type_is_an_error() -> None:
    raw = _raw_message(bytes([1]) + b"x" + bytes([42]))
    with pytest.raises(EventStreamError, match="header type tag 42"):
        decode_message(raw)


def test_header_running_past_its_block_is_an_error() -> None:
    raw = _raw_message(bytes([5]) + b"ab")  # name length 5 but only 2 bytes follow
    with pytest.raises(EventStreamError, match="shorter"):
        decode_message(raw)


@pytest.mark.parametrize("position", [2, 9, 30, -2])
def test_corrupted_bedrock_body_settles_as_an_error(position: int) -> None:
    data = bytearray((BEDROCK_CASES / "rec_vercel_text.bin").read_bytes())
    data[position] ^= 0x10
    events, message = decode_response(
        "bedrock-converse-stream",
        find_model("amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0"),
        status=200,
        headers={"content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "req-1"},
        chunks=iter([bytes(data)]),
        options={},
        now_ms=1,
    )
    assert message["stopReason"] == "error"
    assert "checksum" in message["errorMessage"] or "out of range" in message["errorMessage"]
    assert events[-1]["type"] == "error"

"""Incremental decoder for the AWS binary event-stream framing (``application/vnd.amazon.eventstream``).

Bedrock's ConverseStream answers with a sequence of binary messages rather than SSE text. Each message is:

    total length (u32 BE) | headers length (u32 BE) | prelude CRC32 (u32 BE)
    headers | payload | message CRC32 (u32 BE, over everything before it)

The decoder is fed arbitrary byte slices (the network decides where writes split) and hands back every message
that became complete, so parsing never depends on chunk boundaries. The prelude checksum is verified as soon as
the 12 prelude bytes are in, which turns a corrupted length into an immediate, readable error instead of an
attempt to buffer gigabytes.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from dataclasses import dataclass
from typing import NamedTuple

PRELUDE_LENGTH = 8
CHECKSUM_LENGTH = 4
# Prelude, its CRC and the trailing message CRC: the smallest possible message has no headers and no payload.
MINIMUM_MESSAGE_LENGTH = PRELUDE_LENGTH + 2 * CHECKSUM_LENGTH
# The specification caps a message at 16 MiB and the header block at 128 KiB.
MAXIMUM_MESSAGE_LENGTH = 16 * 1024 * 1024
MAXIMUM_HEADERS_LENGTH = 128 * 1024

TRUNCATED_MESSAGE = "Truncated event message received."


class EventStreamError(ValueError):
    """The byte stream is not valid event-stream framing (bad checksum, bad length, bad header)."""


class TruncatedEventStreamError(EventStreamError):
    """The stream ended while a message was still incomplete."""

    def __init__(self) -> None:
        super().__init__(TRUNCATED_MESSAGE)


class HeaderValue(NamedTuple):
    """One typed header value; ``type`` names the wire type so callers can tell a string from bytes."""

    type: str
    value: object


@dataclass(frozen=True, slots=True)
class EventStreamMessage:
    """A decoded message: headers in wire order and the raw payload bytes."""

    headers: dict[str, HeaderValue]
    payload: bytes

    def header_str(self, name: str) -> str | None:
        """The header's value when it is present and a string; event-stream routing headers are strings."""
        header = self.headers.get(name)
        if header is None or not isinstance(header.value, str):
            return None
        return header.value


def _crc32(data: bytes | memoryview) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


_FIXED_SIZE_TYPES: dict[int, tuple[str, str, int]] = {
    2: ("byte", ">b", 1),
    3: ("short", ">h", 2),
    4: ("integer", ">i", 4),
    5: ("long", ">q", 8),
    # Milliseconds since the epoch, kept as an integer: callers decide how to present time.
    8: ("timestamp", ">q", 8),
}


def _short_header_block() -> EventStreamError:
    return EventStreamError("Event stream header block is shorter than its contents declare")


def parse_headers(block: bytes) -> dict[str, HeaderValue]:
    """Decode a header block; every wire type is supported so unknown-but-valid headers never break a stream."""
    headers: dict[str, HeaderValue] = {}
    position = 0
    end = len(block)
    while position < end:
        name_end = position + 1 + block[position]
        if name_end + 1 > end:
            raise _short_header_block()
        name = block[position + 1 : name_end].decode("utf-8", errors="replace")
        tag = block[name_end]
        position = name_end + 1
        if tag == 0 or tag == 1:
            headers[name] = HeaderValue("boolean", tag == 0)
        elif tag in _FIXED_SIZE_TYPES:
            kind, layout, size = _FIXED_SIZE_TYPES[tag]
            if position + size > end:
                raise _short_header_block()
            headers[name] = HeaderValue(kind, struct.unpack_from(layout, block, position)[0])
            position += size
        elif tag == 6 or tag == 7:
            if position + 2 > end:
                raise _short_header_block()
            length = struct.unpack_from(">H", block, position)[0]
            value_end = position + 2 + length
            if value_end > end:
                raise _short_header_block()
            raw = block[position + 2 : value_end]
            headers[name] = (
                HeaderValue("binary", raw)
                if tag == 6
                else HeaderValue("string", raw.decode("utf-8", "replace"))
            )
            position = value_end
        elif tag == 9:
            if position + 16 > end:
                raise _short_header_block()
            headers[name] = HeaderValue("uuid", str(uuid.UUID(bytes=block[position : position + 16])))
            position += 16
        else:
            raise EventStreamError(f"Unrecognized event stream header type tag {tag} for header {name!r}")
    return headers


def decode_message(raw: bytes | bytearray) -> EventStreamMessage:
    """Validate and split one complete message (both checksums, both lengths)."""
    data = bytes(raw)
    if len(data) < MINIMUM_MESSAGE_LENGTH:
        raise EventStreamError("Event stream message is too short to hold the prelude and checksums")
    total_length, headers_length, prelude_crc = struct.unpack(">III", data[:12])
    if total_length != len(data):
        raise EventStreamError(
            f"Event stream message length {total_length} does not match the {len(data)} bytes received"
        )
    actual_prelude_crc = _crc32(data[:PRELUDE_LENGTH])
    if actual_prelude_crc != prelude_crc:
        raise EventStreamError(
            f"Event stream prelude checksum mismatch: message says {prelude_crc}, computed {actual_prelude_crc}"
        )
    (message_crc,) = struct.unpack(">I", data[total_length - CHECKSUM_LENGTH :])
    actual_message_crc = _crc32(memoryview(data)[: total_length - CHECKSUM_LENGTH])
    if actual_message_crc != message_crc:
        raise EventStreamError(
            f"Event stream message checksum mismatch: message says {message_crc}, computed {actual_message_crc}"
        )
    headers_start = PRELUDE_LENGTH + CHECKSUM_LENGTH
    payload_start = headers_start + headers_length
    payload_end = total_length - CHECKSUM_LENGTH
    if payload_start > payload_end:
        raise EventStreamError(
            f"Event stream headers length {headers_length} exceeds the message length {total_length}"
        )
    headers = parse_headers(data[headers_start:payload_start])
    return EventStreamMessage(headers=headers, payload=data[payload_start:payload_end])


def _check_prelude(prelude: bytes | memoryview) -> int:
    """Validate a prelude before buffering the rest of its message; returns the total length."""
    total_length, headers_length, prelude_crc = struct.unpack(">III", prelude[:12])
    actual = _crc32(prelude[:PRELUDE_LENGTH])
    if actual != prelude_crc:
        raise EventStreamError(
            f"Event stream prelude checksum mismatch: message says {prelude_crc}, computed {actual}"
        )
    if total_length < MINIMUM_MESSAGE_LENGTH or total_length > MAXIMUM_MESSAGE_LENGTH:
        raise EventStreamError(f"Event stream message length {total_length} is out of range")
    if headers_length > MAXIMUM_HEADERS_LENGTH or headers_length > total_length - MINIMUM_MESSAGE_LENGTH:
        raise EventStreamError(f"Event stream headers length {headers_length} is out of range")
    return int(total_length)


class EventStreamDecoder:
    """Accumulates bytes and yields complete messages; ``finish`` reports a message cut off by EOF."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._expected_length: int | None = None

    def feed(self, data: bytes | bytearray | memoryview) -> list[EventStreamMessage]:
        """Add bytes; return the messages they completed, in order."""
        self._buffer += data
        messages: list[EventStreamMessage] = []
        offset = 0
        buffer = self._buffer
        try:
            while True:
                available = len(buffer) - offset
                if self._expected_length is None:
                    if available < PRELUDE_LENGTH + CHECKSUM_LENGTH:
                        break
                    self._expected_length = _check_prelude(bytes(buffer[offset : offset + 12]))
                expected = self._expected_length
                if available < expected:
                    break
                # Copy the message out so no view pins the buffer while it is compacted.
                messages.append(decode_message(bytes(buffer[offset : offset + expected])))
                offset += expected
                self._expected_length = None
        finally:
            # Compact once per feed so long streams stay linear in their size.
            if offset:
                del buffer[:offset]
        return messages

    @property
    def pending(self) -> bool:
        """True when bytes of an unfinished message are buffered."""
        return bool(self._buffer)

    def finish(self) -> None:
        """Call at end of input: a partly received message is an error, as the AWS SDK treats it."""
        if self._buffer:
            raise TruncatedEventStreamError()


def encode_message(headers: dict[str, HeaderValue], payload: bytes) -> bytes:
    """Frame one message; used to build test streams and to re-encode fixtures."""
    header_block = bytearray()
    for name, header in headers.items():
        encoded_name = name.encode("utf-8")
        header_block.append(len(encoded_name))
        header_block += encoded_name
        kind, value = header.type, header.value
        if kind == "boolean":
            header_block.append(0 if value else 1)
        elif kind == "byte":
            header_block += struct.pack(">Bb", 2, _as_int(value))
        elif kind == "short":
            header_block += struct.pack(">Bh", 3, _as_int(value))
        elif kind == "integer":
            header_block += struct.pack(">Bi", 4, _as_int(value))
        elif kind == "long":
            header_block += struct.pack(">Bq", 5, _as_int(value))
        elif kind == "binary":
            raw = bytes(value) if isinstance(value, (bytes, bytearray)) else b""
            header_block += struct.pack(">BH", 6, len(raw)) + raw
        elif kind == "string":
            raw = str(value).encode("utf-8")
            header_block += struct.pack(">BH", 7, len(raw)) + raw
        elif kind == "timestamp":
            header_block += struct.pack(">Bq", 8, _as_int(value))
        elif kind == "uuid":
            header_block += bytes([9]) + uuid.UUID(str(value)).bytes
        else:
            raise EventStreamError(f"Unknown event stream header type {kind!r}")
    total_length = len(header_block) + len(payload) + MINIMUM_MESSAGE_LENGTH
    prelude = struct.pack(">II", total_length, len(header_block))
    head = prelude + struct.pack(">I", _crc32(prelude))
    body = head + bytes(header_block) + payload
    return body + struct.pack(">I", _crc32(body))


def _as_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EventStreamError(f"Integer header value expected, got {value!r}")
    return value

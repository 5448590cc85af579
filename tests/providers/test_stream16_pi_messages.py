"""pi-messages stream decoding (Pi 1.6): the events and the settled message equal what pi-ai 1.6's pi-messages
adapter made of the same bodies (tests/data/pi_messages16/streams.json, recorded from its JavaScript; timings and
stack traces left out), and `decode --pi` reaches the decoder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.pi import resolve
from pi_tools.providers.catalog import find_model
from pi_tools.providers.decode import decode_response

PI16 = resolve("1.6")
DATA = Path(__file__).resolve().parents[1] / "data" / "pi_messages16" / "streams.json"
CASES = json.loads(DATA.read_text(encoding="utf-8"))["cases"]
NOW = 1700000000000


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_decoding_equals_pi_16(case: dict[str, Any]) -> None:
    model = find_model("radius/balanced", PI16.requests.catalog)
    body = case["body"].encode("utf-8")
    events, message = decode_response("pi-messages", model, status=case["status"], headers={},
                                      chunks=[body] if body else [], options={"apiKey": "k"}, now_ms=NOW,
                                      edition=PI16.requests)
    assert js_stringify({"events": events, "message": message}) == js_stringify(case["expected"])


def test_chunking_does_not_change_the_result() -> None:
    """Byte by byte (a UTF-8 character and CRLF pairs split across reads) gives what one read gives."""
    model = find_model("radius/balanced", PI16.requests.catalog)
    body = ('data: {"type":"start"}\r\n\r\ndata: {"type":"text_start","contentIndex":0}\r\n\r\n'
            'data: {"type":"text_delta","contentIndex":0,"delta":"é€"}\r\n\r\n'
            'data: {"type":"done","reason":"stop","usage":{"input":1}}').encode()
    whole = decode_response("pi-messages", model, status=200, headers={}, chunks=[body], options={"apiKey": "k"},
                            now_ms=NOW, edition=PI16.requests)
    split = decode_response("pi-messages", model, status=200, headers={},
                            chunks=[body[i:i + 1] for i in range(len(body))], options={"apiKey": "k"},
                            now_ms=NOW, edition=PI16.requests)
    assert whole == split
    assert whole[1]["content"] == [{"type": "text", "text": "é€"}]
    assert whole[1]["stopReason"] == "stop"


def test_decode_cli(cli: Any, tmp_path: Path) -> None:
    capture = tmp_path / "r.sse"
    capture.write_text(CASES[0]["body"], encoding="utf-8")
    decoded = cli("decode", "--pi", "1.6", "--api", "pi-messages", str(capture), env={"SOURCE_DATE_EPOCH": "1700000000"})
    assert decoded.code == 0
    (document,) = decoded.documents()
    assert js_stringify(document["message"]) == js_stringify(CASES[0]["expected"]["message"])
    refused = cli("decode", "--pi", "0.85", "--api", "pi-messages", str(capture))
    assert refused.code == 2
    assert refused.stderr.startswith("pi-tools: --api pi-messages: Pi 0.85 has no pi-messages API")

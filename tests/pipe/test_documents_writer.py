"""The document writer: messages kept as their own JSON text (RawMessage) are written verbatim only when every
JSON reader gets the same value back from that text as from the re-serialised value; otherwise re-encoded."""

from __future__ import annotations

import orjson
import pytest

from pi_tools.js.json_line import loads_line
from pi_tools.messages.types import RawMessage
from pi_tools.pipe.documents import LazyMessages, iter_document_bytes


def written(*texts: bytes) -> bytes:
    document = {"kind": "context", "messages": LazyMessages(lambda: iter([]), lambda: (
        RawMessage("user", text) for text in texts))}
    return b"".join(iter_document_bytes(document))


def messages_of(output: bytes) -> list[object]:
    return loads_line(output)["messages"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("text", "expected"), [
    # Infinity after parsing; JSON.stringify (and every other stage) writes null.
    (b'{"a":1e999}', b'{"a":null}'),
    (b'{"a":[1E+400,2]}', b'{"a":[null,2]}'),
    (b'{"a":1e999 }', b'{"a":null}'),
    (b'{"a":[-1e9999]}', b'{"a":[null]}'),
    # More than 64 bits: written as the parsed double.
    (b'{"a":123456789012345678901}', b'{"a":1.2345678901234568e+20}'),
    # Finite, but a 3-digit exponent is not told apart from 1e999 cheaply: re-encoded, same value.
    (b'{"a":1.5e300}', b'{"a":1.5e+300}'),
    # Past 2**53: the double V8 parses it to, in JSON.stringify's digits (Node 22 writes 12345678901234568).
    (b'{"n":12345678901234567}', b'{"n":12345678901234568}'),
    (b'{"n":[-9007199254740993]}', b'{"n":[-9007199254740992]}'),
])
def test_number_texts_that_do_not_read_back_are_re_encoded(text: bytes, expected: bytes) -> None:
    assert written(text, b'{"b":"\\u00e9"}') == b'{"kind":"context","messages":[' + expected + b',{"b":"\\u00e9"}]}\n'


@pytest.mark.parametrize("text", [
    b'{"a":-1e-999,"c":1e21,"d":0.000024449999999999998,"e":2.4449999999999998e-05}',
    b'{"id":"fc_81672617ed21d3e014271f1cb","text":"error[E0308]: mismatched types","n":123456789012345}',
    b'{"n":9007199254740992,"m":1234567890123456}',  # 16 digits, exact doubles: re-encoded to the same text
    b'{"text":"caf\\u00e9 \\ud83d\\ude80 \\ud800"}',
])
def test_texts_that_read_back_the_same_are_written_verbatim(text: bytes) -> None:
    output = written(text)
    assert output == b'{"kind":"context","messages":[' + text + b"]}\n"
    assert messages_of(output) == [loads_line(text)]


def test_objects_and_texts_mix_in_order() -> None:
    items = [{"role": "user", "content": "x"}, RawMessage("assistant", b'{"role":"assistant","content":[]}'),
             {"role": "toolResult", "content": []}]
    document = {"kind": "llm", "messages": LazyMessages(lambda: iter(items), lambda: iter(items))}
    output = b"".join(iter_document_bytes(document))
    assert orjson.loads(output)["messages"] == [
        {"role": "user", "content": "x"}, {"role": "assistant", "content": []}, {"role": "toolResult", "content": []},
    ]

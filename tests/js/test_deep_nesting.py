"""Values nested thousands of levels deep: V8 parses any depth (Pi loads such a session), JSON.stringify gives up
past about 4,140 levels (RangeError: Maximum call stack size exceeded). pi-tools reads, converts and writes
them without recursion, and fails where V8's JSON.stringify fails. (Pi's answer at 1,100 levels is checked
in fixtures/fuzz; deeper values are beyond what the oracle itself can write.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tools.js.errors import JsRangeError
from pi_tools.js.json_parse import parse_js_json
from pi_tools.js.json_stringify import V8_STRINGIFY_DEPTH, clone_json, js_stringify, stringify_any_depth
from pi_tools.pipe.documents import dumps_document
from pi_tools.pipeline.stages import PayloadRequest, as_context, as_llm

from support.differential import _payload_builder, run_stage_on


def nested(depth: int, inner: str = '"x"') -> str:
    return '{"a":[' * (depth // 2) + inner + "]}" * (depth // 2)


def test_stringify_writes_what_v8_writes_up_to_its_depth() -> None:
    text = nested(V8_STRINGIFY_DEPTH)
    assert js_stringify(parse_js_json(text)) == text
    assert V8_STRINGIFY_DEPTH == 4140


def test_stringify_fails_as_v8_past_its_depth() -> None:
    with pytest.raises(JsRangeError, match="^Maximum call stack size exceeded$"):
        js_stringify(parse_js_json(nested(V8_STRINGIFY_DEPTH + 2)))


def test_any_depth_writer_and_clone_have_no_limit() -> None:
    text = nested(100_000, '[1,"\\ud800",{"b":null,"1":2}]')
    value = parse_js_json(text)
    expected = text.replace('{"b":null,"1":2}', '{"1":2,"b":null}')  # array-index keys first, as V8 orders them
    assert stringify_any_depth(value) == expected
    copy = clone_json(value)
    assert copy is not value and stringify_any_depth(copy) == expected
    assert dumps_document({"v": value}) == b'{"v":' + expected.encode() + b"}\n"


HEADER = ('{"type":"session","version":3,"id":"019a0000-0000-7000-8000-00000000f0d0",'
          '"timestamp":"2025-08-01T10:00:00.000Z","cwd":"/p"}')
ASSISTANT = ('"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,'
             '"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,'
             '"cacheWrite":0,"total":0}},"stopReason":"toolUse"')


@pytest.fixture
def deep_session(tmp_path: Path) -> Path:
    deep = nested(20_000)
    lines = [
        HEADER,
        '{"type":"message","id":"a","parentId":null,"timestamp":"2025-08-01T10:00:01.000Z","message":{"role":"user",'
        f'"content":[{{"type":"text","text":"hi","extra":{deep}}}],"timestamp":1}}}}',
        '{"type":"message","id":"b","parentId":"a","timestamp":"2025-08-01T10:00:02.000Z","message":{"role":'
        f'"assistant","content":[{{"type":"toolCall","id":"t1","name":"bash","arguments":{{"c":{deep}}}}}],'
        f'{ASSISTANT},"timestamp":2}}}}',
    ]
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_context_and_llm_documents_hold_a_value_20000_levels_deep(deep_session: Path) -> None:
    for build in (as_context, as_llm):
        run = run_stage_on(str(deep_session), build, True)
        assert run.escaped is None
        (document,) = run.documents
        assert document["kind"] in ("context", "llm")
        text = stringify_any_depth(document["messages"][0]["content"][0]["extra"])
        assert text == nested(20_000)


@pytest.mark.parametrize(("api", "model", "expected"), [
    # pi-ai JSON.stringifies tool-call arguments for Chat Completions: V8 overflows there, the request fails.
    ("openai-completions", "groq/openai/gpt-oss-120b", {"kind": "error", "error": "Maximum call stack size exceeded"}),
    # Anthropic's request keeps the arguments as an object: the payload is built, but the SDK cannot send it.
    ("anthropic-messages", "anthropic/claude-sonnet-4-5", {"kind": "payload"}),
])
def test_payload_fails_where_v8_stringify_fails(deep_session: Path, api: str, model: str,
                                                expected: dict[str, str]) -> None:
    request = PayloadRequest(api=api, model=model, system_prompt="s", reasoning="off", wire=True)
    run = run_stage_on(str(deep_session), _payload_builder(request), False)
    assert run.escaped is None
    (document,) = run.documents
    assert {key: document.get(key) for key in expected} == expected
    if document["kind"] == "payload":
        assert document["wire"] == {"error": "Maximum call stack size exceeded"}
        assert stringify_any_depth(document["payload"]["messages"][1]["content"][0]["input"])[:16] == '{"c":{"a":[{"a":'


def test_string_of_an_array_as_deep_as_v8_joins() -> None:
    from pi_tools.js.values import V8_JOIN_DEPTH, js_to_string

    assert js_to_string(parse_js_json("[" * (V8_JOIN_DEPTH - 1) + "1,null,[2]" + "]" * (V8_JOIN_DEPTH - 1))) == "1,,2"
    with pytest.raises(JsRangeError, match="^Maximum call stack size exceeded$"):
        js_to_string(parse_js_json("[" * (V8_JOIN_DEPTH + 1) + "1" + "]" * (V8_JOIN_DEPTH + 1)))

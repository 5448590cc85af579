"""`pi-tools trace -o`: the spans a session becomes (exact names, parents, times, attributes and events), the
content modes, the branches, deterministic ids, and the OTLP JSON validated against OTLP's protobuf schema."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

SECRET = "ghp_R2b4kF9qLmN7xT1vW3yZ5aC8dE0gH6jK2pQs"
USAGE_A1 = {"input": 100, "output": 20, "cacheRead": 50, "cacheWrite": 10, "totalTokens": 180,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.01}}
USAGE_A2 = {"input": 200, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 205,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.02}}
USAGE_X1 = {"input": 7, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.001}}


def _assistant(content: list[Any], usage: dict[str, Any], stop: str, millis: int, **extra: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic",
            "model": "claude-sonnet-4-5", "usage": usage, "stopReason": stop, "timestamp": millis, **extra}


ENTRIES: list[dict[str, Any]] = [
    {"type": "session", "version": 3, "id": "sess-1", "timestamp": "2026-12-01T10:00:00.000Z", "cwd": "/home/me/p"},
    {"type": "model_change", "id": "m1", "parentId": None, "timestamp": "2026-12-01T10:00:01.000Z",
     "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
    {"type": "thinking_level_change", "id": "k1", "parentId": "m1", "timestamp": "2026-12-01T10:00:02.000Z",
     "thinkingLevel": "high"},
    {"type": "message", "id": "u1", "parentId": "k1", "timestamp": "2026-12-01T10:00:03.000Z",
     "message": {"role": "user", "content": f"list files, token {SECRET}", "timestamp": 1796119203000}},
    {"type": "message", "id": "x1", "parentId": "u1", "timestamp": "2026-12-01T10:00:05.000Z",
     "message": _assistant([], USAGE_X1, "error", 1796119204000, errorMessage="overloaded")},
    {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-12-01T10:00:06.500Z",
     "message": _assistant([{"type": "thinking", "thinking": "hmm"},
                            {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls"}}],
                           USAGE_A1, "toolUse", 1796119204000, responseId="msg_1")},
    {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-12-01T10:00:07.250Z",
     "message": {"role": "toolResult", "toolCallId": "t1", "toolName": "bash",
                 "content": [{"type": "text", "text": "a.txt"}], "isError": False, "timestamp": 1796119207250}},
    {"type": "compaction", "id": "c1", "parentId": "r1", "timestamp": "2026-12-01T10:00:08.000Z",
     "summary": "they listed files", "firstKeptEntryId": "u1", "tokensBefore": 1234},
    {"type": "message", "id": "a2", "parentId": "c1", "timestamp": "2026-12-01T10:00:09.000Z",
     "message": _assistant([{"type": "text", "text": "done"}], USAGE_A2, "stop", 1796119208500)},
]


def _write(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return path


def _trace(tmp_path: Path, *args: str, name: str = "s.jsonl") -> dict[str, Any]:
    session = _write(tmp_path / name, ENTRIES)
    out = tmp_path / "trace.json"
    result = run_cli("trace", str(session), "-o", str(out), *args)
    assert result.code == 0, result.stderr
    return json.loads(out.read_text())


def _attrs(encoded: list[dict[str, Any]]) -> dict[str, Any]:
    """OTLP JSON attributes as a plain dict (int values are strings in OTLP JSON, as protobuf's JSON maps)."""
    plain = {}
    for item in encoded:
        value = item["value"]
        (kind, inner), = value.items()
        if kind == "arrayValue":
            inner = [next(iter(v.values())) for v in inner["values"]]
        plain[item["key"]] = inner
    return plain


def _spans(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [span for resource in document["resourceSpans"] for scope in resource["scopeSpans"]
            for span in scope["spans"]]


def _nanos(stamp: str) -> str:
    from datetime import datetime

    moment = datetime.fromisoformat(stamp)
    return str(int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000)


def test_the_active_path_becomes_an_agent_span_with_chat_and_tool_spans(tmp_path: Path) -> None:
    document = _trace(tmp_path)
    (resource,) = document["resourceSpans"]
    assert _attrs(resource["resource"]["attributes"]) == {"service.name": "pi"}
    assert resource["scopeSpans"][0]["scope"] == {"name": "pi-tools.trace", "version": "0.1.0"}
    spans = _spans(document)
    assert [(span["name"], span["kind"]) for span in spans] == [
        ("invoke_agent pi", 1), ("chat claude-sonnet-4-5", 3), ("execute_tool bash", 1),
        ("chat claude-sonnet-4-5", 3)]
    root, chat1, tool, chat2 = spans
    assert {span["traceId"] for span in spans} == {root["traceId"]}
    assert "parentSpanId" not in root
    assert [span["parentSpanId"] for span in spans[1:]] == [root["spanId"]] * 3
    assert len({span["spanId"] for span in spans}) == 4
    assert (root["startTimeUnixNano"], root["endTimeUnixNano"]) == (
        _nanos("2026-12-01T10:00:00.000+00:00"), _nanos("2026-12-01T10:00:09.000+00:00"))
    assert _attrs(root["attributes"]) == {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "pi", "gen_ai.conversation.id": "sess-1",
        "pi.branches": "active", "pi.session.version": "3", "pi.session.leaf_id": "a2"}
    assert [(event["name"], _attrs(event["attributes"])) for event in root["events"]] == [
        ("pi.model_change", {"pi.provider": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5",
                             "pi.entry.id": "m1"}),
        ("pi.thinking_level_change", {"pi.thinking_level": "high", "pi.entry.id": "k1"}),
        ("pi.compaction", {"pi.compaction.first_kept_entry_id": "u1", "pi.compaction.tokens_before": "1234",
                           "pi.entry.id": "c1"}),
    ]
    assert root["events"][2]["timeUnixNano"] == _nanos("2026-12-01T10:00:08.000+00:00")
    # The request ran from the message's own timestamp (Pi's start) to its entry (appended at the end).
    assert (chat1["startTimeUnixNano"], chat1["endTimeUnixNano"]) == ("1796119204000000000",
                                                                      _nanos("2026-12-01T10:00:06.500+00:00"))
    assert _attrs(chat1["attributes"]) == {
        "gen_ai.operation.name": "chat", "gen_ai.conversation.id": "sess-1", "gen_ai.provider.name": "anthropic",
        "pi.provider": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5",
        "gen_ai.response.model": "claude-sonnet-4-5", "gen_ai.response.id": "msg_1",
        "gen_ai.response.finish_reasons": ["toolUse"], "pi.api": "anthropic-messages", "pi.thinking_level": "high",
        # GenAI's input tokens include the cache's; Pi's own buckets as `usage` counts them beside.
        "gen_ai.usage.input_tokens": "160", "gen_ai.usage.output_tokens": "20",
        "gen_ai.usage.cache_read.input_tokens": "50", "gen_ai.usage.cache_creation.input_tokens": "10",
        "pi.usage.input": "100", "pi.usage.output": "20", "pi.usage.cache_read": "50", "pi.usage.cache_write": "10",
        "pi.usage.total_tokens": "180", "pi.cost.usd": 0.01, "pi.cost.source": "stored", "pi.entry.id": "a1"}
    assert chat1["status"] == {}
    assert (tool["startTimeUnixNano"], tool["endTimeUnixNano"]) == (
        _nanos("2026-12-01T10:00:06.500+00:00"), _nanos("2026-12-01T10:00:07.250+00:00"))
    assert _attrs(tool["attributes"]) == {
        "gen_ai.operation.name": "execute_tool", "gen_ai.conversation.id": "sess-1", "gen_ai.tool.name": "bash",
        "gen_ai.tool.type": "function", "gen_ai.tool.call.id": "t1", "pi.entry.id": "a1",
        "pi.tool.result.entry_id": "r1"}
    assert _attrs(chat2["attributes"])["gen_ai.response.finish_reasons"] == ["stop"]
    assert _attrs(chat2["attributes"])["pi.cost.usd"] == 0.02


def test_no_content_leaves_by_default(tmp_path: Path) -> None:
    text = json.dumps(_trace(tmp_path))
    for word in ("list files", "hmm", '"ls"', "a.txt", "done", "they listed", "/home/me", SECRET):
        assert word not in text


def test_full_content_follows_the_genai_message_formats(tmp_path: Path) -> None:
    spans = _spans(_trace(tmp_path, "--content", "full"))
    root, chat1, tool, chat2 = spans
    attributes = _attrs(chat1["attributes"])
    assert json.loads(attributes["gen_ai.input.messages"]) == [
        {"role": "user", "parts": [{"type": "text", "content": f"list files, token {SECRET}"}]}]
    assert json.loads(attributes["gen_ai.output.messages"]) == [
        {"role": "assistant", "finish_reason": "toolUse",
         "parts": [{"type": "reasoning", "content": "hmm"},
                   {"type": "tool_call", "id": "t1", "name": "bash", "arguments": {"command": "ls"}}]}]
    assert json.loads(_attrs(chat2["attributes"])["gen_ai.input.messages"]) == [
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "t1", "response": "a.txt"}]}]
    tool_attributes = _attrs(tool["attributes"])
    assert (tool_attributes["gen_ai.tool.call.arguments"], tool_attributes["gen_ai.tool.call.result"]) == (
        '{"command":"ls"}', "a.txt")
    assert _attrs(root["attributes"])["pi.session.cwd"] == "/home/me/p"
    assert _attrs(root["events"][2]["attributes"])["pi.compaction.summary"] == "they listed files"


def test_redacted_content_replaces_secrets(tmp_path: Path) -> None:
    chat1 = _spans(_trace(tmp_path, "--content", "redacted"))[1]
    assert json.loads(_attrs(chat1["attributes"])["gen_ai.input.messages"]) == [
        {"role": "user", "parts": [{"type": "text", "content": "list files, token [REDACTED:github-token]"}]}]


def test_all_branches_mark_the_abandoned_one(tmp_path: Path) -> None:
    spans = _spans(_trace(tmp_path, "--branches", "all"))
    assert [span["name"] for span in spans] == ["invoke_agent pi", *["chat claude-sonnet-4-5"] * 2,
                                                "execute_tool bash", "chat claude-sonnet-4-5"]
    abandoned = spans[1]
    attributes = _attrs(abandoned["attributes"])
    assert (attributes["pi.entry.id"], attributes["pi.branch.abandoned"], attributes["error.type"]) == (
        "x1", True, "error")
    # An error's message is content: its status says only that the request failed.
    assert abandoned["status"] == {"code": 2}
    assert all("pi.branch.abandoned" not in _attrs(span["attributes"]) for span in spans[2:])
    assert _attrs(spans[0]["attributes"])["pi.branches"] == "all"
    full = _spans(_trace(tmp_path, "--branches", "all", "--content", "full"))[1]
    assert full["status"] == {"code": 2, "message": "overloaded"}


def test_ids_derive_from_session_and_entry_ids(tmp_path: Path) -> None:
    first = _trace(tmp_path)
    moved = _trace(tmp_path, name="elsewhere.jsonl")
    assert first == moved  # the same session under another name, or traced again: the same bytes
    from pi_tools.trace.ids import span_id, trace_id

    spans = _spans(first)
    assert spans[0]["traceId"] == trace_id("sess-1")
    assert [span["spanId"] for span in spans] == [
        span_id("sess-1", "session"), span_id("sess-1", "entry", "a1"), span_id("sess-1", "tool", "a1", "t1"),
        span_id("sess-1", "entry", "a2")]
    assert len(spans[0]["traceId"]) == 32 and len(spans[0]["spanId"]) == 16


def _hex_ids_as_base64(value: Any) -> Any:
    """OTLP JSON spells ids in hex where protobuf's JSON mapping wants base64 (the one difference OTLP names)."""
    if isinstance(value, dict):
        return {key: base64.b64encode(bytes.fromhex(item)).decode()
                if key in ("traceId", "spanId", "parentSpanId") else _hex_ids_as_base64(item)
                for key, item in value.items()}
    if isinstance(value, list):
        return [_hex_ids_as_base64(item) for item in value]
    return value


@pytest.mark.parametrize("args", [(), ("--content", "full", "--branches", "all")])
def test_the_json_is_an_otlp_export_request(tmp_path: Path, args: tuple[str, ...]) -> None:
    json_format = pytest.importorskip("google.protobuf.json_format")
    service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    realworld = ROOT / "fixtures/realworld"
    out = tmp_path / "t.json"
    result = run_cli("trace", str(realworld), str(ROOT / "tests/data/pi16/cases"), "-o", str(out), *args)
    assert result.code == 0, result.stderr
    document = json.loads(out.read_text())
    request = json_format.Parse(json.dumps(_hex_ids_as_base64(document)), service.ExportTraceServiceRequest())
    sessions = len(list(realworld.glob("*.jsonl"))) + len(list((ROOT / "tests/data/pi16/cases").glob("*.jsonl")))
    assert len(request.resource_spans) == sessions
    for resource in request.resource_spans:
        spans = resource.scope_spans[0].spans
        assert len({span.trace_id for span in spans}) == 1
        root = spans[0]
        assert (len(root.trace_id), len(root.span_id), root.parent_span_id) == (16, 8, b"")
        assert root.name == "invoke_agent pi"
        assert all(span.parent_span_id == root.span_id for span in spans[1:])
        assert all(span.end_time_unix_nano >= span.start_time_unix_nano > 0 for span in spans)
    # Back to JSON, protobuf's own encoding holds the same values: nothing was dropped as unknown.
    again = json.loads(json_format.MessageToJson(request))
    assert _spans(again)[0]["name"] == _spans(document)[0]["name"]
    assert sum(len(_spans({"resourceSpans": [r]})) for r in again["resourceSpans"]) == len(_spans(document))


def test_stdout_and_errors(tmp_path: Path) -> None:
    session = _write(tmp_path / "s.jsonl", ENTRIES)
    (tmp_path / "notes.jsonl").write_text("hello\n")
    to_stdout = run_cli("trace", str(session), "-o", "-")
    assert to_stdout.code == 0 and to_stdout.stderr == "pi-tools: 1 session, 4 spans to -\n"
    assert len(_spans(json.loads(to_stdout.stdout))) == 4
    mixed = run_cli("trace", str(session), str(tmp_path / "notes.jsonl"), "-o", str(tmp_path / "t.json"))
    assert (mixed.code, mixed.stderr) == (2, f"pi-tools: {tmp_path}/notes.jsonl: not a pi session: no line holds a "
                                             "JSON value Pi keeps (no session header)\n"
                                             f"pi-tools: 1 session, 4 spans to {tmp_path}/t.json\n")
    assert len(_spans(json.loads((tmp_path / "t.json").read_text()))) == 4
    nowhere = run_cli("trace", str(session), env={"OTEL_EXPORTER_OTLP_ENDPOINT": "",
                                                   "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ""})
    assert (nowhere.code, nowhere.stderr) == (2, "pi-tools: nowhere to put the traces: give -o FILE (OTLP JSON) or "
                                                 "--endpoint URL (or set OTEL_EXPORTER_OTLP_ENDPOINT)\n")
    both = run_cli("trace", str(session), "-o", "-", "--endpoint", "http://127.0.0.1:9")
    assert (both.code, both.stderr) == (2, "pi-tools: -o FILE writes OTLP JSON; --endpoint and --header send: give "
                                           "one or the other\n")
    bad_header = run_cli("trace", str(session), "--endpoint", "http://127.0.0.1:9", "--header", "novalue")
    assert (bad_header.code, bad_header.stderr) == (2, "pi-tools: --header 'novalue': expected KEY=VALUE\n")
    bad_content = run_cli("trace", str(session), "-o", "-", "--content", "some")
    assert bad_content.code == 2 and "--content 'some': expected none, redacted or full" in bad_content.stderr


def test_pi16_system_prompts_context_edits_and_cache_warming(tmp_path: Path) -> None:
    cases = ROOT / "tests/data/pi16/cases"
    out = tmp_path / "t.json"
    result = run_cli("trace", str(cases / "e01_edit_kinds.jsonl"), str(cases / "e03_multi.jsonl"), "--pi", "1.6",
                     "-o", str(out), "--content", "full")
    assert result.code == 0, result.stderr
    edits, multi = json.loads(out.read_text())["resourceSpans"]
    root = _spans({"resourceSpans": [edits]})[0]
    events = [(event["name"], _attrs(event["attributes"])) for event in root["events"]]
    assert events[0] == ("pi.system_prompt", {"pi.system.sections": ["a"], "pi.system.content": "",
                                              "pi.entry.id": "s1"})
    assert events[1] == ("pi.context_edit", {"pi.context_edit.target_id": "u1",
                                             "pi.context_edit.replacement": '{"content":"Q1 edited"}',
                                             "pi.entry.id": "x1"})
    assert [name for name, _ in events[1:]] == ["pi.context_edit"] * 6
    warm = _spans({"resourceSpans": [multi]})[-1]
    assert warm["name"] == "cache_warm claude-sonnet-4-5"
    attributes = _attrs(warm["attributes"])
    assert (attributes["gen_ai.operation.name"], attributes["pi.entry.type"], attributes["pi.usage.total_tokens"],
            attributes["pi.entry.id"]) == ("cache_warm", "usage", "2", "g1")
    # Pi 0.85 counts no usage entry: no span for it.
    old = run_cli("trace", str(cases / "e03_multi.jsonl"), "--pi", "0.85", "-o", "-")
    assert [span["name"] for span in _spans(json.loads(old.stdout))][-1] == "chat claude-sonnet-4-5"


def test_an_output_that_cannot_be_written_is_exit_2(tmp_path: Path) -> None:
    session = _write(tmp_path / "s.jsonl", ENTRIES)
    out = tmp_path / "missing" / "t.json"
    result = run_cli("trace", str(session), "-o", str(out))
    assert (result.code, result.stderr) == (2, f"pi-tools: -o {out}: cannot write: No such file or directory\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["s.jsonl"]


@pytest.mark.parametrize("name", ["fixtures/bad/lone_surrogate.jsonl", "fixtures/conformance/cases/edge_crlf_unicode.jsonl",
                                  "fixtures/fuzz/cases/deep_nesting_1100_levels.jsonl"])
def test_full_content_that_utf8_cannot_hold_is_sent_well_formed(tmp_path: Path, name: str) -> None:
    """A lone surrogate (JSON.parse keeps "\\ud83d"; UTF-8 cannot) becomes U+FFFD, and arguments nested past
    orjson's 255 levels are written as JSON.stringify writes them: the file is still an OTLP export request."""
    json_format = pytest.importorskip("google.protobuf.json_format")
    service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    out = tmp_path / "t.json"
    result = run_cli("trace", str(ROOT / name), "--content", "full", "-o", str(out))
    assert result.code == 0, result.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    json_format.Parse(json.dumps(_hex_ids_as_base64(document)), service.ExportTraceServiceRequest())
    if name.endswith("lone_surrogate.jsonl"):  # in a JSON attribute, escaped as JSON.stringify escapes it
        inputs = [attribute["value"]["stringValue"] for resource in document["resourceSpans"]
                  for scope in resource["scopeSpans"] for span in scope["spans"] for attribute in span["attributes"]
                  if attribute["key"] == "gen_ai.input.messages"]
        assert '"content":"turn \\ud83d zero"' in inputs[0]

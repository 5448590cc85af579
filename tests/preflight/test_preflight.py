"""pi-tools preflight: one session per rule and API that triggers exactly that rule (rule id, payload path, entry id,
exit code), the same session after the suggested fix, rules Pi itself never lets through checked on payloads, and
--replay on the real-world sessions (exact confusion matrices, the Vertex 400 at the position Vertex named)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.preflight.replay import Options, replay_path
from pi_tools.preflight.rules import all_rules, rules_by_id
from pi_tools.providers.rulebook.view import RequestView

REALWORLD = Path(__file__).resolve().parents[2] / "fixtures" / "realworld"
GROQ_HOLDS = str(Path(__file__).resolve().parent / "data" / "groq_completions.json")
USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def write_session(tmp: Path, entries: list[dict[str, Any]], name: str = "s.jsonl") -> str:
    lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z",
                                    "cwd": "/w"}]
    parent = None
    for index, entry in enumerate(entries, 1):
        entry = {**entry, "id": f"e{index}", "parentId": parent, "timestamp": f"2026-01-01T00:00:{index:02d}.000Z"}
        parent = entry["id"]
        lines.append(entry)
    path = tmp / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}}


def assistant(content: list[Any], provider: str = "anthropic", model: str = "claude-sonnet-4-5",
              api: str = "anthropic-messages", stop: str = "toolUse") -> dict[str, Any]:
    return {"type": "message", "message": {"role": "assistant", "content": content, "provider": provider, "model": model,
                                           "api": api, "stopReason": stop, "timestamp": 2, "usage": USAGE}}


def result(call_id: str) -> dict[str, Any]:
    return {"type": "message", "message": {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
                                           "content": [{"type": "text", "text": "ok"}], "isError": False,
                                           "timestamp": 3}}


def call(call_id: str) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": "ls"}}


THINKING = {"type": "thinking_level_change", "thinkingLevel": "high"}
ORPHAN = [user("hi"), assistant([{"type": "text", "text": "sure"}], stop="stop"), result("call_x")]
ORPHAN_FIXED = ORPHAN[:2]
# A turn begun on another model: its thinking is sent as text (Anthropic), its signatures dropped (Gemini 3).
FOREIGN_LOOP = [THINKING, user("hi"), assistant([{"type": "thinking", "thinking": "plan", "thinkingSignature": "sig"},
                                                  call("toolu_1")], "openai", "gpt-5.1", "openai-responses"),
                result("toolu_1")]
GEMINI_LOOP = [user("hi"), assistant([call("c1")], "google", "gemini-2.5-flash", "google-generative-ai"), result("c1")]
# A history that opens with the model's function call (a branch cut below its user message).
CALL_FIRST = GEMINI_LOOP[1:]


def image_user(mime: str, count: int = 1, size: int = 16) -> dict[str, Any]:
    images = [{"type": "image", "data": "A" * size, "mimeType": mime}] * count
    return {"type": "message", "message": {"role": "user", "timestamp": 1,
                                           "content": [{"type": "text", "text": "look"}, *images]}}


BMP, PNG = [image_user("image/bmp")], [image_user("image/png")]

# (model, entries, extra args, rule, payload path, entry id, fixed entries, fixed args)
CASES = [
    ("anthropic/claude-sonnet-4-5", ORPHAN, [], "anthropic-tool-result-without-use", "messages[2].content[0]", "e3",
     ORPHAN_FIXED, []),
    ("anthropic/claude-sonnet-4-5", FOREIGN_LOOP, [], "anthropic-thinking-tool-loop", "messages[1].content[0]", "e3",
     FOREIGN_LOOP, ["--reasoning", "off"]),
    ("groq/openai/gpt-oss-120b", ORPHAN, ["--knowledge", GROQ_HOLDS], "completions-tool-message-without-call",
     "messages[2]", "e3",
     ORPHAN_FIXED, []),
    ("openai/gpt-5.1", ORPHAN, [], "responses-output-without-call", "input[2]", "e3", ORPHAN_FIXED, []),
    ("google/gemini-3-flash-preview", ORPHAN, [], "google-function-response-count", "contents[2].parts[0]", "e3",
     ORPHAN_FIXED, []),
    ("google/gemini-3-flash-preview", GEMINI_LOOP, [], "google-thought-signature", "contents[1].parts[0]", "e2",
     [*GEMINI_LOOP, user("next")], []),
    ("google-vertex/gemini-3.1-pro-preview", GEMINI_LOOP, [], "google-thought-signature", "contents[1].parts[0]",
     "e2", [*GEMINI_LOOP, user("next")], []),
    ("mistral/mistral-medium-latest", ORPHAN, [], "mistral-tool-call-id", "messages[2].toolCallId", "e3",
     ORPHAN_FIXED, []),
    ("amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", ORPHAN, [], "bedrock-tool-results",
     "messages[2].content[0]", "e3", ORPHAN_FIXED, []),
    ("amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", FOREIGN_LOOP, [], "bedrock-thinking-tool-loop",
     "messages[1].content[0]", "e3", FOREIGN_LOOP, ["--reasoning", "off"]),
    ("openai/gpt-5.1", BMP, [], "openai-image-media-type", "input[0].content[1]", "e1", PNG, []),
    ("openrouter/openai/gpt-4o", BMP, [], "openai-image-media-type", "messages[0].content[1]", "e1", PNG, []),
    ("google/gemini-2.5-flash", BMP, [], "google-image-media-type", "contents[0].parts[1]", "e1", PNG, []),
    ("google-vertex/gemini-2.5-flash", BMP, [], "google-image-media-type", "contents[0].parts[1]", "e1", PNG, []),
    ("google/gemini-2.5-flash", CALL_FIRST, [], "google-function-call-turn", "contents[0].parts[0]", "e1",
     GEMINI_LOOP, []),
    ("google-vertex/gemini-2.5-flash", CALL_FIRST, [], "google-function-call-turn", "contents[0].parts[0]", "e1",
     GEMINI_LOOP, []),
]


@pytest.mark.parametrize(("model", "entries", "args", "rule", "path", "entry", "fixed", "fixed_args"), CASES,
                         ids=[f"{case[3]}@{case[0]}" for case in CASES])
def test_rule_fires_then_fix_passes(cli: Any, tmp_path: Path, model: str, entries: list[Any], args: list[str],
                                    rule: str, path: str, entry: str, fixed: list[Any], fixed_args: list[str]) -> None:
    session = write_session(tmp_path, entries)
    run = cli("preflight", "--format", "json", "--model", model, *args, session)
    assert run.code == 1, run.stderr
    findings = run.documents()
    assert [(f["rule"], f["payloadPath"], f["entryId"]) for f in findings] == [(rule, path, entry)]
    lines = Path(session).read_text().splitlines()
    assert findings[0]["line"] == next(i for i, text in enumerate(lines, 1) if f'"id": "{entry}"' in text)
    assert findings[0]["model"] == model and findings[0]["severity"] == "error"
    assert findings[0]["api"] in rules_by_id()[rule].apis
    fixed_run = cli("preflight", "--format", "json", "--model", model, *fixed_args,
                    write_session(tmp_path, fixed, "fixed.jsonl"))
    assert (fixed_run.code, fixed_run.documents()) == (0, [])


def test_vertex_thought_signature_message_names_the_block_as_vertex_does(cli: Any, tmp_path: Path) -> None:
    run = cli("preflight", "--format", "json", "--model", "google-vertex/gemini-3.1-pro-preview",
              write_session(tmp_path, GEMINI_LOOP))
    assert run.documents()[0]["message"] == ("Unable to submit request because function call `default_api:bash` in "
                                             "the 2. content block is missing a `thought_signature`.")


def test_tool_name_and_count_rules(cli: Any, tmp_path: Path) -> None:
    session = write_session(tmp_path, ORPHAN_FIXED)
    schema = {"type": "object", "properties": {}}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"name": "server.tool", "description": "d", "parameters": schema}]))
    run = cli("preflight", "--format", "json", "--model", "anthropic/claude-sonnet-4-5", "--tools", str(bad), session)
    assert run.code == 1
    assert [(f["rule"], f["payloadPath"], f["entryId"], f["line"]) for f in run.documents()] == [
        ("anthropic-tool-name", "tools[0].name", None, None)]
    good = tmp_path / "good.json"
    good.write_text(json.dumps([{"name": "server_tool", "description": "d", "parameters": schema}]))
    assert cli("preflight", "--model", "anthropic/claude-sonnet-4-5", "--tools", str(good), session).code == 0
    many = tmp_path / "many.json"
    many.write_text(json.dumps([{"name": f"t{i}", "description": "d", "parameters": schema} for i in range(129)]))
    run = cli("preflight", "--format", "json", "--model", "openai/gpt-5.1", "--tools", str(many), session)
    assert [(f["rule"], f["payloadPath"]) for f in run.documents()] == [("openai-tool-count", "tools[128]")]
    many.write_text(json.dumps([{"name": f"t{i}", "description": "d", "parameters": schema} for i in range(128)]))
    assert cli("preflight", "--model", "openai/gpt-5.1", "--tools", str(many), session).code == 0


def test_image_over_five_megabytes(cli: Any, tmp_path: Path) -> None:
    def with_image(size: int) -> str:
        image = {"type": "image", "data": "A" * size, "mimeType": "image/png"}
        entries = [{"type": "message", "message": {"role": "user", "timestamp": 1,
                                                   "content": [{"type": "text", "text": "look"}, image]}}]
        return write_session(tmp_path, entries, f"img{size}.jsonl")

    run = cli("preflight", "--format", "json", "--model", "anthropic/claude-sonnet-4-5", with_image(5 * 1024 * 1024 + 4))
    assert [(f["rule"], f["payloadPath"], f["entryId"]) for f in run.documents()] == [
        ("anthropic-image-size", "messages[0].content[1]", "e1")]
    assert "image exceeds 5 MB maximum: 5242884 bytes > 5242880 bytes" in run.documents()[0]["message"]
    assert cli("preflight", "--model", "anthropic/claude-sonnet-4-5", with_image(5 * 1024 * 1024)).code == 0


@pytest.mark.parametrize(("model", "limit", "prefix"), [
    ("openai/gpt-5.1", 1500, "input"), ("azure-openai-responses/gpt-4o", 50, "input"),
    ("openrouter/openai/gpt-4o", 1500, "messages"), ("google/gemini-2.5-flash", 3000, "contents"),
    ("google-vertex/gemini-3.1-pro-preview", 900, "contents")])
def test_image_count_per_request(cli: Any, tmp_path: Path, model: str, limit: int, prefix: str) -> None:
    rule = "google-image-count" if prefix == "contents" else "openai-image-count"
    part = "parts" if prefix == "contents" else "content"
    over = write_session(tmp_path, [image_user("image/png", limit + 1)], "over.jsonl")
    azure = {"AZURE_OPENAI_RESOURCE_NAME": "example"}  # Pi needs an Azure endpoint to build the request
    run = cli("preflight", "--format", "json", "--model", model, over, env=azure)
    assert run.code == 1, run.stderr
    # Pi's estimate counts 1,200 tokens an image, so so many images are also (rightly) over the context window:
    # an error of its own (see at_limit below).
    errors = [f for f in run.documents() if f["severity"] == "error" and f["rule"] != "context-window"]
    assert {f["rule"] for f in run.documents()} - {rule} <= {"context-window"}
    assert [(f["rule"], f["payloadPath"], f["entryId"]) for f in errors] == [
        (rule, f"{prefix}[0].{part}[{limit + 1}]", "e1")]  # the first image past the limit (part 0 is the text)
    expected = (f"Too many images in request: {limit + 1}, maximum allowed: {limit}." if rule == "openai-image-count"
                else f"Unable to submit request because it has {limit + 1} image files but the model only supports "
                     f"up to {limit}.")
    assert errors[0]["message"] == expected
    at_limit = write_session(tmp_path, [image_user("image/png", limit)], "limit.jsonl")
    assert {f["rule"] for f in cli("preflight", "--format", "json", "--model", model, at_limit,
                                   env=azure).documents()} <= {"context-window"}


def test_image_size_per_image(cli: Any, tmp_path: Path) -> None:
    """OpenAI: 20 MB per image; Vertex: 7 MB per inline image (decoded bytes: 4 base64 characters are 3 bytes)."""
    for model, rule, path, limit in [("openai/gpt-5.1", "openai-image-size", "input[0].content[1]", 20 << 20),
                                     ("google-vertex/gemini-2.5-flash", "google-image-size", "contents[0].parts[1]",
                                      7 << 20)]:
        big = write_session(tmp_path, [image_user("image/png", 1, (limit // 3 + 1) * 4)], "big.jsonl")
        run = cli("preflight", "--format", "json", "--model", model, big)
        assert [(f["rule"], f["payloadPath"], f["entryId"]) for f in run.documents()] == [(rule, path, "e1")]
        assert run.code == 1
        fits = write_session(tmp_path, [image_user("image/png", 1, limit // 3 * 4)], "fits.jsonl")
        assert cli("preflight", "--model", model, fits).code == 0, model


def test_openai_image_bytes_per_request() -> None:
    """50 MB of image bytes per request, whatever the count: the image that takes the request over is named."""
    image = {"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64," + "A" * (24 << 20)}  # 18 MiB each
    responses = {"id": "gpt-5.1", "provider": "openai", "api": "openai-responses"}
    payload = {"input": [{"role": "user", "content": [image, image]}, {"role": "user", "content": [image]}]}
    assert hits("openai-responses", responses, payload) == [("openai-image-count", "input[1].content[0]")]
    assert hits("openai-responses", responses, {"input": payload["input"][:1]}) == []


def test_context_window_over_the_window_is_an_error(cli: Any, tmp_path: Path) -> None:
    session = write_session(tmp_path, [user("x" * 600_000)])  # about 150,000 tokens by Pi's chars/4 estimate
    run = cli("preflight", "--format", "json", "--model", "groq/openai/gpt-oss-120b", session)
    assert run.code == 1
    assert [(f["rule"], f["severity"], f["payloadPath"], f["message"], f["fix"]) for f in run.documents()] == [
        ("context-window", "error", "messages",
         "prompt is too long: about 150000 tokens (Pi's estimate) > 131072 maximum (groq/openai/gpt-oss-120b)",
         "no repair: the history itself is too long; compact it in Pi (/compact), or make it smaller with "
         "`pi-tools slim`")]


def test_formats_and_bad_input(cli: Any, tmp_path: Path) -> None:
    session = write_session(tmp_path, ORPHAN)
    table = cli("preflight", "--model", "anthropic/claude-sonnet-4-5", session)
    assert "anthropic-tool-result-without-use  e3     messages[2].content[0]" in table.stdout
    sarif = json.loads(cli("preflight", "--format", "sarif", "--model", "anthropic/claude-sonnet-4-5", session).stdout)
    found = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["properties"]["payloadPath"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
            for r in found] == [("anthropic-tool-result-without-use", "messages[2].content[0]", 4)]
    junit = cli("preflight", "--format", "junit", "--model", "anthropic/claude-sonnet-4-5", session).stdout
    assert '<testcase name="anthropic-tool-result-without-use"' in junit and "<failure" in junit
    missing = cli("preflight", str(tmp_path / "nope.jsonl"))
    assert missing.code == 2 and "nope.jsonl" in missing.stderr and "Traceback" not in missing.stderr
    unknown = cli("preflight", "--model", "nobody/none", session)
    assert unknown.code == 2 and "--model nobody/none" in unknown.stderr
    no_model = cli("preflight", write_session(tmp_path, [user("hi")], "nomodel.jsonl"))
    assert no_model.code == 2 and "pass --model" in no_model.stderr


# --- rules Pi 0.85 never lets through (it answers orphaned calls, drops blank text): checked on payloads ---------

def hits(api: str, model: dict[str, Any], payload: dict[str, Any]) -> list[tuple[str, str]]:
    from pi_tools.preflight.check import check_payload

    return [(hit.rule, hit.path) for hit in check_payload(api, model, payload, None)]


ANTHROPIC = {"id": "claude-sonnet-4-5", "provider": "anthropic", "api": "anthropic-messages", "contextWindow": 200000}


def test_payload_only_rules() -> None:
    use = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]}
    assert hits("anthropic-messages", ANTHROPIC, {"messages": [
        {"role": "user", "content": "hi"}, use, {"role": "user", "content": [{"type": "text", "text": "go"}]}]}) == [
        ("anthropic-tool-use-without-result", "messages[1].content[0]")]
    assert hits("anthropic-messages", ANTHROPIC, {"messages": [
        {"role": "user", "content": [{"type": "text", "text": " \n"}]}]}) == [("anthropic-empty-text",
                                                                                 "messages[0].content[0]")]
    assert hits("anthropic-messages", ANTHROPIC, {"max_tokens": 2000, "thinking": {"type": "enabled",
                                                                                   "budget_tokens": 4000},
                                                  "messages": [{"role": "user", "content": "hi"}]}) == [
        ("anthropic-thinking-budget", "max_tokens")]
    groq = {"id": "openai/gpt-oss-120b", "provider": "groq", "api": "openai-completions"}
    openai = {**groq, "provider": "openai"}
    calls = {"role": "assistant", "tool_calls": [{"id": "c" * 41, "type": "function",
                                                 "function": {"name": "bash", "arguments": "{}"}}]}
    payload = {"messages": [{"role": "user", "content": "hi"}, calls, {"role": "user", "content": "go"}]}
    assert hits("openai-completions", groq, payload) == [("completions-tool-calls-without-results",
                                                          "messages[1].tool_calls[0]")]
    assert hits("openai-completions", openai, payload) == [("completions-tool-calls-without-results",
                                                            "messages[1].tool_calls[0]"),
                                                           ("completions-tool-call-id-length",
                                                            "messages[1].tool_calls[0].id")]
    responses = {"id": "gpt-5.1", "provider": "openai", "api": "openai-responses"}
    assert hits("openai-responses", responses, {"input": [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "bash", "arguments": "{}"},
        {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
        {"type": "reasoning", "id": "rs_2", "summary": []}]}) == [
        ("responses-call-without-output", "input[2]"), ("responses-reasoning-without-following", "input[4]")]
    bedrock = {"id": "x", "provider": "amazon-bedrock", "api": "bedrock-converse-stream"}
    assert hits("bedrock-converse-stream", bedrock, {"messages": [
        {"role": "assistant", "content": [{"text": "a"}]}, {"role": "assistant", "content": [{"text": " "}]}]}) == [
        ("bedrock-alternation", "messages[0]"), ("bedrock-alternation", "messages[1]"),
        ("bedrock-blank-text", "messages[1].content[0]")]
    mistral = {"id": "m", "provider": "mistral", "api": "mistral-conversations"}
    assert hits("mistral-conversations", mistral, {"messages": [
        {"role": "assistant", "toolCalls": [{"id": "abcdefghi"}, {"id": "bcdefghij"}]},
        {"role": "tool", "toolCallId": "abcdefghi"}]}) == [("mistral-tool-results", "messages[0].toolCalls[0]")]


def test_every_rule_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "preflight.md").read_text()
    for rule in all_rules():
        assert f"`{rule.id}`" in doc, rule.id
        assert rule.provider_message and rule.fix and rule.source


# --- --replay on the real sessions ----------------------------------------------------------------------------

# (accepted ok, accepted reject, rejected ok, rejected reject, no-verdict ok, no-verdict reject, not reproducible)
MATRICES = {
    # The 400 at line 848 (messages.236, tool_use without tool_result) contradicts the file, which answers that
    # call right after it, at messages[239]: the line was edited after the request (the user's report at line
    # 869 quotes a bash execution stored between the call and its result): not reproducible.
    "badlogic__pi-mono__before-compaction.jsonl": (465, 0, 0, 0, 18, 0, 1),
    "badlogic__pi-mono__compact.jsonl": (493, 0, 0, 0, 10, 0, 0),
    "badlogic__pi-mono__large-session.jsonl": (431, 0, 0, 0, 22, 0, 0),
    # Line 440 holds two JSON values (Pi skips it); the session has no parent ids (version 1), so the 11
    # requests after it lost that line from their context.
    "badlogic__pi-mono__session.jsonl": (204, 0, 0, 0, 4, 0, 11),
    "castai__kimchi-dev__session.jsonl": (56, 0, 0, 0, 0, 0, 0),
    "castai__kimchi-dev__statsuline.jsonl": (40, 0, 0, 0, 0, 0, 0),
    "kir-gadjello__pi-session-manager__873fc059_crew-planner_0.jsonl": (0, 0, 0, 0, 0, 0, 0),
    "lamurian__paradocs__session.jsonl": (26, 0, 0, 0, 6, 0, 0),
    # 4 of the no-verdict requests (429, usage limit) were over zai/glm-5-turbo's window by Pi's estimate.
    "marcpadz__dexter-v3__pi-session.jsonl": (629, 0, 0, 1, 20, 5, 0),
    # Line 31 is damaged (invalid escape), so line 32's parent is missing and Pi 0.85 starts the context with
    # tool results whose calls were on the lost line: every request of the active path is not reproducible (239
    # of them were "accepted, predicted reject" before replay knew it).
    "pinion05__agent-complex-task__03-raddit-dashboard-pr__session.jsonl": (0, 0, 0, 0, 0, 0, 245),
}


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_replay_confusion_matrix(name: str) -> None:
    replayed = replay_path(str(REALWORLD / name), Options())
    m = replayed.matrix()
    assert (m["accepted"]["ok"], m["accepted"]["reject"], m["rejected"]["ok"], m["rejected"]["reject"],
            m["no-verdict"]["ok"], m["no-verdict"]["reject"], replayed.unreproducible()) == MATRICES[name]
    for doc in replayed.requests:
        assert doc["reproducible"] is (doc["notReproducible"] is None)
        if doc["outcome"] == "accepted" and doc["predicted"] == "reject":
            assert not doc["reproducible"]


def test_replay_reports_what_it_cannot_reproduce(cli: Any) -> None:
    name = "pinion05__agent-complex-task__03-raddit-dashboard-pr__session.jsonl"
    run = cli("preflight", "--replay", str(REALWORLD / name))
    assert run.stdout.splitlines()[1:] == [
        "  not reproducible: 245 request(s) (line 38, 41, 43, 45, 49, 51, 53, 57, 59, 61 and 235 more): the context "
        "starts at line 32: its parent 4eb8aad7 is not in the file (a damaged line lost it), so the request the "
        "session made held history this one lacks",
        "  not in Pi 0.85's catalog, checked with its API's rules: zai/glm-5.2 (245 request(s))",
        "",
        "not reproducible (kept out of the matrix): 245 request(s)",
        "recorded errors by class: none (only request errors count as rejections)",
        "confusion matrix (recorded outcome x prediction, reproducible requests):",
        "              predicted ok  predicted reject",
        "  accepted               0                 0",
        "  rejected               0                 0",
        "  no-verdict             0                 0",
    ]
    docs = cli("preflight", "--replay", "--format", "json", str(REALWORLD / name)).documents()
    assert docs[-1] == {"kind": "summary", "source": str(REALWORLD / name), "requests": 245,
                        "matrix": {o: {"ok": 0, "reject": 0} for o in ("accepted", "rejected", "no-verdict")},
                        "notReproducible": 245, "errorClasses": {}}


def test_replay_vertex_rejection_at_the_named_position(cli: Any) -> None:
    run = cli("preflight", "--replay", "--format", "json", str(REALWORLD / "marcpadz__dexter-v3__pi-session.jsonl"))
    docs = run.documents()
    assert docs[-1]["kind"] == "summary" and docs[-1]["matrix"]["rejected"] == {"ok": 0, "reject": 1}
    rejected = [d for d in docs if d.get("outcome") == "rejected"]
    assert len(rejected) == 1
    doc = rejected[0]
    assert set(doc) == {"kind", "source", "entryId", "line", "api", "model", "outcome", "providerError", "errorClass",
                        "predicted", "reproducible", "notReproducible", "findings"}
    assert (doc["entryId"], doc["line"], doc["model"], doc["predicted"], doc["errorClass"], doc["reproducible"]) == (
        "130ce904", 1040, "google-vertex/gemini-3.1-pro-preview-customtools", "reject", "request", True)
    assert "in the 540. content block is missing a `thought_signature`" in doc["providerError"]
    assert [(f["rule"], f["payloadPath"], f["entryId"], f["line"]) for f in doc["findings"]] == [
        ("google-thought-signature", "contents[539].parts[0]", "7af5a012", 1017)]
    # The position and the call Vertex named, in its own words.
    named = "function call `default_api:bash` in the 540. content block is missing a `thought_signature`"
    assert named in doc["providerError"] and named in doc["findings"][0]["message"]


ANTHROPIC_848 = (
    "the provider found toolu_019tYDrbzifrra2KYzmYqWvk unanswered at messages.236, but the request rebuilt from the "
    "file has that call at messages[239] (line 798) and its result opening messages[240] (line 799): the history "
    "sent differs from the file's (an entry was removed or moved after the request)")


@pytest.mark.parametrize("pi", ["0.85", "1.6"])
def test_replay_anthropic_rejection_the_file_contradicts_is_not_reproducible(cli: Any, pi: str) -> None:
    """The 400 at line 848 named messages.236 and toolu_019tYD... as unanswered; the file answers it at once
    (lines 798-799) and puts it at messages[239]. The session was written by a development build between Pi
    0.14.2 and 0.15.0 that stored a user's `!` bash run between a call and its result (the user's report at line
    869 quotes the three lines); the bash line is gone from this file. Neither Pi version can rebuild that
    request, so it is reported not reproducible with the provider's own position, not counted as a miss."""
    path = str(REALWORLD / "badlogic__pi-mono__before-compaction.jsonl")
    docs = cli("preflight", "--pi", pi, "--replay", "--format", "json", path).documents()
    doc = next(d for d in docs if d.get("line") == 848)
    assert (doc["outcome"], doc["errorClass"], doc["predicted"], doc["reproducible"], doc["findings"]) == (
        "rejected", "request", "ok", False, [])
    assert doc["notReproducible"] == ANTHROPIC_848
    assert docs[-1]["matrix"]["rejected"] == {"ok": 0, "reject": 0} and docs[-1]["notReproducible"] == 1
    table = cli("preflight", "--pi", pi, "--replay", path).stdout.splitlines()
    assert f"  not reproducible: 1 request(s) (line 848): {ANTHROPIC_848}" in table


@pytest.mark.parametrize("pi", ["0.85", "1.6"])
def test_bash_run_stored_between_call_and_result(cli: Any, tmp_path: Path, pi: str) -> None:
    """What line 848's file held before it was edited (a `!` bash run stored between a call and its result), as
    today's Pi builds it: the call gets Pi's synthetic result before the bash message, so the real result comes
    after user turns and answers no call: predicted, at that result (not at the call, as the older Pi's request
    was refused)."""
    bash = {"type": "message", "message": {"role": "bashExecution", "command": "open x.html", "output": "",
                                           "exitCode": 0, "cancelled": False, "truncated": False, "timestamp": 3}}
    session = write_session(tmp_path, [user("hi"), assistant([call("toolu_1")]), bash, result("toolu_1")])
    run = cli("preflight", "--pi", pi, "--format", "json", "--model", "anthropic/claude-sonnet-4-5", session)
    assert run.code == 1
    assert [(f["rule"], f["payloadPath"], f["entryId"], f["line"], f["message"]) for f in run.documents()] == [
        ("anthropic-tool-result-without-use", "messages[4].content[0]", "e4", 5,
         "messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each "
         "`tool_result` block must have a corresponding `tool_use` block in the previous message.")]


def test_named_contradiction_needs_the_result_right_after() -> None:
    """The check reports only a contradiction: a result that does not open the next message, or an error that
    names no call, leaves the request in the matrix."""
    from pi_tools.preflight.named import contradiction

    error = ("400 messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. "
             "Each `tool_use` block must have a corresponding `tool_result` block in the next message.")
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "bash", "input": {}}]}
    answered = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"}]}
    text_first = {"role": "user", "content": [{"type": "text", "text": "ran ls"}, answered["content"][0]]}
    first = {"role": "user", "content": "hi"}
    lines = {0: 2, 1: 3, 2: 4}.get
    assert contradiction({"messages": [first, call, answered]}, 3, error, lines) == (
        "the provider found toolu_a unanswered at messages.1, but the request rebuilt from the file has that call "
        "at messages[1] (line 3) and its result opening messages[2] (line 4): the history sent differs from the "
        "file's (an entry was removed or moved after the request)")
    assert contradiction({"messages": [first, call, text_first]}, 3, error, lines) is None
    assert contradiction({"messages": [first, call, answered]}, 2, error, lines) is None
    assert contradiction({"messages": [first, call, answered]}, 3, "400 overloaded", lines) is None
    # Bedrock's Converse payload (toolUse/toolResult blocks) under the same words Claude's validation passes on
    converse = [{"role": "user", "content": [{"text": "hi"}]},
                {"role": "assistant", "content": [{"toolUse": {"toolUseId": "toolu_a", "name": "bash", "input": {}}}]},
                {"role": "user", "content": [{"toolResult": {"toolUseId": "toolu_a", "content": [{"text": "ok"}]}}]}]
    assert contradiction({"messages": converse}, 3, error, lines) is None


@pytest.mark.parametrize("name", ["marcpadz__dexter-v3__pi-session.jsonl", "badlogic__pi-mono__large-session.jsonl"])
def test_replay_prefixes_equal_requests_built_alone(name: str) -> None:
    """The incremental replay (one payload per run, requests as its prefixes) gives each request the findings of
    that request built alone: every 20th request, and every one with a finding."""
    from pi_tools.preflight.check import check_payload, findings_for
    from pi_tools.preflight.replay import _collect, _count, _Epoch, _estimate, _payload
    from pi_tools.session.load import load_session

    path = str(REALWORLD / name)
    replayed = {d["entryId"]: d for d in replay_path(path, Options()).requests}
    tree = load_session(path)
    entries = tree.path(tree.leaf_id)
    epochs: dict[int, Any] = {}
    requests = _collect(tree, entries)
    checked = 0
    for index, request in enumerate(requests):
        doc = replayed[request.entry["id"]]
        if index % 20 and not doc["findings"]:
            continue
        last = max((r for r in requests if r.epoch == request.epoch), key=lambda r: r.position)
        context = epochs.setdefault(request.epoch, _Epoch(tree, entries, last.position))
        count = _count(context.positions, request.position, request.epoch)
        llm = context.llm[:count]
        payload = _payload(request.model, llm, request.level, None, Options())
        found = findings_for(path, request.model["api"], request.model, payload,
                             check_payload(request.model["api"], request.model, payload, _estimate(llm, Options())),
                             llm, context.origins[:count], False)
        key = sorted((f["rule"], f["payloadPath"], f["entryId"]) for f in found)
        replay_notes = {"replay-model-not-in-catalog", "replay-truncated-path"}
        assert key == sorted((f["rule"], f["payloadPath"], f["entryId"]) for f in doc["findings"]
                             if f["rule"] not in replay_notes), doc["line"]
        checked += 1
    assert checked > 20


def test_view_end_limits_tail_rules() -> None:
    """A tail rule sees only the request's own items (view.end)."""
    model = {"id": "gemini-3-flash-preview", "provider": "google", "api": "google-generative-ai"}
    payload = {"contents": [{"role": "user", "parts": [{"text": "hi"}]},
                            {"role": "model", "parts": [{"functionCall": {"name": "bash", "args": {}}}]},
                            {"role": "user", "parts": [{"functionResponse": {"name": "bash", "response": {}}}]}]}
    rule = rules_by_id()["google-thought-signature"]
    assert [h.path for h in rule.check(RequestView("google-generative-ai", model, payload))] == ["contents[1].parts[0]"]
    assert list(rule.check(RequestView("google-generative-ai", model, payload, end=1))) == []


def test_run_stops_before_sending_a_request_the_provider_refuses(cli: Any, tmp_path: Path) -> None:
    """run --preflight (the default) records why it did not send; --no-preflight sends (here: to a closed port)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"ANTHROPIC_API_KEY": "sk-test-not-a-key", "SOURCE_DATE_EPOCH": "1767225600"}

    def run(*flags: str) -> tuple[Any, dict[str, Any]]:
        session = write_session(tmp_path, ORPHAN, f"run{len(flags)}.jsonl")
        result = cli("run", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url",
                     f"http://127.0.0.1:{port}", "--tools", "none", "--cwd", str(tmp_path), "--session", session,
                     *flags, "hi", env=env)
        last = [json.loads(line) for line in Path(session).read_text().splitlines()][-1]
        return result, last["message"]

    result, message = run()
    assert result.code == 1 and "Traceback" not in result.stderr
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith(
        "preflight: not sent, anthropic/claude-sonnet-4-5 would refuse it: rule anthropic-tool-result-without-use at "
        "messages[2].content[0], entry e3: messages.2.content.0: unexpected `tool_use_id` found in `tool_result` "
        "blocks: call_x.")
    assert "--no-preflight sends it anyway" in result.stdout
    result, message = run("--no-preflight")
    assert result.code == 1 and message["errorMessage"] == "Connection error."


@pytest.mark.parametrize(("name", "model"), [
    ("marcpadz__dexter-v3__pi-session.jsonl", "google-vertex/gemini-3.1-pro-preview"),
    ("badlogic__pi-mono__before-compaction.jsonl", "anthropic/claude-opus-4-5"),
    ("badlogic__pi-mono__large-session.jsonl", "openai/gpt-5.1"),
    ("castai__kimchi-dev__session.jsonl", "groq/openai/gpt-oss-120b"),
    ("lamurian__paradocs__session.jsonl", "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0"),
    ("lamurian__paradocs__session.jsonl", "mistral/mistral-medium-latest"),
])
def test_partial_mapping_equals_the_whole_up_to_the_item(name: str, model: str) -> None:
    """Tracing a finding maps the payload only up to its item (provenance.map_origins(upto_item=...)): that
    prefix must place every item up to it exactly as the whole mapping does."""
    from pi_tools.js.values import UNDEFINED
    from pi_tools.preflight.provenance import convert_traced, map_origins, trace_context
    from pi_tools.providers import registry
    from pi_tools.providers.catalog import find_model
    from pi_tools.session.load import load_session

    tree = load_session(str(REALWORLD / name))
    traced = trace_context(tree, UNDEFINED)
    llm, _ = convert_traced(traced.messages, traced.origins)
    target = find_model(model)
    payload = registry.build_payload(target["api"], target, {"systemPrompt": None, "messages": llm},
                                     {"apiKey": "x"})
    whole = map_origins(target["api"], target, llm, payload, False)
    count = len(whole.item_origin)
    for item in sorted({0, 1, count // 7, count // 3, count // 2, count - 3, count - 2} - {-1, -2, -3}):
        if not 0 <= item < count:
            continue
        part = map_origins(target["api"], target, llm, payload, False, upto_item=item)
        assert part.item_origin[:item + 1] == whole.item_origin[:item + 1], item
        head = {label: index for label, index in whole.by_label.items()
                if int(label.split("[", 1)[1].split("]", 1)[0]) <= item}
        assert {label: part.by_label.get(label) for label in head} == head, item


def test_replay_notes_models_outside_the_catalog_and_all_branches(cli: Any) -> None:
    kimchi = replay_path(str(REALWORLD / "castai__kimchi-dev__session.jsonl"), Options())
    notes = {f["rule"] for doc in kimchi.requests for f in doc["findings"]}
    assert notes == {"replay-model-not-in-catalog"}
    assert kimchi.requests[0]["findings"][0]["message"].startswith(
        "kimchi-dev/kimi-k2.5 (openai-completions) is not in Pi 0.85's model catalog")
    table = cli("preflight", "--replay", str(REALWORLD / "castai__kimchi-dev__session.jsonl")).stdout
    assert "not in Pi 0.85's catalog, checked with its API's rules: kimchi-dev/kimi-k2.5 (56 request(s))" in table
    # --all-branches: every assistant message of the file once, the active path's among them.
    case = str(Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "cases" / "c002_branching.jsonl")
    active = replay_path(case, Options())
    every = replay_path(case, Options(all_branches=True))
    ids = [doc["entryId"] for doc in every.requests]
    assert len(ids) == len(set(ids)) and set(d["entryId"] for d in active.requests) < set(ids)
    from pi_tools.session.load import load_session

    tree = load_session(case)
    assistants = {e["id"] for e in tree.entries if isinstance(e, dict) and e.get("type") == "message"
                  and e["message"].get("role") == "assistant"}
    assert set(ids) == assistants


def test_replay_of_a_cyclic_session_reports_its_requests_not_reproducible(cli: Any) -> None:
    bad = str(Path(__file__).resolve().parents[2] / "fixtures" / "bad" / "parent_cycle.jsonl")
    run = cli("preflight", "--replay", bad)
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout.splitlines()[:4] == [
        f"{bad}: 1 request(s)",
        "  not reproducible: 1 request(s) (line 3): its path runs into a parent cycle: parentId cycle through entry "
        "c3 (line 4) on the path to the leaf; Pi 0.85 fails here too (it loops until 'Invalid array length')",
        "",
        "not reproducible (kept out of the matrix): 1 request(s)",
    ]
    # Every entry of the cycle is some entry's parent: no branch ends in it, so --all-branches has nothing to replay.
    every = cli("preflight", "--replay", "--all-branches", bad)
    assert every.code == 0 and "0 request(s)" in every.stdout


def test_rules_filter_and_list(cli: Any, tmp_path: Path) -> None:
    session = write_session(tmp_path, ORPHAN)
    only = cli("preflight", "--format", "json", "--rules", "context-window", "--model", "anthropic/claude-sonnet-4-5",
               session)
    assert (only.code, only.documents()) == (0, [])
    assert cli("preflight", "--rules", "no-such-rule", session).code == 2
    listed = [json.loads(line) for line in cli("preflight", "--list-rules", "--format", "json").stdout.splitlines()]
    assert [r["id"] for r in listed] == [r.id for r in all_rules()]
    assert all(r["providerMessage"] and r["fix"] and r["apis"] for r in listed)


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_replay_all_branches_accepted_requests_have_no_unexplained_error(name: str) -> None:
    """Acceptance on every branch: an accepted request predicted rejected is one whose path lost its history."""
    for doc in replay_path(str(REALWORLD / name), Options(all_branches=True)).requests:
        if doc["outcome"] == "accepted" and doc["predicted"] == "reject":
            assert not doc["reproducible"], (doc["line"], doc["findings"])


def test_bulk_origins_equal_the_tree_reader() -> None:
    """BulkSession.origins (clean files) names the same entry and line for every context message as the
    line-by-line reader does, for every conformance case and each of its leaves."""
    from pi_tools.js.values import UNDEFINED
    from pi_tools.preflight.provenance import trace_context
    from pi_tools.session.bulk import BulkSession
    from pi_tools.session.load import load_context_source, load_session

    cases = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "cases").glob("*.jsonl"))
    compared = 0
    from pi_tools.session import SessionReadError

    for case in cases:
        try:
            bulk = load_context_source(str(case), False)
        except SessionReadError:
            continue  # not a session Pi opens (the case's golden says why)
        if not isinstance(bulk, BulkSession):
            continue
        tree = load_session(str(case))
        for leaf in [UNDEFINED, *tree.leaves()]:
            from_bulk = trace_context(bulk, leaf)
            from_tree = trace_context(tree, leaf)
            assert from_bulk.origins == from_tree.origins, (case.name, leaf)
            assert len(from_bulk.messages) == len(from_tree.messages)
            # the parts path's origins, made on demand: the same, whole, in slices and one by one
            lazy = bulk.lazy_origins(bulk.plan(leaf))
            assert len(lazy) == len(from_bulk.origins) and list(lazy) == from_bulk.origins, (case.name, leaf)
            middle = len(lazy) // 2
            assert lazy[middle:middle + 3] == from_bulk.origins[middle:middle + 3], (case.name, leaf)
            assert [lazy[i] for i in range(len(lazy))] == from_bulk.origins, (case.name, leaf)
            compared += 1
    assert compared > 40


def test_plan_origins_skip_and_repeat_entries_as_origins_does() -> None:
    """PlanOrigins (BulkSession.lazy_origins) with entries of no message (a label) and of two messages, at the
    start, in the middle and at the end: message by message what BulkSession.origins lists."""
    from pi_tools.session.bulk import PlanOrigins

    ids = [f"id{line}" for line in range(12)]
    entries = [0, 2, 3, 4, 6, 7, 8, 10, 11]
    produced = {0: 0, 3: 2, 4: 0, 5: 0, 8: 2}  # entry position -> messages; the others one each
    expected = [(ids[entries[p]], entries[p] + 1) for p in range(len(entries)) for _ in range(produced.get(p, 1))]
    lazy = PlanOrigins(ids, entries, sorted(produced.items()))
    assert len(lazy) == len(expected) and list(lazy) == expected
    assert [lazy[i] for i in range(-len(expected), 0)] == expected
    assert lazy[2:5] == expected[2:5]
    # slices are made a stretch at a time (PlanOrigins._run): every start and stop, inside and past the ends
    for start in range(-len(expected) - 2, len(expected) + 2):
        for stop in range(-len(expected) - 2, len(expected) + 2):
            assert lazy[start:stop] == expected[start:stop], (start, stop)
    assert lazy[::2] == expected[::2] and lazy[::-1] == expected[::-1]
    with pytest.raises(IndexError):
        lazy[len(expected)]

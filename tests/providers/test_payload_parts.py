"""Payloads built in parts (providers/split.py, stages.payload_document_in_parts, pi_tools/engine/helper.py) must be
byte for byte the payloads built whole, or be built whole.

Every clean session in the repository is cut before every user message (the smallest parts there can be) and
built for anthropic-messages models that take each path of the encoder: the parts joined, or refused and built
whole (models replaying effort, errors, tool-call ids renamed across a cut, ...). The same runs through a real
helper process, and through the CLI with and without one.
"""

from __future__ import annotations

import fcntl
import math
import os
import pickle
import re
import signal
from pathlib import Path
from typing import Any

import orjson
import pytest

from pi_tools.engine.helper import SPLIT_BYTES_VARIABLE, PayloadWorker, SharedClaims
from pi_tools.pipe.documents import EncodedItems, iter_document_bytes
from pi_tools.pipeline.stages import (
    LocalClaims,
    PayloadRequest,
    build_claimed_parts,
    context_document,
    llm_document,
    part_bytes,
    payload_document,
    payload_document_in_parts,
)
from pi_tools.providers import split
from pi_tools.providers.split import PART_BYTES
from pi_tools.session.bulk import BulkSession, line_heads, second_half_start
from pi_tools.session.load import load_context_source

from support.golden import ROOT

WRITTEN_BY_PI_1 = re.compile(rb'"role"\s*:\s*"system"|"type"\s*:\s*"(?:context_edit|usage)"|"systemMessage"')
SESSION_FILES = sorted(
    path for pattern in ("fixtures/**/*.jsonl", "tests/data/**/*.jsonl") for path in ROOT.glob(pattern)
    # Sessions Pi 1.6 wrote (system messages, edits: pi16/, requests16/, run16/, ...) are for the 1.6 tests; read
    # as 0.85 they would only lower the share of sessions that join, which the tests below count.
    if "expected" not in path.parts and not WRITTEN_BY_PI_1.search(path.read_bytes())
)
MODELS = [
    ("anthropic-messages", "anthropic/claude-sonnet-4-5"),  # the representative model
    # replays each turn's effort: never built in parts (payload_document instead)
    ("anthropic-messages", "anthropic/claude-opus-5"),
    # text only: images become placeholders
    ("anthropic-messages", "fireworks/accounts/fireworks/models/deepseek-v4-flash-0731"),
    ("anthropic-messages", "kimi-coding/k3"),  # allowEmptySignature, adaptive thinking
    ("anthropic-messages", "openrouter/anthropic/claude-3-haiku"),  # no reasoning
    ("google-generative-ai", "google/gemini-2.5-flash"),  # the representative model
    ("google-generative-ai", "google/gemini-3.1-pro-preview"),  # thought signatures, tool-call ids sent
    ("google-generative-ai", "google/gemma-4-31b-it"),
    ("google-vertex", "google-vertex/gemini-2.5-flash"),
    ("bedrock-converse-stream", "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0"),  # cache points
    ("bedrock-converse-stream", "amazon-bedrock/amazon.nova-pro-v1:0"),
    ("openai-responses", "openai/gpt-5.1"),  # the representative model: reasoning items, numbered text ids
    ("openai-responses", "openai/gpt-4o"),  # no reasoning: a system message, not a developer one
    ("openai-responses", "openai/gpt-5.4"),  # tools loaded late (additional tools)
    ("openai-responses", "github-copilot/gpt-5.4"),  # ids of its own sanitised, no "off" effort
    ("openai-responses", "xai/grok-4.3"),
    ("mistral-conversations", "mistral/mistral-medium-latest"),  # the representative model
    ("mistral-conversations", "mistral/magistral-medium-latest"),  # text only, promptMode
    ("mistral-conversations", "mistral/mistral-small-latest"),  # reasoningEffort
    ("openai-completions", "groq/openai/gpt-oss-120b"),  # the representative model
    ("openai-completions", "deepseek/deepseek-v4-flash"),  # reasoning_content replayed and required
    ("openai-completions", "openrouter/anthropic/claude-sonnet-4.5:batch"),  # cache markers
    ("openai-completions", "zai-coding-cn/glm-4.6v"),  # zai thinking, tool_stream
    ("openai-completions", "fireworks/accounts/fireworks/models/kimi-k3"),  # tools loaded late (kimi)
    ("openai-completions", "opencode-go/qwen3.6-plus"),  # qwen thinking
    ("openai-completions", "groq/llama-3.1-8b-instant"),  # no reasoning
]
MESSAGE_LISTS = {"anthropic-messages": "messages", "bedrock-converse-stream": "messages",
                 "google-generative-ai": "contents", "google-vertex": "contents", "openai-responses": "input",
                 "azure-openai-responses": "input", "mistral-conversations": "messages", "openai-completions": "messages"}


def clean_sessions() -> list[tuple[Path, BulkSession]]:
    sessions = []
    for path in SESSION_FILES:
        try:
            source = load_context_source(str(path), False)
        except Exception:  # noqa: BLE001 - unreadable files are other tests' business
            continue
        if isinstance(source, BulkSession):
            sessions.append((path, source))
    return sessions


CLEAN_SESSIONS = clean_sessions()
CUT_SESSIONS = [source for _, source in CLEAN_SESSIONS if len(context_document(source)["messages"].planned.parts(1)) >= 2]


def written(document: Any) -> bytes:
    return b"".join(iter_document_bytes(document))


def elsewhere_taking(count: int) -> Any:
    """What the helper process does, here and before this process starts: it takes up to `count` parts from the
    back; the parts go through pickle both ways and failures become None, as with the helper."""

    def build(api: str, model: Any, options: dict[str, Any], context: dict[str, Any], parts: list[Any],
              source: str) -> Any:
        claims = LocalClaims(len(parts))
        taken: list[int] = []

        def claim() -> int | None:
            index = claims.back() if len(taken) < count else None
            if index is not None:
                taken.append(index)
            return index

        copies = pickle.loads(pickle.dumps(parts, protocol=5))
        try:
            built = pickle.loads(pickle.dumps(build_claimed_parts(api, model, options, context, copies, claim),
                                              protocol=5))
        except Exception:  # noqa: BLE001 - as the helper does
            built = None
        return claims, lambda: built

    return build


in_process_elsewhere = elsewhere_taking(2)


def test_enough_sessions_and_cuts() -> None:
    assert len(CLEAN_SESSIONS) >= 40
    assert len(CUT_SESSIONS) >= 30


TOOLS = [
    {"name": "read", "description": "Read a file.",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "bash", "description": "Run a command.",
     "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}},
]


@pytest.mark.parametrize(("api", "model"), MODELS)
@pytest.mark.parametrize(("reasoning", "tools"), [(None, None), ("high", None), ("high", TOOLS)])
def test_parts_equal_the_whole_payload(api: str, model: str, reasoning: str | None, tools: list[Any] | None) -> None:
    request = PayloadRequest(api=api, model=model, reasoning=reasoning, tools=tools,
                             system_prompt="You are a helpful assistant." if tools else None)
    outcomes = {"joined": 0, "whole": 0}
    for path, source in CLEAN_SESSIONS:
        whole = written(payload_document(llm_document(context_document(source)), request))
        for taking in (None, 1, 3, 10**6):
            elsewhere = None if taking is None else elsewhere_taking(taking)
            llm = llm_document(context_document(source))
            document = payload_document_in_parts(llm, request, elsewhere, part_bytes=1)
            if document is None:
                continue
            assert written(document) == whole, (path.name, model, reasoning, taking)
            joined = isinstance(document.get("payload", {}).get(MESSAGE_LISTS[api], [None])[-1], EncodedItems)
            outcomes["joined" if joined else "whole"] += 1
    if model == "anthropic/claude-opus-5":
        assert outcomes == {"joined": 0, "whole": 0}  # never attempted: the model replays effort
    else:
        assert outcomes["joined"] >= 4 * (len(CUT_SESSIONS) - 2)


def test_parts_cut_before_user_lines_and_cover_the_messages() -> None:
    for _, source in CLEAN_SESSIONS:
        planned = context_document(source)["messages"].planned
        parts = planned.parts(1)
        assert [message for part in parts for message in part] == list(planned)
        for part in parts[1:]:
            first = next(step for step in part._steps if type(step) is tuple)
            assert first[2] == "user"
        if len(parts) > 1:
            assert any(type(step) is tuple and step[2] == "assistant" for step in parts[-1]._steps)
        copied = pickle.loads(pickle.dumps(parts[-1], protocol=5))
        assert list(copied) == list(parts[-1])
        assert len(copied._data) == parts[-1].text_size()  # only its own stretch of the file travels


def part(renamed: set[str] = frozenset(), results: set[str] = frozenset(), latest: float = 1.0,
         loads_tools: bool = False, continues: bool = False) -> split.Part:
    return split.Part(EncodedItems(b'{"role":"user","content":"a"}', 1), frozenset(renamed), frozenset(results), latest,
                      loads_tools, continues)


def tail(results: set[str] = frozenset(), anchor: float | None = 5.0, count: int = 1,
         loads_tools: bool = False, continues: bool = False) -> split.Tail:
    return split.Tail({"model": "m", "messages": None, "max_tokens": 9}, EncodedItems(b"{}" if count else b"", count),
                      frozenset(results), anchor, loads_tools, continues)


def test_join_keeps_the_payload_key_order_and_every_part() -> None:
    joined = split.join("anthropic-messages", [part(), part()], tail())
    assert joined is not None
    assert list(joined) == ["model", "messages", "max_tokens"]
    assert [item.json for item in joined["messages"]] == [b'{"role":"user","content":"a"}'] * 2 + [b"{}"]


@pytest.mark.parametrize("parts, last", [
    ([part(renamed={"call|1"}), part(results={"call|1"})], tail()),  # a later result renamed by an earlier part
    ([part(renamed={"call|1"})], tail(results={"call|1"})),
    ([part(latest=math.nan)], tail()),  # a NaN timestamp stops the estimate's search
    ([part(latest=6.0)], tail(anchor=5.0)),  # an earlier message newer than the estimate's assistant
    ([part()], tail(anchor=None)),  # the estimate starts before the last part
    ([part()], tail(count=0)),  # the cache marker would belong to an earlier part
    ([part(loads_tools=True)], tail()),  # which tools load late depends on every message
    ([part()], tail(loads_tools=True)),
    ([part(), part(continues=True)], tail()),  # its first message may belong with the part before
    ([part()], tail(continues=True)),
])
def test_join_refuses_what_would_differ(parts: list[split.Part], last: split.Tail) -> None:
    assert split.join("anthropic-messages", parts, last) is None


def test_a_first_part_may_open_with_what_would_continue_nothing() -> None:
    assert split.join("anthropic-messages", [part(continues=True), part()], tail()) is not None


def test_join_accepts_renamed_ids_nobody_answers_later() -> None:
    assert split.join("anthropic-messages", [part(renamed={"call|1"}, results={"call|1"}), part(results={"x"})],
                      tail(results={"y"})) is not None


LARGEST = max((path for path, _ in CLEAN_SESSIONS), key=lambda path: path.stat().st_size)


def test_a_real_helper_builds_parts_and_survives_many_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SPLIT_BYTES_VARIABLE, "0")
    worker = PayloadWorker.start([str(LARGEST)])
    if worker is None:
        pytest.skip("no fork or a single usable CPU")
    try:
        request = PayloadRequest(api="anthropic-messages", model="anthropic/claude-sonnet-4-5")
        built = 0
        for _, source in CLEAN_SESSIONS:
            whole = written(payload_document(llm_document(context_document(source)), request))
            llm = llm_document(context_document(source))
            document = payload_document_in_parts(llm, request, worker.build_parts, part_bytes=1)
            if document is not None:
                assert written(document) == whole
                built += 1
        assert built >= 20
    finally:
        worker.close()


def test_a_helper_that_died_leaves_every_part_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SPLIT_BYTES_VARIABLE, "0")
    worker = PayloadWorker.start([str(LARGEST)])
    if worker is None:
        pytest.skip("no fork or a single usable CPU")
    os.kill(worker._pid, 9)
    request = PayloadRequest(api="anthropic-messages", model="anthropic/claude-sonnet-4-5")
    source = next(source for _, source in CLEAN_SESSIONS
                  if len(context_document(source)["messages"].planned.parts(1)) >= 3)
    whole = written(payload_document(llm_document(context_document(source)), request))
    for _ in range(2):  # the first task finds it gone; later ones are not sent at all
        document = payload_document_in_parts(llm_document(context_document(source)), request, worker.build_parts,
                                             part_bytes=1)
        assert document is not None and written(document) == whole
    worker.close()


def test_a_mistyped_split_size_is_said_once_and_builds_whole(cli: Any) -> None:
    args = ["payload", "--api", "anthropic-messages", "--model", "anthropic/claude-sonnet-4-5",
            "fixtures/conformance/cases/c003_compaction.jsonl", "fixtures/conformance/cases/c000_linear.jsonl"]
    mistyped = cli(*args, env={SPLIT_BYTES_VARIABLE: "8MB"})
    assert mistyped.code == 0
    note = ("note: the request holds no system prompt and no tools: the session does not record them; pass "
            "--system-prompt pi (Pi's own) or --system-prompt TEXT and --tools-file FILE")
    assert sorted(mistyped.stderr.splitlines()) == sorted([
        "pi-tools: PI_TOOLS_SPLIT_BYTES='8MB' is neither a size in bytes nor 'off'; payloads are built whole",
        *(f"pi-tools: {name}: {note}" for name in args[-2:])])
    assert mistyped.stdout == cli(*args, env={SPLIT_BYTES_VARIABLE: "off"}).stdout


def test_no_helper_below_the_threshold_or_when_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    size = LARGEST.stat().st_size
    monkeypatch.setenv(SPLIT_BYTES_VARIABLE, str(size + 1))
    assert PayloadWorker.start([str(LARGEST), "missing.jsonl"]) is None
    monkeypatch.setenv(SPLIT_BYTES_VARIABLE, "off")
    assert PayloadWorker.start([str(LARGEST)]) is None


@pytest.mark.parametrize("same_bytes", [True, False])
def test_the_helpers_index_counts_only_for_the_bytes_this_process_read(monkeypatch: pytest.MonkeyPatch,
                                                                       same_bytes: bool) -> None:
    """The helper reads the file itself; its heads are used only if this process read exactly the same bytes
    (as if the file changed between the two reads otherwise)."""
    monkeypatch.setenv(SPLIT_BYTES_VARIABLE, "0")
    worker = PayloadWorker.start([str(LARGEST)])
    if worker is None:
        pytest.skip("no fork or a single usable CPU")
    data = LARGEST.read_bytes()
    start = second_half_start(data)
    read = data if same_bytes else data[:-40] + data[-40:].replace(b'"', b"'", 1)
    try:
        assert worker.expect(str(LARGEST), read, start)
        heads = worker.line_heads()
        if same_bytes:
            expected = line_heads(data, start, len(data), False)
            assert heads is not None and expected is not None
            assert (heads.starts, heads.ids, heads.roles, heads.other_parents) == \
                (expected.starts, expected.ids, expected.roles, expected.other_parents)
        else:
            assert heads is None
        assert not worker.expect(str(LARGEST), data, start)  # one file, indexed once
    finally:
        worker.close()


@pytest.mark.parametrize("extra", [[], ["--reasoning", "high"], ["--model", "anthropic/claude-opus-5"]])
def test_cli_with_a_helper_writes_what_it_writes_without(cli: Any, extra: list[str]) -> None:
    sessions = [str(path.relative_to(ROOT)) for path, source in CLEAN_SESSIONS
                if len(context_document(source)["messages"].planned.parts(1)) >= 3][:12]
    sessions.append("fixtures/bad/wrong_field_types.jsonl")  # an error document in the middle of the run
    args = ["payload", "--api", "anthropic-messages", *extra, *sessions]
    if "--model" not in extra:
        args[3:3] = ["--model", "anthropic/claude-sonnet-4-5"]
    split_run = cli(*args, env={SPLIT_BYTES_VARIABLE: "0"})
    whole_run = cli(*args, env={SPLIT_BYTES_VARIABLE: "off"})
    assert split_run.stdout == whole_run.stdout
    assert split_run.code == whole_run.code and split_run.stderr == whole_run.stderr
    assert len(whole_run.documents()) == len(sessions)


def session_file(tmp_path: Path, name: str, messages: list[dict[str, Any]]) -> Path:
    """A clean session holding these messages in a row."""
    lines = [{"type": "session", "version": 3, "id": f"s-{name}", "timestamp": "2026-01-01T00:00:00.000Z",
              "cwd": "/tmp"}]
    parent = None
    for number, message in enumerate(messages):
        entry_id = f"{name}{number:04d}"
        lines.append({"type": "message", "id": entry_id, "parentId": parent,
                      "timestamp": "2026-01-01T00:00:01.000Z", "message": message})
        parent = entry_id
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def user(text: str, timestamp: Any) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": timestamp}


def assistant(timestamp: Any, content: list[Any] | None = None, usage: dict[str, Any] = USAGE,
              model: tuple[str, str, str] = ("anthropic", "anthropic-messages", "claude-sonnet-4-5")) -> dict[str, Any]:
    provider, api, model_id = model
    return {"role": "assistant", "content": content or [{"type": "text", "text": "done"}], "api": api,
            "provider": provider, "model": model_id, "usage": usage, "stopReason": "stop", "timestamp": timestamp}


CALL = {"type": "toolCall", "id": "call_7|fc_7", "name": "read", "arguments": {"path": "a"}}
RESULT = {"role": "toolResult", "toolCallId": "call_7|fc_7", "toolName": "read",
          "content": [{"type": "text", "text": "x"}], "isError": False, "timestamp": 30}
ZERO_USAGE = {**USAGE, "input": 0, "output": 0, "totalTokens": 0}

REFUSED = {
    # A tool call of another model (renamed for Anthropic) answered only after a user message: the answer's id is
    # renamed by the whole conversation, not by its own part.
    "renamed_across_a_cut": [user("a", 10), assistant(20, [CALL], model=("openai", "openai-responses", "gpt-5.1")),
                             user("b", 25), RESULT, assistant(40), user("c", 50)],
    # An earlier message newer than the last part's assistant: the estimate starts elsewhere.
    "later_timestamp_before_the_cut": [user("a", 10), assistant(9000), user("b", 20), assistant(30), user("c", 40)],
    # A timestamp that is not a number stops the estimate's search before the last part.
    "nan_timestamp_before_the_cut": [user("a", "soon"), assistant(20), user("b", 25), assistant(30), user("c", 40)],
    # No reported usage in the last part: the estimate starts in an earlier one.
    "no_usage_in_the_last_part": [user("a", 10), assistant(20), user("b", 25), assistant(30, usage=ZERO_USAGE)],
}


GEMINI = ("google", "google-generative-ai", "gemini-2.5-flash")
CALL_Y = {"type": "toolCall", "id": "call_8", "name": "read", "arguments": {"path": "b"}}
REFUSED_GEMINI = {
    # Function responses after a user message that converts to nothing (no content) join the responses before.
    "responses_across_an_empty_user_message": [
        user("a", 10), assistant(20, [CALL, CALL_Y], model=GEMINI), RESULT,
        {"role": "user", "content": [], "timestamp": 35},
        {**RESULT, "toolCallId": "call_8", "timestamp": 36}, assistant(40, model=GEMINI), user("c", 50)],
}


@pytest.mark.parametrize("name", sorted(REFUSED) + sorted(REFUSED_GEMINI))
def test_refused_joins_are_built_whole(tmp_path: Path, name: str) -> None:
    gemini = name in REFUSED_GEMINI
    source = load_context_source(str(session_file(tmp_path, name, (REFUSED_GEMINI if gemini else REFUSED)[name])),
                                 False)
    assert isinstance(source, BulkSession)
    request = PayloadRequest(api="google-generative-ai", model="google/gemini-2.5-flash") if gemini else \
        PayloadRequest(api="anthropic-messages", model="anthropic/claude-sonnet-4-5")
    whole = written(payload_document(llm_document(context_document(source)), request))
    document = payload_document_in_parts(llm_document(context_document(source)), request, in_process_elsewhere,
                                         part_bytes=1)
    assert document is not None and written(document) == whole
    assert not any(isinstance(item, EncodedItems) for item in document["payload"]["contents" if gemini else "messages"])


STATEFUL_APIS = [("openai-responses", "openai/gpt-5.1"), ("mistral-conversations", "mistral/mistral-medium-latest"),
                 ("openai-completions", "groq/openai/gpt-oss-120b")]


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize(("api", "model"), STATEFUL_APIS)
def test_refused_joins_are_built_whole_for_the_stateful_apis(tmp_path: Path, name: str, api: str, model: str) -> None:
    """The same hazards for the APIs whose conversions carry state: the estimate's are every API's, and the
    renamed id one wherever the id is renamed (Mistral and Chat Completions rename 'call_7|fc_7'; Responses
    keeps an OpenAI model's id, so nothing crosses that cut and the parts join)."""
    whole, parts, joined = built_in_parts(tmp_path, name, REFUSED[name], PayloadRequest(api=api, model=model))
    assert parts == whole
    assert joined == (name == "renamed_across_a_cut" and api == "openai-responses")


def built_in_parts(tmp_path: Path, name: str, messages: list[dict[str, Any]], request: PayloadRequest,
                   ) -> tuple[bytes, bytes, bool]:
    """(the payload document built whole, built from parts of one user turn each, whether the parts joined)."""
    source = load_context_source(str(session_file(tmp_path, name, messages)), False)
    assert isinstance(source, BulkSession)
    whole = written(payload_document(llm_document(context_document(source)), request))
    document = payload_document_in_parts(llm_document(context_document(source)), request, in_process_elsewhere,
                                         part_bytes=1)
    assert document is not None
    joined = any(isinstance(item, EncodedItems) for item in document["payload"][MESSAGE_LISTS[request.api]])
    return whole, written(document), joined


SAFE = [user("a", 10), assistant(20), user("b", 25), assistant(30), user("c", 40)]


@pytest.mark.parametrize(("api", "model"), [
    ("anthropic-messages", "anthropic/claude-sonnet-4-5"), ("openai-responses", "openai/gpt-5.1"),
    ("mistral-conversations", "mistral/mistral-medium-latest"), ("openai-completions", "groq/openai/gpt-oss-120b"),
    ("openai-completions", "openrouter/anthropic/claude-sonnet-4.5:batch")])
def test_the_same_sessions_without_the_hazard_are_joined(tmp_path: Path, api: str, model: str) -> None:
    """The refusals above and below come from the hazards, not from the shape of the sessions."""
    whole, parts, joined = built_in_parts(tmp_path, "safe", SAFE, PayloadRequest(api=api, model=model))
    assert parts == whole and joined


# openai-responses numbers the ids of assistant texts without one by the count of the messages before them,
# which a part writes behind a label for the join to replace.
LABEL = "~pi-tools-part-index~"


def test_responses_ids_are_numbered_across_the_parts(tmp_path: Path) -> None:
    request = PayloadRequest(api="openai-responses", model="openai/gpt-5.1", system_prompt="Be brief.")
    whole, parts, joined = built_in_parts(tmp_path, "numbered", SAFE, request)
    assert parts == whole and joined
    items = orjson.loads(parts)["payload"]["input"]
    assert [item.get("id") for item in items] == [None, None, "msg_pi_1", None, "msg_pi_3", None]


@pytest.mark.parametrize("text", [f"see {LABEL}1", LABEL, f"{LABEL}x"])
def test_responses_parts_holding_the_label_are_built_whole(tmp_path: Path, text: str) -> None:
    """Text that holds the label could not be told from a numbered id: such a conversation is built whole."""
    messages = [user("a", 10), assistant(20), user(text, 25), assistant(30), user("c", 40)]
    request = PayloadRequest(api="openai-responses", model="openai/gpt-5.1")
    whole, parts, joined = built_in_parts(tmp_path, "labelled", messages, request)
    assert parts == whole and not joined
    assert LABEL.encode() in whole


# mistral-conversations gives each foreign tool-call id the first 9-character candidate no earlier id holds.
def call(call_id: str) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": "read", "arguments": {"path": "a"}}


def result(call_id: str, timestamp: int) -> dict[str, Any]:
    return {**RESULT, "toolCallId": call_id, "timestamp": timestamp}


def test_mistral_ids_colliding_across_a_cut_are_built_whole(tmp_path: Path) -> None:
    """'abcdefghi' keeps its id; 'abc-defghi' becomes the same 9 characters, taken already in the whole
    conversation (so it gets the next candidate) but not in its own part."""
    messages = [user("a", 10), assistant(20, [call("abcdefghi")]), result("abcdefghi", 21), assistant(22),
                user("b", 25), assistant(30, [call("abc-defghi")]), result("abc-defghi", 31), assistant(32),
                user("c", 40)]
    request = PayloadRequest(api="mistral-conversations", model="mistral/mistral-medium-latest")
    whole, parts, joined = built_in_parts(tmp_path, "collision", messages, request)
    assert parts == whole and not joined
    ids = [message["toolCallId"] for message in orjson.loads(whole)["payload"]["messages"] if message["role"] == "tool"]
    assert ids[0] == "abcdefghi" and ids[1] != "abcdefghi"


def test_mistral_ids_repeated_across_a_cut_are_joined(tmp_path: Path) -> None:
    """The same foreign id in two parts gets the same result in each, as in the whole conversation (an id it
    keeps: one it renames is refused by the check of renamed ids, see REFUSED)."""
    messages = [user("a", 10), assistant(20, [call("abcdefghi")]), result("abcdefghi", 21), assistant(22),
                user("b", 25), assistant(30, [call("abcdefghi")]), result("abcdefghi", 31), assistant(32),
                user("c", 40)]
    request = PayloadRequest(api="mistral-conversations", model="mistral/mistral-medium-latest",
                             system_prompt="Be brief.")
    whole, parts, joined = built_in_parts(tmp_path, "repeated", messages, request)
    assert parts == whole and joined


# openai-completions: the cache marker goes on the last message with text, "tools": [] is sent without tools
# when any message holds a tool call, and some hosts need an assistant bridge after tool results.
OPENROUTER_CLAUDE = "openrouter/anthropic/claude-sonnet-4.5:batch"


def test_completions_marker_of_an_earlier_part_is_built_whole(tmp_path: Path) -> None:
    """The last part's messages hold no text to mark (an empty user text, an empty assistant turn): the whole
    conversation marks an earlier part's message."""
    empty_turn = {**assistant(30), "content": []}
    messages = [user("a", 10), assistant(20), {"role": "user", "content": "", "timestamp": 25}, empty_turn]
    request = PayloadRequest(api="openai-completions", model=OPENROUTER_CLAUDE, system_prompt="Be brief.")
    whole, parts, joined = built_in_parts(tmp_path, "marker", messages, request)
    assert parts == whole and not joined
    marked = [message for message in orjson.loads(whole)["payload"]["messages"] if "cache_control" in str(message)]
    assert [message["role"] for message in marked] == ["developer", "assistant"]


def test_completions_tool_history_of_an_earlier_part_gives_empty_tools(tmp_path: Path) -> None:
    """No tools to send, a tool call only in the first part: the joined payload has the whole one's
    ``tools: []``, in its place."""
    messages = [user("a", 10), assistant(20, [call("call_7")]), result("call_7", 21), assistant(22),
                user("b", 25), assistant(30), user("c", 40), assistant(50)]
    for model in ("groq/openai/gpt-oss-120b", OPENROUTER_CLAUDE):
        whole, parts, joined = built_in_parts(tmp_path, "history", messages,
                                              PayloadRequest(api="openai-completions", model=model))
        assert parts == whole and joined
        assert orjson.loads(whole)["payload"]["tools"] == []


def bridged_model() -> dict[str, Any]:
    from pi_tools.providers.catalog import find_model

    model = find_model("groq/openai/gpt-oss-120b")
    return {**model, "compat": {**(model.get("compat") or {}), "requiresAssistantAfterToolResult": True}}


def test_completions_bridges_after_tool_results_across_cuts() -> None:
    """A host that needs an assistant turn after tool results gets one before each user message that follows
    them, also when a cut falls there; a user message that converts to nothing keeps the need (two bridges)."""
    from pi_tools.providers import registry

    model = bridged_model()
    api = "openai-completions"
    first = [user("a", 10), assistant(20, [call("call_7")]), result("call_7", 21)]
    second = [{"role": "user", "content": [], "timestamp": 25}, user("b", 26), assistant(30)]
    third = [user("c", 40), assistant(50)]
    options = {"apiKey": "key", "sessionId": "s"}
    context = {"systemPrompt": "Be brief.", "tools": TOOLS}
    built = [split.build_part(api, model, {**context, "messages": part}, options) for part in (first, second)]
    last = split.build_tail(api, model, {**context, "messages": third}, options)
    assert all(part is not None for part in built)
    joined = split.join(api, built, last)  # type: ignore[arg-type]
    whole = registry.build_payload(api, model, {**context, "messages": first + second + third}, options)
    assert joined is not None and written({"payload": joined}) == written({"payload": whole})
    contents = [message.get("content") for message in whole["messages"]]
    assert contents.count("I have processed the tool results.") == 2


def test_part_sizes() -> None:
    assert part_bytes(8 << 20) == PART_BYTES == 128 << 10  # the default threshold
    assert part_bytes(100_000) == 25_000  # a small threshold makes small parts
    assert part_bytes(0) == 1  # PI_TOOLS_SPLIT_BYTES=0: a cut before every user message


def test_claims_are_shared_and_survive_a_helper_killed_holding_the_lock() -> None:
    claims = SharedClaims()
    claims.reset(5, 2)
    pid = os.fork()
    if pid == 0:  # the helper: takes two parts from the back, then dies holding the lock
        try:
            taken = [claims.back(), claims.back()]
            fcntl.lockf(claims._lock, fcntl.LOCK_EX)
            os._exit(0 if taken == [4, 3] else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    signal.alarm(10)  # a lock left held would hang here; the kernel released it with its holder
    try:
        assert [claims.front() for _ in range(4)] == [0, 1, 2, None]
        assert claims.back() is None
    finally:
        signal.alarm(0)


def test_parts_of_every_leaf_of_branching_sessions() -> None:
    """A context planned for another leaf than the last entry is cut and joined the same way."""
    request = PayloadRequest(api="anthropic-messages", model="anthropic/claude-sonnet-4-5")
    checked = 0
    for path, source in CLEAN_SESSIONS:
        if "branch" not in path.name:
            continue
        for leaf in {entry_id for entry_id in source.by_id if isinstance(entry_id, str)}:
            try:
                whole = written(payload_document(llm_document(context_document(source, leaf)), request))
            except Exception as exc:  # noqa: BLE001 - a leaf Pi cannot build from fails alike in parts
                whole = repr(exc).encode()
            try:
                document = payload_document_in_parts(llm_document(context_document(source, leaf)), request,
                                                     elsewhere_taking(2), part_bytes=1)
                parts = whole if document is None else written(document)
            except Exception as exc:  # noqa: BLE001
                parts = repr(exc).encode()
            assert parts == whole, (path.name, leaf)
            checked += 1
    assert checked >= 20


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses", "mistral-conversations"])
def test_cli_with_a_helper_writes_the_same_for_the_other_apis(cli: Any, api: str) -> None:
    """The APIs whose conversions carry state across messages, through the CLI with a helper and without."""
    from pi_tools.providers.table import representative_models

    args = ["payload", "--api", api, "--model", representative_models()[api], str(LARGEST.relative_to(ROOT)),
            "fixtures/conformance/cases/c003_compaction.jsonl"]
    with_helper = cli(*args, env={SPLIT_BYTES_VARIABLE: "0"})
    without = cli(*args, env={SPLIT_BYTES_VARIABLE: "off"})
    assert with_helper.code == without.code == 0
    assert with_helper.stdout == without.stdout and with_helper.stderr == without.stderr == _no_prompt(args[-2:])


JUNK_ITEMS = [user("a", 10), assistant(20, ["junk", {"type": "text", "text": "done"}]), user("b", 25),
              assistant(30), user("c", 40)]


@pytest.mark.parametrize(("api", "model"), [
    ("anthropic-messages", "anthropic/claude-sonnet-4-5"), ("openai-responses", "openai/gpt-5.1"),
    ("mistral-conversations", "mistral/mistral-medium-latest"), ("openai-completions", "groq/openai/gpt-oss-120b"),
    ("google-generative-ai", "google/gemini-2.5-flash"),
    ("bedrock-converse-stream", "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0")])
def test_content_items_that_are_not_objects_are_built_whole(tmp_path: Path, api: str, model: str) -> None:
    """build_payload gives a non-object content item Pi's treatment (a block of no kind, or V8's failure), which
    is defined for the whole conversation; a part holding one makes the conversation build whole."""
    whole, parts, joined = built_in_parts(tmp_path, "junk", JUNK_ITEMS, PayloadRequest(api=api, model=model))
    assert parts == whole and not joined
    whole_safe, parts_safe, joined_safe = built_in_parts(tmp_path, "safe", SAFE, PayloadRequest(api=api, model=model))
    assert parts_safe == whole_safe and joined_safe


# azure-openai-responses: openai-responses' conversion with Azure's params (deployment, no retention fields, every
# tool) and Azure's own tool-call ids kept; its parts carry the same message counter. Pi resolves the endpoint
# before building, so the tests name a resource.
AZURE_MODELS = ["azure-openai-responses/gpt-5.1",  # reasoning, grammar tools: a developer message
                "azure-openai-responses/gpt-4.1",  # no reasoning: a system message
                "azure-openai-responses/o3"]  # reasoning without the grammar tools flag


@pytest.fixture
def azure_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AZURE_OPENAI_BASE_URL", "AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "AZURE_OPENAI_API_VERSION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AZURE_OPENAI_RESOURCE_NAME", "res")


@pytest.mark.usefixtures("azure_resource")
@pytest.mark.parametrize("model", AZURE_MODELS)
@pytest.mark.parametrize(("reasoning", "tools"), [(None, None), ("high", None), ("high", TOOLS)])
def test_azure_parts_equal_the_whole_payload(model: str, reasoning: str | None, tools: list[Any] | None) -> None:
    request = PayloadRequest(api="azure-openai-responses", model=model, reasoning=reasoning, tools=tools,
                             system_prompt="You are a helpful assistant." if tools else None)
    joined_count = 0
    for path, source in CLEAN_SESSIONS:
        whole = written(payload_document(llm_document(context_document(source)), request))
        assert b'"kind":"payload"' in whole or b'"kind":"error"' in whole
        for taking in (None, 1, 10**6):
            elsewhere = None if taking is None else elsewhere_taking(taking)
            document = payload_document_in_parts(llm_document(context_document(source)), request, elsewhere,
                                                 part_bytes=1)
            if document is None:
                continue
            assert written(document) == whole, (path.name, model, reasoning, taking)
            joined_count += isinstance(document.get("payload", {}).get("input", [None])[-1], EncodedItems)
    assert joined_count >= 3 * (len(CUT_SESSIONS) - 2)


@pytest.mark.usefixtures("azure_resource")
def test_azure_ids_are_numbered_across_the_parts(tmp_path: Path) -> None:
    request = PayloadRequest(api="azure-openai-responses", model="azure-openai-responses/gpt-5.1",
                             system_prompt="Be brief.")
    whole, parts, joined = built_in_parts(tmp_path, "numbered", SAFE, request)
    assert parts == whole and joined
    payload = orjson.loads(parts)["payload"]
    assert payload["model"] == "gpt-5.1" and payload["store"] is False and "prompt_cache_retention" not in payload
    assert [item.get("id") for item in payload["input"]] == [None, None, "msg_pi_1", None, "msg_pi_3", None]
    assert payload["input"][0] == {"role": "developer", "content": "Be brief."}


@pytest.mark.usefixtures("azure_resource")
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_azure_refused_joins_are_built_whole(tmp_path: Path, name: str) -> None:
    request = PayloadRequest(api="azure-openai-responses", model="azure-openai-responses/gpt-5.1")
    whole, parts, joined = built_in_parts(tmp_path, name, REFUSED[name], request)
    assert parts == whole
    # the tool call is openai's, another provider to Azure: its id is renamed, unlike for openai-responses
    assert not joined


@pytest.mark.parametrize("split_bytes", ["0", None])
def test_azure_cli_in_parts_writes_what_it_writes_whole(cli: Any, split_bytes: str | None) -> None:
    """Through the CLI, parts forced (0) and at the default size, against the whole build ('off'); without an
    endpoint every way reports Pi's error."""
    args = ["payload", "--api", "azure-openai-responses", "--model", "azure-openai-responses/gpt-5.1",
            str(LARGEST.relative_to(ROOT)), "fixtures/conformance/cases/c003_compaction.jsonl"]
    env = {"AZURE_OPENAI_BASE_URL": "", "AZURE_OPENAI_RESOURCE_NAME": "res"}
    if split_bytes is not None:
        env[SPLIT_BYTES_VARIABLE] = split_bytes
    in_parts = cli(*args, env=env)
    whole = cli(*args, env={**env, SPLIT_BYTES_VARIABLE: "off"})
    assert in_parts.code == whole.code == 0
    assert in_parts.stdout == whole.stdout and in_parts.stderr == whole.stderr == _no_prompt(args[-2:])
    assert [document["kind"] for document in whole.documents()] == ["payload", "payload"]
    no_endpoint = {**env, "AZURE_OPENAI_RESOURCE_NAME": ""}
    failed = cli(*args, env=no_endpoint)
    assert failed.stdout == cli(*args, env={**no_endpoint, SPLIT_BYTES_VARIABLE: "off"}).stdout
    assert [document.get("error", "")[:33] for document in failed.documents()] == \
        ["Azure OpenAI base URL is required"] * 2


def _no_prompt(files: list[str]) -> str:
    """payload's note for each session that records no system prompt or tools (none given)."""
    return "".join(f"pi-tools: {name}: note: the request holds no system prompt and no tools: the session does not "
                   "record them; pass --system-prompt pi (Pi's own) or --system-prompt TEXT and --tools-file FILE\n" for name in files)

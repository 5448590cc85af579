"""The output ceiling Pi clamps to the context window, from usage fields that are not plain counts, and two
failures met in Pi's order, as Pi 0.85 answers them (recorded with the reference oracle, `--apis default`).

pi-ai's calculateContextTokens is `usage.totalTokens || usage.input + usage.output + usage.cacheRead +
usage.cacheWrite`: a truthy total of any type is taken as stored, the sum is JavaScript's `+` (strings
concatenate), the anchor test is `> 0` and the estimate then adds the trailing messages with `+` again. pi-tools
read only numbers there (a differential sweep of mutated sessions found maxTokens off in every API), and kept
fractional totals whole where Pi's ceiling is fractional."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

USAGE = {"input": 31573, "output": 762, "cacheRead": 18508, "cacheWrite": 0, "totalTokens": 50843}
# usage override -> (Pi's mistral-medium-latest maxTokens, Pi's claude-sonnet-4-5 max_tokens); None is NaN
# (JSON null), a string is the error Pi fails the request with.
CASES: dict[str, tuple[dict[str, Any], Any, Any]] = {
    "empty array": ({"totalTokens": []}, 257972, 64000),
    "array of a number": ({"totalTokens": [7000]}, 1, 1),
    "numeric string": ({"totalTokens": "5000"}, 1, 1),
    "string with a space": ({"totalTokens": "5 "}, None, None),
    "true": ({"totalTokens": True}, 257982, 64000),
    "object": ({"totalTokens": {}}, 257972, 64000),
    "fraction": ({"totalTokens": 5000.5}, 252982.5, 64000),
    "negative": ({"totalTokens": -3}, 257972, 64000),
    "word": ({"totalTokens": "abc"}, 257972, 64000),
    "hex string": ({"totalTokens": "0x10"}, 190896, 64000),
    "exponent string": ({"totalTokens": "1e3"}, 1, 1),
    "a string part": ({"input": "100", "totalTokens": 0}, 1, 1),
    "a null part": ({"input": None, "totalTokens": 0}, 238713, 64000),
    "a boolean part": ({"input": True, "totalTokens": 0}, 238712, 64000),
    "an array part": ({"input": [5], "totalTokens": 0}, 1, 1),
    "fractional parts": ({"input": 0.5, "output": 0.25, "totalTokens": 0}, 239474.25, 64000),
    "an object with toString": ({"totalTokens": {"toString": 1}}, "Cannot convert object to primitive value",
                                "Cannot convert object to primitive value"),
}
HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
MODEL = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5"}


def _message(number: int, message: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message", "id": f"a{number}", "parentId": f"a{number - 1}" if number > 1 else None,
            "timestamp": f"2026-01-01T00:00:0{number}.000Z", "message": {**message, "timestamp": number}}


def _write(path: Path, messages: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in [HEADER, *(
        _message(number, message) for number, message in enumerate(messages, 1))]))
    return str(path)


def _usage_session(path: Path, override: dict[str, Any]) -> str:
    return _write(path, [
        {"role": "user", "content": [{"type": "text", "text": "hi there"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}], **MODEL, "stopReason": "stop",
         "usage": {**USAGE, **override}},
        {"role": "user", "content": [{"type": "text", "text": "and now a longer question " * 10}]}])


def _outcomes(cli: Any, api: str, model: str, files: list[str], field: str) -> list[Any]:
    # (the oracle's inputs: this system prompt, no tools; a session without usage estimates the prompt too)
    run = cli("payload", "--api", api, "--model", model, "--system-prompt", "You are a helpful assistant.", *files)
    assert "internal error" not in run.stdout and "Traceback" not in run.stderr, run.stderr
    return [document["error"] if document["kind"] == "error" else document["payload"][field]
            for document in run.documents()]


def test_max_tokens_from_usage_values_of_every_type(cli: Any, tmp_path: Path) -> None:
    files = [_usage_session(tmp_path / f"u{index}.jsonl", override)
             for index, (override, _, _) in enumerate(CASES.values())]
    mistral = _outcomes(cli, "mistral-conversations", "mistral/mistral-medium-latest", files, "maxTokens")
    anthropic = _outcomes(cli, "anthropic-messages", "anthropic/claude-sonnet-4-5", files, "max_tokens")
    assert dict(zip(CASES, zip(mistral, anthropic, strict=True), strict=True)) == {
        name: (expected_mistral, expected_anthropic) for name, (_, expected_mistral, expected_anthropic) in CASES.items()}


def test_a_user_content_that_is_not_iterable_fails_bedrock_before_a_later_result(cli: Any, tmp_path: Path) -> None:
    """After an assistant with usage, the estimate reads no earlier message, so Bedrock's converter meets the
    user content `false` first (`for (const c of m.content)`), before the later result's string item."""
    path = _write(tmp_path / "s.jsonl", [
        {"role": "user", "content": False},
        {"role": "assistant", "content": [], **MODEL, "stopReason": "stop",
         "usage": {"input": 1200, "output": 85, "cacheRead": 0, "cacheWrite": 0}},
        {"role": "toolResult", "toolCallId": "c", "toolName": "ls", "content": ["a9000006"], "isError": False}])
    assert _outcomes(cli, "bedrock-converse-stream", "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0",
                     [path], "messages") == ["m.content is not iterable"]


def test_a_null_result_item_fails_google_before_a_later_string_content(cli: Any, tmp_path: Path) -> None:
    """Google's converter reads `c.type` of every item of a result in message order: the null item of the first
    result fails the request before a later result whose content is a string (`msg.content.filter`)."""
    path = _write(tmp_path / "s.jsonl", [
        {"role": "toolResult", "toolCallId": "c0", "toolName": "ls", "content": [None], "isError": False},
        {"role": "assistant", "content": [{"type": "text", "text": "x"}], **MODEL, "stopReason": "stop",
         "usage": {"input": 10, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 11}},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "content": "text", "isError": False}])
    assert _outcomes(cli, "google-generative-ai", "google/gemini-2.5-flash", [path], "contents") == [
        "Cannot read properties of null (reading 'type')"]


def test_a_custom_message_without_content_fails_the_estimate(cli: Any, tmp_path: Path) -> None:
    """convertToLlm makes a custom message without content a user message without content, which the estimate
    walks (`for (const block of content)`): Pi fails the request. Before an assistant with usage it is not
    estimated, and every API builds the request."""
    custom = {"role": "custom", "customType": "x", "display": True}
    user = {"role": "user", "content": [{"type": "text", "text": "q"}]}
    anchor = {"role": "assistant", "content": [{"type": "text", "text": "ok"}], **MODEL, "stopReason": "stop",
              "usage": {"input": 10, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 11}}
    files = [_write(tmp_path / "missing.jsonl", [user, custom, user]),
             _write(tmp_path / "null.jsonl", [user, {**custom, "content": None}, user]),
             _write(tmp_path / "before-anchor.jsonl", [user, custom, anchor, user])]
    assert _outcomes(cli, "anthropic-messages", "anthropic/claude-sonnet-4-5", files, "max_tokens") == [
        "content is not iterable", "content is not iterable", 64000]


LENGTH = "Cannot read properties of undefined (reading 'length')"


def test_an_assistant_array_item_fails_the_estimate_before_transform_messages_spreads_it(
        cli: Any, tmp_path: Path) -> None:
    """pi-ai estimates the context before transformMessages flatMaps assistant content: an estimated assistant
    whose content holds an array reads `block.name.length` of it and fails. Not estimated (before the newest
    assistant with usage), the array is spread: `[[null]]` is a null item, the others build."""
    def assistant(content: list[Any], total: int) -> dict[str, Any]:
        return {"role": "assistant", "content": content, **MODEL, "stopReason": "stop",
                "usage": {"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total}}

    user = {"role": "user", "content": [{"type": "text", "text": "q"}]}
    anchor = assistant([{"type": "text", "text": "k"}], 11)
    contents: dict[str, list[Any]] = {"[[null]]": [[None]], "[[]]": [[]], "[[text]]": [[{"type": "text", "text": "x"}]],
                                      "[5]": [5], "[text, [b]]": [{"type": "text", "text": "a"}, ["b"]]}
    files, expected = [], []
    for index, (name, content) in enumerate(contents.items()):
        files.append(_write(tmp_path / f"e{index}.jsonl", [user, anchor, assistant(content, 0), user]))
        expected.append((name, "estimated", LENGTH))
        files.append(_write(tmp_path / f"u{index}.jsonl", [user, assistant(content, 0), anchor, user]))
        expected.append((name, "not estimated", "Cannot read properties of null (reading 'type')"
                         if name == "[[null]]" else 64000))
    found = _outcomes(cli, "anthropic-messages", "anthropic/claude-sonnet-4-5", files, "max_tokens")
    assert [(name, where, outcome) for (name, where, _), outcome in zip(expected, found, strict=True)] == expected


def test_text_only_models_fail_on_an_unwalkable_result_before_an_earlier_tool_call_id(
        cli: Any, tmp_path: Path) -> None:
    """pi-ai's transformMessages swaps images for placeholders over every message before its second pass reads
    any tool-call id: for a text-only model a tool result whose content is an object fails first ("content is
    not iterable"), though an earlier call has no id. Models that take images reach the id (or another field)."""
    path = _write(tmp_path / "s.jsonl", [
        {"role": "assistant", "content": [{"type": "toolCall"}], "usage": {}},
        {"role": "toolResult", "toolCallId": "t1", "toolName": "read", "content": {"type": "image", "data": 5},
         "isError": False},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "t2", "name": "read", "arguments": {}}],
         **MODEL, "stopReason": "toolUse",
         "usage": {"input": 807, "output": 2854, "cacheRead": 163, "cacheWrite": 1824, "totalTokens": 5648}}])
    for api, model, expected in (
            ("openai-completions", "groq/openai/gpt-oss-120b", "content is not iterable"),
            ("openai-completions", "deepseek/deepseek-v4-flash", "content is not iterable"),
            ("mistral-conversations", "mistral/magistral-medium-latest", "content is not iterable"),
            ("openai-completions", "openrouter/anthropic/claude-sonnet-4.5:batch",
             "Cannot read properties of undefined (reading 'includes')"),
            ("openai-responses", "openai/gpt-5.1", "Cannot read properties of undefined (reading 'includes')")):
        assert _outcomes(cli, api, model, [path], "messages") == [expected], (api, model)

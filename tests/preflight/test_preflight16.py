"""preflight, render and visibility --api under Pi 1.6: the version's catalog, adapters, transformMessages (held
system messages, foreign thinking dropped), context rules and estimate, with exact outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.providers.transform_messages import TRANSFORM_085, TRANSFORM_16, transform_messages
from pi_tools.providers.transform_trace import align_positions, align_transformed

DATA = Path("tests/data/requests16")
HELD = str(DATA / "held_system.jsonl")
GEN16 = str(DATA / "gen16_new.jsonl")

BMP_ANTHROPIC = ("messages[2].content[0].content[1].source.media_type: Input should be 'image/jpeg', 'image/png', "
                 "'image/gif' or 'image/webp' (got 'image/bmp')")


def _finding(rule: str, entry: str, line: int, message: str, api: str, model: str, path: str,
             source: str = HELD) -> dict[str, Any]:
    from pi_tools.preflight.fixes import fix_for
    from pi_tools.preflight.rules import rules_by_id

    return {"kind": "finding", "source": source, "rule": rule, "severity": "error", "entryId": entry, "line": line,
            "message": message, "api": api, "model": model, "payloadPath": path,
            "fix": fix_for(rule, source, model, rules_by_id()[rule].fix)}


@pytest.mark.parametrize(("model", "expected"), [
    ("anthropic/claude-opus-4-8", [_finding(  # keeps system messages in place
        "anthropic-image-media-type", "r1", 7, BMP_ANTHROPIC, "anthropic-messages", "anthropic/claude-opus-4-8",
        "messages[2].content[0].content[1]")]),
    ("anthropic/claude-sonnet-4-5", [_finding(  # folds them into the system prompt
        "anthropic-image-media-type", "r1", 7, BMP_ANTHROPIC, "anthropic-messages", "anthropic/claude-sonnet-4-5",
        "messages[2].content[0].content[1]")]),
    ("google/gemini-2.5-flash", [_finding(
        "google-image-media-type", "r1", 7, "Unsupported MIME type: image/bmp", "google-generative-ai",
        "google/gemini-2.5-flash", "contents[3].parts[1]")]),
    ("openai/gpt-5.1", [_finding(
        "openai-image-media-type", "r1", 7, "You uploaded an unsupported image. Please make sure your image has of "
        "one the following formats: ['png', 'jpeg', 'gif', 'webp']. (got 'image/bmp')", "openai-responses",
        "openai/gpt-5.1", "input[3].output[0]")]),
    ("deepseek/deepseek-v4-pro", []),
    ("mistral/mistral-medium-latest", []),
])
def test_findings_are_traced_past_a_held_system_message(cli: Any, model: str, expected: list[Any]) -> None:
    """The system message between the tool call and its result is sent after the result (transformMessages holds
    it): the image's finding still names the result's entry (r1), not the system message's (s2)."""
    run = cli("preflight", "--pi", "1.6", "--format", "json", "--model", model, HELD)
    assert (run.code, run.stderr) == (1 if expected else 0, "")
    assert run.documents() == expected


def test_pi_085_reads_the_same_session_without_its_system_messages(cli: Any) -> None:
    run = cli("preflight", "--pi", "0.85", "--format", "json", "--model", "anthropic/claude-sonnet-4-5", HELD)
    assert run.documents() == [_finding("anthropic-image-media-type", "r1", 7, BMP_ANTHROPIC, "anthropic-messages",
                                        "anthropic/claude-sonnet-4-5", "messages[2].content[0].content[1]")]


def test_a_session_pi_16_wrote_checked_for_gemini_3(cli: Any) -> None:
    """gen16_new (conformance16): Claude's tool calls carry no thought signature, which Gemini 3 requires in the
    current turn; the request is the recorded transcript (its own prompt and tools)."""
    run = cli("preflight", "--pi", "1.6", "--format", "json", "--model", "google/gemini-3-flash-preview", GEN16)
    assert run.code == 1
    assert run.documents() == [_finding(
        "google-thought-signature", "bd28f4d8", 11, "Function call is missing a thought_signature in functionCall "
        "parts. Additional data, function call `default_api:bash`, position 6.", "google-generative-ai",
        "google/gemini-3-flash-preview", "contents[5].parts[0]", GEN16)]
    assert cli("preflight", "--pi", "1.6", "--format", "json", GEN16).stdout == ""  # its own model: nothing


def test_replay_uses_the_chosen_version(cli: Any) -> None:
    run = cli("preflight", "--pi", "1.6", "--replay", "--format", "json", GEN16)
    assert run.code == 0
    *requests, summary = run.documents()
    assert [(doc["entryId"], doc["model"], doc["predicted"], doc["findings"]) for doc in requests][-1] == \
        ("989459fc", "anthropic/claude-sonnet-4-5", "ok", [])
    assert summary == {"kind": "summary", "source": GEN16, "requests": 4, "matrix": {
        "accepted": {"ok": 4, "reject": 0}, "rejected": {"ok": 0, "reject": 0}, "no-verdict": {"ok": 0, "reject": 0}},
        "notReproducible": 0, "errorClasses": {}}


def test_the_catalog_is_the_chosen_versions(cli: Any) -> None:
    """claude-sonnet-5-5 is in Pi 1.6's catalog only."""
    assert cli("preflight", "--pi", "1.6", "--model", "anthropic/claude-sonnet-5-5", HELD).code == 1
    refused = cli("preflight", "--pi", "0.85", "--model", "anthropic/claude-sonnet-5-5", HELD)
    assert refused.code == 2 and refused.stderr.startswith("pi-tools: --model anthropic/claude-sonnet-5-5: ")


def test_render_of_a_16_transcript(cli: Any) -> None:
    run = cli("render", "--pi", "1.6", "--api", "anthropic-messages", "--model", "anthropic/claude-opus-4-8", HELD,
              "-o", "-", "--format", "md")
    assert run.code == 0
    assert run.stdout == (DATA / "held_system.opus-4-8.md").read_text(encoding="utf-8")


def test_visibility_api_under_16(cli: Any) -> None:
    """A held system message is not an errored turn; the tool batch's messages are all sent."""
    run = cli("visibility", "--pi", "1.6", "--api", "anthropic-messages", "--format", "json", HELD)
    assert run.code == 0
    assert [(row["entryId"], row["model"], row["reasons"]) for row in run.documents()] == [
        ("mc", False, {"context": "settings-entry", "model": "settings-entry", "tui": "settings-entry"}),
        ("s1", True, {"tui": "system-message"}), ("u1", True, {}), ("a1", True, {}),
        ("s2", True, {"tui": "system-message"}), ("r1", True, {}), ("u2", True, {})]


def _messages() -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in Path(HELD).read_text().splitlines()]
    return [line["message"] for line in lines if line.get("type") == "message"]


def test_positions_follow_held_system_messages() -> None:
    llm = _messages()  # s1 u1 a1 s2 r1 u2
    model = {"provider": "anthropic", "api": "anthropic-messages", "id": "claude-opus-4-8", "input": ["text"]}
    held = transform_messages(llm, model, rules=TRANSFORM_16)
    assert [m["role"] for m in held] == ["system", "user", "assistant", "toolResult", "system", "user"]
    assert align_positions(llm, held) == ([0, 1, 2, 4, 3, 5], [])
    per_message, _ = align_transformed(llm, held)
    assert per_message[3] is held[4] and per_message[4] is held[3]
    without_system = [m for m in llm if m["role"] != "system"]
    plain = transform_messages(without_system, model, rules=TRANSFORM_085)
    assert align_positions(without_system, plain) == ([0, 1, 2, 3], [])

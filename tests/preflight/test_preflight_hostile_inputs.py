"""preflight (and --replay) on the fuzz cases (fixtures/fuzz/cases: the damage real files show), for every model
variant of the conformance set: Pi's answer or a finding, never an internal error. A sweep of this kind found
three: the Mistral trace of a string content item, a completions rule keying a list tool_call_id, and the replay
note formatting a parentId nested 1,100 levels deep."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tools.preflight.check import PreflightRequest
from pi_tools.preflight.replay import Options, replay_path
from pi_tools.preflight.session import preflight_path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FUZZ = sorted((FIXTURES / "fuzz" / "cases").glob("*.jsonl"))
MODELS = ["amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic/claude-opus-4-6",
          "anthropic/claude-sonnet-4-5", "deepseek/deepseek-v4-flash", "google/gemini-2.5-flash",
          "google/gemini-3-flash-preview", "groq/openai/gpt-oss-120b", "mistral/magistral-medium-latest",
          "mistral/mistral-medium-latest", "openai/gpt-5.1", "openrouter/anthropic/claude-sonnet-4.5:batch",
          "google-vertex/gemini-3.1-pro-preview"]


@pytest.mark.parametrize("model", MODELS)
def test_no_internal_error_on_any_fuzz_case(model: str) -> None:
    assert len(FUZZ) > 40
    internal = [str(result.error) for path in FUZZ
                if "please report" in str((result := preflight_path(str(path), PreflightRequest(model=model))).error)]
    assert internal == []


def test_replay_of_every_branch_has_no_internal_error() -> None:
    internal = [str(result.error) for path in FUZZ
                if "please report" in str((result := replay_path(str(path), Options(all_branches=True))).error)]
    assert internal == []


def _rules(path: str, model: str) -> list[tuple[str, str | None, str | None]]:
    result = preflight_path(path, PreflightRequest(model=model))
    assert result.error is None
    return [(f["rule"], f["payloadPath"], f["entryId"]) for f in result.findings]


def test_string_content_item_traced_for_mistral() -> None:
    """Pi builds the request (the string item becomes a tool call without an id); Mistral refuses it, and the
    finding names the assistant entry, traced through the junk item as the payload builder reads it."""
    assert _rules(str(FIXTURES / "fuzz" / "cases" / "string_content_item.jsonl"), "mistral/mistral-medium-latest") == [
        ("mistral-tool-call-id", "messages[1].toolCalls[0].id", "m1"),
        ("mistral-tool-results", "messages[1].toolCalls[0]", "m1")]


def test_list_tool_call_id_for_completions() -> None:
    found = _rules(str(FIXTURES / "fuzz" / "cases" / "tool_call_id_an_array_cross_model.jsonl"),
                   "deepseek/deepseek-v4-flash")
    assert ("completions-tool-message-without-call", "messages[2]", "e3") in found, found

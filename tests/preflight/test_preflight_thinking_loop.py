"""Thinking on, tool loop open: planted accepted and refused variants, per API (Anthropic Messages and Bedrock
Converse with Claude), per Pi version. Claude refuses a request whose current turn opens with an assistant message
that does not start with thinking, when the stored message had thinking Pi cannot replay (another model's, or
unsigned); it accepts a turn replayed with its signed thinking, later bare steps, a turn that began without
thinking, thinking off and a closed loop (Anthropic's extended-thinking guide; Bedrock's Claude extended-thinking
guide, https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html, and the
recorded ConverseStream ValidationException of langchain-ai/langchain-aws#844)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.preflight.test_preflight import THINKING, assistant, call, result, user, write_session

OFF = {"type": "thinking_level_change", "thinkingLevel": "off"}
APIS = {
    "anthropic-messages": ("anthropic", "claude-sonnet-4-5", "anthropic-thinking-tool-loop", ""),
    "bedrock-converse-stream": ("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0",
                                "bedrock-thinking-tool-loop", "The model returned the following errors: "),
}


def _thinking(signature: str | None = "sig") -> dict[str, Any]:
    block: dict[str, Any] = {"type": "thinking", "thinking": "plan"}
    if signature:
        block["thinkingSignature"] = signature
    return block


def _other(content: list[Any]) -> dict[str, Any]:
    return assistant(content, "openai", "gpt-5.1", "openai-responses")


def _variants(api: str, pi: str) -> dict[str, tuple[list[Any], str | None]]:
    """name -> (entries, the block kind Claude finds first: None when the request is accepted). Another model's
    thinking goes as text with Pi 0.85 and is left out by Pi 1.6, which leaves the call first."""
    provider, model, _, _ = APIS[api]

    def same(content: list[Any], stop: str = "toolUse") -> dict[str, Any]:
        return assistant(content, provider, model, api, stop)

    dropped = "text" if pi == "0.85" else "tool_use"
    foreign = [THINKING, user("hi"), _other([_thinking(), call("toolu_1")]), result("toolu_1")]
    return {
        # refused: another model's thinking is not sent as thinking; unsigned thinking goes as text; the loop's first step
        # decides, whatever later steps carry
        "foreign-turn": (foreign, dropped),
        "unsigned-thinking": ([THINKING, user("hi"), same([_thinking(None), call("toolu_1")]), result("toolu_1")],
                              "text"),
        "foreign-then-signed": ([*foreign, same([_thinking(), call("toolu_2")]), result("toolu_2")], dropped),
        # accepted
        "signed": ([THINKING, user("hi"), same([_thinking(), call("toolu_1")]), result("toolu_1")], None),
        "signed-then-bare": ([THINKING, user("hi"), same([_thinking(), call("toolu_1")]), result("toolu_1"),
                              same([call("toolu_2")]), result("toolu_2")], None),
        "began-without-thinking": ([THINKING, user("hi"), same([call("toolu_1")]), result("toolu_1")], None),
        "thinking-off": ([OFF, *foreign[1:]], None),
        "loop-closed": ([*foreign, same([{"type": "text", "text": "done"}], "stop"), user("next")], None),
    }


CASES = [(pi, api, name) for pi in ("0.85", "1.6") for api in APIS for name in _variants(api, pi)]


@pytest.mark.parametrize(("pi", "api", "name"), CASES, ids=[f"{pi}-{api}-{name}" for pi, api, name in CASES])
def test_thinking_tool_loop_variant(cli: Any, tmp_path: Path, pi: str, api: str, name: str) -> None:
    provider, model, rule, prefix = APIS[api]
    entries, found = _variants(api, pi)[name]
    run = cli("preflight", "--pi", pi, "--format", "json", "--model", f"{provider}/{model}",
              write_session(tmp_path, entries))
    if found is None:
        assert (run.code, run.documents()) == (0, [])
        return
    assert run.code == 1
    assert [(f["rule"], f["severity"], f["payloadPath"], f["entryId"], f["message"]) for f in run.documents()] == [
        (rule, "error", "messages[1].content[0]", "e3",
         f"{prefix}messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When "
         "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
         "lastmost set of `tool_use` and `tool_result` blocks).")]

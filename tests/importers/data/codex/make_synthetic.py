"""Writes the synthetic Codex rollouts beside it (run it from anywhere: `python make_synthetic.py`).

Each file has the shapes real rollouts of its Codex version have (see README.md), with made-up content: the
encrypted reasoning is not OpenAI's (no request is ever sent with it), the image is a 1x1 PNG.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
LIMITS = {"limit_id": "codex", "primary": {"used_percent": 1.0, "window_minutes": 300, "resets_at": 1771864831},
          "secondary": {"used_percent": 2.0, "window_minutes": 10080, "resets_at": 1772355703},
          "credits": {"has_credits": False, "unlimited": False, "balance": None}, "plan_type": "plus"}


def line(stamp: str, kind: str, payload: Any) -> dict[str, Any]:
    return {"timestamp": stamp, "type": kind, "payload": payload}


def user(text: str, *images: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "input_text", "text": text}]
    content += [{"type": "input_image", "image_url": url} for url in images]
    return {"type": "message", "role": "user", "content": content}


def said(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}],
            "phase": "final_answer"}


def reasoning(summary: str, encrypted: str | None) -> dict[str, Any]:
    return {"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}], "content": None,
            "encrypted_content": encrypted}


def usage(inp: int, cached: int, out: int, reasoning_tokens: int) -> dict[str, int]:
    return {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out,
            "reasoning_output_tokens": reasoning_tokens, "total_tokens": inp + out}


class Counts:
    """token_count events as Codex writes them: the running total and the last response's usage."""

    def __init__(self, limits: Any) -> None:
        self.total = usage(0, 0, 0, 0)
        self.limits = limits

    def event(self, last: dict[str, int] | None) -> dict[str, Any]:
        if last is None:
            return {"type": "token_count", "info": None, "rate_limits": self.limits}
        self.total = {key: self.total[key] + last[key] for key in self.total}
        return {"type": "token_count", "info": {"total_token_usage": dict(self.total), "last_token_usage": last,
                                                "model_context_window": 258400}, "rate_limits": self.limits}

    def again(self, last: dict[str, int]) -> dict[str, Any]:
        return {"type": "token_count", "info": {"total_token_usage": dict(self.total), "last_token_usage": last,
                                                "model_context_window": 258400}, "rate_limits": self.limits}


def context(model: str, effort: str, turn: str) -> dict[str, Any]:
    return {"turn_id": turn, "cwd": "/home/dev/shop", "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "network_access": False}, "model": model,
            "effort": effort, "summary": "auto"}


def chatgpt_tree() -> list[dict[str, Any]]:
    """Codex 0.10x signed in with ChatGPT: every tool kind, a rollback (a branch), a rename, a compaction."""
    c = Counts(LIMITS)
    u1, u2, u3, u4, u5 = (usage(9000, 0, 120, 64), usage(9400, 8960, 80, 0), usage(9800, 9344, 60, 0),
                          usage(10100, 9728, 40, 0), usage(10400, 0, 30, 0))
    u6, u7 = usage(3000, 0, 50, 10), usage(3200, 2944, 20, 0)
    return [
        line("2026-02-23T11:40:29.275Z", "session_meta", {
            "id": "019c8a4c-0000-7000-8000-000000000001", "timestamp": "2026-02-23T11:40:23.298Z",
            "cwd": "/home/dev/shop", "originator": "codex_cli_rs", "cli_version": "0.104.0", "source": "cli",
            "model_provider": "openai", "base_instructions": {"text": "You are Codex."},
            "git": {"branch": "main"}}),
        line("2026-02-23T11:40:29.277Z", "response_item", {"type": "message", "role": "developer", "content": [
            {"type": "input_text", "text": "<permissions instructions>workspace-write</permissions instructions>"}]}),
        line("2026-02-23T11:40:29.278Z", "response_item", user("# AGENTS.md instructions for /home/dev/shop\n\nBe brief.")),
        line("2026-02-23T11:40:29.278Z", "response_item", user("<environment_context>\n  <cwd>/home/dev/shop</cwd>\n</environment_context>")),
        line("2026-02-23T11:40:29.279Z", "event_msg", {"type": "task_started", "turn_id": "t1", "model_context_window": 258400}),
        line("2026-02-23T11:40:29.279Z", "response_item", user("Why does the cart test fail? Screenshot attached.", f"data:image/png;base64,{PNG}")),
        line("2026-02-23T11:40:29.279Z", "event_msg", {"type": "user_message", "message": "Why does the cart test fail? Screenshot attached.", "images": [f"data:image/png;base64,{PNG}"]}),
        line("2026-02-23T11:40:29.289Z", "turn_context", context("gpt-5.6-sol", "high", "t1")),
        line("2026-02-23T11:40:33.615Z", "event_msg", c.event(None)),
        line("2026-02-23T11:40:38.268Z", "event_msg", {"type": "agent_reasoning", "text": "**Running the tests**"}),
        line("2026-02-23T11:40:38.269Z", "response_item", reasoning("**Running the tests**", "gAAAAABsyntheticEncryptedReasoningOne==")),
        line("2026-02-23T11:40:42.096Z", "response_item", {"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\":\"pytest tests/test_cart.py -q\",\"workdir\":\"/home/dev/shop\"}", "call_id": "call_exec1"}),
        line("2026-02-23T11:40:42.097Z", "event_msg", c.event(u1)),
        line("2026-02-23T11:40:42.316Z", "response_item", {"type": "function_call_output", "call_id": "call_exec1", "output": "1 failed: test_total (expected 30, got 27)"}),
        line("2026-02-23T11:40:42.351Z", "turn_context", context("gpt-5.6-sol", "high", "t1")),
        line("2026-02-23T11:40:43.330Z", "event_msg", c.again(u1)),
        line("2026-02-23T11:40:45.164Z", "response_item", reasoning("**Fixing the rounding**", "gAAAAABsyntheticEncryptedReasoningTwo==")),
        line("2026-02-23T11:40:47.582Z", "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "The discount is rounded down; patching."}], "phase": "commentary"}),
        line("2026-02-23T11:40:47.600Z", "response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "call_patch1", "name": "apply_patch", "input": "*** Begin Patch\n*** Update File: cart.py\n@@\n-    return int(total)\n+    return round(total)\n*** End Patch\n"}),
        line("2026-02-23T11:40:47.627Z", "event_msg", c.event(u2)),
        line("2026-02-23T11:40:47.706Z", "response_item", {"type": "custom_tool_call_output", "call_id": "call_patch1", "output": "{\"output\":\"Success. Updated the following files:\\nM cart.py\\n\",\"metadata\":{\"exit_code\":0}}"}),
        line("2026-02-23T11:40:47.707Z", "event_msg", {"type": "patch_apply_end", "call_id": "call_patch1", "success": True}),
        line("2026-02-23T11:40:49.840Z", "response_item", {"type": "local_shell_call", "call_id": "call_shell1", "status": "completed", "action": {"type": "exec", "command": ["pytest", "-q"], "timeout_ms": 60000, "working_directory": None, "env": None, "user": None}}),
        line("2026-02-23T11:40:49.850Z", "response_item", {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "python round half even"}}),
        line("2026-02-23T11:40:52.531Z", "event_msg", c.event(u3)),
        line("2026-02-23T11:40:52.649Z", "response_item", {"type": "function_call_output", "call_id": "call_shell1", "output": {"content": "2 passed", "success": True}}),
        line("2026-02-23T11:40:58.440Z", "response_item", reasoning("", None)),
        line("2026-02-23T11:41:00.536Z", "response_item", said("Fixed: `cart.total` now rounds; the tests pass.")),
        line("2026-02-23T11:41:00.540Z", "event_msg", c.event(u4)),
        line("2026-02-23T11:41:00.541Z", "event_msg", {"type": "agent_message", "message": "Fixed: `cart.total` now rounds; the tests pass."}),
        line("2026-02-23T11:41:00.550Z", "event_msg", {"type": "task_complete", "turn_id": "t1", "last_agent_message": "Fixed."}),
        line("2026-02-23T11:41:05.000Z", "event_msg", {"type": "thread_name_updated", "thread_id": "019c8a4c-0000-7000-8000-000000000001", "thread_name": "Cart rounding fix"}),
        # a turn the user undid (Esc Esc): it stays on a branch of its own
        line("2026-02-23T11:42:00.000Z", "response_item", user("Also rename total to grand_total everywhere.")),
        line("2026-02-23T11:42:00.001Z", "event_msg", {"type": "user_message", "message": "Also rename total to grand_total everywhere."}),
        line("2026-02-23T11:42:00.010Z", "turn_context", context("gpt-5.6-sol", "high", "t2")),
        line("2026-02-23T11:42:03.000Z", "response_item", said("Renaming would break the public API; are you sure?")),
        line("2026-02-23T11:42:03.010Z", "event_msg", c.event(u5)),
        line("2026-02-23T11:42:10.000Z", "event_msg", {"type": "thread_rolled_back", "num_turns": 1}),
        line("2026-02-23T11:42:20.000Z", "response_item", user("Summarise the change for the changelog instead.")),
        line("2026-02-23T11:42:20.010Z", "turn_context", context("gpt-5.6-sol", "medium", "t3")),
        line("2026-02-23T11:42:22.000Z", "response_item", reasoning("**Writing the entry**", "gAAAAABsyntheticEncryptedReasoningThree==")),
        line("2026-02-23T11:42:23.000Z", "response_item", said("- Cart totals are rounded instead of truncated.")),
        line("2026-02-23T11:42:23.010Z", "event_msg", c.event(u6)),
        line("2026-02-23T11:43:00.000Z", "compacted", {"message": "The user fixed cart rounding (cart.py) and wrote a changelog entry.", "replacement_history": [user("Summarise the change for the changelog instead.")]}),
        line("2026-02-23T11:43:00.001Z", "event_msg", {"type": "context_compacted"}),
        line("2026-02-23T11:43:10.000Z", "response_item", user("Thanks. Commit it.")),
        line("2026-02-23T11:43:10.010Z", "turn_context", context("gpt-5.6-sol", "medium", "t4")),
        line("2026-02-23T11:43:12.000Z", "response_item", said("Committed as `fix: round cart totals`.")),
        line("2026-02-23T11:43:12.010Z", "event_msg", c.event(u7)),
    ]


def tokens_first() -> list[dict[str, Any]]:
    """Codex 0.6x with an API key: each token count comes just before the items of its response."""
    c = Counts(None)
    u1, u2 = usage(3559, 3072, 31, 0), usage(3648, 3072, 33, 0)
    return [
        line("2025-11-22T20:45:35.610Z", "session_meta", {"id": "019aad50-0000-7000-8000-000000000002", "timestamp": "2025-11-22T20:45:35.590Z", "cwd": "/home/dev/chess", "originator": "codex_cli_rs", "cli_version": "0.60.1", "instructions": None, "source": "cli", "model_provider": "openai"}),
        line("2025-11-22T20:48:36.901Z", "response_item", user("List the files.")),
        line("2025-11-22T20:48:36.901Z", "event_msg", {"type": "user_message", "message": "List the files.", "images": []}),
        line("2025-11-22T20:48:36.903Z", "turn_context", {"cwd": "/home/dev/chess", "approval_policy": "on-request", "model": "gpt-5.5", "effort": "low", "summary": "auto"}),
        line("2025-11-22T20:48:44.649Z", "event_msg", c.event(None)),
        line("2025-11-22T20:48:46.593Z", "event_msg", c.event(u1)),
        line("2025-11-22T20:48:46.593Z", "response_item", reasoning("**Listing**", "gAAAAABsyntheticFirst==")),
        line("2025-11-22T20:48:46.593Z", "response_item", {"type": "function_call", "name": "shell_command", "arguments": "{\"command\":\"ls\"}", "call_id": "call_ls"}),
        line("2025-11-22T20:48:46.600Z", "response_item", {"type": "function_call_output", "call_id": "call_ls", "output": "Exit code: 0\nOutput:\nboard.js\n"}),
        line("2025-11-22T20:48:46.601Z", "turn_context", {"cwd": "/home/dev/chess", "approval_policy": "on-request", "model": "gpt-5.5", "effort": "low", "summary": "auto"}),
        line("2025-11-22T20:48:47.310Z", "event_msg", c.again(u1)),
        line("2025-11-22T20:48:48.947Z", "event_msg", c.event(u2)),
        line("2025-11-22T20:48:48.949Z", "response_item", said("One file: board.js.")),
    ]


def remote_compaction() -> list[dict[str, Any]]:
    """Codex 0.10x signed in with ChatGPT compacting on OpenAI's servers: an empty message, the kept messages and
    the encrypted summary in `replacement_history`."""
    c = Counts(LIMITS)
    u1, u2 = usage(200000, 190000, 900, 300), usage(12000, 0, 40, 0)
    kept = [user("Port the parser to Rust."), said("Ported `parse.rs`; all 41 tests pass."),
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>x</permissions instructions>"}]},
            user("<environment_context>\n  <cwd>/home/dev/p</cwd>\n</environment_context>"),
            {"type": "compaction", "encrypted_content": "gAAAAABsyntheticCompaction=="}]
    return [
        line("2026-02-24T09:00:00.000Z", "session_meta", {"id": "019c8f00-0000-7000-8000-000000000005", "timestamp": "2026-02-24T09:00:00.000Z", "cwd": "/home/dev/p", "originator": "codex_cli_rs", "cli_version": "0.104.0", "source": "cli", "model_provider": "openai"}),
        line("2026-02-24T09:00:01.000Z", "response_item", user("Port the parser to Rust.")),
        line("2026-02-24T09:00:01.010Z", "turn_context", context("gpt-5.6-sol", "high", "t1")),
        line("2026-02-24T09:40:00.000Z", "response_item", said("Ported `parse.rs`; all 41 tests pass.")),
        line("2026-02-24T09:40:00.010Z", "event_msg", c.event(u1)),
        line("2026-02-24T09:51:48.878Z", "compacted", {"message": "", "replacement_history": kept}),
        line("2026-02-24T09:51:48.897Z", "event_msg", {"type": "context_compacted"}),
        line("2026-02-24T09:52:00.000Z", "response_item", user("Now add a benchmark.")),
        line("2026-02-24T09:52:00.010Z", "turn_context", context("gpt-5.6-sol", "high", "t2")),
        line("2026-02-24T09:52:30.000Z", "response_item", said("Added `benches/parse.rs`.")),
        line("2026-02-24T09:52:30.010Z", "event_msg", c.event(u2)),
    ]


def damaged() -> list[Any]:
    """A current rollout with the damage a crash or an editor leaves (the last line is cut by the writer)."""
    return [
        line("2026-03-01T09:00:00.000Z", "session_meta", {"id": "019c0000-0000-7000-8000-000000000003", "timestamp": "2026-03-01T09:00:00.000Z", "cwd": "/home/dev/x", "originator": "codex_cli_rs", "cli_version": "0.110.0", "model_provider": "openai"}),
        line("2026-03-01T09:00:01.000Z", "response_item", user("Run it.")),
        line("2026-03-01T09:00:01.010Z", "turn_context", {"cwd": "/home/dev/x", "model": "gpt-5.5", "effort": "medium"}),
        "{\"timestamp\":\"2026-03-01T09:00:02.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"mess",
        line("2026-03-01T09:00:03.000Z", "response_item", {"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\": \"make", "call_id": "call_bad"}),
        line("2026-03-01T09:00:03.100Z", "response_item", {"type": "tool_search_call", "call_id": "ts1", "execution": "server", "arguments": {"query": "make"}}),
        line("2026-03-01T09:00:03.200Z", "event_msg", {"type": "token_count", "info": {"total_token_usage": usage(500, 0, 20, 0), "last_token_usage": usage(500, 0, 20, 0)}, "rate_limits": None}),
        line("2026-03-01T09:00:04.000Z", "response_item", {"type": "function_call_output", "call_id": "call_bad", "output": "make: *** No rule to make target."}),
        line("2026-03-01T09:00:04.100Z", "response_item", {"type": "function_call_output", "call_id": "call_ghost", "output": "orphan output"}),
        line("2026-03-01T09:00:05.000Z", "world_state", {"files": 3}),
        line("2026-03-01T09:00:06.000Z", "response_item", said("There is no Makefile target.")),
        "{\"timestamp\":\"2026-03-01T09:00:06.100Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"token_co",
    ]


def bare() -> list[Any]:
    """The first Rust Codex CLI's layout (summer 2025): a bare metadata line, bare items, state markers."""
    return [
        {"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": "2025-07-20T10:00:00.000Z", "instructions": None, "git": {"branch": "main"}},
        {"record_type": "state"},
        user("<user_instructions>\nUse tabs.\n</user_instructions>"),
        user("<environment_context>\n  <cwd>/home/dev/gotool</cwd>\n</environment_context>"),
        user("What does main.go do?"),
        {"record_type": "state"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Reading main.go"}], "encrypted_content": None},
        {"type": "function_call", "id": "fc_1", "name": "shell", "arguments": "{\"command\":[\"cat\",\"main.go\"]}", "call_id": "call_cat"},
        {"type": "function_call_output", "call_id": "call_cat", "output": "{\"output\":\"package main\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"},
        {"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "It is an empty main package."}]},
        {"record_type": "state"},
    ]


def typescript() -> dict[str, Any]:
    """The TypeScript Codex CLI's rollout (spring 2025): one JSON document, items with their ids."""
    return {"session": {"timestamp": "2025-04-20T08:00:00.000Z", "id": "a0b1c2d3-0000-4000-8000-000000000004", "instructions": ""},
            "items": [
                {"id": "msg_u1", "type": "message", "role": "user", "content": [{"type": "input_text", "text": "Say hi."}]},
                {"id": "rs_a1", "type": "reasoning", "summary": []},
                {"id": "msg_a1", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]},
            ]}


def write_lines(name: str, records: list[Any], torn: bool = False) -> None:
    text = "\n".join(r if isinstance(r, str) else json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in records)
    (HERE / name).write_text(text if torn else text + "\n", encoding="utf-8")


def main() -> None:
    write_lines("rollout-chatgpt-tree.jsonl", chatgpt_tree())
    write_lines("rollout-tokens-first.jsonl", tokens_first())
    write_lines("rollout-damaged.jsonl", damaged(), torn=True)
    write_lines("rollout-remote-compaction.jsonl", remote_compaction())
    write_lines("rollout-bare.jsonl", bare())
    (HERE / "rollout-typescript.json").write_text(json.dumps(typescript(), indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""`--system-prompt pi` in render and preflight: the same prompt and tools as payload's, the same options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = json.loads((ROOT / "tests" / "data" / "pi_prompt" / "goldens.json").read_text(encoding="utf-8"))
SMALL = "fixtures/corpus/small.jsonl"  # header cwd /home/dev/app, answered by anthropic/claude-sonnet-4-5
RECORDED = "tests/data/requests16/gen16_new.jsonl"  # Pi 1.6 wrote it: system messages with prompt and tools


def _expected(version: str) -> tuple[str, list[Any]]:
    case = GOLDENS[version]["no-context-files"]
    return case["systemPrompt"].replace("@@ROOT@@/repo/src", "/home/dev/app"), case["tools"]


def test_render_shows_pis_prompt_and_says_so(cli: Any) -> None:
    run = cli("render", "--pi", "1.6", "--system-prompt", "pi", "--pi-install", "/opt/pi", SMALL, "-o", "-",
              "--format", "md")
    assert run.code == 0
    assert run.stderr.splitlines() == [
        f"pi-tools: {SMALL}: previewed for anthropic/claude-sonnet-4-5 (anthropic-messages), the session's current "
        "model; --api/--model choose others",
        f"pi-tools: {SMALL}: system prompt and tools: Pi 1.6's own, for the session header's cwd, no context files "
        "read (--cwd DIR reads a checkout's)"]
    prompt, _ = _expected("1.6")
    assert "- tools: read, bash, edit, write\n" in run.stdout
    assert "`Context.systemPrompt`:\n\n```json\n" + json.dumps(prompt, ensure_ascii=False) + "\n```" in run.stdout


def test_render_of_a_transcript_that_records_its_prompt_keeps_it(cli: Any) -> None:
    plain = cli("render", "--pi", "1.6", RECORDED, "-o", "-", "--format", "md")
    run = cli("render", "--pi", "1.6", "--system-prompt", "pi", RECORDED, "-o", "-", "--format", "md")
    assert run.code == 0
    assert run.stderr.splitlines()[1:] == [
        f"pi-tools: {RECORDED}: note: the session records its own system prompt and tools (system messages): sent "
        "as recorded, --system-prompt pi is not applied"]
    strip = [line for line in plain.stdout.splitlines() if "timestamp" not in line.lower()]
    assert [line for line in run.stdout.splitlines() if "timestamp" not in line.lower()] == strip


def test_preflight_checks_the_request_with_pis_prompt_and_tools(cli: Any, tmp_path: Path) -> None:
    prompt, tools = _expected("0.85")
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps(tools), encoding="utf-8")
    args = ["preflight", "--format", "json", "--model", "google/gemini-3-flash-preview",
            "fixtures/conformance/cases/c001_tools.jsonl"]
    own = cli(*args, "--system-prompt", "pi", "--pi-install", "/opt/pi")
    given = cli(*args, "--system-prompt", prompt, "--tools-file",
                str(tools_file))
    assert own.code == given.code == 1
    assert own.documents() == given.documents()
    assert [finding["rule"] for finding in own.documents()] == ["google-thought-signature"]


def test_preflight_counts_a_tools_file_given_beside_pis_prompt(cli: Any, tmp_path: Path) -> None:
    many = tmp_path / "many.json"
    many.write_text(json.dumps([{"name": f"t{i}", "description": "d", "parameters": {"type": "object"}}
                                for i in range(129)]), encoding="utf-8")
    run = cli("preflight", "--format", "json", "--model", "openai/gpt-5.1", "--system-prompt", "pi", "--tools-file",
              str(many), SMALL)
    assert run.code == 1
    assert [(f["rule"], f["payloadPath"]) for f in run.documents()] == [("openai-tool-count", "tools[128]")]
    assert cli("preflight", "--model", "openai/gpt-5.1", "--system-prompt", "pi", SMALL).code == 0


def test_preflight_replay_refuses_pis_prompt(cli: Any) -> None:
    run = cli("preflight", "--replay", "--system-prompt", "pi", SMALL)
    assert (run.code, run.stdout, run.stderr) == (
        2, "", "pi-tools: --system-prompt pi checks the next request; --replay checks the requests the session made "
               "with what they carried: leave one out\n")

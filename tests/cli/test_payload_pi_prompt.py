"""`payload --system-prompt pi`: the request carries Pi's own system prompt and default tools, rebuilt for the
session's working directory (issue 25, "What did my agent send?"); the options around it and their refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = json.loads((ROOT / "tests" / "data" / "pi_prompt" / "goldens.json").read_text(encoding="utf-8"))
SMALL = "fixtures/corpus/small.jsonl"  # header cwd /home/dev/app, answered by anthropic/claude-sonnet-4-5
RECORDED = "tests/data/requests16/gen16_new.jsonl"  # Pi 1.6 wrote it: system messages with prompt and tools
BUILT_FOR = (f"pi-tools: {SMALL}: built for anthropic/claude-sonnet-4-5 (anthropic-messages), the session's current "
             "model; --model chooses another\n")


def _lay_out(root: Path, case: dict[str, Any]) -> Path:
    for relative, content in case["files"].items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    cwd = root / case["cwd"]
    cwd.mkdir(parents=True, exist_ok=True)
    return cwd


def test_the_header_cwd_and_the_placeholder_install_without_options(cli: Any) -> None:
    run = cli("payload", "--system-prompt", "pi", SMALL)
    assert run.code == 0
    assert run.stderr == BUILT_FOR + (
        f"pi-tools: {SMALL}: system prompt and tools: Pi 0.85's own, for the session header's cwd, no context files "
        "read (--cwd DIR reads a checkout's); its docs named at <pi-install> (--pi-install DIR)\n")
    payload = run.documents()[0]["payload"]
    expected = GOLDENS["0.85"]["no-context-files"]
    prompt = (expected["systemPrompt"].replace("@@ROOT@@/repo/src", "/home/dev/app")
              .replace("/opt/pi/", "<pi-install>/").replace("/opt/pi ", "<pi-install> "))
    assert payload["system"] == [{"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}}]
    assert [(tool["name"], tool["description"]) for tool in payload["tools"]] == [
        (tool["name"], tool["description"]) for tool in expected["tools"]]
    assert payload["tools"][0]["input_schema"] == {
        "type": "object", "properties": expected["tools"][0]["parameters"]["properties"], "required": ["path"]}


def test_a_checkout_given_with_cwd_puts_its_context_files_in(cli: Any, tmp_path: Path) -> None:
    for version in ("0.85", "1.6"):
        case = GOLDENS[version]["walk-up"]
        root = (tmp_path / version).resolve()
        cwd = _lay_out(root, case)
        run = cli("payload", "--pi", version, "--system-prompt", "pi", "--cwd", str(cwd), "--pi-install",
                  case["install"], "--api", "openai-completions", "--model", "groq/openai/gpt-oss-120b", SMALL)
        assert run.code == 0
        assert run.stderr == (f"pi-tools: {SMALL}: system prompt and tools: Pi {version}'s own, for --cwd {cwd}, its "
                              "context files read\n")
        payload = run.documents()[0]["payload"]
        assert payload["messages"][0]["content"] == case["systemPrompt"].replace("@@ROOT@@", str(root))
        assert [tool["function"]["name"] for tool in payload["tools"]] == ["read", "bash", "edit", "write"]


def test_a_tools_file_replaces_pis_tools_only(cli: Any, tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text('[{"name": "ping", "description": "Ping", "parameters": {"type": "object"}}]', encoding="utf-8")
    run = cli("payload", "--system-prompt", "pi", "--tools-file", str(tools), SMALL)
    payload = run.documents()[0]["payload"]
    assert [tool["name"] for tool in payload["tools"]] == ["ping"]
    assert payload["system"][0]["text"].endswith("\nCurrent working directory: /home/dev/app")


def test_a_pi_16_session_that_records_its_prompt_keeps_it(cli: Any) -> None:
    plain = cli("payload", "--pi", "1.6", RECORDED)
    run = cli("payload", "--pi", "1.6", "--system-prompt", "pi", RECORDED)
    assert (run.code, run.stdout) == (0, plain.stdout)
    assert run.stderr.splitlines()[1:] == [
        f"pi-tools: {RECORDED}: note: the session records its own system prompt and tools (system messages): sent "
        "as recorded, --system-prompt pi is not applied"]


def test_a_pi_16_request_from_a_session_without_system_messages_takes_pi_16s_prompt(cli: Any) -> None:
    run = cli("payload", "--pi", "1.6", "--system-prompt", "pi", "--pi-install", "/opt/pi", SMALL)
    assert run.code == 0
    text = run.documents()[0]["payload"]["system"][0]["text"]
    expected = GOLDENS["1.6"]["no-context-files"]["systemPrompt"].replace("@@ROOT@@/repo/src", "/home/dev/app")
    assert text == expected


def test_the_old_tools_name_still_works_and_not_with_the_new_one(cli: Any, tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text('[{"name": "ping", "description": "Ping", "parameters": {"type": "object"}}]', encoding="utf-8")
    old = cli("payload", "--tools", str(tools), SMALL)
    new = cli("payload", "--tools-file", str(tools), SMALL)
    assert (old.code, old.stdout) == (0, new.stdout)
    both = cli("payload", "--tools", str(tools), "--tools-file", str(tools), SMALL)
    assert (both.code, both.stdout, both.stderr) == (
        2, "", "pi-tools: --tools is the old name of --tools-file: give one of them\n")
    missing = cli("payload", "--tools-file", str(tmp_path / "none.json"), SMALL)
    assert (missing.code, missing.stderr) == (
        2, f"pi-tools: --tools-file {tmp_path / 'none.json'}: cannot read: No such file or directory\n")


def test_cwd_and_pi_install_go_with_the_pi_prompt(cli: Any, tmp_path: Path) -> None:
    for option, value in (("--cwd", str(tmp_path)), ("--pi-install", "/opt/pi")):
        run = cli("payload", "--system-prompt", "Be brief.", option, value, SMALL)
        assert (run.code, run.stdout, run.stderr) == (
            2, "", f"pi-tools: {option} goes with --system-prompt pi (it says where Pi's own prompt is rebuilt "
                   "from)\n")
    not_a_folder = cli("payload", "--system-prompt", "pi", "--cwd", str(tmp_path / "gone"), SMALL)
    assert (not_a_folder.code, not_a_folder.stderr) == (2, f"pi-tools: --cwd {tmp_path / 'gone'}: not a folder\n")


def test_a_session_without_cwd_is_an_error_naming_the_option(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    lines = (ROOT / SMALL).read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    del header["cwd"]
    session.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    run = cli("payload", "--system-prompt", "pi", str(session))
    assert run.code == 2
    assert run.documents() == [{"kind": "error", "source": str(session), "pi": "0.85",
                                "error": "--system-prompt pi: the session header records no cwd; pass --cwd DIR"}]

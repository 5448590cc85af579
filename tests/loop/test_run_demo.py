"""`pi-tools run` for a newcomer: no script is a usage error naming what is needed, `--demo` plays the bundled
faux script, and faux runs never write into the user's Pi folder unless --in-pi-folder asks (HOME and
PI_CODING_AGENT_DIR point into tmp_path, so a stray write would show up there)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tools.cli.run import NEEDS_SCRIPT
from pi_tools.loop.demo import DEMO_FILES, DEMO_PROMPT, demo_script

from support.clihelp import run_cli

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def _home(tmp_path: Path) -> tuple[dict[str, str], Path]:
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home), "PI_CODING_AGENT_DIR": "", **EPOCH}, home


def _all_files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _session_of(stdout: str) -> Path:
    last = stdout.splitlines()[-1]
    assert last.startswith("session: "), stdout
    return Path(last.removeprefix("session: "))


def test_no_arguments_says_what_run_needs(tmp_path: Path) -> None:
    env, home = _home(tmp_path)
    result = run_cli("run", env=env, cwd=tmp_path)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (
        "pi-tools: run: --provider faux (the default) plays scripted answers and needs --faux-script FILE "
        "(docs/run.md); `pi-tools run --demo` plays a bundled one, and --provider PROVIDER --model ID runs a real "
        "model\n")
    assert result.stderr == f"pi-tools: {NEEDS_SCRIPT}\n"
    assert run_cli("run", "hello", env=env, cwd=tmp_path).stderr == result.stderr
    assert _all_files(home) == []


def test_a_script_without_a_prompt_is_a_usage_error(tmp_path: Path) -> None:
    env, home = _home(tmp_path)
    result = run_cli("run", "--faux-script", demo_script(), env=env, cwd=tmp_path)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == ("pi-tools: nothing to do: give a PROMPT (or --session FILE whose last message awaits "
                             "an answer)\n")
    assert _all_files(home) == []


def test_demo_plays_the_bundled_script_in_its_own_temporary_folder(tmp_path: Path) -> None:
    env, home = _home(tmp_path)
    result = run_cli("run", "--demo", env=env, cwd=tmp_path)
    assert (result.code, result.stderr) == (0, ""), result.stderr
    session = _session_of(result.stdout)
    try:
        assert result.stdout == (
            f"user: {DEMO_PROMPT}\n"
            "assistant: Let me read the note in the workspace.\n"
            '→ read {"path":"notes.txt"}\n'
            "← read: bread\n  milk\n  coffee\n"
            "assistant: It is a shopping list: bread, milk and coffee. Anything else I should look at?\n"
            f"session: {session}\n")
        root = session.parent.parent
        assert root.name.startswith("pi-tools-demo-") and session.parent.name == "sessions"
        assert (root / "workspace" / "notes.txt").read_text() == DEMO_FILES["notes.txt"]
        entries = [json.loads(line) for line in session.read_text().splitlines()]
        assert [e["type"] for e in entries] == ["session", "model_change", "thinking_level_change", "message",
                                                "message", "message", "message"]
        assert [e["message"]["role"] for e in entries if e["type"] == "message"] == [
            "user", "assistant", "toolResult", "assistant"]
        assert entries[0]["cwd"] == str((root / "workspace").resolve())
        check = run_cli("audit", str(session))
        assert (check.code, check.stdout) == (0, "1 file(s): 0 error(s), 0 warning(s), 0 info; 1 clean\n")
    finally:
        import shutil

        shutil.rmtree(session.parent.parent)
    assert _all_files(home) == [] and _all_files(tmp_path) == ["home"]


def test_demo_takes_none_of_the_options_it_sets(tmp_path: Path) -> None:
    env, _ = _home(tmp_path)
    result = run_cli("run", "--demo", "--cwd", str(tmp_path), "hi", env=env)
    assert (result.code, result.stderr) == (2, "pi-tools: --demo brings its own prompt, script, workspace and "
                                               "session folder: drop PROMPT, --cwd\n")


def _faux_run(tmp_path: Path, env: dict[str, str], *extra: str) -> Any:
    workspace = tmp_path / "work"
    workspace.mkdir(exist_ok=True)
    script = tmp_path / "script.json"
    script.write_text('{"responses": [{"content": "hi there"}]}')
    return run_cli("run", "--faux-script", str(script), "--cwd", str(workspace), "--tools", "none", *extra, "hello",
                   env=env)


def test_a_faux_run_writes_to_a_temporary_folder_not_pis(tmp_path: Path) -> None:
    env, home = _home(tmp_path)
    result = _faux_run(tmp_path, env)
    assert (result.code, result.stderr) == (0, ""), result.stderr
    session = _session_of(result.stdout)
    try:
        assert result.stdout == f"user: hello\nassistant: hi there\nsession: {session}\n"
        assert session.parent.name.startswith("pi-tools-run-") and session.is_file()
        assert not session.is_relative_to(tmp_path)
    finally:
        session.unlink()
        session.parent.rmdir()
    assert _all_files(home) == []


def test_in_pi_folder_asks_for_pis_folder(tmp_path: Path) -> None:
    env, home = _home(tmp_path)
    result = _faux_run(tmp_path, env, "--in-pi-folder")
    assert (result.code, result.stderr) == (0, ""), result.stderr
    work = str((tmp_path / "work").resolve()).lstrip("/").replace("/", "-")
    [session] = (home / ".pi" / "agent" / "sessions" / f"--{work}--").iterdir()
    assert result.stdout == f"user: hello\nassistant: hi there\nsession: {session}\n"
    refused = _faux_run(tmp_path, env, "--in-pi-folder", "--session-dir", str(tmp_path / "s"))
    assert (refused.code, refused.stderr) == (2, "pi-tools: --in-pi-folder: only for a new faux session (without "
                                                 "--session or --session-dir); other providers write to Pi's folder "
                                                 "by default\n")

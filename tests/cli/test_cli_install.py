"""What an installed CLI is expected to have: packaged templates (and an honest error without them), --version,
shell completion, and Pi's own session folder when `usage`, `ls` or `audit` get no PATH.

The wheel itself, installed outside the clone, is exercised by scripts/check_wheel.py (run by .ci/run).
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_tools.output.templates import MissingTemplateError, template_source
from pi_tools.session.agentdir import agent_dir, sessions_dir

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "fixtures" / "conformance" / "cases" / "c002_branching.jsonl"
SCRIPT = Path(sys.executable).parent / "pi-tools"


def test_templates_come_from_the_package() -> None:
    for template in sorted((ROOT / "templates").glob("*.j2")):
        text, filename = template_source(template.name)
        assert text == template.read_text(encoding="utf-8")
        assert filename is not None and Path(filename).resolve() == template.resolve()


def _empty_template_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A template package without templates (a new name each time: imported packages stay in sys.modules)."""
    name = f"broken_templates_{len(sys.modules)}_{os.getpid()}"
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("pi_tools.output.templates.TEMPLATE_PACKAGE", name)
    return package


def _missing(name: str, package: Path) -> str:
    return (f"template {name} is missing from this installation (looked in {package}): pi-tools is not installed "
            "completely; reinstall it (pip install --force-reinstall pi-tools)")


def test_a_missing_template_is_a_broken_install_not_a_write_failure(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pi_tools.cli.render import render_command
    from pi_tools.render.environment import render_environment

    package = _empty_template_package(monkeypatch, tmp_path)
    render_environment.cache_clear()  # a template compiled by an earlier test would be reused
    try:
        with pytest.raises(SystemExit) as exited:
            render_command([str(SESSION)], str(tmp_path / "out.md"), api=["anthropic-messages"])
    finally:
        render_environment.cache_clear()
    assert exited.value.code == 2
    assert capsys.readouterr().err == f"pi-tools: {_missing('render.md.j2', package)}\n"
    assert not (tmp_path / "out.md").exists()


def test_the_usage_chart_names_its_missing_template(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import polars as pl

    from pi_tools.usage.chart import render_chart

    package = _empty_template_package(monkeypatch, tmp_path)
    with pytest.raises(MissingTemplateError) as caught:
        render_chart(pl.DataFrame(), "day")
    assert str(caught.value) == _missing("usage_chart.html.j2", package)


def test_version_is_the_package_metadata(cli: Any) -> None:
    result = cli("--version")
    assert (result.code, result.stderr) == (0, "")
    first, *pi_lines = result.stdout.splitlines()
    assert first == f"pi-tools {importlib.metadata.version('pi-tools')}"
    assert pi_lines[0].startswith("reproduces Pi 0.85 (pi-coding-agent 0.85.0")
    assert pi_lines[1].startswith("reproduces Pi 1.6 (")
    assert pi_lines[-1].startswith("default: Pi ")


@pytest.mark.skipif(not SCRIPT.exists(), reason="needs the installed pi-tools script")
def test_shell_completion() -> None:
    """typer's completion: the script for bash, and what the shell gets back while completing."""
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    shown = subprocess.run([str(SCRIPT), "--show-completion", "bash"], capture_output=True, text=True, env=env)
    assert shown.returncode == 0
    assert "complete -o default -F _pi_tools_completion pi-tools" in shown.stdout
    assert "_PI_TOOLS_COMPLETE=complete_bash" in shown.stdout
    completing = {**os.environ, "_PI_TOOLS_COMPLETE": "complete_bash", "COMP_WORDS": "pi-tools us", "COMP_CWORD": "1"}
    commands = subprocess.run([str(SCRIPT)], capture_output=True, text=True, env=completing)
    assert (commands.returncode, commands.stdout) == (0, "usage\n")
    completing.update(COMP_WORDS="pi-tools decode --ev", COMP_CWORD="2")
    options = subprocess.run([str(SCRIPT)], capture_output=True, text=True, env=completing)
    assert (options.returncode, options.stdout) == (0, "--events\n")


# -- Pi's session folder --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("env", "expected"), [
    ({"PI_CODING_AGENT_DIR": "/srv/agent", "HOME": "/home/u"}, "/srv/agent"),
    ({"PI_CODING_AGENT_DIR": "", "HOME": "/home/u"}, "/home/u/.pi/agent"),  # empty counts as unset, as in Pi
    ({"HOME": "/home/u"}, "/home/u/.pi/agent"),
    ({"PI_CODING_AGENT_DIR": "~", "HOME": "/home/u"}, "/home/u"),
    ({"PI_CODING_AGENT_DIR": "~/cfg//agent/", "HOME": "/home/u"}, "/home/u/cfg/agent"),
    ({"PI_CODING_AGENT_DIR": "~other/agent", "HOME": "/home/u"}, "~other/agent"),  # Pi expands only ~ and ~/
    ({"PI_CODING_AGENT_DIR": "file:///srv/my%20agent", "HOME": "/home/u"}, "/srv/my agent"),
    ({"PI_CODING_AGENT_DIR": "rel/agent", "HOME": "/home/u"}, "rel/agent"),
])
def test_agent_dir_as_pi_resolves_it(env: dict[str, str], expected: str) -> None:
    assert agent_dir(env) == expected
    assert sessions_dir(env) == os.path.normpath(os.path.join(expected, "sessions"))


def _agent_folder(tmp_path: Path) -> Path:
    project = tmp_path / "agent" / "sessions" / "--home-u-project--"
    project.mkdir(parents=True)
    shutil.copy(SESSION, project / "2026-06-28T02-58-01-000Z_019f0c21.jsonl")
    return tmp_path / "agent"


@pytest.mark.parametrize("command", [["ls", "--format", "json"], ["usage", "--format", "json"],
                                     ["audit", "--format", "json"]])
def test_without_a_path_pi_s_session_folder_is_read(cli: Any, tmp_path: Path, command: list[str]) -> None:
    agent = _agent_folder(tmp_path)
    folder = agent / "sessions"
    named = cli(*command, str(folder))
    by_variable = cli(*command, env={"PI_CODING_AGENT_DIR": str(agent)})
    assert by_variable.code == named.code
    assert by_variable.stdout == named.stdout and len(named.stdout) > 200  # the session was read
    assert by_variable.stderr == f"pi-tools: no PATH given: reading Pi's session folder {folder}\n" + named.stderr
    home = tmp_path / "home"
    (home / ".pi").mkdir(parents=True)
    shutil.copytree(agent, home / ".pi" / "agent")
    by_home = cli(*command, env={"PI_CODING_AGENT_DIR": "", "HOME": str(home)})
    assert by_home.stdout == cli(*command, str(home / ".pi" / "agent" / "sessions")).stdout
    assert by_home.stderr.startswith(f"pi-tools: no PATH given: reading Pi's session folder {home}/.pi/agent/sessions\n")
    tilde = cli(*command, env={"PI_CODING_AGENT_DIR": "~/.pi/agent", "HOME": str(home)})
    assert tilde.stdout == by_home.stdout and tilde.stderr == by_home.stderr


@pytest.mark.parametrize("command", [["ls"], ["usage"], ["audit"]])
def test_a_missing_session_folder_is_a_clear_error(cli: Any, tmp_path: Path, command: list[str]) -> None:
    result = cli(*command, env={"PI_CODING_AGENT_DIR": str(tmp_path / "agent")})
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (f"pi-tools: no PATH given, and Pi's session folder {tmp_path}/agent/sessions does not "
                             "exist ($PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions): name session files "
                             "or folders\n")
    (tmp_path / "agent2").mkdir()
    (tmp_path / "agent2" / "sessions").write_text("not a folder")
    not_folder = cli(*command, env={"PI_CODING_AGENT_DIR": str(tmp_path / "agent2")})
    assert not_folder.code == 2 and f"{tmp_path}/agent2/sessions is not a folder" in not_folder.stderr

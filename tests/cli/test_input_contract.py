"""One input contract for every command (issue 25, group 2): a command that reads sessions takes them the same way.

The commands are found by walking the typer app, so a new command is checked (or must be listed as taking no
sessions) the day it is added:
- PATH... commands take session files, folders (the *.jsonl files below them, recursively) and, when no PATH is
  given, Pi's session folder ($HOME/.pi/agent/sessions here) or, for the document stages, stdin (`-` too);
- FILE commands take one session file, and refuse a folder in the same words;
- everywhere, a file that is not a session is an error naming it, exit 2; so is a folder without sessions.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import typer.main
from conftest import ROOT, CliResult, run_cli

from pi_tools.cli.app import app

SESSION = ROOT / "tests/data/audit/clean.jsonl"
NOT_A_SESSION = "pi-tools: Session file is not a valid pi session: notes.jsonl"
"""Pi's own words for a file whose first line is not a session header, which most commands give."""
NOT_A_SESSION_OWN_WORDS = {
    # The corpus reader (index, search) reads every line leniently and says what it found instead.
    "index": "pi-tools: notes.jsonl:1: not a pi session: no line holds a JSON value Pi keeps",
    "search": "pi-tools: notes.jsonl: not a pi session: no line holds a JSON value Pi keeps (no session header)",
    # usage's scan checks the header with the corpus reader's words (session/header_check.py).
    "usage": "pi-tools: notes.jsonl: not a pi session: no line holds a JSON value Pi keeps (no session header)",
    # repair exists to mend headers: it says which option would.
    "repair": "pi-tools: notes.jsonl: no line holds a valid session header; nothing to repair into a session "
              "(--header builds one)",
}

# What each command needs besides its sessions to run at all (an output, an API, a pattern).
EXTRA: dict[str, list[str]] = {
    "payload": ["--api", "anthropic-messages"],
    "render": ["--api", "anthropic-messages", "-o", "-"],
    "export": ["-o", "-"],
    "search": ["read"],
    "scrub": ["--check"],
    "index": ["-o", "{tmp}/index"],
    "repair": ["--dry-run"],
    "slim": ["--drop-branches", "--dry-run"],
    "import": ["-o", "{tmp}/imported"],
}
STDIN_STAGES = {"context", "convert", "transform", "payload"}
"""The document stages: without PATH (or with `-`) they read a session or documents from stdin."""
NO_SESSIONS = {"models", "run", "decode"}
"""Commands that read no session files (run writes one; decode reads a captured HTTP response)."""
OTHER_AGENTS = {"import"}
"""Commands that read other agents' sessions (Claude Code, Codex), not Pi's: their default folders are those
agents', and a Pi session is what they refuse; a missing file and a folder without *.jsonl read as everywhere."""


def _kinds() -> dict[str, str]:
    """Each command's input kind, read from its click command: PATH... or FILE (or none)."""
    group = typer.main.get_command(app)
    kinds = {}
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        metavars = [param.metavar for param in command.params if param.param_type_name == "argument"]
        kinds[name] = "paths" if "PATH..." in metavars else "file" if "FILE" in metavars else "none"
    return kinds


KINDS = _kinds()
PATH_COMMANDS = sorted(name for name, kind in KINDS.items() if kind == "paths" and name not in OTHER_AGENTS)
FILE_COMMANDS = sorted(name for name, kind in KINDS.items() if kind == "file" and name not in NO_SESSIONS)


def test_every_command_is_classified() -> None:
    assert set(PATH_COMMANDS) == {"audit", "context", "convert", "export", "index", "ls", "payload", "preflight",
                                  "render", "scrub", "search", "transform", "usage", "visibility"}
    assert FILE_COMMANDS == ["repair", "slim", "tree"]
    assert {name for name, kind in KINDS.items() if name in OTHER_AGENTS} == {"import"}
    assert KINDS["import"] == "paths"
    assert {name for name, kind in KINDS.items() if kind == "none"} | {"decode"} == NO_SESSIONS


def test_every_usage_line_names_sessions_alike() -> None:
    """One name per argument kind: `[PATH...]` or `{FILE}`, never `[files]...`, `{FILE...}` or `[paths]...`."""
    for name, kind in KINDS.items():
        usage = run_cli(name, "--help").stdout.splitlines()[0]
        expected = {"paths": "[PATH...]", "file": "{FILE}"}.get(kind)
        if expected is not None:
            assert expected in usage, usage
        for old in ("[files]", "{files}", "[paths]", "{FILE...}", "{file}", "[directory]"):
            assert old not in usage, usage


def _run(command: str, *paths: str, home: Path, stdin: bytes | None = None) -> CliResult:
    extra = [part.replace("{tmp}", str(home)) for part in EXTRA.get(command, [])]
    if command == "search":
        args = [command, *extra, *paths]
    else:
        args = [command, *paths, *extra]
    return run_cli(*args, stdin=stdin, cwd=home, env={"HOME": str(home), "PI_CODING_AGENT_DIR": ""})


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home whose Pi agent folder holds one session, and a project folder holding the same file below it."""
    sessions = tmp_path / ".pi/agent/sessions/--home-dev-proj--"
    sessions.mkdir(parents=True)
    shutil.copy(SESSION, sessions / "s.jsonl")
    (tmp_path / "folder/sub").mkdir(parents=True)
    shutil.copy(SESSION, tmp_path / "folder/sub/s.jsonl")
    (tmp_path / "folder/notes.txt").write_text("not a session and not *.jsonl\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.jsonl").write_text("hello\n")
    return tmp_path


def _same(left: CliResult, right: CliResult, home: Path) -> None:
    """The same exit status and output (an HTML page's per-page CSP nonce aside)."""
    assert left.code == right.code, (left, right)
    assert left.code in (0, 1), left.stderr
    nonce = re.compile(r"nonce(-|=\")[A-Za-z0-9_-]+")
    assert nonce.sub("nonce", left.stdout) == nonce.sub("nonce", right.stdout)


@pytest.mark.parametrize("command", PATH_COMMANDS)
def test_a_folder_reads_the_sessions_below_it(command: str, home: Path) -> None:
    by_file = _run(command, "folder/sub/s.jsonl", home=home)
    by_folder = _run(command, "folder", home=home)
    _same(by_file, by_folder, home)
    assert by_file.stdout.strip() or command in ("index",), by_file


@pytest.mark.parametrize("command", sorted(set(PATH_COMMANDS) - STDIN_STAGES))
def test_no_path_reads_pi_s_session_folder(command: str, home: Path) -> None:
    folder = home / ".pi/agent/sessions"
    by_default = _run(command, home=home)
    assert f"pi-tools: no PATH given: reading Pi's session folder {folder}\n" in by_default.stderr
    by_name = _run(command, str(folder), home=home)
    _same(by_default, by_name, home)


@pytest.mark.parametrize("command", sorted(STDIN_STAGES))
def test_a_document_stage_reads_stdin_without_path_or_with_dash(command: str, home: Path) -> None:
    data = SESSION.read_bytes()
    piped = _run(command, home=home, stdin=data)
    dashed = _run(command, "-", home=home, stdin=data)
    assert piped.code == dashed.code == 0, piped.stderr
    assert piped.stdout == dashed.stdout
    assert '"source":"<stdin>"' in piped.stdout
    mixed = _run(command, "-", "folder", home=home, stdin=data)
    assert (mixed.code, mixed.stderr) == (2, "pi-tools: -: stdin cannot be read beside session files; pipe it alone\n")


@pytest.mark.parametrize("command", sorted(set(PATH_COMMANDS + FILE_COMMANDS) - {"audit"}))
def test_a_file_that_is_not_a_session_is_exit_2(command: str, home: Path) -> None:
    result = _run(command, "notes.jsonl", home=home)
    assert result.code == 2, (result.stdout, result.stderr)
    assert result.stderr.splitlines()[0] == NOT_A_SESSION_OWN_WORDS.get(command, NOT_A_SESSION)


def test_audit_reports_a_file_that_is_not_a_session_as_its_finding(home: Path) -> None:
    """audit's job is to say what is wrong with a file: a missing header is its finding invalid-header (exit 1,
    --fail-on error), named with the file like every other finding, not an unreadable input."""
    result = _run("audit", "notes.jsonl", home=home)
    assert result.code == 1
    assert result.stdout.splitlines()[1].split()[:3] == ["-", "error", "invalid-header"]


@pytest.mark.parametrize("command", sorted(PATH_COMMANDS + list(OTHER_AGENTS)))
def test_a_folder_without_sessions_is_exit_2(command: str, home: Path) -> None:
    result = _run(command, "empty", home=home)
    assert (result.code, result.stderr) == (2, "pi-tools: empty: no session files (*.jsonl) under this directory\n")


@pytest.mark.parametrize("command", PATH_COMMANDS + FILE_COMMANDS + sorted(OTHER_AGENTS))
def test_a_missing_file_is_exit_2(command: str, home: Path) -> None:
    result = _run(command, "gone.jsonl", home=home)
    assert result.code == 2, (result.stdout, result.stderr)
    assert result.stderr.splitlines()[0] == "pi-tools: gone.jsonl: no such file"


@pytest.mark.parametrize("command", FILE_COMMANDS)
def test_a_one_file_command_refuses_a_folder(command: str, home: Path) -> None:
    result = _run(command, "folder", home=home)
    assert (result.code, result.stderr) == (2, "pi-tools: folder: is a directory, not a session file\n")

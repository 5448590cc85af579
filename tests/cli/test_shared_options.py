"""The options many commands share (pi_tools.cli.options): declared once, each command with its own values, listed
in --help, refused in the command's own words (exit 2), and --api without paying for plug-in lookups at start-up."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
import typer

from pi_tools.cli import options
from pi_tools.cli.choices import ApiChoice, Choice

ROOT = Path(__file__).resolve().parents[2]
CLEAN = "tests/data/audit/clean.jsonl"
BUILTIN = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai",
           "google-vertex", "mistral-conversations", "bedrock-converse-stream", "azure-openai-responses",
           "openai-codex-responses", "pi-messages"]
STREAMING = [name for name in BUILTIN if name not in ("azure-openai-responses", "openai-codex-responses")]
"""The APIs with a stream decoder (`decode --api`)."""

# command (with what it needs before --format), the choices its --help lists, the message for --format xml.
FORMATS: list[tuple[list[str], str, str]] = [
    (["audit", CLEAN], "table|json|junit|sarif", "--format: expected one of table, json, junit, sarif, got 'xml'"),
    (["preflight", CLEAN], "table|json|junit|sarif",
     "--format: expected one of table, json, junit, sarif, got 'xml'"),
    (["usage", CLEAN], "table|json|csv|parquet", "--format 'xml': expected table, json, csv or parquet"),
    (["export", CLEAN, "-o", "-"], "md|html|chat", "--format: unknown format 'xml' (choose from md, html, chat)"),
    (["render", CLEAN, "-o", "-"], "html|md", "--format: unknown format 'xml' (choose from html, md)"),
    (["visibility", CLEAN], "table|json", "--format 'xml': expected table or json"),
    (["ls", "tests/data/audit"], "table|json", "--format must be table or json, not 'xml'"),
    (["models"], "table|json", "--format must be table or json, not 'xml'"),
    (["search", "x", CLEAN], "table|json", "--format: expected one of table, json, got 'xml'"),
    (["repair", CLEAN, "--dry-run"], "text|json", "--format: unknown format 'xml' (choose from text, json)"),
    (["scrub", CLEAN, "--check"], "text|json", "--format: unknown format 'xml' (choose from text, json)"),
    (["slim", CLEAN, "--dry-run"], "text|json", "--format: unknown format 'xml' (choose from text, json)"),
    (["transform", CLEAN, "--to-session", "out.jsonl"], "text|json",
     "--format: unknown format 'xml' (choose from text, json)"),
    (["run", "hello"], "pi|chat", "--format: unknown event format 'xml' (choose from pi, chat)"),
]


@pytest.mark.parametrize(("args", "choices", "message"), FORMATS, ids=[case[0][0] for case in FORMATS])
def test_format_lists_the_commands_own_choices_and_refuses_others(cli: Any, args: list[str], choices: str,
                                                                   message: str) -> None:
    shown = cli(args[0], "--help")
    assert shown.code == 0 and f"--format [{choices}]" in shown.stdout
    refused = cli(*args, "--format", "xml")
    assert (refused.code, refused.stdout, refused.stderr) == (2, "", f"pi-tools: {message}\n")


@pytest.mark.parametrize(("args", "message"), [
    (["audit", CLEAN, "--fail-on", "info"], "--fail-on: expected error or warning, got 'info'"),
    (["preflight", CLEAN, "--fail-on", "info"], "--fail-on: expected error or warning, got 'info'"),
    (["preflight", CLEAN, "--replay", "--format", "junit"], "--format: expected one of table, json, got 'junit'"),
    (["usage", CLEAN, "--by", "year"],
     "--by 'year': expected one of session, day, week, month, model, provider, api, kind"),
    (["usage", CLEAN, "--scope", "some"], "--scope 'some': expected all or active"),
    (["usage", CLEAN, "--cost", "free"], "--cost 'free': expected auto, stored or recomputed"),
    (["export", CLEAN, "-o", "-", "--branches", "some"], "--branches: unknown value 'some' (choose from active, all)"),
    (["export", CLEAN, "-o", "-", "--only", "tool"], "--only: unknown value 'tool' (choose from user, assistant)"),
    (["search", "x", CLEAN, "--branch", "some"], "--branch: expected one of all, active, got 'some'"),
    (["visibility", CLEAN, "--api", "nope"], f"--api 'nope': expected one of {', '.join(BUILTIN)}"),
    (["payload", "--api", "nope", CLEAN], f"--api: unknown API 'nope' (choose from {', '.join(BUILTIN)})"),
    (["render", CLEAN, "-o", "-", "--api", "nope"], f"--api: unknown API 'nope' (choose from {', '.join(BUILTIN)})"),
    (["decode", "--api", "azure-openai-responses", CLEAN],
     f"--api: unknown API 'azure-openai-responses' (choose from {', '.join(STREAMING)})"),
    (["decode", "--api", "openai-codex-responses", CLEAN],
     f"--api: unknown API 'openai-codex-responses' (choose from {', '.join(STREAMING)})"),
])
def test_other_choices_are_refused_in_the_commands_words(cli: Any, args: list[str], message: str) -> None:
    refused = cli(*args)
    assert (refused.code, refused.stdout, refused.stderr) == (2, "", f"pi-tools: {message}\n")


@pytest.mark.parametrize(("command", "names"), [
    ("payload", BUILTIN), ("render", BUILTIN), ("visibility", BUILTIN),
    ("decode", STREAMING),  # Azure and Codex have no stream decoder
])
def test_api_lists_the_builtin_apis_in_table_order(cli: Any, command: str, names: list[str]) -> None:
    from pi_tools.providers.table import BUILTIN_APIS

    assert [row.name for row in BUILTIN_APIS] == BUILTIN
    shown = cli(command, "--help")
    assert shown.code == 0 and f"--api [{'|'.join(names)}]" in shown.stdout


def test_help_reads_no_plugin_apis() -> None:
    """Entry points cost tens of milliseconds: neither --help nor a command's help may read them."""
    probe = (
        "import contextlib, io, sys\n"
        "sys.argv = ['pi-tools', 'payload', '--help']\n"
        "from pi_tools.cli.app import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0\n"
        "assert '--api [anthropic-messages|' in out.getvalue()\n"
        "table = sys.modules['pi_tools.providers.table']\n"
        "print(table._rows is None, 'importlib.metadata' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (done.returncode, done.stdout) == (0, "True False\n"), done.stderr


def test_a_plugin_api_is_accepted_but_not_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_tools.providers import table

    rows = (*table.BUILTIN_APIS, table.ApiRow("toy", "toy_api", "messages", None, "A toy"),
            table.ApiRow("mute", "mute_api", "messages", None, "No decoder", streams=False))
    monkeypatch.setattr(table, "_rows", rows)
    choice = ApiChoice("--api", options.REFUSAL_UNKNOWN_API)
    assert choice.convert("toy", None, None) == "toy"
    assert list(choice.listed()) == BUILTIN and list(choice.every()) == [*BUILTIN, "toy", "mute"]
    streaming = ApiChoice("--api", options.REFUSAL_UNKNOWN_API, streaming=True)
    assert streaming.convert("toy", None, None) == "toy"
    assert "mute" not in streaming.every() and "azure-openai-responses" not in streaming.listed()
    with pytest.raises(SystemExit) as refused:
        streaming.convert("mute", None, None)
    assert refused.value.code == 2


def test_completion_gets_a_refusal_it_can_drop() -> None:
    """While the shell completes a half-typed line, a bad value must not end the process."""

    class Completing:
        resilient_parsing = True
        command = None

    choice = Choice("--format", get_args(options.TableOrJson), options.REFUSAL_MUST_BE)
    with pytest.raises(typer.BadParameter, match="--format must be table or json, not 'xml'"):
        choice.convert("xml", None, Completing())
    assert [item.value for item in choice.shell_complete(None, None, "j")] == ["json"]


def test_the_values_match_the_libraries() -> None:
    from pi_tools.audit.formats import FORMATS as AUDIT
    from pi_tools.corpus.search import BRANCHES as SEARCH_BRANCHES
    from pi_tools.corpus.search_format import FORMATS as SEARCH
    from pi_tools.export import FORMATS as EXPORT
    from pi_tools.export.transcript import BRANCHES, ONLY
    from pi_tools.render import FORMATS as RENDER
    from pi_tools.usage.report import GROUPINGS

    assert get_args(options.AuditFormat) == tuple(AUDIT)
    assert get_args(options.TableOrJson) == tuple(SEARCH)
    assert get_args(options.ExportFormat) == tuple(EXPORT)
    assert get_args(options.RenderFormat) == tuple(RENDER)
    assert get_args(options.ExportBranches) == tuple(BRANCHES)
    assert get_args(options.ExportOnly) == tuple(ONLY)
    assert get_args(options.SearchBranch) == tuple(SEARCH_BRANCHES)
    assert get_args(options.UsageGrouping) == tuple(GROUPINGS)


SHARED = {"--format", "--api", "--leaf", "-o", "--model", "--reasoning", "--rules", "--fail-on"}


def test_only_the_options_module_declares_the_shared_options() -> None:
    """No command module passes --format (or another shared option) to an Option itself: a grep, and the same
    through the syntax tree (a declaration split over lines, a flag among others)."""
    declared: list[str] = []
    for path in sorted((ROOT / "pi_tools" / "cli").glob("*.py")):
        if path.name == "options.py":
            continue
        text = path.read_text(encoding="utf-8")
        declared.extend(f"{path.name}: --format" for _ in re.finditer(r'Option\(\s*"--format"', text))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "Option":
                names = {arg.value for arg in node.args if isinstance(arg, ast.Constant)}
                declared.extend(f"{path.name}: {name}" for name in sorted(names & SHARED))
    assert declared == []

"""Help and wording (issue 25, group 7): one option name per meaning, messages said once, numbers that agree."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
from conftest import run_cli

DEXTER = "fixtures/realworld/marcpadz__dexter-v3__pi-session.jsonl"


def test_ls_counts_messages_as_the_index_does_and_shows_the_path(tmp_path: Path) -> None:
    """ls used Pi's own count (message entries: 1,342) where the index counts every entry that gives the
    context a message (1,345: three compaction summaries); both now count with entry_message_count."""
    listed = run_cli("ls", DEXTER, "--format", "json")
    assert listed.code == 0, listed.stderr
    info = json.loads(listed.stdout)
    assert (info["messageCount"], info["path"]) == (1345, DEXTER)
    indexed = run_cli("index", DEXTER, "-o", str(tmp_path / "index"))
    assert indexed.code == 0, indexed.stderr
    sessions = pl.read_parquet(tmp_path / "index/sessions/**/*.parquet")
    assert sessions["messages"].to_list() == [1345]
    table = run_cli("ls", DEXTER).stdout.splitlines()
    assert re.split(r"\s{2,}", table[0]) == ["MODIFIED", "ID", "MSGS", "COST", "NAME", "CWD", "FIRST MESSAGE",
                                               "PATH"]
    assert table[1].split()[2] == "1345" and table[1].endswith(DEXTER)


def test_a_line_with_two_values_is_said_once() -> None:
    result = run_cli("audit", "fixtures/bad/two_objects_one_line.jsonl", "--format", "json")
    messages = [doc["message"] for doc in result.documents() if doc.get("rule") == "concatenated-objects"]
    assert messages == ["two JSON values on one line (the second starts at column 442); Pi skips this line"]


def test_a_header_without_a_type_is_not_an_entry_of_type_none(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text('{"id":"x"}\n')
    result = run_cli("audit", str(session), "--format", "json")
    assert result.code == 1
    assert [doc["message"] for doc in result.documents() if doc.get("rule") == "invalid-header"] == [
        "the first JSON line is an object without a type, not a session header; Pi refuses the file "
        "(not a valid pi session)"]


def test_run_names_the_thinking_level_reasoning_and_the_model_provider_slash_id() -> None:
    """run took --thinking and --model ID where payload, render and preflight take --reasoning and --model
    PROVIDER/ID; --thinking stays as a hidden alias, and a bare ID still means one within --provider."""
    lines = run_cli("run", "--help").stdout
    assert "--reasoning LEVEL" in lines and "--model PROVIDER/ID" in lines
    assert "--thinking" not in lines
    both = run_cli("run", "--reasoning", "low", "--thinking", "high", "hi")
    assert (both.code, both.stderr) == (2, "pi-tools: --thinking is the old name of --reasoning: give one of them\n")

    from pi_tools.cli.run import _provider_and_model

    assert _provider_and_model("faux", "anthropic/claude-sonnet-4-5") == ("anthropic", "claude-sonnet-4-5")
    assert _provider_and_model("faux", "openrouter/anthropic/claude-3.5") == ("openrouter", "anthropic/claude-3.5")
    assert _provider_and_model("faux", "claude-sonnet-4-5") == ("faux", "claude-sonnet-4-5")
    assert _provider_and_model("anthropic", "claude-sonnet-4-5") == ("anthropic", "claude-sonnet-4-5")
    assert _provider_and_model("openrouter", "anthropic/claude-3.5") == ("openrouter", "anthropic/claude-3.5")


def test_preflight_replay_table_has_a_header() -> None:
    result = run_cli("preflight", "--replay", DEXTER)
    lines = result.stdout.splitlines()
    assert lines[0] == f"{DEXTER}: 655 request(s)"
    assert re.split(r"\s{2,}", lines[1].strip()) == [
        "line", "entry", "model", "outcome", "predicted", "rules", "where", "provider error", "fix"]
    assert lines[2].split()[:2] == ["1039", "6ff391eb"]


def test_help_lists_the_choices_of_format_by_and_api() -> None:
    assert "--by [session|day|week|month|model|provider|api|kind]" in run_cli("usage", "--help").stdout
    assert "--format [table|json]" in run_cli("ls", "--help").stdout
    assert "--api [anthropic-messages|" in run_cli("payload", "--help").stdout


"""Counts agree with their nouns (issue 25: "1 compactions"): export's header, index's summary (a one-line prompt section: tests/export/test_export16.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_tools.output.words import counted


def test_counted() -> None:
    assert [counted(n, "compaction") for n in (0, 1, 2)] == ["0 compactions", "1 compaction", "2 compactions"]
    assert counted(1, "branch summary", "branch summaries") == "1 branch summary"
    assert counted(3, "branch summary", "branch summaries") == "3 branch summaries"


def test_export_header_says_one_compaction(cli: Any) -> None:
    run = cli("export", "fixtures/conformance/cases/c003_compaction.jsonl", "-o", "-", "--format", "md")
    assert run.code == 0
    assert ("- messages: 30 in the session; on the path shown: 4 user, 11 assistant, 14 tool results, 1 compaction"
            in run.stdout.splitlines())


def test_index_summary_says_one_session(cli: Any, tmp_path: Path) -> None:
    run = cli("index", "fixtures/corpus/small.jsonl", "-o", str(tmp_path / "idx"))
    assert run.code == 0
    assert run.stderr.startswith(f"pi-tools: {tmp_path / 'idx'}: 1 session (1 indexed, 0 unchanged, 0 removed); rows: "
                                 "sessions 1, ")

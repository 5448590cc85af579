"""Both Pi versions load every imported Claude Code file: the reference oracles (Pi 0.85 and Pi 1.6 themselves)
open each written session, and the context each builds is the one pi-tools rebuilds for that version (same
leaf, same messages)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from support.oracle_path import MISSING, MISSING16, ORACLE, ORACLE16

DATA = Path(__file__).parent / "data" / "claude-code"
SOURCES = [*sorted((DATA / "real").glob("*.jsonl")), DATA / "synthetic" / "rich.jsonl",
           *(DATA / "synthetic" / name for name in ("torn-last-line.jsonl", "not-json-line.jsonl",
                                                     "result-without-call.jsonl", "unknown-type.jsonl"))]


def _oracle(oracle: Path, path: str) -> dict[str, Any]:
    proc = subprocess.run([str(oracle), path, "--apis", "anthropic-messages"], capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b""
    document: dict[str, Any] = json.loads(proc.stdout)
    return document


@pytest.mark.parametrize(("version", "oracle", "missing"), [("0.85", ORACLE, MISSING),
                                                            ("1.6", ORACLE16, MISSING16)])
def test_both_pi_versions_load_every_imported_file(tmp_path: Path, version: str, oracle: Path,
                                                   missing: str) -> None:
    if not oracle.exists():
        pytest.skip(missing)
    result = run_cli("import", *map(str, SOURCES), "-o", str(tmp_path), "--pi", version, "--format", "json")
    assert result.code == 0, result.stderr
    written = [path for document in result.documents() for path in document["written"]]
    assert len(written) == 9  # 1 + 3 (two sidechains) real sessions, rich, four damaged-but-importable
    for path in written:
        loaded = _oracle(oracle, path)
        ours = run_cli("context", path, "--pi", version).documents()[0]
        assert loaded["leafId"] == ours["leafId"]
        assert [message["role"] for message in loaded["context"]["messages"]] == \
            [message["role"] for message in ours["messages"]]
        assert len(loaded["entries"]) == len(Path(path).read_text().splitlines()) - 1
        assert loaded["payloads"]["anthropic-messages"]["payload"]["messages"]  # Pi builds its next request

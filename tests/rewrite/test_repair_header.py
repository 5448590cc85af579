"""`pi-tools repair --header`: a file whose header line was lost (or broken) gets one built from what the file
says; Pi 0.85 then loads it to the context pi-tools builds (the reference oracle's digest is recorded, and
checked live when the oracle is installed), audit reports no invalid-header, and the broken header is kept in
OUT.rejected."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_tools.audit.checks import audit_file
from pi_tools.pipe.documents import dumps_document
from pi_tools.session import build_session_context, load_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.golden import ROOT, canonical_sha  # noqa: E402
from support.oracle_path import ORACLE  # noqa: E402

ORACLE_CONTEXT = "ac1caa74917ffada1e8061bc87ff739e8ea76855c7bb3f6e55cd8eff26f347d8"  # both fixtures, repaired
SESSION_ID = "0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"


def pi_named(tmp_path: Path, fixture: str, directory: str = "--home-dev-proj--") -> Path:
    folder = tmp_path / directory
    folder.mkdir()
    path = folder / f"2025-08-01T10-00-00-000Z_{SESSION_ID}.jsonl"
    path.write_bytes((ROOT / "fixtures" / "bad" / f"{fixture}.jsonl").read_bytes())
    return path


@pytest.mark.parametrize("fixture", ["missing_header", "header_numeric_id"])
def test_a_header_is_built_from_the_file_name_and_directory(tmp_path: Path, cli: Any, fixture: str) -> None:
    source = pi_named(tmp_path, fixture)
    before = (source.read_bytes(), os.stat(source).st_mtime_ns)
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(source), "-o", str(out), "--header")
    assert run.code == 0, run.stderr
    assert (source.read_bytes(), os.stat(source).st_mtime_ns) == before
    added = (f"{source}: added a session header (id {SESSION_ID} from the file name, timestamp "
             "2025-08-01T10:00:00.000Z, cwd /home/dev/proj, version 3) [invalid-header]")
    original = source.read_bytes().splitlines()
    lines = out.read_bytes().splitlines()
    assert lines[0] == ('{"type":"session","version":3,"id":"' + SESSION_ID + '","timestamp":'
                        '"2025-08-01T10:00:00.000Z","cwd":"/home/dev/proj"}').encode()
    if fixture == "missing_header":
        assert run.stdout.splitlines() == [added]
        assert lines[1:] == original
    else:
        assert run.stdout.splitlines() == [
            added, f"{source}:1: moved the broken session header to the .rejected file [invalid-header]",
            f"{source}: 1 line(s) set aside in {out}.rejected"]
        assert (tmp_path / "out.jsonl.rejected").read_bytes() == b"1\t" + original[0] + b"\n"
        assert lines[1:] == original[1:]  # nothing lost: OUT.rejected holds the old header
    assert [f["rule"] for f in audit_file(str(out)).findings] == []
    context = build_session_context(load_session(str(out)))
    document = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    assert canonical_sha(json.loads(dumps_document(document))) == ORACLE_CONTEXT
    if ORACLE.exists():
        reference = json.loads(subprocess.run([str(ORACLE), str(out), "--apis", "anthropic-messages",
                                               "--no-branches"], capture_output=True, check=True).stdout)
        assert "error" not in reference and canonical_sha(reference["context"]) == ORACLE_CONTEXT


def test_cwd_option_and_what_cannot_be_known(tmp_path: Path, cli: Any) -> None:
    source = pi_named(tmp_path, "missing_header", "elsewhere")
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(source), "-o", str(out), "--header")
    assert (run.code, run.stderr) == (2, f"pi-tools: {source}: --header needs --cwd DIR (the session directory's "
                                         "name is not Pi's --path-to-cwd-- form)\n")
    assert not out.exists()
    ok = cli("repair", str(source), "-o", str(out), "--header", "--cwd", "/srv/my-app")
    assert ok.code == 0, ok.stderr
    assert json.loads(out.read_bytes().splitlines()[0])["cwd"] == "/srv/my-app"
    odd = cli("repair", "fixtures/bad/missing_header.jsonl", "-o", str(tmp_path / "o2.jsonl"), "--header")
    assert odd.code == 2 and "--header needs Pi's file name <timestamp>_<uuid>.jsonl" in odd.stderr

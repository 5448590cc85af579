"""`pi-tools scrub` and the `secret-in-session` audit rule: a secret of each of 24 kinds planted in every kind
of field (user, assistant text and thinking, tool arguments, results and their details, bash executions,
custom entries and messages, compaction and branch summaries, labels, session names) on both branches of a
session is found and redacted, no signature, encrypted reasoning, response id or entry/call id changes, a
second `scrub --check` finds nothing, and no value ever appears in any output. Pi 0.85 loads the scrubbed file
to the context pi-tools builds (digest recorded from the reference oracle, checked live when it is installed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_tools.audit.checks import audit_file
from pi_tools.messages import convert_to_llm
from pi_tools.pipe.documents import dumps_document
from pi_tools.rewrite.scrub import scrub_bytes
from pi_tools.secrets.detectors import KINDS, Scanner, scrub_text
from pi_tools.secrets.values import OPAQUE_KEYS
from pi_tools.session import build_session_context, load_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.golden import canonical_sha  # noqa: E402
from support.oracle_path import ORACLE  # noqa: E402
from support.scrub_session import planted, session_bytes, session_lines  # noqa: E402

# The reference oracle's digests of the scrubbed session's context and LLM messages (python
# tests/rewrite/test_scrub.py --regen prints them; they equal pi-tools' own, checked below).
ORACLE_CONTEXT = "705aafcbe8b31a0fefeff4349e39c9bf99dd4362f9df8579016b1dd99d3f75f4"
ORACLE_LLM = "ddfe9b473031d44c7aa70fe1fa1f18ddba9432d656ef434f5e840c5a48b067c2"
VALUES = [value for value, _ in planted().values()]
# Fields whose strings hold every planted kind (line, JSON path), and which are not secrets at all.
FIELDS_PER_ASSISTANT = ["$.message.content[0].thinking", "$.message.content[2].text",
                        "$.message.content[3].arguments.command", "$.message.content[3].arguments.env.TOKEN",
                        "$.message.content[3].arguments.list[0]"]
FIELDS_PER_RESULT = ["$.message.content[0].text", "$.message.details.stdout", "$.message.details.nested[0].deep"]


def expected_fields() -> dict[int, list[str]]:
    fields: dict[int, list[str]] = {3: ["$.message.content"], 6: ["$.message.command", "$.message.output"],
                                    7: ["$.data.config", "$.data.n[1]"],
                                    8: ["$.content[0].text", "$.details.why"],
                                    9: ["$.summary", "$.details.readFiles[0]"], 10: ["$.message.content[0].text"],
                                    13: ["$.message.content"], 16: ["$.summary", "$.details.files[0]"],
                                    17: ["$.name"], 18: ["$.label"], 19: ["$.message.content"]}
    for line in (4, 11, 14):
        fields[line] = FIELDS_PER_ASSISTANT
    for line in (5, 12, 15):
        fields[line] = FIELDS_PER_RESULT
    return fields


@pytest.fixture()
def session(tmp_path: Path) -> Path:
    path = tmp_path / "planted.jsonl"
    path.write_bytes(session_bytes())
    return path


def assert_no_value(*texts: str | bytes) -> None:
    for text in texts:
        data = text.encode() if isinstance(text, str) else text
        for value in VALUES:
            assert value.encode() not in data
            assert value.encode()[8:40] not in data  # not even a piece of it


def test_every_kind_in_every_field_is_found_and_redacted(tmp_path: Path, session: Path, cli: Any) -> None:
    assert len(KINDS) >= 60 and set(planted()) <= set(KINDS)
    before = (session.read_bytes(), os.stat(session).st_mtime_ns)
    out = tmp_path / "scrubbed.jsonl"
    run = cli("scrub", str(session), "-o", str(out), "--format", "json")
    assert run.code == 0, run.stderr
    assert (session.read_bytes(), os.stat(session).st_mtime_ns) == before
    documents = [json.loads(line) for line in run.stdout.splitlines()]
    changes, summary = documents[:-1], documents[-1]
    assert summary == {"kind": "rewrite", "source": str(session), "output": str(out), "rejected": None,
                       "rejectedLines": 0, "backup": None, "changes": len(changes), "dryRun": False, "check": False}
    got: dict[tuple[int, str], list[str]] = {}
    for change in changes:
        assert change["rule"] == "secret-in-session"
        kind, path = change["change"].split(": redacted ")[1].split(" at ")
        got.setdefault((change["line"], path), []).append(kind)
        entry = session_lines()[change["line"] - 1]
        assert change["entryId"] == entry["id"] and change["change"].startswith(f"entry {entry['id']}: ")
    want = {(line, path): list(planted()) for line, paths in expected_fields().items() for path in paths}
    assert got == want
    assert_no_value(run.stdout, run.stderr, out.read_bytes())
    check = cli("scrub", str(out), "--check")
    assert (check.code, check.stdout) == (0, f"{out}: 0 secret(s) found\n")


def test_only_secrets_change_and_signatures_and_ids_stay(tmp_path: Path, session: Path) -> None:
    out = tmp_path / "scrubbed.jsonl"
    result = scrub_bytes(session.read_bytes(), Scanner())
    out.write_bytes(result.data())
    original = session_lines()
    scrubbed = [json.loads(line) for line in out.read_bytes().splitlines()]

    def expected(value: Any, key: str | None = None) -> Any:
        if key in OPAQUE_KEYS or key in ("id", "parentId", "toolCallId", "firstKeptEntryId", "fromId", "targetId"):
            return value
        if isinstance(value, str):
            return scrub_text(value)
        if isinstance(value, dict):
            return {k: expected(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [expected(v) for v in value]
        return value

    assert scrubbed == [expected(entry) for entry in original]
    # The opaque fields hold secret-shaped text on purpose: they are still there, byte for byte.
    text = out.read_text()
    for entry in original[3:4]:
        for block in entry["message"]["content"]:
            for key in ("thinkingSignature", "textSignature", "thoughtSignature"):
                if key in block:
                    assert json.dumps(block[key], ensure_ascii=False) in text
    assert text.count(original[3]["message"]["responseId"]) == 3
    # Lines without secrets are copied byte for byte.
    assert out.read_bytes().splitlines()[:2] == session.read_bytes().splitlines()[:2]


def test_pi_loads_the_scrubbed_file_as_pi_tools_does(tmp_path: Path, session: Path, cli: Any) -> None:
    out = tmp_path / "scrubbed.jsonl"
    assert cli("scrub", str(session), "-o", str(out)).code == 0
    context = build_session_context(load_session(str(out)))
    document = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    assert canonical_sha(json.loads(dumps_document(document))) == ORACLE_CONTEXT
    assert canonical_sha(json.loads(dumps_document(convert_to_llm(context.messages)))) == ORACLE_LLM
    if ORACLE.exists():
        raw = subprocess.run([str(ORACLE), str(out), "--apis", "anthropic-messages", "--no-branches"],
                             capture_output=True, check=True).stdout
        reference = json.loads(raw)
        assert "error" not in reference
        assert canonical_sha(reference["context"]) == ORACLE_CONTEXT
        assert canonical_sha(reference["llm"]) == ORACLE_LLM


def test_check_reports_and_exits_1_without_writing(tmp_path: Path, session: Path, cli: Any) -> None:
    before = (session.read_bytes(), os.stat(session).st_mtime_ns)
    run = cli("scrub", str(session), "--check")
    assert run.code == 1
    lines = run.stdout.splitlines()
    assert lines[0] == f"{session}:3: entry a0000002: found private-key at $.message.content"
    assert lines[-1] == f"{session}: 960 secret(s) found"
    assert_no_value(run.stdout, run.stderr)
    assert (session.read_bytes(), os.stat(session).st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["planted.jsonl"]
    clean = cli("scrub", "tests/data/audit/clean.jsonl", "--check")
    assert (clean.code, clean.stdout) == (0, "tests/data/audit/clean.jsonl: 0 secret(s) found\n")


def test_in_place_keeps_a_backup_and_leaves_clean_files_alone(tmp_path: Path, session: Path, cli: Any) -> None:
    original = session.read_bytes()
    clean = tmp_path / "clean.jsonl"
    clean.write_bytes(Path("tests/data/audit/clean.jsonl").read_bytes())
    clean_before = (clean.read_bytes(), os.stat(clean).st_mtime_ns)
    run = cli("scrub", str(tmp_path), "--in-place")
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == f"{clean}: 0 secret(s) redacted"  # sorted: clean.jsonl comes first
    assert lines[-1] == f"{session}: 960 secret(s) redacted; wrote {session}; the original is kept as {session}.bak"
    assert len(lines) == 962
    assert (tmp_path / "planted.jsonl.bak").read_bytes() == original
    assert (clean.read_bytes(), os.stat(clean).st_mtime_ns) == clean_before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clean.jsonl", "planted.jsonl", "planted.jsonl.bak"]
    assert cli("scrub", str(session), "--check").code == 0


def test_user_patterns_and_unparseable_lines(tmp_path: Path, cli: Any) -> None:
    source = tmp_path / "s.jsonl"
    lines = Path("tests/data/audit/clean.jsonl").read_bytes().splitlines()
    user = json.loads(lines[1])
    user["message"]["content"] = "ticket INTERNAL-7731 password=swordfish"
    broken = b'{"type":"message", "note": "AKIAIOSFODNN7EXAMPLE and INTERNAL-1 \xff'
    source.write_bytes(b"\n".join([lines[0], json.dumps(user).encode(), *lines[2:], broken]) + b"\n")
    out = tmp_path / "o.jsonl"
    run = cli("scrub", str(source), "-o", str(out), "--pattern", r"INTERNAL-\d+", "--pattern",
              r"password=(?P<secret>\S+)")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines() == [
        f"{source}:2: entry {user['id']}: redacted pattern at $.message.content",
        f"{source}:2: entry {user['id']}: redacted pattern at $.message.content",
        f"{source}:{len(lines) + 1}: redacted aws-access-key-id at (unparseable line)",
        f"{source}:{len(lines) + 1}: redacted pattern at (unparseable line)",
        f"{source}: 4 secret(s) redacted; wrote {out}",
    ]
    written = out.read_bytes().splitlines()
    assert json.loads(written[1])["message"]["content"] == \
        "ticket [REDACTED:pattern] password=[REDACTED:pattern]"
    assert written[-1] == b'{"type":"message", "note": "[REDACTED:aws-access-key-id] and [REDACTED:pattern] \xff'
    assert written[2:-1] == lines[2:]
    bad = cli("scrub", str(source), "--check", "--pattern", "(unclosed")
    assert bad.code == 2 and bad.stderr.startswith("pi-tools: --pattern '(unclosed': not a regular expression")


def test_usage_errors(tmp_path: Path, session: Path, cli: Any) -> None:
    both = cli("scrub", str(session), "--check", "-o", str(tmp_path / "o.jsonl"))
    assert (both.code, both.stderr) == (2, "pi-tools: --check only reports: give no -o or --in-place with it\n")
    two = cli("scrub", str(session), str(session), "-o", str(tmp_path / "o.jsonl"))
    assert two.code == 2 and "-o OUT takes one session file; 2 given" in two.stderr
    missing = cli("scrub", str(tmp_path / "gone.jsonl"), "--check")
    assert (missing.code, missing.stderr) == (2, f"pi-tools: {tmp_path}/gone.jsonl: no such file\n")


def test_audit_reports_secrets_with_the_same_detectors(session: Path, tmp_path: Path) -> None:
    findings = audit_file(str(session), frozenset({"secret-in-session"})).findings
    assert len(findings) == 960
    assert findings[0] == {
        "kind": "finding", "source": str(session), "rule": "secret-in-session", "severity": "warning",
        "entryId": "a0000002", "line": 3,
        "message": "private-key stored at $.message.content (value not shown); `pi-tools scrub` redacts it"}
    assert_no_value(json.dumps(findings))
    out = tmp_path / "scrubbed.jsonl"
    out.write_bytes(scrub_bytes(session.read_bytes(), Scanner()).data())
    assert audit_file(str(out), frozenset({"secret-in-session"})).findings == []


def regenerate() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        source = Path(directory) / "planted.jsonl"
        source.write_bytes(session_bytes())
        out = Path(directory) / "scrubbed.jsonl"
        out.write_bytes(scrub_bytes(source.read_bytes(), Scanner()).data())
        raw = subprocess.run([str(ORACLE), str(out), "--apis", "anthropic-messages", "--no-branches"],
                             capture_output=True, check=True).stdout
        reference = json.loads(raw)
        print(canonical_sha(reference["context"]), canonical_sha(reference["llm"]))


if __name__ == "__main__" and "--regen" in sys.argv:
    regenerate()

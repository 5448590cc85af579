"""`pi-tools repair`: the repaired file passes `audit` for every rule the repair claims to fix, Pi 0.85 loads it
to the context pi-tools builds (digests of the reference oracle's output on the repaired files, in
tests/data/audit/repaired_oracle.json), closing orphans stores exactly what Pi would have sent, and the input
file is never touched.

Regenerate the oracle digests (needs /tmp/oracle, see /work/shared/oracle/README.md):
    python tests/rewrite/test_repair.py --regen
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pi_tools.audit.checks import audit_file
from pi_tools.messages import convert_to_llm
from pi_tools.pipe.documents import dumps_document
from pi_tools.rewrite.repair import FIXED_RULES, ORPHAN_RULE, RepairError, repair_bytes, repair_file
from pi_tools.session import build_session_context, load_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.golden import CASES, REALWORLD, ROOT, canonical_sha, expected, realworld_names  # noqa: E402
from support.oracle_path import ORACLE  # noqa: E402

BAD = ROOT / "fixtures" / "bad"
DATA = ROOT / "tests" / "data" / "audit"
ORACLE_DIGESTS = DATA / "repaired_oracle.json"
UNREPAIRABLE = {"binary_garbage", "empty", "header_numeric_id", "missing_header"}
BAD_NAMES = sorted(p.stem for p in BAD.glob("*.jsonl") if p.stem not in UNREPAIRABLE)
# Conformance cases whose files hold tool calls without results (found by `audit`).
ORPHAN_CASES = ["c001_tools", "c002_branching", "c003_compaction", "c004_crossprovider", "c007_mixed",
                "c008_branching", "c009_mixed", "c011_v2", "c014_tools", "c019_bashcustom", "c025_v1",
                "c026_linear", "c029_compaction", "c031_errors", "c036_summarymsgs", "c037_v2", "c039_linear"]


def subjects() -> list[tuple[str, Path]]:
    return (
        [(f"bad/{name}", BAD / f"{name}.jsonl") for name in BAD_NAMES]
        + [(f"realworld/{name}", REALWORLD / f"{name}.jsonl") for name in realworld_names()]
        + [(f"conformance/{name}", CASES / f"{name}.jsonl") for name in ORPHAN_CASES]
    )


SUBJECTS = dict(subjects())


@cache
def oracle_digests() -> dict[str, Any]:
    result: dict[str, Any] = json.loads(ORACLE_DIGESTS.read_text(encoding="utf-8"))
    return result


def repaired(tmp_path: Path, source: Path, close: bool = True) -> Path:
    out = tmp_path / f"{source.stem}.repaired.jsonl"
    if repair_file(str(source), str(out), close_orphaned_calls=close).unchanged:
        assert not out.exists()  # nothing to repair: nothing written
        return source
    return out


def as_json(value: Any) -> Any:
    return json.loads(dumps_document(value))


@pytest.mark.parametrize("name", sorted(SUBJECTS))
def test_repaired_file_passes_the_rules_repair_fixes(tmp_path: Path, name: str) -> None:
    source = SUBJECTS[name]
    before = (source.read_bytes(), os.stat(source).st_mtime_ns)
    out = tmp_path / "repaired.jsonl"
    repair = repair_file(str(source), str(out), close_orphaned_calls=True)
    assert (source.read_bytes(), os.stat(source).st_mtime_ns) == before
    assert out.exists() is not repair.unchanged
    result = audit_file(str(source if repair.unchanged else out))
    assert result.error is None
    left = [f for f in result.findings if f["rule"] in FIXED_RULES | {ORPHAN_RULE}]
    assert left == []
    original_rules = {f["rule"] for f in audit_file(str(source)).findings}
    # Repair adds no new kind of problem, with two deliberate exceptions: stored results follow Pi's own order
    # (real results, then the synthetic ones), so a missing call that precedes an answered one now shows up as
    # tool-result-order, exactly as Pi sends it; and entries recovered from a concatenated line are audited for
    # the first time (see docs/repair.md).
    split_lines = {c.line for c in repair.changes if "concatenated" in c.message or "complete object" in c.message}
    recovered = {index + 1 for index, origin in enumerate(repair.origins) if origin in split_lines}
    new = [f for f in result.findings if f["rule"] not in original_rules | {"tool-result-order"}]
    assert all(f["line"] in recovered for f in new), new


@pytest.mark.parametrize("name", sorted(SUBJECTS))
def test_pi_loads_the_repaired_file_as_pi_tools_does(tmp_path: Path, name: str) -> None:
    digest = oracle_digests()[name]
    out = repaired(tmp_path, SUBJECTS[name])
    tree = load_session(str(out))
    if "error" in digest:
        assert name in {"bad/message_entry_without_message", "bad/parent_cycle", "bad/self_parent"}, digest
        return
    context = build_session_context(tree)
    document = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    assert len(context.messages) == digest["messages"]
    assert canonical_sha(as_json(document)) == digest["context"]
    assert canonical_sha(as_json(convert_to_llm(context.messages))) == digest["llm"]


@pytest.mark.parametrize("name", ORPHAN_CASES)
@pytest.mark.parametrize("api", ["anthropic-messages", "openai-completions"])
def test_closed_orphans_store_what_pi_sends(tmp_path: Path, name: str, api: str) -> None:
    """The repaired file gives Pi's payload for the original file: the stored results are the synthetic ones."""
    from pi_tools.pipeline.stages import PayloadRequest, context_document, llm_document, payload_document

    golden = expected(name)
    entry = golden["payloads"][api]
    out = repaired(tmp_path, CASES / f"{name}.jsonl")
    request = PayloadRequest(api=api, model=entry["model"], system_prompt=golden["inputs"]["systemPrompt"],
                             tools=golden["inputs"]["tools"], reasoning="off")
    document = payload_document(llm_document(context_document(load_session(str(out)))), request)
    assert as_json(document["payload"]) == entry["payload"]


def test_two_objects_on_one_line_are_split(tmp_path: Path, cli: Any) -> None:
    source = BAD / "two_objects_one_line.jsonl"
    out = tmp_path / "fixed.jsonl"
    run = cli("repair", str(source), "-o", str(out))
    assert run.code == 0, run.stderr
    assert run.stdout == f"{source}:3: split 2 concatenated objects onto their own lines [concatenated-objects]\n"
    original = source.read_bytes().split(b"\n")
    lines = out.read_bytes().split(b"\n")
    assert lines[:2] == original[:2] and lines[4:] == original[3:]
    assert lines[2] + lines[3] == original[2]
    assert not (tmp_path / "fixed.jsonl.rejected").exists()
    assert [e["id"] for e in load_session(str(out)).entries] == ["e0000000", "e0000001", "e0000002", "e0000003"]


def test_torn_tail_and_unparseable_lines_go_to_rejected(tmp_path: Path, cli: Any) -> None:
    source = tmp_path / "damaged.jsonl"
    data = (BAD / "torn_last_line.jsonl").read_bytes()
    lines = data.split(b"\n")
    source.write_bytes(b"\n".join([lines[0], lines[1], b"{not json\x00", b"[]", *lines[2:]]))
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(source), "-o", str(out))
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines() == [
        f"{source}:3: moved an unparseable line to the .rejected file [malformed-line]",
        f"{source}:4: moved a JSON value that is not an entry to the .rejected file [junk-value]",
        f"{source}:8: dropped the torn final line ({len(lines[-1])} bytes) to the .rejected file [torn-line]",
        f"{source}: 3 line(s) set aside in {out}.rejected",
    ]
    assert (tmp_path / "out.jsonl.rejected").read_bytes() == b"3\t{not json\x00\n4\t[]\n8\t" + lines[-1] + b"\n"
    assert out.read_bytes() == b"\n".join([lines[0], lines[1], *lines[2:-1]]) + b"\n"


def test_bom_and_invalid_utf8_are_repaired() -> None:
    bom = repair_bytes((BAD / "bom.jsonl").read_bytes(), "bom.jsonl")
    assert [(c.line, c.message, c.rule) for c in bom.changes] == [
        (1, "removed a byte-order mark that JSON.parse rejects", "malformed-line")]
    assert bom.lines[0].startswith(b'{"type":"session"')
    utf8 = repair_bytes((BAD / "invalid_utf8.jsonl").read_bytes(), "u.jsonl")
    assert [(c.line, c.message, c.rule) for c in utf8.changes] == [
        (3, "replaced invalid UTF-8 bytes with U+FFFD, as Pi reads them", "invalid-utf8")]
    assert "\ufffd".encode() in utf8.lines[2]


def test_close_orphans_adds_chained_results_and_reparents(tmp_path: Path, cli: Any) -> None:
    source = DATA / "orphaned-tool-call.jsonl"
    out = tmp_path / "closed.jsonl"
    run = cli("repair", str(source), "-o", str(out), "--close-orphans")
    assert run.code == 0, run.stderr
    tree = load_session(str(out))
    added = tree.entries[3]
    assert re.fullmatch(r"[0-9a-f]{8}", added["id"]) and added["parentId"] == "e3"
    assert added["message"] == {"role": "toolResult", "toolCallId": "c2", "toolName": "read",
                                "content": [{"type": "text", "text": "No result provided"}], "isError": True,
                                "timestamp": 1756720803000}
    assert added["timestamp"] == "2025-09-01T10:00:03.000Z"
    assert tree.entries[4]["id"] == "e4" and tree.entries[4]["parentId"] == added["id"]
    assert run.stdout.splitlines() == [
        f"{source}:4: added a `No result provided` tool result for call c2 after entry e3 [orphaned-tool-call]",
        f"{source}:5: entry e4 now follows the added results (parentId e3 -> {added['id']}) [orphaned-tool-call]",
    ]
    # Only the parentId of e4 changed; every other byte of the original lines is kept.
    original = source.read_bytes().split(b"\n")
    new = out.read_bytes().split(b"\n")
    assert new[:4] == original[:4]
    assert new[5] == original[4].replace(b'"parentId":"e3"', b'"parentId":"' + added["id"].encode() + b'"')
    assert audit_file(str(out)).findings == []


def test_without_close_orphans_calls_stay_open(tmp_path: Path) -> None:
    out = repaired(tmp_path, DATA / "orphaned-tool-call.jsonl", close=False)
    assert out.read_bytes() == (DATA / "orphaned-tool-call.jsonl").read_bytes()
    assert [f["rule"] for f in audit_file(str(out)).findings] == ["orphaned-tool-call"]


def v1_session_with_orphan_before_compaction() -> bytes:
    stamp = {"timestamp": "2025-01-01T00:00:00.000Z"}
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}

    def reply(content: list[Any], stop: str) -> dict[str, Any]:
        return {"type": "message", **stamp, "message": {
            "role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic",
            "model": "claude-sonnet-4-5", "usage": usage, "stopReason": stop, "timestamp": 2}}

    values = [
        {"type": "session", "id": "v1-session", **stamp, "cwd": "/"},
        {"type": "message", **stamp, "message": {"role": "user", "content": "go", "timestamp": 1}},
        reply([{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}], "toolUse"),
        {"type": "message", **stamp, "message": {"role": "user", "content": "never mind", "timestamp": 3}},
        reply([{"type": "text", "text": "ok"}], "stop"),
        {"type": "compaction", **stamp, "summary": "s", "firstKeptEntryIndex": 4, "tokensBefore": 5},
        {"type": "message", **stamp, "message": {"role": "user", "content": "next", "timestamp": 6}},
    ]
    return b"".join(json.dumps(value, separators=(",", ":")).encode() + b"\n" for value in values)


def test_v1_compaction_index_follows_inserted_results(tmp_path: Path) -> None:
    source = tmp_path / "v1.jsonl"
    source.write_bytes(v1_session_with_orphan_before_compaction())
    out = tmp_path / "out.jsonl"
    result = repair_file(str(source), str(out), close_orphaned_calls=True)
    assert [(c.line, c.message) for c in result.changes] == [
        (3, "added a `No result provided` tool result for call c1 after entry 00000002"),
        (6, "compaction firstKeptEntryIndex 4 -> 5 (it still names the same entry)"),
    ]
    before = build_session_context(load_session(str(source)))
    after = build_session_context(load_session(str(out)))
    assert after.messages == before.messages  # the compaction still keeps "ok" onwards
    assert [m.get("content") for m in after.messages[1:]] == [[{"type": "text", "text": "ok"}], "next"]
    assert [f["rule"] for f in audit_file(str(out)).findings] == ["legacy-version"]


def test_refuses_to_overwrite_without_force(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("keep me")
    run = cli("repair", "tests/data/audit/clean.jsonl", "-o", str(out))
    assert run.code == 2
    assert run.stderr == f"pi-tools: {out}: already exists; pass --force to overwrite it\n"
    assert out.read_text() == "keep me"
    unchanged = cli("repair", "tests/data/audit/clean.jsonl", "-o", str(out), "--force")
    assert (unchanged.code, unchanged.stdout) == (3, "")
    assert unchanged.stderr == "pi-tools: tests/data/audit/clean.jsonl: nothing to repair; wrote nothing\n"
    assert out.read_text() == "keep me"
    forced = cli("repair", "fixtures/bad/two_objects_one_line.jsonl", "-o", str(out), "--force")
    assert forced.code == 0, forced.stderr
    assert forced.stdout.startswith("fixtures/bad/two_objects_one_line.jsonl:"), forced.stdout
    assert out.read_text() != "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]  # no temporary files left behind


def test_never_writes_over_the_input(tmp_path: Path, cli: Any) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes((BAD / "torn_last_line.jsonl").read_bytes())
    before = source.read_bytes()
    for target in (str(source), str(tmp_path / "." / "s.jsonl")):
        run = cli("repair", str(source), "-o", target, "--force")
        assert run.code == 2
        assert "refusing to write over the input file" in run.stderr
    link = tmp_path / "link.jsonl"
    link.symlink_to(source)
    assert cli("repair", str(source), "-o", str(link), "--force").code == 2
    assert source.read_bytes() == before


@pytest.mark.parametrize("name", sorted(UNREPAIRABLE))
def test_files_without_a_header_cannot_be_repaired(tmp_path: Path, name: str) -> None:
    with pytest.raises(RepairError):
        repair_file(str(BAD / f"{name}.jsonl"), str(tmp_path / "out.jsonl"))
    assert not (tmp_path / "out.jsonl").exists()


def test_cli_unreadable_input(cli: Any, tmp_path: Path) -> None:
    run = cli("repair", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "o.jsonl"))
    assert run.code == 2
    assert run.stderr == f"pi-tools: {tmp_path}/missing.jsonl: no such file\n"
    bad = cli("repair", "fixtures/bad/missing_header.jsonl", "-o", str(tmp_path / "o.jsonl"))
    assert bad.code == 2 and "no line holds a valid session header" in bad.stderr


def regenerate_oracle_digests() -> None:
    """Run the reference oracle on every repaired subject and store context digests (development only)."""
    import tempfile

    digests: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as directory:
        for name, source in sorted(subjects()):
            out = Path(directory) / f"{source.stem}.jsonl"
            repair_file(str(source), str(out), close_orphaned_calls=True, force=True)
            raw = subprocess.run([str(ORACLE), str(out), "--apis", "anthropic-messages", "--no-branches"],
                                 capture_output=True, check=True).stdout
            document = json.loads(raw)
            if "error" in document:
                digests[name] = {"error": document["error"]}
                continue
            digests[name] = {"messages": len(document["context"]["messages"]),
                             "context": canonical_sha(document["context"]), "llm": canonical_sha(document["llm"])}
    ORACLE_DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__" and "--regen" in sys.argv:
    regenerate_oracle_digests()

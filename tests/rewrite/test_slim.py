"""`pi-tools slim`: images over the limit become a placeholder naming them, long tool and bash outputs keep head
and tail around a marker, --drop-branches keeps the active path (and what it refers to) with everything else in
OUT.rejected; the context of OUT equals FILE's except for the slimmed blocks, Pi 0.85 loads OUT to the context
pi-tools builds (recorded digest; checked live when the oracle is installed), FILE is never touched, and FILE
can be reassembled from OUT and OUT.rejected."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pi_tools.pipe.documents import dumps_document
from pi_tools.session import build_session_context, load_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.golden import canonical_sha  # noqa: E402
from support.oracle_path import ORACLE  # noqa: E402

# Reference oracle's digest of the context of the slimmed session (python tests/rewrite/test_slim.py --regen
# prints it).
ORACLE_CONTEXT = "01a6f7bfa0724c6f5a21a82bc5849c915e99ae1c3553cb2ed1045659ee6113b6"
STAMP = "2025-06-01T10:00:00.000Z"


def png(size: int, seed: str) -> str:
    raw = b"".join(hashlib.sha256(f"{seed}{i}".encode()).digest() for i in range(size // 32 + 1))[:size]
    return base64.b64encode(raw).decode()


def bloated_session() -> list[dict[str, Any]]:
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}

    def entry(entry_id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
        return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": STAMP, **fields}

    def call(entry_id: str, parent: str, call_id: str) -> dict[str, Any]:
        return entry(entry_id, parent, message={
            "role": "assistant", "content": [{"type": "toolCall", "id": call_id, "name": "read",
                                              "arguments": {"path": "shot.png"}}],
            "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage,
            "stopReason": "toolUse", "timestamp": 2})

    long_output = "".join(f"line {i}: {'é' * 20}\n" for i in range(8000))  # ~290 KB of UTF-8
    return [
        {"type": "session", "version": 3, "id": "slim-test", "timestamp": STAMP, "cwd": "/home/u/p"},
        entry("s0000001", None, message={"role": "user", "content": [
            {"type": "text", "text": "look at this"},
            {"type": "image", "data": png(300_000, "a"), "mimeType": "image/png"},
            {"type": "image", "data": png(2_000, "small"), "mimeType": "image/jpeg"}], "timestamp": 1}),
        call("s0000002", "s0000001", "c1"),
        entry("s0000003", "s0000002", message={
            "role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": False, "timestamp": 3,
            "content": [{"type": "text", "text": long_output},
                        {"type": "image", "data": png(150_000, "b"), "mimeType": "image/webp"}]}),
        # An abandoned branch from s0000003 and the summary of it on the active one.
        entry("b0000001", "s0000003", message={"role": "user", "content": "try the other way", "timestamp": 4}),
        call("b0000002", "b0000001", "c2"),
        {"type": "label", "id": "b0000003", "parentId": "b0000002", "timestamp": STAMP, "targetId": "s0000001",
         "label": "start"},
        {"type": "branch_summary", "id": "s0000004", "parentId": "s0000003", "timestamp": STAMP,
         "fromId": "b0000002", "summary": "tried the other way"},
        entry("s0000005", "s0000004", message={
            "role": "bashExecution", "command": "make", "output": long_output, "exitCode": 0, "cancelled": False,
            "truncated": False, "timestamp": 5}),
        entry("s0000006", "s0000005", message={"role": "user", "content": "thanks", "timestamp": 6}),
    ]


def write(path: Path, values: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
                              for v in values))
    return path


def context_of(path: Path) -> list[Any]:
    return json.loads(dumps_document(build_session_context(load_session(str(path))).messages))


def test_images_and_outputs_are_slimmed_and_the_rest_of_the_context_is_equal(tmp_path: Path, cli: Any) -> None:
    source = write(tmp_path / "big.jsonl", bloated_session())
    before = (source.read_bytes(), os.stat(source).st_mtime_ns)
    out = tmp_path / "small.jsonl"
    run = cli("slim", str(source), "-o", str(out), "--max-image-kb", "100", "--max-tool-output-kb", "16")
    assert run.code == 0, run.stderr
    assert (source.read_bytes(), os.stat(source).st_mtime_ns) == before
    size_before, size_after = len(before[0]), out.stat().st_size
    original, slimmed = context_of(source), context_of(out)
    full = original[2]["content"][0]["text"]
    head, marker, tail = slimmed[2]["content"][0]["text"].partition(" bytes of tool output removed by pi-tools slim")
    removed = int(head.rsplit("[... ", 1)[1])
    head = head.rsplit("\n[... ", 1)[0]
    tail = tail.removeprefix(" ...]\n")
    assert marker and full.startswith(head) and full.endswith(tail)
    assert removed == len(full.encode()) - len(head.encode()) - len(tail.encode())
    assert 8190 <= len(head.encode()) <= 8192 and 8190 <= len(tail.encode()) <= 8192  # é is 2 bytes: cut whole
    assert run.stdout.splitlines() == [
        f"{source}:2: entry s0000001: replaced a 293 KB image/png image at $.message.content[1] with a text "
        "placeholder",
        f"{source}:4: entry s0000003: cut {removed} bytes from the middle of the tool output at "
        "$.message.content[0].text",
        f"{source}:4: entry s0000003: replaced a 146 KB image/webp image at $.message.content[1] with a text "
        "placeholder",
        f"{source}:9: entry s0000005: cut {removed} bytes from the middle of the bash output at $.message.output",
        f"{source}: {size_before} bytes -> {size_after} bytes ({100 * size_after / size_before:.1f}%); wrote {out}",
    ]
    assert size_after < size_before / 10
    assert len(original) == len(slimmed)
    user = slimmed[0]["content"]
    assert user[1] == {"type": "text", "text": "[image removed by pi-tools slim: image/png, 293 KB, was "
                                               "$.message.content[1] of entry s0000001]"}
    assert user[0] == original[0]["content"][0] and user[2] == original[0]["content"][2]  # small image kept
    # Everything that was not slimmed is equal.
    for index in (1, 3, 5):
        assert slimmed[index] == original[index]
    assert {k: v for k, v in slimmed[4].items() if k != "output"} == \
        {k: v for k, v in original[4].items() if k != "output"}
    # Lines without a slimmed block are copied byte for byte.
    lines_in, lines_out = source.read_bytes().splitlines(), out.read_bytes().splitlines()
    assert [lines_out[i] for i in (0, 2, 4, 5, 6, 7, 9)] == [lines_in[i] for i in (0, 2, 4, 5, 6, 7, 9)]


def test_drop_branches_keeps_the_active_path_and_what_it_refers_to(tmp_path: Path, cli: Any) -> None:
    source = write(tmp_path / "big.jsonl", bloated_session())
    out = tmp_path / "small.jsonl"
    run = cli("slim", str(source), "-o", str(out), "--drop-branches", "--format", "json")
    assert run.code == 0, run.stderr
    documents = [json.loads(line) for line in run.stdout.splitlines()]
    assert [d["change"] for d in documents[:-1]] == [
        "entry b0000001: not on the active path; moved to the .rejected file",
        "entry b0000002: kept (the active path refers to it), now a child of s0000003 (parentId b0000001 -> "
        "s0000003)",
    ]  # the label b0000003 is kept too; its parent b0000002 is kept, so it stays where it is
    assert documents[-1]["rejected"] == f"{out}.rejected" and documents[-1]["rejectedLines"] == 1
    tree = load_session(str(out))
    assert [e["id"] for e in tree.entries] == ["s0000001", "s0000002", "s0000003", "b0000002", "b0000003",
                                               "s0000004", "s0000005", "s0000006"]
    assert tree.leaf_id == "s0000006" and tree.labels == {"s0000001": "start"}
    assert context_of(out) == context_of(source)
    from pi_tools.audit.checks import audit_file

    # No new problem: the kept b0000002 was already an orphaned call (its branch never got a result).
    found = {(f["rule"], f["entryId"]) for f in audit_file(str(out)).findings}
    assert found <= {(f["rule"], f["entryId"]) for f in audit_file(str(source)).findings}
    assert ("orphaned-tool-call", "b0000002") in found
    # Nothing is lost: FILE is OUT plus OUT.rejected, line for line, with only the re-parented parentIds changed.
    rejected = (tmp_path / "small.jsonl.rejected").read_bytes().splitlines()
    number, line = rejected[0].split(b"\t", 1)
    lines_out = out.read_bytes().splitlines()
    rebuilt = lines_out[:int(number) - 1] + [line] + lines_out[int(number) - 1:]
    original = source.read_bytes().splitlines()
    assert len(rebuilt) == len(original)
    for new, old in zip(rebuilt, original, strict=True):
        parsed_new, parsed_old = json.loads(new), json.loads(old)
        if parsed_new != parsed_old:
            assert {**parsed_new, "parentId": parsed_old["parentId"]} == parsed_old
            assert new == old.replace(f'"parentId":"{parsed_old["parentId"]}"'.encode(),
                                      f'"parentId":"{parsed_new["parentId"]}"'.encode())


def test_pi_loads_the_slimmed_file(tmp_path: Path, cli: Any) -> None:
    source = write(tmp_path / "big.jsonl", bloated_session())
    out = tmp_path / "small.jsonl"
    run = cli("slim", str(source), "-o", str(out), "--max-image-kb", "100", "--max-tool-output-kb", "16",
              "--drop-branches")
    assert run.code == 0, run.stderr
    context = build_session_context(load_session(str(out)))
    document = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    digest = canonical_sha(json.loads(dumps_document(document)))
    if ORACLE_CONTEXT is not None:
        assert digest == ORACLE_CONTEXT
    if ORACLE.exists():
        reference = json.loads(subprocess.run([str(ORACLE), str(out), "--apis", "anthropic-messages",
                                               "--no-branches"], capture_output=True, check=True).stdout)
        assert "error" not in reference
        assert canonical_sha(reference["context"]) == digest


def test_usage_errors(tmp_path: Path, cli: Any) -> None:
    source = write(tmp_path / "big.jsonl", bloated_session())
    nothing = cli("slim", str(source), "-o", str(tmp_path / "o.jsonl"))
    assert (nothing.code, nothing.stderr) == (
        2, "pi-tools: nothing to do: give --max-image-kb, --max-tool-output-kb or --drop-branches\n")
    legacy = cli("slim", "fixtures/realworld/badlogic__pi-mono__compact.jsonl", "--dry-run", "--drop-branches")
    assert legacy.code == 2 and "--drop-branches needs a version 3 file (this one is version 1" in legacy.stderr
    dry = cli("slim", str(source), "--dry-run", "--max-image-kb", "1")
    assert dry.code == 0 and dry.stdout.splitlines()[-1].endswith("; nothing written (--dry-run)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.jsonl"]


if __name__ == "__main__" and "--regen" in sys.argv:
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        src = write(Path(directory) / "big.jsonl", bloated_session())
        dst = Path(directory) / "small.jsonl"
        from pi_tools.rewrite.slim import SlimOptions, slim_file

        slim_file(str(src), str(dst), SlimOptions(100, 16, True))
        raw = subprocess.run([str(ORACLE), str(dst), "--apis", "anthropic-messages", "--no-branches"],
                             capture_output=True, check=True).stdout
        print(canonical_sha(json.loads(raw)["context"]))

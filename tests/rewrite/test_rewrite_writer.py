"""The session writer every rewriting command uses: Pi's serialisation for new entries, refusals, backups, the
changed-while-read check, --dry-run and --format json, and SIGKILL at any moment leaving FILE intact and no
partial OUT (repair is the command that drives it here; scrub and slim go through the same commit)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pi_tools.rewrite.writer import (
    WriteError,
    commit,
    entry_line,
    fresh_id,
    new_entry,
    plan_targets,
    read_snapshot,
)

ROOT = Path(__file__).resolve().parents[2]
TORN = ROOT / "fixtures" / "bad" / "torn_last_line.jsonl"


def stamp(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), os.stat(path).st_mtime_ns


def test_new_entries_are_written_as_pi_writes_them() -> None:
    entry = new_entry("message", {"message": {"role": "user", "content": "é\ud800", "timestamp": 1.0},
                                  "timestamp": "2025-01-01T00:00:00.000Z", "parentId": None, "id": "0a1b2c3d"})
    assert list(entry) == ["type", "id", "parentId", "timestamp", "message"]
    # JSON.stringify: raw non-ASCII, lone surrogates escaped, 1.0 spelled 1, no spaces.
    assert entry_line(entry) == ('{"type":"message","id":"0a1b2c3d","parentId":null,"timestamp":'
                                 '"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"é\\ud800",'
                                 '"timestamp":1}}').encode()
    custom = new_entry("custom_message", {"id": "x", "parentId": "y", "timestamp": "t", "content": "c",
                                          "customType": "k", "display": False})
    assert list(custom) == ["type", "customType", "content", "display", "id", "parentId", "timestamp"]


def test_fresh_ids_are_8_hex_and_unique() -> None:
    taken: set[Any] = {"deadbeef"}
    ids = [fresh_id(taken) for _ in range(2000)]
    assert len(set(ids)) == 2000 and "deadbeef" not in ids
    assert all(len(i) == 8 and int(i, 16) >= 0 for i in ids)
    assert taken == {"deadbeef", *ids}


def test_out_is_refused_when_it_exists(tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    (tmp_path / "o.jsonl.rejected").write_text("x")
    with pytest.raises(WriteError, match=r"o\.jsonl\.rejected: already exists; pass --force"):
        plan_targets(str(TORN), str(out))
    with pytest.raises(WriteError, match="give either -o OUT or --in-place"):
        plan_targets(str(TORN), str(out), in_place=True)


def test_in_place_keeps_fresh_backups_and_never_overwrites_one(tmp_path: Path, cli: Any) -> None:
    source = tmp_path / "s.jsonl"
    original = TORN.read_bytes()
    source.write_bytes(original)
    (tmp_path / "s.jsonl.bak").write_bytes(b"an older backup\n")
    first = cli("repair", str(source), "--in-place")
    assert first.code == 0, first.stderr
    torn = original.split(b"\n")[-1]
    assert first.stdout.splitlines() == [
        f"{source}:6: dropped the torn final line ({len(torn)} bytes) to the .rejected file [torn-line]",
        f"{source}: 1 line(s) set aside in {source}.bak.1.rejected",
        f"{source}: the original is kept as {source}.bak.1",
    ]
    assert (tmp_path / "s.jsonl.bak").read_bytes() == b"an older backup\n"
    assert (tmp_path / "s.jsonl.bak.1").read_bytes() == original
    assert (tmp_path / "s.jsonl.bak.1.rejected").read_bytes() == b"6\t" + torn + b"\n"
    assert source.read_bytes() == original[: -len(torn)]
    repaired = source.read_bytes()
    unchanged = cli("repair", str(source), "--in-place")  # nothing to repair: no backup either
    assert (unchanged.code, unchanged.stdout) == (3, "")
    assert unchanged.stderr == f"pi-tools: {source}: nothing to repair; wrote nothing\n"
    assert source.read_bytes() == repaired
    with source.open("ab") as handle:
        handle.write(torn)  # torn again
    second = cli("repair", str(source), "--in-place")
    assert second.stdout.splitlines()[-1] == f"{source}: the original is kept as {source}.bak.2"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "s.jsonl", "s.jsonl.bak", "s.jsonl.bak.1", "s.jsonl.bak.1.rejected", "s.jsonl.bak.2",
        "s.jsonl.bak.2.rejected"]


def test_in_place_refuses_a_file_that_changed_while_read(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(TORN.read_bytes())
    snapshot = read_snapshot(str(source))
    targets = plan_targets(str(source), None, in_place=True)
    with source.open("ab") as handle:  # Pi appends an entry meanwhile
        handle.write(b'{"type":"label"}\n')
    appended = source.read_bytes()
    with pytest.raises(WriteError, match=r"changed while it was being rewritten \(its size changed from"):
        commit(snapshot, targets, b"new\n", b"1\tx\n")
    assert source.read_bytes() == appended
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]  # no backup, no rejected, no temp


def test_same_size_rewrite_while_read_is_refused_by_the_hash(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(b"aaaa\n")
    snapshot = read_snapshot(str(source))
    source.write_bytes(b"bbbb\n")
    os.utime(source, ns=(snapshot.mtime_ns, snapshot.mtime_ns))
    with pytest.raises(WriteError, match=r"\(its content changed\)"):
        commit(snapshot, plan_targets(str(source), None, in_place=True), b"new\n", b"")
    assert source.read_bytes() == b"bbbb\n"


def test_dry_run_writes_nothing_and_json_documents_each_change(tmp_path: Path, cli: Any) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(TORN.read_bytes())
    before = stamp(source)
    run = cli("repair", str(source), "--dry-run", "--format", "json")
    assert run.code == 0, run.stderr
    documents = [json.loads(line) for line in run.stdout.splitlines()]
    torn = len(TORN.read_bytes().split(b"\n")[-1])
    assert documents == [
        {"kind": "change", "source": str(source), "line": 6, "entryId": None, "rule": "torn-line",
         "change": f"dropped the torn final line ({torn} bytes) to the .rejected file"},
        {"kind": "rewrite", "source": str(source), "output": None, "rejected": None, "rejectedLines": 1,
         "backup": None, "changes": 1, "dryRun": True, "notes": 0},
    ]
    assert stamp(source) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]
    out = tmp_path / "o.jsonl"
    assert cli("repair", str(source), "-o", str(out), "--dry-run").code == 0
    assert not out.exists()


def test_usage_errors(cli: Any, tmp_path: Path) -> None:
    assert cli("repair", str(TORN)).stderr == \
        "pi-tools: no output: give -o OUT or --in-place (or --dry-run to only see the changes)\n"
    both = cli("repair", str(TORN), "-o", str(tmp_path / "o"), "--in-place")
    assert (both.code, both.stderr) == (2, "pi-tools: give either -o OUT or --in-place, not both\n")
    bad = cli("repair", str(TORN), "--dry-run", "--format", "xml")
    assert (bad.code, bad.stderr) == (2, "pi-tools: --format: unknown format 'xml' (choose from text, json)\n")


def big_damaged_session(path: Path, entries: int = 40000) -> None:
    """A session of ~40 MB with a torn tail, so a repair takes long enough to be killed mid-way."""
    lines = [json.dumps({"type": "session", "version": 3, "id": "kill-test", "timestamp": "2025-01-01T00:00:00.000Z",
                         "cwd": "/"})]
    parent = None
    for number in range(entries):
        entry_id = f"{number:08x}"
        lines.append(json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                                 "timestamp": "2025-01-01T00:00:00.000Z",
                                 "message": {"role": "user", "content": "x" * 1000, "timestamp": number}}))
        parent = entry_id
    path.write_bytes(("\n".join(lines) + '\n{"type":"message","id":"torn').encode())


@pytest.mark.parametrize("in_place", [False, True], ids=["out", "in-place"])
def test_sigkill_at_any_moment_leaves_file_intact_and_no_partial_out(tmp_path: Path, in_place: bool) -> None:
    source = tmp_path / "big.jsonl"
    big_damaged_session(source)
    original = source.read_bytes()
    complete = original[: original.rindex(b"\n") + 1]
    out = tmp_path / "out.jsonl"
    target = ["--in-place"] if in_place else ["-o", str(out)]
    outcomes = set()
    for delay in (0.05, 0.2, 0.4, 0.6, 0.8, 1.0, 1.3, 1.7, 2.2, 3.0):
        process = subprocess.Popen([sys.executable, "-m", "pi_tools", "repair", str(source), *target],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(30)
        if in_place:
            # FILE is the original or the whole repaired file, never anything in between.
            assert source.read_bytes() in (original, complete)
            done = source.read_bytes() == complete
            outcomes.add(done)
            if done:
                assert (tmp_path / "big.jsonl.bak").read_bytes() == original
            for leftover in tmp_path.glob("big.jsonl.bak*"):
                leftover.unlink()
            source.write_bytes(original)
        else:
            assert source.read_bytes() == original
            if out.exists():
                assert out.read_bytes() == complete
                assert (tmp_path / "out.jsonl.rejected").read_bytes().startswith(b"40002\t")
                outcomes.add(True)
                out.unlink()
            else:
                outcomes.add(False)
            (tmp_path / "out.jsonl.rejected").unlink(missing_ok=True)
        # Only hidden temporary files may remain from a killed run, never a visible partial output.
        visible = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("."))
        assert visible == ["big.jsonl"]
    assert False in outcomes  # at least one kill landed mid-way (the machine may be slow: later ones finish)

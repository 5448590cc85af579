"""`repair` after a dangling parent, and a repair that changes nothing.

tests/data/repair/dangling_results.jsonl: assistant a1 (line 3) calls c1 and c2; their real results r1, r2 (lines 4,
5) hang below `lost0001`, an entry that is not in the file. `--relink` must give them back to a1 before
`--close-orphans` invents `No result provided` for calls that have results, and whatever still dangles is named.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.oracle_path import ORACLE, ORACLE16  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "repair"


def _copy(tmp_path: Path, name: str) -> Path:
    session = tmp_path / "s.jsonl"
    shutil.copy(DATA / name, session)
    return session


def _roles(path: Path) -> list[tuple[str, str | None, str]]:
    out = []
    for line in path.read_text().splitlines()[1:]:
        entry = json.loads(line)
        out.append((entry["id"], entry["parentId"], (entry.get("message") or {}).get("role", entry["type"])))
    return out


def test_relink_attaches_results_below_a_dangling_parent_before_closing_orphans(cli: Any, tmp_path: Path) -> None:
    session = _copy(tmp_path, "dangling_results.jsonl")
    out = tmp_path / "fixed.jsonl"
    run = cli("repair", str(session), "-o", str(out), "--relink", "--close-orphans")
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout == (f"{session}:4: entry r1: parentId lost0001 (no such entry) -> a1: it holds results of "
                          "assistant a1's tool calls, whose branch ended there [dangling-parent]\n")
    assert _roles(out) == [("u1", None, "user"), ("a1", "u1", "assistant"), ("r1", "a1", "toolResult"),
                           ("r2", "r1", "toolResult"), ("a2", "r2", "assistant")]
    assert "No result provided" not in out.read_text()
    # only the parentId of r1 changed
    before, after = session.read_text().splitlines(), out.read_text().splitlines()
    assert [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] == [3]
    assert after[3] == before[3].replace('"parentId":"lost0001"', '"parentId":"a1"')
    audit = cli("audit", str(out))
    assert (audit.code, audit.stdout) == (0, "1 file(s): 0 error(s), 0 warning(s), 0 info; 1 clean\n")


def test_close_orphans_alone_says_where_the_real_results_are(cli: Any, tmp_path: Path) -> None:
    session = _copy(tmp_path, "dangling_results.jsonl")
    run = cli("repair", str(session), "--dry-run", "--close-orphans")
    assert run.code == 0
    note = ("note: entry {r} holds a result for call {c}, but its branch hangs below a parent that is not in the "
            "file, so the call got `No result provided` (`--relink` attaches such results to their batch first) "
            "[dangling-parent]")
    assert run.stdout.splitlines() == [
        f"{session}:3: added a `No result provided` tool result for call c1 after entry a1 [orphaned-tool-call]",
        f"{session}:3: added a `No result provided` tool result for call c2 after entry a1 [orphaned-tool-call]",
        f"{session}:4: " + note.format(r="r1", c="c1"),
        f"{session}:5: " + note.format(r="r2", c="c2"),
    ]


def test_relink_moves_the_message_it_reattached_and_names_what_still_dangles(cli: Any, tmp_path: Path) -> None:
    session = _copy(tmp_path, "dangling_results_behind_message.jsonl")
    out = tmp_path / "fixed.jsonl"
    run = cli("repair", str(session), "-o", str(out), "--relink", "--close-orphans", "--format", "json")
    assert run.code == 0, run.stderr
    docs = [json.loads(line) for line in run.stdout.splitlines()]
    assert [(d["kind"], d["line"], d["entryId"], d["rule"]) for d in docs[:-1]] == [
        ("change", 3, "a1", "tool-result-interleaved"),
        ("change", 4, "m1", "dangling-parent"),
        ("change", 4, "m1", "tool-result-interleaved"),
        ("change", 4, "m1", "tool-result-interleaved"),
        ("change", 5, "r1", "tool-result-interleaved"),
        ("change", 7, "a2", "tool-result-interleaved"),
        ("note", 8, "u9", "dangling-parent"),
    ]
    assert docs[-2]["note"] == "--relink left entry u9 dangling: parentId gone0002 names no entry; Pi's path stops here"
    assert _roles(out) == [("u1", None, "user"), ("a1", "u1", "assistant"), ("r1", "a1", "toolResult"),
                           ("r2", "r1", "toolResult"), ("m1", "r2", "custom_message"), ("a2", "m1", "assistant"),
                           ("u9", "gone0002", "user")]


@pytest.mark.parametrize("oracle", [ORACLE, ORACLE16], ids=["pi085", "pi16"])
def test_pi_loads_the_relinked_file(cli: Any, tmp_path: Path, oracle: Path) -> None:
    if not oracle.exists():
        pytest.skip(f"the reference oracle is not installed at {oracle}")
    session = _copy(tmp_path, "dangling_results.jsonl")
    out = tmp_path / "fixed.jsonl"
    assert cli("repair", str(session), "-o", str(out), "--relink", "--close-orphans").code == 0
    done = subprocess.run([str(oracle), str(out), "--apis", "anthropic-messages"], capture_output=True, timeout=300,
                          check=True)
    document = json.loads(done.stdout)
    assert document["leafId"] == "a2"
    assert [m["role"] for m in document["context"]["messages"]] == ["user", "assistant", "toolResult", "toolResult",
                                                                    "assistant"]
    assert [m["content"][0]["text"] for m in document["context"]["messages"][2:4]] == ["a b", "hello"]


def test_nothing_to_repair_writes_nothing(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "clean.jsonl"
    out = tmp_path / "out.jsonl"
    fixed = tmp_path / "fixed.jsonl"
    assert cli("repair", str(_copy(tmp_path, "dangling_results.jsonl")), "-o", str(fixed), "--relink").code == 0
    fixed.rename(session)
    for extra in (["-o", str(out)], ["--in-place"], ["--dry-run"]):
        before = sorted(p.name for p in tmp_path.iterdir())
        run = cli("repair", str(session), *extra, "--relink", "--close-orphans")
        assert (run.code, run.stdout, run.stderr) == (3, "", f"pi-tools: {session}: nothing to repair; wrote nothing\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == before  # no OUT, no backup
    as_json = cli("repair", str(session), "-o", str(out), "--format", "json")
    assert as_json.code == 3
    assert json.loads(as_json.stdout) == {
        "kind": "rewrite", "source": str(session), "output": None, "rejected": None, "rejectedLines": 0,
        "backup": None, "changes": 0, "dryRun": False, "notes": 0}


def test_a_missing_final_newline_is_a_change(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_bytes((DATA / "dangling_results.jsonl").read_bytes().rstrip(b"\n"))
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(session), "-o", str(out))
    assert (run.code, run.stdout) == (0, f"{session}:6: added the missing final newline [missing-final-newline]\n")
    assert out.read_bytes() == (DATA / "dangling_results.jsonl").read_bytes()

"""`pi-tools tree --pi 1.6`: system messages (their sections and tools), a compaction's system message, usage and
context_edit entries, exactly."""

from __future__ import annotations

from typing import Any


def test_tree_shows_system_messages_and_the_compactions_system_message(cli: Any) -> None:
    run = cli("tree", "--pi", "1.6", "tests/data/pi16/cases/e06_comp_sys.jsonl")
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout == """\
session edge-1  cwd=/tmp/x  entries=9
s1 system: [sections: a]  •
u1 user: q1  •
a1 assistant: r1  •
s2 system: [sections: a]  •
u2 user: q2  •
a2 assistant: r2  •
k1 [compaction] SUM [with system: [sections: preamble]]  •
s3 system: [sections: b]  •
u3 user: q3  ◀ leaf
"""


def test_ls_counts_system_messages_as_pi_16_does(cli: Any, tmp_path: Any) -> None:
    """Pi 1.6's SessionInfo is 0.85's (session-manager.ts buildSessionInfo): every message entry counts, system
    messages included (8 here); the first message is the first user text. ls gives the count export and the index
    give (session/counts.py, issue 25), which adds the compaction summary: 9."""
    import shutil

    shutil.copy("tests/data/pi16/cases/e06_comp_sys.jsonl", tmp_path / "s.jsonl")
    run = cli("ls", str(tmp_path), "--format", "json")
    (info,) = run.documents()
    assert (info["messageCount"], info["firstMessage"], info["id"]) == (9, "q1", "edge-1")

"""`pi-tools tree` and `pi-tools ls`: exact output on fixtures, and clear errors."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from support.golden import CASES


def test_tree_shows_branches_labels_leaf_and_damage(cli: Any) -> None:
    run = cli("tree", str(CASES / "edge_tree_shapes.jsonl"))
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "session 019a0000-0000-7000-8000-0000000000e4  cwd=/home/dev/proj  name='Tree shapes'  entries=12"
    assert lines[3] == "│  ├─ e0000003 assistant: root branch answer"
    assert lines[4] == "│  └─ e0000003 assistant: DUPLICATE id e0000003: this one wins in the index  •"
    assert lines[5] == "│     e0000007 user: continue from the duplicated entry  [label: checkpoint] •"
    assert lines[9] == "│     e000000b [label checkpoint → e0000007]  ◀ leaf"
    assert "! line 7: duplicate-id: id e0000003 is used again; the later entry wins in Pi's index" in lines
    assert sum("◀ leaf" in line for line in lines) == 1


def test_tree_of_a_cycle_reports_instead_of_hanging(cli: Any) -> None:
    run = cli("tree", "fixtures/bad/parent_cycle.jsonl", timeout=30)
    assert run.code == 0
    assert "! 3 entries are not reachable from any root (parentId cycle): c1, c2, c3" in run.stdout


def test_tree_of_an_invalid_file_fails_clearly(cli: Any) -> None:
    run = cli("tree", "fixtures/bad/bom.jsonl")
    assert run.code == 2
    assert run.stderr == "pi-tools: Session file is not a valid pi session: fixtures/bad/bom.jsonl\n"


def test_ls_lists_sessions_newest_first(cli: Any, tmp_path: Path) -> None:
    for name in ("c000_linear", "c010_summarymsgs"):
        (tmp_path / f"{name}.jsonl").write_bytes((CASES / f"{name}.jsonl").read_bytes())
    (tmp_path / "notes.jsonl").write_text('{"hello": 1}\n')
    run = cli("ls", str(tmp_path), "--format", "json")
    assert run.code == 0, run.stderr
    infos = run.documents()
    assert {Path(info["path"]).name for info in infos} == {"c000_linear.jsonl", "c010_summarymsgs.jsonl"}
    assert infos[0]["modified"] >= infos[1]["modified"]
    for info in infos:
        assert set(info) == {"path", "id", "cwd", "name", "parentSessionPath", "created", "modified",
                             "messageCount", "cost", "firstMessage"}
        assert info["messageCount"] > 0 and info["firstMessage"] != "(no messages)"
    table = cli("ls", str(tmp_path))
    assert table.stdout.splitlines()[0].split() == ["MODIFIED", "ID", "MSGS", "COST", "NAME", "CWD", "FIRST", "MESSAGE",
                                                    "PATH"]


def test_ls_rejects_a_file_that_is_not_a_session(cli: Any) -> None:
    """ls takes session files as well as folders (issue 25's one input contract); a named file must be one."""
    run = cli("ls", "README.md")
    assert run.code == 2 and run.stderr == "pi-tools: Session file is not a valid pi session: README.md\n"


def test_text_output_shows_lone_surrogates_instead_of_crashing(cli: Any) -> None:
    # fixtures/bad/lone_surrogate.jsonl holds a JSON "\ud83d" escape in the first user message.
    listing = cli("ls", "fixtures/bad")
    assert listing.code == 0 and "Traceback" not in listing.stderr
    assert "turn \\ud83d zero" in listing.stdout
    tree = cli("tree", "fixtures/bad/lone_surrogate.jsonl")
    assert tree.code == 0 and tree.stdout.splitlines()[1] == "e0000000 user: turn \\ud83d zero  •"


def test_ls_of_a_time_javascript_cannot_hold_shows_no_date(cli: Any, tmp_path: Path) -> None:
    """Pi's `modified` is `new Date(last activity)`: Invalid Date past 8.64e15 ms, null in JSON."""
    text = (CASES / "c000_linear.jsonl").read_text(encoding="utf-8")
    stamps = re.findall(r'"role":"user","content":.*?"timestamp":(\d+)', text)
    assert stamps
    (tmp_path / "huge.jsonl").write_text(text.replace(stamps[0], "98765432109876543210987", 1), encoding="utf-8")
    run = cli("ls", str(tmp_path), "--format", "json")
    assert (run.code, [(info["created"] is not None, info["modified"]) for info in run.documents()]) == (0, [(True, None)])
    table = cli("ls", str(tmp_path))
    assert table.code == 0 and table.stdout.splitlines()[1].startswith("(invalid date)  ")

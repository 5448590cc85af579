"""Every audit finding names its fix: the exact `pi-tools repair ...` command for its file, or why there is none,
in the table and in the JSON documents; and the command given really clears what it says it clears."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

from pi_tools.audit.fixes import NO_FIX, REPAIR_OPTIONS, SECRET_RULE
from pi_tools.audit.rules import RULES

DATA = Path(__file__).resolve().parents[1] / "data" / "repair"
NO_FIX_DANGLING = NO_FIX["dangling-parent"]


def test_every_rule_has_a_fix_or_a_reason() -> None:
    rules = {rule.id for rule in RULES}
    assert rules == set(REPAIR_OPTIONS) | set(NO_FIX) | {SECRET_RULE}
    assert not set(REPAIR_OPTIONS) & set(NO_FIX)


def test_table_names_one_repair_command_and_the_rules_without_one(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    shutil.copy(DATA / "dangling_results.jsonl", session)
    run = cli("audit", str(session))
    assert run.code == 1
    assert run.stdout.splitlines()[-3:] == [
        f"  fix: pi-tools repair {session} -o {tmp_path}/s.repaired.jsonl --close-orphans --relink  (clears "
        "orphaned-tool-call, dangling-parent)",
        "  no fix for tool-result-unmatched: the call it answers is not on its branch; when the result was cut off "
        "from its call by a dangling parent, the file's `repair --relink` above attaches it again, else nothing can",
        "1 file(s): 3 error(s), 2 warning(s), 0 info; 0 clean",
    ]


def test_json_findings_carry_fix_or_no_fix(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "my session.jsonl"
    shutil.copy(DATA / "dangling_results.jsonl", session)
    run = cli("audit", "--format", "json", str(session))
    command = f"pi-tools repair '{session}' -o '{tmp_path}/my session.repaired.jsonl' --close-orphans --relink"
    why = ("the call it answers is not on its branch; when the result was cut off from its call by a dangling "
           "parent, the file's `repair --relink` above attaches it again, else nothing can")
    assert [(d["rule"], d["entryId"], d["fix"], d["noFix"]) for d in map(json.loads, run.stdout.splitlines())] == [
        ("orphaned-tool-call", "a1", command, None),
        ("orphaned-tool-call", "a1", command, None),
        ("dangling-parent", "r1", command, None),
        ("tool-result-unmatched", "r1", None, why),
        ("tool-result-unmatched", "r2", None, why),
    ]
    first = json.loads(run.stdout.splitlines()[0])
    assert list(first) == ["kind", "source", "rule", "severity", "entryId", "line", "message", "fix", "noFix"]


def test_the_named_command_clears_the_findings(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    shutil.copy(DATA / "dangling_results.jsonl", session)
    [fix] = {json.loads(line)["fix"] for line in cli("audit", "--format", "json", str(session)).stdout.splitlines()
             if json.loads(line)["fix"]}
    words = shlex.split(fix)
    assert words[:2] == ["pi-tools", "repair"]
    repaired = cli(*words[1:])
    assert repaired.code == 0, repaired.stderr
    after = cli("audit", str(tmp_path / "s.repaired.jsonl"))
    assert (after.code, after.stdout) == (0, "1 file(s): 0 error(s), 0 warning(s), 0 info; 1 clean\n")


def test_a_dangling_parent_that_holds_no_results_has_no_fix(cli: Any) -> None:
    run = cli("audit", "fixtures/bad/two_objects_one_line.jsonl")
    assert run.stdout.splitlines()[-3:] == [
        "  fix: pi-tools repair fixtures/bad/two_objects_one_line.jsonl -o "
        "fixtures/bad/two_objects_one_line.repaired.jsonl  (clears concatenated-objects)",
        f"  no fix for dangling-parent: {NO_FIX_DANGLING}",
        "1 file(s): 2 error(s), 0 warning(s), 0 info; 0 clean",
    ]


def test_secrets_name_the_scrub_command(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    lines = (DATA / "dangling_results.jsonl").read_text().splitlines()
    # a real-looking key in the user's message (built here, so no key sits in the repository)
    key = "sk-ant-api03-" + "A1b2C3d4E5" * 9 + "AA"
    lines[1] = lines[1].replace("list files", f"use {key}")
    session.write_text("\n".join(lines[:2]) + "\n")
    run = cli("audit", "--rules", "secret-in-session", "--format", "json", str(session))
    docs = [json.loads(line) for line in run.stdout.splitlines()]
    assert docs and {(d["fix"], d["noFix"]) for d in docs} == {
        (f"pi-tools scrub {session} -o {tmp_path}/s.scrubbed.jsonl", None)}
    assert key not in run.stdout

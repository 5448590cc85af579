"""`pi-tools audit`: every rule fires on the session made to break it (rule id, entry id, line), a clean session
passes, exit codes follow --fail-on, and the conformance and real-world sessions give the findings checked by
hand (see the comments next to each expectation).
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pi_tools.audit.checks import audit_file
from pi_tools.audit.rules import (
    BASE_RULES,
    DIAGNOSTIC_RULES,
    RULES,
    RULES_BY_ID,
    UnknownRuleError,
    select_rules,
)
from pi_tools.audit.runner import run_audit
from pi_tools.engine import Engine
from pi_tools.engine.run import local_workers

from support.golden import CASES, REALWORLD, ROOT, case_names, realworld_names

DATA = ROOT / "tests" / "data" / "audit"
BAD = ROOT / "fixtures" / "bad"

# rule -> (line, entryId) of its one finding in tests/data/audit/<rule>.jsonl (see make_fixtures.py).
EXPECTED: dict[str, tuple[int | None, str | None]] = {
    "invalid-header": (1, None),
    "extra-header": (6, None),
    "malformed-line": (4, None),
    "torn-line": (6, None),
    "concatenated-objects": (6, None),
    "invalid-utf8": (2, "e1"),
    "junk-value": (4, None),
    "missing-final-newline": (5, "e4"),
    "legacy-version": (1, None),
    "invalid-id": (6, None),
    "duplicate-id": (7, "e5"),
    "dangling-parent": (6, "e5"),
    "parent-cycle": (2, "x1"),
    "bad-timestamp": (5, "e4"),
    "unknown-entry-type": (6, "e5"),
    "unknown-role": (6, "e5"),
    "block-type": (5, "e4"),
    "required-fields": (3, "e2"),
    "tool-result-unmatched": (5, "e5"),
    "tool-result-name": (4, "e3"),
    "tool-result-order": (5, "e5"),
    "tool-result-interleaved": (6, "e6"),
    "orphaned-tool-call": (3, "e2"),
    "errored-turn": (7, "e6"),
    "partial-message": (5, "e4"),
    "foreign-signature": (3, "e2"),
    "visibility-split": (6, "e5"),
    "secret-in-session": (6, "e5"),
    "compaction-first-kept": (6, "e5"),
    "branch-summary-from": (6, "e5"),
    "context-error": (6, "e5"),
}
# A message entry without a message is also a missing required field; Pi then fails on it.
COMPANIONS = {"context-error": {"required-fields"}}
GENERATED = {"pi-cannot-load"}  # needs >120k entries: built by a test below


def findings(path: Path | str, rules: str | None = "all") -> list[dict[str, Any]]:
    """Every rule's findings (the opt-in ones too) unless `rules` says otherwise."""
    result = audit_file(str(path), select_rules(rules))
    assert result.error is None, result.error
    return result.findings


def test_every_rule_has_a_fixture_and_the_catalogue_is_sound() -> None:
    assert set(EXPECTED) | GENERATED == {rule.id for rule in BASE_RULES}  # the 1.x rules: test_audit_pi16.py
    assert len({rule.id for rule in RULES}) == len(RULES)
    for rule in RULES:
        assert rule.severity in ("error", "warning", "info")
        assert len(rule.description) > 80 and "\n" not in rule.description
    assert set(DIAGNOSTIC_RULES.values()) <= set(RULES_BY_ID)


def test_docs_describe_every_rule() -> None:
    text = (ROOT / "docs" / "audit.md").read_text(encoding="utf-8")
    for rule in RULES:
        assert f"#### `{rule.id}` ({rule.severity})" in text
        assert rule.description in text


@pytest.mark.parametrize("rule_id", sorted(EXPECTED))
def test_fixture_breaks_exactly_its_rule(rule_id: str) -> None:
    got = findings(DATA / f"{rule_id}.jsonl")
    assert {f["rule"] for f in got} == {rule_id} | COMPANIONS.get(rule_id, set())
    mine = [f for f in got if f["rule"] == rule_id]
    assert len(mine) == 1
    finding = mine[0]
    assert (finding["line"], finding["entryId"]) == EXPECTED[rule_id]
    assert finding == {
        "kind": "finding", "source": str(DATA / f"{rule_id}.jsonl"), "rule": rule_id,
        "severity": RULES_BY_ID[rule_id].severity, "entryId": EXPECTED[rule_id][1], "line": EXPECTED[rule_id][0],
        "message": finding["message"],
    }
    assert list(finding) == ["kind", "source", "rule", "severity", "entryId", "line", "message"]


def test_clean_session_passes(cli: Any) -> None:
    assert findings(DATA / "clean.jsonl") == []
    run = cli("audit", "tests/data/audit/clean.jsonl", "--format", "json", "--fail-on", "warning")
    assert (run.code, run.stdout, run.stderr) == (0, "", "")
    table = cli("audit", "tests/data/audit/clean.jsonl")
    assert table.code == 0
    assert table.stdout == "1 file(s): 0 error(s), 0 warning(s), 0 info; 1 clean\n"


EXACT_MESSAGES = {
    "orphaned-tool-call": "tool call c2 (read) never gets a result; Pi sends `No result provided` in its place",
    "tool-result-interleaved": "tool result for call c2 of assistant e2 (line 3) comes after another message (e5, "
                               "line 5); Pi sends `No result provided` for the call and this result out of place",
    "tool-result-unmatched": "tool result for call c9 (read) matches no tool call of assistant e2 (line 3)",
    "tool-result-order": "tool result for call c1 comes after the result for call c2, but assistant e2 (line 3) "
                         "called c1 first",
    "tool-result-name": "tool result for call c1 is named 'write' but the call is 'read'",
    "compaction-first-kept": "compaction firstKeptEntryId gone names no entry; Pi keeps nothing from before the "
                             "compaction",
    "invalid-header": "the session header's id is the number 42, not a string; Pi refuses the file (not a valid pi "
                      "session)",
    "block-type": "assistant message content[1] has type 'reasoning'; assistant content allows only text, thinking, "
                  "toolCall",
    "required-fields": "assistant message content[0] (toolCall): 'arguments' is missing",
    "foreign-signature": "assistant message from anthropic/claude-sonnet-4-5 carries signatures (thinkingSignature "
                         "x1) that are dropped when the session continues with openai/gpt-5.1",
    "errored-turn": "assistant turn ended with stopReason 'error' (529 overloaded_error); Pi stores it but never "
                    "replays it",
}


@pytest.mark.parametrize("rule_id", sorted(EXACT_MESSAGES))
def test_exact_messages(rule_id: str) -> None:
    [finding] = [f for f in findings(DATA / f"{rule_id}.jsonl") if f["rule"] == rule_id]
    assert finding["message"] == EXACT_MESSAGES[rule_id]


@pytest.mark.parametrize(("rule_id", "default_code", "warning_code"), [
    ("orphaned-tool-call", 0, 1),       # warning
    ("tool-result-unmatched", 1, 1),    # error
    ("errored-turn", 0, 0),             # info never fails a run
    ("concatenated-objects", 1, 1),
    ("legacy-version", 0, 1),
])
def test_exit_codes_follow_fail_on(cli: Any, rule_id: str, default_code: int, warning_code: int) -> None:
    path = f"tests/data/audit/{rule_id}.jsonl"
    default = cli("audit", path, "--format", "json")
    assert default.code == default_code
    assert [d["rule"] for d in default.documents()] == [rule_id]
    assert cli("audit", path, "--fail-on", "warning").code == warning_code


def test_rules_option_selects_rules(cli: Any) -> None:
    run = cli("audit", "tests/data/audit/context-error.jsonl", "--format", "json", "--rules", "context-error")
    assert [d["rule"] for d in run.documents()] == ["context-error"]
    run = cli("audit", "tests/data/audit/context-error.jsonl", "--format", "json", "--rules", "visibility-split")
    assert (run.code, run.stdout) == (0, "")
    bad = cli("audit", "tests/data/audit/clean.jsonl", "--rules", "no-such-rule")
    assert bad.code == 2
    assert bad.stderr == "pi-tools: --rules: unknown rule id(s): no-such-rule (see --list-rules)\n"
    with pytest.raises(UnknownRuleError):
        select_rules("orphaned-tool-call,nope")


def test_bad_options_exit_2(cli: Any, tmp_path: Path) -> None:
    assert cli("audit", "tests/data/audit/clean.jsonl", "--format", "xml").code == 2
    assert cli("audit", "tests/data/audit/clean.jsonl", "--fail-on", "info").code == 2
    # Without a PATH, Pi's session folder is read; here it does not exist (tests/cli/test_cli_install.py has
    # more).
    none = cli("audit", env={"PI_CODING_AGENT_DIR": str(tmp_path)})
    assert none.code == 2 and f"Pi's session folder {tmp_path}/sessions does not exist" in none.stderr


def test_list_rules(cli: Any) -> None:
    run = cli("audit", "--list-rules")
    assert run.code == 0
    for rule in BASE_RULES:  # Pi 0.85's catalogue (the default); Pi 1.6's: test_audit_pi16.py
        assert f"{rule.id}" in run.stdout and rule.title in run.stdout
    docs = cli("audit", "--list-rules", "--format", "json").documents()
    assert [d["id"] for d in docs] == [rule.id for rule in BASE_RULES]
    assert all(d["kind"] == "rule" and d["description"] == RULES_BY_ID[d["id"]].description for d in docs)


def test_unusable_inputs_exit_2_and_the_rest_is_audited(cli: Any, tmp_path: Path) -> None:
    empty_dir = tmp_path / "nothing"
    empty_dir.mkdir()
    missing = tmp_path / "missing.jsonl"
    run = cli("audit", "--format", "json", str(missing), "tests/data/audit/orphaned-tool-call.jsonl", str(empty_dir))
    assert run.code == 2
    docs = run.documents()
    assert docs[0] == {"kind": "error", "source": str(missing), "error": f"{missing}: no such file"}
    assert docs[1]["rule"] == "orphaned-tool-call"
    assert docs[2] == {"kind": "error", "source": str(empty_dir),
                       "error": f"{empty_dir}: no session files (*.jsonl) under this directory"}
    assert run.stderr.splitlines() == [
        f"pi-tools: {missing}: no such file",
        f"pi-tools: {empty_dir}: no session files (*.jsonl) under this directory",
    ]
    assert "Traceback" not in run.stderr


def test_invalid_files_are_findings_not_crashes(cli: Any) -> None:
    run = cli("audit", "--format", "json", "fixtures/bad/empty.jsonl", "fixtures/bad/missing_header.jsonl",
              "fixtures/bad/bom.jsonl", "fixtures/bad/binary_garbage.jsonl")
    assert run.code == 1
    by_source: dict[str, list[str]] = {}
    for doc in run.documents():
        by_source.setdefault(doc["source"], []).append(doc["rule"])
    assert by_source["fixtures/bad/empty.jsonl"] == ["invalid-header"]
    assert by_source["fixtures/bad/missing_header.jsonl"] == ["invalid-header"]
    assert sorted(by_source["fixtures/bad/bom.jsonl"]) == ["invalid-header", "malformed-line"]
    assert "invalid-header" in by_source["fixtures/bad/binary_garbage.jsonl"]


def test_directories_are_searched_recursively_in_order(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "b" / "deep").mkdir(parents=True)
    (tmp_path / "a").mkdir()
    shutil.copy(DATA / "orphaned-tool-call.jsonl", tmp_path / "b" / "deep" / "x.jsonl")
    shutil.copy(DATA / "errored-turn.jsonl", tmp_path / "a" / "y.jsonl")
    shutil.copy(DATA / "clean.jsonl", tmp_path / "b" / "z.jsonl")
    (tmp_path / "b" / "notes.txt").write_text("{not a session")
    run = cli("audit", "--format", "json", str(tmp_path))
    assert run.code == 0
    assert [(Path(d["source"]).relative_to(tmp_path).as_posix(), d["rule"]) for d in run.documents()] == [
        ("a/y.jsonl", "errored-turn"), ("b/deep/x.jsonl", "orphaned-tool-call"),
    ]


def test_process_pool_keeps_input_order(tmp_path: Path) -> None:
    names = sorted(p.name for p in DATA.glob("*.jsonl"))
    paths = [str(DATA / name) for name in names] * 3
    serial = list(run_audit(paths, engine=Engine(jobs=1)))
    pooled = list(run_audit(paths, engine=Engine(jobs=2)))
    assert [r.source for r in pooled] == paths
    assert [r.findings for r in pooled] == [r.findings for r in serial]



@pytest.mark.parametrize("jobs", [1, 2])
def test_json_encoded_per_file_is_what_the_findings_write(jobs: int, tmp_path: Path) -> None:
    """run_audit_json (each file's lines encoded where it was audited) joins to json_lines of run_audit, and each
    file's worst severity is that of its findings."""
    from pi_tools.audit.formats import json_lines
    from pi_tools.audit.rules import SEVERITY_RANK
    from pi_tools.audit.runner import run_audit_json

    paths = [str(DATA / name) for name in sorted(p.name for p in DATA.glob("*.jsonl"))]
    paths.insert(1, str(tmp_path / "missing.jsonl"))
    enabled = select_rules("all")
    results = list(run_audit(paths, enabled, Engine(jobs=1)))
    encoded = list(run_audit_json(paths, enabled, Engine(jobs=jobs)))
    assert [e.source for e in encoded] == paths
    assert b"".join(e.lines for e in encoded) == json_lines(results, fixes=True)
    assert [e.error for e in encoded] == [r.error for r in results]
    assert encoded[1].error is not None and encoded[1].worst == -1
    assert [e.worst for e in encoded] == [
        max((SEVERITY_RANK[f["severity"]] for f in r.findings), default=-1) for r in results]
    assert {-1, SEVERITY_RANK["error"], SEVERITY_RANK["warning"]} <= {e.worst for e in encoded}  # clean and failing files

def test_pool_only_when_it_helps(tmp_path: Path) -> None:
    small = [str(DATA / "clean.jsonl"), str(DATA / "errored-turn.jsonl")]
    sizes = [os.path.getsize(name) for name in small]
    assert local_workers(Engine(), sizes, len(small)) == 1
    big = [4 << 20] * 3  # only the sizes matter here
    cores = len(os.sched_getaffinity(0))
    assert local_workers(Engine(), big, 3) == (1 if cores < 2 else min(cores, 3))
    assert local_workers(Engine(), big[:1], 1) == 1
    assert local_workers(Engine(jobs=2), sizes, 2) == 2  # --jobs decides, however small the files


# --- the damaged fixtures, conformance cases and real sessions -----------------------------------------------

# fixtures/bad: rules each file raises (the reader's diagnostics, classified).
BAD_RULES: dict[str, set[str]] = {
    "bad_timestamps": {"bad-timestamp"},
    "crlf": set(),
    "dangling_parent": {"dangling-parent"},
    "duplicate_ids": {"duplicate-id"},
    "header_only": set(),
    "header_numeric_id": {"invalid-header"},
    "huge_numbers": set(),
    "invalid_utf8": {"invalid-utf8"},
    "junk_last": {"junk-value"},
    "lone_surrogate": set(),
    "message_entry_without_message": {"required-fields", "context-error"},
    "missing_header": {"invalid-header"},
    "nul_bytes": {"malformed-line"},
    "parent_cycle": {"parent-cycle", "context-error"},
    "self_parent": {"parent-cycle", "context-error"},
    "torn_last_line": {"torn-line"},
    "two_objects_one_line": {"concatenated-objects", "dangling-parent"},
    "unknown_types_and_roles": {"unknown-entry-type", "unknown-role"},
    "wrong_field_types": {"invalid-id", "bad-timestamp", "required-fields"},
}


@pytest.mark.parametrize("name", sorted(BAD_RULES))
def test_bad_fixtures(name: str) -> None:
    assert {f["rule"] for f in findings(BAD / f"{name}.jsonl")} == BAD_RULES[name]


def test_bad_fixture_lines() -> None:
    torn = findings(BAD / "torn_last_line.jsonl")
    assert [(f["rule"], f["line"]) for f in torn] == [("torn-line", 6)]
    concatenated = findings(BAD / "two_objects_one_line.jsonl")
    assert [(f["rule"], f["line"], f["entryId"]) for f in concatenated] == [
        ("concatenated-objects", 3, None), ("dangling-parent", 4, "e0000003")]
    cycle = findings(BAD / "parent_cycle.jsonl")
    assert [(f["rule"], f["line"], f["entryId"]) for f in cycle] == [("parent-cycle", 2, "c1"), ("context-error", 4, "c3")]
    assert cycle[1]["message"].startswith("Pi cannot build the context for the leaf: parentId cycle through entry c3")


# Findings per real session, counted by rule. Checked by hand: lamurian has the 6 error stops its provenance
# lists; before-compaction line 628 calls bash (toolu_01571BX...) and line 629 is a compaction, so that call is
# orphaned; marcpadz continues with deepseek/deepseek-v4-pro while earlier zai and opencode turns carry
# thinking signatures; pinion05's line 31 has an invalid escape, so the results below it lose their parent.
REALWORLD_RULES: dict[str, dict[str, int]] = {
    "badlogic__pi-mono__before-compaction": {"errored-turn": 19, "legacy-version": 1, "orphaned-tool-call": 1},
    "badlogic__pi-mono__compact": {"concatenated-objects": 1, "errored-turn": 10, "legacy-version": 1},
    "badlogic__pi-mono__large-session": {"errored-turn": 22, "legacy-version": 1},
    "badlogic__pi-mono__session": {"concatenated-objects": 1, "errored-turn": 6, "legacy-version": 1},
    "castai__kimchi-dev__session": {"visibility-split": 6},
    "castai__kimchi-dev__statsuline": {"visibility-split": 5},
    "kir-gadjello__pi-session-manager__873fc059_crew-planner_0": {},
    "lamurian__paradocs__session": {"errored-turn": 6},
    # secret-in-session (checked by hand): a JWT in a signed image URL (line 78, in a user message and its copy),
    # the password of `postgresql://` URLs in text, commands and a written file (lines 748-830; one a real
    # database password, one the placeholder "randompassword" of a .env example).
    "marcpadz__dexter-v3__pi-session": {"errored-turn": 26, "foreign-signature": 51, "secret-in-session": 8},
    "pinion05__agent-complex-task__03-raddit-dashboard-pr__session": {
        "dangling-parent": 1, "malformed-line": 1, "orphaned-tool-call": 7, "required-fields": 4,
        "tool-result-order": 8, "tool-result-unmatched": 6, "visibility-split": 22,
    },
}


@pytest.mark.parametrize("name", realworld_names())
def test_realworld_findings(name: str) -> None:
    got = findings(REALWORLD / f"{name}.jsonl")
    assert dict(Counter(f["rule"] for f in got)) == REALWORLD_RULES[name]


def test_realworld_spot_checks() -> None:
    orphan = [f for f in findings(REALWORLD / "badlogic__pi-mono__before-compaction.jsonl")
              if f["rule"] == "orphaned-tool-call"]
    assert [(f["line"], f["message"]) for f in orphan] == [(628, (
        "tool call toolu_01571BXn2nSXvrR7sxVHAXXE (bash) never gets a result; Pi sends `No result provided` in "
        "its place"))]
    pinion = findings(REALWORLD / "pinion05__agent-complex-task__03-raddit-dashboard-pr__session.jsonl")
    assert [(f["line"], f["entryId"]) for f in pinion if f["rule"] == "dangling-parent"] == [(32, "04939082")]
    assert [f["line"] for f in pinion if f["rule"] == "malformed-line"] == [31]
    concatenated = findings(REALWORLD / "badlogic__pi-mono__session.jsonl", "concatenated-objects")
    assert [f["line"] for f in concatenated] == [440]


# Conformance cases checked by hand against their files.
CONFORMANCE_SPOT_CHECKS: dict[str, list[tuple[str, int | None, str | None]]] = {
    # line 26 calls wdHyra4Za, 41Eph0Mgd, ExGHbX6uG; results come back as wdHyra4Za, 41Eph0Mgd (l.28), ExGHbX6uG (l.29)
    "c001_tools": [("orphaned-tool-call", 23, "6b013d45"), ("tool-result-order", 29, "1ccd3f3d"),
                   ("missing-final-newline", 31, "73298f5e")],
    # the compaction at line 16 keeps from 42505d3c, an id that appears nowhere else in the file
    "c029_compaction": [("orphaned-tool-call", 15, "7f5f0be8"), ("compaction-first-kept", 16, "2456d2a8")],
    "c010_summarymsgs": [],
    "edge_compaction_corners": [],
}


@pytest.mark.parametrize("name", sorted(CONFORMANCE_SPOT_CHECKS))
def test_conformance_spot_checks(name: str) -> None:
    got = [(f["rule"], f["line"], f["entryId"]) for f in findings(CASES / f"{name}.jsonl")]
    assert got == CONFORMANCE_SPOT_CHECKS[name]


def test_conformance_errors_case_reports_each_errored_turn() -> None:
    got = findings(CASES / "c005_errors.jsonl")
    errored = [f for f in got if f["rule"] == "errored-turn"]
    with open(CASES / "c005_errors.jsonl", encoding="utf-8") as handle:
        stops = [json.loads(line).get("message", {}).get("stopReason") for line in handle if line.strip()]
    assert len(errored) == sum(1 for stop in stops if stop in ("error", "aborted")) == 3


def test_every_conformance_case_audits() -> None:
    for name in case_names():
        result = audit_file(str(CASES / f"{name}.jsonl"))
        assert result.error is None
        assert all(f["rule"] in RULES_BY_ID and f["severity"] == RULES_BY_ID[f["rule"]].severity
                   for f in result.findings)


def test_more_than_120k_entries_after_a_compaction(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    parts = [json.dumps({"type": "session", "version": 3, "id": "big", "timestamp": "2025-01-01T00:00:00.000Z",
                         "cwd": "/"}) + "\n"]
    parent = None
    for index in range(121_000):
        entry_id = f"{index:08x}"
        parts.append(json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                                 "timestamp": "2025-01-01T00:00:00.000Z",
                                 "message": {"role": "user", "content": "m", "timestamp": 1}}) + "\n")
        parent = entry_id
        if index == 2:
            parts.append(json.dumps({"type": "compaction", "id": "cccccccc", "parentId": parent,
                                     "timestamp": "2025-01-01T00:00:00.000Z", "summary": "s",
                                     "firstKeptEntryId": "00000001", "tokensBefore": 1}) + "\n")
            parent = "cccccccc"
    path.write_text("".join(parts))
    got = findings(path)
    assert [(f["rule"], f["line"]) for f in got] == [("pi-cannot-load", 5)]
    assert got[0]["message"].startswith("120997 entries follow the latest compaction")


def test_auditing_all_fixtures_reports_every_session_file() -> None:
    """Speed is measured in benchmarks/test_audit_speed.py (ratios in one run), never by a clock in a test."""
    paths = [str(ROOT / "fixtures")]
    results = list(run_audit(paths))
    assert len(results) == len(sorted((ROOT / "fixtures").rglob("*.jsonl")))


def test_input_files_are_never_written(tmp_path: Path, cli: Any) -> None:
    copy = tmp_path / "torn.jsonl"
    copy.write_bytes((BAD / "torn_last_line.jsonl").read_bytes())
    before = (copy.read_bytes(), os.stat(copy).st_mtime_ns)
    assert cli("audit", str(copy)).code == 1
    assert (copy.read_bytes(), os.stat(copy).st_mtime_ns) == before


def test_secrets_in_a_clean_session_are_found_by_both_readers(tmp_path: Path) -> None:
    """secret-in-session on a clean file (audited from the bulk index) equals the line-by-line audit's findings,
    also for a key spelled with a \\u escape in the file's text."""
    from pi_tools.audit.checks import audit_bytes, audit_bytes_line_by_line
    from pi_tools.audit.clean import audit_clean_bytes
    from pi_tools.audit.findings import FindingSink

    key = "AKIA" + "Q3EXAMPLEKEY7ZZ9"
    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp"},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": f"my key is {key}"}], "timestamp": 1}},
        {"type": "custom", "id": "a2", "parentId": "a1", "timestamp": "2026-01-01T00:00:02.000Z",
         "customType": "note", "data": {"token": "ghp_" + "a" * 36}},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines).replace("AKIA", "\\u0041KIA")
    path = tmp_path / "clean.jsonl"
    path.write_text(text)
    data = path.read_bytes()
    assert audit_clean_bytes(FindingSink(str(path), frozenset(RULES_BY_ID)), data, str(path))
    every_rule = frozenset(RULES_BY_ID)
    clean = [f for f in audit_bytes(data, str(path), every_rule) if f["rule"] == "secret-in-session"]
    slow = [f for f in audit_bytes_line_by_line(data, str(path), every_rule) if f["rule"] == "secret-in-session"]
    assert [f for f in audit_bytes(data, str(path)) if f["rule"] == "secret-in-session"] == []  # opt-in
    assert clean == slow and [(f["entryId"], f["line"]) for f in clean] == [("a1", 2), ("a2", 3)]
    assert key not in repr(clean) and "ghp_" not in repr(clean)


def test_invalid_utf8_split_by_ascii_in_a_skipped_field_is_reported(tmp_path: Path) -> None:
    """A lone UTF-8 lead byte followed by ASCII inside tool-call arguments: the cheap high-bytes check would pass
    it when other non-ASCII text follows, so the bulk-index audit must not take the file; the finding is the
    line-by-line reader's."""
    from pi_tools.audit.checks import audit_bytes, audit_bytes_line_by_line

    lines = [
        b'{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}',
        b'{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":'
        b'{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"p":"\xc3A\xa9"}}],'
        b'"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,'
        b'"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,'
        b'"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1}}',
        '{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":'
        '{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"\u00a9 ok"}],'
        '"isError":false,"timestamp":2}}'.encode(),
    ]
    data = b"\n".join(lines) + b"\n"
    got = audit_bytes(data, "split.jsonl")
    assert got == audit_bytes_line_by_line(data, "split.jsonl")
    assert [(f["rule"], f["line"]) for f in got if f["rule"] == "invalid-utf8"] == [("invalid-utf8", 2)]


def test_rule_selection() -> None:
    """No --rules: the default rules (secret-in-session is opt-in); `all`; `+id` adds to the defaults."""
    defaults = select_rules(None)
    assert "secret-in-session" not in defaults and len(defaults) == len(BASE_RULES) - 1
    assert select_rules("all") == frozenset(rule.id for rule in BASE_RULES)
    assert select_rules("+secret-in-session") == defaults | {"secret-in-session"}
    assert select_rules("secret-in-session,orphaned-tool-call") == {"secret-in-session", "orphaned-tool-call"}
    with pytest.raises(UnknownRuleError, match=r"unknown rule id\(s\): \+nope"):
        select_rules("+nope")

"""Audit output formats: JSON Lines findings, a table, JUnit XML valid against the Ant JUnit schema and SARIF
valid against the OASIS SARIF 2.1.0 schema (both vendored in tests/data/schemas, see the README there).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import xmlschema

from pi_tools.audit.checks import AuditResult, audit_file
from pi_tools.audit.formats import json_lines, junit, sarif, table
from pi_tools.audit.rules import RULES, RULES_BY_ID, select_rules

from support.golden import ROOT

SCHEMAS = ROOT / "tests" / "data" / "schemas"
DATA = ROOT / "tests" / "data" / "audit"
SAMPLE = ["clean", "orphaned-tool-call", "tool-result-interleaved", "errored-turn", "torn-line", "invalid-header",
          "legacy-version"]
ALL = frozenset(RULES_BY_ID)


@cache
def junit_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(SCHEMAS / "JUnit.xsd"))


@cache
def sarif_validator() -> Any:
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def results(names: list[str]) -> list[AuditResult]:
    return [audit_file(f"tests/data/audit/{name}.jsonl") for name in names]


def test_json_lines_one_finding_per_line() -> None:
    out = json_lines(results(SAMPLE) + [AuditResult("gone.jsonl", error="gone.jsonl: no such file")])
    docs = [json.loads(line) for line in out.decode().splitlines()]
    assert docs[-1] == {"kind": "error", "source": "gone.jsonl", "error": "gone.jsonl: no such file"}
    findings = docs[:-1]
    assert [d["rule"] for d in findings] == [
        "orphaned-tool-call", "tool-result-interleaved", "errored-turn", "torn-line", "invalid-header",
        "legacy-version",
    ]
    for doc in findings:
        assert list(doc) == ["kind", "source", "rule", "severity", "entryId", "line", "message"]


def test_table_groups_by_file() -> None:
    text = table(results(["clean", "orphaned-tool-call"]))
    assert text.splitlines() == [
        "tests/data/audit/orphaned-tool-call.jsonl",
        "  3  warning  orphaned-tool-call  e2  tool call c2 (read) never gets a result; Pi sends `No result "
        "provided` in its place",
        "2 file(s): 0 error(s), 1 warning(s), 0 info; 1 clean",
    ]


def test_junit_is_valid_and_has_one_case_per_session_and_rule() -> None:
    items = results(SAMPLE) + [AuditResult("gone.jsonl", error="gone.jsonl: no such file")]
    xml = junit(items, ALL)
    junit_schema().validate(xml)
    root = ET.fromstring(xml)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [r.source for r in items]
    for suite, item in zip(suites, items, strict=True):
        cases = suite.findall("testcase")
        if item.error is not None:
            assert [c.get("name") for c in cases] == ["read"]
            assert suite.get("errors") == "1" and cases[0].find("error") is not None
            continue
        assert [c.get("name") for c in cases] == [rule.id for rule in RULES]
        failing = {c.get("name") for c in cases if c.find("failure") is not None}
        expected = {f["rule"] for f in item.findings if f["severity"] == "error"}
        assert failing == expected
        assert suite.get("failures") == str(len(expected))
    torn = suites[SAMPLE.index("torn-line")]
    [failure] = [c.find("failure") for c in torn.findall("testcase") if c.get("name") == "torn-line"]
    assert failure is not None and failure.get("type") == "error"
    assert failure.text is not None and failure.text.startswith("tests/data/audit/torn-line.jsonl:6: [error] torn-line")


def test_junit_fail_on_warning_fails_warnings_and_notes_the_rest() -> None:
    xml = junit(results(["orphaned-tool-call", "errored-turn"]), ALL, "warning")
    junit_schema().validate(xml)
    root = ET.fromstring(xml)
    orphan, errored = root.findall("testsuite")
    assert orphan.get("failures") == "1"
    assert errored.get("failures") == "0"
    out = errored.find("system-out")
    assert out is not None and out.text is not None and "errored-turn e6" in out.text


def test_junit_with_selected_rules_and_hostile_text(tmp_path: Path) -> None:
    session = tmp_path / "weird <&> \x01name.jsonl"
    source = (DATA / "visibility-split.jsonl").read_text()
    session.write_text(source.replace('"customType":"note"', '"customType":"n\\u0001<&>\\u0007"'))
    items = [audit_file(str(session), select_rules("visibility-split,orphaned-tool-call"))]
    xml = junit(items, select_rules("visibility-split,orphaned-tool-call"), "warning")
    junit_schema().validate(xml)
    assert [c.get("name") for c in ET.fromstring(xml).iter("testcase")] == ["orphaned-tool-call", "visibility-split"]


def test_sarif_is_valid_and_locates_findings() -> None:
    items = results(SAMPLE)
    log = sarif(items, ALL)
    sarif_validator().validate(log)
    run = log["runs"][0]
    assert log["version"] == "2.1.0"
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [rule.id for rule in RULES]
    assert all(r["fullDescription"]["text"] == RULES_BY_ID[r["id"]].description for r in rules)
    flat = [f for item in items for f in item.findings]
    assert len(run["results"]) == len(flat)
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for result, finding in zip(run["results"], flat, strict=True):
        assert result["ruleId"] == finding["rule"]
        assert rules[result["ruleIndex"]]["id"] == finding["rule"]
        assert result["level"] == levels[finding["severity"]]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == finding["source"]
        assert location["region"]["startLine"] == finding["line"]
    orphan = next(r for r in run["results"] if r["ruleId"] == "orphaned-tool-call")
    assert orphan["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "tests/data/audit/orphaned-tool-call.jsonl"}, "region": {"startLine": 3}}
    assert orphan["properties"] == {"entryId": "e2"}


def test_sarif_file_level_findings_and_unusable_inputs() -> None:
    empty = audit_file("fixtures/bad/empty.jsonl")
    assert [(f["rule"], f["line"]) for f in empty.findings] == [("invalid-header", None)]
    log = sarif([empty, AuditResult("my dir/gone.jsonl", error="my dir/gone.jsonl: no such file")],
                select_rules("invalid-header"))
    sarif_validator().validate(log)
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["invalid-header"]
    assert "region" not in run["results"][0]["locations"][0]["physicalLocation"]
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    notification = invocation["toolExecutionNotifications"][0]
    assert notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20dir/gone.jsonl"


@pytest.mark.parametrize("fmt", ["sarif", "junit"])
def test_cli_ci_formats(cli: Any, fmt: str) -> None:
    run = cli("audit", "--format", fmt, "tests/data/audit", "fixtures/realworld")
    assert run.code == 1
    if fmt == "sarif":
        log = json.loads(run.stdout)
        sarif_validator().validate(log)
        sources = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
        assert "tests/data/audit/orphaned-tool-call.jsonl" in sources
    else:
        junit_schema().validate(run.stdout)
        assert len(ET.fromstring(run.stdout).findall("testsuite")) == 32 + 10

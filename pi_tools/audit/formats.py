"""Writers for audit results: a table for people, JSON Lines for tools, JUnit XML and SARIF 2.1.0 for CI.

Every writer takes the same input, the per-file AuditResults in input order plus the enabled rules, so a
result looks the same whichever format shows it. JUnit follows the Apache Ant schema most CI systems read (one
test suite per session, one test case per session and rule, one failure element listing that rule's findings);
SARIF follows the OASIS 2.1.0 schema with the session path as artifact URI and the finding's line as region,
which is what GitHub code scanning needs to show a finding on the session file.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import quote

import orjson

from pi_tools.audit.findings import AuditResult
from pi_tools.audit.rules import BASE_RULES, RULES, RULES_BY_ID, SEVERITY_RANK, Rule
from pi_tools.output.texttable import align_columns
from pi_tools.pipe.documents import dumps_document

FORMATS = ("table", "json", "junit", "sarif")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
TOOL_URI = "https://pypi.org/project/pi-tools/"


# Characters XML 1.0 cannot carry at all (control characters, lone surrogates): session text may hold them.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def escape(text: str) -> str:
    # Imported by the XML writers only: xml.sax.saxutils brings urllib.request and ssl (tens of ms).
    from xml.sax.saxutils import escape as xml_escape

    return xml_escape(_NOT_XML.sub("\ufffd", text))


def quoteattr(text: str) -> str:
    from xml.sax.saxutils import quoteattr as xml_quoteattr

    return xml_quoteattr(_NOT_XML.sub("\ufffd", text))


def _tool_version() -> str:
    try:
        from importlib.metadata import version

        return version("pi-tools")
    except Exception:  # noqa: BLE001 - metadata is missing in a bare source tree
        return "0"


def json_lines(results: Iterable[AuditResult], fixes: bool = False) -> bytes:
    """One `finding` document per line; an `error` document for each unusable input. With `fixes` (audit's own
    output) each finding also names its fix (audit.fixes.with_fixes: `fix` and `noFix`)."""
    from pi_tools.audit.fixes import with_fixes

    out: list[bytes] = []
    for result in results:
        if result.error is not None:
            out.append(dumps_document({"kind": "error", "source": result.source, "error": result.error}))
        findings = with_fixes(result.findings, result.source) if fixes else result.findings
        out.extend(dumps_document(finding) for finding in findings)
    return b"".join(out)


def table(results: list[AuditResult], fixes: bool = False) -> str:
    """Findings grouped by file, aligned columns, and a one-line summary; with `fixes` (audit's own output) each
    file's findings are followed by their fixes (audit.fixes.file_fixes)."""
    lines: list[str] = []
    counts = {"error": 0, "warning": 0, "info": 0}
    clean = 0
    for result in results:
        if result.error is not None:
            lines.append(f"{result.source}: cannot audit: {result.error}")
            continue
        if not result.findings:
            clean += 1
            continue
        lines.append(result.source)
        rows = [
            (str(f["line"] if f["line"] is not None else "-"), f["severity"], f["rule"], f["entryId"] or "-",
             " ".join(str(f["message"]).splitlines()))
            for f in result.findings
        ]
        for row in rows:
            counts[row[1]] += 1
        lines.extend("  " + line for line in align_columns(rows, right={0}))
        if fixes:
            from pi_tools.audit.fixes import file_fixes

            lines.extend("  " + line for line in file_fixes(result.findings, result.source))
    unusable = sum(1 for r in results if r.error is not None)
    summary = (
        f"{len(results)} file(s): {counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info; "
        f"{clean} clean" + (f", {unusable} unusable" if unusable else "")
    )
    lines.append(summary)
    return "\n".join(lines) + "\n"


def _rules(enabled: frozenset[str], catalogue: Sequence[Any] | None = None) -> list[Rule]:
    return [rule for rule in (RULES if catalogue is None else catalogue) if rule.id in enabled]


def junit(results: list[AuditResult], enabled: frozenset[str], fail_on: str = "error",
          catalogue: Sequence[Any] | None = None, package: str = "pi-tools.audit") -> str:
    """JUnit XML: a test case per session and rule, failing when a finding reaches `fail_on`.

    Findings below the threshold do not fail their test case (CI would disagree with the exit code
    otherwise); they are listed in the suite's system-out instead.
    """
    import socket

    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    host = quoteattr(socket.gethostname() or "localhost")
    rules = _rules(enabled, catalogue)
    suites: list[str] = []
    for index, result in enumerate(results):
        name = quoteattr(result.source)
        cases: list[str] = []
        notes: list[str] = []
        failures = errors = 0
        if result.error is not None:
            errors = 1
            cases.append(
                f'    <testcase name="read" classname={name} time="0">'
                f'<error type="unusable-input" message={quoteattr(result.error)}>{escape(result.error)}</error>'
                "</testcase>"
            )
        else:
            by_rule: dict[str, list[dict[str, Any]]] = {}
            for finding in result.findings:
                by_rule.setdefault(finding["rule"], []).append(finding)
            for rule in rules:
                found = by_rule.get(rule.id, [])
                failing = [f for f in found if SEVERITY_RANK[f["severity"]] >= SEVERITY_RANK[fail_on]]
                failing_ids = {id(f) for f in failing}
                notes.extend(_finding_line(result.source, f) for f in found if id(f) not in failing_ids)
                case = f'    <testcase name={quoteattr(rule.id)} classname={name} time="0"'
                if not failing:
                    cases.append(case + "/>")
                    continue
                failures += 1
                text = "\n".join(_finding_line(result.source, f) for f in failing)
                message = quoteattr(f"{len(failing)} finding(s): {failing[0]['message']}")
                cases.append(
                    f"{case}><failure type={quoteattr(rule.severity)} message={message}>{escape(text)}</failure>"
                    "</testcase>"
                )
        suites.append(
            f'  <testsuite package="{package}" id="{index}" name={name} timestamp="{stamp}" hostname={host} '
            f'tests="{len(cases)}" failures="{failures}" errors="{errors}" time="0">\n'
            "    <properties/>\n" + "\n".join(cases) + ("\n" if cases else "")
            + (f"    <system-out>{escape(chr(10).join(notes))}</system-out>\n" if notes else "    <system-out/>\n")
            + "    <system-err/>\n  </testsuite>"
        )
    return '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n' + "\n".join(suites) + "\n</testsuites>\n"


def _finding_line(source: str, finding: dict[str, Any]) -> str:
    line = finding["line"] if finding["line"] is not None else "-"
    return f"{source}:{line}: [{finding['severity']}] {finding['rule']} {finding['entryId'] or '-'}: {finding['message']}"


def _artifact_uri(path: str) -> str:
    """The session path as a URI reference (relative paths stay relative so code scanning maps them)."""
    return quote(path.replace("\\", "/"), safe="/:@-._~!$&'()*+,;=")


def sarif(results: list[AuditResult], enabled: frozenset[str], catalogue: Sequence[Any] | None = None,
          tool: str = "pi-tools audit") -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run: the enabled rules and one result per finding (`catalogue`: another rule
    set with audit's Rule fields, such as preflight's)."""
    rules = _rules(enabled, catalogue)
    index_of = {rule.id: i for i, rule in enumerate(rules)}
    driver_rules = [
        {
            "id": rule.id,
            "name": "".join(part.capitalize() for part in rule.id.split("-")),
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.description},
            "help": {"text": rule.description},
            "defaultConfiguration": {"level": SARIF_LEVELS[rule.severity]},
            "properties": {"tags": ["pi-session"] + ([f"invariant-{rule.invariant}"] if rule.invariant else [])},
        }
        for rule in rules
    ]
    sarif_results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for result in results:
        uri = _artifact_uri(result.source)
        if result.error is not None:
            notifications.append({
                "level": "error", "message": {"text": result.error},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}}}],
            })
            continue
        for finding in result.findings:
            location: dict[str, Any] = {"artifactLocation": {"uri": uri}}
            if isinstance(finding["line"], int) and finding["line"] >= 1:
                location["region"] = {"startLine": finding["line"]}
            item: dict[str, Any] = {
                "ruleId": finding["rule"],
                "ruleIndex": index_of[finding["rule"]],
                "level": SARIF_LEVELS[finding["severity"]],
                "message": {"text": finding["message"]},
                "locations": [{"physicalLocation": location}],
            }
            properties = {key: finding[key] for key in ("entryId", "api", "model", "payloadPath") if finding.get(key)}
            if properties:
                item["properties"] = properties
            sarif_results.append(item)
    invocation: dict[str, Any] = {"executionSuccessful": not notifications}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": tool, "version": _tool_version(), "informationUri": TOOL_URI,
                "rules": driver_rules,
            }},
            "invocations": [invocation],
            "results": sarif_results,
        }],
    }


def rule_list(fmt: str, rules: Sequence[Rule] | None = None) -> str:
    """The catalogue for `--list-rules` (`rules`: the Pi version's; default: the rules every version has): a
    readable list, or JSON Lines with `--format json`."""
    rules = BASE_RULES if rules is None else rules
    if fmt == "json":
        return "".join(
            orjson.dumps({"kind": "rule", "id": r.id, "severity": r.severity, "title": r.title,
                          "invariant": r.invariant, "description": r.description}).decode() + "\n"
            for r in rules
        )
    import textwrap

    width = max(len(rule.id) for rule in rules)
    out: list[str] = []
    for rule in rules:
        out.append(f"{rule.id.ljust(width)}  {rule.severity:<7}  {rule.title}")
        out.extend(textwrap.wrap(rule.description, 100, initial_indent="    ", subsequent_indent="    "))
    return "\n".join(out) + "\n"


__all__ = ["FORMATS", "RULES_BY_ID", "json_lines", "junit", "rule_list", "sarif", "table"]

"""Preflight results in audit's formats (table, JSON Lines, JUnit, SARIF) and the replay's request table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pi_tools.audit.findings import AuditResult
from pi_tools.output.texttable import align_columns
from pi_tools.pipe.documents import dumps_document
from pi_tools.preflight.check import PreflightResult
from pi_tools.preflight.rules import SEVERITY_RANK, all_rules

if TYPE_CHECKING:  # replay's module is imported by --replay only
    from pi_tools.preflight.replay import ReplayResult


def as_audit_results(results: Sequence[PreflightResult]) -> list[AuditResult]:
    return [AuditResult(r.source, list(r.findings), r.error) for r in results]


def findings_table(results: Sequence[PreflightResult]) -> str:
    """Findings grouped by file with their payload path, then a one-line summary."""
    lines: list[str] = []
    counts = dict.fromkeys(SEVERITY_RANK, 0)
    clean = 0
    for result in results:
        if result.error is not None:
            # (errors name their file already, as on stderr: said once here)
            lines.append(f"{result.source}: cannot check: {result.error.removeprefix(result.source + ': ')}")
            continue
        if not result.findings:
            clean += 1
            lines.append(f"{result.source}: {result.model} ({result.api}): no finding")
            continue
        lines.append(f"{result.source}: {result.model} ({result.api})")
        rows: list[tuple[str, ...]] = []
        for f in result.findings:
            counts[f["severity"]] += 1
            rows.append((str(f["line"] if f["line"] is not None else "-"), f["severity"], f["rule"],
                         f["entryId"] or "-", f["payloadPath"] or "-", " ".join(str(f["message"]).splitlines())))
        lines.extend("  " + line for line in align_columns(rows, right={0}))
    lines.append(f"{len(results)} file(s): {counts['error']} error(s), {counts['warning']} warning(s), "
                 f"{counts['info']} info; {clean} clean")
    return "\n".join(lines) + "\n"


def summary_document(result: ReplayResult) -> dict[str, Any]:
    """The confusion matrix of one session's replay (the last document of its --format json output)."""
    matrix = result.matrix()
    return {"kind": "summary", "source": result.source, "requests": len(result.requests), "matrix": matrix}


def replay_json(results: Sequence[ReplayResult]) -> bytes:
    out: list[bytes] = []
    for result in results:
        if result.error is not None:
            out.append(dumps_document({"kind": "error", "source": result.source, "error": result.error}))
            continue
        out.extend(dumps_document(doc) for doc in result.requests)
        out.append(dumps_document(summary_document(result)))
    return b"".join(out)


def replay_table(results: Sequence[ReplayResult]) -> str:
    """Per request: line, entry, model, outcome, prediction and the rules hit; then the confusion matrix."""
    from pi_tools.preflight.replay import OUTCOMES, PREDICTIONS

    lines: list[str] = []
    total = {outcome: dict.fromkeys(PREDICTIONS, 0) for outcome in OUTCOMES}
    for result in results:
        if result.error is not None:
            lines.append(f"{result.source}: cannot replay: {result.error}")
            continue
        lines.append(f"{result.source}: {len(result.requests)} request(s)")
        outside: dict[str, int] = {}
        rows: list[tuple[str, ...]] = []
        for doc in result.requests:
            total[doc["outcome"]][doc["predicted"]] += 1
            notes = [f for f in doc["findings"] if f["rule"] == "replay-model-not-in-catalog"]
            if notes:
                outside[doc["model"]] = outside.get(doc["model"], 0) + 1
            if doc["outcome"] == "accepted" and doc["predicted"] == "ok" and len(doc["findings"]) == len(notes):
                continue  # the common case: listed only in the matrix
            rules = ",".join(sorted({f["rule"] for f in doc["findings"]})) or "-"
            where = next((f"{f['payloadPath']}@{f['entryId']}" for f in doc["findings"] if f.get("payloadPath")), "-")
            error = " ".join(str(doc["providerError"] or "").split())[:100] or "-"
            rows.append((str(doc["line"] or "-"), doc["entryId"] or "-", doc["model"], doc["outcome"],
                         doc["predicted"], rules, where, error))
        if rows:  # a header names the columns, as every other table of pi-tools does
            rows.insert(0, ("LINE", "ENTRY", "MODEL", "OUTCOME", "PREDICTED", "RULES", "WHERE", "PROVIDER ERROR"))
        lines.extend("  " + line for line in align_columns(rows, right={0}))
        for model, count in sorted(outside.items()):
            lines.append(f"  not in Pi 0.85's catalog, checked with its API's rules: {model} ({count} request(s))")
    lines.append("")
    lines.append("confusion matrix (recorded outcome x prediction):")
    matrix_rows: list[tuple[str, ...]] = [("", "predicted ok", "predicted reject")]
    matrix_rows.extend((outcome, str(total[outcome]["ok"]), str(total[outcome]["reject"])) for outcome in OUTCOMES)
    lines.extend("  " + line for line in align_columns(matrix_rows, right={1, 2}))
    return "\n".join(lines) + "\n"


def catalogue() -> list[Any]:
    return all_rules()

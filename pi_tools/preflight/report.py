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


FINDINGS_HEADER = ("line", "severity", "rule", "entry", "payload path", "message")


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
        lines.extend("  " + line for line in align_columns([FINDINGS_HEADER, *rows], right={0}))
        fixes = list(dict.fromkeys(f"{f['rule']}: {f['fix']}" for f in result.findings if f.get("fix")))
        lines.extend(f"  fix {line}" for line in fixes)
    unchecked = sum(1 for result in results if result.error is not None)
    lines.append(f"{len(results)} file(s): {counts['error']} error(s), {counts['warning']} warning(s), "
                 f"{counts['info']} info; {clean} clean; {unchecked} not checked")
    return "\n".join(lines) + "\n"


def summary_document(result: ReplayResult) -> dict[str, Any]:
    """The confusion matrix of one session's replay (the last document of its --format json output): over the
    requests the file reproduces; those it cannot and the recorded errors by class are counted apart."""
    matrix = result.matrix()
    return {"kind": "summary", "source": result.source, "requests": len(result.requests), "matrix": matrix,
            "notReproducible": result.unreproducible(), "errorClasses": result.error_classes()}


def replay_json(results: Sequence[ReplayResult]) -> bytes:
    out: list[bytes] = []
    for result in results:
        if result.error is not None:
            out.append(dumps_document({"kind": "error", "source": result.source, "error": result.error}))
            continue
        out.extend(dumps_document(doc) for doc in result.requests)
        out.append(dumps_document(summary_document(result)))
    return b"".join(out)


REPLAY_HEADER = ("line", "entry", "model", "outcome", "predicted", "rules", "where", "provider error", "fix")


def replay_table(results: Sequence[ReplayResult]) -> str:
    """Per request worth a look: line, entry, model, outcome, prediction, the rules hit and the provider's error;
    then the requests the file cannot reproduce (with the reason), the recorded errors by class and the
    confusion matrix of the reproducible requests."""
    from pi_tools.preflight.outcome import ERROR_CLASSES
    from pi_tools.preflight.replay import OUTCOMES, PREDICTIONS

    lines: list[str] = []
    total = {outcome: dict.fromkeys(PREDICTIONS, 0) for outcome in OUTCOMES}
    classes: dict[str, int] = {}
    unreproducible = 0
    for result in results:
        if result.error is not None:
            lines.append(f"{result.source}: cannot replay: {result.error}")
            continue
        lines.append(f"{result.source}: {len(result.requests)} request(s)")
        outside: dict[str, int] = {}
        rows: list[tuple[str, ...]] = []
        reasons: dict[str, list[str]] = {}
        for doc in result.requests:
            notes = [f for f in doc["findings"] if f["rule"] == "replay-model-not-in-catalog"]
            if notes:
                outside[doc["model"]] = outside.get(doc["model"], 0) + 1
            if not doc.get("reproducible", True):
                unreproducible += 1
                reasons.setdefault(doc["notReproducible"], []).append(str(doc["line"] or "-"))
                continue
            total[doc["outcome"]][doc["predicted"]] += 1
            if doc.get("errorClass") is not None:
                classes[doc["errorClass"]] = classes.get(doc["errorClass"], 0) + 1
            if doc["outcome"] != "rejected" and doc["predicted"] == "ok" and len(doc["findings"]) == len(notes):
                continue  # accepted, or an error not about the request, as predicted: counted below only
            rules = ",".join(sorted({f["rule"] for f in doc["findings"]})) or "-"
            where = next((f"{f['payloadPath']}@{f['entryId']}" for f in doc["findings"] if f.get("payloadPath")), "-")
            error = " ".join(str(doc["providerError"] or "").split())[:100] or "-"
            outcome = doc["outcome"] if doc.get("errorClass") in (None, "request") \
                else f"{doc['outcome']} ({doc['errorClass']})"
            fix = next((f["fix"] for f in doc["findings"] if f.get("fix") and f["severity"] != "info"), "-")
            rows.append((str(doc["line"] or "-"), doc["entryId"] or "-", doc["model"], outcome,
                         doc["predicted"], rules, where, error, fix))
        if rows:
            lines.extend("  " + line for line in align_columns([REPLAY_HEADER, *rows], right={0}))
        for reason, at in reasons.items():
            shown = ", ".join(at[:10]) + (f" and {len(at) - 10} more" if len(at) > 10 else "")
            lines.append(f"  not reproducible: {len(at)} request(s) (line {shown}): {reason}")
        for model, count in sorted(outside.items()):
            whose = f"Pi {result.pi}'s" if result.pi else "the Pi version's"
            lines.append(f"  not in {whose} catalog, checked with its API's rules: {model} ({count} request(s))")
    lines.append("")
    lines.append(f"not reproducible (kept out of the matrix): {unreproducible} request(s)")
    shown_classes = ", ".join(f"{name} {classes[name]}" for name in ERROR_CLASSES if name in classes) or "none"
    lines.append(f"recorded errors by class: {shown_classes} (only request errors count as rejections)")
    lines.append("confusion matrix (recorded outcome x prediction, reproducible requests):")
    matrix_rows: list[tuple[str, ...]] = [("", "predicted ok", "predicted reject")]
    matrix_rows.extend((outcome, str(total[outcome]["ok"]), str(total[outcome]["reject"])) for outcome in OUTCOMES)
    lines.extend("  " + line for line in align_columns(matrix_rows, right={1, 2}))
    return "\n".join(lines) + "\n"


def catalogue() -> list[Any]:
    return all_rules()

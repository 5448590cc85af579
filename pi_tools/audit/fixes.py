"""From an audit finding to its fix: the exact `pi-tools` command that clears the finding's rule for that file, or
why no rewrite of the file can.

The table is by rule, because the rule says what `repair` (or `scrub`) can do about it; the command is built for the
finding's own file, so it can be copied as it stands. Every repair writes a new file (`FILE.repaired.jsonl` beside
the input) and never touches the input. tests/audit/test_audit_fixes.py checks that each command really clears
its rule on a file that has it.
"""

from __future__ import annotations

import shlex
from typing import Any

# rule -> the repair options that clear it ("" = repair without options: line-level damage).
REPAIR_OPTIONS: dict[str, str] = {
    "malformed-line": "",
    "torn-line": "",
    "concatenated-objects": "",
    "invalid-utf8": "",
    "junk-value": "",
    "missing-final-newline": "",
    "invalid-header": "--header",
    "orphaned-tool-call": "--close-orphans",
    "tool-result-interleaved": "--relink",
    "tool-result-order": "--relink",
}

# rule -> why there is no command (and what to do instead, when there is something).
NO_FIX: dict[str, str] = {
    "extra-header": "two files were joined; which entries belong to which session is not in the file (split it by "
                    "hand at the second header)",
    "legacy-version": "nothing to repair: Pi migrates a version 1 or 2 file itself when it opens it",
    "invalid-id": "the right id or parent is not in the file",
    "duplicate-id": "which entry the children of a shared id belong to is not in the file",
    "dangling-parent": "the parent is not in the file; `repair --relink` re-attaches only a run of tool results to "
                       "the tool calls they answer, any other branch cannot be placed",
    "parent-cycle": "where the loop should be cut is not in the file",
    "bad-timestamp": "the right time is not in the file (Pi copes with it)",
    "unknown-entry-type": "an entry of a newer Pi or an extension; Pi skips it, and dropping it would lose data",
    "unknown-role": "what the message was is not in the file",
    "block-type": "what the block was is not in the file",
    "required-fields": "the missing values are not in the file (a malformed tool call: `repair "
                       "--drop-malformed-calls` removes it with its results)",
    "tool-result-unmatched": "the call it answers is not in the file; Pi drops such a result for some providers",
    "tool-result-name": "the stored result names its tool differently; Pi sends it as it is",
    "errored-turn": "information only (`repair --trim-failed` removes failed turns at the end of the active path)",
    "partial-message": "the rest of the streamed message is not in the file",
    "foreign-signature": "nothing to repair: Pi drops signatures another model made, as it should",
    "visibility-split": "information only: Pi shows and sends the session differently by design",
    "compaction-first-kept": "the entry the compaction kept from is not in the file",
    "branch-summary-from": "the entry the summary came from is not in the file",
    "context-error": "Pi cannot build the context from this tree; fix the tree findings above it first",
    "compaction-keeps-nothing": "information only",
    "context-edit-no-effect": "a context edit whose target is gone; Pi ignores it",
    "removed-tool-called": "the call was made before the tool was removed; Pi sends it as it is",
    "pi-cannot-load": "the file is too large after its last compaction for that Pi; compact it in a newer Pi",
}

SECRET_RULE = "secret-in-session"


def repaired_name(source: str) -> str:
    """Where a suggested repair writes: FILE.repaired.jsonl beside FILE (never FILE itself)."""
    stem = source[: -len(".jsonl")] if source.endswith(".jsonl") else source
    return f"{stem}.repaired.jsonl"


def _cut_off_results(findings: list[dict[str, Any]]) -> set[Any]:
    """Entries with a dangling parent that are themselves tool results without their call: results cut off from
    their batch, which `repair --relink` re-attaches (before `--close-orphans` would invent results for them)."""
    unmatched = {f.get("entryId") for f in findings if f.get("rule") == "tool-result-unmatched"}
    return {f.get("entryId") for f in findings
            if f.get("rule") == "dangling-parent" and f.get("entryId") is not None and f.get("entryId") in unmatched}


def _repairs(finding: dict[str, Any], cut_off: set[Any]) -> str | None:
    """The repair option that clears this finding ("" for none needed), or None when no repair does."""
    rule = finding.get("rule")
    if rule == "dangling-parent" and finding.get("entryId") in cut_off:
        return "--relink"
    return REPAIR_OPTIONS.get(str(rule))


def fix_command(findings: list[dict[str, Any]], source: str) -> str | None:
    """One `pi-tools repair` command for the file that clears every finding of `findings` a repair can clear (None:
    none can)."""
    cut_off = _cut_off_results(findings)
    options = [option for option in (_repairs(f, cut_off) for f in findings) if option is not None]
    if not options:
        return None
    chosen = sorted({option for option in options if option})
    return " ".join(["pi-tools", "repair", shlex.quote(source), "-o", shlex.quote(repaired_name(source)), *chosen])


def _scrub_command(source: str) -> str:
    scrubbed = f"{source[: -len('.jsonl')] if source.endswith('.jsonl') else source}.scrubbed.jsonl"
    return f"pi-tools scrub {shlex.quote(source)} -o {shlex.quote(scrubbed)}"


def _why_not(finding: dict[str, Any], cut_off: set[Any]) -> str:
    rule = str(finding.get("rule"))
    if rule == "tool-result-unmatched" and cut_off:
        return ("the call it answers is not on its branch; when the result was cut off from its call by a dangling "
                "parent, the file's `repair --relink` above attaches it again, else nothing can")
    return NO_FIX.get(rule, "no rewrite of the stored file clears it")


def with_fixes(findings: list[dict[str, Any]], source: str) -> list[dict[str, Any]]:
    """Each of one file's findings with `fix` (the command that clears it: the file's one repair command, or the
    scrub command for a secret; null when none does) and `noFix` (why there is none; null when there is a fix)."""
    cut_off = _cut_off_results(findings)
    command = fix_command(findings, source)
    fixed: list[dict[str, Any]] = []
    for finding in findings:
        if finding.get("rule") == SECRET_RULE:
            fixed.append({**finding, "fix": _scrub_command(source), "noFix": None})
        elif _repairs(finding, cut_off) is not None:
            fixed.append({**finding, "fix": command, "noFix": None})
        else:
            fixed.append({**finding, "fix": None, "noFix": _why_not(finding, cut_off)})
    return fixed


def file_fixes(findings: list[dict[str, Any]], source: str) -> list[str]:
    """The table's fix lines for one file: one command for everything repair clears (with the rules it clears),
    the scrub command for secrets, then one line per rule without a fix saying why."""
    lines: list[str] = []
    seen: set[str] = set()
    cleared: list[str] = []
    missing: dict[str, str] = {}
    for finding in with_fixes(findings, source):
        rule = str(finding.get("rule"))
        if finding["fix"] is None:
            missing.setdefault(rule, str(finding["noFix"]))
        elif rule != SECRET_RULE and rule not in seen:
            seen.add(rule)
            cleared.append(rule)
    command = fix_command(findings, source)
    if command is not None:
        lines.append(f"fix: {command}  (clears {', '.join(cleared)})")
    if any(f.get("rule") == SECRET_RULE for f in findings):
        lines.append(f"fix: {_scrub_command(source)}  (clears {SECRET_RULE})")
    lines.extend(f"no fix for {rule}: {why}" for rule, why in missing.items() if rule not in seen)
    return lines

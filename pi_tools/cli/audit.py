"""`pi-tools audit`: check stored sessions against the invariants that keep a conversation replayable."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pi_tools.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FINDINGS,
    EXIT_OK,
    default_session_folder,
    exit_without_teardown,
    fail,
    report,
)
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine
from pi_tools.cli.options import (
    PATHS_HELP,
    REFUSAL_EXPECTED_ONE_OF,
    AuditFormat,
    FailOn,
    Pi,
    chosen_pi,
    format_option,
    paths_argument,
    rules_option,
)


def audit_command(
    paths: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP} (default: Pi's session folder).")] = None,
    output_format: Annotated[AuditFormat, format_option(AuditFormat, "table, json (one finding per line), junit or sarif.", REFUSAL_EXPECTED_ONE_OF)] = "table",
    rules: Annotated[str | None, rules_option("Only these rule ids; +ID adds an opt-in rule (secret-in-session) to the defaults; all: every rule (default: every rule but the opt-in ones).")] = None,
    fail_on: FailOn = "error",
    list_rules: Annotated[bool, typer.Option("--list-rules", help="Print every rule with its severity and description, then exit.")] = False,
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Audit sessions: ordering invariants, tool call/result pairing, tree structure and line damage.

    Exit status: 1 when a finding reaches --fail-on, 2 when an input cannot be read (it is named on stderr and,
    with --format json, as an `error` document), 0 otherwise. Every branch of every file is checked. Without
    PATH, reads Pi's session folder ($PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions).

    Example: pi-tools audit --format sarif --fail-on warning ~/.pi/agent/sessions > audit.sarif
    """
    version = chosen_pi(pi, command="audit")  # None: neither --pi nor PI_TOOLS_PI names one, the default's rules
    chosen = chosen_engine(engine, scheduler, jobs, progress="audit")
    if paths and len(paths) == 1 and not list_rules and chosen.kind == "local":
        from pi_tools.engine.early import read_ahead

        read_ahead(paths)  # one input: its bytes come in while the audit modules import (a directory: nothing read)
    from pi_tools.audit.formats import junit, rule_list, sarif, table
    from pi_tools.audit.rules import SEVERITY_RANK, UnknownRuleError, catalogue, select_rules
    from pi_tools.audit.runner import run_audit
    from pi_tools.pipe.documents import dumps_document

    if version is None:
        from pi_tools.pi import resolve

        version = resolve()
    version_rules = catalogue(version.context)
    if list_rules:
        _write(rule_list(output_format, version_rules).encode())
        raise SystemExit(EXIT_OK)
    if not paths:
        paths = [default_session_folder()]
    try:
        enabled = select_rules(rules, version_rules)
    except UnknownRuleError as exc:
        fail(f"--rules: {exc}")
    from pi_tools.engine import EngineError

    threshold = SEVERITY_RANK[fail_on]
    if output_format == "json":  # each file's lines are encoded where it was audited
        from pi_tools.audit.runner import run_audit_json

        chunks: list[bytes] = []
        unusable = failing = False
        try:
            for encoded in run_audit_json(paths, enabled, chosen, version.name):
                if encoded.error is not None:
                    report(encoded.error)
                    unusable = True
                failing = failing or encoded.worst >= threshold
                chunks.append(encoded.lines)
        except EngineError as exc:
            fail(str(exc))
        _write(b"".join(chunks))
        exit_without_teardown(EXIT_BAD_INPUT if unusable else EXIT_FINDINGS if failing else EXIT_OK)
    results = []
    try:
        for result in run_audit(paths, enabled, chosen, version.name):
            if result.error is not None:
                report(result.error)
            results.append(result)
    except EngineError as exc:
        fail(str(exc))
    if output_format == "table":
        _write(table(results, fixes=True).encode())
    elif output_format == "junit":
        _write(junit(results, enabled, fail_on).encode())
    else:
        _write(dumps_document(sarif(results, enabled)))
    if any(result.error is not None for result in results):
        exit_without_teardown(EXIT_BAD_INPUT)
    failing = any(SEVERITY_RANK[f["severity"]] >= threshold for result in results for f in result.findings)
    exit_without_teardown(EXIT_FINDINGS if failing else EXIT_OK)  # everything is written: skip freeing the results


def _write(data: bytes) -> None:
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise SystemExit(0) from None

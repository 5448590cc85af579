"""`pi-tools preflight`: will the provider accept this session's next request (or, with --replay, the ones it made)?"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pi_tools.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FINDINGS,
    EXIT_OK,
    before_exit,
    default_session_folder,
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
    PiInstall,
    PromptCwd,
    SystemPrompt,
    ToolsFile,
    ToolsFileAlias,
    chosen_pi,
    format_option,
    leaf_option,
    model_option,
    paths_argument,
    reasoning_option,
    rules_option,
)

if TYPE_CHECKING:
    from pi_tools.engine import Engine


def preflight_command(
    paths: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP} (default: Pi's session folder).")] = None,
    model: Annotated[str | None, model_option("Catalog model to check the next request for (default: the session's current model).")] = None,
    system_prompt: SystemPrompt = None,
    tools_file: ToolsFile = None,
    prompt_cwd: PromptCwd = None,
    pi_install: PiInstall = None,
    reasoning: Annotated[str | None, reasoning_option("Thinking level (default: the session's), clamped to the model as Pi does.")] = None,
    leaf: Annotated[str | None, leaf_option("The entry id to build the context from (default: the session's leaf).")] = None,
    replay: Annotated[bool, typer.Option("--replay", help="Check every request the session made and compare with the provider's recorded verdict.")] = False,
    all_branches: Annotated[bool, typer.Option("--all-branches", help="With --replay: the requests of every branch, not only the active path.")] = False,
    learn: Annotated[str | None, typer.Option("--learn", metavar="FILE", help="With --replay: write what the providers accepted and refused, in the provider table's format (a new file).")] = None,
    knowledge: Annotated[str | None, typer.Option("--knowledge", metavar="FILE", help="A provider table to add to the shipped one (e.g. written by --learn; default: $PI_TOOLS_PREFLIGHT_KNOWLEDGE).")] = None,
    output_format: Annotated[AuditFormat, format_option(AuditFormat, "table, json, junit or sarif (--replay: table or json).", REFUSAL_EXPECTED_ONE_OF)] = "table",
    fail_on: FailOn = "error",
    rules: Annotated[str | None, rules_option("Only these rule ids (default: all).")] = None,
    list_rules: Annotated[bool, typer.Option("--list-rules", help="Print every rule with its APIs, severity and the provider's message, then exit.")] = False,
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
    tools_alias: ToolsFileAlias = None,
) -> None:
    """Check, offline, the request Pi would send (the --pi version's) against the rules the provider enforces, naming the entry behind
    each problem. `finding` documents as audit writes them, plus api, model and payloadPath.

    With --replay: one `request` document per request the session made (--format json; a `summary` document with the
    confusion matrix closes each file), or a table ending in the matrix. Requests whose context crosses damage are
    reported not reproducible and kept out of the matrix; recorded errors are classified (only `request` errors
    are rejections). --learn FILE writes what the providers accepted and refused; --knowledge FILE uses it.

    Exit status: 1 when a finding reaches --fail-on (with --replay: a finding on any request), 2 for unreadable input.

    Example: pi-tools preflight --model anthropic/claude-sonnet-4-5 --format sarif ~/.pi/agent/sessions > pre.sarif
    """
    version = chosen_pi(pi, builds_requests=True, command="preflight")
    pi_name = version.name if version is not None else None
    chosen = chosen_engine(engine, scheduler, jobs, progress="preflight")
    helper = None
    if paths and not list_rules and len(paths) == 1 and chosen.kind == "local":
        from pi_tools.engine.early import payload_helper, read_ahead

        if not replay:  # one file: payload's helper builds part of a large payload beside this one, as for payload
            helper = payload_helper(paths, False)
            if helper is not None:
                before_exit(helper.close)
        read_ahead(paths)  # the file is read while the rule modules are imported
    from pi_tools.preflight.rules import SEVERITY_RANK

    if list_rules:
        _write(_rule_list(output_format).encode())
        raise SystemExit(EXIT_OK)
    if replay and output_format not in ("table", "json"):
        fail(f"--format: expected one of table, json, got {output_format!r}")
    if all_branches and not replay:
        fail("--all-branches only goes with --replay")
    if learn is not None and not replay:
        fail("--learn only goes with --replay")
    if learn is not None:
        import os

        if os.path.exists(learn):
            fail(f"--learn {learn}: the file exists; name a new file")
    if knowledge is not None:
        _use_knowledge(knowledge)
    if not paths:
        paths = [default_session_folder()]
    known = None  # the rule modules are imported while the session is checked, unless --rules needs them now
    enabled = None
    if rules:
        known = _known_rules()
        wanted = {part.strip() for part in rules.split(",") if part.strip()}
        unknown = sorted(wanted - known)
        if unknown:
            fail(f"--rules: unknown rule id(s): {', '.join(unknown)} (see --list-rules)")
        enabled = frozenset(wanted)
    if model is not None:
        from pi_tools.pi import resolve
        from pi_tools.providers.catalog import find_model
        from pi_tools.providers.errors import UnknownModelError

        try:
            find_model(model, resolve(pi_name).requests.catalog)
        except UnknownModelError as exc:
            fail(f"--model {model}: {exc.args[0] if exc.args else exc}")
    from pi_tools.cli.prompt import request_prompt

    prompt = request_prompt(system_prompt, tools_file, tools_alias, prompt_cwd, pi_install)
    if replay and prompt.pi_prompt is not None:
        fail("--system-prompt pi checks the next request; --replay checks the requests the session made with "
             "what they carried: leave one out")
    system_prompt, tool_list = prompt.system_prompt, prompt.tools
    from pi_tools.engine import EngineError
    from pi_tools.sources.files import expand

    inputs = expand(paths)
    threshold = SEVERITY_RANK[fail_on]
    try:
        if replay:
            status = _replay(inputs, output_format, system_prompt, tool_list, all_branches, enabled, threshold,
                             chosen, pi_name, learn)
        else:
            status = _check(inputs, output_format, fail_on, threshold, enabled, known, model, system_prompt,
                            tool_list, reasoning, leaf, chosen, helper, pi_name, prompt.pi_prompt)
    except EngineError as exc:
        fail(str(exc))
    from pi_tools.cli.common import exit_without_teardown

    exit_without_teardown(status)  # a large session's objects are handed back at once, not freed one by one


def _check(inputs: list[tuple[str, str | None]], output_format: str, fail_on: str, threshold: int,
           enabled: frozenset[str] | None, known: set[str] | None, model: str | None, system_prompt: str | None,
           tools: list[dict[str, object]] | None, reasoning: str | None, leaf: str | None, engine: Engine,
           helper: Any = None, pi: str | None = None, pi_prompt: Any = None) -> int:
    from pi_tools.audit.formats import json_lines, junit, sarif
    from pi_tools.engine.run import map_inputs
    from pi_tools.pipe.documents import dumps_document
    from pi_tools.preflight.check import PreflightRequest, PreflightResult
    from pi_tools.preflight.report import as_audit_results, catalogue, findings_table
    from pi_tools.preflight.rules import SEVERITY_RANK
    from pi_tools.preflight.tasks import preflight_file

    request = PreflightRequest(model=model, system_prompt=system_prompt, tools=tools, reasoning=reasoning,  # type: ignore[arg-type]
                               leaf=leaf, enabled=enabled, pi=pi, pi_prompt=pi_prompt)
    results = []
    checked: Any = map_inputs(preflight_file, inputs, request, engine, lambda path, error: PreflightResult(path, error=error))
    if helper is not None and len(inputs) == 1 and inputs[0][1] is None:
        from pi_tools.cli.common import keep_until_exit
        from pi_tools.preflight.tasks import preflight_helped

        checked = [preflight_helped(inputs[0][0], request, helper, keep_until_exit)]
    for result in checked:
        if result.error is not None:
            report(result.error)
        results.append(result)
    audit_results = as_audit_results(results)
    selected = frozenset(enabled or (known if known is not None else _known_rules()))
    if output_format == "json":
        _write(json_lines(audit_results))
    elif output_format == "table":
        _write(findings_table(results).encode())
    elif output_format == "junit":
        _write(junit(audit_results, selected, fail_on, catalogue(), "pi-tools.preflight").encode())
    else:
        _write(dumps_document(sarif(audit_results, selected, catalogue(), "pi-tools preflight")))
    if any(result.error is not None for result in results):
        return EXIT_BAD_INPUT
    failing = any(SEVERITY_RANK[f["severity"]] >= threshold for result in results for f in result.findings)
    return EXIT_FINDINGS if failing else EXIT_OK


def _known_rules() -> set[str]:
    from pi_tools.preflight.rules import all_rules

    return {rule.id for rule in all_rules()}


def _replay(inputs: list[tuple[str, str | None]], output_format: str, system_prompt: str | None,
            tools: list[dict[str, object]] | None, all_branches: bool, enabled: frozenset[str] | None,
            threshold: int, engine: Engine, pi: str | None = None, learn: str | None = None) -> int:
    from pi_tools.engine.run import map_inputs
    from pi_tools.preflight.replay import Options, ReplayResult
    from pi_tools.preflight.report import replay_json, replay_table
    from pi_tools.preflight.rules import SEVERITY_RANK
    from pi_tools.preflight.tasks import replay_file

    options = Options(system_prompt=system_prompt, tools=tools, all_branches=all_branches, enabled=enabled,  # type: ignore[arg-type]
                      pi=pi)
    results = []
    for result in map_inputs(replay_file, inputs, options, engine, lambda path, error: ReplayResult(path, error=error)):
        if result.error is not None:
            report(result.error)
        results.append(result)
    _write(replay_json(results) if output_format == "json" else replay_table(results).encode())
    if learn is not None:
        _write_learned(learn, [doc for result in results for doc in result.requests])
    if any(result.error is not None for result in results):
        return EXIT_BAD_INPUT
    failing = any(SEVERITY_RANK[f["severity"]] >= threshold
                  for result in results for doc in result.requests for f in doc["findings"])
    return EXIT_FINDINGS if failing else EXIT_OK


def _use_knowledge(path: str) -> None:
    """Check the provider table at `path` now (a bad file is exit 2, not a failure in a worker) and hand it to
    every worker through the environment."""
    import os

    from pi_tools.preflight.knowledge import ENV, load

    try:
        load(path)
    except ValueError as exc:
        fail(f"--knowledge: {exc}")
    os.environ[ENV] = path


def _write_learned(path: str, requests: list[dict[str, object]]) -> None:
    """The learned provider table, written to a new file atomically (never over an existing one)."""
    import os
    import tempfile

    import orjson

    from pi_tools.preflight.knowledge import learned

    if os.path.exists(path):
        fail(f"--learn {path}: the file exists; name a new file")
    data = orjson.dumps(learned(requests), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temporary = tempfile.mkstemp(dir=directory, prefix=".learn-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.link(temporary, path)
        os.unlink(temporary)
    except OSError as exc:
        fail(f"--learn {path}: cannot write: {exc.strerror}")
    sys.stderr.write(f"pi-tools: wrote what the providers accepted and refused to {path}\n")


def _rule_list(output_format: str) -> str:
    import textwrap

    import orjson

    from pi_tools.preflight.rules import all_rules

    rules = all_rules()
    if output_format == "json":
        return "".join(orjson.dumps({
            "kind": "rule", "id": r.id, "severity": r.severity, "title": r.title, "apis": sorted(r.apis),
            "scope": r.scope, "providerMessage": r.provider_message, "source": r.source, "fix": r.fix,
            "description": r.description}).decode() + "\n" for r in rules)
    out: list[str] = []
    for r in rules:
        out.append(f"{r.id}  {r.severity}  {r.title}  [{', '.join(sorted(r.apis))}]")
        out.extend(textwrap.wrap(f"provider: {r.provider_message}", 110, initial_indent="    ", subsequent_indent="      "))
        out.extend(textwrap.wrap(f"fix: {r.fix}", 110, initial_indent="    ", subsequent_indent="      "))
    return "\n".join(out) + "\n"


def _write(data: bytes) -> None:
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise SystemExit(0) from None

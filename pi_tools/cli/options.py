"""The options many commands take, each declared once: --format, --api, --leaf, -o, --model, --reasoning, --pi,
--rules, --fail-on, and the other options whose values are a fixed set.

Each command keeps its own allowed values (audit's --format is not usage's): they are the `Literal` types below,
which the command's parameter is annotated with, and the option made from them checks a value while the command
line is parsed, lists the values in `--help` ([table|json]) and offers them to shell completion. The words and
the exit status for a value outside them are the command's own, as before (the REFUSAL_* formats below).
The --engine, --scheduler and --jobs options are cli.engine_options'.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import typer

from pi_tools import pi as pi_versions
from pi_tools.cli.choices import ApiChoice, Choice, ChoiceList

# The allowed values; the libraries hold the same tuples (tests/cli/test_shared_options.py keeps them equal).
AuditFormat = Literal["table", "json", "junit", "sarif"]
"""audit and preflight: findings as a table, JSON Lines, JUnit XML or SARIF."""
TableOrJson = Literal["table", "json"]
UsageFormat = Literal["table", "json", "csv", "parquet"]
ExportFormat = Literal["md", "html", "chat"]
RenderFormat = Literal["html", "md"]
ReportFormat = Literal["text", "json"]
"""What the rewriting commands (repair, scrub, slim, transform --to-session) print about their changes."""
EventFormat = Literal["pi", "chat"]
Severity = Literal["error", "warning"]
UsageGrouping = Literal["session", "day", "week", "month", "model", "provider", "api", "kind"]
UsageScope = Literal["all", "active"]
CostSource = Literal["auto", "stored", "recomputed"]
ExportBranches = Literal["active", "all"]
ExportOnly = Literal["user", "assistant"]
SearchBranch = Literal["all", "active"]
TraceContent = Literal["none", "redacted", "full"]

# How each command words a refused value (kept as each command worded it by hand).
REFUSAL_EXPECTED_ONE_OF = "{flag}: expected one of {choices}, got {value!r}"
REFUSAL_EXPECTED = "{flag}: expected {alternatives}, got {value!r}"
REFUSAL_VALUE_EXPECTED = "{flag} {value!r}: expected {alternatives}"
REFUSAL_VALUE_EXPECTED_ONE_OF = "{flag} {value!r}: expected one of {choices}"
REFUSAL_MUST_BE = "{flag} must be {alternatives}, not {value!r}"
REFUSAL_UNKNOWN_FORMAT = "{flag}: unknown format {value!r} (choose from {choices})"
REFUSAL_UNKNOWN_EVENT_FORMAT = "{flag}: unknown event format {value!r} (choose from {choices})"
REFUSAL_UNKNOWN_VALUE = "{flag}: unknown value {value!r} (choose from {choices})"
REFUSAL_UNKNOWN_API = "{flag}: unknown API {value!r} (choose from {choices})"


def choice_option(flag: str, values: Any, help: str, refusal: str) -> Any:
    """An option taking one of `values` (a Literal type), refusing any other with `refusal`."""
    return typer.Option(flag, help=help, click_type=Choice(flag, get_args(values), refusal))


def choices_option(flag: str, values: Any, help: str, refusal: str) -> Any:
    """An option taking one or several of `values` (a Literal type), comma-separated; any other is refused."""
    return typer.Option(flag, help=help, click_type=ChoiceList(flag, get_args(values), refusal))


def format_option(values: Any, help: str, refusal: str) -> Any:
    """--format: one option for every command, each with its own formats."""
    return choice_option("--format", values, help, refusal)


def api_option(help: str, refusal: str = REFUSAL_UNKNOWN_API, *, streaming: bool = False) -> Any:
    """--api: an API of the API table (streaming: only those pi-tools can decode a response of)."""
    return typer.Option("--api", help=help, click_type=ApiChoice("--api", refusal, streaming=streaming))


def api_filter_option(help: str) -> Any:
    """--api as a filter over the model catalog: any name (the catalog has APIs pi-tools does not build)."""
    return typer.Option("--api", help=help)


PATHS_HELP = "files or folders (searched recursively for *.jsonl)"
"""How every command words its PATH... argument (docs/cli.md: one input contract)."""


def paths_argument(help: str) -> Any:
    """PATH...: the sessions of every command that reads several, named the same way in every usage line. An
    optional argument: without it, a command reads Pi's session folder or stdin (cli.common.session_files)."""
    return typer.Argument(metavar="PATH...", help=help, show_default=False)


def file_argument(help: str) -> Any:
    """FILE: the one file of a command that reads one (tree, repair, slim, decode)."""
    return typer.Argument(metavar="FILE", help=help)


def leaf_option(help: str, metavar: str = "ID") -> Any:
    """--leaf: the entry whose path to the root is the conversation (default: the session's own leaf)."""
    return typer.Option("--leaf", metavar=metavar, help=help)


def at_option(help: str) -> Any:
    """--at: a stored assistant message (entry id) whose request the command rebuilds (pipeline.answer)."""
    return typer.Option("--at", metavar="ENTRY_ID", help=help)


def last_option(help: str) -> Any:
    """--last: the active path's last assistant message, as --at names one."""
    return typer.Option("--last", help=help)


def output_option(help: str, metavar: str | None = "OUT") -> Any:
    """-o/--output: where the command writes."""
    return typer.Option("-o", "--output", metavar=metavar, help=help)


def model_option(help: str, metavar: str = "PROVIDER/ID") -> Any:
    """--model: a catalog model."""
    return typer.Option("--model", metavar=metavar, help=help)


def reasoning_option(help: str) -> Any:
    """--reasoning: a thinking level, taken as given (Pi clamps and maps it per model, unknown words included)."""
    return typer.Option("--reasoning", metavar="LEVEL", help=help)


SystemPrompt = Annotated[str | None, typer.Option(
    "--system-prompt", metavar="TEXT|pi",
    help="System prompt the request carries (default: none); 'pi': Pi's own prompt and default tools as that Pi "
         "version builds them for the session's working directory (see --cwd, --pi-install).")]
"""--system-prompt: a text, or `pi` for Pi's own (payload, render, preflight: cli.prompt)."""
ToolsFile = Annotated[str | None, typer.Option(
    "--tools-file", metavar="FILE", help="Tools the request declares: a JSON array of {name, description, parameters} "
                                         "(default: none, or Pi's own with --system-prompt pi).")]
"""--tools-file: tool definitions from a file (`run --tools` is a list of tool names: another option)."""
ToolsFileAlias = Annotated[str | None, typer.Option("--tools", metavar="FILE", hidden=True,
                                                    help="The old name of --tools-file.")]
"""--tools: the old name of --tools-file, kept hidden."""
PromptCwd = Annotated[str | None, typer.Option(
    "--cwd", metavar="DIR", help="With --system-prompt pi: the session's checkout on this machine; its AGENTS.md/CLAUDE.md "
                                 "files, walking up, go into the prompt, and DIR is its working directory (default: "
                                 "the session header's cwd, no context files).")]
"""--cwd of the commands that rebuild Pi's prompt (run's --cwd is its workspace)."""
PiInstall = Annotated[str | None, typer.Option(
    "--pi-install", metavar="DIR", help="With --system-prompt pi: where Pi is installed, which the prompt names for "
                                        "its docs (default: the placeholder <pi-install>).")]
"""--pi-install: Pi's package folder (PI_PACKAGE_DIR in Pi)."""


def rules_option(help: str) -> Any:
    """--rules: rule ids, checked against the command's own rules."""
    return typer.Option("--rules", metavar="ID,...", help=help)


FailOn = Annotated[Severity, choice_option(
    "--fail-on", Severity, "Exit 1 when a finding has this severity or worse: error or warning.", REFUSAL_EXPECTED)]
"""--fail-on, alike in audit and preflight."""


PiName = Literal["0.85", "1.6"]
"""The Pi versions pi-tools reproduces (pi_tools.pi.NAMES holds the same)."""
REFUSAL_PI = "{flag}: pi-tools reproduces Pi {alternatives}, not {value!r}"

Pi = Annotated[PiName | None, typer.Option(
    "--pi", envvar=pi_versions.ENVIRONMENT,
    help=f"The Pi version to reproduce (default: ${pi_versions.ENVIRONMENT}, else {pi_versions.DEFAULT}).",
    click_type=Choice("--pi", get_args(PiName), REFUSAL_PI))]
"""--pi: the Pi version a command reproduces, one definition for every command that reads sessions or builds
requests; PI_TOOLS_PI in the environment is its default (checked the same way)."""


def chosen_pi(name: str | None, *, builds_requests: bool = False, ported: bool = True, command: str = "") -> Any:
    """The pi_tools.pi.PiVersion given with --pi (None without it: the stage then follows its input documents'
    version, else pi.resolve(): PI_TOOLS_PI, else the default). A value from PI_TOOLS_PI is checked like one
    given with --pi but is only a default.

    A command that builds requests refuses a version whose requests it does not build yet; a command not yet
    ported to every version (`ported=False`) refuses the versions that only ported commands read (exit 2, before
    anything is read)."""
    if name is None and not builds_requests and ported:
        return None
    from pi_tools.cli.common import fail
    from pi_tools.pi import requests_refusal, resolve, unported_refusal

    version = resolve(name)
    refusal = (requests_refusal(version, command) if builds_requests else None) or \
        (None if ported else unported_refusal(version, command))
    if refusal is not None:
        fail(refusal)
    return version if name is not None and not _from_environment() else None


def _from_environment() -> bool:
    """Whether --pi's value came from PI_TOOLS_PI: a default, which documents naming their own version override
    (sessions are still read as it says, through pi.resolve()); only --pi itself conflicts with them. (The
    command line is read directly: the CLI dispatches its commands without a click context to ask.)"""
    import sys

    return not any(argument == "--pi" or argument.startswith("--pi=") for argument in sys.argv[1:])

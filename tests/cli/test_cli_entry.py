"""The entry point's light reading of `payload` arguments (pi_tools/engine/early.py), which starts the helper process
and the first read before typer is imported: it must agree with typer, or step aside."""

from __future__ import annotations

from typing import Any

import pytest
import typer

from pi_tools.cli.app import app
from pi_tools.engine.early import ENGINE_OPTIONS, PAYLOAD_VALUE_OPTIONS, VERSION_OPTIONS, payload_arguments


def test_value_options_are_the_payload_commands_own() -> None:
    payload = typer.main.get_command(app).commands["payload"]  # type: ignore[attr-defined]
    options = [param for param in payload.params if param.param_type_name == "option"]
    taking_values = {name for param in options if not param.is_flag for name in param.opts}
    flags = {name for param in options if param.is_flag for name in param.opts}
    assert taking_values == PAYLOAD_VALUE_OPTIONS | ENGINE_OPTIONS | VERSION_OPTIONS
    assert flags == {"--wire", "--last"}


@pytest.mark.parametrize(("args", "expected"), [
    (["--api", "anthropic-messages", "a.jsonl"], (["a.jsonl"], {"--api"})),
    (["a.jsonl", "--model", "anthropic/x", "b.jsonl"], (["a.jsonl", "b.jsonl"], {"--model"})),
    (["--api=anthropic-messages", "--wire", "a.jsonl"], (["a.jsonl"], {"--api", "--wire"})),
    (["--last", "a.jsonl"], (["a.jsonl"], {"--last"})),
    (["--at", "e1", "a.jsonl"], (["a.jsonl"], {"--at"})),
    (["--api", "anthropic-messages", "--", "--odd-name.jsonl"], (["--odd-name.jsonl"], {"--api"})),
    (["--tools", "t.json", "--system-prompt", "be brief", "s.jsonl"], (["s.jsonl"], {"--tools", "--system-prompt"})),
    (["--system-prompt", "pi", "--cwd", "w", "--pi-install", "/opt/pi", "--tools-file", "t.json", "s.jsonl"],
     (["s.jsonl"], {"--system-prompt", "--cwd", "--pi-install", "--tools-file"})),
    (["--help"], ([], {"--help"})),
    (["--api"], None),  # a value missing: typer will say so
    (["--verbose", "a.jsonl"], None),  # an option it does not know: typer decides
    (["--jobs", "2", "a.jsonl"], None),  # how work runs: the command decides
    (["--engine=dask", "a.jsonl"], None),
    (["--pi", "0.85", "a.jsonl"], None),  # the Pi version: the command decides
])
def test_payload_arguments(args: list[str], expected: Any) -> None:
    assert payload_arguments(args) == expected


def test_the_entry_point_runs_payload_with_and_without_a_helper(cli: Any) -> None:
    """`python -m pi_tools` goes through the entry point; the early helper changes nothing in the output."""
    args = ["payload", "--api", "anthropic-messages", "--model", "anthropic/claude-sonnet-4-5",
            "fixtures/realworld/marcpadz__dexter-v3__pi-session.jsonl"]
    early = cli(*args, env={"PI_TOOLS_SPLIT_BYTES": "0"})
    plain = cli(*args, env={"PI_TOOLS_SPLIT_BYTES": "off"})
    assert early.code == plain.code == 0
    assert early.stdout == plain.stdout and early.stderr == plain.stderr == (
        "pi-tools: fixtures/realworld/marcpadz__dexter-v3__pi-session.jsonl: note: the request holds no system prompt "
        "and no tools: the session does not record them; pass --system-prompt pi (Pi's own) or --system-prompt TEXT "
        "and --tools-file FILE\n")

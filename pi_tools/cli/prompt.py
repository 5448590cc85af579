"""What the request carries besides the session's messages, as payload, render and preflight take it: a system
prompt (text, or `pi` for Pi's own), a tools file, and for Pi's own prompt the checkout and Pi's install folder.

One place, so that the three commands read and refuse these options with the same words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_tools.cli.common import fail

PI_PROMPT = "pi"
"""--system-prompt's value that asks for Pi's own prompt and tools."""


@dataclass(frozen=True)
class RequestPrompt:
    """The request's system prompt and tools as the options give them."""

    system_prompt: str | None
    """A text (None with `pi` or none given)."""
    tools: list[dict[str, Any]] | None
    """From --tools-file."""
    pi_prompt: Any
    """providers.pi_prompt.PiPromptOptions with --system-prompt pi, else None."""


def load_tools(path: str, flag: str = "--tools-file") -> list[dict[str, Any]]:
    """A tools file: a JSON array of {name, description, parameters} (usage error, exit 2, naming the file)."""
    from pi_tools.js.errors import JsonSyntaxError
    from pi_tools.js.json_line import loads_line

    try:
        with open(path, "rb") as handle:
            value = loads_line(handle.read())
    except OSError as exc:
        fail(f"{flag} {path}: cannot read: {exc.strerror or exc}")
    except (JsonSyntaxError, UnicodeDecodeError) as exc:
        fail(f"{flag} {path}: not JSON: {exc}")
    if not isinstance(value, list) or not all(
        isinstance(t, dict) and isinstance(t.get("name"), str) and isinstance(t.get("parameters"), dict) for t in value
    ):
        fail(f"{flag} {path}: expected a JSON array of {{name, description, parameters}} objects")
    return value


def request_prompt(system_prompt: str | None, tools_file: str | None, tools_alias: str | None,
                   cwd: str | None, pi_install: str | None) -> RequestPrompt:
    """The options read and checked: --tools is --tools-file's old name; --cwd and --pi-install only serve
    --system-prompt pi, and --cwd must be a folder."""
    import os

    if tools_alias is not None:
        if tools_file is not None:
            fail("--tools is the old name of --tools-file: give one of them")
        tools_file, flag = tools_alias, "--tools"
    else:
        flag = "--tools-file"
    tools = load_tools(tools_file, flag) if tools_file else None
    if system_prompt != PI_PROMPT:
        for given, name in ((cwd, "--cwd"), (pi_install, "--pi-install")):
            if given is not None:
                fail(f"{name} goes with --system-prompt pi (it says where Pi's own prompt is rebuilt from)")
        return RequestPrompt(system_prompt, tools, None)
    if cwd is not None and not os.path.isdir(cwd):
        fail(f"--cwd {cwd}: not a folder")
    from pi_tools.providers.pi_prompt import PiPromptOptions

    return RequestPrompt(None, tools, PiPromptOptions(cwd=cwd, install=pi_install))

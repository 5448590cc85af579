"""Pi's own system prompt and default tools, rebuilt as a Pi version builds them for a working directory.

A session Pi 0.85 wrote records neither its system prompt nor its tools, so a rebuilt request lacks both unless
the user supplies them; `--system-prompt pi` supplies Pi's own instead. What Pi sends is data, not code: each
version's prompt text and tool schemas are stored as Pi printed them (data/pi-prompt*.json, made by
scripts/regen_pi_prompt.py, checked byte for byte by tests/providers/test_pi_prompt.py against Pi itself), with
markers where the session's own values go: where Pi's docs are installed, the working directory and the block of
project context files. This module only fills the markers and finds the context files as Pi's resource loader
does (pi-coding-agent core/resource-loader.ts, loadProjectContextFiles).

What it leaves out, because it lives on the user's machine rather than in the session: Pi's global agent folder
(~/.pi/agent: its AGENTS.md, SYSTEM.md, APPEND_SYSTEM.md, skills, extensions and settings) and a project's
.pi/SYSTEM.md. With no skills configured neither version adds a skills section, and neither adds a date line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import orjson

INSTALL_PLACEHOLDER = "<pi-install>"
"""Where the prompt says Pi's docs are installed when --pi-install is not given: Pi writes its own package
folder there, which the session does not record."""
CONTEXT_FILE_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")
"""The names Pi looks for in each folder, first found wins."""

_MARKERS = re.compile(r"@@(INSTALL|CWD|PROJECT_CONTEXT)@@")
_ITEM_MARKERS = re.compile(r"@@(PATH|CONTENT)@@")


@dataclass(frozen=True)
class PiPromptOptions:
    """What `--system-prompt pi` was given: the checkout to read context files from, and Pi's install folder."""

    cwd: str | None = None
    """--cwd: the working directory (a checkout on this machine) whose AGENTS.md/CLAUDE.md files, walking up,
    go into the prompt; None: the session header's cwd, and no context files are read."""
    install: str | None = None
    """--pi-install: where Pi is installed (its README.md, docs/ and examples/); None: INSTALL_PLACEHOLDER."""


@dataclass(frozen=True)
class ContextFile:
    """A project context file as Pi puts it in the prompt: its absolute path and its text."""

    path: str
    content: str


@cache
def _data(name: str) -> dict[str, Any]:
    return dict(orjson.loads(resources.files("pi_tools.providers").joinpath("data", name).read_bytes()))


def pi_tools_list(data_file: str) -> list[dict[str, Any]]:
    """The version's default tools as Pi sends them ({name, description, parameters}, keys in Pi's order); a fresh
    copy each time, since payload builders may annotate what they are given."""
    return list(orjson.loads(orjson.dumps(_data(data_file)["tools"])))


def install_folder(install: str | None) -> str:
    """The folder the prompt names (Pi: its package folder, resolved to an absolute path)."""
    if install is None:
        return INSTALL_PLACEHOLDER
    resolved = os.path.abspath(os.path.expanduser(install))
    return "" if resolved == os.sep else resolved


def read_context_file(folder: str) -> ContextFile | None:
    """The first of Pi's context file names that is a file in `folder`, without a leading BOM (Pi strips it);
    one that cannot be read is passed over, as Pi passes over it with a warning."""
    for name in CONTEXT_FILE_NAMES:
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8", errors="replace")
        except OSError:
            continue
        return ContextFile(path, text[1:] if text.startswith("\ufeff") else text)
    return None


def find_context_files(cwd: str) -> list[ContextFile]:
    """Pi's project context files for `cwd`: one per folder from the filesystem root down to `cwd`, outermost
    first (Pi walks up from the working directory and puts each find before the ones below it)."""
    found: list[ContextFile] = []
    folder = os.path.abspath(cwd)
    while True:
        file = read_context_file(folder)
        if file is not None:
            found.insert(0, file)
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        folder = parent


def _fill_item(item: str, file: ContextFile) -> str:
    """One context file's piece, filled in one pass (a file's text holding a marker stays as it is)."""
    return _ITEM_MARKERS.sub(lambda match: file.path if match.group(1) == "PATH" else file.content, item)


def build_pi_prompt(data_file: str, cwd: str, install: str | None, context_files: list[ContextFile]) -> str:
    """The system prompt the version (its data file) sends from `cwd`, with these context files."""
    data = _data(data_file)
    pieces = data["projectContext"]
    block = ""
    if context_files:
        items = [_fill_item(str(pieces["item"]), file) for file in context_files]
        block = pieces["head"] + pieces["separator"].join(items) + pieces["tail"]
    values = {"INSTALL": install_folder(install), "CWD": cwd.replace("\\", "/"), "PROJECT_CONTEXT": block}
    return _MARKERS.sub(lambda match: values[match.group(1)], str(data["prompt"]))


def session_pi_prompt(data_file: str, options: PiPromptOptions, header_cwd: Any) -> tuple[str, list[dict[str, Any]]]:
    """(system prompt, tools) Pi sends for a session: from --cwd (reading its context files) when given, else
    from the session header's cwd (none read). ValueError when neither names a working directory."""
    if options.cwd is not None:
        cwd = os.path.abspath(options.cwd)
        files = find_context_files(cwd)
    elif isinstance(header_cwd, str) and header_cwd:
        cwd, files = header_cwd, []
    else:
        raise ValueError("--system-prompt pi: the session header records no cwd; pass --cwd DIR")
    return build_pi_prompt(data_file, cwd, options.install, files), pi_tools_list(data_file)

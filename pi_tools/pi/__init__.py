"""The Pi versions pi-tools reproduces, each declared in one module, and how a stage gets its version.

A version is one place: `v0_85.py`, `v1_6.py`. Each module declares a `PiVersion`: its model catalog, and the
behaviours that changed, as the implementations it selects (they live beside the code they change: Pi 1.6's
context projection in session/projection.py beside session/context.py, its convertToLlm roles in
messages/convert.py). Stages take the version they are given and never ask which one it is.

Adding a version (Pi 1.7): its module here (a copy of the newest, changed where 1.7 changed), its name in
`NAMES`, its catalog file (scripts/regen_catalog.py), an adapter module in each API folder whose requests changed,
and its goldens.

This module imports nothing heavy: `NAMES` and `resolve` serve `--help` and option parsing; a version's
module (and the rules it selects) is imported when the version is asked for.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_tools.providers.edition import Edition
    from pi_tools.session.context import ContextRules
    from pi_tools.session.spending import SpendingRules

NAMES: tuple[str, ...] = ("0.85", "1.6")
"""The versions pi-tools reproduces, oldest first (cli/options.py's PiName holds the same)."""
DEFAULT = NAMES[-1]
"""The version a stage reproduces when neither --pi nor PI_TOOLS_PI names one: the newest pi-tools reproduces (every
command reads its sessions and builds its requests)."""
ENVIRONMENT = "PI_TOOLS_PI"
"""The environment variable whose value is the default version."""

_MODULES = {"0.85": "pi_tools.pi.v0_85", "1.6": "pi_tools.pi.v1_6"}


class UnknownPiVersion(ValueError):
    """A version pi-tools does not reproduce."""


@dataclass(frozen=True)
class PiVersion:
    """What one Pi version does differently, as what each stage needs of it."""

    name: str
    """As users write it (`--pi 1.6`) and as documents carry it (`"pi": "1.6"`)."""
    packages: str
    """The Pi releases it reproduces (for `--version` and the documentation)."""
    requests: Edition
    """The request side (providers/edition.py): the model catalog's file and the adapter module each API folder
    builds this version's requests with."""
    context: ContextRules
    """How a session's context is built (session/context.py's rules, or the version's own beside them)."""
    passed_through: frozenset[str]
    """The message roles convertToLlm returns as they are (messages/convert.py)."""
    spending: SpendingRules
    """Which entries record spending and which costs are the provider's bill (session/spending.py): what `usage`
    counts."""
    request_commands: frozenset[str] | None
    """The commands that build this version's provider requests (None: every one: payload, preflight, render,
    run, visibility --api). The others refuse the version rather than build another's requests;
    an API whose folder has no adapter for the version is refused by `payload` (providers.registry)."""
    undrawn_roles: frozenset[str]
    """The message roles of pi-ai that Pi's TUI draws nothing for (messages/roles.py): what `visibility` says of
    them."""
    read_by_every_command: bool
    """Whether every command that reads sessions reproduces this version; if not, the commands not ported to it yet
    (they pass `ported=False` to cli.options.chosen_pi) refuse it rather than answer as another version would."""
    messageless_types: frozenset[str]
    """The entry types that are tree nodes but never give the context a message (settings, labels, custom state,
    and what the version adds): `repair --relink` moves them with a tool batch, and they never interrupt one
    (session/context.py: `MESSAGELESS_TYPES`)."""
    prompt_roles: frozenset[str]
    """The message roles whose messages are the prompt itself (its sections, the tools' schemas): the rewrites
    (`slim`) keep them as they are (session/projection.py: `PROMPT_ROLES_16`)."""
    agent: str
    """The agent rules of `run` (the name of a pi_tools/loop/rules.py `AgentRules`, which the loop room resolves:
    this module sits below it): how its loop, faux provider and session writer behave."""


def get(name: str) -> PiVersion:
    """The version called `name` (UnknownPiVersion for one pi-tools does not reproduce)."""
    module = _MODULES.get(name) if isinstance(name, str) else None
    if module is None:
        raise UnknownPiVersion(f"pi-tools reproduces Pi {' and '.join(NAMES)}, not {name!r}")
    return _load(module)


@cache
def _load(module: str) -> PiVersion:
    version: PiVersion = import_module(module).VERSION
    return version


def resolve(name: str | None = None) -> PiVersion:
    """The version a stage reproduces: `name` if given, else PI_TOOLS_PI's, else DEFAULT."""
    if name is None:
        name = os.environ.get(ENVIRONMENT) or DEFAULT
    return get(name)


def builds_requests(version: PiVersion, command: str) -> bool:
    """Whether `command` builds `version`'s requests."""
    return version.request_commands is None or command in version.request_commands


def requests_refusal(version: PiVersion, command: str) -> str | None:
    """Why `command`, which builds requests, cannot run for `version` (None when it can)."""
    if builds_requests(version, command):
        return None
    newest = next(name for name in reversed(NAMES) if builds_requests(get(name), command))
    return f"pi-tools {command} does not build Pi {version.name} requests yet; pass --pi {newest}"


def unported_refusal(version: PiVersion, command: str) -> str | None:
    """Why a command not yet ported to every version cannot run for `version` (None when it can)."""
    if version.read_by_every_command:
        return None
    newest = next(name for name in reversed(NAMES) if get(name).read_by_every_command)
    return f"pi-tools {command} does not reproduce Pi {version.name} yet; pass --pi {newest}"


def described() -> str:
    """What `pi-tools --version` says of the Pi versions: each with its releases, what is not reproduced yet, and
    the default."""
    lines = []
    for name in NAMES:
        version = get(name)
        commands = version.request_commands
        note = "" if commands is None else (
            "; requests built by " + ", ".join(sorted(commands)) + " only" if commands
            else "; sessions, contexts and LLM messages only, no requests yet")
        lines.append(f"reproduces Pi {name} ({version.packages}{note})")
    chosen = os.environ.get(ENVIRONMENT)
    if chosen and chosen not in NAMES:
        lines.append(f"{ENVIRONMENT}={chosen!r} names no version pi-tools reproduces (commands refuse it)")
        chosen = None
    lines.append(f"default: Pi {chosen or DEFAULT} (--pi VERSION, or {ENVIRONMENT}" + (f"={chosen})" if chosen else ")"))
    return "\n".join(lines)

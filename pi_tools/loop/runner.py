"""One `pi-tools run`: open or create the session, pick the model and provider, run the loop, persist.

This is the coding agent's session wiring (pi-coding-agent ``createAgentSession`` and ``_handleAgentEvent``)
reduced to what a batch run needs: the settings entries a new session starts with, the resume rules for the
thinking level, the prompt the transcript records (where the version's agent records it), and a ``message_end``
handler that appends each settled message before the loop goes on.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_tools.loop.agent import AgentLoop, LoopConfig, StreamFunction, user_message
from pi_tools.loop.persist import SessionWriteError, SessionWriter
from pi_tools.loop.rules import AgentRules, agent_rules
from pi_tools.loop.signals import AbortSignal, abort_on_signals
from pi_tools.loop.tools import DEFAULT_TOOLS, Workspace, build_tools

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

#: The thinking level Pi's coding agent uses when neither the user nor the session chose one.
DEFAULT_THINKING_LEVEL = "medium"
PERSISTED_ROLES = frozenset({"system", "user", "assistant", "toolResult"})


class RunSetupError(Exception):
    """The run cannot start (unknown model, unreadable script, bad session); the message says why."""


@dataclass
class RunRequest:
    """Everything `pi-tools run` was asked to do."""

    prompt: str | None
    cwd: str
    session_file: str | None = None
    session_dir: str | None = None
    provider: str = "faux"
    model: str | None = None
    base_url: str | None = None
    thinking: str | None = None
    tools: list[str] = field(default_factory=lambda: list(DEFAULT_TOOLS))
    allow_outside: bool = False
    faux_script: str | None = None
    max_turns: int | None = None
    system_prompt: str | None = None
    preflight: Any = None  # makes the request check from an origin lookup (preflight.loop.loop_preflight)
    version: PiVersion | None = None  # the Pi version run reproduces (None: pi.resolve())


@dataclass
class RunOutcome:
    session_file: str
    new_messages: list[dict[str, Any]]
    last_assistant: dict[str, Any] | None


def default_session_dir(cwd: str) -> Path:
    """Pi's per-project session folder: ``<agentDir>/sessions/--<cwd with / \\ : as ->--``."""
    agent_dir = os.path.expanduser(os.environ.get("PI_CODING_AGENT_DIR") or "~/.pi/agent")
    encoded = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    for char in "/\\:":
        encoded = encoded.replace(char, "-")
    return Path(agent_dir) / "sessions" / f"--{encoded}--"


def _resolve_model(request: RunRequest, catalog: str) -> tuple[dict[str, Any], str]:
    """(model, api) for the request, from the version's `catalog`; the faux provider has its own model."""
    if request.provider == "faux":
        from pi_tools.loop.faux import faux_model

        return faux_model(request.model or "faux-1"), "faux"
    from pi_tools.loop.transport import http_apis
    from pi_tools.providers.catalog import get_model
    from pi_tools.providers.errors import UnknownModelError

    if not request.model:
        raise RunSetupError(f"--model is required with --provider {request.provider}")
    try:
        model = get_model(request.provider, request.model, catalog)
    except UnknownModelError as exc:
        raise RunSetupError(str(exc.args[0] if exc.args else exc)) from None
    api = str(model.get("api"))
    reachable = http_apis()
    if api not in reachable:
        raise RunSetupError(
            f"{request.provider}/{request.model} speaks {api}; pi-tools run streams {', '.join(reachable)} "
            "(use `pi-tools decode` for captured responses of other APIs)")
    return model, api


def _open_session(request: RunRequest, cwd: str, version: PiVersion,
                  rules: AgentRules) -> tuple[SessionWriter, list[dict[str, Any]]]:
    if request.session_file and request.session_dir:
        raise RunSetupError("--session and --session-dir exclude each other")
    try:
        if request.session_file and os.path.exists(request.session_file):
            writer = SessionWriter.continue_file(Path(request.session_file), version.context)
            return writer, writer.context_messages
        path = Path(request.session_file) if request.session_file else None
        directory = Path(request.session_dir) if request.session_dir else default_session_dir(cwd)
        return SessionWriter.new(path, directory, cwd, creates_file_at_prompt=rules.creates_file_at_prompt), []
    except SessionWriteError as exc:
        raise RunSetupError(str(exc)) from None


def _record_settings(writer: SessionWriter, model: dict[str, Any], level: str) -> None:
    """The entries Pi writes for model and thinking level: at the start of a new session, and on change."""
    provider, model_id = str(model["provider"]), str(model["id"])
    if not writer.has_messages and writer.model is None and not writer.has_thinking_entry:
        writer.append_model_change(provider, model_id)
        writer.append_thinking_level_change(level)
        return
    current = writer.model or {}
    if current and (current.get("provider"), current.get("modelId")) != (provider, model_id):
        writer.append_model_change(provider, model_id)
    if not writer.has_thinking_entry or writer.thinking_level != level:
        writer.append_thinking_level_change(level)


def _thinking_level(request: RunRequest, writer: SessionWriter, model: dict[str, Any]) -> str:
    from pi_tools.providers.options import clamp_thinking_level

    level = request.thinking
    if level is None and writer.has_messages and writer.has_thinking_entry and writer.thinking_level:
        level = writer.thinking_level
    return clamp_thinking_level(model, level or DEFAULT_THINKING_LEVEL)


def prompt_update(messages: list[dict[str, Any]], system_prompt: str | None) -> dict[str, Any] | None:
    """The system message the coding agent puts before a request whose prompt differs from the one the transcript
    records (agent-session's prompt preparation; the loop then declares the tools on it), or None.

    pi-tools' prompt is `--system-prompt`'s text, as Pi records a custom prompt: its `preamble` section (the
    rest of Pi's default prompt, which pi-tools never sent, is not added). Without --system-prompt the run keeps
    the prompt the transcript records (none for a new session). This is the rule `payload` applies to
    --system-prompt for a transcript with system messages (providers.transcript.resumed_prompt_update)."""
    from pi_tools.loop import now_ms
    from pi_tools.providers.transcript import resumed_prompt_update

    return resumed_prompt_update(messages, system_prompt, None, now_ms())


def _stream_function(request: RunRequest, api: str, writer: SessionWriter, level: str, version: PiVersion,
                     rules: AgentRules) -> StreamFunction:
    if request.provider == "faux":  # the offline provider (its model's api is "faux"), as _resolve_model decides
        from pi_tools.loop.faux import FauxProvider, FauxScriptError, load_faux_script

        try:
            steps = load_faux_script(request.faux_script) if request.faux_script else []
        except FauxScriptError as exc:
            raise RunSetupError(str(exc)) from None
        return FauxProvider(steps, per_message_estimate=rules.faux_per_message_estimate).stream
    from pi_tools.loop.transport import http_stream_function

    check = request.preflight(writer.origin_of) if request.preflight is not None else None
    return http_stream_function(api, session_id=writer.session_id, thinking_level=level,
                                base_url=request.base_url, source=str(writer.path), preflight=check, pi=version.name)


def run(request: RunRequest, emit: Callable[[dict[str, Any]], None]) -> RunOutcome:
    """Run the loop for ``request``; every event goes to ``emit`` after the session has recorded it."""
    cwd = os.path.realpath(request.cwd)
    if not os.path.isdir(cwd):
        raise RunSetupError(f"--cwd {request.cwd}: not a directory")
    from pi_tools.pi import resolve

    version = request.version or resolve()
    rules = agent_rules(version.agent)
    model, api = _resolve_model(request, version.requests.catalog)
    writer, messages = _open_session(request, cwd, version, rules)
    if request.prompt is None and not messages:
        raise RunSetupError("nothing to do: give a PROMPT (or --session FILE whose last message awaits an answer)")
    level = _thinking_level(request, writer, model)
    try:
        session_env = {"PI_SESSION_ID": writer.session_id, "PI_SESSION_FILE": os.path.abspath(writer.path),
                       "PI_PROVIDER": str(model["provider"]), "PI_MODEL": str(model["id"]),
                       "PI_REASONING_LEVEL": level}
        tools = build_tools(request.tools, Workspace(cwd, request.allow_outside, session_env))
    except ValueError as exc:
        raise RunSetupError(f"--tools: {exc}") from None
    stream = _stream_function(request, api, writer, level, version, rules)
    _record_settings(writer, model, level)
    options: dict[str, Any] = {"sessionId": writer.session_id}
    if level != "off":
        options["reasoning"] = level
    config = LoopConfig(model=model, stream=stream, tools=tools, system_prompt=request.system_prompt,
                        options=options, max_turns=request.max_turns, rules=rules,
                        passed_through=version.passed_through)
    update = prompt_update(messages, request.system_prompt) if rules.records_prompt else None
    prepared = [update] if update is not None else []

    def on_event(event: dict[str, Any]) -> None:
        if event.get("type") == "message_end":
            message = event.get("message") or {}
            if message.get("role") in PERSISTED_ROLES:
                writer.append_message(message)
        emit(event)

    abort = AbortSignal()
    loop = AgentLoop(config, messages, on_event, abort)
    with abort_on_signals(abort):
        if request.prompt is None:
            try:
                new_messages = loop.resume(prepared)
            except ValueError as exc:
                raise RunSetupError(str(exc)) from None
        else:
            new_messages = loop.prompt([*prepared, user_message(request.prompt)])
    last = next((m for m in reversed(new_messages) if m.get("role") == "assistant"), None)
    return RunOutcome(str(writer.path), new_messages, last)

"""`pi-tools run`: Pi's agent loop from Python, offline by default, writing sessions Pi itself resumes."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from pi_tools.cli.common import fail
from pi_tools.cli.options import (
    REFUSAL_UNKNOWN_EVENT_FORMAT,
    EventFormat,
    Pi,
    chosen_pi,
    format_option,
    model_option,
    reasoning_option,
)


class _Transcript:
    """The readable view: assistant text as it streams, tool calls and their results in short form."""

    def __init__(self) -> None:
        self._out = sys.stdout
        self._in_text = False

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()

    def _end_text(self) -> None:
        if self._in_text:
            self._write("\n")
            self._in_text = False

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_update":
            update = event.get("assistantMessageEvent") or {}
            if update.get("type") == "text_delta":
                if not self._in_text:
                    self._write("assistant: ")
                    self._in_text = True
                self._write(str(update.get("delta", "")))
            elif update.get("type") == "thinking_start":
                self._end_text()
                self._write("(thinking)\n")
            elif update.get("type") == "text_end":
                self._end_text()
        elif kind == "message_end":
            self._end_text()
            self._message(event.get("message") or {})
        elif kind == "tool_execution_start":
            self._end_text()
            from pi_tools.js.json_stringify import js_stringify

            self._write(f"→ {event.get('toolName')} {js_stringify(event.get('args'))}\n")

    def _message(self, message: dict[str, Any]) -> None:
        role = message.get("role")
        if role == "user":
            from pi_tools.session.preview import message_text

            self._write(f"user: {message_text(message)}\n")
        elif role == "toolResult":
            texts = [str(b.get("text", "")) for b in message.get("content") or [] if isinstance(b, dict)
                     and b.get("type") == "text"]
            lines = "\n".join(texts).splitlines() or [""]
            shown = "\n  ".join(lines[:10]) + (f"\n  … ({len(lines) - 10} more lines)" if len(lines) > 10 else "")
            marker = "✗" if message.get("isError") else "←"
            self._write(f"{marker} {message.get('toolName')}: {shown}\n")
        elif role == "assistant" and message.get("stopReason") in ("error", "aborted"):
            self._write(f"[{message.get('stopReason')}] {message.get('errorMessage')}\n")


class _ChatEventLines:
    """--events --format chat: the events as a web chat's stream events (pi_tools.export.chat_events)."""

    def __init__(self) -> None:
        from pi_tools.export.chat_events import ChatStreamMapper

        self._mapper = ChatStreamMapper()

    def __call__(self, event: dict[str, Any]) -> None:
        from pi_tools.pipe.documents import dumps_document

        for mapped in self._mapper.map(event):
            sys.stdout.buffer.write(dumps_document(mapped))
        sys.stdout.buffer.flush()


class _EventLines:
    """--events: one JSON line per event, written as it happens (message_update without the growing partial)."""

    def __call__(self, event: dict[str, Any]) -> None:
        from pi_tools.pipe.documents import dumps_document

        if event.get("type") == "message_update":
            update = {k: v for k, v in (event.get("assistantMessageEvent") or {}).items() if k != "partial"}
            event = {"type": "message_update", "assistantMessageEvent": update}
        sys.stdout.buffer.write(dumps_document(event))
        sys.stdout.buffer.flush()


def run_command(
    prompt: Annotated[str | None, typer.Argument(metavar="PROMPT", help="What to ask. Omit to answer a --session whose last message is a user prompt or tool result.")] = None,
    session: Annotated[str | None, typer.Option("--session", metavar="FILE", help="Session file to continue at its leaf (created when missing).")] = None,
    session_dir: Annotated[str | None, typer.Option("--session-dir", metavar="DIR", help="Folder for a new session file named as Pi names them (default: Pi's per-project folder; for --provider faux a new temporary folder, see --in-pi-folder).")] = None,
    provider: Annotated[str, typer.Option("--provider", help="faux (offline, scripted) or a catalog provider: anthropic, openai, google, groq, ...")] = "faux",
    model: Annotated[str | None, model_option("A catalog model, as every command names it (see `pi-tools models`); a bare ID is looked up within --provider.", metavar="PROVIDER/ID")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", metavar="URL", help="Send to this server instead of the catalog's (e.g. a local OpenAI-compatible server).")] = None,
    thinking: Annotated[str | None, reasoning_option("off, minimal, low, medium, high, xhigh (clamped to the model as Pi does; default: the session's, else medium).")] = None,
    thinking_alias: Annotated[str | None, typer.Option("--thinking", metavar="LEVEL", hidden=True, help="The old name of --reasoning.")] = None,
    tools: Annotated[str, typer.Option("--tools", metavar="LIST", help="Comma-separated tools: read, bash, edit, write, ls; 'none' for no tools.")] = "read,bash,edit,write",
    cwd: Annotated[str, typer.Option("--cwd", metavar="DIR", help="Workspace the tools run in.")] = ".",
    allow_outside: Annotated[bool, typer.Option("--allow-outside", help="Let file tools reach paths outside --cwd.")] = False,
    faux_script: Annotated[str | None, typer.Option("--faux-script", metavar="FILE", help='Responses for --provider faux: {"responses": [{"content": [blocks], "stopReason"?}, ...]}.')] = None,
    max_turns: Annotated[int | None, typer.Option("--max-turns", metavar="N", min=1, help="Stop after N model responses.")] = None,
    system_prompt: Annotated[str | None, typer.Option("--system-prompt", metavar="TEXT", help="System prompt for every model call (default: none).")] = None,
    events: Annotated[bool, typer.Option("--events", help="Print Pi's agent events as JSON Lines instead of a transcript.")] = False,
    preflight: Annotated[bool, typer.Option("--preflight/--no-preflight", help="Check each request against the provider's rules before sending it; stop at an error-level finding (default: on).")] = True,
    event_format: Annotated[EventFormat, format_option(EventFormat, "With --events: Pi's own events (pi), or a web chat's stream events (chat: start, delta, thinking, tool, state, done, error).", REFUSAL_UNKNOWN_EVENT_FORMAT)] = "pi",
    demo: Annotated[bool, typer.Option("--demo", help="Play the bundled faux script (no key, no network) in a new temporary workspace; the session goes to a temporary folder too.")] = False,
    in_pi_folder: Annotated[bool, typer.Option("--in-pi-folder", help="With --provider faux: write the new session into Pi's per-project folder (faux runs otherwise write to a new temporary folder; catalog providers always default to Pi's folder).")] = False,
    pi: Pi = None,
) -> None:
    """Run Pi's agent loop: stream the model, execute its tool calls, append every settled message to the session.

    Providers: `faux` (default) replays --faux-script offline; catalog providers speaking anthropic-messages,
    openai-completions, openai-responses or google-generative-ai are streamed over HTTP with the key from the usual
    environment variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...). Keys never appear in output or
    the session. Ctrl-C or SIGTERM ends the stream and records an aborted assistant message. Exit status 1 when
    the run ended in an error or abort. A faux run writes its new session into a new temporary folder unless
    --session, --session-dir or --in-pi-folder says where.

    Examples: pi-tools run --demo;
    pi-tools run --faux-script script.json --session s.jsonl --cwd work "list the files"
    """
    version = chosen_pi(pi, builds_requests=True, command="run")
    from pi_tools.loop.persist import SessionWriteError
    from pi_tools.loop.runner import RunRequest, RunSetupError, run

    if event_format == "chat" and not events:
        fail("--format chat: only with --events")
    if thinking_alias is not None:
        if thinking is not None:
            fail("--thinking is the old name of --reasoning: give one of them")
        thinking = thinking_alias
    provider, model = _provider_and_model(provider, model)
    if demo:
        prompt, faux_script, cwd, session_dir = _demo(prompt, provider, faux_script, cwd, session, session_dir)
    elif provider == "faux" and faux_script is None:
        fail(NEEDS_SCRIPT)
    if prompt is None and session is None:
        fail("nothing to do: give a PROMPT (or --session FILE whose last message awaits an answer)")
    if in_pi_folder and (provider != "faux" or session is not None or session_dir is not None):
        fail("--in-pi-folder: only for a new faux session (without --session or --session-dir); other providers "
             "write to Pi's folder by default")
    if provider == "faux" and session is None and session_dir is None and not in_pi_folder:
        from pi_tools.loop.demo import scratch_session_dir

        session_dir = scratch_session_dir()
    names = [] if tools.strip() in ("", "none") else [name.strip() for name in tools.split(",") if name.strip()]
    request = RunRequest(prompt=prompt, cwd=cwd, session_file=session, session_dir=session_dir, provider=provider,
                         model=model, base_url=base_url, thinking=thinking, tools=names,
                         allow_outside=allow_outside, faux_script=faux_script, max_turns=max_turns,
                         system_prompt=system_prompt, preflight=_preflight_factory() if preflight else None,
                         version=version)
    sink: Any = (_ChatEventLines() if event_format == "chat" else _EventLines()) if events else _Transcript()
    try:
        outcome = run(request, sink)
    except (RunSetupError, SessionWriteError) as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        # A second Ctrl-C while the first abort winds down: stop now; the session holds settled messages only.
        fail("interrupted", 130)
    if not events:
        sys.stdout.write(f"session: {outcome.session_file}\n")
    last = outcome.last_assistant
    raise SystemExit(1 if last is not None and last.get("stopReason") in ("error", "aborted") else 0)


NEEDS_SCRIPT = ("run: --provider faux (the default) plays scripted answers and needs --faux-script FILE "
                "(docs/run.md); `pi-tools run --demo` plays a bundled one, and --provider PROVIDER --model ID runs "
                "a real model")


def _demo(prompt: str | None, provider: str, faux_script: str | None, cwd: str, session: str | None,
          session_dir: str | None) -> tuple[str, str, str, str]:
    """--demo's prompt, script, workspace and session folder (all its own: it takes none of these options)."""
    given = [name for name, value in (("PROMPT", prompt), ("--faux-script", faux_script), ("--session", session),
                                      ("--session-dir", session_dir)) if value is not None]
    if provider != "faux":
        given.append("--provider")
    if cwd != ".":
        given.append("--cwd")
    if given:
        fail(f"--demo brings its own prompt, script, workspace and session folder: drop {', '.join(given)}")
    from pi_tools.loop.demo import prepare_demo

    setup = prepare_demo()
    return setup.prompt, setup.script, setup.workspace, setup.session_dir


def _provider_and_model(provider: str, model: str | None) -> tuple[str, str | None]:
    """--model PROVIDER/ID as payload, render and preflight take it: the provider comes from the model when
    --provider is not given (a bare ID, the old form, stays an id within --provider). A model id may hold a
    slash itself (openrouter's `anthropic/claude-...`): only the first one splits, and only without --provider."""
    if model is None or "/" not in model or provider != "faux" or _given("--provider"):
        return provider, model
    named, _, identifier = model.partition("/")
    return named, identifier


def _given(flag: str) -> bool:
    """Whether `flag` is on the command line (the CLI runs its commands without a click context to ask)."""
    return any(argument == flag or argument.startswith(flag + "=") for argument in sys.argv[1:])


def _preflight_factory() -> object:
    from pi_tools.preflight.loop import loop_preflight

    return loop_preflight

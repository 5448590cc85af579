"""Pi's `bash` tool: one shell command in the workspace, output tail-truncated, process group killed on
abort or timeout.

The child gets its own session (process group) so that killing it also kills whatever it started; otherwise
an aborted run could leave background jobs holding the terminal or the session directory.
"""

from __future__ import annotations

import codecs
import math
import os
import secrets
import signal
import subprocess
import tempfile
import threading
import time
from typing import IO, Any

from pi_tools.loop.signals import AbortSignal
from pi_tools.loop.tools import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    Tool,
    ToolError,
    ToolResult,
    UpdateSink,
    Workspace,
    format_size,
    truncate_tail,
    utf8_length,
)

BASH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["command"],
    "properties": {
        "command": {"type": "string", "description": "Shell command to execute"},
        "timeout": {"type": "number", "description": "Timeout in seconds (optional, no default timeout)"},
    },
}

_MAX_TIMEOUT_MS = 2_147_483_647
_UPDATE_INTERVAL_S = 0.1
_EXIT_GRACE_S = 0.5
# Pi keeps a rolling decoded tail of twice the byte limit; the full output goes to a temp file once it is big.
_ROLLING_BYTES = 2 * DEFAULT_MAX_BYTES


class _Output:
    """Bounded-memory record of a command's output: the tail for display, the whole in a temp file if large."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._raw: list[bytes] = []
        self._raw_size = 0
        self._tail = ""
        self._tail_at_line_start = True
        self.total_bytes = 0
        self._completed_lines = 0
        self._open_line = False
        self.last_line_bytes = 0
        self.temp_path: str | None = None
        self._temp: IO[bytes] | None = None

    @property
    def total_lines(self) -> int:
        return self._completed_lines + (1 if self._open_line else 0)

    def _needs_file(self) -> bool:
        return (self._raw_size > DEFAULT_MAX_BYTES or self.total_bytes > DEFAULT_MAX_BYTES
                or self.total_lines > DEFAULT_MAX_LINES)

    def _ensure_file(self) -> None:
        if self.temp_path is not None:
            return
        self.temp_path = os.path.join(tempfile.gettempdir(), f"pi-bash-{secrets.token_hex(8)}.log")
        self._temp = open(self.temp_path, "wb")  # noqa: SIM115 - closed in close()
        for chunk in self._raw:
            self._temp.write(chunk)
        self._raw = []

    def _add_text(self, text: str) -> None:
        if not text:
            return
        size = utf8_length(text)
        self.total_bytes += size
        self._tail += text
        if utf8_length(self._tail) > 2 * _ROLLING_BYTES:
            raw = self._tail.encode("utf-8", "surrogatepass")
            start = len(raw) - _ROLLING_BYTES
            while start < len(raw) and (raw[start] & 0xC0) == 0x80:
                start += 1
            self._tail_at_line_start = raw[start - 1] == 0x0A
            self._tail = raw[start:].decode("utf-8", "replace")
        newlines = text.count("\n")
        if newlines == 0:
            self.last_line_bytes += size
            self._open_line = True
        else:
            self._completed_lines += newlines
            rest = text[text.rfind("\n") + 1:]
            self.last_line_bytes = utf8_length(rest)
            self._open_line = bool(rest)

    def append(self, data: bytes) -> None:
        self._raw_size += len(data)
        self._add_text(self._decoder.decode(data))
        if self._temp is not None or self._needs_file():
            self._ensure_file()
            assert self._temp is not None
            self._temp.write(data)
        elif data:
            self._raw.append(data)

    def finish(self) -> None:
        self._add_text(self._decoder.decode(b"", final=True))
        if self._needs_file():
            self._ensure_file()

    def snapshot(self) -> dict[str, Any]:
        text = self._tail
        if not self._tail_at_line_start:
            cut = text.find("\n")
            text = text if cut == -1 else text[cut + 1:]
        truncation = truncate_tail(text)
        truncated = self.total_lines > DEFAULT_MAX_LINES or self.total_bytes > DEFAULT_MAX_BYTES
        by = truncation["truncatedBy"] or ("bytes" if self.total_bytes > DEFAULT_MAX_BYTES else "lines")
        truncation.update(truncated=truncated, truncatedBy=by if truncated else None, totalLines=self.total_lines,
                          totalBytes=self.total_bytes)
        if truncated:
            self._ensure_file()
        return truncation

    def close(self) -> None:
        if self._temp is not None:
            self._temp.close()
            self._temp = None


def _format(output: _Output, truncation: dict[str, Any], empty: str) -> tuple[str, dict[str, Any] | None]:
    text = truncation["content"] or empty
    if not truncation["truncated"]:
        return text, None
    details = {"truncation": truncation, "fullOutputPath": output.temp_path}
    start = truncation["totalLines"] - truncation["outputLines"] + 1
    end = truncation["totalLines"]
    if truncation["lastLinePartial"]:
        text += (f"\n\n[Showing last {format_size(truncation['outputBytes'])} of line {end} "
                 f"(line is {format_size(output.last_line_bytes)}). Full output: {output.temp_path}]")
    elif truncation["truncatedBy"] == "lines":
        text += f"\n\n[Showing lines {start}-{end} of {truncation['totalLines']}. Full output: {output.temp_path}]"
    else:
        text += (f"\n\n[Showing lines {start}-{end} of {truncation['totalLines']} "
                 f"({format_size(DEFAULT_MAX_BYTES)} limit). Full output: {output.temp_path}]")
    return text, details


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


def _timeout_seconds(value: Any) -> float | None:
    if value is None:
        return None
    timeout = float(value)
    if not math.isfinite(timeout) or timeout <= 0:
        raise ToolError("Invalid timeout: must be a finite number of seconds")
    if timeout * 1000 > _MAX_TIMEOUT_MS:
        raise ToolError(f"Invalid timeout: maximum is {_MAX_TIMEOUT_MS / 1000:g} seconds")
    return timeout


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        try:
            process.kill()
        except OSError:
            pass


def _display_timeout(value: Any) -> str:
    from pi_tools.js.json_stringify import js_number_str

    return js_number_str(value) if isinstance(value, (int, float)) else str(value)


def _bash(workspace: Workspace, call_id: str, args: dict[str, Any], abort: AbortSignal,
          on_update: UpdateSink) -> ToolResult:
    command = args["command"]
    timeout = _timeout_seconds(args.get("timeout"))
    on_update({"content": []})
    if abort.aborted:
        raise ToolError("Command aborted")
    if not os.path.isdir(workspace.cwd):
        raise ToolError(f"Working directory does not exist: {workspace.cwd}\nCannot execute bash commands.")
    env = {key: value for key, value in os.environ.items()
           if key not in ("PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL")}
    env.update(workspace.session_env)
    process = subprocess.Popen(  # noqa: S603 - running the model's command is this tool's purpose
        ["/bin/bash", "-c", command], cwd=workspace.cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    output = _Output()
    lock = threading.Lock()
    state = {"dirty": False, "timed_out": False}
    remove_listener = abort.add_listener(lambda: _kill_group(process))

    def pump() -> None:
        assert process.stdout is not None
        while True:
            data = os.read(process.stdout.fileno(), 65536)
            if not data:
                break
            with lock:
                output.append(data)
                state["dirty"] = True

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout if timeout is not None else None
    exited_at: float | None = None
    try:
        while reader.is_alive():
            reader.join(_UPDATE_INTERVAL_S)
            if exited_at is None and process.poll() is not None:
                exited_at = time.monotonic()
            if exited_at is not None and time.monotonic() - exited_at > _EXIT_GRACE_S:
                # A background job inherited the pipe; like Pi, stop waiting once the shell itself is gone.
                break
            if deadline is not None and time.monotonic() >= deadline and not state["timed_out"]:
                state["timed_out"] = True
                _kill_group(process)
            with lock:
                if state["dirty"]:
                    state["dirty"] = False
                    snap = output.snapshot()
                    progress: dict[str, Any] = {}
                    if snap["truncated"]:
                        progress["truncation"] = snap
                    if output.temp_path:
                        progress["fullOutputPath"] = output.temp_path
                    on_update({"content": [{"type": "text", "text": snap["content"] or ""}], "details": progress})
        exit_code = process.wait()
    finally:
        remove_listener()
    with lock:
        output.finish()
        truncation = output.snapshot()
        output.close()
    if abort.aborted:
        text, _ = _format(output, truncation, "")
        raise ToolError(_with_status(text, "Command aborted"))
    if state["timed_out"]:
        text, _ = _format(output, truncation, "")
        raise ToolError(_with_status(text, f"Command timed out after {_display_timeout(args.get('timeout'))} seconds"))
    text, details = _format(output, truncation, "(no output)")
    if exit_code != 0 and exit_code >= 0:
        raise ToolError(_with_status(text, f"Command exited with code {exit_code}"))
    return {"content": [{"type": "text", "text": text}], "details": details}


def bash_tool(workspace: Workspace) -> Tool:
    description = (
        "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated "
        f"to last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). If "
        "truncated, full output is saved to a temp file. Optionally provide a timeout in seconds."
    )
    return Tool("bash", description, BASH_SCHEMA, lambda *a: _bash(workspace, *a))

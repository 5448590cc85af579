"""The coding tools: Pi's limits, notices and error texts, and the workspace guard."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pi_tools.loop.signals import AbortSignal
from pi_tools.loop.tool_files import apply_edits, prepare_edit_arguments
from pi_tools.loop.tools import (
    DEFAULT_MAX_BYTES,
    ToolError,
    Workspace,
    build_tools,
    format_size,
    truncate_head,
    truncate_tail,
)


def _tool(name: str, cwd: Path, allow_outside: bool = False) -> Any:
    (tool,) = build_tools([name], Workspace(str(cwd), allow_outside))
    return tool


def _run(name: str, cwd: Path, allow_outside: bool = False, **args: Any) -> dict[str, Any]:
    updates: list[dict[str, Any]] = []
    result: dict[str, Any] = _tool(name, cwd, allow_outside).execute("id", args, AbortSignal(), updates.append)
    return result


def _text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def test_schemas_are_pis_typebox_output(tmp_path: Path) -> None:
    tools = {tool.name: tool for tool in build_tools(["read", "bash", "edit", "write", "ls"], Workspace(str(tmp_path)))}
    assert tools["read"].parameters == {
        "type": "object", "required": ["path"],
        "properties": {
            "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
            "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
            "limit": {"type": "number", "description": "Maximum number of lines to read"},
        },
    }
    assert list(tools["bash"].parameters) == ["type", "required", "properties"]
    assert "required" not in tools["ls"].parameters
    assert tools["read"].description.startswith("Read the contents of a file.")
    assert "2000 lines or 50KB" in tools["read"].description
    assert tools["bash"].definition() == {"name": "bash", "description": tools["bash"].description,
                                          "parameters": tools["bash"].parameters}


def test_truncation_helpers() -> None:
    assert format_size(512) == "512B" and format_size(2048) == "2.0KB" and format_size(3 * 1024 * 1024) == "3.0MB"
    head = truncate_head("\n".join(f"l{i}" for i in range(2500)))
    assert (head["truncated"], head["truncatedBy"], head["outputLines"], head["totalLines"]) == (True, "lines", 2000,
                                                                                                 2500)
    tail = truncate_tail("x" * (DEFAULT_MAX_BYTES + 10))
    assert tail["lastLinePartial"] is True and len(tail["content"]) == DEFAULT_MAX_BYTES
    assert truncate_head("a\nb\n")["truncated"] is False


def test_read_offsets_limits_and_notices(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("\n".join(f"line {i}" for i in range(1, 11)))
    assert _text(_run("read", tmp_path, path="f.txt", offset=9)) == "line 9\nline 10"
    assert _text(_run("read", tmp_path, path="f.txt", offset=2, limit=2)) == (
        "line 2\nline 3\n\n[7 more lines in file. Use offset=4 to continue.]")
    with pytest.raises(ToolError, match=r"^Offset 20 is beyond end of file \(10 lines total\)$"):
        _run("read", tmp_path, path="f.txt", offset=20)
    (tmp_path / "big.txt").write_text("\n".join("x" for _ in range(2100)))
    big = _run("read", tmp_path, path="big.txt")
    assert _text(big).endswith("\n\n[Showing lines 1-2000 of 2100. Use offset=2001 to continue.]")
    assert big["details"]["truncation"]["truncatedBy"] == "lines"
    (tmp_path / "wide.txt").write_text("y" * (DEFAULT_MAX_BYTES + 1))
    assert _text(_run("read", tmp_path, path="wide.txt")) == (
        "[Line 1 is 50.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' wide.txt | head -c 51200]")
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
    (tmp_path / "p.png").write_bytes(png)
    image = _run("read", tmp_path, path="p.png")
    assert image["content"][0]["text"] == "Read image file [image/png]"
    assert image["content"][1]["mimeType"] == "image/png"


def test_write_and_edit(tmp_path: Path) -> None:
    assert _text(_run("write", tmp_path, path="d/e/f.txt", content="one\ntwo\n")) == "Successfully wrote to d/e/f.txt"
    result = _run("edit", tmp_path, path="d/e/f.txt", edits=[{"oldText": "two", "newText": "2"}])
    assert _text(result) == "Successfully replaced 1 block(s) in d/e/f.txt."
    assert (tmp_path / "d/e/f.txt").read_text() == "one\n2\n"
    assert result["details"]["firstChangedLine"] == 2
    with pytest.raises(ToolError, match="Could not find the exact text in d/e/f.txt"):
        _run("edit", tmp_path, path="d/e/f.txt", edits=[{"oldText": "three", "newText": "3"}])
    with pytest.raises(ToolError, match="Could not edit file: nope.txt. Error code: ENOENT."):
        _run("edit", tmp_path, path="nope.txt", edits=[{"oldText": "a", "newText": "b"}])
    with pytest.raises(ToolError, match="edits must contain at least one replacement"):
        _run("edit", tmp_path, path="d/e/f.txt", edits=[])


def test_edit_matching_rules() -> None:
    assert apply_edits("a b a", [{"oldText": "b", "newText": "c"}], "p") == "a c a"
    with pytest.raises(ToolError, match="Found 2 occurrences of the text in p"):
        apply_edits("x\nx\n", [{"oldText": "x", "newText": "y"}], "p")
    with pytest.raises(ToolError, match=r"edits\[0\] and edits\[1\] overlap in p"):
        apply_edits("abcdef", [{"oldText": "abc", "newText": "1"}, {"oldText": "cde", "newText": "2"}], "p")
    # Fuzzy matching: curly quotes and trailing blanks in the file still match, untouched lines keep their bytes.
    content = "keep \u201cthis\u201d  \nsay \u201chi\u201d\n"
    assert apply_edits(content, [{"oldText": 'say "hi"', "newText": 'say "bye"'}], "p") == (
        "keep \u201cthis\u201d  \nsay \"bye\"\n")
    assert prepare_edit_arguments({"path": "p", "oldText": "a", "newText": "b"}) == {
        "path": "p", "edits": [{"oldText": "a", "newText": "b"}]}
    assert prepare_edit_arguments({"path": "p", "edits": '[{"oldText": "a", "newText": "b"}]'})["edits"] == [
        {"oldText": "a", "newText": "b"}]


def test_ls(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("")
    (tmp_path / "A").mkdir()
    (tmp_path / ".hidden").write_text("")
    assert _text(_run("ls", tmp_path)) == ".hidden\nA/\nb.txt"
    assert _text(_run("ls", tmp_path, limit=1)) == ".hidden\n\n[1 entries limit reached. Use limit=2 for more]"
    (tmp_path / "empty").mkdir()
    assert _text(_run("ls", tmp_path, path="empty")) == "(empty directory)"
    with pytest.raises(ToolError, match="Not a directory"):
        _run("ls", tmp_path, path="b.txt")


def test_bash_output_exit_codes_and_timeout(tmp_path: Path) -> None:
    assert _text(_run("bash", tmp_path, command="pwd")) == f"{os.path.realpath(tmp_path)}\n"
    assert _text(_run("bash", tmp_path, command="true")) == "(no output)"
    with pytest.raises(ToolError, match=r"^oops\n\n\nCommand exited with code 4$"):
        _run("bash", tmp_path, command="echo oops >&2; exit 4")
    with pytest.raises(ToolError, match=r"^Command timed out after 0.5 seconds$"):
        _run("bash", tmp_path, command="sleep 20", timeout=0.5)
    with pytest.raises(ToolError, match="Invalid timeout"):
        _run("bash", tmp_path, command="true", timeout=-1)
    many = _run("bash", tmp_path, command="seq 1 3000")
    assert _text(many).startswith("1001\n")
    assert "[Showing lines 1001-3000 of 3000. Full output: " in _text(many)
    assert Path(many["details"]["fullOutputPath"]).read_text().startswith("1\n2\n")


def test_bash_abort_kills_the_process_group(tmp_path: Path) -> None:
    import time

    marker = tmp_path / "child.pid"
    abort = AbortSignal()

    def on_update(update: dict[str, Any]) -> None:
        # Abort once the background child is known to run (no timing assumptions under load).
        if any("ready" in block.get("text", "") for block in update["content"]):
            abort.abort()

    began = time.monotonic()
    with pytest.raises(ToolError, match="ready\n\n\nCommand aborted$"):
        _tool("bash", tmp_path).execute("id", {"command": f"sleep 30 & echo $! > {marker}; echo ready; wait"},
                                        abort, on_update)
    assert time.monotonic() - began < 10
    child = int(marker.read_text())
    time.sleep(0.2)
    status = Path(f"/proc/{child}/status")
    # Gone, or a zombie waiting for its reaper: either way no longer running.
    assert not status.exists() or "\nState:\tZ" in status.read_text()


def test_workspace_guard(tmp_path: Path) -> None:
    inside = tmp_path / "work"
    inside.mkdir()
    (tmp_path / "secret.txt").write_text("s")
    os.symlink(tmp_path / "secret.txt", inside / "link.txt")
    for path in ("../secret.txt", str(tmp_path / "secret.txt"), "link.txt"):
        with pytest.raises(ToolError, match="outside the working directory"):
            _run("read", inside, path=path)
    with pytest.raises(ToolError, match="outside the working directory"):
        _run("write", inside, path="../new.txt", content="x")
    assert not (tmp_path / "new.txt").exists()
    assert _text(_run("read", inside, allow_outside=True, path="link.txt")) == "s"


def test_read_errors_use_nodes_wording(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^ENOENT: no such file or directory, access '.*/absent.txt'$"):
        _run("read", tmp_path, path="absent.txt")
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError, match=r"^EISDIR: illegal operation on a directory, read$"):
        _run("read", tmp_path, path="d")

"""Pi's file tools (`read`, `write`, `edit`, `ls`): same schemas, limits, notices and error texts.

Differences from Pi, all deliberate: images are returned as read (Pi may resize them), and the ``edit``
tool's display diff is computed with difflib rather than jsdiff (it only lands in ``details``, which the model
never sees).
"""

from __future__ import annotations

import base64
import difflib
import errno
import os
import re
import stat
import unicodedata
from typing import Any

import orjson

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
    truncate_head,
    utf8_length,
)

ABORTED = "Operation aborted"


def _check_abort(abort: AbortSignal) -> None:
    if abort.aborted:
        raise ToolError(ABORTED)


def _text(text: str, details: Any = None) -> ToolResult:
    return {"content": [{"type": "text", "text": text}], "details": details}


# ---------------------------------------------------------------------------------------------------------------
# read

READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["path"],
    "properties": {
        "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
        "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
        "limit": {"type": "number", "description": "Maximum number of lines to read"},
    },
}

_IMAGE_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def _image_mime(head: bytes) -> str | None:
    for signature, mime in _IMAGE_SIGNATURES:
        if head.startswith(signature):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _js_int(value: Any) -> int | None:
    if value is None:
        return None
    return int(value)


def _node_fs_error(exc: OSError, absolute: str) -> str:
    """The message Node's fs gives for the failures a read meets (the model sees Pi's wording)."""
    if exc.errno == errno.ENOENT:
        return f"ENOENT: no such file or directory, access '{absolute}'"
    if exc.errno == errno.EACCES:
        return f"EACCES: permission denied, access '{absolute}'"
    if exc.errno == errno.EISDIR:
        return "EISDIR: illegal operation on a directory, read"
    return f"{errno.errorcode.get(exc.errno or 0, 'EIO')}: {(exc.strerror or 'error').lower()}, access '{absolute}'"


def _read(workspace: Workspace, call_id: str, args: dict[str, Any], abort: AbortSignal,
          on_update: UpdateSink) -> ToolResult:
    _check_abort(abort)
    path = args["path"]
    absolute = workspace.resolve(path)
    try:
        with open(absolute, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ToolError(_node_fs_error(exc, absolute)) from None
    _check_abort(abort)
    mime = _image_mime(data[:16])
    if mime:
        encoded = base64.b64encode(data).decode("ascii")
        return {"content": [{"type": "text", "text": f"Read image file [{mime}]"},
                            {"type": "image", "data": encoded, "mimeType": mime}], "details": None}
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    offset = args.get("offset")
    limit = args.get("limit")
    start = max(0, int(offset) - 1) if offset else 0
    start_display = start + 1
    if start >= len(lines):
        raise ToolError(f"Offset {offset} is beyond end of file ({len(lines)} lines total)")
    user_limited: int | None = None
    if limit is not None:
        end = min(start + int(limit), len(lines))
        selected = "\n".join(lines[start:end])
        user_limited = end - start
    else:
        selected = "\n".join(lines[start:])
    truncation = truncate_head(selected)
    details: dict[str, Any] | None = None
    if truncation["firstLineExceedsLimit"]:
        first_size = format_size(utf8_length(lines[start]))
        output = (f"[Line {start_display} is {first_size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
                  f"Use bash: sed -n '{start_display}p' {path} | head -c {DEFAULT_MAX_BYTES}]")
        details = {"truncation": truncation}
    elif truncation["truncated"]:
        end_display = start_display + truncation["outputLines"] - 1
        output = truncation["content"]
        if truncation["truncatedBy"] == "lines":
            output += (f"\n\n[Showing lines {start_display}-{end_display} of {len(lines)}. "
                       f"Use offset={end_display + 1} to continue.]")
        else:
            output += (f"\n\n[Showing lines {start_display}-{end_display} of {len(lines)} "
                       f"({format_size(DEFAULT_MAX_BYTES)} limit). Use offset={end_display + 1} to continue.]")
        details = {"truncation": truncation}
    elif user_limited is not None and start + user_limited < len(lines):
        remaining = len(lines) - (start + user_limited)
        output = (f"{truncation['content']}\n\n[{remaining} more lines in file. "
                  f"Use offset={start + user_limited + 1} to continue.]")
    else:
        output = truncation["content"]
    return _text(output, details)


def read_tool(workspace: Workspace) -> Tool:
    description = (
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent "
        f"as attachments. For text files, output is truncated to {DEFAULT_MAX_LINES} lines or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). Use offset/limit for large files. When you need "
        "the full file, continue with offset until complete."
    )
    return Tool("read", description, READ_SCHEMA, lambda *a: _read(workspace, *a))


# ---------------------------------------------------------------------------------------------------------------
# write

WRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["path", "content"],
    "properties": {
        "path": {"type": "string", "description": "Path to the file to write (relative or absolute)"},
        "content": {"type": "string", "description": "Content to write to the file"},
    },
}


def _write(workspace: Workspace, call_id: str, args: dict[str, Any], abort: AbortSignal,
           on_update: UpdateSink) -> ToolResult:
    path = args["path"]
    absolute = workspace.resolve(path)
    with workspace.mutation_lock(absolute):
        _check_abort(abort)
        try:
            os.makedirs(os.path.dirname(absolute) or ".", exist_ok=True)
            _check_abort(abort)
            with open(absolute, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
                handle.write(args["content"])
        except OSError as exc:
            raise ToolError(f"{exc.strerror or 'error'}: {absolute}") from None
        _check_abort(abort)
    return _text(f"Successfully wrote to {path}")


def write_tool(workspace: Workspace) -> Tool:
    description = (
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically "
        "creates parent directories."
    )
    return Tool("write", description, WRITE_SCHEMA, lambda *a: _write(workspace, *a))


# ---------------------------------------------------------------------------------------------------------------
# edit

EDIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["path", "edits"],
    "properties": {
        "path": {"type": "string", "description": "Path to the file to edit (relative or absolute)"},
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["oldText", "newText"],
                "properties": {
                    "oldText": {
                        "type": "string",
                        "description": (
                            "Exact text for one targeted replacement. It must be unique in the original file and "
                            "must not overlap with any other edits[].oldText in the same call."
                        ),
                    },
                    "newText": {"type": "string", "description": "Replacement text for this targeted edit."},
                },
            },
            "description": (
                "One or more targeted replacements. Each edit is matched against the original file, not "
                "incrementally. Do not include overlapping or nested edits. If two changes touch the same block "
                "or nearby lines, merge them into one edit instead."
            ),
        },
    },
}


def _single_edit(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("oldText"), str) and isinstance(value.get("newText"), str)


def prepare_edit_arguments(args: Any) -> Any:
    """Pi's repairs for common model slips: ``edits`` sent as a JSON string or a single object, legacy
    top-level ``oldText``/``newText``."""
    if not isinstance(args, dict):
        return args
    edits = args.get("edits")
    if isinstance(edits, str):
        try:
            parsed = orjson.loads(edits)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, list):
            args["edits"] = parsed
        elif _single_edit(parsed):
            args["edits"] = [parsed]
    elif _single_edit(edits):
        args["edits"] = [edits]
    if not isinstance(args.get("oldText"), str) or not isinstance(args.get("newText"), str):
        return args
    combined = list(args["edits"]) if isinstance(args.get("edits"), list) else []
    combined.append({"oldText": args["oldText"], "newText": args["newText"]})
    rest = {key: value for key, value in args.items() if key not in ("oldText", "newText")}
    rest["edits"] = combined
    return rest


_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")


def normalize_for_fuzzy_match(text: str) -> str:
    """Pi's fuzzy view of text: NFKC, no trailing blanks, ASCII quotes, dashes and spaces."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


def _normalize_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _line_spans(content: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in re.findall(r"[^\n]*\n|[^\n]+", content):
        spans.append((offset, offset + len(line)))
        offset += len(line)
    return spans


def _apply(content: str, replacements: list[tuple[int, int, str]], offset: int = 0) -> str:
    for index, length, new_text in reversed(replacements):
        start = index - offset
        content = content[:start] + new_text + content[start + length:]
    return content


def _apply_preserving_lines(original: str, base: str, replacements: list[tuple[int, int, str]]) -> str:
    original_lines = re.findall(r"[^\n]*\n|[^\n]+", original)
    spans = _line_spans(base)
    if len(original_lines) != len(spans):
        raise ToolError("Cannot preserve unchanged lines because the base content has a different line count.")
    groups: list[list[Any]] = []
    for replacement in sorted(replacements):
        start, end = replacement[0], replacement[0] + replacement[1]
        first = next((i for i, (s, e) in enumerate(spans) if s <= start < e), -1)
        if first == -1:
            raise ToolError("Replacement range is outside the base content.")
        last = first
        while last < len(spans) and spans[last][1] < end:
            last += 1
        if last >= len(spans):
            raise ToolError("Replacement range is outside the base content.")
        if groups and first < groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], last + 1)
            groups[-1][2].append(replacement)
        else:
            groups.append([first, last + 1, [replacement]])
    result: list[str] = []
    position = 0
    for first, end_line, members in groups:
        result.append("".join(original_lines[position:first]))
        group_start, group_end = spans[first][0], spans[end_line - 1][1]
        result.append(_apply(base[group_start:group_end], members, group_start))
        position = end_line
    result.append("".join(original_lines[position:]))
    return "".join(result)


def apply_edits(content: str, edits: list[dict[str, Any]], path: str) -> str:
    """Pi's ``applyEditsToNormalizedContent``: every edit matched against the original, exact before fuzzy."""
    normalized = [(_normalize_lf(e["oldText"]), _normalize_lf(e["newText"])) for e in edits]
    count = len(normalized)
    for index, (old, _new) in enumerate(normalized):
        if not old:
            raise ToolError(f"oldText must not be empty in {path}." if count == 1
                            else f"edits[{index}].oldText must not be empty in {path}.")
    fuzzy_content = normalize_for_fuzzy_match(content)
    used_fuzzy = any(old not in content and normalize_for_fuzzy_match(old) in fuzzy_content for old, _ in normalized)
    base = fuzzy_content if used_fuzzy else content
    matched: list[tuple[int, int, str, int]] = []
    for index, (old, new) in enumerate(normalized):
        position = base.find(old)
        length = len(old)
        if position == -1:
            fuzzy_old = normalize_for_fuzzy_match(old)
            position = normalize_for_fuzzy_match(base).find(fuzzy_old)
            length = len(fuzzy_old)
        if position == -1:
            if count == 1:
                raise ToolError(f"Could not find the exact text in {path}. The old text must match exactly "
                                "including all whitespace and newlines.")
            raise ToolError(f"Could not find edits[{index}] in {path}. The oldText must match exactly including "
                            "all whitespace and newlines.")
        occurrences = normalize_for_fuzzy_match(base).count(normalize_for_fuzzy_match(old))
        if occurrences > 1:
            if count == 1:
                raise ToolError(f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
                                "Please provide more context to make it unique.")
            raise ToolError(f"Found {occurrences} occurrences of edits[{index}] in {path}. Each oldText must be "
                            "unique. Please provide more context to make it unique.")
        matched.append((position, length, new, index))
    matched.sort()
    for previous, current in zip(matched, matched[1:], strict=False):
        if previous[0] + previous[1] > current[0]:
            raise ToolError(f"edits[{previous[3]}] and edits[{current[3]}] overlap in {path}. Merge them into one "
                            "edit or target disjoint regions.")
    replacements = [(position, length, new) for position, length, new, _ in matched]
    updated = _apply_preserving_lines(content, base, replacements) if used_fuzzy else _apply(base, replacements)
    if updated == content:
        if count == 1:
            raise ToolError(f"No changes made to {path}. The replacement produced identical content. This might "
                            "indicate an issue with special characters or the text not existing as expected.")
        raise ToolError(f"No changes made to {path}. The replacements produced identical content.")
    return updated


def _first_changed_line(old: str, new: str) -> int | None:
    matcher = difflib.SequenceMatcher(a=old.split("\n"), b=new.split("\n"), autojunk=False)
    for tag, _i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return j1 + 1
    return None


def _edit(workspace: Workspace, call_id: str, args: dict[str, Any], abort: AbortSignal,
          on_update: UpdateSink) -> ToolResult:
    edits = args.get("edits")
    if not isinstance(edits, list) or not edits:
        raise ToolError("Edit tool input is invalid. edits must contain at least one replacement.")
    path = args["path"]
    absolute = workspace.resolve(path)
    with workspace.mutation_lock(absolute):
        _check_abort(abort)
        if not os.access(absolute, os.R_OK | os.W_OK):
            code = "ENOENT" if not os.path.exists(absolute) else "EACCES"
            raise ToolError(f"Could not edit file: {path}. Error code: {code}.")
        with open(absolute, "rb") as handle:
            raw = handle.read().decode("utf-8", "replace")
        _check_abort(abort)
        bom = "\ufeff" if raw.startswith("\ufeff") else ""
        content = raw[len(bom):]
        lf_at = content.find("\n")
        crlf_at = content.find("\r\n")
        ending = "\r\n" if lf_at != -1 and crlf_at != -1 and crlf_at < lf_at else "\n"
        normalized = _normalize_lf(content)
        updated = apply_edits(normalized, edits, path)
        final = bom + (updated.replace("\n", "\r\n") if ending == "\r\n" else updated)
        with open(absolute, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
            handle.write(final)
        _check_abort(abort)
    patch = "".join(difflib.unified_diff(normalized.splitlines(True), updated.splitlines(True), path, path, n=4))
    details = {"diff": patch, "patch": patch, "firstChangedLine": _first_changed_line(normalized, updated)}
    return _text(f"Successfully replaced {len(edits)} block(s) in {path}.", details)


def edit_tool(workspace: Workspace) -> Tool:
    description = (
        "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, "
        "non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge "
        "them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to "
        "connect distant changes."
    )
    return Tool("edit", description, EDIT_SCHEMA, lambda *a: _edit(workspace, *a),
                prepare_arguments=prepare_edit_arguments)


# ---------------------------------------------------------------------------------------------------------------
# ls

LS_LIMIT = 500
LS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Directory to list (default: current directory)"},
        "limit": {"type": "number", "description": "Maximum number of entries to return (default: 500)"},
    },
}


def _ls(workspace: Workspace, call_id: str, args: dict[str, Any], abort: AbortSignal,
        on_update: UpdateSink) -> ToolResult:
    _check_abort(abort)
    directory = workspace.resolve(args.get("path") or ".")
    limit = int(args["limit"]) if args.get("limit") is not None else LS_LIMIT
    if not os.path.exists(directory):
        raise ToolError(f"Path not found: {directory}")
    if not os.path.isdir(directory):
        raise ToolError(f"Not a directory: {directory}")
    try:
        names = os.listdir(directory)
    except OSError as exc:
        raise ToolError(f"Cannot read directory: {exc.strerror or exc}") from None
    names.sort(key=lambda name: name.lower())
    results: list[str] = []
    limit_reached = False
    for name in names:
        if len(results) >= limit:
            limit_reached = True
            break
        try:
            is_dir = stat.S_ISDIR(os.stat(os.path.join(directory, name)).st_mode)
        except OSError:
            continue
        results.append(name + ("/" if is_dir else ""))
    if not results:
        return _text("(empty directory)")
    truncation = truncate_head("\n".join(results), max_lines=2**53 - 1)
    output = truncation["content"]
    details: dict[str, Any] = {}
    notices: list[str] = []
    if limit_reached:
        notices.append(f"{limit} entries limit reached. Use limit={limit * 2} for more")
        details["entryLimitReached"] = limit
    if truncation["truncated"]:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = truncation
    if notices:
        output += f"\n\n[{'. '.join(notices)}]"
    return _text(output, details or None)


def ls_tool(workspace: Workspace) -> Tool:
    description = (
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes "
        f"dotfiles. Output is truncated to {LS_LIMIT} entries or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit "
        "first)."
    )
    return Tool("ls", description, LS_SCHEMA, lambda *a: _ls(workspace, *a))

"""Make a bloated session small enough to resume: large images and tool outputs cut, abandoned branches dropped.

Sessions grow to gigabytes mostly through base64 screenshots and long tool outputs that the model saw once.
`slim` replaces an image over the limit with a text block naming what was there (mime type, size, where), and
keeps the head and tail of a tool output over the limit around a marker, so the conversation reads the same
and Pi resumes it; the context of the result equals the original's except for those blocks. With
`drop_branches` only the active path is kept, plus the entries it refers to (the `fromId` of its branch
summaries, labels of kept entries), re-parented onto their nearest kept ancestor; the dropped lines go to
`OUT.rejected`. The original lines of slimmed entries stay in FILE (or its backup with --in-place).

Speed: only lines longer than the smallest limit can hold an oversized block, so every other line is copied
without being parsed.

As a Pi version reads its files (`version`): the messages of its `prompt_roles` (Pi 1.6's system messages, whose
sections are the system prompt and whose `toolsAdded` are the tools' schemas) are never shortened, and where its
context edits count, an edit's replacement is content like its target's: its images are replaced and, when it
replaces a tool result, its text is cut as the result's would be (the target's role says which).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_tools.js.errors import JsonSyntaxError
from pi_tools.js.json_line import loads_line
from pi_tools.js.json_stringify import js_stringify
from pi_tools.rewrite.writer import Change

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

TOOL_OUTPUT_ROLES = ("toolResult",)


class SlimError(Exception):
    """The slimming asked for cannot be done on this file (no valid header, a legacy file for --drop-branches)."""


@dataclass(frozen=True)
class SlimOptions:
    max_image_kb: int | None = None
    max_tool_output_kb: int | None = None
    drop_branches: bool = False


@dataclass
class SlimResult:
    lines: list[bytes]
    rejected: list[tuple[int, bytes]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    ending: bytes = b"\n"

    def data(self) -> bytes:
        return b"\n".join(self.lines) + (self.ending if self.lines else b"")


def image_bytes(data: str) -> int:
    """Decoded size of base64 `data` (what the image weighs, not its text)."""
    return len(data) * 3 // 4 - len(data[-2:]) + len(data[-2:].rstrip("="))


def _kb(size: int) -> str:
    return f"{size / 1024:.0f} KB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MB"


def _cut(text: str, limit: int) -> tuple[str, int]:
    """`text` cut to its first and last `limit/2` UTF-8 bytes around a marker; the number of bytes removed."""
    encoded = text.encode("utf-8", "surrogatepass")
    half = limit // 2
    head = encoded[:half].decode("utf-8", "ignore")
    tail = encoded[len(encoded) - half:].decode("utf-8", "ignore")
    removed = len(encoded) - len(head.encode("utf-8", "surrogatepass")) - len(tail.encode("utf-8", "surrogatepass"))
    marker = f"\n[... {removed} bytes of tool output removed by pi-tools slim ...]\n"
    return head + marker + tail, removed


class _Slimmer:
    def __init__(self, options: SlimOptions, version: PiVersion, lines: list[bytes]) -> None:
        self.image_limit = options.max_image_kb * 1024 if options.max_image_kb is not None else None
        self.output_limit = options.max_tool_output_kb * 1024 if options.max_tool_output_kb is not None else None
        limits = [limit for limit in (self.image_limit, self.output_limit) if limit is not None]
        # An image of N decoded bytes takes 4N/3 bytes of base64; a text of N UTF-8 bytes at least N bytes.
        self.shortest = min(limits) if limits else None
        self.prompt_roles = version.prompt_roles
        self.edits = version.context.context_edits
        self._lines = lines
        self._roles: dict[str, Any] | None = None

    def _target_role(self, target: Any) -> Any:
        """The role of the message an edit's target gives (`custom` for a custom message entry; None for any
        other entry, or none), from every line of the file, read once and only when a long edit needs it."""
        if self._roles is None:
            self._roles = {}
            for line in self._lines:
                if b'"id"' not in line:
                    continue
                try:
                    entry = loads_line(line)
                except (JsonSyntaxError, UnicodeDecodeError, RecursionError, ValueError):
                    continue
                if not isinstance(entry, dict) or type(entry.get("id")) is not str:
                    continue
                message = entry.get("message")
                if entry.get("type") == "message" and isinstance(message, dict):
                    self._roles[entry["id"]] = message.get("role")
                elif entry.get("type") == "custom_message":
                    self._roles[entry["id"]] = "custom"
        return self._roles.get(target) if type(target) is str else None

    def line(self, line: bytes, number: int, changes: list[Change]) -> bytes:
        if self.shortest is None or len(line) <= self.shortest:
            return line
        try:
            entry = loads_line(line)
        except (JsonSyntaxError, UnicodeDecodeError, RecursionError, ValueError):
            return line
        if not isinstance(entry, dict):
            return line
        entry_id = entry.get("id") if isinstance(entry.get("id"), str) else None
        before = len(changes)
        if entry.get("type") == "message" and isinstance(entry.get("message"), dict):
            role = entry["message"].get("role")
            if type(role) is not str or role not in self.prompt_roles:
                self._message(entry["message"], "$.message", number, entry_id, changes)
        elif entry.get("type") == "custom_message":
            self._content(entry, "$", number, entry_id, changes, outputs=False)
        elif entry.get("type") == "context_edit" and self.edits and isinstance(entry.get("replacement"), dict):
            self._replacement(entry, number, entry_id, changes)
        if len(changes) == before:
            return line
        return js_stringify(entry).encode("utf-8")

    def _message(self, message: dict[str, Any], path: str, number: int, entry_id: str | None,
                 changes: list[Change]) -> None:
        role = message.get("role")
        self._content(message, path, number, entry_id, changes, outputs=role in TOOL_OUTPUT_ROLES)
        output = message.get("output")
        if role == "bashExecution" and isinstance(output, str) and self.output_limit is not None \
                and len(output) > self.output_limit // 4 and len(output.encode("utf-8", "surrogatepass")) > self.output_limit:
            message["output"], removed = _cut(output, self.output_limit)
            changes.append(self._change(number, entry_id, f"cut {removed} bytes from the middle of the bash output "
                                                          f"at {path}.output"))

    def _replacement(self, entry: dict[str, Any], number: int, entry_id: str | None, changes: list[Change]) -> None:
        """An edit's replacement content, slimmed as the content of its target's message would be."""
        replacement = entry["replacement"]
        role = self._target_role(entry.get("targetId"))
        if role not in ("user", "assistant", "toolResult", "custom"):
            return  # Pi puts a replacement only into these messages: any other is no content of the context
        outputs = role in TOOL_OUTPUT_ROLES
        content = replacement.get("content")
        if isinstance(content, str) and outputs and self.output_limit is not None \
                and len(content) > self.output_limit // 4 \
                and len(content.encode("utf-8", "surrogatepass")) > self.output_limit:
            replacement["content"], removed = _cut(content, self.output_limit)
            changes.append(self._change(number, entry_id, f"cut {removed} bytes from the middle of the tool output "
                                                          "that replaces the content of "
                                                          f"{entry.get('targetId')} at $.replacement.content"))
        else:
            self._content(replacement, "$.replacement", number, entry_id, changes, outputs=outputs)

    def _content(self, holder: dict[str, Any], path: str, number: int, entry_id: str | None, changes: list[Change],
                 outputs: bool) -> None:
        content = holder.get("content")
        if not isinstance(content, list):
            return
        for index, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            where = f"{path}.content[{index}]"
            kind = block.get("type")
            if kind == "image" and self.image_limit is not None and isinstance(block.get("data"), str):
                size = image_bytes(block["data"])
                if size > self.image_limit:
                    mime = block.get("mimeType") if isinstance(block.get("mimeType"), str) else "unknown type"
                    text = f"[image removed by pi-tools slim: {mime}, {_kb(size)}, was {where}" + \
                           (f" of entry {entry_id}]" if entry_id else "]")
                    content[index] = {"type": "text", "text": text}
                    changes.append(self._change(number, entry_id, f"replaced a {_kb(size)} {mime} image at {where} "
                                                                  "with a text placeholder"))
            elif kind == "text" and outputs and self.output_limit is not None and isinstance(block.get("text"), str):
                text = block["text"]
                if len(text) > self.output_limit // 4 and len(text.encode("utf-8", "surrogatepass")) > self.output_limit:
                    block["text"], removed = _cut(text, self.output_limit)
                    changes.append(self._change(number, entry_id, f"cut {removed} bytes from the middle of the "
                                                                  f"tool output at {where}.text"))

    @staticmethod
    def _change(number: int, entry_id: str | None, message: str) -> Change:
        return Change(number, f"entry {entry_id}: {message}" if entry_id else message, entry_id)


def _branch_plan(data: bytes, source: str, version: PiVersion
                 ) -> tuple[set[int], dict[int, tuple[str, str]], list[Change]]:
    """Lines to drop, lines to re-parent (line -> (old parent, new parent)) and the changes, for --drop-branches."""
    from pi_tools.session.load import tree_from_raw
    from pi_tools.session.reader import SessionReadError, parse_session_bytes, validate_header
    from pi_tools.session.tree import PathCycleError, id_key

    try:
        raw = validate_header(parse_session_bytes(data, source, lazy=True), len(data))
        tree = tree_from_raw(raw, version.context.vocabulary)
    except SessionReadError as exc:
        raise SlimError(str(exc)) from None
    if tree.migrated_from is not None:
        raise SlimError(f"{source}: --drop-branches needs a version 3 file (this one is version "
                        f"{tree.migrated_from}; Pi migrates it when it opens it)")
    if len(set(tree.line_numbers)) != len(tree.line_numbers):
        raise SlimError(f"{source}: a line holds several entries; run `pi-tools repair` first")
    if not isinstance(tree.leaf_id, str):
        raise SlimError(f"{source}: --drop-branches needs a last entry with an id (Pi's leaf)")
    try:
        path = tree.path()
    except PathCycleError as exc:
        raise SlimError(f"{source}: {exc}") from None
    # (ids as the tree keys them, id_key: a damaged list or object id is only itself, and hashable)
    kept = {id_key(entry.get("id")) for entry in path}
    extra: list[Any] = []
    for entry in path:
        if entry.get("type") == "branch_summary":
            target = tree.by_id.get(id_key(entry.get("fromId")))
            if target is not None and id_key(target.get("id")) not in kept:
                extra.append(target)
    for entry in tree.entries:
        if isinstance(entry, dict) and entry.get("type") == "label" and id_key(entry.get("targetId")) in kept \
                and id_key(entry.get("id")) not in kept:
            extra.append(entry)
    kept |= {id_key(entry.get("id")) for entry in extra}
    reparent: dict[int, tuple[str, str]] = {}
    changes: list[Change] = []
    for entry in extra:
        ancestor = tree.by_id.get(id_key(entry.get("parentId")))
        seen = {id(entry)}
        while ancestor is not None and id_key(ancestor.get("id")) not in kept:
            if id(ancestor) in seen:  # a parentId cycle off the active path: no kept ancestor
                ancestor = None
                break
            seen.add(id(ancestor))
            ancestor = tree.by_id.get(id_key(ancestor.get("parentId")))
        line = tree.line_of(entry)
        old = entry.get("parentId")
        if line is None or ancestor is None or not isinstance(old, str) or ancestor.get("id") == old:
            continue
        reparent[line] = (old, ancestor["id"])
        changes.append(Change(line, f"entry {entry.get('id')}: kept (the active path refers to it), now a child of "
                                    f"{ancestor['id']} (parentId {old} -> {ancestor['id']})", entry.get("id")))
    dropped: set[int] = set()
    for entry, line in zip(tree.entries, tree.line_numbers, strict=False):
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"] not in kept:
            dropped.add(line)
            changes.append(Change(line, f"entry {entry['id']}: not on the active path; moved to the .rejected file",
                                  entry["id"]))
    if version.context.context_edits:
        for entry in path:
            target = entry.get("targetId") if entry.get("type") == "context_edit" else None
            if type(target) is str and target in tree.by_id and id_key(target) not in kept:
                line = tree.line_of(entry) or 0
                changes.append(Change(line, f"entry {entry.get('id')}: a context edit of the active path, kept; its "
                                            f"target {target} is on another branch (moved to the .rejected file), so "
                                            "it edits nothing, as before", entry.get("id")))
    return dropped, reparent, changes


def slim_bytes(data: bytes, source: str, options: SlimOptions, version: PiVersion | None = None) -> SlimResult:
    """Slim a session file's bytes as the Pi `version` reads them (None: pi.resolve()'s); the line structure is
    kept (a missing final newline is added)."""
    from pi_tools.rewrite.repair import chosen_version, with_parent

    version = chosen_version(version)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    dropped: set[int] = set()
    reparent: dict[int, tuple[str, str]] = {}
    result = SlimResult([])
    if options.drop_branches:
        dropped, reparent, branch_changes = _branch_plan(data, source, version)
        result.changes.extend(branch_changes)
    slimmer = _Slimmer(options, version, lines)
    for number, line in enumerate(lines, start=1):
        if number in dropped:
            result.rejected.append((number, line))
            continue
        if number in reparent:
            line = with_parent(line, *reparent[number])
        result.lines.append(slimmer.line(line, number, result.changes))
    result.changes.sort(key=lambda change: change.line)
    return result


def slim_file(source: str, out: str | None, options: SlimOptions, *, in_place: bool = False, force: bool = False,
              dry_run: bool = False, version: PiVersion | None = None) -> tuple[SlimResult, int]:
    """Slim `source` into `out` (or in place) through the session writer; the result and FILE's size."""
    from pi_tools.rewrite.writer import commit, plan_targets, read_snapshot

    targets = None if dry_run else plan_targets(source, out, in_place=in_place, force=force)
    snapshot = read_snapshot(source)
    result = slim_bytes(snapshot.data, source, options, version)
    if targets is not None:
        from pi_tools.rewrite.writer import rejected_bytes

        commit(snapshot, targets, result.data(), rejected_bytes(result.rejected))
    return result, snapshot.size

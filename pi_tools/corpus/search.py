"""`search`: find text in many sessions and say of each hit whether Pi's active path holds it.

The active path is what Pi resumes: the walk from the session's leaf (the last entry of the file, as Pi's
index leaves it) back to the root. Every other entry of the file is on an abandoned branch. A hit is one entry
(file line) whose searchable text (pi_tools.corpus.text) matches; its text is the first match in it.

Each file is one task on the engine (workers read the files themselves). A literal search first looks for the
pattern in the file's bytes (pi_tools.corpus.match.Prefilter): a file without it costs a scan and a header
check, and only the lines that hold it are parsed. The tree then comes from the bulk index of a clean file
(ids and parents of every line in a few C passes) or, for a damaged or legacy file, from the line-by-line
reader, which reads it exactly as Pi does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_tools.corpus.match import Matcher, hit_text
from pi_tools.corpus.searchable import entry_message, message_role, searchable_texts
from pi_tools.engine import Engine
from pi_tools.engine.run import map_inputs
from pi_tools.pi import resolve
from pi_tools.session.header_check import header_problem
from pi_tools.sources.files import expand, read_bytes

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

BRANCHES = ("all", "active")


@dataclass(frozen=True)
class SearchSpec:
    """What to look for and where (picklable: one travels with every task)."""

    matcher: Matcher
    roles: frozenset[str] | None = None  # None: every role
    tool: str | None = None
    branch: str = "all"  # or "active"
    pi: str | None = None  # the Pi version's name (None: PI_TOOLS_PI, else the default), resolved where it runs

    def __post_init__(self) -> None:
        if self.branch not in BRANCHES:
            raise ValueError(f"--branch: expected one of {', '.join(BRANCHES)}, got {self.branch!r}")


@dataclass
class FileHits:
    """The hits of one input in line order, or why it could not be searched."""

    source: str
    hits: list[dict[str, Any]]
    error: str | None = None


def hit_document(source: str, line: int, entry_id: Any, role: str | None, active: bool, text: str,
                 pi: str | None = None) -> dict[str, Any]:
    """One `hit` document, keys in the documented order (`pi`: the version's name when its documents carry it)."""
    return {"kind": "hit", "source": source, **({"pi": pi} if pi is not None else {}), "line": line,
            "entryId": entry_id if isinstance(entry_id, (str, int, float)) and not isinstance(entry_id, bool) else None,
            "role": role, "branch": "active" if active else "abandoned", "text": text}


def match_entry(spec: SearchSpec, entry: Any, roles: frozenset[str] = frozenset()) -> tuple[str | None, str] | None:
    """(role, hit text) for an entry that matches the search, else None (role and tool filters applied; `roles`:
    those the Pi version knows beside the registry's)."""
    message = entry_message(entry)
    if message is None:
        return None
    role = message_role(message)
    if spec.roles is not None and role not in spec.roles:
        return None
    find = spec.matcher.find
    for text in searchable_texts(message, spec.tool, roles):
        span = find(text)
        if span is not None:
            return role, hit_text(text, *span)
    return None


def search_file(job: tuple[str, SearchSpec]) -> FileHits:
    """The hits of one file (the engine's task: module-level, reads the file where it runs)."""
    source, spec = job
    try:
        data = read_bytes(source)
    except IsADirectoryError:
        return FileHits(source, [], f"{source}: is a directory, not a session file")
    except FileNotFoundError:
        return FileHits(source, [], f"{source}: no such file")
    except OSError as exc:
        return FileHits(source, [], f"{source}: cannot read: {exc.strerror or exc}")
    problem = header_problem(data)
    if problem is not None:
        return FileHits(source, [], f"{source}: {problem}")
    prefilter = spec.matcher.prefilter
    candidates = None if prefilter is None else prefilter.lines(data)
    if candidates is not None and not candidates:
        return FileHits(source, [])
    try:
        return FileHits(source, _search_bytes(source, data, spec, candidates, resolve(spec.pi)))
    except _Unreadable as exc:
        return FileHits(source, [], f"{source}: {exc}")


class _Unreadable(Exception):
    """The file cannot be searched as Pi would read it (Pi would fail to load it too)."""


def _search_bytes(source: str, data: bytes, spec: SearchSpec, candidates: list[tuple[int, int]] | None,
                  version: PiVersion) -> list[dict[str, Any]]:
    from pi_tools.corpus.heads import clean_heads
    from pi_tools.js.json_line import loads_line_lenient

    heads = clean_heads(data)
    if heads is None:
        return _search_tree(source, data, spec, candidates, version)
    ids, active = heads
    roles = version.context.vocabulary.roles
    pi = version.name
    view = memoryview(data)
    hits = []
    only_active = spec.branch == "active"
    for index, start, end in _numbered(data, candidates):
        if index == 0 or (only_active and index not in active):
            continue
        entry = loads_line_lenient(view[start:end])
        matched = match_entry(spec, entry, roles)
        if matched is not None:
            hits.append(hit_document(source, index + 1, ids[index], matched[0], index in active, matched[1], pi))
    return hits


def _numbered(data: bytes, candidates: list[tuple[int, int]] | None) -> Iterator[tuple[int, int, int]]:
    """(0-based line index, start, end) of the candidate lines, or of every line when there are no candidates."""
    if candidates is not None:
        lines = _LineIndex(data)
        for start, end in candidates:
            yield lines[start], start, end
        return
    start, index, size = 0, 0, len(data)
    find = data.find
    while start < size:
        end = find(b"\n", start)
        end = size if end < 0 else end
        yield index, start, end
        index += 1
        start = end + 1


class _LineIndex(dict[int, int]):
    """Maps a line's start offset to its 0-based line number, counting newlines between successive lookups
    (candidates come in file order, so the whole file is counted once)."""

    def __init__(self, data: bytes) -> None:
        super().__init__()
        self._data = data
        self._offset = 0
        self._line = 0

    def __missing__(self, start: int) -> int:
        if start < self._offset:
            self._offset, self._line = 0, 0
        self._line += self._data.count(b"\n", self._offset, start)
        self._offset = start
        return self._line


def _search_tree(source: str, data: bytes, spec: SearchSpec, candidates: list[tuple[int, int]] | None,
                 version: PiVersion) -> list[dict[str, Any]]:
    """A damaged or legacy file: read line by line as Pi reads it (migrated, duplicate ids as Pi resolves them)."""
    from pi_tools.js.values import UNDEFINED
    from pi_tools.session.load import tree_from_raw
    from pi_tools.session.reader import SessionReadError, parse_session_bytes, validate_header
    from pi_tools.session.tree import PathCycleError

    try:
        tree = tree_from_raw(validate_header(parse_session_bytes(data, source), len(data)), version.context.vocabulary)
    except SessionReadError as exc:
        raise _Unreadable(str(exc).removeprefix(f"{source}: ")) from None
    try:
        path = tree.path(tree.leaf_id)
    except PathCycleError as exc:
        raise _Unreadable(f"{exc}; its active path cannot be told") from None
    active = {id(entry) for entry in path}
    wanted: set[int] | None = None
    if candidates is not None:
        lines = _LineIndex(data)
        wanted = {lines[start] + 1 for start, _ in candidates}
    hits = []
    only_active = spec.branch == "active"
    roles = version.context.vocabulary.roles
    pi = version.name
    for entry, line in zip(tree.entries, tree.line_numbers, strict=True):
        if wanted is not None and line not in wanted:
            continue
        on_path = id(entry) in active
        if only_active and not on_path:
            continue
        matched = match_entry(spec, entry, roles)
        if matched is not None:
            entry_id = entry.get("id", UNDEFINED) if type(entry) is dict else UNDEFINED
            hits.append(hit_document(source, line, None if entry_id is UNDEFINED else entry_id,
                                     matched[0], on_path, matched[1], pi))
    return hits


def search_paths(paths: list[str], spec: SearchSpec, engine: Engine | None = None) -> Iterator[FileHits]:
    """Search every input (folders expanded to their *.jsonl files) on the engine, results in input order."""
    return map_inputs(search_file, expand(paths), spec, engine, _not_searched)


def _not_searched(source: str, error: str) -> FileHits:
    return FileHits(source, [], error)

"""The bulk index (session/bulk.py) must give exactly what the line-by-line reader gives, or decline.

The context stages read every session through `context_source`: the bulk index for a clean file, the lazy
line-by-line tree otherwise. Here both are run on every session file in the repository, on every leaf, and on
thousands of damaged variants of them; the context documents (messages, settings, diagnostics) must be
identical whenever the bulk index accepts a file.
"""

from __future__ import annotations

import pickle
import random
from pathlib import Path
from typing import Any

import pytest

from pi_tools.engine.helper import index_second_half
from pi_tools.js.json_line import loads_line
from pi_tools.pipe.documents import iter_document_bytes
from pi_tools.pipeline.stages import context_document
from pi_tools.session import bulk
from pi_tools.session.bulk import BulkSession, index_clean_session, index_elsewhere
from pi_tools.session.load import context_source, tree_from_raw
from pi_tools.session.reader import SessionReadError, parse_session_bytes, validate_header
from pi_tools.session.tree import SessionTree

from support.golden import ROOT

SESSION_FILES = sorted(
    path for pattern in ("fixtures/**/*.jsonl", "tests/data/**/*.jsonl") for path in ROOT.glob(pattern)
    if "expected" not in path.parts
)


def line_by_line(data: bytes, source: str) -> SessionTree:
    return tree_from_raw(validate_header(parse_session_bytes(data, source, lazy=True), len(data)))


def written_document(source: SessionTree | BulkSession, leaf: str | None) -> object:
    """The context document as a reader of the output sees it (messages may be written from their own text, so
    the comparison is of values, as any JSON reader parses them)."""
    try:
        written = b"".join(iter_document_bytes(context_document(source, leaf)))
    except Exception as exc:  # both readers must fail the same way too
        return f"{type(exc).__name__}: {exc}"
    return loads_line(written)


def without_diagnostics(document: object) -> object:
    return {**document, "diagnostics": None} if isinstance(document, dict) else document


class SecondHalfElsewhere:
    """What pi_tools.engine.helper does for the main process, in process: the second half indexed apart, in small
    chunks (so runs meet at many line breaks), sent through pickle."""

    def __init__(self, chunk_size: int) -> None:
        self.chunk_size = chunk_size
        self.heads: Any = None

    def expect(self, source: str, data: bytes, start: int) -> bool:
        def read_into(buffer: memoryview, offset: int) -> int:
            piece = data[offset:offset + len(buffer)]
            buffer[:len(piece)] = piece
            return len(piece)

        tail = index_second_half(read_into, len(data), self.chunk_size)
        assert tail is None or tail.start == start
        self.heads = None if tail is None else pickle.loads(pickle.dumps(tail.heads, protocol=5))
        return True

    def line_heads(self) -> Any:
        return self.heads


def indexed_in_halves(data: bytes, source: str, chunk_size: int = 97) -> BulkSession | None:
    elsewhere = SecondHalfElsewhere(chunk_size)
    index_elsewhere(elsewhere)
    try:
        return index_clean_session(data, source, check_all_lines=False)
    finally:
        bulk._heads_elsewhere.remove(elsewhere)


def assert_same_contexts(data: bytes, source: str) -> bool:
    """Compare both readers on every leaf; False when the bulk index declined the file.

    The unchecked bulk index (for stages without diagnostics) must give the same contexts too, on every file it
    accepts, which includes files the checked index declines (bad UTF-8, mistyped fields).
    """
    tree = line_by_line(data, source)
    leaves = [None, *tree.leaves()]
    unchecked = index_clean_session(data, source, check_all_lines=False)
    halves = indexed_in_halves(data, source)
    assert (halves is None) == (unchecked is None), source  # indexed apart, the file is taken or not alike
    if unchecked is not None:
        assert unchecked.diagnostics == []
        for leaf in leaves:
            assert without_diagnostics(written_document(unchecked, leaf)) == \
                without_diagnostics(written_document(tree, leaf)), (source, leaf)
            assert written_document(halves, leaf) == written_document(unchecked, leaf), (source, leaf)
    bulk = index_clean_session(data, source)
    if bulk is None:
        return False
    assert unchecked is not None  # whatever the checked index takes, the unchecked one takes too
    assert bulk.header == tree.header
    assert bulk.leaf_id == tree.leaf_id
    for leaf in leaves:
        assert written_document(bulk, leaf) == written_document(tree, leaf), (source, leaf)
    return True


@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_bulk_index_matches_line_by_line_reader(path: Path) -> None:
    data = path.read_bytes()
    try:
        line_by_line(data, str(path))
    except SessionReadError:
        assert index_clean_session(data, str(path)) is None
        assert index_clean_session(data, str(path), check_all_lines=False) is None
        return
    assert_same_contexts(data, str(path))


def test_bulk_index_serves_most_clean_sessions() -> None:
    """A guard for the fast path itself: clean files must not silently fall back to the slow reader."""
    accepted = [path for path in SESSION_FILES if index_clean_session(path.read_bytes(), str(path)) is not None]
    assert len(accepted) >= 50
    assert isinstance(context_source((ROOT / "fixtures/conformance/cases/c003_compaction.jsonl").read_bytes(), "x"),
                      BulkSession)


CLEAN = (ROOT / "fixtures/conformance/cases/c003_compaction.jsonl").read_bytes()


@pytest.mark.parametrize(("damage", "mutate"), [
    ("blank line", lambda lines: [*lines[:3], b"", *lines[3:]]),
    ("CRLF", lambda lines: [line + b"\r" for line in lines]),
    ("duplicate id", lambda lines: [*lines, lines[-1]]),
    ("two objects on a line", lambda lines: [*lines[:-2], lines[-2] + lines[-1]]),
    ("object and comma", lambda lines: [*lines[:-2], lines[-2] + b"," + lines[-1]]),
    ("value over two lines", lambda lines: [*lines[:2], lines[2].replace(b',"parentId"', b'\n,"parentId"'), *lines[3:]]),
    ("second header", lambda lines: [*lines, lines[0]]),
    ("version 2", lambda lines: [lines[0].replace(b'"version":3', b'"version":2'), *lines[1:]]),
    ("unknown entry type", lambda lines: [*lines[:-1], lines[-1].replace(b'"type":"message"', b'"type":"note"', 1)]),
    ("invalid UTF-8", lambda lines: [*lines[:-1], lines[-1].replace(b'"text":"', b'"text":"\xff', 1)]),
    ("number line", lambda lines: [*lines, b"42"]),
    ("leading space", lambda lines: [*lines[:2], b" " + lines[2], *lines[3:]]),
])
def test_bulk_index_declines_damage(damage: str, mutate: object) -> None:
    lines = CLEAN.rstrip(b"\n").split(b"\n")
    damaged = b"\n".join(mutate(lines)) + b"\n"  # type: ignore[operator]
    assert damaged != CLEAN
    assert index_clean_session(damaged, "damaged.jsonl") is None, damage


def _mutants(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    """Random small damages of a clean file: line-level edits and byte edits at structural characters."""
    lines = data.rstrip(b"\n").split(b"\n")
    out: list[bytes] = []
    for _ in range(count):
        edited = list(lines)
        kind = rng.randrange(7)
        i = rng.randrange(1, len(edited)) if len(edited) > 1 else 0
        if kind == 0:
            edited.insert(i, edited[rng.randrange(len(edited))])
        elif kind == 1:
            del edited[i]
        elif kind == 2:
            j = rng.randrange(1, len(edited)) if len(edited) > 1 else 0
            edited[i], edited[j] = edited[j], edited[i]
        elif kind == 3:
            edited[i] = edited[i].replace(b'"parentId":"', b'"parentId":"x', 1)
        elif kind == 4:
            ids = [line.split(b'"id":"', 1)[1][:8] for line in edited[1:] if b'"id":"' in line]
            if ids:
                edited[i] = edited[i].replace(b'"parentId":"', b'"parentId":"' + rng.choice(ids) + b'","_":"', 1)
        elif kind == 5:
            line = edited[i]
            cut = rng.randrange(len(line) + 1)
            edited[i] = line[:cut] + rng.choice([b"", b"\n", b"}", b'"', b"\\", b"\x00", b" "]) + line[cut + 1:]
        else:
            edited[i] = edited[i].replace(b'"timestamp":"', b'"timestamp":"x', 1)
        tail = b"\n" if rng.random() < 0.9 else b""
        out.append(b"\n".join(edited) + tail)
    return out


def test_bulk_index_agrees_on_random_damage() -> None:
    """Whatever the damage, the bulk index either declines or gives the line-by-line reader's documents."""
    rng = random.Random(2026)
    accepted = 0
    for path in SESSION_FILES:
        data = path.read_bytes()
        if index_clean_session(data, str(path)) is None or len(data) > 200_000:
            continue
        for mutant in _mutants(data, rng, 20):
            try:
                line_by_line(mutant, "mutant.jsonl")
            except SessionReadError:
                assert index_clean_session(mutant, "mutant.jsonl") is None
                assert index_clean_session(mutant, "mutant.jsonl", check_all_lines=False) is None
                continue
            accepted += assert_same_contexts(mutant, "mutant.jsonl")
    assert accepted > 100  # the comparison really ran on files the bulk index took


@pytest.mark.parametrize("name", ["conformance/cases/c003_compaction.jsonl", "bad/invalid_utf8.jsonl",
                                  "bad/wrong_field_types.jsonl", "realworld/castai__kimchi-dev__session.jsonl"])
def test_cli_reads_a_piped_session_like_a_named_file(cli: Any, name: str) -> None:
    """Both CLI inputs go through context_source; piping the file must change nothing but the source name."""
    path = ROOT / "fixtures" / name
    for stage in (["convert"], ["payload", "--api", "anthropic-messages", "--model", "anthropic/claude-sonnet-4-5"]):
        named = cli(*stage, str(path.relative_to(ROOT)))
        piped = cli(*stage, stdin=path.read_bytes())
        assert named.code == piped.code, (named.stderr, piped.stderr)
        assert loads_line(piped.stdout.encode())["source"] == "<stdin>"
        assert {**loads_line(named.stdout.encode()), "source": None} == {**loads_line(piped.stdout.encode()), "source": None}
        assert "Traceback" not in named.stderr + piped.stderr


def test_payload_reads_unchecked_yet_equals_the_checked_reading(cli: Any) -> None:
    """payload reads without diagnostics checks; a file those checks would send to the other reader (bad UTF-8
    in a message) must give the payload the fully checked reading gives."""
    path = ROOT / "fixtures/bad/invalid_utf8.jsonl"
    data = path.read_bytes()
    assert index_clean_session(data, "x") is None
    assert index_clean_session(data, "x", check_all_lines=False) is not None
    args = ["payload", "--api", "anthropic-messages", "--model", "anthropic/claude-sonnet-4-5"]
    from_file = cli(*args, str(path.relative_to(ROOT)))
    from_context = cli(*args, stdin=cli("context", str(path.relative_to(ROOT))).stdout.encode())
    assert from_file.code == from_context.code == 0
    assert loads_line(from_file.stdout.encode())["payload"] == loads_line(from_context.stdout.encode())["payload"]


def test_second_halves_indexed_apart_are_used() -> None:
    """The comparison above really joins two halves: on clean files of a few lines, the second half comes from
    the other index, and the joined result equals the whole index."""
    joined = 0
    for path in SESSION_FILES:
        data = path.read_bytes()
        whole = index_clean_session(data, str(path), check_all_lines=False)
        if whole is None or data.count(b"\n") < 4:
            continue
        elsewhere = SecondHalfElsewhere(64)
        index_elsewhere(elsewhere)
        try:
            halves = index_clean_session(data, str(path), check_all_lines=False)
        finally:
            bulk._heads_elsewhere.remove(elsewhere)
        assert halves is not None
        assert halves._line_starts == whole._line_starts and halves._parent_index == whole._parent_index
        assert halves._roles == whole._roles and halves.by_id == whole.by_id
        joined += elsewhere.heads is not None  # None: no line starts in the window read past the middle
    assert joined >= 50


def test_entry_message_count_is_the_length_of_entry_to_messages() -> None:
    """BulkSession.origins and preflight's part offsets count the messages of a parsed entry without making them
    (entry_message_count); every kind of entry, and the junk ones, counts as entry_to_messages makes them."""
    from pi_tools.session.context import entry_message_count, entry_to_messages

    entries: list[Any] = [None, 3, "x", [], {}, {"type": None}, {"type": "label"}, {"type": "model_change"},
                          {"type": "message"}, {"type": "message", "message": None},
                          {"type": "message", "message": {"role": "user", "content": None}},
                          {"type": "custom_message", "customType": "note", "content": "hi", "timestamp": "bad"},
                          {"type": "custom_message"}, {"type": "branch_summary", "summary": "s", "fromId": "a"},
                          {"type": "branch_summary", "summary": ""}, {"type": "branch_summary"},
                          {"type": "branch_summary", "summary": 0}, {"type": "branch_summary", "summary": [1]},
                          {"type": "compaction", "summary": "s", "tokensBefore": 3}, {"type": "compaction"},
                          {"type": "custom", "data": 1}, {"type": "session_info", "name": "n"}]
    for path in SESSION_FILES:
        for line in path.read_bytes().splitlines()[:40]:
            try:
                entries.append(loads_line(line))
            except Exception:  # noqa: BLE001 - a damaged line is no entry here
                continue
    assert len(entries) > 200
    for entry in entries:
        assert entry_message_count(entry) == len(entry_to_messages(entry)), entry


def test_helper_reads_verified_text_back_exactly(tmp_path: Path) -> None:
    """The helper's second reading of the file (engine.helper._VerifiedText), chunk by chunk and across chunk
    boundaries, gives exactly the file's bytes, and refuses a chunk whose bytes changed since it was indexed."""
    import os

    from pi_tools.engine.helper import _VerifiedText, chunk_crcs

    rng = random.Random(5)
    data = bytes(rng.randrange(256) for _ in range(50_000))
    path = tmp_path / "text.bin"
    path.write_bytes(data)
    start, chunk = 7_001, 4_096
    fd = os.open(path, os.O_RDONLY)
    try:
        text = _VerifiedText(fd, chunk_crcs(data, start, chunk))
        spans = [(start, len(data)), (start, start + 1), (len(data) - 1, len(data))]
        spans += [(boundary - 3, boundary + 3) for boundary in range(start + chunk, len(data), chunk)]
        spans += sorted(((a, min(len(data), a + rng.choice([1, 500, 4_096, 9_000]))) for a in
                         (rng.randrange(start, len(data)) for _ in range(400))), reverse=True)
        for begin, end in spans:
            assert text(begin, end) == data[begin:end], (begin, end)
        with pytest.raises(OSError, match="outside what was indexed"):
            text(start - 1, start + 10)
        changed = bytearray(data)
        changed[start + 5] ^= 1
        path.write_bytes(changed)
        with pytest.raises(OSError, match="changed"):
            _VerifiedText(fd, chunk_crcs(data, start, chunk))(start, start + 10)
    finally:
        os.close(fd)

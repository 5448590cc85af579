"""pi-tools search: planted needles are all found, each labelled right (line, entry, role, branch), and nothing
else; the JSON escapes of session lines, the filters, the index and bad input.

The expectations are computed here, independently of pi_tools: each file is parsed with the standard library,
the active path is walked from the last entry by parentId, and needles are planted into chosen entries.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from pi_tools.corpus import search as search_module
from pi_tools.corpus.match import ASCII_FOLDS, CONTEXT_CHARS, MATCH_CHARS, Matcher, PatternError, hit_text
from pi_tools.corpus.search import SearchSpec, search_paths

from support.oracle_path import GEN_CORPUS

ROOT = Path(__file__).resolve().parents[2]
BRANCHING = ROOT / "fixtures" / "conformance" / "cases" / "c002_branching.jsonl"
REALWORLD = sorted((ROOT / "fixtures" / "realworld").glob("*.jsonl"))
CLI = [sys.executable, "-m", "pi_tools"]
KEYS = ["kind", "source", "pi", "line", "entryId", "role", "branch", "text"]


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(name)

    return json.loads(text, parse_constant=refuse)


def read_lines(path: Path) -> list[Any]:
    """Each line's value (None where JSON.parse would refuse it)."""
    out: list[Any] = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            out.append(_strict(raw.decode("utf-8")))
        except (ValueError, UnicodeDecodeError):
            out.append(None)
    return out


def active_lines(values: list[Any]) -> set[int]:
    """1-based lines on the path from the last entry back to the root (the leaf Pi resumes)."""
    by_id: dict[str, int] = {}
    last = None
    for number, value in enumerate(values, start=1):
        if isinstance(value, dict) and value.get("type") != "session" and isinstance(value.get("id"), str):
            by_id[value["id"]] = number
            last = number
    active: set[int] = set()
    current = last
    while current is not None and current not in active:
        active.add(current)
        parent = values[current - 1].get("parentId")
        current = by_id.get(parent) if isinstance(parent, str) and parent else None
    return active


def write_lines(path: Path, values: list[Any], raw: list[bytes]) -> None:
    path.write_bytes(b"\n".join(
        raw[i] if values[i] is None or values[i] == "keep" else json.dumps(values[i], ensure_ascii=False,
                                                                          separators=(",", ":")).encode()
        for i in range(len(values))))


# --- planting -----------------------------------------------------------------------------------------------

def _plant(value: dict[str, Any], needle: str) -> tuple[str, str | None] | None:
    """Put `needle` into one searchable place of the entry; (kind, tool name or None), or None if it has none."""
    entry_type = value.get("type")
    if entry_type in ("compaction", "branch_summary") and isinstance(value.get("summary"), str):
        value["summary"] += f" {needle}"
        return ("summary", None)
    if entry_type == "custom_message" and isinstance(value.get("content"), str):
        value["content"] += f" {needle}"
        return ("custom", None)
    message = value.get("message")
    if entry_type != "message" or not isinstance(message, dict):
        return None
    role = message.get("role")
    content = message.get("content")
    if role == "bashExecution" and isinstance(message.get("output"), str):
        message["output"] += f"\n{needle}"
        return ("bash", None)
    if role in ("user", "custom", "hookMessage") and isinstance(content, str):
        message["content"] = f"{needle} {content}"
        return ("text", None)
    if not isinstance(content, list):
        return None
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "toolCall" and isinstance(block.get("arguments"), dict):
            block["arguments"]["planted"] = f"echo {needle}"
            return ("toolCall", block.get("name"))
        if block.get("type") == "thinking" and isinstance(block.get("thinking"), str) and role == "assistant":
            block["thinking"] += f" {needle}"
            return ("thinking", None)
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            block["text"] += f" {needle}"
            return ("text", message.get("toolName") if role == "toolResult" else None)
    return None


ROLE_OF = {"compaction": "compactionSummary", "branch_summary": "branchSummary", "custom_message": "custom"}


def _role(value: dict[str, Any]) -> str:
    if value.get("type") == "message":
        role = value["message"]["role"]
        return "custom" if role == "hookMessage" else role
    return ROLE_OF[value["type"]]


def _abandoned_branch(values: list[Any], raw: list[bytes], rng: random.Random) -> None:
    """Insert, before the file's last line, a compaction and a bash execution under an early entry: a branch
    nobody resumes."""
    ids = [(i, v["id"]) for i, v in enumerate(values) if isinstance(v, dict) and isinstance(v.get("id"), str)
           and v.get("type") != "session"]
    if len(ids) < 3:
        return
    _, parent = ids[rng.randrange(0, len(ids) // 2)]
    tag = rng.randrange(1 << 30)
    compaction = {"type": "compaction", "id": f"cmp{tag:08x}", "parentId": parent,
                  "timestamp": "2026-01-01T00:00:00.000Z", "summary": "Summary of an abandoned attempt.",
                  "firstKeptEntryId": parent, "tokensBefore": 1000}
    bash = {"type": "message", "id": f"bsh{tag:08x}", "parentId": compaction["id"],
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "bashExecution", "command": "ls", "output": "a\nb", "exitCode": 0,
                        "cancelled": False, "truncated": False, "timestamp": 1}}
    at = len(values) - 1
    while at > 0 and values[at] is None and not raw[at].strip():
        at -= 1  # before the final (empty) piece after the last newline
    values[at:at] = [compaction, bash]
    raw[at:at] = [b"", b""]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A generated corpus plus the branching fixture, with needles planted; the expected hits (without text)."""
    folder = tmp_path_factory.mktemp("corpus")
    subprocess.run([sys.executable, str(GEN_CORPUS), "--seed", "11", "--count", "20", "--out", str(folder)],
                   check=True, capture_output=True)
    shutil.copy(BRANCHING, folder / "zz_branching.jsonl")
    rng = random.Random(5)
    expected: list[dict[str, Any]] = []
    counter = 0
    for path in sorted(folder.glob("*.jsonl")):
        raw = path.read_bytes().split(b"\n")
        values = [None if v is None else v for v in read_lines(path)]
        header = values[0] if isinstance(values[0], dict) else {}
        if header.get("version", 1) < 2:
            continue  # v1: ids are made at load time; left in the corpus, with no needle
        if rng.random() < 0.6:
            _abandoned_branch(values, raw, rng)
        active = active_lines(values)
        planted: list[tuple[int, dict[str, Any], str, str | None]] = []
        positions = list(range(1, len(values)))
        rng.shuffle(positions)
        taken: set[tuple[str, str, bool]] = set()
        for index in positions:
            value = values[index]
            if not isinstance(value, dict) or not isinstance(value.get("id"), str):
                continue
            counter += 1
            needle = f"qzx-needle-{counter}-qzx"
            probe = json.loads(json.dumps(value))
            planted_kind = _plant(probe, needle)
            if planted_kind is None:
                continue
            slot = (_role(probe), planted_kind[0], index + 1 in active)
            if slot in taken and rng.random() < 0.7:
                continue
            taken.add(slot)
            values[index] = probe
            planted.append((index + 1, probe, needle, planted_kind[1]))
        write_lines(path, values, raw)
        for line, value, needle, tool in sorted(planted, key=lambda item: item[0]):
            expected.append({"source": str(path), "line": line, "entryId": value["id"], "role": _role(value),
                             "branch": "active" if line in active else "abandoned", "needle": needle,
                             "tool": tool, "kind": _plant(json.loads(json.dumps(value)), "x")})
    return folder, expected


def _hits(paths: list[str], pattern: str, **options: Any) -> list[dict[str, Any]]:
    spec_options = {key: options.pop(key) for key in ("roles", "tool", "branch") if key in options}
    spec = SearchSpec(Matcher(pattern, **options), **spec_options)
    out = []
    for result in search_paths(paths, spec):
        assert result.error is None, result.error
        out.extend(result.hits)
    return out


def _strip(hits: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(h["source"], h["line"], h["entryId"], h["role"], h["branch"]) for h in hits]


def _want(expected: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(h["source"], h["line"], h["entryId"], h["role"], h["branch"]) for h in expected]


def test_every_needle_found_and_labelled_nothing_else(corpus: tuple[Path, list[dict[str, Any]]]) -> None:
    folder, expected = corpus
    roles = {h["role"] for h in expected}
    assert {"user", "assistant", "toolResult", "bashExecution", "compactionSummary", "branchSummary"} <= roles
    assert {h["branch"] for h in expected if h["role"] == "compactionSummary"} == {"active", "abandoned"}
    assert {h["branch"] for h in expected if h["role"] == "bashExecution"} == {"active", "abandoned"}
    assert {h["branch"] for h in expected if h["role"] == "assistant"} == {"active", "abandoned"}
    hits = _hits([str(folder)], "qzx-needle-")
    assert _strip(hits) == _want(expected)
    for hit, want in zip(hits, expected, strict=True):
        assert list(hit) == KEYS
        assert want["needle"] in hit["text"]
        assert "\n" not in hit["text"] and len(hit["text"]) <= MATCH_CHARS + 2 * CONTEXT_CHARS + 2


def test_each_needle_alone(corpus: tuple[Path, list[dict[str, Any]]]) -> None:
    folder, expected = corpus
    for want in expected[::7]:
        hits = _hits([str(folder)], want["needle"])
        assert _strip(hits) == _want([want])


def test_branch_active_role_and_tool(corpus: tuple[Path, list[dict[str, Any]]]) -> None:
    folder, expected = corpus
    assert _strip(_hits([str(folder)], "qzx-needle-", branch="active")) == \
        _want([h for h in expected if h["branch"] == "active"])
    for role in ("assistant", "toolResult", "bashExecution", "compactionSummary"):
        assert _strip(_hits([str(folder)], "qzx-needle-", roles=frozenset({role}))) == \
            _want([h for h in expected if h["role"] == role])
    assert _strip(_hits([str(folder)], "qzx-needle-", roles=frozenset({"user", "branchSummary"}))) == \
        _want([h for h in expected if h["role"] in ("user", "branchSummary")])
    tools = sorted({h["tool"] for h in expected if h["tool"]})
    assert len(tools) >= 2
    for tool in tools:
        want = [h for h in expected if h["tool"] == tool]
        assert {h["role"] for h in want} == {"assistant", "toolResult"} or want
        assert _strip(_hits([str(folder)], "qzx-needle-", tool=tool)) == _want(want)


def test_regex_and_ignore_case(corpus: tuple[Path, list[dict[str, Any]]]) -> None:
    folder, expected = corpus
    assert _strip(_hits([str(folder)], r"qzx-needle-\d+-qzx", regex=True)) == _want(expected)
    assert _strip(_hits([str(folder)], "QZX-NEEDLE-", ignore_case=True)) == _want(expected)
    assert _hits([str(folder)], "QZX-NEEDLE-") == []
    odd = [h for h in expected if h["needle"].endswith("1-qzx")]
    assert _strip(_hits([str(folder)], r"qzx-needle-\d*1-qzx", regex=True)) == _want(odd)


def test_prefilter_never_changes_hits(corpus: tuple[Path, list[dict[str, Any]]],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The byte prefilter and the fast clean-file reader give what parsing every line of every file gives."""
    folder, _ = corpus
    patterns = ["the", "retry", "TODO", "é", "/", "src/", "qzx-needle-1", "Tests", "ſ"]
    fast = {(p, i): _hits([str(folder)], p, ignore_case=i) for p in patterns for i in (False, True)}
    assert sum(map(len, fast.values())) > 100
    monkeypatch.setattr(Matcher, "__post_init__", _no_prefilter(Matcher.__post_init__))
    monkeypatch.setattr("pi_tools.corpus.heads.clean_heads", lambda data: None)
    for (pattern, ignore_case), hits in fast.items():
        assert Matcher(pattern).prefilter is None
        assert hits == _hits([str(folder)], pattern, ignore_case=ignore_case), pattern


def _no_prefilter(original: Any) -> Any:
    def post_init(self: Matcher) -> None:
        original(self)
        object.__setattr__(self, "prefilter", None)

    return post_init


# --- JSON escapes ---------------------------------------------------------------------------------------------

ESCAPED = "\n".join([
    '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}',
    '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user",'
    '"content":"say \\"hi\\" to caf\\u00e9\\nthen \\ud83d\\ude00 and a\\/b","timestamp":1}}',
    '{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":'
    '"assistant","content":[{"type":"text","text":"\\u212aelvin scale, path C:\\\\tmp\\tx"}],"api":"x",'
    '"provider":"x","model":"m","stopReason":"stop","timestamp":2}}',
    '{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user",'
    '"content":"CAF\\u00c9 on an abandoned branch, \\u0071zx spelled with an escape","timestamp":3}}',
    '{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":'
    '"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":'
    '"printf \\"%s\\\\n\\" done"}}],"api":"x","provider":"x","model":"m","stopReason":"toolUse","timestamp":4}}',
    "",
])


@pytest.mark.parametrize(("pattern", "options", "lines"), [
    ('say "hi"', {}, [2]),
    ("café", {}, [2]),
    ("café", {"ignore_case": True}, [2, 4]),
    ("CAFÉ", {}, [4]),
    ("\U0001f600", {}, [2]),
    ("a/b", {}, [2]),
    ("hi\" to café\nthen", {}, [2]),
    ("kelvin", {"ignore_case": True}, [3]),
    ("kelvin", {}, []),
    ("C:\\tmp\tx", {}, [3]),
    ("qzx spelled", {}, [4]),
    ('printf "%s\\n" done', {}, [5]),
    (r"caf.\s+on", {"regex": True, "ignore_case": True}, [4]),
])
def test_json_escapes(tmp_path: Path, pattern: str, options: dict[str, Any], lines: list[int]) -> None:
    path = tmp_path / "escaped.jsonl"
    path.write_text(ESCAPED, encoding="utf-8")
    hits = _hits([str(path)], pattern, **options)
    assert [h["line"] for h in hits] == lines
    branches = {2: "active", 3: "active", 4: "abandoned", 5: "active"}
    assert [h["branch"] for h in hits] == [branches[line] for line in lines]


def test_hit_text_cut() -> None:
    text = "a" * 100 + "NEEDLE" + "b" * 100
    assert hit_text(text, 100, 106) == "…" + "a" * CONTEXT_CHARS + "NEEDLE" + "b" * CONTEXT_CHARS + "…"
    assert hit_text("x\ny\tNEEDLE\r\nz", 4, 10) == "x y NEEDLE  z"
    long = "c" * 500
    assert hit_text(long, 0, 500) == "c" * MATCH_CHARS + "…"


def test_ascii_folds_table() -> None:
    """Every non-ASCII character Python's re matches with an ASCII letter under IGNORECASE is in the table."""
    everything = "".join(map(chr, range(0x80, 0x110000)))
    found: dict[str, set[str]] = {}
    for char in re.findall("(?i)[a-z]", everything):
        for letter in "abcdefghijklmnopqrstuvwxyz":
            if re.fullmatch(f"(?i){letter}", char):
                found.setdefault(letter, set()).add(char)
    assert found == {letter: set(folds) for letter, folds in ASCII_FOLDS.items()}


# --- damaged files, the two readers, bad input ----------------------------------------------------------------

def test_realworld_sessions_searchable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Damaged real sessions are searched (no error), and the fast reader agrees with the line-by-line one."""
    paths = [str(p) for p in REALWORLD]
    results = {r.source: r for r in search_paths(paths, SearchSpec(Matcher("the", ignore_case=True)))}
    assert all(r.error is None for r in results.values()), [r.error for r in results.values()]
    assert [p for p in paths if not results[p].hits] == [p for p in paths if "header-only" in _notes(p)]
    for path in REALWORLD:
        values = read_lines(path)
        legacy = "version" not in values[0]  # v1: ids made at load time, every entry the child of the one before
        active = active_lines(values)
        for hit in results[str(path)].hits:
            value = values[hit["line"] - 1]
            assert isinstance(value, dict), (path, hit)
            if legacy:
                assert hit["branch"] == "active" and re.fullmatch("[0-9a-f]{8}", hit["entryId"])
            else:
                assert hit["branch"] == ("active" if hit["line"] in active else "abandoned"), (path, hit)
                assert value.get("id", None) == hit["entryId"]
    monkeypatch.setattr("pi_tools.corpus.heads.clean_heads", lambda data: None)
    slow = {r.source: r for r in search_paths(paths, SearchSpec(Matcher("the", ignore_case=True)))}
    assert {k: v.hits for k, v in slow.items()} == {k: v.hits for k, v in results.items()}


def _notes(path: str) -> str:
    name = Path(path).name
    provenance = (ROOT / "fixtures" / "realworld" / "PROVENANCE.md").read_text(encoding="utf-8")
    return next(line for line in provenance.splitlines() if line.startswith(f"| {name} "))


def test_fixtures_fast_and_line_by_line_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = ROOT / "fixtures" / "conformance" / "cases"
    spec = SearchSpec(Matcher("e"))
    fast = [(r.source, r.hits, r.error) for r in search_paths([str(folder)], spec)]
    monkeypatch.setattr("pi_tools.corpus.heads.clean_heads", lambda data: None)
    slow = [(r.source, r.hits, r.error) for r in search_paths([str(folder)], spec)]
    assert fast == slow
    assert sum(len(hits) for _, hits, _ in fast) > 500


def test_pattern_errors() -> None:
    with pytest.raises(PatternError, match=r"^PATTERN: not a valid regular expression at position 0: "
                                           r"missing \), unterminated subpattern$"):
        Matcher("(", regex=True)
    with pytest.raises(PatternError, match="matches empty text"):
        Matcher("x*", regex=True)
    with pytest.raises(PatternError, match="empty pattern"):
        Matcher("")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "search", *args], capture_output=True, text=True, cwd=ROOT)


def test_cli_exit_codes_and_errors(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(ESCAPED, encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"message","id":"x"}\n', encoding="utf-8")
    done = _cli("café", str(good), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert [orjson.loads(line) for line in done.stdout.splitlines()] == [{
        "kind": "hit", "source": str(good), "pi": "0.85", "line": 2, "entryId": "u1", "role": "user", "branch": "active",
        "text": 'say "hi" to café then \U0001f600 and a/b'}]
    assert _cli("nowhere-to-be-found", str(good)).returncode == 1
    done = _cli("(", "--regex", str(good))
    assert done.returncode == 2
    assert done.stderr == "pi-tools: PATTERN: not a valid regular expression at position 0: missing ), " \
                          "unterminated subpattern\n"
    done = _cli("café", str(bad), str(tmp_path / "missing.jsonl"), str(good), "--format", "json")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"pi-tools: {bad}: not a pi session: line 1, the first value Pi keeps, is not a session header with a "
        "string id",
        f"pi-tools: {tmp_path / 'missing.jsonl'}: no such file",
    ]
    documents = [orjson.loads(line) for line in done.stdout.splitlines()]
    assert [d["kind"] for d in documents] == ["error", "error", "hit"]
    assert documents[2]["source"] == str(good)
    table = _cli("café", str(good), "--format", "table", "-i")
    assert table.returncode == 0
    assert table.stdout.splitlines() == [
        str(good),
        '  2  u1  user  active     say "hi" to café then \U0001f600 and a/b',
        "  4  u2  user  abandoned  CAFÉ on an abandoned branch, qzx spelled wit…",
        "2 hit(s) (1 on active paths, 1 on abandoned branches) in 1 of 1 file(s)",
    ]
    assert _cli("x", str(good), "--branch", "some").stderr == \
        "pi-tools: --branch: expected one of all, active, got 'some'\n"


def test_cycle_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "cycle.jsonl"
    path.write_text("\n".join([
        '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}',
        '{"type":"message","id":"a","parentId":"b","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"loop","timestamp":1}}',
        '{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"loop","timestamp":1}}',
        ""]))
    (result,) = search_paths([str(path)], SearchSpec(Matcher("loop")))
    assert result.hits == []
    assert result.error is not None and result.error.startswith(f"{path}: parentId cycle through entry ")
    assert "(line " in result.error


def test_search_runs_on_the_engine(corpus: tuple[Path, list[dict[str, Any]]]) -> None:
    """Two worker processes give the same hits, in input order."""
    from pi_tools.engine import Engine

    folder, expected = corpus
    spec = SearchSpec(Matcher("qzx-needle-"))
    pooled = [h for r in search_paths([str(folder)], spec, Engine(jobs=2)) for h in r.hits]
    assert _strip(pooled) == _want(expected)
    assert search_module.search_file.__module__ == "pi_tools.corpus.search"


# --- the index ----------------------------------------------------------------------------------------------

def _write_index(folder: Path, out: Path) -> None:
    """Tables with the columns `pi-tools index` writes (messages, tool_calls), built from pi_tools' reader,
    two Parquet files per table."""
    import polars as pl

    from pi_tools.corpus.text import message_text, thinking_text
    from pi_tools.session.context import entry_to_messages
    from pi_tools.session.load import load_session

    messages: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.jsonl")):
        tree = load_session(str(path))
        on_path = {id(entry) for entry in tree.path(tree.leaf_id)}
        for entry, line in zip(tree.entries, tree.line_numbers, strict=True):
            if not isinstance(entry, dict):
                continue
            if entry.get("type") == "message":
                message = entry.get("message")
            elif entry.get("type") in ("custom_message", "branch_summary", "compaction"):
                message = (entry_to_messages(entry) or [None])[0]
            else:
                continue
            if not isinstance(message, dict):
                continue
            role = message.get("role") if isinstance(message.get("role"), str) else None
            entry_id = entry.get("id") if isinstance(entry.get("id"), str) else None
            names: list[str] = []
            if role == "assistant" and isinstance(message.get("content"), list):
                for block in message["content"]:
                    if isinstance(block, dict) and block.get("type") == "toolCall":
                        name = block.get("name") if isinstance(block.get("name"), str) else None
                        names += [name] if name else []
                        calls.append({"file": str(path), "line": line, "entryId": entry_id, "name": name,
                                      "arguments": orjson.dumps(block.get("arguments")).decode(),
                                      "onActivePath": id(entry) in on_path})
            if role == "toolResult" and isinstance(message.get("toolName"), str):
                names.append(message["toolName"])
            messages.append({"file": str(path), "line": line, "entryId": entry_id, "role": role,
                             "text": message_text(message),
                             "thinking": thinking_text(message) if role == "assistant" else None,
                             "toolNames": names, "onActivePath": id(entry) in on_path})
    schemas = {
        "messages": {"file": pl.String, "line": pl.Int64, "entryId": pl.String, "role": pl.String,
                     "text": pl.String, "thinking": pl.String, "toolNames": pl.List(pl.String),
                     "onActivePath": pl.Boolean},
        "tool_calls": {"file": pl.String, "line": pl.Int64, "entryId": pl.String, "name": pl.String,
                       "arguments": pl.String, "onActivePath": pl.Boolean},
    }
    for name, rows in (("messages", messages), ("tool_calls", calls)):
        (out / name).mkdir(parents=True)
        half = len(rows) // 2
        for part, chunk in enumerate((rows[:half], rows[half:])):
            pl.DataFrame(chunk, schema=schemas[name]).write_parquet(out / name / f"part-{part}.parquet")


def test_index_hits_equal_file_hits(corpus: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    from pi_tools.corpus.search_index import search_index

    folder, expected = corpus
    out = tmp_path / "index"
    _write_index(folder, out)
    cases: list[dict[str, Any]] = [
        {"pattern": "qzx-needle-"}, {"pattern": "QZX-needle-", "ignore_case": True},
        {"pattern": r"needle-\d+", "regex": True}, {"pattern": "qzx-needle-", "branch": "active"},
        {"pattern": "qzx-needle-", "roles": frozenset({"assistant"})}, {"pattern": "the"},
        {"pattern": "retry", "ignore_case": True}, {"pattern": "src/"}, {"pattern": '"'},
        *({"pattern": "qzx-needle-", "tool": tool} for tool in sorted({h["tool"] for h in expected if h["tool"]})),
        {"pattern": "e", "tool": "bash"}, {"pattern": "TODO", "roles": frozenset({"toolResult", "user"})},
    ]
    for case in cases:
        options = dict(case)
        spec_options = {key: options.pop(key) for key in ("roles", "tool", "branch") if key in options}
        spec = SearchSpec(Matcher(options.pop("pattern"), **options), **spec_options)
        from_files = [(r.source, r.hits) for r in search_paths([str(folder)], spec)]
        from_index = [(r.source, r.hits) for r in search_index(str(out), [], spec)]
        assert from_index == from_files, case
        assert sum(len(hits) for _, hits in from_files) > 0, case
    one = str(sorted(folder.glob("*.jsonl"))[3])
    spec = SearchSpec(Matcher("the"))
    assert [(r.source, r.hits) for r in search_index(str(out), [one], spec)] == \
        [(r.source, r.hits) for r in search_paths([one], spec)]


def test_index_errors(tmp_path: Path) -> None:
    from pi_tools.corpus.search_index import IndexError_, search_index

    spec = SearchSpec(Matcher("x"))
    with pytest.raises(IndexError_, match=r"--index .*nowhere: no such folder"):
        list(search_index(str(tmp_path / "nowhere"), [], spec))
    with pytest.raises(IndexError_, match=r"no messages table \(messages/\*\.parquet\); write one with "
                                          r"pi-tools index PATH\.\.\. -o "):
        list(search_index(str(tmp_path), [], spec))
    done = _cli("x", "--index", str(tmp_path))
    assert done.returncode == 2 and done.stderr.startswith(f"pi-tools: --index {tmp_path}: no messages table")


def test_ignore_case_folds_written_raw(tmp_path: Path) -> None:
    """Non-ASCII letters that Python's re folds to ASCII ones, written as UTF-8 (not escaped), pass the prefilter."""
    path = tmp_path / "folds.jsonl"
    lines = [
        '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}',
        '{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user",'
        '"content":"please \u017fk\u0130p it, 5 \u212a","timestamp":1}}',
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert Matcher("SKIP", ignore_case=True).prefilter is not None
    assert [h["text"] for h in _hits([str(path)], "SKIP", ignore_case=True)] == ["please \u017fk\u0130p it, 5 \u212a"]
    assert [h["line"] for h in _hits([str(path)], "5 k", ignore_case=True)] == [2]
    assert _hits([str(path)], "skip") == []


def test_spec_travels_and_cli_engine_options(tmp_path: Path) -> None:
    """A search travels to another process whole (Dask pickles it too); --jobs does not change the output."""
    import pickle

    spec = SearchSpec(Matcher("caf\u00e9", ignore_case=True), frozenset({"user"}), None, "active")
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec and again.matcher.prefilter is None and again.matcher.find("CAF\u00c9") == (0, 4)
    for index in range(3):
        (tmp_path / f"s{index}.jsonl").write_text(ESCAPED, encoding="utf-8")
    one = _cli("caf\u00e9", str(tmp_path), "-i", "--jobs", "1")
    two = _cli("caf\u00e9", str(tmp_path), "-i", "--jobs", "2")
    assert one.returncode == two.returncode == 0
    assert one.stdout == two.stdout and len(one.stdout.splitlines()) == 6
    assert _cli("x", str(tmp_path), "--scheduler", "tcp://127.0.0.1:1").stderr == \
        "pi-tools: --scheduler: only with --engine dask\n"


def test_real_index_hits_equal_file_hits(corpus: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    """The tables `pi-tools index` itself writes give the same hits as the files (the planted corpus, the real
    damaged sessions)."""
    import importlib.util

    if importlib.util.find_spec("pi_tools.corpus.index") is None:
        pytest.skip("pi-tools index is not on this branch")
    from pi_tools.corpus.search_index import search_index

    folder, expected = corpus
    inputs = tmp_path / "inputs"
    shutil.copytree(folder, inputs)
    for path in REALWORLD:
        shutil.copy(path, inputs / path.name)
    out = tmp_path / "index"
    done = subprocess.run([*CLI, "index", str(inputs), "-o", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    tools = sorted({h["tool"] for h in expected if h["tool"]})
    cases = [SearchSpec(Matcher("qzx-needle-")), SearchSpec(Matcher("the", ignore_case=True)),
             SearchSpec(Matcher(r"needle-\d+|src/\w+", regex=True)), SearchSpec(Matcher("e"), branch="active"),
             SearchSpec(Matcher('"')), SearchSpec(Matcher("qzx-needle-"), tool=tools[0]),
             SearchSpec(Matcher("a"), frozenset({"compactionSummary", "branchSummary", "custom", "bashExecution"}))]
    for spec in cases:
        from_files = [(r.source, r.hits) for r in search_paths([str(inputs)], spec)]
        from_index = [(r.source, r.hits) for r in search_index(str(out), [], spec)]
        assert from_index == from_files, spec
    needles = [h for r in search_paths([str(inputs)], cases[0]) for h in r.hits]
    assert len(needles) == len(expected)

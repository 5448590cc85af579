"""Under every Pi version the context stages' reader (context_source) gives what the line-by-line reader gives with
that version's rules, on every session file in the repository, Pi 1.6's conformance cases and sessions Pi 1.6
writes (generated through its own SessionManager, several seeds), at every leaf, with and without the per-line
checks: the bulk index serves 1.6's files (system messages, `usage` and `context_edit` entries, compactions with a
`systemMessage`) by applying the version's projection to its plan, and 0.85 reads them as 0.85 does (unknown
entry types and roles, with 0.85's diagnostics)."""

from __future__ import annotations

import json
import pickle
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from test_bulk_index import _mutants

from pi_tools.js.json_line import loads_line
from pi_tools.pi import PiVersion, resolve
from pi_tools.pipe.documents import iter_document_bytes
from pi_tools.pipeline.stages import context_document
from pi_tools.preflight.provenance import trace_context
from pi_tools.session import bulk as bulk_module
from pi_tools.session.bulk import BulkSession, LineHeads, index_clean_session, index_elsewhere
from pi_tools.session.load import context_source, tree_from_raw
from pi_tools.session.reader import SessionReadError, parse_session_bytes, validate_header
from pi_tools.session.tree import SessionTree

from support.golden import ROOT
from support.oracle_path import CONFORMANCE16, GEN16, MISSING_GEN16

PI16 = resolve("1.6")
PI085 = resolve("0.85")
VERSIONS = [PI085, PI16]
SESSION_FILES = sorted(
    path for pattern in ("fixtures/conformance/**/*.jsonl", "fixtures/bad/*.jsonl", "tests/data/**/*.jsonl")
    for path in ROOT.glob(pattern) if "expected" not in path.parts
)
CONFORMANCE16_CASES = sorted((CONFORMANCE16 / "cases").glob("*.jsonl"))
GENERATED_SEEDS = (1, 2, 3, 7, 16, 23)
GENERATED_COUNT = 40


def written(source: SessionTree | BulkSession, leaf: str | None, version: PiVersion) -> object:
    try:
        return loads_line(b"".join(iter_document_bytes(context_document(source, leaf, version))))
    except Exception as exc:  # both readers must fail the same way too
        return f"{type(exc).__name__}: {exc}"


def line_by_line(data: bytes, source: str, version: PiVersion) -> SessionTree:
    return tree_from_raw(validate_header(parse_session_bytes(data, source, lazy=True), len(data)),
                         version.context.vocabulary)


class SecondHalfElsewhere:
    """The payload helper's second half (engine/helper.py), in process and through pickle."""

    def __init__(self) -> None:
        self.heads: LineHeads | None = None

    def expect(self, source: str, data: bytes, start: int) -> bool:
        tail = bulk_module.line_heads(data, start, len(data), False, ends_file=True)
        self.heads = None if tail is None else pickle.loads(pickle.dumps(tail, protocol=5))
        return True

    def line_heads(self) -> LineHeads | None:
        return self.heads


def assert_readers_agree(data: bytes, source: str, version: PiVersion) -> list[bool]:
    """Both readers on every leaf under `version`, checked and unchecked (and the unchecked index with its second
    half indexed apart); whether the stages' reader was the bulk index, checked and unchecked."""
    try:
        tree = line_by_line(data, source, version)
    except SessionReadError:
        return []
    leaves = [None, *tree.leaves()]
    rules = version.context
    taken = []
    for check_all_lines in (True, False):
        reader = context_source(data, source, check_all_lines, rules)
        taken.append(isinstance(reader, BulkSession))
        for leaf in leaves:
            got, want = written(reader, leaf, version), written(tree, leaf, version)
            if not check_all_lines:
                got, want = without_diagnostics(got), without_diagnostics(want)
            assert got == want, (source, version.name, check_all_lines, leaf)
        if isinstance(reader, BulkSession):  # what preflight traces: each message's entry, as the tree's
            traced, expected = trace(reader, rules), trace(tree, rules)
            assert traced == expected, (source, version.name, check_all_lines)
    elsewhere = SecondHalfElsewhere()
    index_elsewhere(elsewhere)
    try:
        halves = index_clean_session(data, source, False, rules=rules)
    finally:
        bulk_module._heads_elsewhere.remove(elsewhere)
    if halves is not None and rules.bulk_fits(halves):
        for leaf in leaves:
            assert without_diagnostics(written(halves, leaf, version)) == \
                without_diagnostics(written(tree, leaf, version)), (source, version.name, leaf)
    return taken


def without_diagnostics(document: object) -> object:
    return {**document, "diagnostics": None} if isinstance(document, dict) else document


def trace(reader: SessionTree | BulkSession, rules: object) -> object:
    from pi_tools.js.values import UNDEFINED

    try:
        traced = trace_context(reader, UNDEFINED, rules)  # type: ignore[arg-type]
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return [entry for entry, _ in traced.origins], len(traced.messages)


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.name)
@pytest.mark.parametrize("path", SESSION_FILES + CONFORMANCE16_CASES,
                         ids=lambda p: str(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p.name))
def test_the_stages_reader_gives_the_versions_context(path: Path, version: PiVersion) -> None:
    assert_readers_agree(path.read_bytes(), str(path), version)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Sessions Pi 1.6 writes: scripts/gen16 (this checkout's generator, the installed packages), several seeds."""
    installed = GEN16.parent
    if not GEN16.exists() or not (installed / "node_modules").is_dir():
        pytest.skip(MISSING_GEN16)
    work = tmp_path_factory.mktemp("gen16-bin")
    for name in ("gen16", "gen_corpus16.mjs", "package.json"):
        shutil.copy2(ROOT / "scripts" / "gen16" / name, work / name)
    (work / "node_modules").symlink_to(installed / "node_modules", target_is_directory=True)
    files: list[Path] = []
    for seed in GENERATED_SEEDS:
        out = tmp_path_factory.mktemp(f"gen16-seed{seed}")
        run = subprocess.run([str(work / "gen16"), "--seed", str(seed), "--count", str(GENERATED_COUNT),
                              "--out", str(out), "--prefix", f"s{seed}_"], capture_output=True, timeout=600)
        if run.returncode == 2 and b"gen16:" in run.stderr:
            pytest.skip(run.stderr.decode("utf-8", "replace").strip())
        assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
        files += sorted(out.glob("*.jsonl"))
    assert len(files) == GENERATED_COUNT * len(GENERATED_SEEDS)
    return files


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.name)
def test_generated_16_sessions_are_read_in_bulk_alike(generated: list[Path], version: PiVersion) -> None:
    """Every session Pi 1.6 writes is clean: the bulk index serves it, checked and unchecked, under both versions,
    and gives what the line-by-line reader gives at every leaf."""
    for path in generated:
        assert assert_readers_agree(path.read_bytes(), str(path), version) == [True, True], path.name


def _variants16(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    """What 1.6's projection turns on, changed at random (an edit without `replacement` or with a string, a system
    message without content or timestamp, a compaction keeping from its own id or from an older entry), with the
    structural damage test_bulk_index makes."""
    lines = data.rstrip(b"\n").split(b"\n")
    changes = [
        (b'"replacement":{', b'"_":{'), (b'"replacement":null', b'"replacement":{"content":"shorter"}'),
        (b'"role":"system","content":""', b'"role":"system"'), (b'"role":"system","content":""',
                                                                  b'"role":"system","content":null'),
        (b'"role":"system"', b'"role":"System"'), (b'"role":"system"', b'"role":"system","timestamp":"x"'),
        (b'"systemMessage":{', b'"systemMessage":0,"_":{'), (b'"targetId":"', b'"targetId":"x'),
    ]
    out: list[bytes] = []
    for _ in range(count):
        edited = list(lines)
        for _ in range(rng.randrange(1, 4)):
            old, new = rng.choice(changes)
            candidates = [i for i, line in enumerate(edited) if old in line]
            if candidates:
                i = rng.choice(candidates)
                edited[i] = edited[i].replace(old, new, 1)
        ids = [line.split(b'"id":"', 1)[1].split(b'"', 1)[0] for line in edited[1:] if b'"id":"' in line]
        compactions = [i for i, line in enumerate(edited) if b'"type":"compaction"' in line]
        if compactions and ids and rng.random() < 0.5:
            i = rng.choice(compactions)
            head, _, rest = edited[i].partition(b'"firstKeptEntryId":"')
            edited[i] = head + b'"firstKeptEntryId":"' + rng.choice(ids) + b'"' + rest.split(b'"', 1)[1]
        out.append(b"\n".join(edited) + b"\n")
    return out + _mutants(data, rng, count // 2)


def test_the_readers_agree_on_16_variants(generated: list[Path]) -> None:
    """Whatever 1.6's projection meets, under either version the stages' reader gives the line-by-line reader's
    documents (the bulk index, or the tree when the file is not clean)."""
    rng = random.Random(23)
    files = [*sorted((ROOT / "tests/data/pi16/cases").glob("*.jsonl")), *CONFORMANCE16_CASES, *generated[::12]]
    taken = 0
    for path in files:
        data = path.read_bytes()
        if index_clean_session(data, str(path)) is None or len(data) > 200_000:
            continue
        for variant in _variants16(data, rng, 12):
            for version in VERSIONS:
                taken += sum(assert_readers_agree(variant, "variant.jsonl", version))
    assert taken > 500


def test_16_files_take_the_bulk_index() -> None:
    """Files with system messages, usage and context_edit entries, compactions with a system message, keeping
    from their own id or keeping an older compaction: the bulk index plans them all under 1.6 (the tests above
    check every leaf's context of every file), and under 0.85 too (as unknown entries and roles)."""
    taken = dict.fromkeys(("system", "usage", "context_edit", "systemMessage"), 0)
    for path in [*SESSION_FILES, *CONFORMANCE16_CASES]:
        data = path.read_bytes()
        if index_clean_session(data, str(path)) is None:
            continue
        for version in VERSIONS:
            assert isinstance(context_source(data, str(path), True, version.context), BulkSession), path.name
        entries = [json.loads(line) for line in data.splitlines()[1:]]
        taken["system"] += any(entry.get("message", {}).get("role") == "system" for entry in entries)
        taken["usage"] += any(entry["type"] == "usage" for entry in entries)
        taken["context_edit"] += any(entry["type"] == "context_edit" for entry in entries)
        taken["systemMessage"] += any(isinstance(entry.get("systemMessage"), dict) for entry in entries)
    assert min(taken.values()) >= 3, taken
    assert isinstance(context_source((ROOT / "fixtures/conformance/cases/c001_tools.jsonl").read_bytes(), "c001",
                                     True, PI16.context), BulkSession)


def test_a_bulk_index_made_for_another_version_is_refused() -> None:
    """Its diagnostics are its own version's: a library caller handing it to another version's stage is told."""
    path = ROOT / "tests/data/pi16/cases/e06_comp_sys.jsonl"
    made_for_085 = index_clean_session(path.read_bytes(), str(path))
    assert made_for_085 is not None
    with pytest.raises(Exception, match="bulk index does not plan Pi 1.6"):
        context_document(made_for_085, None, PI16)


def test_the_spread_limit_is_named_for_the_pi_that_has_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_tools.session import context, load_session

    monkeypatch.setattr(context, "PI_SPREAD_LIMIT", 0)
    monkeypatch.setattr(bulk_module, "PI_SPREAD_LIMIT", 0)
    case = str(ROOT / "fixtures/conformance/cases/c003_compaction.jsonl")
    for rules, who in ((PI085.context, "Pi 0.85 overflows"), (PI16.context, "; Pi overflows")):
        plan = context.plan_session_context(load_session(case, True, rules), rules=rules)
        assert [d["code"] for d in plan.diagnostics] == ["pi-cannot-load"]
        assert who in plan.diagnostics[0]["message"]
        bulk = context_source(Path(case).read_bytes(), case, True, rules)
        assert isinstance(bulk, BulkSession)
        assert bulk.plan().diagnostics == plan.diagnostics

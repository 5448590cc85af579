"""Under Pi 1.6 the context stages' reader (context_source) gives what the line-by-line reader gives with 1.6's
rules, on every session file in the repository and every leaf: the bulk index is used only where its plan is
1.6's (Projection16.bulk_fits), never for a silently different context."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tools.js.json_line import loads_line
from pi_tools.pi import resolve
from pi_tools.pipe.documents import iter_document_bytes
from pi_tools.pipeline.stages import context_document
from pi_tools.session.bulk import BulkSession, index_clean_session
from pi_tools.session.load import context_source, tree_from_raw
from pi_tools.session.reader import SessionReadError, parse_session_bytes, validate_header

from support.golden import ROOT

PI16 = resolve("1.6")
SESSION_FILES = sorted(
    path for pattern in ("fixtures/conformance/**/*.jsonl", "fixtures/bad/*.jsonl", "tests/data/**/*.jsonl")
    for path in ROOT.glob(pattern) if "expected" not in path.parts
)


def written(source: object, leaf: str | None) -> object:
    try:
        return loads_line(b"".join(iter_document_bytes(context_document(source, leaf, PI16))))  # type: ignore[arg-type]
    except Exception as exc:  # both readers must fail the same way too
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_stages_reader_gives_16s_context(path: Path) -> None:
    data = path.read_bytes()
    try:
        tree = tree_from_raw(validate_header(parse_session_bytes(data, str(path), lazy=True), len(data)),
                             PI16.context.vocabulary)
    except SessionReadError:
        return
    leaves = [None, *tree.leaves()]
    for check_all_lines in (True, False):
        source = context_source(data, str(path), check_all_lines, PI16.context)
        for leaf in leaves:
            got, want = written(source, leaf), written(tree, leaf)
            if not check_all_lines and isinstance(got, dict) and isinstance(want, dict):
                got, want = {**got, "diagnostics": None}, {**want, "diagnostics": None}
            assert got == want, (path.name, check_all_lines, leaf)


def test_the_bulk_index_is_refused_by_16_only_where_the_plans_differ() -> None:
    """Files with system messages never take it; files with compactions take it unless one of them has a system
    message, keeps from its own id or keeps an older compaction (the test above checks every leaf's context of
    every file either way)."""
    taken = compacted = 0
    for path in SESSION_FILES:
        data = path.read_bytes()
        bulk = index_clean_session(data, str(path), False)
        if bulk is None:
            continue
        fits = PI16.context.bulk_fits(bulk)
        if b'"role":"system"' in data or b'"systemMessage":{' in data:
            assert not fits, path.name
        taken += fits
        compacted += fits and b'"compaction"' in data
        if not fits:
            with pytest.raises(Exception, match="bulk index does not plan Pi 1.6"):
                context_document(bulk, None, PI16)
    assert taken > 10 and compacted >= 3
    assert isinstance(context_source((ROOT / "fixtures/conformance/cases/c001_tools.jsonl").read_bytes(), "c001",
                                     True, PI16.context), BulkSession)


def test_the_spread_limit_is_named_for_the_pi_that_has_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_tools.session import context, load_session

    monkeypatch.setattr(context, "PI_SPREAD_LIMIT", 0)
    case = str(ROOT / "fixtures/conformance/cases/c003_compaction.jsonl")
    for rules, who in ((resolve("0.85").context, "Pi 0.85 overflows"), (PI16.context, "; Pi overflows")):
        plan = context.plan_session_context(load_session(case, True, rules), rules=rules)
        assert [d["code"] for d in plan.diagnostics] == ["pi-cannot-load"]
        assert who in plan.diagnostics[0]["message"]

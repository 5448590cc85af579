"""Pi 1.6: every context, LLM message list and other leaf's context equal Pi 1.6's goldens under `--pi 1.6`.

Two sets: ../shared/conformance16 (the 0.85 cases as Pi 1.6 reads them, and sessions Pi 1.6 wrote; read through
support.oracle_path, skipped without it) and tests/data/pi16 (small corners of 1.6's context building, with the
1.6 oracle's documents). Under `--pi 0.85` the same files still read as 0.85 reads them
(test_conformance_context.py holds 0.85's goldens).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pi_tools.messages import convert_to_llm
from pi_tools.pi import resolve
from pi_tools.pipe.documents import dumps_document, materialized
from pi_tools.session import ContextError, SessionReadError, build_session_context, load_session
from pi_tools.session.bulk import BulkSession
from pi_tools.session.load import load_context_source

from support.oracle_path import CONFORMANCE16

PI16 = resolve("1.6")
PI085 = resolve("0.85")
EDGE = Path(__file__).resolve().parents[1] / "data" / "pi16"
SETS = {"conformance16": CONFORMANCE16, "edge": EDGE}


def names(root: Path) -> list[str]:
    return sorted(p.stem for p in (root / "cases").glob("*.jsonl") if (root / "expected" / f"{p.stem}.json").exists())


@cache
def expected(root: Path, name: str) -> dict[str, Any]:
    with open(root / "expected" / f"{name}.json", encoding="utf-8") as fh:
        result: dict[str, Any] = json.load(fh)
    return result


def as_json(value: Any) -> Any:
    return json.loads(dumps_document(value))


CASES = [(set_name, name) for set_name, root in SETS.items() for name in names(root)]


def test_the_sets_are_there() -> None:
    assert len(names(EDGE)) >= 15
    if not CONFORMANCE16.is_dir():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    assert len(names(CONFORMANCE16)) >= 53


def new_in_16_diagnosed(diagnostics: list[Any]) -> list[Any]:
    """Diagnostics that call 1.6's entry types or its system role unknown (none under 1.6)."""
    return [d for d in diagnostics if d["code"] in ("unknown-entry-type", "unknown-role")
            and any(f"'{word}'" in d["message"] for word in ("usage", "context_edit", "system"))]


def _context(tree: Any, leaf: Any = None) -> tuple[dict[str, Any], list[Any]]:
    context = build_session_context(tree, *([] if leaf is None else [leaf]), rules=PI16.context)
    got = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    return as_json(got), as_json(convert_to_llm(context.messages, None, PI16.passed_through))


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize(("set_name", "name"), CASES)
def test_context_matches_pi16(set_name: str, name: str, lazy: bool) -> None:
    root = SETS[set_name]
    golden = expected(root, name)
    path = str(root / "cases" / f"{name}.jsonl")
    if "error" in golden:  # Pi cannot read it, or throws while building its context
        with pytest.raises((SessionReadError, ContextError)) as info:
            _context(load_session(path, lazy, PI16.context))
        assert str(info.value).replace(str(root / "cases") + "/", "") == golden["error"]
        return
    tree = load_session(path, lazy, PI16.context)
    assert as_json(tree.header) == golden["header"]
    assert as_json([tree.materialize(entry) for entry in tree.entries]) == golden["entries"]
    assert not new_in_16_diagnosed(tree.diagnostics)
    leaf = tree.leaf_id if isinstance(tree.leaf_id, str) else None
    assert leaf == golden["leafId"]
    context, llm = _context(tree)
    assert context == golden["context"]
    assert llm == golden["llm"]
    other_leaves = [leaf_id for leaf_id in tree.leaves() if leaf_id != golden["leafId"]][:16]
    assert other_leaves == list(golden["branches"])
    for leaf_id, branch in golden["branches"].items():
        context, llm = _context(tree, leaf_id)
        assert context == branch["context"], leaf_id
        assert llm == branch["llm"], leaf_id


@pytest.mark.parametrize(("set_name", "name"), [case for case in CASES if "error" not in expected(SETS[case[0]], case[1])])
def test_the_context_stages_reader_gives_pi16s_context(set_name: str, name: str) -> None:
    """The stages' reader (bulk index where its plan is 1.6's, else the lazy tree) gives the same context, with
    diagnostics (check_all_lines) and without."""
    from pi_tools.pipeline.stages import context_document, llm_document

    root = SETS[set_name]
    golden = expected(root, name)
    for check_all_lines in (True, False):
        source = load_context_source(str(root / "cases" / f"{name}.jsonl"), check_all_lines, PI16.context)
        document = context_document(source, None, PI16)
        assert document["pi"] == "1.6"
        assert as_json(materialized(document["messages"])) == golden["context"]["messages"]
        assert as_json(materialized(llm_document(document)["messages"])) == golden["llm"]


def test_bulk_index_is_used_where_its_plan_is_pi16s() -> None:
    """The bulk index plans 1.6's context of every clean file, system messages, usage and context_edit entries,
    compactions with a system message, keeping from their own id or keeping an older compaction included (the
    contexts above are checked either way); only files that are not clean are read line by line."""
    for name in ("e10_old_comp", "e06_comp_sys", "e08_keepnothing", "e05_comp_edits", "e11_sys_null"):
        for version in (PI16, PI085):
            assert isinstance(load_context_source(str(EDGE / "cases" / f"{name}.jsonl"), True, version.context),
                              BulkSession), (name, version.name)
    linear = CONFORMANCE16 / "cases" / "c001_tools.jsonl"
    if not linear.exists():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    for name in ("c001_tools", "c003_compaction", "edge_compaction_corners", "gen16_new", "gen16_edits"):
        assert isinstance(load_context_source(str(CONFORMANCE16 / "cases" / f"{name}.jsonl"), True, PI16.context),
                          BulkSession), name
    spread = CONFORMANCE16 / "cases" / "gen16_resumed085.jsonl"  # a value spread over two lines: not clean
    assert not isinstance(load_context_source(str(spread), True, PI16.context), BulkSession)


def test_cli_context_and_convert_match_pi16_for_every_case(cli: Any) -> None:
    files = [str(SETS[set_name] / "cases" / f"{name}.jsonl") for set_name, name in CASES]
    goldens = [expected(SETS[set_name], name) for set_name, name in CASES]
    if not CONFORMANCE16.is_dir():
        files, goldens = files[-len(names(EDGE)):], goldens[-len(names(EDGE)):]
    context_run = cli("context", "--pi", "1.6", *files)
    documents = context_run.documents()
    assert len(documents) == len(files)
    for document, golden in zip(documents, goldens, strict=True):
        if "error" in golden:
            name = Path(document["source"]).name
            assert document["kind"] == "error"
            assert document["error"].replace(document["source"], name).endswith(golden["error"])
            continue
        assert (document["kind"], document["pi"]) == ("context", "1.6")
        assert document["leafId"] == golden["leafId"]
        assert document["messages"] == golden["context"]["messages"], document["source"]
        assert document["model"] == golden["context"]["model"]
        assert not new_in_16_diagnosed(document["diagnostics"])
    piped = "\n".join(line for line in context_run.stdout.splitlines() if '"kind":"context"' in line) + "\n"
    convert_run = cli("convert", stdin=piped.encode())  # follows the documents' "pi"
    assert convert_run.code == 0, convert_run.stderr
    llm_docs = convert_run.documents()
    ok = [golden for golden in goldens if "error" not in golden]
    assert [doc["pi"] for doc in llm_docs] == ["1.6"] * len(ok)
    for document, golden in zip(llm_docs, ok, strict=True):
        assert document["messages"] == golden["llm"], document["source"]


def test_pi_085_reads_the_same_files_as_085(cli: Any) -> None:
    """Under 0.85 a system message is an unknown role that convertToLlm drops, usage/context_edit unknown types."""
    case = str(EDGE / "cases" / "e06_comp_sys.jsonl")
    run = cli("convert", "--pi", "0.85", case)
    (document,) = run.documents()
    assert document["pi"] == "0.85"
    assert all(message["role"] != "system" for message in document["messages"])
    codes = {d["code"] for d in document["diagnostics"]}
    assert "unknown-role" in codes
    piped = cli("context", "--pi", "1.6", case).stdout
    refused = cli("convert", "--pi", "0.85", stdin=piped.encode())
    assert refused.code == 2 and "made for Pi 1.6, not Pi 0.85" in refused.stderr


@pytest.mark.parametrize("golden_file", sorted((EDGE / "leaves").glob("*@*.json")), ids=lambda p: p.stem)
def test_cli_leaf_option_matches_pi16(cli: Any, golden_file: Path) -> None:
    """Contexts at an entry that is not a leaf (tests/data/pi16/leaves/CASE@ENTRY.json: the 1.6 oracle's document
    with --leaf ENTRY), e.g. gen16_edits before its compaction, where its two context edits apply."""
    name, leaf = golden_file.stem.split("@")
    case = CONFORMANCE16 / "cases" / f"{name}.jsonl"
    if not case.exists():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    golden = json.loads(golden_file.read_text(encoding="utf-8"))
    run = cli("convert", "--pi", "1.6", "--leaf", leaf, str(case))
    (document,) = run.documents()
    assert (document["leafId"], document["messages"]) == (golden["leafId"], golden["llm"])
    tree = load_session(str(case), True, PI16.context)
    assert _context(tree, leaf) == (golden["context"], golden["llm"])

"""Every conformance case: the context, LLM messages and every other leaf's context equal Pi 0.85's goldens.

Runs both the library (per case, for precise failure messages) and the CLI (all cases in one process, to hold
the stage contract: `pi-tools context` and `pi-tools convert` documents).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_tools.messages import convert_to_llm
from pi_tools.pipe.documents import dumps_document
from pi_tools.session import SessionReadError, build_session_context, load_session

from support.golden import CASES, case_names, expected

NAMES = case_names()


def as_json(value: Any) -> Any:
    """What a JSON reader sees of our value (the goldens are compared as parsed JSON)."""
    return json.loads(dumps_document(value))


def test_cases_are_vendored() -> None:
    assert len(NAMES) >= 50


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("name", NAMES)
def test_context_matches_reference(name: str, lazy: bool) -> None:
    golden = expected(name)
    path = str(CASES / f"{name}.jsonl")
    if "error" in golden:
        with pytest.raises(SessionReadError) as info:
            load_session(path, lazy)
        assert str(info.value).replace(str(CASES) + "/", "") == golden["error"]
        return
    tree = load_session(path, lazy)
    assert as_json(tree.header) == golden["header"]
    assert as_json([tree.materialize(entry) for entry in tree.entries]) == golden["entries"]
    context = build_session_context(tree)
    leaf = context.leaf_id if isinstance(context.leaf_id, str) else None
    assert leaf == golden["leafId"]
    got = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    assert as_json(got) == golden["context"]
    assert as_json(convert_to_llm(context.messages)) == golden["llm"]
    other_leaves = [leaf_id for leaf_id in tree.leaves() if leaf_id != golden["leafId"]][:16]
    assert other_leaves == list(golden["branches"])
    for leaf_id, branch in golden["branches"].items():
        branch_context = build_session_context(tree, leaf_id)
        got = {
            "messages": branch_context.messages,
            "thinkingLevel": branch_context.thinking_level,
            "model": branch_context.model,
        }
        assert as_json(got) == branch["context"], leaf_id
        assert as_json(convert_to_llm(branch_context.messages)) == branch["llm"], leaf_id


def test_cli_context_and_convert_match_reference_for_every_case(cli: Any) -> None:
    files = [f"fixtures/conformance/cases/{name}.jsonl" for name in NAMES]
    context_run = cli("context", "--pi", "0.85", *files)
    errors = {name for name in NAMES if "error" in expected(name)}
    assert context_run.code == (2 if errors else 0)
    documents = context_run.documents()
    assert len(documents) == len(NAMES)
    for name, document in zip(NAMES, documents, strict=True):
        golden = expected(name)
        assert document["source"] == f"fixtures/conformance/cases/{name}.jsonl"
        if name in errors:
            assert document == {
                "kind": "error",
                "source": document["source"],
                "pi": "0.85",
                "error": golden["error"].replace(f"{name}.jsonl", document["source"]),
            }
            continue
        assert (document["kind"], document["pi"]) == ("context", "0.85")
        assert document["header"] == golden["header"]
        assert document["leafId"] == golden["leafId"]
        assert document["thinkingLevel"] == golden["context"]["thinkingLevel"]
        assert document["model"] == golden["context"]["model"]
        assert document["messages"] == golden["context"]["messages"]
    for name in errors:
        assert f"fixtures/conformance/cases/{name}.jsonl" in context_run.stderr
    piped = "\n".join(line for line in context_run.stdout.splitlines() if '"kind":"context"' in line) + "\n"
    convert_run = cli("convert", stdin=piped.encode())
    assert convert_run.code == 0, convert_run.stderr
    llm_docs = convert_run.documents()
    ok_names = [name for name in NAMES if name not in errors]
    assert [(doc["kind"], doc["pi"]) for doc in llm_docs] == [("llm", "0.85")] * len(ok_names)
    for name, document in zip(ok_names, llm_docs, strict=True):
        assert document["messages"] == expected(name)["llm"], name


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n).get("branches")][:6])
def test_cli_leaf_option_matches_branch_goldens(cli: Any, name: str) -> None:
    golden = expected(name)
    leaf_id, branch = next(iter(golden["branches"].items()))
    run = cli("context", "--leaf", leaf_id, f"fixtures/conformance/cases/{name}.jsonl")
    assert run.code == 0, run.stderr
    (document,) = run.documents()
    assert document["leafId"] == leaf_id
    assert document["messages"] == branch["context"]["messages"]
    assert document["model"] == branch["context"]["model"]

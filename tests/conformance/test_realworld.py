"""The ten real public Pi sessions (real damage) load, and their contexts equal what Pi 0.85 builds.

Expected values are digests of the reference oracle's output (scripts/digest_oracle.py), compared exactly.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_tools.messages import convert_to_llm
from pi_tools.pipe.documents import dumps_document
from pi_tools.session import build_session_context, load_session

from support.golden import REALWORLD, canonical_sha, realworld_digest, realworld_names

NAMES = realworld_names()


def as_json(value: Any) -> Any:
    return json.loads(dumps_document(value))


def test_all_ten_sessions_are_present() -> None:
    assert len(NAMES) == 10


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("name", NAMES)
def test_realworld_context_matches_reference(name: str, lazy: bool) -> None:
    digest = realworld_digest(name)
    tree = load_session(str(REALWORLD / f"{name}.jsonl"), lazy)
    context = build_session_context(tree)
    document = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    assert (context.leaf_id if isinstance(context.leaf_id, str) else None) == digest["leafId"]
    assert len(context.messages) == digest["messages"]
    assert canonical_sha(as_json(document)) == digest["context"]
    assert canonical_sha(as_json(convert_to_llm(context.messages))) == digest["llm"]
    for leaf, expected in digest["branches"].items():
        branch = build_session_context(tree, leaf)
        got = {"messages": branch.messages, "thinkingLevel": branch.thinking_level, "model": branch.model}
        assert canonical_sha(as_json(got)) == expected["context"]
        assert canonical_sha(as_json(convert_to_llm(branch.messages))) == expected["llm"]


def test_realworld_damage_is_reported_with_line_numbers(cli: Any) -> None:
    run = cli("context", *(f"fixtures/realworld/{name}.jsonl" for name in NAMES))
    assert run.code == 0, run.stderr
    by_name = {doc["source"].rsplit("/", 1)[-1][: -len(".jsonl")]: doc for doc in run.documents()}
    concatenated = [d for d in by_name["badlogic__pi-mono__session"]["diagnostics"] if d["code"] == "concatenated-objects"]
    assert len(concatenated) == 1 and isinstance(concatenated[0]["line"], int)
    pinion = {d["code"] for d in by_name["pinion05__agent-complex-task__03-raddit-dashboard-pr__session"]["diagnostics"]}
    assert {"invalid-json", "dangling-parent"} <= pinion
    header_only = by_name["kir-gadjello__pi-session-manager__873fc059_crew-planner_0"]
    assert header_only["messages"] == [] and header_only["leafId"] is None
    legacy = [d for d in by_name["badlogic__pi-mono__large-session"]["diagnostics"] if d["code"] == "legacy-version"]
    assert legacy and legacy[0]["line"] == 1

"""`pi-tools audit --pi 1.6`: what Pi 1.6 stores is no finding, and the 1.x rules fire on the damage planted for
them, with their exact messages. Pi 1.6's own sessions (../shared/conformance16) give no error but the damage of
their 0.85 part; under `--pi 0.85` everything stays as it was (test_audit_findings_golden.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.audit.checks import audit_bytes, audit_bytes_line_by_line
from pi_tools.audit.rules import BASE_RULES, RULES, catalogue, select_rules
from pi_tools.pi import resolve

from support.golden import ROOT
from support.oracle_path import CONFORMANCE16

PI16 = resolve("1.6").context
PI085 = resolve("0.85").context
EDGE = ROOT / "tests" / "data" / "pi16" / "cases"
NEW_RULES = {"compaction-keeps-nothing", "context-edit-no-effect", "removed-tool-called"}
HEADER = {"type": "session", "version": 3, "id": "s-16", "timestamp": "2026-12-01T00:00:00.000Z", "cwd": "/tmp/x"}
USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


class Session:
    """A session written entry by entry, each the child of the one before unless `parent` says otherwise."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = [HEADER]
        self.last: str | None = None

    def add(self, entry_id: str, entry_type: str, parent: Any = "", **fields: Any) -> Session:
        stamp = f"2026-12-01T00:00:{len(self.lines):02d}.000Z"
        self.lines.append({"type": entry_type, "id": entry_id, "parentId": self.last if parent == "" else parent,
                           "timestamp": stamp, **fields})
        self.last = entry_id
        return self

    def message(self, entry_id: str, message: dict[str, Any], parent: Any = "") -> Session:
        return self.add(entry_id, "message", parent, message={**message, "timestamp": len(self.lines)})

    def user(self, entry_id: str, text: str = "q", parent: Any = "") -> Session:
        return self.message(entry_id, {"role": "user", "content": text}, parent)

    def assistant(self, entry_id: str, *calls: tuple[str, str], stop: str = "stop", parent: Any = "") -> Session:
        content = [{"type": "toolCall", "id": call_id, "name": name, "arguments": {}} for call_id, name in calls]
        return self.message(entry_id, {
            "role": "assistant", "content": content or [{"type": "text", "text": "r"}], "api": "anthropic-messages",
            "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": USAGE,
            "stopReason": "toolUse" if calls and stop == "stop" else stop}, parent)

    def result(self, entry_id: str, call_id: str, name: str = "bash") -> Session:
        return self.message(entry_id, {"role": "toolResult", "toolCallId": call_id, "toolName": name,
                                       "content": [{"type": "text", "text": "out"}], "isError": False})

    def system(self, entry_id: str, **fields: Any) -> Session:
        return self.message(entry_id, {"role": "system", "content": "", **fields})

    def edit(self, entry_id: str, target: str, replacement: Any = None, parent: Any = "") -> Session:
        return self.add(entry_id, "context_edit", parent, targetId=target, replacement=replacement)

    def data(self) -> bytes:
        return b"".join(json.dumps(line).encode() + b"\n" for line in self.lines)


def audit16(data: bytes, rules: Any = PI16) -> list[tuple[str, str, str | None, int | None, str]]:
    """(rule, severity, entryId, line, message) of every finding (every rule of the version)."""
    enabled = select_rules("all", catalogue(rules))
    found = audit_bytes(data, "s.jsonl", enabled, rules)
    assert found == audit_bytes_line_by_line(data, "s.jsonl", enabled, rules)
    return [(f["rule"], f["severity"], f["entryId"], f["line"], f["message"]) for f in found]


def tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"the {name} tool", "parameters": {"type": "object"}}


# --- the catalogue -------------------------------------------------------------------------------------------------
def test_the_1x_rules_belong_to_16_only(cli: Any) -> None:
    assert {rule.id for rule in RULES} - {rule.id for rule in BASE_RULES} == NEW_RULES
    assert catalogue(PI085) == BASE_RULES and {rule.id for rule in catalogue(PI16)} == {rule.id for rule in RULES}
    as_16 = [d["id"] for d in cli("audit", "--list-rules", "--format", "json", "--pi", "1.6").documents()]
    assert as_16 == [rule.id for rule in RULES]
    as_085 = [d["id"] for d in cli("audit", "--list-rules", "--format", "json").documents()]
    assert as_085 == [rule.id for rule in BASE_RULES]
    refused = cli("audit", "--rules", "removed-tool-called", "tests/data/audit/clean.jsonl")
    assert refused.code == 2 and "unknown rule id(s): removed-tool-called" in refused.stderr
    run = cli("audit", "--rules", "removed-tool-called", "--pi", "1.6", "tests/data/audit/clean.jsonl")
    assert (run.code, run.stderr) == (0, "")


def test_environment_chooses_16_too(cli: Any) -> None:
    case = str(EDGE / "e08_keepnothing.jsonl")
    by_environment = cli("audit", "--format", "json", case, env={"PI_TOOLS_PI": "1.6"}).documents()
    assert [d["rule"] for d in by_environment] == ["compaction-keeps-nothing"]
    as_085 = [d["rule"] for d in cli("audit", "--format", "json", case).documents()]
    assert "compaction-first-kept" in as_085 and "compaction-keeps-nothing" not in as_085


# --- what 1.6 stores is no finding ---------------------------------------------------------------------------------
def valid_16() -> Session:
    return (Session().add("m1", "model_change", provider="anthropic", modelId="claude-sonnet-4-5")
            .system("s1", sections={"preamble": "P"}, toolsAdded=[tool("bash"), tool("read")])
            .user("u1").assistant("a1", ("t1", "bash"))
            .system("s2", toolsRemoved=[{"name": "read"}])  # held until after t1's result
            .result("r1", "t1").assistant("a2")
            .add("w1", "usage", kind="cache_warm", provider="anthropic", model="claude-sonnet-4-5", usage=USAGE))


def test_a_valid_16_session_has_no_finding_under_16_and_many_under_085() -> None:
    data = valid_16().data()
    assert audit16(data) == []
    assert [f[:4] for f in audit16(data, PI085)] == [
        ("unknown-role", "error", "s1", 3),
        ("unknown-role", "error", "s2", 6),
        ("tool-result-interleaved", "error", "r1", 7),
        ("unknown-entry-type", "warning", "w1", 9),
    ]


def test_a_failed_attempt_omitted_with_its_results_is_no_finding() -> None:
    """What Pi 1.6 writes on a retry: the failed attempt and its results, then a null edit of each."""
    session = (Session().user("u1").assistant("a1", ("t1", "bash"), stop="length").result("r1", "t1")
               .edit("x1", "a1").edit("x2", "r1").assistant("a2", ("t2", "bash")).result("r2", "t2").assistant("a3"))
    assert audit16(session.data()) == []


def test_a_null_edit_of_one_side_leaves_an_orphan() -> None:
    only_call = (Session().user("u1").assistant("a1", ("t1", "bash")).result("r1", "t1").edit("x1", "a1")
                 .user("u2").assistant("a2"))
    assert audit16(only_call.data()) == [(
        "tool-result-unmatched", "error", "r1", 4,
        "tool result for call t1 (bash) follows no assistant message with tool calls")]
    only_result = (Session().user("u1").assistant("a1", ("t1", "bash")).result("r1", "t1").edit("x1", "r1")
                   .user("u2").assistant("a2"))
    assert audit16(only_result.data()) == [(
        "orphaned-tool-call", "warning", "a1", 3,
        "tool call t1 (bash) never gets a result; Pi sends `No result provided` in its place")]


def test_a_replacement_of_an_assistant_message_replaces_its_calls() -> None:
    """Pi sends the replacement's content: text instead of the calls leaves their results without a call."""
    session = (Session().user("u1").assistant("a1", ("t1", "bash")).result("r1", "t1")
               .edit("x1", "a1", {"content": "just text"}).user("u2").assistant("a2"))
    assert audit16(session.data()) == [(
        "tool-result-unmatched", "error", "r1", 4,
        "tool result for call t1 (bash) follows no assistant message with tool calls")]
    kept = (Session().user("u1").assistant("a1", ("t1", "bash")).result("r1", "t1")
            .edit("x1", "a1", {"content": [{"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}]})
            .user("u2").assistant("a2"))
    assert audit16(kept.data()) == []


def test_a_null_edit_omits_only_on_the_branches_it_stands_on() -> None:
    """The result is omitted on the branch of the edit; the other branch still pairs it with its call."""
    session = (Session().user("u1").assistant("a1", ("t1", "bash")).result("r1", "t1").edit("x1", "r1")
               .user("u2").assistant("a2").user("u3", parent="r1").assistant("a3"))
    assert audit16(session.data()) == [(
        "orphaned-tool-call", "warning", "a1", 3,
        "tool call t1 (bash) never gets a result; Pi sends `No result provided` in its place")]


def test_other_messages_still_interleave_under_16() -> None:
    session = Session().user("u1").assistant("a1", ("t1", "bash")).user("u2").result("r1", "t1")
    assert audit16(session.data()) == [(
        "tool-result-interleaved", "error", "r1", 5,
        "tool result for call t1 of assistant a1 (line 3) comes after another message (u2, line 4); Pi sends `No "
        "result provided` for the call and this result out of place")]


# --- the 1.x rules, each on the damage planted for it -------------------------------------------------------------
def test_compaction_keeps_nothing() -> None:
    session = Session().user("u1").assistant("a1")
    session.add("k1", "compaction", summary="S", firstKeptEntryId="k1", tokensBefore=10)
    session.user("u2").assistant("a2")
    assert audit16(session.data()) == [(
        "compaction-keeps-nothing", "info", "k1", 4,
        "compaction firstKeptEntryId is its own id: Pi keeps nothing from before the compaction, whose summary alone "
        "replaces the history")]
    unresolved = Session().user("u1").assistant("a1")
    unresolved.add("k1", "compaction", summary="S", firstKeptEntryId="nope", tokensBefore=10)
    assert audit16(unresolved.data()) == [(
        "compaction-first-kept", "error", "k1", 4,
        "compaction firstKeptEntryId nope names no entry; Pi keeps nothing from before the compaction")]


def test_context_edit_no_effect() -> None:
    session = (Session().add("m1", "model_change", provider="anthropic", modelId="claude-sonnet-4-5")
               .user("u1").assistant("a1")
               .message("b1", {"role": "bashExecution", "command": "ls", "output": "a"})
               .edit("x1", "nope", {"content": "z"})  # names no entry
               .edit("x2", "b1", {"content": "z"})  # a bash message: a replacement does nothing
               .edit("x3", "m1")  # null on an entry that gives no message
               .user("u2", parent="a1").edit("x4", "b1"))  # b1 is on another branch
    message = "context edit {}; it changes nothing"
    assert audit16(session.data()) == [
        ("context-edit-no-effect", "warning", "x1", 6, message.format("targets nope, which names no entry")),
        ("context-edit-no-effect", "warning", "x2", 7, message.format(
            "replaces the content of bashExecution message b1 (line 5); Pi edits only user, assistant, toolResult "
            "and custom messages")),
        ("context-edit-no-effect", "warning", "x3", 8, message.format(
            "omits model_change entry m1 (line 2), which gives the context no message")),
        ("context-edit-no-effect", "warning", "x4", 10, message.format(
            "targets bashExecution message b1 (line 5), which is not on this edit's branch")),
    ]


def test_context_edit_left_before_the_kept_range() -> None:
    session = Session().user("u1").assistant("a1").edit("x1", "u2", {"content": "hidden"}).user("u2").assistant("a2")
    session.add("k1", "compaction", summary="S", firstKeptEntryId="u2", tokensBefore=10)
    session.user("u3")
    assert audit16(session.data()) == [(
        "context-edit-no-effect", "warning", "x1", 4,
        "context edit stands before the kept range of compaction k1 (line 7), so Pi no longer applies it; its target "
        "user message u2 (line 5) is sent as stored")]


def test_removed_tool_called() -> None:
    session = (Session().system("s1", toolsAdded=[tool("bash"), tool("read")]).user("u1")
               .system("s2", toolsRemoved=[{"name": "bash"}]).assistant("a1", ("t1", "bash"), ("t2", "read"))
               .result("r1", "t1").result("r2", "t2", "read")
               .system("s3", toolsAdded=[tool("bash")]).assistant("a2", ("t3", "bash")).result("r3", "t3"))
    assert audit16(session.data()) == [(
        "removed-tool-called", "warning", "a1", 5,
        "tool call t1 calls 'bash', which system message s2 (line 4) removed; the request no longer declares it")]


def test_a_missing_replacement_is_a_context_error_on_the_edit() -> None:
    session = Session().user("u1").add("x1", "context_edit", targetId="u1").assistant("a1")
    assert audit16(session.data()) == [
        ("required-fields", "error", "x1", 3, "context_edit entry has no 'replacement'"),
        ("context-error", "error", "x1", 3,
         "Pi cannot build the context for the leaf: Cannot read properties of undefined (reading 'content') "
         "(context edit of user message u1 (line 2) has no 'replacement')"),
    ]


def test_field_checks_of_16_entries() -> None:
    session = (Session()
               .system("s1", sections={"a": 1}, toolsAdded=[{"name": "bash"}, "x"], toolsRemoved={"name": "y"})
               .message("s2", {"role": "system", "content": [{"type": "image", "data": "", "mimeType": "image/png"}]})
               .user("u1").edit("x1", "u1", {"content": 42}).edit("x2", "u1", {})
               .add("w1", "usage", kind="cache_warm", provider=1, model="m", usage=None))
    assert audit16(session.data()) == [
        ("required-fields", "error", "s1", 2, "system message: section 'a' is the number 1, not a string or null"),
        ("required-fields", "error", "s1", 2, "system message toolsAdded[0]: 'description' is missing"),
        ("required-fields", "error", "s1", 2, "system message toolsAdded[0]: 'parameters' is missing"),
        ("required-fields", "error", "s1", 2, "system message toolsAdded[1] is the string 'x', not a tool"),
        ("required-fields", "error", "s1", 2, "system message: 'toolsRemoved' is an object, not an array"),
        ("block-type", "error", "s2", 3,
         "system message content[0] has type 'image'; system content allows only text"),
        ("required-fields", "error", "x1", 5,
         "context_edit entry: replacement's 'content' is the number 42, not a string or an array; Pi sends it as "
         "the target's content"),
        ("required-fields", "error", "x2", 6,
         "context_edit entry: replacement has no 'content'; Pi sends its target without content"),
        ("required-fields", "error", "w1", 7, "usage entry: 'provider' is the number 1"),
        ("required-fields", "error", "w1", 7, "usage entry: 'usage' is null"),
    ]


def test_compaction_snapshot_fields() -> None:
    session = Session().user("u1").assistant("a1")
    session.add("k1", "compaction", summary="S", firstKeptEntryId="a1", tokensBefore=10,
                systemMessage={"role": "system", "content": "", "timestamp": 5, "toolsAdded": [tool("bash")]})
    session.add("k2", "compaction", summary="S", firstKeptEntryId="k1", tokensBefore=10,
                systemMessage={"role": "user", "content": "x", "timestamp": 5})
    session.add("k3", "compaction", summary="S", firstKeptEntryId="k2", tokensBefore=10,
                systemMessage={"role": "system", "sections": []})
    assert audit16(session.data()) == [
        ("required-fields", "error", "k2", 5,
         "compaction entry: 'systemMessage' is a message of role 'user', not a system message; Pi sends it as it is "
         "before the summary"),
        ("required-fields", "error", "k3", 6, "compaction systemMessage: 'content' is missing"),
        ("required-fields", "error", "k3", 6, "compaction systemMessage: 'timestamp' is missing"),
        ("required-fields", "error", "k3", 6, "compaction systemMessage: 'sections' is a list, not an object"),
    ]


# --- Pi 1.6's own sessions and the edge cases -----------------------------------------------------------------------
GEN16 = sorted((CONFORMANCE16 / "cases").glob("gen16_*.jsonl")) if CONFORMANCE16.is_dir() else []


@pytest.mark.skipif(not GEN16, reason=f"no Pi 1.6 conformance set at {CONFORMANCE16}")
def test_sessions_pi_16_wrote_give_no_error_but_their_085_damage(cli: Any) -> None:
    run = cli("audit", "--pi", "1.6", "--format", "json", *map(str, GEN16))
    found = [(Path(d["source"]).name, d["rule"], d["severity"], d["line"]) for d in run.documents()]
    assert len(GEN16) >= 3
    # gen16_resumed085 is a damaged 0.85 session Pi 1.6 resumed: its 0.85 part's broken lines and signatures of
    # another provider's model are findings under either version; its 1.6 part (a system message) is none.
    assert found == [
        ("gen16_resumed085.jsonl", "malformed-line", "error", 3),
        ("gen16_resumed085.jsonl", "foreign-signature", "warning", 5),
        ("gen16_resumed085.jsonl", "foreign-signature", "warning", 7),
        ("gen16_resumed085.jsonl", "malformed-line", "error", 8),
        ("gen16_resumed085.jsonl", "malformed-line", "error", 10),
        ("gen16_resumed085.jsonl", "foreign-signature", "warning", 13),
    ]
    assert run.code == 1


EDGE_FINDINGS = {
    # hand-written corners: what each reports under 1.6 (e01-e14 written by hand, e15 the new stored fields)
    "e01_edit_kinds": ["context-edit-no-effect", "context-edit-no-effect"],
    "e02_weird_content": ["required-fields"] * 3,
    "e04_offpath": ["context-edit-no-effect"],
    "e05_comp_edits": ["context-edit-no-effect", "context-edit-no-effect"],
    "e08_keepnothing": ["compaction-keeps-nothing"],
    "e12_repl_missing": ["required-fields", "context-error"],
    "e13_repl_string": ["required-fields"],
    "e14_edit_branchsum": ["branch-summary-from", "context-edit-no-effect"],
}


@pytest.mark.parametrize("case", sorted(path.stem for path in EDGE.glob("*.jsonl")))
def test_edge_cases(case: str) -> None:
    data = (EDGE / f"{case}.jsonl").read_bytes()
    assert [f[0] for f in audit16(data)] == EDGE_FINDINGS.get(case, [])


@pytest.mark.parametrize("folder", ["fixtures/bad", "fixtures/realworld", "fixtures/conformance/cases",
                                    "tests/data/audit"])
def test_the_clean_path_agrees_with_the_tree_under_16(folder: str) -> None:
    """Under 1.6 a clean file takes the fast path only where the index's plan is 1.6's; either way the findings are
    the tree's."""
    enabled = select_rules("all", catalogue(PI16))
    for path in sorted((ROOT / folder).rglob("*.jsonl")):
        data = path.read_bytes()
        assert audit_bytes(data, str(path), enabled, PI16) == \
            audit_bytes_line_by_line(data, str(path), enabled, PI16), path


def test_16_audits_the_same_in_a_pool(cli: Any) -> None:
    """The version travels to the workers by name: a pool gives what this process gives."""
    args = ("audit", "--pi", "1.6", "--format", "json", str(EDGE))
    alone, pooled = cli(*args, "--jobs", "1"), cli(*args, "--jobs", "2")
    assert pooled.stdout == alone.stdout and "context-edit-no-effect" in alone.stdout
    assert (pooled.code, alone.code) == (1, 1)
